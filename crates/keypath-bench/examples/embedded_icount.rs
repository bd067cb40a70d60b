//! Instruction counts of the embedded comparison's reads (`benches/embedded.rs`), for
//! `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike wall time).
//!
//! Loads the 100,000 items of the large fixture into the one system measured, then runs
//! each operation `ITERATIONS` times inside a function of its own (`measured_get`,
//! `measured_list_asc`, `measured_list_desc`, `measured_batch_get`, `measured_latest`),
//! the only functions callgrind counts:
//!
//! ```text
//! cargo build --release -p keypath-bench --example embedded_icount
//! TMPDIR=/dev/shm valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_*' \
//!     --callgrind-out-file=cg.keypath_sync target/release/examples/embedded_icount keypath_sync 1000
//! callgrind_annotate --inclusive=yes cg.keypath_sync | grep measured_
//! ```
//!
//! and divide each function's inclusive `Ir` by `ITERATIONS` (`TMPDIR=/dev/shm` only makes
//! the load's fsyncs cheap; it does not change what a read executes). Systems:
//! `keypath_sync` (`blocking::Store`), `keypath_async` (`Store` on a Tokio runtime,
//! awaited with `block_on`: reads run on the calling thread), `native_db`, `raw_redb`
//! (values decoded). Operations: `get` (one item by key, the probes of the benchmark),
//! `list_asc` and `list_desc` (100 items by key range), `batch_get` (10 items), `latest`
//! (the latest 10 of a board of 10,000 through the index).

#[path = "../benches/embedded_support/mod.rs"]
mod support;

use std::hint::black_box;

use keypath::KeyPath;
use support::*;

/// What the measured loop runs, once per iteration `i`.
type Op<'a> = Box<dyn FnMut(u64) + 'a>;

/// One counted function per operation, so one run counts them all: callgrind's inclusive
/// count of `measured_get` is the gets' instructions, and so on.
macro_rules! measured {
    ($($name:ident),*) => {$(
        #[inline(never)]
        fn $name(iterations: u64, op: &mut Op<'_>) {
            // Keeps the functions apart: identical ones would be folded into one.
            black_box(stringify!($name));
            for i in 0..iterations {
                op(i);
            }
        }
    )*};
}
measured!(
    measured_get,
    measured_list_asc,
    measured_list_desc,
    measured_batch_get,
    measured_latest
);

/// The operations, in the order `ops` makes them.
const OPS: [&str; 5] = ["get", "list_asc", "list_desc", "batch_get", "latest"];

fn path_of(i: u64) -> (u64, u64, KeyPath) {
    let id = probe(i % 1024, ITEMS);
    let board = board_of(id);
    (board, id, key_path(board, id))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(system), Some(n)) = (args.next(), args.next().and_then(|n| n.parse::<u64>().ok()))
    else {
        eprintln!(
            "usage: embedded_icount keypath_sync|keypath_async|native_db|raw_redb ITERATIONS"
        );
        std::process::exit(2);
    };
    let dir = tempfile::tempdir().unwrap();
    let items = large_items();
    let paths: Vec<(u64, u64, KeyPath)> = (0..1024).map(path_of).collect();
    let batches: Vec<&[(u64, u64, KeyPath)]> = paths.chunks(10).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let at = |i: u64| &paths[(i % 1024) as usize];
    let batch = |i: u64| batches[(i as usize) % batches.len()];
    let batch_paths = |i: u64| batch(i).iter().map(|p| p.2.clone()).collect::<Vec<_>>();
    let batch_ids = |i: u64| batch(i).iter().map(|p| p.1).collect::<Vec<_>>();
    let batch_keys = |i: u64| batch(i).iter().map(|p| (p.0, p.1)).collect::<Vec<_>>();
    let list_q = [list_query(false), list_query(true)];
    let latest_q = latest_query(BIG_BOARD);
    let (asc, desc) = (&list_q[0], &list_q[1]);
    let latest_q = &latest_q;
    let ops: Vec<Op<'_>> = match system.as_str() {
        "keypath_sync" => {
            let s: &'static _ = Box::leak(Box::new(load_keypath(dir.path(), &items).0));
            vec![
                Box::new(move |i| drop(black_box(s.get::<Ticket>(&at(i).2)))),
                Box::new(move |_| drop(black_box(s.list::<Ticket>(asc)))),
                Box::new(move |_| drop(black_box(s.list::<Ticket>(desc)))),
                Box::new(move |i| drop(black_box(s.batch_get::<Ticket>(&batch_paths(i))))),
                Box::new(move |_| drop(black_box(s.query_index::<Ticket>("by_updated", latest_q)))),
            ]
        }
        "keypath_async" => {
            let s: &'static _ = Box::leak(Box::new(load_keypath(dir.path(), &items).0.to_async()));
            let rt = &rt;
            vec![
                Box::new(move |i| drop(black_box(rt.block_on(s.get::<Ticket>(&at(i).2))))),
                Box::new(move |_| drop(black_box(rt.block_on(s.list::<Ticket>(asc))))),
                Box::new(move |_| drop(black_box(rt.block_on(s.list::<Ticket>(desc))))),
                Box::new(move |i| {
                    let paths = batch_paths(i);
                    drop(black_box(rt.block_on(s.batch_get::<Ticket>(&paths))))
                }),
                Box::new(move |_| {
                    let q = s.query_index::<Ticket>("by_updated", latest_q);
                    drop(black_box(rt.block_on(q)))
                }),
            ]
        }
        "native_db" => {
            let db: &'static _ = Box::leak(Box::new(load_native(dir.path(), &items).0));
            vec![
                Box::new(move |i| drop(black_box(ndb_get(db, at(i).1)))),
                Box::new(move |_| drop(black_box(ndb_list(db, false)))),
                Box::new(move |_| drop(black_box(ndb_list(db, true)))),
                Box::new(move |i| drop(black_box(ndb_batch_get(db, &batch_ids(i))))),
                Box::new(move |_| drop(black_box(ndb_latest(db, BIG_BOARD)))),
            ]
        }
        "raw_redb" => {
            let db: &'static _ = Box::leak(Box::new(load_raw(dir.path(), &items).0));
            vec![
                Box::new(move |i| {
                    let &(board, id, _) = at(i);
                    drop(black_box(raw_get(db, board, id)))
                }),
                Box::new(move |_| drop(black_box(raw_list(db, false)))),
                Box::new(move |_| drop(black_box(raw_list(db, true)))),
                Box::new(move |i| drop(black_box(raw_batch_get(db, &batch_keys(i))))),
                Box::new(move |_| drop(black_box(raw_latest(db, BIG_BOARD)))),
            ]
        }
        other => panic!("unknown system {other}"),
    };
    let runs: [fn(u64, &mut Op<'_>); 5] = [
        measured_get,
        measured_list_asc,
        measured_list_desc,
        measured_batch_get,
        measured_latest,
    ];
    for ((mut op, run), name) in ops.into_iter().zip(runs).zip(OPS) {
        // Warm: every probe read once, so redb has every page it reads cached.
        warm_up(&mut op);
        run(n, &mut op);
        println!("{system} {name}: {n} iterations counted");
    }
}

/// A warm-up round, outside the counted functions.
#[inline(never)]
fn warm_up(op: &mut Op<'_>) {
    for i in 0..1024 {
        op(i);
    }
}
