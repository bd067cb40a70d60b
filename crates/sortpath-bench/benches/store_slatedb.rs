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
//! `cargo bench -p sortpath-bench --bench store_slatedb`

#[path = "store_support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use sortpath::KeyPath;
use sortpath_store::Query;

use support::slatedb::{fixture, raw_list, raw_put, raw_start};
use support::{copy_value, decode_post, key_and_post, post, Post};

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, raw) = rt.block_on(fixture(dir.path()));

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
    let start = raw_start();
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
