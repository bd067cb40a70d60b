//! The SlateDB backend: the conformance suite on an in-memory object store and on a local
//! directory, durability (what a write acknowledged is in the object store, read back by
//! another writer that never saw it in memory), fencing (a second writer makes the first
//! one's next write fail, and that write is never seen), readers next to a writer, and the
//! latency of a durable write with the default flush interval. The model checker and the
//! fault injection run on SlateDB in `tests/model.rs` and `tests/faults.rs`; SIGKILL of real
//! processes in `tests/slatedb_crash.rs`.

#![cfg(all(feature = "slatedb", feature = "conformance"))]

use std::sync::Arc;
use std::time::{Duration, Instant};

use slatedb::object_store::memory::InMemory;
use sortpath_store::backend::slatedb::{EngineError, OpenError, SlateDbBackend, SlateDbOptions};
use sortpath_store::backend::{Backend, BackendError, Condition, Key, Record, Scan, Write};

fn put(sort: &[u8], version: u64, condition: Condition) -> Write {
    Write::Put {
        key: Key::new(b"g".to_vec(), sort.to_vec()),
        record: Record {
            value: sort.repeat(3),
            version,
        },
        condition,
    }
}

fn key(sort: &[u8]) -> Key {
    Key::new(b"g".to_vec(), sort.to_vec())
}

fn at(dir: &tempfile::TempDir) -> String {
    dir.path().to_str().unwrap().to_owned()
}

