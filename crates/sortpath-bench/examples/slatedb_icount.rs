//! Lists 100 items or gets one on SlateDB, through the store or raw, many times, for counting
//! instructions under `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike
//! wall time). The same fixture and operations as `crates/sortpath-bench/benches/store_slatedb.rs`.
//!
//! `cargo build --release -p sortpath-bench --example slatedb_icount`, then
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*slatedb_icount*run*'
//! target/release/examples/slatedb_icount store 200`. `--toggle-collect` counts only the
//! operations' own calls (on whichever thread polls them), not SlateDB's background tasks,
//! which wake on a timer and so count more the slower the run. Run each operation for two
//! counts and take the per-iteration difference, which cancels the setup.
//!
//! Operations, as in the benchmark's `list100` group: `store` (100 posts decoded, with their
//! key paths and versions), `raw` (a raw SlateDB scan of 100 records, values copied out),
//! `raw-decoded` (values decoded), `raw-keyed` (each key copied and each value decoded),
//! `raw-key-paths` (each key decoded into a `KeyPath`, as the store hands out); as in its
//! `get` group: `get-store`, `get-raw` (the value copied), `get-raw-decoded`.

#[path = "../benches/store_support/mod.rs"]
mod support;

use std::hint::black_box;

use slatedb::Db;
use sortpath::KeyPath;
use sortpath_store::backend::slatedb::SlateDbBackend;
use sortpath_store::{Query, Store};
use support::slatedb::{fixture, raw_list, raw_start};
use support::{copy_value, decode_post, key_and_post, key_path_and_post, Post};

/// One operation `n` times; returns how many items it listed or found.
#[inline(never)]
async fn run(op: &str, n: u64, store: &Store<SlateDbBackend>, raw: &Db) -> u64 {
    let group: KeyPath = "/user-1".parse().unwrap();
    let q = Query::children(&group, "post").unwrap().limit(100);
    let start = raw_start();
    let target: KeyPath = "/user-1/post-500".parse().unwrap();
    let key = target.encode();
    let mut listed = 0;
    for _ in 0..n {
        listed += match op {
            "store" => black_box(store.list::<Post>(&q).await.unwrap().items.len()),
            "raw" => black_box(raw_list(raw, &start, copy_value).await.len()),
            "raw-decoded" => black_box(raw_list(raw, &start, decode_post).await.len()),
            "raw-keyed" => black_box(raw_list(raw, &start, key_and_post).await.len()),
            "raw-key-paths" => black_box(raw_list(raw, &start, key_path_and_post).await.len()),
            "get-store" => {
                usize::from(black_box(store.get::<Post>(&target).await.unwrap()).is_some())
            }
            "get-raw" => {
                usize::from(!black_box(raw.get(&key).await.unwrap().unwrap().to_vec()).is_empty())
            }
            "get-raw-decoded" => {
                let got = raw.get(&key).await.unwrap().unwrap();
                usize::from(black_box(decode_post(&key, &got)).id == 500)
            }
            other => {
                eprintln!("unknown operation {other}");
                std::process::exit(2);
            }
        } as u64;
    }
    listed
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(op), Some(n)) = (args.next(), args.next().and_then(|n| n.parse::<u64>().ok())) else {
        eprintln!(
            "usage: slatedb_icount store|raw|raw-decoded|raw-keyed|raw-key-paths|get-store|get-raw|get-raw-decoded ITERATIONS"
        );
        std::process::exit(2);
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let listed = rt.block_on(async {
        let (store, raw) = fixture(dir.path()).await;
        let listed = run(&op, n, &store, &raw).await;
        store.backend().close().await.unwrap();
        raw.close().await.unwrap();
        listed
    });
    // Every list returns its limit of items and every get finds its item.
    let per_iteration = if op.starts_with("get-") { 1 } else { 100 };
    assert_eq!(listed, per_iteration * n);
}
