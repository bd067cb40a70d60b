//! The conformance suite every [`Backend`] must pass.
//!
//! A backend's tests call [`run`] with a factory that makes a fresh, empty backend; each
//! check gets its own. Checks also keep to their own group keys, so a factory may hand out
//! the same shared backend (e.g. one DynamoDB table) every time. A failing check panics with
//! a message naming the check and what differed.
//!
//! ```
//! use keypath_store::backend::memory::MemoryBackend;
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! keypath_store::conformance::run(|| async { MemoryBackend::new() }).await;
//! # });
//! ```
//!
//! Beyond the backend contract, it holds the store-level checkers that any backend can be
//! pointed at: [`model`] (random operations against a store and an in-memory model),
//! [`faulty`] (a backend wrapper that fails on purpose) and [`check_consistency`] (every
//! index entry points at an item that has it, and every item has its entries).

pub mod faulty;
pub mod model;

use std::collections::BTreeMap;
use std::future::Future;
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use crate::backend::{
    Backend, BackendError, Condition, Direction, Entry, Key, Record, Scan, Write,
};

/// Runs every check against backends made by `new_backend`.
///
/// ```
/// # use keypath_store::backend::memory::MemoryBackend;
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// keypath_store::conformance::run(|| async { MemoryBackend::new() }).await;
/// # });
/// ```
pub async fn run<B, F, Fut>(mut new_backend: F)
where
    B: Backend,
    F: FnMut() -> Fut,
    Fut: Future<Output = B>,
{
    get_and_batch_get(&new_backend().await).await;
    binary_key_order(&new_backend().await).await;
    scans_match_model(&new_backend().await).await;
    cursor_resumption(&new_backend().await).await;
    conditions(&new_backend().await).await;
    failed_batch_writes_nothing(&new_backend().await).await;
    read_then_write_applies_the_plan(&new_backend().await).await;
    duplicate_keys_rejected(&new_backend().await).await;
    large_values(&new_backend().await).await;
    concurrency(Arc::new(new_backend().await)).await;
}

/// Deterministic pseudo-random numbers (SplitMix64), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A short byte string over the bytes that trip up encodings, and others.
    fn tricky_bytes(&mut self, max_len: usize) -> Vec<u8> {
        const TRICKY: [u8; 8] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF, b'a'];
        let len = 1 + self.below(max_len);
        (0..len)
            .map(|_| {
                if self.below(4) == 0 {
                    self.next() as u8
                } else {
                    TRICKY[self.below(8)]
                }
            })
            .collect()
    }
}

fn put(group: &[u8], sort: &[u8], value: &[u8], version: u64, condition: Condition) -> Write {
    Write::Put {
        key: Key::new(group, sort),
        record: Record {
            value: value.to_vec(),
            version,
        },
        condition,
    }
}

async fn must<T>(what: &str, fut: impl Future<Output = Result<T, BackendError>>) -> T {
    match fut.await {
        Ok(v) => v,
        Err(e) => panic!("conformance: {what}: unexpected error: {e}"),
    }
}

/// Checks that a `map` error ended a read: it is the result (a storage error with
/// `message`), and `map` ran exactly `calls` times.
fn assert_map_error_ended<T: std::fmt::Debug>(
    failed: Result<T, BackendError>,
    message: &str,
    ran: &AtomicUsize,
    calls: usize,
    what: &str,
) {
    match failed {
        Err(BackendError::Storage(e)) => {
            assert_eq!(e.to_string(), message, "conformance: {what} error")
        }
        other => panic!("conformance: {what} gave {other:?}, expected the map error"),
    }
    assert_eq!(
        ran.load(SeqCst),
        calls,
        "conformance: {what} went on after the map error"
    );
}