fn fenced(result: Result<(), BackendError>, what: &str) -> String {
    match result {
        Err(BackendError::Storage(e)) => {
            let engine = e
                .downcast_ref::<EngineError>()
                .unwrap_or_else(|| panic!("{what}: not a SlateDB error: {e}"));
            assert!(engine.is_fenced(), "{what}: not fenced: {engine}");
            e.to_string()
        }
        other => panic!("{what}: expected a fenced error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn conformance_in_memory_object_store() {
    sortpath_store::conformance::run(|| async {
        SlateDbBackend::open_in(Arc::new(InMemory::new()), "db", SlateDbOptions::default())
            .await
            .unwrap()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn conformance_local_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    sortpath_store::conformance::run(|| {
        n += 1;
        let path = dir.path().join(n.to_string());
        async move { SlateDbBackend::open(path.to_str().unwrap()).await.unwrap() }
    })
    .await;
}

/// Every acknowledged write is in the object store: a second writer, opened on the same
/// directory while the first is still open (nothing closed or flushed on purpose), reads
/// them all, in the right versions, and none of a batch whose condition failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_are_in_the_object_store() {
    let dir = tempfile::tempdir().unwrap();
    let first = SlateDbBackend::open(&at(&dir)).await.unwrap();
    for i in 0..20u8 {
        first
            .write(vec![put(&[i], 1, Condition::NotExists)])
            .await
            .unwrap();
    }
    first
        .write(vec![
            put(&[3], 2, Condition::VersionEquals(1)),
            Write::Delete {
                key: key(&[4]),
                condition: Condition::Exists,
            },
        ])
        .await
        .unwrap();
    let refused = first
        .write(vec![
            put(&[5], 9, Condition::None),
            put(&[6], 9, Condition::NotExists),
        ])
        .await;
    assert!(matches!(
        refused,
        Err(BackendError::ConditionFailed {
            index: 1,
            current: Some(1)
        })
    ));
    let second = SlateDbBackend::open(&at(&dir)).await.unwrap();
    let all = second.scan(Scan::group(b"g".to_vec())).await.unwrap();
    let got: Vec<(u8, u64)> = all.iter().map(|e| (e.sort[0], e.record.version)).collect();
    let expected: Vec<(u8, u64)> = (0..20u8)
        .filter(|&i| i != 4)
        .map(|i| (i, if i == 3 { 2 } else { 1 }))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(all[0].record.value, [0, 0, 0]);
    second.close().await.unwrap();
}

/// A writer opened elsewhere fences the first: the first one's next write fails with a
/// fenced error (never an acknowledgement), and that write is never seen, by the new
/// writer or by any opened later. What the first wrote before is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_writer_fences_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let old = SlateDbBackend::open(&at(&dir)).await.unwrap();
    old.write(vec![put(b"before", 1, Condition::None)])
        .await
        .unwrap();
    let new = SlateDbBackend::open(&at(&dir)).await.unwrap();
    let message = fenced(
        old.write(vec![put(b"lost", 1, Condition::None)]).await,
        "the old writer's write",
    );
    assert!(
        message.contains("another writer opened the database"),
        "{message}"
    );
    assert!(message.contains(&at(&dir)), "{message}");
    // Fenced for good, conditional writes and reads included.
    fenced(
        old.write(vec![put(b"again", 1, Condition::NotExists)])
            .await,
        "a later write",
    );
    assert!(old.get(key(b"before")).await.is_err());
    // The new writer has what was acknowledged, and not the refused write.
    assert_eq!(new.get(key(b"before")).await.unwrap().unwrap().version, 1);
    assert_eq!(new.get(key(b"lost")).await.unwrap(), None);
    new.write(vec![put(b"after", 2, Condition::NotExists)])
        .await
        .unwrap();
    new.close().await.unwrap();
    drop(old);
    let later = SlateDbBackend::open(&at(&dir)).await.unwrap();
    let sorts: Vec<Vec<u8>> = later
        .scan(Scan::group(b"g".to_vec()))
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.sort)
        .collect();
    assert_eq!(sorts, [b"after".to_vec(), b"before".to_vec()]);
}

/// Many writers racing one key through conditions: each version is taken by exactly one
/// of them (the conditions hold across SlateDB's conflict retries).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_conditional_writes_take_each_version_once() {
    let db = SlateDbBackend::open_in_memory().await.unwrap();
    db.write(vec![put(b"c", 0, Condition::NotExists)])
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            let mut won = 0u64;
            for _ in 0..10 {
                loop {
                    let current = db.get(key(b"c")).await.unwrap().unwrap().version;
                    match db
                        .write(vec![put(
                            b"c",
                            current + 1,
                            Condition::VersionEquals(current),
                        )])
                        .await
                    {
                        Ok(()) => break,
                        Err(BackendError::ConditionFailed { .. }) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
                won += 1;
            }
            won
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    assert_eq!(total, 80);
    assert_eq!(db.get(key(b"c")).await.unwrap().unwrap().version, 80);
}

/// A reader next to a writer: it opens without fencing the writer (whose writes go on),
/// sees what was written before it opened, follows later writes, and refuses writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_follows_a_writer_without_fencing_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = SlateDbBackend::open_read_only(&at(&dir)).await.unwrap_err();
    assert!(matches!(missing, OpenError::Missing(_)), "{missing}");
    let writer = SlateDbBackend::open(&at(&dir)).await.unwrap();
    writer
        .write(vec![put(b"a", 1, Condition::None)])
        .await
        .unwrap();
    let reader = SlateDbBackend::open_read_only(&at(&dir)).await.unwrap();
    assert!(reader.is_read_only());
    assert_eq!(reader.get(key(b"a")).await.unwrap().unwrap().version, 1);
    writer
        .write(vec![put(b"b", 2, Condition::NotExists)])
        .await
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(r) = reader.get(key(b"b")).await.unwrap() {
            assert_eq!(r.version, 2);
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the reader never saw the writer's write"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let refused = reader.write(vec![put(b"c", 1, Condition::None)]).await;
    match refused {
        Err(BackendError::Storage(e)) => assert!(e.to_string().contains("read-only"), "{e}"),
        other => panic!("a reader took a write: {other:?}"),
    }
    let listed = reader
        .scan(Scan::group(b"g".to_vec()).reverse())
        .await
        .unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].sort, b"b");
    writer
        .write(vec![put(b"d", 3, Condition::None)])
        .await
        .unwrap();
    reader.close().await.unwrap();
    writer.close().await.unwrap();
}

