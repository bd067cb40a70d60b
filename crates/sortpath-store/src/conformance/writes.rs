//! Contract checks of writes: conditions, atomic batches, `read_then_write`, duplicate
//! keys and large values.

use crate::backend::{Backend, BackendError, Condition, Key, Scan, Write};

use super::support::{condition_failed, must, put};

pub(super) async fn conditions<B: Backend>(db: &B) {
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
pub(super) async fn failed_batch_writes_nothing<B: Backend>(db: &B) {
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
pub(super) async fn read_then_write_applies_the_plan<B: Backend>(db: &B) {
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

pub(super) async fn duplicate_keys_rejected<B: Backend>(db: &B) {
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

pub(super) async fn large_values<B: Backend>(db: &B) {
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