async fn get_and_batch_get<B: Backend>(db: &B) {
    let g: &[u8] = b"get";
    must(
        "put",
        db.write(vec![put(g, b"a", b"1", 7, Condition::None)]),
    )
    .await;
    must(
        "put",
        db.write(vec![put(b"get2", b"a", b"2", 8, Condition::None)]),
    )
    .await;
    let got = must("get", db.get(Key::new(g, b"a".as_slice()))).await;
    assert_eq!(
        got,
        Some(Record {
            value: b"1".to_vec(),
            version: 7
        }),
        "conformance: get"
    );
    assert_eq!(
        must("get", db.get(Key::new(g, b"b".as_slice()))).await,
        None,
        "get absent"
    );
    let keys = vec![
        Key::new(b"get2".as_slice(), b"a".as_slice()),
        Key::new(g, b"missing".as_slice()),
        Key::new(g, b"a".as_slice()),
        Key::new(g, b"a".as_slice()),
    ];
    let got = must("batch_get", db.batch_get(keys.clone())).await;
    let versions: Vec<_> = got.iter().map(|r| r.as_ref().map(|r| r.version)).collect();
    assert_eq!(
        versions,
        [Some(8), None, Some(7), Some(7)],
        "conformance: batch_get slots"
    );
    // `batch_get_map` hands over the same records, borrowed, with their slots.
    let mapped = db.batch_get_map(keys.clone(), |slot, version, value| {
        Ok::<_, BackendError>((slot, version, value.to_vec()))
    });
    assert_eq!(
        must("batch_get_map", mapped).await,
        [
            Some((0, 8, b"2".to_vec())),
            None,
            Some((2, 7, b"1".to_vec())),
            Some((3, 7, b"1".to_vec()))
        ],
        "conformance: batch_get_map slots"
    );
    // The first error `map` returns ends the read and is the result.
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let failed = db
        .batch_get_map(keys.clone(), move |slot, _, _| {
            counter.fetch_add(1, SeqCst);
            if slot == 2 {
                return Err(BackendError::storage(format!("stop at {slot}")));
            }
            Ok(slot)
        })
        .await;
    assert_map_error_ended(failed, "stop at 2", &calls, 2, "batch_get_map");
    assert!(
        must("batch_get", db.batch_get(Vec::new())).await.is_empty(),
        "empty batch_get"
    );
    // Versions are stored as given, even when they go down; an empty value is a value.
    must(
        "put",
        db.write(vec![put(g, b"a", b"", 2, Condition::VersionEquals(7))]),
    )
    .await;
    let got = must("get", db.get(Key::new(g, b"a".as_slice()))).await;
    assert_eq!(
        got,
        Some(Record {
            value: vec![],
            version: 2
        }),
        "conformance: version as given"
    );
    must("empty write", db.write(Vec::new())).await;
    let del = Write::Delete {
        key: Key::new(g, b"nothing".as_slice()),
        condition: Condition::None,
    };
    must("delete of an absent key", db.write(vec![del])).await;
}

/// Sort keys and neighbouring groups made of the bytes that break naive encodings.
async fn binary_key_order<B: Backend>(db: &B) {
    let group = vec![b'o', 0x00, 0xFF];
    // Groups that are prefixes or extensions of `group`, or differ in the last byte.
    let neighbours = [
        vec![b'o', 0x00],
        vec![b'o', 0x00, 0xFF, 0x00],
        vec![b'o', 0x00, 0xFE],
        vec![b'o', 0x01],
    ];
    let sorts: Vec<Vec<u8>> = vec![
        vec![0x00],
        vec![0x00, 0x00],
        vec![0x00, 0xFF],
        vec![0x01],
        b"post-ab".to_vec(),
        b"post-abc".to_vec(),
        vec![0x7F],
        vec![0x7F, 0x00],
        vec![0x80],
        vec![0xFF],
        vec![0xFF, 0x00],
        vec![0xFF, 0xFF],
        vec![0xFF, 0xFF, 0xFF],
    ];
    let mut writes: Vec<Write> = Vec::new();
    // Insert in a scrambled order so a backend that keeps insertion order fails.
    for (i, s) in sorts.iter().enumerate().rev().filter(|(i, _)| i % 2 == 0) {
        writes.push(put(&group, s, &[i as u8], 1, Condition::NotExists));
    }
    for (i, s) in sorts.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        writes.push(put(&group, s, &[i as u8], 1, Condition::NotExists));
    }
    for n in &neighbours {
        for s in [&[0x00][..], &[0x80][..], &[0xFF, 0xFF, 0xFF, 0xFF][..]] {
            writes.push(put(n, s, b"neighbour", 1, Condition::None));
        }
    }
    must("write", db.write(writes)).await;
    let fwd = must("scan", db.scan(Scan::group(group.clone()))).await;
    let fwd_keys: Vec<_> = fwd.iter().map(|e| e.sort.clone()).collect();
    assert_eq!(
        fwd_keys, sorts,
        "conformance: forward scan order of binary keys"
    );
    for e in &fwd {
        let i = sorts
            .iter()
            .position(|s| *s == e.sort)
            .unwrap_or(usize::MAX);
        assert_eq!(
            e.record.value,
            [i as u8],
            "conformance: value under {:?}",
            e.sort
        );
    }
    let rev = must("scan", db.scan(Scan::group(group.clone()).reverse())).await;
    let rev_keys: Vec<_> = rev.iter().map(|e| e.sort.clone()).collect();
    let mut expected = sorts.clone();
    expected.reverse();
    assert_eq!(
        rev_keys, expected,
        "conformance: reverse scan order of binary keys"
    );
    // Prefix ranges must not leak into siblings: [post-ab, post-ab\xff...] style bounds.
    let s = Scan::group(group.clone())
        .start(Bound::Included(b"post-ab".to_vec()))
        .end(Bound::Excluded(b"post-abc".to_vec()));
    let got: Vec<_> = must("scan", db.scan(s))
        .await
        .into_iter()
        .map(|e| e.sort)
        .collect();
    assert_eq!(
        got,
        [b"post-ab".to_vec()],
        "conformance: prefix range excludes sibling"
    );
    for n in &neighbours {
        let got = must("scan", db.scan(Scan::group(n.clone()))).await;
        assert_eq!(
            got.len(),
            3,
            "conformance: group {n:02x?} sees only its own records"
        );
    }
}

