//! What the SlateDB benchmark and the `slatedb_icount` example share: raw SlateDB with the
//! backend's settings, its raw scan, and a store and a raw database holding the same 1000
//! posts.

use std::sync::Arc;

use slatedb::config::Settings;
use slatedb::object_store::local::LocalFileSystem;
use slatedb::{Db, IsolationLevel};
use sortpath::KeyPath;
use sortpath_store::backend::slatedb::{SlateDbBackend, SlateDbOptions};
use sortpath_store::{Item, Store};

use super::{post, raw_value, Post};

/// Raw SlateDB with the backend's default settings.
pub async fn raw_db(dir: &std::path::Path) -> Db {
    std::fs::create_dir_all(dir).unwrap();
    let defaults = SlateDbOptions::default();
    let settings = Settings {
        flush_interval: Some(defaults.get_flush_interval()),
        object_store_max_retries: Some(defaults.get_object_store_retries()),
        ..Settings::default()
    };
    // fsync on, as the backend has it on a local directory.
    let objects = Arc::new(
        LocalFileSystem::new_with_prefix(dir)
            .unwrap()
            .with_fsync(true),
    );
    Db::builder("", objects)
        .with_settings(settings)
        .build()
        .await
        .unwrap()
}

/// The raw equivalent of a store put with one index: item, index entry and counter in one
/// transaction, acknowledged once durable.
pub async fn raw_put(raw: &Db, p: &Post, counter: &[u8], n: u64) {
    let key = p.key_path().unwrap().encode();
    let index_key = [b"idx".as_slice(), &p.updated_at.to_be_bytes(), &key].concat();
    let txn = raw.begin(IsolationLevel::Snapshot).unwrap();
    txn.put(&key, raw_value(p)).unwrap();
    txn.put(&index_key, &key).unwrap();
    txn.put(counter, n.to_be_bytes()).unwrap();
    let handle = txn.commit().await.unwrap().unwrap();
    handle.await_durable().await.unwrap();
}

/// A 100-record raw scan from `start`, each record passed through `read` as (key, value).
pub async fn raw_list<T>(raw: &Db, start: &[u8], read: impl Fn(&[u8], &[u8]) -> T) -> Vec<T> {
    let mut iter = raw.scan(start.to_vec()..).await.unwrap();
    let mut out = Vec::with_capacity(100);
    while out.len() < 100 {
        let Some(kv) = iter.next().await.unwrap() else {
            break;
        };
        out.push(read(&kv.key, &kv.value));
    }
    out
}

/// A store on SlateDB and a raw SlateDB database, each in its own directory under `dir`,
/// each holding posts 0..1000 of user 1.
pub async fn fixture(dir: &std::path::Path) -> (Store<SlateDbBackend>, Db) {
    let at = dir.join("store");
    let store = Store::new(SlateDbBackend::open(at.to_str().unwrap()).await.unwrap());
    let raw = raw_db(&dir.join("raw")).await;
    let mut txn = store.transaction();
    for id in 0..1000 {
        txn.put(&post(1, id)).unwrap();
    }
    txn.commit().await.unwrap();
    let txn = raw.begin(IsolationLevel::Snapshot).unwrap();
    for id in 0..1000 {
        let p = post(1, id);
        txn.put(p.key_path().unwrap().encode(), raw_value(&p))
            .unwrap();
    }
    txn.commit()
        .await
        .unwrap()
        .unwrap()
        .await_durable()
        .await
        .unwrap();
    (store, raw)
}

/// The encoded start of user 1's posts, where the raw scans begin.
pub fn raw_start() -> Vec<u8> {
    KeyPath::new().push("user", 1u64).unwrap().encode()
}
