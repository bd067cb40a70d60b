use super::*;
use proptest::prelude::*;

#[test]
fn round_trip() {
    let c = Cursor {
        query: 42,
        position: vec![0, 1, 0xFF],
    };
    let text = c.to_string();
    assert_eq!(text.parse::<Cursor>().unwrap(), c);
    assert_eq!(c.position_for(42).unwrap(), [0, 1, 0xFF]);
    assert_eq!(c.position_for(43), Err(CursorError::OtherQuery));
}

#[test]
fn fnv_matches_reference_vectors() {
    // Published FNV-1a 64 test vectors.
    assert_eq!(fnv1a(FNV_OFFSET, b""), 0xcbf29ce484222325);
    assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63dc4c8601ec8c);
    assert_eq!(fnv1a(FNV_OFFSET, b"foobar"), 0x85944171f73967e8);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// Every single-bit flip and every truncation is rejected; arbitrary text never panics.
    #[test]
    fn tampering_is_detected(query: u64, position in proptest::collection::vec(any::<u8>(), 0..40),
                             bit in 0usize..1000, cut in 0usize..100, junk in ".{0,40}") {
        let c = Cursor { query, position };
        let bytes = c.to_bytes();
        let mut flipped = bytes.clone();
        let bit = bit % (bytes.len() * 8);
        flipped[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(Cursor::from_bytes(&flipped).is_err());
        let cut = cut % bytes.len();
        prop_assert!(Cursor::from_bytes(&bytes[..cut]).is_err());
        prop_assert_eq!(Cursor::from_bytes(&bytes).unwrap(), c);
        let _ = junk.parse::<Cursor>();
    }
}
