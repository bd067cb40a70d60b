use super::*;
use proptest::prelude::*;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn golden_vectors() {
    let text = include_str!("../../tests/golden/int.txt");
    let mut count = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (value, expected) = line.split_once(' ').unwrap();
        let value: i128 = value.parse().unwrap();
        let int = I65::try_from(value).unwrap();
        assert_eq!(hex(&int.encode()), expected, "encoding of {value}");
        assert_eq!(int.encoded_len() * 2, expected.len(), "length of {value}");
        let (back, used) = I65::decode_prefix(&int.encode()).unwrap();
        assert_eq!((back.to_i128(), used), (value, expected.len() / 2));
        count += 1;
    }
    assert!(count > 60, "golden file has {count} vectors");
}

#[test]
fn published_examples() {
    let cases: &[(i128, &[u8])] = &[
        (1, &[0x08, 0x01]),
        (6, &[0x08, 0x06]),
        (255, &[0x08, 0xFF]),
        (256, &[0x09, 0x01, 0x00]),
        (1234, &[0x09, 0x04, 0xD2]),
        (-1, &[0x07, 0xFE]),
        (-2, &[0x07, 0xFD]),
        (0, &[0x07, 0xFF]),
        (-257, &[0x06, 0xFE, 0xFE]),
        (-256, &[0x06, 0xFE, 0xFF]),
        (-((1i128 << 56) - 1), &[0x01, 0, 0, 0, 0, 0, 0, 0]),
        (-((1i128 << 64) - 1), &[0x00, 0, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for &(v, bytes) in cases {
        assert_eq!(I65::try_from(v).unwrap().encode(), bytes, "{v}");
    }
}

#[test]
fn range_edges() {
    assert_eq!(I65::try_from(-(u64::MAX as i128)), Ok(I65::MIN));
    assert_eq!(I65::try_from(u64::MAX as i128), Ok(I65::MAX));
    assert!(I65::try_from(-(u64::MAX as i128) - 1).is_err());
    assert!(I65::try_from(u64::MAX as i128 + 1).is_err());
    assert!(I65::try_from(u128::MAX).is_err());
    assert_eq!(I65::from(i64::MIN).to_i128(), i64::MIN as i128);
    assert_eq!(I65::from(-0i64), I65::ZERO);
    assert_eq!(
        I65::from_sign_magnitude(true, 0).encode(),
        I65::ZERO.encode()
    );
}

#[test]
fn rejects_non_canonical_and_garbage() {
    assert_eq!(I65::decode_prefix(&[]), Err(IntDecodeError::Empty));
    assert_eq!(
        I65::decode_prefix(&[0x10]),
        Err(IntDecodeError::BadSortByte(0x10))
    );
    assert_eq!(
        I65::decode_prefix(&[0x08, 0x00]),
        Err(IntDecodeError::NotMinimal)
    ); // +0
    assert_eq!(
        I65::decode_prefix(&[0x06, 0xFF, 0x00]),
        Err(IntDecodeError::NotMinimal)
    );
    assert_eq!(
        I65::decode_prefix(&[0x0A, 0x00, 0x01, 0x02]),
        Err(IntDecodeError::NotMinimal)
    );
    assert_eq!(
        I65::decode_prefix(&[0x00, 0x00]),
        Err(IntDecodeError::Truncated {
            needed: 9,
            found: 2
        })
    );
}

fn any_i65() -> impl Strategy<Value = I65> {
    prop_oneof![
        any::<i64>().prop_map(I65::from),
        any::<u64>().prop_map(I65::from),
        (any::<bool>(), any::<u64>()).prop_map(|(n, m)| I65::from_sign_magnitude(n, m)),
        (any::<bool>(), 0u32..64).prop_map(|(n, s)| I65::from_sign_magnitude(n, 1u64 << s)),
        (any::<bool>(), 0u32..64).prop_map(|(n, s)| I65::from_sign_magnitude(n, (1u64 << s) - 1)),
        Just(I65::MIN),
        Just(I65::MAX),
        Just(I65::ZERO),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(100_000)))]

    #[test]
    fn order_matches_bytes(a in any_i65(), b in any_i65()) {
        prop_assert_eq!(a.cmp(&b), a.encode().cmp(&b.encode()));
        prop_assert_eq!(a.cmp(&b), a.to_i128().cmp(&b.to_i128()));
    }

    #[test]
    fn round_trip(a in any_i65(), tail in proptest::collection::vec(any::<u8>(), 0..4)) {
        let mut bytes = a.encode();
        let len = bytes.len();
        bytes.extend(tail);
        prop_assert_eq!(I65::decode_prefix(&bytes), Ok((a, len)));
    }

    #[test]
    fn decode_never_panics_and_is_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
        if let Ok((v, used)) = I65::decode_prefix(&bytes) {
            prop_assert_eq!(v.encode(), &bytes[..used]);
        }
    }
}
