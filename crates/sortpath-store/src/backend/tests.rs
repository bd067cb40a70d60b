use super::*;
use proptest::prelude::*;

fn bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
    let bytes = proptest::collection::vec(
        prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()],
        0..3,
    );
    prop_oneof![
        Just(Bound::Unbounded),
        bytes.clone().prop_map(Bound::Included),
        bytes.prop_map(Bound::Excluded),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// `is_empty_range` is exact: a range is empty iff no short key lies in it (keys of up to
    /// 3 bytes suffice, since bounds have at most 2), and `contains` agrees.
    #[test]
    fn empty_range_is_exact(start in bound(), end in bound()) {
        let scan = Scan::group(vec![]).start(start).end(end);
        let mut any_inside = false;
        let alphabet = [0u8, 1, 0x7F, 0xFF];
        let mut keys = vec![vec![]];
        for len in 1..=3 {
            let mut k = vec![0u8; len];
            for n in 0..alphabet.len().pow(len as u32) {
                let mut m = n;
                for b in k.iter_mut() { *b = alphabet[m % 4]; m /= 4; }
                keys.push(k.clone());
            }
        }
        // Bounds use arbitrary bytes, so also probe around them.
        for b in [&scan.start, &scan.end] {
            if let Bound::Included(x) | Bound::Excluded(x) = b {
                keys.push(x.clone());
                let mut y = x.clone(); y.push(0); keys.push(y);
                let mut y = x.clone(); y.push(0); y.push(0); keys.push(y);
            }
        }
        for k in &keys { any_inside |= scan.contains(k); }
        prop_assert_eq!(scan.is_empty_range(), !any_inside);
    }
}

#[test]
fn condition_table() {
    use Condition::*;
    let cases = [
        (None, Option::None, true),
        (None, Some(3), true),
        (Exists, Option::None, false),
        (Exists, Some(3), true),
        (NotExists, Option::None, true),
        (NotExists, Some(3), false),
        (VersionEquals(3), Some(3), true),
        (VersionEquals(3), Some(4), false),
        (VersionEquals(3), Option::None, false),
    ];
    for (c, current, expected) in cases {
        assert_eq!(c.holds(current), expected, "{c:?} on {current:?}");
    }
}

#[test]
fn errors_say_what_and_where() {
    let e = BackendError::ConditionFailed {
        index: 4,
        current: Some(9),
    };
    assert_eq!(
        e.to_string(),
        "condition of write 4 of the batch did not hold (record is at version 9); nothing was written"
    );
    let e = BackendError::DuplicateKey {
        first: 0,
        second: 3,
    };
    assert!(e.to_string().contains("writes 0 and 3"));
    assert_eq!(
        format!("{:?}", Key::new(vec![0, 0xff], vec![0x10])),
        "Key(00ff / 10)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_backend_conforms() {
    crate::conformance::run(|| async { memory::MemoryBackend::new() }).await;
}

#[cfg(feature = "redb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redb_backend_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    crate::conformance::run(|| {
        n += 1;
        let path = dir.path().join(n.to_string());
        async move { redb::RedbBackend::create(path).await.unwrap() }
    })
    .await;
}

/// The embedded backend conforms wherever its work runs: all on the blocking pool, and all
/// on the calling thread (the default, reads inline, is `redb_backend_conforms`).
#[cfg(feature = "redb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redb_backend_conforms_on_every_thread_setting() {
    for threads in [redb::Threads::Pool, redb::Threads::Caller] {
        let dir = tempfile::tempdir().unwrap();
        let mut n = 0;
        crate::conformance::run(|| {
            n += 1;
            let path = dir.path().join(n.to_string());
            async move {
                let db = redb::RedbBackend::create(path).await.unwrap();
                db.with_threads(threads)
            }
        })
        .await;
    }
}