/// Random bounds, directions and limits against a `BTreeMap` model.
async fn scans_match_model<B: Backend>(db: &B) {
    let mut rng = Rng(0x5EED_0001);
    let group = b"model".to_vec();
    let mut model = BTreeMap::new();
    let mut writes = Vec::new();
    while model.len() < 60 {
        let s = rng.tricky_bytes(4);
        if model.contains_key(&s) {
            continue;
        }
        let version = rng.next() % 1000;
        model.insert(s.clone(), version);
        writes.push(put(&group, &s, &s, version, Condition::NotExists));
    }
    // Backends may limit batch sizes (DynamoDB: 100); stay well under.
    for chunk in writes.chunks(25) {
        must("write", db.write(chunk.to_vec())).await;
    }
    let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
    for round in 0..300 {
        let bound = |rng: &mut Rng| {
            let b = match rng.below(3) {
                0 => keys[rng.below(keys.len())].clone(),
                _ => rng.tricky_bytes(3),
            };
            match rng.below(3) {
                0 => Bound::Unbounded,
                1 => Bound::Included(b),
                _ => Bound::Excluded(b),
            }
        };
        let mut scan = Scan::group(group.clone())
            .start(bound(&mut rng))
            .end(bound(&mut rng));
        if rng.below(2) == 0 {
            scan = scan.reverse();
        }
        if rng.below(2) == 0 {
            scan = scan.limit(rng.below(70));
        }
        let mut expected: Vec<(Vec<u8>, u64)> = model
            .iter()
            .filter(|(k, _)| scan.contains(k))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        if scan.direction == Direction::Reverse {
            expected.reverse();
        }
        expected.truncate(scan.limit.unwrap_or(usize::MAX));
        let got = must("scan", db.scan(scan.clone())).await;
        let got: Vec<(Vec<u8>, u64)> = got
            .into_iter()
            .map(|e: Entry| {
                assert_eq!(
                    e.record.value, e.sort,
                    "conformance: value of {:02x?}",
                    e.sort
                );
                (e.sort, e.record.version)
            })
            .collect();
        assert_eq!(got, expected, "conformance: scan round {round}: {scan:?}");
        // `scan_map` visits the same records in the same order, borrowed.
        let mapped = db.scan_map(scan.clone(), |sort, version, value| {
            if value != sort {
                return Err(BackendError::storage(format!("value of {sort:02x?}")));
            }
            Ok((sort.to_vec(), version))
        });
        let mapped = must("scan_map", mapped).await;
        assert_eq!(
            mapped, expected,
            "conformance: scan_map round {round}: {scan:?}"
        );
        // `scan_fold` too, into an accumulator the caller chose.
        let folded = db.scan_fold(
            scan.clone(),
            (0usize, Vec::new()),
            |(n, seen), sort, version, value| {
                if value != sort {
                    return Err(BackendError::storage(format!("value of {sort:02x?}")));
                }
                *n += 1;
                seen.push((sort.to_vec(), version));
                Ok(())
            },
        );
        let (n, folded) = must("scan_fold", folded).await;
        assert_eq!(
            (n, &folded),
            (expected.len(), &expected),
            "conformance: scan_fold round {round}: {scan:?}"
        );
        // The first error `map` returns ends the scan and is the result.
        if let Some(stop) = (!expected.is_empty()).then(|| rng.below(expected.len())) {
            let seen = Arc::new(AtomicUsize::new(0));
            let counter = seen.clone();
            let failed = db
                .scan_map(scan.clone(), move |_, _, _| {
                    let n = counter.fetch_add(1, SeqCst);
                    if n == stop {
                        return Err(BackendError::storage(format!("stop at {n}")));
                    }
                    Ok(n)
                })
                .await;
            let what = format!("scan_map, round {round}");
            assert_map_error_ended(failed, &format!("stop at {stop}"), &seen, stop + 1, &what);
        }
    }
}

