use super::*;
use proptest::prelude::*;

fn sample() -> Envelope {
    Envelope {
        item_type: "ticket".into(),
        indexes: vec![("by_updated".into(), "/all-1/updated-5".parse().unwrap())],
        payload: vec![0x81, 0xa1, b'a', 0x01],
    }
}

#[test]
fn round_trip_and_layout() {
    let mut out = Vec::new();
    sample().encode_into(&mut out);
    assert_eq!(
        &out[..8],
        [ENVELOPE_FORMAT, 6, b't', b'i', b'c', b'k', b'e', b't']
    );
    assert_eq!(out[8], 1);
    assert_eq!(Envelope::decode(&out).unwrap(), sample());
}

#[test]
fn errors_name_the_offset() {
    let err = Envelope::decode(&[0x07]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stored item is corrupt at byte 0: expected envelope format 01, found 07"
    );
    let err = Envelope::decode(&[0x01, 5, b'a']).unwrap_err();
    assert_eq!(err.offset, 2);
    assert_eq!(err.expected, "item type name");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// Arbitrary bytes never panic, and every prefix of a valid envelope either fails or
    /// decodes to a shorter payload.
    #[test]
    fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), cut in 0usize..40) {
        let _ = Envelope::decode(&bytes);
        let mut out = Vec::new();
        sample().encode_into(&mut out);
        let cut = cut.min(out.len());
        if let Ok(e) = Envelope::decode(&out[..cut]) {
            prop_assert_eq!(&e.indexes, &sample().indexes);
            prop_assert!(sample().payload.starts_with(&e.payload));
        }
    }
}