/// With the default flush interval a durable write is quick (SlateDB's own default of
/// 100 ms would make every write wait up to that long).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_durable_write_does_not_wait_100_ms() {
    let dir = tempfile::tempdir().unwrap();
    let db = SlateDbBackend::open(&at(&dir)).await.unwrap();
    let mut took = Vec::new();
    for i in 0..31u8 {
        let start = Instant::now();
        db.write(vec![put(&[i], 1, Condition::NotExists)])
            .await
            .unwrap();
        took.push(start.elapsed());
    }
    took.sort();
    let median = took[took.len() / 2];
    println!(
        "durable write: median {median:?}, max {:?}",
        took.last().unwrap()
    );
    assert!(median < Duration::from_millis(40), "median {median:?}");
    db.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn locations_are_checked() {
    let e = SlateDbBackend::open("").await.unwrap_err();
    assert!(
        e.to_string()
            .contains("expected a directory or an object store URL"),
        "{e}"
    );
    let e = SlateDbBackend::open("nosuch://bucket/x").await.unwrap_err();
    assert!(matches!(e, OpenError::Location { .. }), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    let e = SlateDbBackend::open(file.to_str().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(e, OpenError::Io { .. }), "{e}");
    let e = SlateDbBackend::open_existing(&at(&dir), SlateDbOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(e, OpenError::Missing(_)), "{e}");
    // file:// URLs are directories.
    let url = format!("file://{}", dir.path().join("db").display());
    let db = SlateDbBackend::open(&url).await.unwrap();
    db.write(vec![put(b"x", 1, Condition::None)]).await.unwrap();
    db.close().await.unwrap();
    let again = SlateDbBackend::open_existing(
        dir.path().join("db").to_str().unwrap(),
        SlateDbOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(again.get(key(b"x")).await.unwrap().unwrap().version, 1);
}

/// Write skew is refused: two batches that each check that the other's key still exists and
/// delete their own, run at the same moment, never both succeed (each condition is read in
/// its transaction and marked, so a commit to it in between is a conflict, and the retry
/// sees the delete). Snapshot isolation alone would let both through.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn checks_of_keys_a_batch_does_not_write_hold_at_commit() {
    let db = SlateDbBackend::open_in_memory().await.unwrap();
    let (mut both, mut one) = (0, 0);
    for round in 0..200u32 {
        let x = format!("x{round}").into_bytes();
        let y = format!("y{round}").into_bytes();
        db.write(vec![
            put(&x, 1, Condition::NotExists),
            put(&y, 1, Condition::NotExists),
        ])
        .await
        .unwrap();
        let skew = |check: Vec<u8>, delete: Vec<u8>| {
            let db = db.clone();
            tokio::spawn(async move {
                db.write(vec![
                    Write::Check {
                        key: key(&check),
                        condition: Condition::Exists,
                    },
                    Write::Delete {
                        key: key(&delete),
                        condition: Condition::None,
                    },
                ])
                .await
            })
        };
        let (a, b) = tokio::join!(skew(y.clone(), x.clone()), skew(x.clone(), y.clone()));
        let done = [a.unwrap(), b.unwrap()]
            .into_iter()
            .filter(|r| match r {
                Ok(()) => true,
                Err(BackendError::ConditionFailed { index: 0, .. }) => false,
                Err(e) => panic!("round {round}: {e}"),
            })
            .count();
        let left = db
            .batch_get(vec![key(&x), key(&y)])
            .await
            .unwrap()
            .into_iter()
            .flatten()
            .count();
        assert_eq!(left, 2 - done, "round {round}");
        match done {
            1 => one += 1,
            2 => both += 1,
            _ => panic!("round {round}: neither batch went through"),
        }
    }
    assert_eq!(both, 0, "write skew in {both} of 200 rounds ({one} right)");
}

/// Root items placed last and before a namespace on SlateDB: stored at their places, read
/// back by a new writer of the same directory (which reads the places from the store).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placed_root_items_on_object_storage() {
    use sortpath_store::{PutMode, Query, RootPlace, Store, StoreConfig};
    let p = |t: &str| t.parse::<sortpath::KeyPath>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let first = SlateDbBackend::open(&at(&dir)).await.unwrap();
    let store = Store::new(first.clone());
    let config = StoreConfig::default()
        .with_root("customer", RootPlace::Last)
        .with_root("org", RootPlace::Before("user".into()));
    assert!(store.create_config(&config).await.unwrap());
    for text in [
        "/customer-7",
        "/customer-7/order-1",
        "/customer-7/order-2",
        "/org-1",
        "/org-1/team-2",
        "/org-1/user-ann",
    ] {
        store
            .put_raw(&p(text), "x", &text, vec![], PutMode::Upsert)
            .await
            .unwrap();
    }
    first.close().await.unwrap();
    let second = SlateDbBackend::open(&at(&dir)).await.unwrap();
    let store = Store::new(second.clone());
    let keys = |page: sortpath_store::Page<sortpath_store::RawItem>| -> Vec<String> {
        page.items.iter().map(|i| i.key().to_string()).collect()
    };
    let newest = Query::prefix(&p("/customer-7")).unwrap().reverse().limit(2);
    assert_eq!(
        keys(store.list_raw(&newest).await.unwrap()),
        ["/customer-7", "/customer-7/order-2"]
    );
    let org = Query::prefix(&p("/org-1")).unwrap();
    assert_eq!(
        keys(store.list_raw(&org.clone().from_root()).await.unwrap()),
        ["/org-1", "/org-1/user-ann"]
    );
    assert_eq!(
        keys(store.list_raw(&org.to_root().reverse()).await.unwrap()),
        ["/org-1", "/org-1/team-2"]
    );
    let got = store.get_raw(&p("/org-1")).await.unwrap().unwrap();
    assert_eq!(got.decode::<String>().unwrap(), "/org-1");
    let groups = second.groups(0).await.unwrap();
    let all = sortpath_store::check::dump_groups(&second, groups)
        .await
        .unwrap();
    sortpath_store::check::check_consistency(&all).unwrap();
    assert!(all.keys().any(|k| k.sort == [0xFF]));
    second.close().await.unwrap();
}