/// Paging with small limits and resuming after the last key returned, both directions,
/// with records inserted and deleted between pages.
async fn cursor_resumption<B: Backend>(db: &B) {
    let group = b"cursor".to_vec();
    let mut model: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    for i in 0..40u8 {
        let s = vec![i.wrapping_mul(37), i];
        model.insert(s.clone(), 1);
        must(
            "write",
            db.write(vec![put(&group, &s, b"", 1, Condition::None)]),
        )
        .await;
    }
    let mut rng = Rng(0x5EED_0002);
    for direction in [Direction::Forward, Direction::Reverse] {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let mut scan = Scan::group(group.clone())
                .direction(direction)
                .limit(1 + rng.below(6));
            if let Some(l) = &last {
                scan = match direction {
                    Direction::Forward => scan.start(Bound::Excluded(l.clone())),
                    Direction::Reverse => scan.end(Bound::Excluded(l.clone())),
                };
            }
            let page = must("scan", db.scan(scan.clone())).await;
            let Some(tail) = page.last() else { break };
            // The page is exactly the next records of the model after the cursor.
            let expected: Vec<Vec<u8>> = {
                let mut e: Vec<_> = model.keys().filter(|k| scan.contains(k)).cloned().collect();
                if direction == Direction::Reverse {
                    e.reverse();
                }
                e.truncate(scan.limit.unwrap_or(usize::MAX));
                e
            };
            let got: Vec<Vec<u8>> = page.iter().map(|e| e.sort.clone()).collect();
            assert_eq!(
                got, expected,
                "conformance: page after {last:02x?} ({direction:?})"
            );
            last = Some(tail.sort.clone());
            seen.extend(got);
            // Change the map between pages: delete a random record, insert a new one.
            let victim = model.keys().nth(rng.below(model.len())).cloned();
            if let Some(v) = victim {
                model.remove(&v);
                let del = Write::Delete {
                    key: Key::new(group.clone(), v),
                    condition: Condition::None,
                };
                must("delete", db.write(vec![del])).await;
            }
            let fresh = rng.tricky_bytes(3);
            model.insert(fresh.clone(), 2);
            must(
                "insert",
                db.write(vec![put(&group, &fresh, b"", 2, Condition::None)]),
            )
            .await;
        }
        let mut sorted = seen.clone();
        sorted.sort();
        if direction == Direction::Reverse {
            sorted.reverse();
        }
        sorted.dedup();
        assert_eq!(
            seen, sorted,
            "conformance: pages are strictly ordered ({direction:?})"
        );
    }
}

fn condition_failed(result: Result<(), BackendError>, what: &str) -> (usize, Option<u64>) {
    match result {
        Err(BackendError::ConditionFailed { index, current }) => (index, current),
        other => panic!("conformance: {what}: expected ConditionFailed, got {other:?}"),
    }
}