/// A panic in `read_then_write`'s plan (the caller's code, run inside the write transaction)
/// is resumed in the calling task, the transaction ends with it (the next writes neither
/// wait nor see anything of it), and the file stays whole.
#[cfg(feature = "redb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redb_plan_panic_is_the_callers_and_writes_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = redb::RedbBackend::create(dir.path()).await.unwrap();
    let key = |s: &[u8]| Key::new(b"g".to_vec(), s.to_vec());
    let put = move |s: &[u8], version: u64| Write::Put {
        key: key(s),
        record: Record {
            value: vec![7],
            version,
        },
        condition: Condition::None,
    };
    let versions = |got: Vec<Option<Record>>| -> Vec<Option<u64>> {
        got.iter().map(|r| r.as_ref().map(|r| r.version)).collect()
    };
    db.write(vec![put(b"a", 1)]).await.unwrap();
    for round in 0..3u64 {
        let planning = {
            let db = db.clone();
            tokio::spawn(async move {
                let plan =
                    |_| -> Result<(Vec<Write>, ()), BackendError> { panic!("the plan panics") };
                db.read_then_write(vec![key(b"a")], plan).await
            })
        };
        let panic = planning.await.unwrap_err().into_panic();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"the plan panics"));
        let write = db.write(vec![put(b"b", 2 + round)]);
        tokio::time::timeout(std::time::Duration::from_secs(30), write)
            .await
            .expect("the panicked transaction still holds the write lock")
            .unwrap();
        let plan = move |got| Ok::<_, BackendError>((vec![put(b"c", 10 + round)], versions(got)));
        let (seen, written) = db
            .read_then_write(vec![key(b"a"), key(b"b")], plan)
            .await
            .unwrap();
        written.unwrap();
        assert_eq!(seen, [Some(1), Some(2 + round)]);
    }
    drop(db);
    let db = redb::RedbBackend::create(dir.path()).await.unwrap();
    let got = db
        .batch_get(vec![key(b"a"), key(b"b"), key(b"c")])
        .await
        .unwrap();
    assert_eq!(versions(got), [Some(1), Some(4), Some(12)]);
}

/// Reads share a snapshot until the next commit (`Db::snapshot`): a read that starts after a
/// write returned sees it, on every thread setting and through every handle of the file,
/// while other threads keep reading (and keeping snapshots) all the time.
#[cfg(feature = "redb")]
#[test]
fn redb_reads_after_a_commit_see_it_while_others_read() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = rt.block_on(redb::RedbBackend::create(dir.path())).unwrap();
    fn key() -> Key {
        Key::new(b"g".to_vec(), b"k".to_vec())
    }
    let put = |version: u64| Write::Put {
        key: key(),
        record: Record {
            value: version.to_be_bytes().to_vec(),
            version,
        },
        condition: Condition::None,
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for threads in [redb::Threads::Caller, redb::Threads::ReadsInline] {
            let (reader, rt, stop) = (db.clone().with_threads(threads), &rt, &stop);
            s.spawn(move || {
                let mut last = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let got = rt
                        .block_on(reader.get(key()))
                        .unwrap()
                        .map_or(0, |r| r.version);
                    assert!(got >= last, "a read went back from version {last} to {got}");
                    last = got;
                }
            });
        }
        let writer = db.clone().with_threads(redb::Threads::Caller);
        for version in 1..=300u64 {
            if version % 3 == 0 {
                let plan = move |_| Ok::<_, BackendError>((vec![put(version)], ()));
                let (_, written) = rt
                    .block_on(writer.read_then_write(vec![key()], plan))
                    .unwrap();
                written.unwrap();
            } else {
                rt.block_on(writer.write(vec![put(version)])).unwrap();
            }
            let handles = [
                db.clone(),
                writer.clone(),
                db.clone().with_threads(redb::Threads::Pool),
            ];
            for reader in handles {
                let got = rt.block_on(reader.get(key())).unwrap().map(|r| r.version);
                assert_eq!(got, Some(version), "a read after write {version}");
                let scanned = rt
                    .block_on(reader.scan(Scan::group(b"g".to_vec())))
                    .unwrap();
                assert_eq!(scanned.len(), 1);
                assert_eq!(scanned[0].record.version, version);
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}