/// Every file under `dir` with its length: what an open that writes nothing leaves alone.
fn files(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, u64> {
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.insert(path.clone(), std::fs::metadata(&path).unwrap().len());
            }
        }
    }
    out
}

/// A writer that wrote `n` items and ended without closing (as if killed): its log files
/// stay above the manifest's replay point.
fn killed_writer(at: &str, n: u8) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let db = SlateDbBackend::open(at).await.unwrap();
        for i in 0..n {
            db.write(vec![put(&[i], 1, Condition::None)]).await.unwrap();
        }
        // Never closed: no flush to L0, the replay point stays where it was.
        std::mem::forget(db);
    });
    rt.shutdown_timeout(Duration::from_secs(5));
}

/// The non-empty log files above the replay point, by ID.
async fn live_wals(at: &str) -> Vec<(u64, std::path::PathBuf)> {
    let store =
        Arc::new(slatedb::object_store::local::LocalFileSystem::new_with_prefix(at).unwrap());
    let admin =
        slatedb::admin::Admin::builder(slatedb::object_store::path::Path::default(), store).build();
    let replay_after = admin
        .read_manifest(None)
        .await
        .unwrap()
        .unwrap()
        .replay_after_wal_id();
    let mut out: Vec<(u64, std::path::PathBuf)> =
        std::fs::read_dir(std::path::Path::new(at).join("wal"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| std::fs::metadata(p).unwrap().len() > 0)
            .map(|p| (p.file_stem().unwrap().to_str().unwrap().parse().unwrap(), p))
            .filter(|(id, _)| *id > replay_after)
            .collect();
    out.sort();
    out
}

/// Issue #46 item 8: a SlateDB log file above the replay point emptied (cut to 0 bytes)
/// looks like a writer's fence, and SlateDB replayed it as one: the acknowledged writes it
/// held were dropped without a word, by readers and by the next writer (which then made
/// the loss permanent). Every open now refuses the store, naming the file, and writes
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_emptied_log_file_is_refused_by_every_open() {
    let dir = tempfile::tempdir().unwrap();
    let at = at(&dir);
    tokio::task::block_in_place(|| {
        killed_writer(&at, 3);
        killed_writer(&at, 3);
    });
    let live = live_wals(&at).await;
    assert!(
        live.len() >= 2,
        "too few log files above the replay point: {live:?}"
    );
    assert!(
        dir.path()
            .join("sortpath/sessions")
            .read_dir()
            .unwrap()
            .count()
            >= 2
    );
    // The last writer's last log file (its last acknowledged write) emptied.
    let (_, emptied) = live.last().unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(emptied)
        .unwrap()
        .set_len(0)
        .unwrap();
    let before = files(dir.path());
    let named = emptied.to_str().unwrap();
    let refused = |what: &str, got: Result<SlateDbBackend, OpenError>| match got {
        Err(e @ OpenError::LostWrites { .. }) => {
            let text = e.to_string();
            assert!(text.contains(named), "{what}: {text} names not {named}");
            assert!(
                text.contains("restore the store from a backup or an export"),
                "{text}"
            );
        }
        Err(e) => panic!("{what}: another error: {e}"),
        Ok(_) => panic!("{what}: opened a store whose log file {named} was emptied"),
    };
    refused("a reader", SlateDbBackend::open_read_only(&at).await);
    refused("a writer", SlateDbBackend::open(&at).await);
    refused(
        "a writer of an existing store",
        SlateDbBackend::open_existing(&at, SlateDbOptions::default()).await,
    );
    assert_eq!(files(dir.path()), before, "a refused open wrote");
}

/// The same writers, nothing emptied: every open opens, every item is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_writers_leave_a_store_every_open_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let at = at(&dir);
    tokio::task::block_in_place(|| {
        for _ in 0..4 {
            killed_writer(&at, 3);
        }
    });
    assert!(!live_wals(&at).await.is_empty());
    let reader = SlateDbBackend::open_read_only(&at).await.unwrap();
    for i in 0..3u8 {
        assert!(reader.get(key(&[i])).await.unwrap().is_some());
    }
    let db = SlateDbBackend::open(&at).await.unwrap();
    db.close().await.unwrap();
    SlateDbBackend::open_read_only(&at).await.unwrap();
}

/// The session records stay a handful however many writers open: each writer, once its
/// record is written, removes those below the replay point but the greatest (the check's
/// lower bound). Without it a store kept one record per writer open, listed at every open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_records_stay_few_across_many_writer_opens() {
    let dir = tempfile::tempdir().unwrap();
    let at = at(&dir);
    for i in 0..12u8 {
        let db = SlateDbBackend::open(&at).await.unwrap();
        db.write(vec![put(&[i], 1, Condition::None)]).await.unwrap();
        db.close().await.unwrap();
    }
    let records = std::fs::read_dir(dir.path().join("sortpath/sessions"))
        .unwrap()
        .count();
    assert!(
        (1..=3).contains(&records),
        "{records} session records after 12 writer opens"
    );
    // The store still opens, and holds what each writer wrote.
    let reader = SlateDbBackend::open_read_only(&at).await.unwrap();
    for i in 0..12u8 {
        assert!(reader.get(key(&[i])).await.unwrap().is_some(), "key {i}");
    }
}