async fn conditions<B: Backend>(db: &B) {
    let g: &[u8] = b"cond";
    let key = || Key::new(g, b"k".as_slice());
    let r = db
        .write(vec![put(g, b"k", b"x", 1, Condition::Exists)])
        .await;
    assert_eq!(condition_failed(r, "Exists on absent").0, 0);
    let r = db
        .write(vec![put(g, b"k", b"x", 1, Condition::VersionEquals(1))])
        .await;
    assert_eq!(condition_failed(r, "VersionEquals on absent").0, 0);
    must(
        "NotExists on absent",
        db.write(vec![put(g, b"k", b"x", 5, Condition::NotExists)]),
    )
    .await;
    let r = db
        .write(vec![put(g, b"k", b"y", 6, Condition::NotExists)])
        .await;
    let (index, current) = condition_failed(r, "NotExists on present");
    assert_eq!(index, 0);
    assert!(
        current.is_none() || current == Some(5),
        "conformance: reported version {current:?}"
    );
    let r = db
        .write(vec![put(g, b"k", b"y", 6, Condition::VersionEquals(4))])
        .await;
    let (_, current) = condition_failed(r, "VersionEquals with a stale version");
    assert!(
        current.is_none() || current == Some(5),
        "conformance: reported version {current:?}"
    );
    must(
        "VersionEquals",
        db.write(vec![put(g, b"k", b"y", 6, Condition::VersionEquals(5))]),
    )
    .await;
    must(
        "Exists",
        db.write(vec![put(g, b"k", b"z", 7, Condition::Exists)]),
    )
    .await;
    let check = |c| Write::Check {
        key: key(),
        condition: c,
    };
    must("Check", db.write(vec![check(Condition::VersionEquals(7))])).await;
    let r = db.write(vec![check(Condition::VersionEquals(6))]).await;
    condition_failed(r, "Check with a stale version");
    let del = |c| Write::Delete {
        key: key(),
        condition: c,
    };
    let r = db.write(vec![del(Condition::VersionEquals(6))]).await;
    condition_failed(r, "Delete with a stale version");
    assert_eq!(
        must("get", db.get(key())).await.map(|r| r.value),
        Some(b"z".to_vec())
    );
    must("Delete", db.write(vec![del(Condition::VersionEquals(7))])).await;
    assert_eq!(
        must("get", db.get(key())).await,
        None,
        "conformance: deleted"
    );
    let r = db.write(vec![del(Condition::Exists)]).await;
    condition_failed(r, "Delete with Exists on absent");
}

/// A batch whose condition fails in the middle writes none of its puts and deletes.
async fn failed_batch_writes_nothing<B: Backend>(db: &B) {
    let g: &[u8] = b"atomic";
    let other: &[u8] = b"atomic-other";
    must(
        "setup",
        db.write(vec![put(g, b"keep", b"old", 3, Condition::None)]),
    )
    .await;
    must(
        "setup",
        db.write(vec![put(other, b"x", b"old", 3, Condition::None)]),
    )
    .await;
    let before_g = must("scan", db.scan(Scan::group(g.to_vec()))).await;
    let before_o = must("scan", db.scan(Scan::group(other.to_vec()))).await;
    let batch = vec![
        put(g, b"new1", b"n", 4, Condition::None),
        Write::Delete {
            key: Key::new(other, b"x".as_slice()),
            condition: Condition::Exists,
        },
        put(g, b"keep", b"new", 4, Condition::VersionEquals(3)),
        put(g, b"new2", b"n", 4, Condition::Exists), // fails: absent
        put(g, b"keep-not", b"n", 4, Condition::VersionEquals(9)), // fails too, later
        put(other, b"y", b"n", 4, Condition::None),
    ];
    let (index, _) = condition_failed(db.write(batch).await, "batch with a failing condition");
    assert_eq!(index, 3, "conformance: the first failing write is named");
    assert_eq!(
        must("scan", db.scan(Scan::group(g.to_vec()))).await,
        before_g,
        "nothing written"
    );
    assert_eq!(
        must("scan", db.scan(Scan::group(other.to_vec()))).await,
        before_o,
        "no delete"
    );
}

