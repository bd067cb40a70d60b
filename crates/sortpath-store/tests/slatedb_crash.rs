//! Crash consistency with real processes, on SlateDB in a local directory: a child process
//! writes through a store on the SlateDB backend
//! (tickets in two secondary indexes, updates that move them, conditional writes and
//! transactions over several groups) and prints a line after each acknowledged operation;
//! the parent kills it with SIGKILL at a random point, reopens the store and requires it to
//! hold exactly the state after the acknowledged operations, or after one more (the one
//! in flight, whole): every acknowledged write is there, no transaction is half applied,
//! and every index entry matches its item (checked byte for byte against the model and
//! with the generic consistency check). The next round's child goes on from the
//! recovered database (opening it fences the killed writer).
//!
//! And fencing across processes: a child process opening the database a parent writes to
//! makes the parent's next write fail, and that write is never seen.
//!
//! The child is this test binary itself, re-run with `SORTPATH_SLATEDB_CRASH_CHILD_DIR` set to run
//! only the (otherwise ignored) `crash_child`.

#![cfg(all(feature = "conformance", feature = "slatedb", unix))]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::cases;
use sortpath_store::backend::slatedb::{EngineError, SlateDbBackend};
use sortpath_store::backend::{Backend, BackendError, Condition, Key, Record, Write as BatchWrite};
use sortpath_store::check::dump_groups;
use sortpath_store::conformance::check_consistency;
use sortpath_store::conformance::model::{diff, random_ops, Model, Op};
use sortpath_store::Store;

const CHILD_DIR: &str = "SORTPATH_SLATEDB_CRASH_CHILD_DIR";
const CHILD_SEED: &str = "SORTPATH_SLATEDB_CRASH_CHILD_SEED";
/// Operations a child runs if not killed.
const CHILD_OPS: usize = 120;

/// The write operations of a child run (reads would only slow it down).
fn child_ops(seed: u64) -> Vec<Op> {
    random_ops(seed, CHILD_OPS * 3)
        .into_iter()
        .filter(Op::writes)
        .take(CHILD_OPS)
        .collect()
}

/// The child, not a test of its own (ignored; the parent runs it with `--ignored`): it runs
/// `child_ops(seed)` on the store in `SORTPATH_SLATEDB_CRASH_CHILD_DIR`, checking each against the
/// model read back from the file, and prints `ACK <n>` (flushed) after operation `n`
/// returned.
#[test]
#[ignore = "the child process of sigkill_during_writes_keeps_acknowledged_and_atomic"]
fn crash_child() {
    let dir = std::env::var(CHILD_DIR).expect("run by the crash test, with its environment");
    let seed: u64 = std::env::var(CHILD_SEED).unwrap().parse().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = Store::new(SlateDbBackend::open(&dir).await.unwrap());
        let mut model = Model::read_from(&store, 0).await.unwrap();
        let mut out = std::io::stdout().lock();
        for (i, op) in child_ops(seed).iter().enumerate() {
            model.run_op(&store, op, i).await.unwrap();
            writeln!(out, "ACK {i}").unwrap();
            out.flush().unwrap();
        }
        writeln!(out, "DONE").unwrap();
    });
}

/// SplitMix64, for the parent's kill points.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

