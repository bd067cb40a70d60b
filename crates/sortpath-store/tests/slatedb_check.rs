//! `check_backend` on a SlateDB reader while a writer in another process moves items to
//! new index keys: the reader takes in the writer's log every few seconds, so a check whose
//! group scans straddle that refresh saw entries from before it and items from after. At
//! least 100 checks, for long enough to span several refreshes: none may report a problem
//! that is not there.

#![cfg(feature = "slatedb")]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sortpath::KeyPath;
use sortpath_store::backend::slatedb::SlateDbBackend;
use sortpath_store::backend::{Backend, Key};
use sortpath_store::check::{check_backend, UNDECIDED};
use sortpath_store::{PutMode, Store};

/// Where the writer child writes.
const CHILD_DIR: &str = "SORTPATH_CHECK_WRITER_DIR";
/// How many items the writer moves.
const ITEMS: u64 = 300;

fn path(text: &str) -> KeyPath {
    text.parse().unwrap()
}

/// Item `/t-{i}` with the `by_n` key `/all-0/n-{n}`.
async fn put(store: &Store<SlateDbBackend>, i: u64, n: u64) {
    let idx = vec![("by_n".to_owned(), path(&format!("/all-0/n-{n}")))];
    store
        .put_raw(&path(&format!("/t-{i}")), "t", &n, idx, PutMode::Upsert)
        .await
        .unwrap();
}

/// The writer process (run by `check_under_a_writer_in_another_process`): writes every
/// item once, says `READY`, then moves items until it is killed.
#[test]
#[ignore = "the writer child of check_under_a_writer_in_another_process"]
fn check_writer_child() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = Store::new(SlateDbBackend::open(&dir).await.unwrap());
        for i in 0..ITEMS {
            put(&store, i, i).await;
        }
        println!("READY");
        // Four tasks, each moving its own items, so their writes share log flushes.
        let tasks: Vec<_> = (0..4)
            .map(|t| {
                let store = store.clone();
                tokio::spawn(async move {
                    for n in (ITEMS..).step_by(4) {
                        put(&store, (n + t) % ITEMS, n + t).await;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    });
}

/// Kills the writer child when the test ends, however it ends.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Before the check read its findings again, the checks that spanned a refresh of the
/// reader reported entries that point at items "whose by_n key is not" theirs, and
/// entries "missing".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_under_a_writer_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Child(
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "check_writer_child", "--ignored", "--nocapture"])
            .env(CHILD_DIR, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = child.0.stdout.take().unwrap();
    let ready = tokio::task::spawn_blocking(move || {
        BufReader::new(stdout)
            .lines()
            .any(|l| l.is_ok_and(|l| l.contains("READY")))
    });
    let ready = tokio::time::timeout(Duration::from_secs(120), ready).await;
    assert!(matches!(ready, Ok(Ok(true))), "the writer never said READY");
    let reader = SlateDbBackend::open_read_only(dir.path().to_str().unwrap())
        .await
        .unwrap();
    let (group, sort) = path("/t-0").split_group().unwrap();
    let t0 = Key::new(group, sort);
    let first = reader.get(t0.clone()).await.unwrap();
    let (mut rounds, mut problems, mut undecided) = (0, Vec::new(), 0);
    let start = Instant::now();
    // SlateDB's reader takes in the log every 10 s: 35 s of checks span three refreshes.
    while rounds < 100 || start.elapsed() < Duration::from_secs(35) {
        match check_backend(&reader, |_, _, _| None).await.unwrap() {
            Ok(_) => {}
            Err(found) if found.lines().all(|l| l.starts_with(UNDECIDED)) => undecided += 1,
            Err(found) => problems.push(format!("check {rounds}:\n{found}")),
        }
        rounds += 1;
    }
    let last = reader.get(t0).await.unwrap();
    drop(child);
    assert_ne!(first, last, "the reader saw no write in {rounds} checks");
    assert!(
        problems.is_empty(),
        "{} of {rounds} checks reported problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(undecided, 0, "of {rounds} checks");
    println!("{rounds} checks in {:?}", start.elapsed());
}