/// `read_then_write`: the plan sees what was read and its batch is applied; a failed
/// condition or a duplicate key comes back beside what the plan made and writes nothing; an
/// error of the plan is the result and writes nothing; an empty batch writes nothing.
async fn read_then_write_applies_the_plan<B: Backend>(db: &B) {
    const G: &[u8] = b"read-then-write";
    let key = |s: &[u8]| Key::new(G, s);
    let record = |s: &'static [u8]| async move {
        must("get", db.get(key(s)))
            .await
            .map(|r| (r.value, r.version))
    };
    must(
        "setup",
        db.write(vec![put(G, b"a", b"1", 4, Condition::None)]),
    )
    .await;
    let keys = vec![key(b"a"), key(b"b")];
    let (seen, written) = must(
        "read_then_write",
        db.read_then_write(keys.clone(), |got| {
            let seen: Vec<Option<(Vec<u8>, u64)>> = got
                .iter()
                .map(|r| r.as_ref().map(|r| (r.value.clone(), r.version)))
                .collect();
            let batch = vec![
                put(G, b"b", b"2", 5, Condition::NotExists),
                put(G, b"a", b"3", 5, Condition::VersionEquals(4)),
            ];
            Ok::<_, BackendError>((batch, seen))
        }),
    )
    .await;
    assert_eq!(
        seen,
        [Some((b"1".to_vec(), 4)), None],
        "conformance: read_then_write read"
    );
    written.unwrap_or_else(|e| panic!("conformance: read_then_write write: {e}"));
    assert_eq!(record(b"a").await, Some((b"3".to_vec(), 5)));
    assert_eq!(record(b"b").await, Some((b"2".to_vec(), 5)));

    // A failed condition: what the plan made comes back; nothing is written.
    let (made, written) = must(
        "read_then_write",
        db.read_then_write(keys.clone(), |_| {
            let batch = vec![
                put(G, b"c", b"x", 9, Condition::None),
                put(G, b"a", b"x", 9, Condition::VersionEquals(4)),
            ];
            Ok::<_, BackendError>((batch, 7u8))
        }),
    )
    .await;
    assert_eq!(made, 7);
    let (index, current) = condition_failed(written, "read_then_write with a stale version");
    assert_eq!(
        (index, current),
        (1, Some(5)),
        "conformance: read_then_write names the failing write and the version it found"
    );
    assert_eq!(
        record(b"c").await,
        None,
        "conformance: read_then_write wrote"
    );
    assert_eq!(record(b"a").await, Some((b"3".to_vec(), 5)));

    // The second write's condition fails, on a key read as absent ("d", required to exist)
    // or on a key not read at all ("a", only "b" was): either way the version found comes
    // back, and nothing is written.
    let absent: (&[u8], Condition, Option<u64>) = (b"d", Condition::Exists, None);
    let unread: (&[u8], Condition, Option<u64>) = (b"a", Condition::NotExists, Some(5));
    for (read, (failing, condition, found), what) in [
        (vec![key(b"a"), key(b"d")], absent, "a key read as absent"),
        (vec![key(b"b")], unread, "an unread key"),
    ] {
        // The first write holds: the first key read, at version 5 ("a" and "b" both are).
        let batch = vec![
            put(G, &read[0].sort, b"y", 9, Condition::VersionEquals(5)),
            put(G, failing, b"y", 9, condition),
        ];
        let (_, written) = must(
            "read_then_write",
            db.read_then_write(read, move |_| Ok::<_, BackendError>((batch, ()))),
        )
        .await;
        assert_eq!(
            condition_failed(written, what),
            (1, found),
            "conformance: read_then_write of {what}"
        );
    }
    assert_eq!(record(b"a").await, Some((b"3".to_vec(), 5)));
    assert_eq!(record(b"b").await, Some((b"2".to_vec(), 5)));

    // A duplicate key in the batch: rejected, nothing written.
    let (_, written) = must(
        "read_then_write",
        db.read_then_write(keys.clone(), |_| {
            let batch = vec![
                put(G, b"c", b"x", 9, Condition::None),
                put(G, b"c", b"y", 9, Condition::None),
            ];
            Ok::<_, BackendError>((batch, ()))
        }),
    )
    .await;
    assert!(
        matches!(
            written,
            Err(BackendError::DuplicateKey {
                first: 0,
                second: 1
            })
        ),
        "conformance: read_then_write duplicate keys gave {written:?}"
    );
    assert_eq!(
        record(b"c").await,
        None,
        "conformance: read_then_write wrote"
    );

    // An error of the plan is the result.
    let failed = db
        .read_then_write(keys, |_| {
            Err::<(Vec<Write>, ()), _>(BackendError::storage("the plan says no"))
        })
        .await;
    match failed {
        Err(BackendError::Storage(e)) => assert_eq!(e.to_string(), "the plan says no"),
        other => panic!("conformance: read_then_write plan error gave {other:?}"),
    }

    // Nothing to read, nothing to write.
    let (made, written) = must(
        "read_then_write",
        db.read_then_write(Vec::new(), |got| {
            Ok::<_, BackendError>((Vec::new(), got.len()))
        }),
    )
    .await;
    assert_eq!(made, 0);
    assert!(
        written.is_ok(),
        "conformance: empty read_then_write gave {written:?}"
    );
    let all = must("scan", db.scan(Scan::group(G.to_vec()))).await;
    assert_eq!(all.len(), 2, "conformance: read_then_write left {all:?}");
}

