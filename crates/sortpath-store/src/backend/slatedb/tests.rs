use super::*;
use proptest::prelude::*;

/// Bytes that trip up escapes and terminators, and any others.
fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            Just(0x00u8),
            Just(0x01),
            Just(0x02),
            Just(0xFF),
            Just(0xFE),
            any::<u8>()
        ],
        0..max,
    )
}

fn key() -> impl Strategy<Value = Key> {
    (bytes(5), bytes(5)).prop_map(|(g, s)| Key::new(g, s))
}

fn bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
    prop_oneof![
        Just(Bound::Unbounded),
        bytes(4).prop_map(Bound::Included),
        bytes(4).prop_map(Bound::Excluded),
    ]
}

fn in_range(range: &KeyRange, k: &[u8]) -> bool {
    let above = match &range.start {
        Bound::Included(s) => k >= s.as_slice(),
        Bound::Excluded(s) => k > s.as_slice(),
        Bound::Unbounded => true,
    };
    let below = match &range.end {
        Bound::Included(e) => k <= e.as_slice(),
        Bound::Excluded(e) => k < e.as_slice(),
        Bound::Unbounded => true,
    };
    above && below
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// The SlateDB key order is the backend's key order (group, then sort key), and the
    /// encoding reads back.
    #[test]
    fn key_order_is_kept(a in key(), b in key()) {
        let (ea, eb) = (encode_key(&a), encode_key(&b));
        prop_assert_eq!(a.cmp(&b), ea.cmp(&eb), "{:?} {:?}", a, b);
        prop_assert_eq!(decode_key(&ea).unwrap(), a);
    }

    /// A scan's key range holds exactly the keys of its group within its sort bounds.
    #[test]
    fn scan_range_is_exact(group in bytes(4), start in bound(), end in bound(), k in key(), near in any::<bool>()) {
        let scan = Scan::group(group.clone()).start(start).end(end);
        // Half the probes are in the scanned group, to reach the bounds.
        let k = if near { Key::new(group.clone(), k.sort) } else { k };
        let expected = k.group == group && scan.contains(&k.sort);
        prop_assert_eq!(in_range(&scan_range(&scan), &encode_key(&k)), expected, "{:?} in {:?}", k, scan);
    }

    /// Decoding any bytes either reads a key that encodes back to them, or says what is
    /// wrong; it never panics.
    #[test]
    fn decode_key_never_panics(b in bytes(12)) {
        match decode_key(&b) {
            Ok(k) => prop_assert_eq!(encode_key(&k), b),
            Err(e) => prop_assert!(e.to_string().contains("SlateDB key"), "{}", e),
        }
    }

    /// Values read back, and short ones are errors, not panics.
    #[test]
    fn values_read_back(value in bytes(10), version in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()], cut in 0usize..8) {
        let record = Record { value: value.clone(), version };
        let stored = encode_value(&record);
        prop_assert_eq!(decode_value(b"k", &stored).unwrap(), (version, value.as_slice()));
        let e = decode_value(b"k", &stored[..cut]).unwrap_err();
        prop_assert_eq!(e, LayoutError::ShortValue { key: b"k".to_vec(), found: cut });
    }
}

#[test]
fn layout_errors_say_where() {
    assert_eq!(
        decode_key(&[b'a', 0x00, 0x07, 0x01])
            .unwrap_err()
            .to_string(),
        "SlateDB key 61000701: at offset 2, expected ff or 01 after 00, found 07"
    );
    assert_eq!(
        decode_key(b"ab").unwrap_err().to_string(),
        "SlateDB key 6162 has no group end (expected the bytes 00 01 after the group)"
    );
}

#[test]
fn group_end_follows_every_key_of_the_group() {
    let end = group_end(b"a");
    assert_eq!(end, [b'a', 0x00, 0x02]);
    assert!(encode_key(&Key::new(b"a".to_vec(), vec![0xFF; 40])) < end);
    assert!(encode_key(&Key::new(b"a\0".to_vec(), vec![])) > end);
    assert!(encode_key(&Key::new(b"a\x01".to_vec(), vec![])) > end);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_value_too_short_is_an_error_naming_its_key() {
    let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
    let db = Db::builder("x", store.clone()).build().await.unwrap();
    let key = encode_key(&Key::new(b"g".to_vec(), b"s".to_vec()));
    db.put(&key, [1, 2, 3]).await.unwrap();
    db.close().await.unwrap();
    let backend = SlateDbBackend::open_in(store, "x", SlateDbOptions::default())
        .await
        .unwrap();
    let e = backend
        .get(Key::new(b"g".to_vec(), b"s".to_vec()))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "storage error: the value under SlateDB key 67000173 has 3 bytes; expected at least 8 (its version)"
    );
    let e = backend.scan(Scan::group(b"g".to_vec())).await.unwrap_err();
    assert!(e.to_string().contains("has 3 bytes"), "{e}");
}

