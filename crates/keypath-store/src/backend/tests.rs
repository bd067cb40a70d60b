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
        async move { redb::RedbBackend::open(path).await.unwrap() }
    })
    .await;
}
