//! Lists 100 items, gets one or puts one, many times, for counting instructions under
//! `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike wall time). Every
//! thread is counted: the runtime's, the blocking pool's and the caller's.
//!
//! `cargo build --release -p sortpath-bench --example store_icount`, then
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/store_icount store 200`.
//! Run each operation for two counts and take the per-iteration difference, which cancels
//! the setup (the same fixture as `benches/store.rs`).
//!
//! Operations, as in the benchmark's `list100` group: `store` (100 posts decoded, with their
//! key paths and versions), `raw-keyed` (raw redb on the blocking pool: each key copied
//! and each value decoded), `raw-key-paths` (the same with each key decoded into a
//! `KeyPath`, as the store hands out), `raw-decoded` (values decoded only), `raw` (values copied only);
//! as in its `get` group: `get-store` (one post decoded), `get-raw` (raw redb on the
//! blocking pool, the value copied) and `get-raw-decoded` (the value decoded there); and
//! `index` (100 posts through the `by_updated` index, decoded) and `first` (a list of one
//! post); as in its `put` group: `put-store` (a new post with its index entry and group
//! counter, durable) and `put-raw` (raw redb writing the same three records on the blocking
//! pool); and `put-overwrite` (one of the fixture's posts put again unchanged, so its index
//! entry stays). Each put waits for the disk's flush, which callgrind does not count.

#[path = "../benches/store_support/mod.rs"]
mod support;

use std::hint::black_box;

use sortpath_store::Query;
use support::{
    copy_value, decode_post, fixture, key_and_post, key_path_and_post, on_blocking_pool, post,
    raw_get, raw_list_blocking, raw_put, Post,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(op), Some(n)) = (args.next(), args.next().and_then(|n| n.parse::<u64>().ok())) else {
        eprintln!(
            "usage: store_icount store|raw-keyed|raw-key-paths|raw-decoded|raw|get-store|get-raw|get-raw-decoded|index|first|put-store|put-overwrite|put-raw ITERATIONS"
        );
        std::process::exit(2);
    };
    let fx = fixture();
    let group: sortpath::KeyPath = "/user-1".parse().unwrap();
    let q = Query::children(&group, "post").unwrap().limit(100);
    let first = Query::children(&group, "post").unwrap().limit(1);
    let start = group.encode();
    let feed: sortpath::KeyPath = "/feed-0".parse().unwrap();
    let by_updated = Query::children(&feed, "updated").unwrap().limit(100);
    let target: sortpath::KeyPath = "/user-1/post-500".parse().unwrap();
    let key = target.encode();
    let listed = fx.rt.block_on(async {
        let mut listed = 0;
        let mut puts = 0u64;
        for _ in 0..n {
            let raw = &fx.raw;
            listed += match op.as_str() {
                "store" => black_box(fx.store.list::<Post>(&q).await.unwrap().items.len()),
                "first" => black_box(fx.store.list::<Post>(&first).await.unwrap().items.len()),
                "index" => {
                    let page = fx.store.query_index::<Post>("by_updated", &by_updated);
                    black_box(page.await.unwrap().items.len())
                }
                "raw-keyed" => black_box(raw_list_blocking(raw, &start, key_and_post).await.len()),
                "raw-key-paths" => black_box(
                    raw_list_blocking(raw, &start, key_path_and_post)
                        .await
                        .len(),
                ),
                "raw-decoded" => black_box(raw_list_blocking(raw, &start, decode_post).await.len()),
                "raw" => black_box(raw_list_blocking(raw, &start, copy_value).await.len()),
                "get-store" => {
                    usize::from(black_box(fx.store.get::<Post>(&target).await.unwrap()).is_some())
                }
                "get-raw" => {
                    let key = key.clone();
                    let value = on_blocking_pool(raw, move |db| raw_get(db, &key)).await;
                    usize::from(!black_box(value).is_empty())
                }
                "get-raw-decoded" => {
                    let key = key.clone();
                    let read = move |db: &redb::Database| decode_post(&key, &raw_get(db, &key));
                    let post = on_blocking_pool(raw, read).await;
                    usize::from(black_box(post).id == 500)
                }
                "put-store" => {
                    puts += 1;
                    black_box(fx.store.put(&post(2, puts)).await.unwrap());
                    1
                }
                "put-overwrite" => {
                    puts += 1;
                    let p = post(1, puts % 1000);
                    black_box(fx.store.put(&p).await.unwrap());
                    1
                }
                "put-raw" => {
                    puts += 1;
                    let raw = raw.clone();
                    let p = post(3, puts);
                    let put = move || raw_put(&raw, &p, b"counter-3", puts);
                    tokio::task::spawn_blocking(put).await.unwrap();
                    1
                }
                other => {
                    eprintln!("unknown operation {other}");
                    std::process::exit(2);
                }
            };
        }
        listed
    });
    // Every list returns its limit of items and every get finds its item.
    let per_iteration = if op.starts_with("get-") || op.starts_with("put-") || op == "first" {
        1
    } else {
        100
    };
    assert_eq!(listed as u64, per_iteration * n);
}