/// Scans read SlateDB a batch at a time (`SCAN_BATCH`): every limit around a batch's size,
/// both directions, with bounds, gives exactly the records of the range in order; a corrupt
/// record is an error once a scan reaches it, and only then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_across_batches_keep_order_limits_and_errors() {
    let backend = SlateDbBackend::open_in_memory().await.unwrap();
    let n = 2 * SCAN_BATCH + 44;
    let sort = |i: usize| u16::try_from(i).unwrap().to_be_bytes().to_vec();
    let mut writes = Vec::new();
    for group in [b"f".to_vec(), b"g".to_vec(), b"g\0".to_vec(), b"h".to_vec()] {
        for i in 0..n {
            writes.push(Write::Put {
                key: Key::new(group.clone(), sort(i)),
                record: Record {
                    value: group.iter().copied().chain(sort(i)).collect(),
                    version: i as u64 + 1,
                },
                condition: Condition::None,
            });
        }
    }
    backend.write(writes).await.unwrap();
    let expect = |range: std::ops::Range<usize>, reverse: bool, limit: Option<usize>| {
        let mut all: Vec<usize> = range.collect();
        if reverse {
            all.reverse();
        }
        all.truncate(limit.unwrap_or(usize::MAX));
        all.into_iter()
            .map(|i| Entry {
                sort: sort(i),
                record: Record {
                    value: [b"g".to_vec(), sort(i)].concat(),
                    version: i as u64 + 1,
                },
            })
            .collect::<Vec<_>>()
    };
    let limits = [
        None,
        Some(1),
        Some(SCAN_BATCH - 1),
        Some(SCAN_BATCH),
        Some(SCAN_BATCH + 1),
        Some(2 * SCAN_BATCH),
        Some(n),
        Some(n + 1),
    ];
    for reverse in [false, true] {
        for limit in limits {
            let mut scan = Scan::group(b"g".to_vec());
            scan.limit = limit;
            if reverse {
                scan = scan.reverse();
            }
            let got = backend.scan(scan.clone()).await.unwrap();
            assert_eq!(
                got,
                expect(0..n, reverse, limit),
                "reverse {reverse}, limit {limit:?}"
            );
            let bounded = scan
                .start(Bound::Excluded(sort(3)))
                .end(Bound::Included(sort(n - 5)));
            let got = backend.scan(bounded).await.unwrap();
            assert_eq!(
                got,
                expect(4..n - 4, reverse, limit),
                "bounded, reverse {reverse}, limit {limit:?}"
            );
        }
    }
    // A fold that fails in the second batch stops there: no record after it is folded.
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = seen.clone();
    let failed = backend
        .scan_fold(Scan::group(b"g".to_vec()), (), move |_, _, _, _| {
            let now = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            if now == SCAN_BATCH + 3 {
                return Err(BackendError::storage("stop".to_string()));
            }
            Ok(())
        })
        .await;
    assert_eq!(failed.unwrap_err().to_string(), "storage error: stop");
    assert_eq!(
        seen.load(std::sync::atomic::Ordering::SeqCst),
        SCAN_BATCH + 3
    );

    // A record too short to hold a version, in the second batch of a forward scan.
    let db = match &backend.inner.handle {
        Handle::Writer(db) => db,
        Handle::Reader(_) => unreachable!("opened for writing"),
    };
    let bad = SCAN_BATCH + 10;
    db.put(encode_key(&Key::new(b"g".to_vec(), sort(bad))), [1, 2, 3])
        .await
        .unwrap()
        .await_durable()
        .await
        .unwrap();
    let mut scan = Scan::group(b"g".to_vec());
    scan.limit = Some(bad);
    assert_eq!(
        backend.scan(scan.clone()).await.unwrap(),
        expect(0..bad, false, None)
    );
    scan.limit = Some(bad + 1);
    let e = backend.scan(scan).await.unwrap_err();
    assert!(e.to_string().contains("has 3 bytes"), "{e}");
    let reverse = Scan::group(b"g".to_vec()).reverse();
    let e = backend.scan(reverse).await.unwrap_err();
    assert!(e.to_string().contains("has 3 bytes"), "{e}");
}
