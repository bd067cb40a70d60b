//! sortpath-store against native_db and raw redb, the same items and operations, one run.
//!
//! See `embedded_support` for the item and the three systems. Each operation is measured on
//! - `sortpath_async`: the store's async API on a Tokio runtime (reads run where they are
//!   awaited, commits on the blocking pool);
//! - `sortpath_sync`: `sortpath_store::blocking::Store` (everything on the calling thread);
//! - `native_db`: native_db called directly (it is synchronous);
//! - `raw_redb`: raw redb called directly, values decoded;
//! - `raw_redb_blocking`: the same through `spawn_blocking`, as an async program on raw redb
//!   must call it.
//!
//! Before the benches, the byte footprint of each system after loading 100,000 items is
//! printed (`footprint ...` lines), every system is checked to answer each read with the
//! same items, and a put and an update on each system are checked to leave the same items.
//!
//! `taskset -c 1 cargo bench -p sortpath-bench --bench embedded` (docs/figures/embedded.md).

#[path = "embedded_support/mod.rs"]
mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use sortpath::KeyPath;
use support::*;

/// Runs `op` on the blocking pool and waits for it.
async fn on_pool<T: Send + 'static>(
    raw: &Arc<redb::Database>,
    op: impl FnOnce(&redb::Database) -> T + Send + 'static,
) -> T {
    let raw = raw.clone();
    tokio::task::spawn_blocking(move || op(&raw)).await.unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap()
}

fn print_footprint(s: &Systems) {
    let names = ["sortpath", "native_db", "raw_redb"];
    for (name, f) in names.iter().zip(s.footprint) {
        println!(
            "footprint {name}: {} items, file {} B ({:.0} B/item), stored {} B ({:.0} B/item)",
            s.items,
            f.file,
            f.file as f64 / s.items as f64,
            f.stored,
            f.stored as f64 / s.items as f64
        );
    }
}

fn writes(c: &mut Criterion, rt: &tokio::runtime::Runtime, s: &Systems) {
    let kp = sortpath_async(s);
    let kp_sync = &s.sortpath;
    // New items: ids far above the fixture's, in board 0.
    let mut g = c.benchmark_group("put_new");
    let mut next = 10_000_000u64;
    let mut fresh = move || {
        next += 1;
        ticket(0, next)
    };
    g.bench_function("sortpath_async", |b| {
        b.to_async(rt).iter(|| {
            let t = fresh();
            let kp = &kp;
            async move { black_box(kp.put(&t).await.unwrap()) }
        })
    });
    g.bench_function("sortpath_sync", |b| {
        b.iter(|| black_box(kp_sync.put(&fresh()).unwrap()))
    });
    g.bench_function("native_db", |b| b.iter(|| ndb_put(&s.native, fresh())));
    g.bench_function("raw_redb", |b| b.iter(|| raw_put(&s.raw, &fresh())));
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(rt).iter(|| {
            let t = fresh();
            on_pool(&s.raw, move |db| raw_put(db, &t))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("update_indexed");
    let mut i = 0u64;
    let mut pick = move || {
        i += 1;
        probe(i, SMALL_ITEMS)
    };
    let bump = |t: Option<Ticket>| {
        t.map(|mut t| {
            t.updated_at += 1;
            t
        })
    };
    g.bench_function("sortpath_async", |b| {
        b.to_async(rt).iter(|| {
            let path = key_path(0, pick());
            let kp = &kp;
            async move { black_box(kp.update(&path, bump).await.unwrap()) }
        })
    });
    g.bench_function("sortpath_sync", |b| {
        b.iter(|| black_box(kp_sync.update(&key_path(0, pick()), bump).unwrap()))
    });
    g.bench_function("native_db", |b| b.iter(|| ndb_update(&s.native, pick())));
    g.bench_function("raw_redb", |b| b.iter(|| raw_update(&s.raw, 0, pick())));
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(rt).iter(|| {
            let id = pick();
            on_pool(&s.raw, move |db| raw_update(db, 0, id))
        })
    });
    g.finish();
}

/// Key paths of the probes, made once (a caller has its key paths; making them is not the
/// store's work).
fn probe_paths(s: &Systems) -> Vec<(u64, u64, KeyPath)> {
    (0..1024)
        .map(|i| {
            let id = probe(i, s.items);
            let board = if s.items == ITEMS { board_of(id) } else { 0 };
            (board, id, key_path(board, id))
        })
        .collect()
}

fn gets(g: &mut BenchmarkGroup<'_, WallTime>, rt: &tokio::runtime::Runtime, s: &Systems) {
    let kp = sortpath_async(s);
    let probes = probe_paths(s);
    let cycle = |i: &mut usize| {
        *i = (*i + 1) % probes.len();
        &probes[*i]
    };
    let mut i = 0;
    g.bench_function("sortpath_async", |b| {
        b.to_async(rt).iter(|| {
            let (_, _, path) = cycle(&mut i);
            let kp = &kp;
            async move { black_box(kp.get::<Ticket>(path).await.unwrap()) }
        })
    });
    let mut i = 0;
    g.bench_function("sortpath_sync", |b| {
        b.iter(|| black_box(s.sortpath.get::<Ticket>(&cycle(&mut i).2).unwrap()))
    });
    let mut i = 0;
    g.bench_function("native_db", |b| {
        b.iter(|| black_box(ndb_get(&s.native, cycle(&mut i).1)))
    });
    let mut i = 0;
    g.bench_function("raw_redb", |b| {
        b.iter(|| {
            let &(board, id, _) = cycle(&mut i);
            black_box(raw_get(&s.raw, board, id))
        })
    });
    let mut i = 0;
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(rt).iter(|| {
            let &(board, id, _) = cycle(&mut i);
            on_pool(&s.raw, move |db| raw_get(db, board, id))
        })
    });
}

