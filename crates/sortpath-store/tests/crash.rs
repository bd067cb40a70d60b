//! Crash consistency with real processes: a child process writes through the redb store
//! (tickets in two secondary indexes, updates that move them, conditional writes and
//! transactions over several groups) and prints a line after each acknowledged operation;
//! the parent kills it with SIGKILL at a random point, reopens the store and requires it to
//! hold exactly the state after the acknowledged operations, or after one more (the one
//! in flight, whole): every acknowledged write is there, no transaction is half applied,
//! and every index entry matches its item (checked byte for byte against the model and
//! with the generic consistency check). The next round's child goes on from the
//! recovered file.
//!
//! The child is this test binary itself, re-run with `SORTPATH_CRASH_CHILD_DIR` set to run
//! only the (otherwise ignored) `crash_child`.

#![cfg(all(feature = "conformance", feature = "redb", unix))]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::cases;
use sortpath_store::backend::redb::RedbBackend;
use sortpath_store::conformance::model::{diff, random_ops, Model, Op};
use sortpath_store::conformance::{check_consistency, dump_redb};
use sortpath_store::Store;

const CHILD_DIR: &str = "SORTPATH_CRASH_CHILD_DIR";
const CHILD_SEED: &str = "SORTPATH_CRASH_CHILD_SEED";
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
/// `child_ops(seed)` on the store in `SORTPATH_CRASH_CHILD_DIR`, checking each against the
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
        let store = Store::create(&dir).await.unwrap();
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
            let backend = RedbBackend::open(dir.path())
                .await
                .unwrap_or_else(|e| panic!("{ctx}: reopening after SIGKILL: {e}"));
            let all = dump_redb(&backend).await.unwrap();
            // The versions the child's store drew for new items, as stored.
            let acked = acked.settled(&all);
            let next = next.map(|n| n.settled(&all));
            if let Err(e) = check_consistency(&all) {
                panic!("{ctx}: inconsistent store after SIGKILL:\n{e}");
            }
            if diff(&all, &acked.records()).is_none() {
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
            }
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
