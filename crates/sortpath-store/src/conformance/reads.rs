//! Contract checks of reads: `get` and `batch_get`, binary key order, scans against a
//! model, and cursor resumption.

use sortpath::Order;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use crate::backend::{Backend, BackendError, Condition, Entry, Key, Record, Scan, Write};

use super::support::{assert_map_error_ended, must, put, Rng};

pub(super) async fn get_and_batch_get<B: Backend>(db: &B) {
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
pub(super) async fn binary_key_order<B: Backend>(db: &B) {
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
pub(super) async fn scans_match_model<B: Backend>(db: &B) {
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
        if scan.order == Order::Descending {
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
pub(super) async fn cursor_resumption<B: Backend>(db: &B) {
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
    for direction in [Order::Ascending, Order::Descending] {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let mut scan = Scan::group(group.clone())
                .order(direction)
                .limit(1 + rng.below(6));
            if let Some(l) = &last {
                scan = match direction {
                    Order::Ascending => scan.start(Bound::Excluded(l.clone())),
                    Order::Descending => scan.end(Bound::Excluded(l.clone())),
                };
            }
            let page = must("scan", db.scan(scan.clone())).await;
            let Some(tail) = page.last() else { break };
            // The page is exactly the next records of the model after the cursor.
            let expected: Vec<Vec<u8>> = {
                let mut e: Vec<_> = model.keys().filter(|k| scan.contains(k)).cloned().collect();
                if direction == Order::Descending {
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
        if direction == Order::Descending {
            sorted.reverse();
        }
        sorted.dedup();
        assert_eq!(
            seen, sorted,
            "conformance: pages are strictly ordered ({direction:?})"
        );
    }
}
