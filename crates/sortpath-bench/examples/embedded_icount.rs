//! Instruction counts of the embedded comparison's operations (`benches/embedded.rs`), for
//! `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike wall time).
//!
//! Loads the 100,000 items of the large fixture into the one system measured, then runs
//! each operation `ITERATIONS` times inside a function of its own (`measured_get`,
//! `measured_list_asc`, `measured_list_desc`, `measured_batch_get`, `measured_latest`,
//! `measured_put_new`, `measured_update_indexed`), the only functions callgrind counts:
//!
//! ```text
//! cargo build --release -p sortpath-bench --example embedded_icount
//! TMPDIR=/dev/shm valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_*' \
//!     --callgrind-out-file=cg.sortpath_sync target/release/examples/embedded_icount sortpath_sync 1000
//! callgrind_annotate --inclusive=yes cg.sortpath_sync | grep measured_
//! ```
//!
//! and divide each function's inclusive `Ir` by `ITERATIONS` (`TMPDIR=/dev/shm` makes the
//! fsyncs cheap; callgrind counts user-space instructions only, so a commit's fsync is not in
//! the counts on any file system). Systems:
//! `sortpath_sync` (`blocking::Store`), `sortpath_async` (`Store` on a Tokio runtime,
//! awaited with `block_on`: reads run on the calling thread), `native_db`, `raw_redb`
//! (values decoded). Operations: `get` (one item by key, the probes of the benchmark),
//! `list_asc` and `list_desc` (100 items by key range), `batch_get` (10 items), `latest`
//! (the latest 10 of a board of 10,000 through the index), `put_new` (a new item in board
//! 0, one durable transaction) and `update_indexed` (read-modify-write of an item's
//! `updated_at`, the indexed field, one durable transaction). The writes run after the
//! reads; afterwards every item written is read back and the latest 10 of board 0 are
//! queried through the system's own API and compared with what the writes should have
//! left (the same for every system), so every system is known to have done the same writes.
//!
//! The async store commits on Tokio's blocking pool, whose thread callgrind does not count
//! inside `measured_*` (a toggle counts the thread that enters the function): its write
//! counts are the awaiting thread's share only. An operation's name as the third argument
//! runs only that operation (`writes`: the two writes), for a whole-program count
//! (`--collect-atstart=yes`, every thread) at `N` and `2N` iterations:
//! `(count(2N) - count(N)) / N` per operation.

#[path = "../benches/embedded_support/mod.rs"]
mod support;

use std::hint::black_box;

use redb::ReadableDatabase;
use sortpath::KeyPath;
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
    measured_latest,
    measured_put_new,
    measured_update_indexed
);

/// The operations, in the order `ops` makes them.
const OPS: [&str; 7] = [
    "get",
    "list_asc",
    "list_desc",
    "batch_get",
    "latest",
    "put_new",
    "update_indexed",
];

/// The ids of the new items `put_new` writes (in board 0): above every id of the fixture.
const NEW_IDS: u64 = 10_000_000;

/// The item `update_indexed` updates in its `i`-th call: in board 0 (10,000 items).
fn updated_id(i: u64) -> u64 {
    probe(i % 1024, PER_BIG_BOARD)
}

fn bump(t: Option<Ticket>) -> Option<Ticket> {
    t.map(|mut t| {
        t.updated_at += 1;
        t
    })
}

