//! The store on SlateDB against raw SlateDB doing the same reads and writes, in the same
//! run, each in its own local directory with the same settings (the backend's defaults:
//! files synced to disk, the log written every 2 ms, reads through SlateDB's in-memory state
//! and caches).
//!
//! - `put`: the store writes an item with one secondary index (item, index entry and group
//!   counter in one SlateDB transaction, acknowledged once durable, after reading the
//!   counter and the old item); raw SlateDB writes the same three records in one
//!   transaction and waits until it is durable.
//! - `get`: one item by key path, decoded into its Rust type, vs one raw SlateDB `get`
//!   (bytes copied out), and vs that get with the value decoded (`raw_slatedb_decoded`).
//! - `list100`: 100 items of a group, decoded, vs a raw SlateDB scan of 100 records (bytes
//!   copied out), vs the same scan with the values decoded, and with each key copied out
//!   too, as the store returns each item's key path (`raw_slatedb_keyed`).
//!
//! `cargo bench -p keypath-store --features slatedb --bench slatedb`

mod support;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use keypath::KeyPath;
use keypath_store::backend::slatedb::{SlateDbBackend, SlateDbOptions};
use keypath_store::{Item, Query, Store};
use slatedb::config::Settings;
use slatedb::object_store::local::LocalFileSystem;
use slatedb::{Db, IsolationLevel};

use support::{decode_post, key_and_post, post, raw_value, Post};

/// Raw SlateDB with the backend's default settings.
async fn raw_db(dir: &std::path::Path) -> Db {
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
async fn raw_put(raw: &Db, p: &Post, counter: &[u8], n: u64) {
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
async fn raw_list<T>(raw: &Db, start: &[u8], read: impl Fn(&[u8], &[u8]) -> T) -> Vec<T> {
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

fn copy_value(_: &[u8], v: &[u8]) -> Vec<u8> {
    v.to_vec()
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, raw) = rt.block_on(async {
        let at = dir.path().join("store");
        let store = Store::new(SlateDbBackend::open(at.to_str().unwrap()).await.unwrap());
        let raw = raw_db(&dir.path().join("raw")).await;
        // 1000 posts of user 1 in both.
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
    });

    let mut g = c.benchmark_group("slatedb_put");
    let mut n = 0u64;
    g.bench_function("store", |b| {
        b.to_async(&rt).iter(|| {
            n += 1;
            let p = post(2, n);
            let store = &store;
            async move { black_box(store.put(&p).await.unwrap()) }
        })
    });
    let mut n = 0u64;
    g.bench_function("raw_slatedb", |b| {
        b.to_async(&rt).iter(|| {
            n += 1;
            let p = post(3, n);
            let raw = &raw;
            async move { raw_put(raw, &p, b"counter-3", n).await }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("slatedb_get");
    let target: KeyPath = "/user-1/post-500".parse().unwrap();
    g.bench_function("store", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(store.get::<Post>(&target).await.unwrap().unwrap()) })
    });
    let key = target.encode();
    g.bench_function("raw_slatedb", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw.get(&key).await.unwrap().unwrap().to_vec()) })
    });
    g.bench_function("raw_slatedb_decoded", |b| {
        b.to_async(&rt).iter(|| async {
            let got = raw.get(&key).await.unwrap().unwrap();
            black_box(decode_post(&key, &got))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("slatedb_list100");
    let q = Query::children(&"/user-1".parse().unwrap(), "post")
        .unwrap()
        .limit(100);
    g.bench_function("store", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(store.list::<Post>(&q).await.unwrap().items.len()) })
    });
    let start = KeyPath::new().push("user", 1u64).unwrap().encode();
    g.bench_function("raw_slatedb", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw_list(&raw, &start, copy_value).await.len()) })
    });
    g.bench_function("raw_slatedb_decoded", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw_list(&raw, &start, decode_post).await.len()) })
    });
    g.bench_function("raw_slatedb_keyed", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw_list(&raw, &start, key_and_post).await.len()) })
    });
    g.finish();

    rt.block_on(async {
        store.backend().close().await.unwrap();
        raw.close().await.unwrap();
    });
}

criterion_group! {
    name = slatedb_benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(slatedb_benches);