#[test]
fn sigkill_during_writes_keeps_acknowledged_and_atomic() {
    let rounds = std::env::var("SORTPATH_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| u64::from(cases(40)));
    let seed = std::env::var("SORTPATH_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xC4A5_0001u64);
    println!("crash seed {seed} (set SORTPATH_CRASH_SEED to repeat), {rounds} rounds");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut model = Model::new(0);
    let (mut killed, mut in_flight_applied, mut acked_total) = (0, 0, 0);
    for round in 0..rounds {
        let ctx = format!("seed {seed}, round {round}");
        let child_seed = seed.wrapping_mul(1000).wrapping_add(round);
        let kill_after = rng.below(20) as usize;
        let extra_delay = Duration::from_micros(rng.below(3000));
        let stderr = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "crash_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_SEED, child_seed.to_string())
            .stdout(Stdio::piped())
            .stderr(stderr.reopen().unwrap())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut acks = 0;
        let mut done = false;
        // Wait for `kill_after` acknowledgements, then kill after a random pause.
        while acks < kill_after {
            match lines.next() {
                // libtest's "test crash_child ... " may start the first line.
                Some(Ok(l)) if l.contains("ACK ") => acks += 1,
                Some(Ok(l)) if l.contains("DONE") => {
                    done = true;
                    break;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => panic!("{ctx}: reading the child: {e}"),
                None => break,
            }
        }
        std::thread::sleep(extra_delay);
        child.kill().unwrap();
        let status = child.wait().unwrap();
        for l in lines {
            let l = l.unwrap();
            if l.contains("ACK ") {
                acks += 1;
            } else if l.contains("DONE") {
                done = true;
            }
        }
        {
            use std::os::unix::process::ExitStatusExt;
            let err = std::fs::read_to_string(stderr.path()).unwrap();
            assert!(
                status.signal() == Some(9) || (done && status.success()),
                "{ctx}: the child failed ({status}):\n{err}"
            );
            killed += usize::from(status.signal() == Some(9));
        }
        let ops = child_ops(child_seed);
        let acked = model_after(&model, &ops[..acks]);
        let next = ops.get(acks).map(|op| acked.after(op));
        acked_total += acks;
        model = rt.block_on(async {
            let backend = SlateDbBackend::open(dir.path().to_str().unwrap())
                .await
                .unwrap_or_else(|e| panic!("{ctx}: reopening after SIGKILL: {e}"));
            let groups = backend.groups(0).await.unwrap();
            let all = dump_groups(&backend, groups).await.unwrap();
            // The versions the child's store drew for new items, as stored.
            let acked = acked.settled(&all);
            let next = next.map(|n| n.settled(&all));
            if let Err(e) = check_consistency(&all) {
                panic!("{ctx}: inconsistent store after SIGKILL:\n{e}");
            }
            let chosen = if diff(&all, &acked.records()).is_none() {
                acked
            } else if let Some(next) = next.clone().filter(|n| diff(&all, &n.records()).is_none()) {
                in_flight_applied += 1;
                next
            } else {
                panic!(
                    "{ctx}: after {acks} acknowledged operations the store is neither after them nor after the next ({:?}):\n{}against the next:\n{}",
                    ops.get(acks),
                    diff(&all, &acked.records()).unwrap_or_default(),
                    next.map(|n| diff(&all, &n.records()).unwrap_or_default()).unwrap_or_default()
                );
            };
            backend.close().await.unwrap();
            chosen
        });
    }
    println!(
        "{rounds} rounds: {killed} killed mid-run, {acked_total} acknowledged operations, the operation in flight applied {in_flight_applied} times; {} tickets at the end",
        model.len()
    );
    assert!(killed > 0, "no child was killed");
    assert!(!model.is_empty());
}

fn model_after(start: &Model, ops: &[Op]) -> Model {
    ops.iter().fold(start.clone(), |m, op| m.after(op))
}

const FENCE_DIR: &str = "SORTPATH_SLATEDB_FENCE_CHILD_DIR";

/// The child of `a_writer_in_another_process_fences_this_one`: opens the database in
/// `SORTPATH_SLATEDB_FENCE_CHILD_DIR` for writing, writes one record and closes it.
#[test]
#[ignore = "the child process of a_writer_in_another_process_fences_this_one"]
fn fence_child() {
    let dir = std::env::var(FENCE_DIR).expect("run by the fencing test, with its environment");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let db = SlateDbBackend::open(&dir).await.unwrap();
        db.write(vec![record(b"child", 2)]).await.unwrap();
        db.close().await.unwrap();
    });
}

fn record(sort: &[u8], version: u64) -> BatchWrite {
    BatchWrite::Put {
        key: Key::new(b"fence".to_vec(), sort.to_vec()),
        record: Record {
            value: vec![7; 3],
            version,
        },
        condition: Condition::None,
    }
}

#[test]
fn a_writer_in_another_process_fences_this_one() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().to_str().unwrap().to_owned();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let ours = rt.block_on(async {
        let db = SlateDbBackend::open(&at).await.unwrap();
        db.write(vec![record(b"before", 1)]).await.unwrap();
        db
    });
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "fence_child", "--ignored", "--test-threads=1"])
        .env(FENCE_DIR, &at)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the child failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    rt.block_on(async {
        match ours.write(vec![record(b"lost", 1)]).await {
            Err(BackendError::Storage(e)) => {
                let engine = e.downcast_ref::<EngineError>().expect("a SlateDB error");
                assert!(engine.is_fenced(), "{engine}");
            }
            other => panic!("the fenced writer's write gave {other:?}"),
        }
        drop(ours);
        let db = SlateDbBackend::open(&at).await.unwrap();
        let got = dump_groups(&db, [b"fence".to_vec()]).await.unwrap();
        let sorts: Vec<&[u8]> = got.keys().map(|k| k.sort.as_slice()).collect();
        assert_eq!(sorts, [b"before".as_slice(), b"child"]);
        db.close().await.unwrap();
    });
}
