//! What the store benchmark and the `list_icount` example share: the item, the raw table,
//! the raw list helpers, and a store and a raw redb file holding the same 1000 posts.

#![allow(dead_code)] // each user takes what it needs

use std::sync::Arc;

use redb::{Database, ReadableDatabase, TableDefinition};
use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::redb::RedbBackend;
use sortpath_store::{Index, Item, Store};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Post {
    pub user: u64,
    pub id: u64,
    pub updated_at: u64,
    pub title: String,
    pub body: String,
}

impl Item for Post {
    const TYPE: &'static str = "post";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |p| {
        Ok(Some(
            KeyPath::new()
                .push("feed", 0u64)?
                .push("updated", p.updated_at)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("user", self.user)?
            .push("post", self.id)
    }
}

pub fn post(user: u64, id: u64) -> Post {
    Post {
        user,
        id,
        updated_at: 1_700_000_000_000 + id,
        title: format!("post number {id}"),
        body: "lorem ipsum dolor sit amet, consectetur adipiscing elit".repeat(2),
    }
}

pub const RAW: TableDefinition<&[u8], &[u8]> = TableDefinition::new("raw");

pub fn raw_value(p: &Post) -> Vec<u8> {
    rmp_serde::to_vec_named(p).expect("encodes")
}

/// The raw equivalent of a store put with one index: item, index entry and counter.
pub fn raw_put(raw: &Database, p: &Post, counter: &[u8], n: u64) {
    let key = p.key_path().unwrap().encode();
    let index_key = [b"idx".as_slice(), &p.updated_at.to_be_bytes(), &key].concat();
    let txn = raw.begin_write().unwrap();
    {
        let mut t = txn.open_table(RAW).unwrap();
        t.insert(key.as_slice(), raw_value(p).as_slice()).unwrap();
        t.insert(index_key.as_slice(), key.as_slice()).unwrap();
        t.insert(counter, n.to_be_bytes().as_slice()).unwrap();
    }
    txn.commit().unwrap();
}

/// One raw lookup, the value copied out.
pub fn raw_get(raw: &Database, key: &[u8]) -> Vec<u8> {
    let txn = raw.begin_read().unwrap();
    let t = txn.open_table(RAW).unwrap();
    let v = t.get(key).unwrap().unwrap().value().to_vec();
    v
}

/// Runs `work` with the raw database on tokio's blocking pool and waits for it: raw redb
/// called as an async program has to call it (the store does the same).
pub async fn on_blocking_pool<T: Send + 'static>(
    raw: &Arc<Database>,
    work: impl FnOnce(&Database) -> T + Send + 'static,
) -> T {
    let raw = raw.clone();
    tokio::task::spawn_blocking(move || work(&raw))
        .await
        .unwrap()
}

/// [`raw_list`] from `start` on the blocking pool.
pub async fn raw_list_blocking<T: Send + 'static>(
    raw: &Arc<Database>,
    start: &[u8],
    read: fn(&[u8], &[u8]) -> T,
) -> Vec<T> {
    let start = start.to_vec();
    on_blocking_pool(raw, move |db| raw_list(db, &start, read)).await
}

/// A 100-record raw range scan, each record passed through `read` as (key, value).
pub fn raw_list<T>(raw: &Database, start: &[u8], read: impl Fn(&[u8], &[u8]) -> T) -> Vec<T> {
    let txn = raw.begin_read().unwrap();
    let t = txn.open_table(RAW).unwrap();
    let items = t
        .range(start..)
        .unwrap()
        .take(100)
        .map(|r| {
            let (k, v) = r.unwrap();
            read(k.value(), v.value())
        })
        .collect();
    items
}

pub fn copy_value(_: &[u8], v: &[u8]) -> Vec<u8> {
    v.to_vec()
}

pub fn decode_post(_: &[u8], v: &[u8]) -> Post {
    rmp_serde::from_slice(v).unwrap()
}

/// What a listing program needs of each record: its key and its decoded value.
pub fn key_and_post(k: &[u8], v: &[u8]) -> (Vec<u8>, Post) {
    (k.to_vec(), rmp_serde::from_slice(v).unwrap())
}

/// [`key_and_post`] with the key decoded into a typed `KeyPath`, as the store returns it.
pub fn key_path_and_post(k: &[u8], v: &[u8]) -> (KeyPath, Post) {
    (
        KeyPath::decode(k).unwrap(),
        rmp_serde::from_slice(v).unwrap(),
    )
}

/// The fixture: a 2-worker runtime, and a store and a raw redb file each holding posts
/// 0..1000 of user 1 (the directory is removed on drop).
pub struct Fixture {
    pub rt: tokio::runtime::Runtime,
    pub store: Store<RedbBackend>,
    pub raw: Arc<Database>,
    pub dir: tempfile::TempDir,
}

pub fn fixture() -> Fixture {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = rt
        .block_on(Store::create(dir.path().join("store")))
        .unwrap();
    let raw = Arc::new(Database::create(dir.path().join("raw.redb")).unwrap());
    // 1000 posts of user 1 in both.
    rt.block_on(async {
        let mut txn = store.transaction();
        for id in 0..1000 {
            txn.put(&post(1, id)).unwrap();
        }
        txn.commit().await.unwrap();
    });
    {
        let txn = raw.begin_write().unwrap();
        {
            let mut t = txn.open_table(RAW).unwrap();
            for id in 0..1000 {
                let p = post(1, id);
                t.insert(
                    p.key_path().unwrap().encode().as_slice(),
                    raw_value(&p).as_slice(),
                )
                .unwrap();
            }
        }
        txn.commit().unwrap();
    }

    Fixture {
        rt,
        store,
        raw,
        dir,
    }
}

pub mod slatedb;

/// Prints each operation's median and fastest block time (the alternating timers'
/// summary) and returns the medians, in the order of `ops`.
pub fn print_medians(
    ops: &[&str],
    times: &mut [Vec<std::time::Duration>],
) -> Vec<std::time::Duration> {
    let width = ops.iter().map(|op| op.len()).max().unwrap_or(0) + 2;
    let mut medians = Vec::new();
    for (op, t) in ops.iter().zip(times) {
        t.sort();
        let median = t[t.len() / 2];
        medians.push(median);
        println!(
            "{op:<width$} median {median:>10.2?}   fastest block {:>10.2?}",
            t[0]
        );
    }
    medians
}
