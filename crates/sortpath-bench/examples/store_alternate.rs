//! The store's list of 100 and get against raw redb, timed in alternating blocks in one
//! process, so that drift of a shared machine (frequency, neighbours, which core the
//! blocking thread lands on) hits both sides alike.
//!
//! `cargo build --release -p sortpath-bench --example store_alternate`, then
//! `taskset -c 0 target/release/examples/store_alternate [ROUNDS] [BLOCK]`.
//!
//! Pinned to one core (`taskset`), the runtime's threads and the blocking pool's take turns
//! on it, and the medians repeat within a few percent from run to run; unpinned, where the
//! blocking thread runs and what the other core is doing move them by 20% and more.
//!
//! Each round times BLOCK calls of every operation, in an order that rotates from round to
//! round, and prints, per operation, the median and the fastest block's time per call, and
//! the ratios of the store's medians to the raw baselines' (the fixture and operations of
//! `benches/store.rs`: `list100` against `raw_redb_blocking_keyed`, `get` against
//! `raw_redb_blocking_decoded`, `put` against `raw_redb_blocking`; each put is durable, so
//! its time follows the disk's flushes). One more raw list, `raw_key_paths`, also decodes each
//! key into a `KeyPath` (with `KeyPath::decode`), as the store hands out: the store's
//! overhead beyond producing the same typed output.

#[path = "../benches/store_support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use sortpath_store::Query;
use support::{
    decode_post, fixture, key_and_post, key_path_and_post, on_blocking_pool, post, raw_get,
    raw_list_blocking, raw_put, Post,
};

const OPS: [&str; 7] = [
    "list100/store",
    "list100/raw_keyed",
    "get/store",
    "get/raw_decoded",
    "list100/raw_key_paths",
    "put/store",
    "put/raw_blocking",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(30);
    let block: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let fx = fixture();
    let group: sortpath::KeyPath = "/user-1".parse().unwrap();
    let q = Query::children(&group, "post").unwrap().limit(100);
    let start = group.encode();
    let target: sortpath::KeyPath = "/user-1/post-500".parse().unwrap();
    let key = target.encode();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); OPS.len()];
    // Puts write new posts (of users 2 and 3, outside the listed and read ones), as the
    // benchmark's `put` group does.
    let mut puts = 0u64;
    for round in 0..rounds {
        for i in 0..OPS.len() {
            let op = (round + i) % OPS.len();
            let took = fx.rt.block_on(async {
                let t = Instant::now();
                for _ in 0..block {
                    match op {
                        0 => {
                            let page = fx.store.list::<Post>(&q).await.unwrap();
                            assert_eq!(black_box(page).items.len(), 100);
                        }
                        1 => {
                            let items = raw_list_blocking(&fx.raw, &start, key_and_post).await;
                            assert_eq!(black_box(items).len(), 100);
                        }
                        2 => {
                            let got = fx.store.get::<Post>(&target).await.unwrap();
                            assert!(black_box(got).is_some());
                        }
                        3 => {
                            let key = key.clone();
                            let read =
                                move |db: &redb::Database| decode_post(&key, &raw_get(db, &key));
                            assert_eq!(black_box(on_blocking_pool(&fx.raw, read).await).id, 500);
                        }
                        4 => {
                            let items = raw_list_blocking(&fx.raw, &start, key_path_and_post);
                            assert_eq!(black_box(items.await).len(), 100);
                        }
                        5 => {
                            puts += 1;
                            black_box(fx.store.put(&post(2, puts)).await.unwrap());
                        }
                        _ => {
                            puts += 1;
                            let (raw, n) = (fx.raw.clone(), puts);
                            let put = move || raw_put(&raw, &post(3, n), b"counter-3", n);
                            tokio::task::spawn_blocking(put).await.unwrap();
                        }
                    }
                }
                t.elapsed() / block
            });
            times[op].push(took);
        }
    }
    let medians = support::print_medians(&OPS, &mut times);
    let ratio = |a: usize, b: usize| medians[a].as_secs_f64() / medians[b].as_secs_f64();
    println!("list100 store / raw keyed:   {:.3}", ratio(0, 1));
    println!("get store / raw decoded:     {:.3}", ratio(2, 3));
    println!("list100 store / raw with key paths: {:.3}", ratio(0, 4));
    println!("put store / raw blocking:    {:.3}", ratio(5, 6));
}
