//! The store's list of 100 and get on SlateDB against raw SlateDB, timed in alternating
//! blocks in one process, so that drift of a shared machine (frequency, neighbours) hits
//! both sides alike. The fixture and operations of `crates/sortpath-bench/benches/store_slatedb.rs`.
//!
//! `cargo build --release -p sortpath-bench --example slatedb_alternate`,
//! then `target/release/examples/slatedb_alternate [ROUNDS] [BLOCK]`.
//!
//! Each round times BLOCK calls of every operation, in an order that rotates from round to
//! round, and prints, per operation, the median and the fastest block's time per call, and
//! the ratios of the store's medians to the raw baselines': `list100/raw` copies each value
//! out, `raw_decoded` decodes each value, `raw_keyed` also copies each key out,
//! `raw_key_paths` decodes each key into a `KeyPath` instead, as the store hands out.

#[path = "../benches/store_support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use sortpath::KeyPath;
use sortpath_store::Query;
use support::slatedb::{fixture, raw_list, raw_start};
use support::{copy_value, decode_post, key_and_post, key_path_and_post, Post};

const OPS: [&str; 8] = [
    "list100/store",
    "list100/raw",
    "list100/raw_decoded",
    "list100/raw_keyed",
    "list100/raw_key_paths",
    "get/store",
    "get/raw",
    "get/raw_decoded",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(30);
    let block: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, raw) = rt.block_on(fixture(dir.path()));
    let group: KeyPath = "/user-1".parse().unwrap();
    let q = Query::children(&group, "post").unwrap().limit(100);
    let start = raw_start();
    let target: KeyPath = "/user-1/post-500".parse().unwrap();
    let key = target.encode();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); OPS.len()];
    for round in 0..rounds {
        for i in 0..OPS.len() {
            let op = (round + i) % OPS.len();
            let took = rt.block_on(async {
                let t = Instant::now();
                for _ in 0..block {
                    let n = match op {
                        0 => black_box(store.list::<Post>(&q).await.unwrap()).items.len(),
                        1 => black_box(raw_list(&raw, &start, copy_value).await).len(),
                        2 => black_box(raw_list(&raw, &start, decode_post).await).len(),
                        3 => black_box(raw_list(&raw, &start, key_and_post).await).len(),
                        4 => black_box(raw_list(&raw, &start, key_path_and_post).await).len(),
                        5 => {
                            let got = store.get::<Post>(&target).await.unwrap();
                            usize::from(black_box(got).is_some()) * 100
                        }
                        6 => {
                            let got = raw.get(&key).await.unwrap().unwrap().to_vec();
                            usize::from(!black_box(got).is_empty()) * 100
                        }
                        _ => {
                            let got = raw.get(&key).await.unwrap().unwrap();
                            usize::from(black_box(decode_post(&key, &got)).id == 500) * 100
                        }
                    };
                    assert_eq!(n, 100);
                }
                t.elapsed() / block
            });
            times[op].push(took);
        }
    }
    let medians = support::print_medians(&OPS, &mut times);
    let ratio = |a: usize, b: usize| medians[a].as_secs_f64() / medians[b].as_secs_f64();
    println!("list100 store / raw:            {:.3}", ratio(0, 1));
    println!("list100 store / raw decoded:    {:.3}", ratio(0, 2));
    println!("list100 store / raw keyed:      {:.3}", ratio(0, 3));
    println!("list100 store / raw key paths:  {:.3}", ratio(0, 4));
    println!("get store / raw:                {:.3}", ratio(5, 6));
    println!("get store / raw decoded:        {:.3}", ratio(5, 7));
    rt.block_on(async {
        store.backend().close().await.unwrap();
        raw.close().await.unwrap();
    });
}
