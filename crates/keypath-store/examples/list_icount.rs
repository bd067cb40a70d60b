//! Lists 100 items many times, for counting instructions under
//! `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike wall time). Every
//! thread is counted: the runtime's, the blocking pool's and the caller's.
//!
//! `cargo build --release -p keypath-store --example list_icount`, then
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/list_icount store 200`.
//! Run each operation for two counts and take the per-iteration difference, which cancels
//! the setup (the same fixture as `benches/store.rs`).
//!
//! Operations, as in the benchmark's `list100` group: `store` (100 posts decoded, with their
//! key paths and versions), `raw-keyed` (raw redb on the blocking pool: each key copied
//! and each value decoded), `raw-decoded` (values decoded only), `raw` (values copied only).

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;

use keypath_store::Query;
use support::{copy_value, decode_post, fixture, key_and_post, raw_list, Post};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(op), Some(n)) = (args.next(), args.next().and_then(|n| n.parse::<u64>().ok())) else {
        eprintln!("usage: list_icount store|raw-keyed|raw-decoded|raw ITERATIONS");
        std::process::exit(2);
    };
    let fx = fixture();
    let group: keypath::KeyPath = "/user-1".parse().unwrap();
    let q = Query::children(&group, "post").unwrap().limit(100);
    let start = group.encode();
    let listed = fx.rt.block_on(async {
        let mut listed = 0;
        for _ in 0..n {
            let raw = fx.raw.clone();
            let start = start.clone();
            listed += match op.as_str() {
                "store" => black_box(fx.store.list::<Post>(&q).await.unwrap().items.len()),
                "raw-keyed" => black_box(
                    tokio::task::spawn_blocking(move || raw_list(&raw, &start, key_and_post))
                        .await
                        .unwrap()
                        .len(),
                ),
                "raw-decoded" => black_box(
                    tokio::task::spawn_blocking(move || raw_list(&raw, &start, decode_post))
                        .await
                        .unwrap()
                        .len(),
                ),
                "raw" => black_box(
                    tokio::task::spawn_blocking(move || raw_list(&raw, &start, copy_value))
                        .await
                        .unwrap()
                        .len(),
                ),
                other => {
                    eprintln!("unknown operation {other}");
                    std::process::exit(2);
                }
            };
        }
        listed
    });
    assert_eq!(listed as u64, 100 * n);
}
