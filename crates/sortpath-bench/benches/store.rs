//! The store against raw redb doing the same reads and writes, in the same run.
//!
//! - `put`: the store writes an item with one secondary index (item, index entry and group
//!   counter in one durable transaction, after reading the counter and the old item); raw
//!   redb writes the same three records in one durable transaction.
//! - `get`: one item by key path, decoded into its Rust type, vs one raw redb lookup (bytes
//!   copied out), and vs that lookup with the value decoded (`raw_redb_blocking_decoded`).
//! - `list100`: 100 items of a group, decoded, vs a raw redb range scan of 100 records
//!   (bytes copied out), vs the same scan whose values are decoded into `Post` with
//!   `rmp_serde`, as a program on raw redb must do to use them (`raw_redb_blocking_decoded`),
//!   and vs that scan also copying out each record's key, as the store returns each item's
//!   key path (`raw_redb_blocking_keyed`).
//!
//! `raw_redb` runs synchronously on the bench thread, its best case. The store runs its redb
//! work on tokio's blocking pool, as it must not block the runtime, and so does
//! `raw_redb_blocking`: raw redb as an async program has to call it.
//!
//! On a 2-core machine the ratios move by 20% and more with which core the blocking
//! thread lands on and with what ran before in the process; pinned to one core
//! (`taskset -c 0 cargo bench -p sortpath-bench --bench store`) they move much less, and the
//! `store_alternate` example, pinned, alternates the store and raw redb in one process.

#[path = "store_support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use redb::Database;
use sortpath::KeyPath;
use sortpath_store::Query;

use support::{
    copy_value, decode_post, fixture, key_and_post, on_blocking_pool, post, raw_get, raw_list,
    raw_list_blocking, raw_put, Fixture, Post,
};

fn benches(c: &mut Criterion) {
    // `_dir` keeps the files until the end.
    let Fixture {
        rt,
        store,
        raw,
        dir: _dir,
    } = fixture();
    let mut g = c.benchmark_group("put");
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
    g.bench_function("raw_redb", |b| {
        b.iter(|| {
            n += 1;
            raw_put(&raw, &post(3, n), b"counter-3", n)
        })
    });
    let mut n = 0u64;
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(&rt).iter(|| {
            n += 1;
            let raw = raw.clone();
            async move {
                tokio::task::spawn_blocking(move || raw_put(&raw, &post(4, n), b"counter-4", n))
                    .await
                    .unwrap()
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("get");
    let target: KeyPath = "/user-1/post-500".parse().unwrap();
    g.bench_function("store", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(store.get::<Post>(&target).await.unwrap().unwrap()) })
    });
    let key = target.encode();
    g.bench_function("raw_redb", |b| b.iter(|| black_box(raw_get(&raw, &key))));
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(&rt).iter(|| {
            let key = key.clone();
            async { black_box(on_blocking_pool(&raw, move |db| raw_get(db, &key)).await) }
        })
    });
    g.bench_function("raw_redb_blocking_decoded", |b| {
        b.to_async(&rt).iter(|| {
            let key = key.clone();
            let read = move |db: &Database| decode_post(&key, &raw_get(db, &key));
            async { black_box(on_blocking_pool(&raw, read).await) }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("list100");
    let q = Query::children(&"/user-1".parse().unwrap(), "post")
        .unwrap()
        .limit(100);
    g.bench_function("store", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(store.list::<Post>(&q).await.unwrap().items.len()) })
    });
    let start = KeyPath::new().push("user", 1u64).unwrap().encode();
    g.bench_function("raw_redb", |b| {
        b.iter(|| black_box(raw_list(&raw, &start, copy_value).len()))
    });
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw_list_blocking(&raw, &start, copy_value).await.len()) })
    });
    g.bench_function("raw_redb_blocking_decoded", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw_list_blocking(&raw, &start, decode_post).await.len()) })
    });
    g.bench_function("raw_redb_blocking_keyed", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(raw_list_blocking(&raw, &start, key_and_post).await.len()) })
    });
    g.finish();
}

criterion_group! {
    name = store;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(store);