/// How each system reads back what the writes left: one item of board 0 by id (`None`
/// when absent), and the latest 10 of board 0.
struct ReadBack<'a> {
    get: Box<dyn Fn(u64) -> Option<Ticket> + 'a>,
    latest: Box<dyn Fn() -> Vec<Ticket> + 'a>,
}

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
            "usage: embedded_icount sortpath_sync|sortpath_async|native_db|raw_redb ITERATIONS \
             [OPERATION|writes]"
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
    let latest_q0 = latest_query(0);
    let mut next = NEW_IDS;
    let (ops, read): (Vec<Op<'_>>, ReadBack<'_>) = match system.as_str() {
        "sortpath_sync" => {
            let s: &'static _ = Box::leak(Box::new(load_sortpath(dir.path(), &items).0));
            let ops: Vec<Op<'_>> = vec![
                Box::new(move |i| drop(black_box(s.get::<Ticket>(&at(i).2)))),
                Box::new(move |_| drop(black_box(s.list::<Ticket>(asc)))),
                Box::new(move |_| drop(black_box(s.list::<Ticket>(desc)))),
                Box::new(move |i| drop(black_box(s.batch_get::<Ticket>(&batch_paths(i))))),
                Box::new(move |_| drop(black_box(s.query_index::<Ticket>("by_updated", latest_q)))),
                Box::new(move |_| {
                    next += 1;
                    black_box(s.put(&ticket(0, next)).unwrap());
                }),
                Box::new(move |i| {
                    let path = key_path(0, updated_id(i));
                    black_box(s.update(&path, bump).unwrap().unwrap());
                }),
            ];
            let read = ReadBack {
                get: Box::new(move |id| s.get::<Ticket>(&key_path(0, id)).unwrap().map(|v| v.item)),
                latest: Box::new(move || {
                    let page = s.query_index::<Ticket>("by_updated", &latest_q0).unwrap();
                    page.items.into_iter().map(|v| v.item).collect()
                }),
            };
            (ops, read)
        }
        "sortpath_async" => {
            let s: &'static _ = Box::leak(Box::new(load_sortpath(dir.path(), &items).0.to_async()));
            let rt = &rt;
            let ops: Vec<Op<'_>> = vec![
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
                Box::new(move |_| {
                    next += 1;
                    let t = ticket(0, next);
                    black_box(rt.block_on(s.put(&t)).unwrap());
                }),
                Box::new(move |i| {
                    let path = key_path(0, updated_id(i));
                    black_box(rt.block_on(s.update(&path, bump)).unwrap().unwrap());
                }),
            ];
            let read = ReadBack {
                get: Box::new(move |id| {
                    let got = rt.block_on(s.get::<Ticket>(&key_path(0, id)));
                    got.unwrap().map(|v| v.item)
                }),
                latest: Box::new(move || {
                    let q = s.query_index::<Ticket>("by_updated", &latest_q0);
                    let page = rt.block_on(q).unwrap();
                    page.items.into_iter().map(|v| v.item).collect()
                }),
            };
            (ops, read)
        }
        "native_db" => {
            let db: &'static _ = Box::leak(Box::new(load_native(dir.path(), &items).0));
            let ops: Vec<Op<'_>> = vec![
                Box::new(move |i| drop(black_box(ndb_get(db, at(i).1)))),
                Box::new(move |_| drop(black_box(ndb_list(db, false)))),
                Box::new(move |_| drop(black_box(ndb_list(db, true)))),
                Box::new(move |i| drop(black_box(ndb_batch_get(db, &batch_ids(i))))),
                Box::new(move |_| drop(black_box(ndb_latest(db, BIG_BOARD)))),
                Box::new(move |_| {
                    next += 1;
                    ndb_put(db, ticket(0, next));
                }),
                Box::new(move |i| ndb_update(db, updated_id(i))),
            ];
            let read = ReadBack {
                get: Box::new(move |id| {
                    let r = db.r_transaction().unwrap();
                    r.get().primary::<Ticket>(id).unwrap()
                }),
                latest: Box::new(move || ndb_latest(db, 0)),
            };
            (ops, read)
        }
        "raw_redb" => {
            let db: &'static _ = Box::leak(Box::new(load_raw(dir.path(), &items).0));
            let ops: Vec<Op<'_>> = vec![
                Box::new(move |i| {
                    let &(board, id, _) = at(i);
                    drop(black_box(raw_get(db, board, id)))
                }),
                Box::new(move |_| drop(black_box(raw_list(db, false)))),
                Box::new(move |_| drop(black_box(raw_list(db, true)))),
                Box::new(move |i| drop(black_box(raw_batch_get(db, &batch_keys(i))))),
                Box::new(move |_| drop(black_box(raw_latest(db, BIG_BOARD)))),
                Box::new(move |_| {
                    next += 1;
                    raw_put(db, &ticket(0, next));
                }),
                Box::new(move |i| raw_update(db, 0, updated_id(i))),
            ];
            let read = ReadBack {
                get: Box::new(move |id| {
                    let txn = db.begin_read().unwrap();
                    let items = txn.open_table(RAW_ITEMS).unwrap();
                    let got = items.get((0, id)).unwrap().map(|v| raw_decode(v.value()));
                    got
                }),
                latest: Box::new(move || raw_latest(db, 0)),
            };
            (ops, read)
        }
        other => panic!("unknown system {other}"),
    };
    let runs: [fn(u64, &mut Op<'_>); 7] = [
        measured_get,
        measured_list_asc,
        measured_list_desc,
        measured_batch_get,
        measured_latest,
        measured_put_new,
        measured_update_indexed,
    ];
    // Which operations run: all, `writes` (the two writes) or one by name.
    let only = args.next();
    let runs_op = |name: &str| match only.as_deref() {
        None => true,
        Some("writes") => name == "put_new" || name == "update_indexed",
        Some(op) => op == name,
    };
    let (mut puts, mut updates) = (0, 0);
    for ((mut op, run), name) in ops.into_iter().zip(runs).zip(OPS) {
        if !runs_op(name) {
            continue;
        }
        match name {
            "put_new" => puts = 1024 + n,
            "update_indexed" => updates = 1024 + n,
            _ => {}
        }
        // Warm: every probe read (or written) once, so redb has every page it reads
        // cached.
        warm_up(&mut op);
        run(n, &mut op);
        println!("{system} {name}: {n} iterations counted");
    }
    check_writes(&read, &items, puts, updates);
    println!("{system}: the writes read back as expected");
}

/// Checks that the writes left what they should after `puts` new items and `updates`
/// updates (warm-up rounds included): every new item there, every updated item with
/// `updated_at` moved once per update, the index's latest 10 of board 0 those of the items
/// as they should now be. The same answer for every system, computed here.
#[inline(never)]
fn check_writes(read: &ReadBack<'_>, items: &[Ticket], puts: u64, updates: u64) {
    let mut board: Vec<Ticket> = items.iter().filter(|t| t.board == 0).cloned().collect();
    for i in 0..updates {
        let t = &mut board[updated_id(i) as usize];
        assert_eq!(t.id, updated_id(i));
        t.updated_at += 1;
    }
    board.extend((1..=puts).map(|k| ticket(0, NEW_IDS + k)));
    for t in &board {
        if t.id >= NEW_IDS || t.updated_at != ticket(0, t.id).updated_at {
            assert_eq!((read.get)(t.id).as_ref(), Some(t), "item {}", t.id);
        }
    }
    assert_eq!((read.get)(NEW_IDS + puts + 1), None);
    board.sort_by_key(|t| std::cmp::Reverse((t.updated_at, t.id)));
    board.truncate(10);
    assert_eq!((read.latest)(), board);
}

/// A warm-up round, outside the counted functions.
#[inline(never)]
fn warm_up(op: &mut Op<'_>) {
    for i in 0..1024 {
        op(i);
    }
}