fn reads(c: &mut Criterion, rt: &tokio::runtime::Runtime, small: &Systems, large: &Systems) {
    let mut g = c.benchmark_group("get_1k");
    gets(&mut g, rt, small);
    g.finish();
    let mut g = c.benchmark_group("get_100k");
    gets(&mut g, rt, large);
    g.finish();

    let s = large;
    let kp = sortpath_async(s);
    for (name, reverse) in [("list100_asc", false), ("list100_desc", true)] {
        let mut g = c.benchmark_group(name);
        let q = list_query(reverse);
        g.bench_function("sortpath_async", |b| {
            b.to_async(rt)
                .iter(|| async { black_box(kp.list::<Ticket>(&q).await.unwrap()) })
        });
        g.bench_function("sortpath_sync", |b| {
            b.iter(|| black_box(s.sortpath.list::<Ticket>(&q).unwrap()))
        });
        g.bench_function("native_db", |b| {
            b.iter(|| black_box(ndb_list(&s.native, reverse)))
        });
        g.bench_function("raw_redb", |b| {
            b.iter(|| black_box(raw_list(&s.raw, reverse)))
        });
        g.bench_function("raw_redb_blocking", |b| {
            b.to_async(rt)
                .iter(|| on_pool(&s.raw, move |db| raw_list(db, reverse)))
        });
        g.finish();
    }

    let mut g = c.benchmark_group("batch_get10_100k");
    let probes = probe_paths(s);
    let batches: Vec<Vec<(u64, u64, KeyPath)>> = probes.chunks(10).map(<[_]>::to_vec).collect();
    let paths: Vec<Vec<KeyPath>> = batches
        .iter()
        .map(|b| b.iter().map(|p| p.2.clone()).collect())
        .collect();
    let ids: Vec<Vec<u64>> = batches
        .iter()
        .map(|b| b.iter().map(|p| p.1).collect())
        .collect();
    let keys: Vec<Vec<(u64, u64)>> = batches
        .iter()
        .map(|b| b.iter().map(|p| (p.0, p.1)).collect())
        .collect();
    let n = batches.len();
    let mut i = 0;
    g.bench_function("sortpath_async", |b| {
        b.to_async(rt).iter(|| {
            i = (i + 1) % n;
            let (kp, paths) = (&kp, &paths[i]);
            async move { black_box(kp.batch_get::<Ticket>(paths).await.unwrap()) }
        })
    });
    let mut i = 0;
    g.bench_function("sortpath_sync", |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(s.sortpath.batch_get::<Ticket>(&paths[i]).unwrap())
        })
    });
    let mut i = 0;
    g.bench_function("native_db", |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(ndb_batch_get(&s.native, &ids[i]))
        })
    });
    let mut i = 0;
    g.bench_function("raw_redb", |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(raw_batch_get(&s.raw, &keys[i]))
        })
    });
    let mut i = 0;
    g.bench_function("raw_redb_blocking", |b| {
        b.to_async(rt).iter(|| {
            i = (i + 1) % n;
            let keys = keys[i].clone();
            on_pool(&s.raw, move |db| raw_batch_get(db, &keys))
        })
    });
    g.finish();

    for (name, board) in [
        ("latest10_of_10000", BIG_BOARD),
        ("latest10_of_100", SMALL_BOARD),
    ] {
        let mut g = c.benchmark_group(name);
        let q = latest_query(board);
        g.bench_function("sortpath_async", |b| {
            b.to_async(rt).iter(|| async {
                black_box(kp.query_index::<Ticket>("by_updated", &q).await.unwrap())
            })
        });
        g.bench_function("sortpath_sync", |b| {
            b.iter(|| black_box(s.sortpath.query_index::<Ticket>("by_updated", &q).unwrap()))
        });
        g.bench_function("native_db", |b| {
            b.iter(|| black_box(ndb_latest(&s.native, board)))
        });
        g.bench_function("raw_redb", |b| {
            b.iter(|| black_box(raw_latest(&s.raw, board)))
        });
        g.bench_function("raw_redb_blocking", |b| {
            b.to_async(rt)
                .iter(|| on_pool(&s.raw, move |db| raw_latest(db, board)))
        });
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    let rt = runtime();
    let large = large();
    print_footprint(&large);
    let small = small();
    check_same_answers(&large, &rt);
    check_same_answers(&small, &rt);
    check_same_writes(&small, &rt);
    reads(c, &rt, &small, &large);
    writes(c, &rt, &small);
}

criterion_group! {
    name = embedded;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(embedded);