async fn duplicate_keys_rejected<B: Backend>(db: &B) {
    let g: &[u8] = b"dup";
    let batch = vec![
        put(g, b"a", b"1", 1, Condition::None),
        put(g, b"b", b"1", 1, Condition::None),
        Write::Delete {
            key: Key::new(g, b"a".as_slice()),
            condition: Condition::None,
        },
    ];
    match db.write(batch).await {
        Err(BackendError::DuplicateKey {
            first: 0,
            second: 2,
        }) => {}
        other => panic!("conformance: duplicate keys: expected DuplicateKey(0, 2), got {other:?}"),
    }
    assert!(
        must("scan", db.scan(Scan::group(g.to_vec())))
            .await
            .is_empty(),
        "nothing written"
    );
}

async fn large_values<B: Backend>(db: &B) {
    let g: &[u8] = b"large";
    let value: Vec<u8> = (0..64 * 1024)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let long_sort = vec![0xAB; 1024];
    must(
        "put",
        db.write(vec![put(g, &long_sort, &value, 1, Condition::None)]),
    )
    .await;
    let got = must("get", db.get(Key::new(g, long_sort))).await;
    assert_eq!(
        got.map(|r| r.value),
        Some(value),
        "conformance: 64 KiB value round trip"
    );
}

/// Many tasks: read-modify-write increments of one counter with `VersionEquals` (no lost
/// update), and disjoint inserts (all present).
async fn concurrency<B: Backend>(db: Arc<B>) {
    const TASKS: u64 = 8;
    const INCREMENTS: u64 = 10;
    let counter = || Key::new(b"conc".as_slice(), b"counter".as_slice());
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..TASKS {
        let db = db.clone();
        tasks.spawn(async move {
            for i in 0..INCREMENTS {
                loop {
                    let cur = db.get(counter()).await?;
                    let (n, condition) = match &cur {
                        Some(r) => (decode_u64(&r.value), Condition::VersionEquals(r.version)),
                        None => (0, Condition::NotExists),
                    };
                    let version = cur.map_or(1, |r| r.version + 1);
                    let bump = Write::Put {
                        key: counter(),
                        record: Record {
                            value: (n + 1).to_be_bytes().to_vec(),
                            version,
                        },
                        condition,
                    };
                    let mine = put(
                        b"conc-own",
                        &[t as u8, i as u8],
                        b"",
                        1,
                        Condition::NotExists,
                    );
                    match db.write(vec![bump, mine]).await {
                        Ok(()) => break,
                        Err(BackendError::ConditionFailed { index: 0, .. }) => {
                            tokio::task::yield_now().await
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            Ok::<(), BackendError>(())
        });
    }
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(result) => must("concurrent writer", async { result }).await,
            Err(e) => panic!("conformance: concurrent writer panicked: {e}"),
        }
    }
    let n = must("get", db.get(counter()))
        .await
        .map(|r| decode_u64(&r.value));
    assert_eq!(n, Some(TASKS * INCREMENTS), "conformance: no lost update");
    let own = must("scan", db.scan(Scan::group(b"conc-own".to_vec()))).await;
    assert_eq!(
        own.len() as u64,
        TASKS * INCREMENTS,
        "conformance: every task's own writes"
    );
}

fn decode_u64(bytes: &[u8]) -> u64 {
    bytes.try_into().map(u64::from_be_bytes).unwrap_or(u64::MAX)
}

#[cfg(feature = "redb")]
pub use crate::check::dump_redb;
pub use crate::check::{check_consistency, dump_groups, Census};
