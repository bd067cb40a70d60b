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

/// An envelope with `n` index keys (of growing names and paths) and `payload`.
fn with_indexes(n: usize, payload: &[u8]) -> Vec<u8> {
    let envelope = Envelope {
        item_type: "t".repeat(n * 3),
        indexes: (0..n)
            .map(|i| {
                let path = format!("/all-{i}/updated-{}", i * 1000);
                (format!("by_{}", "x".repeat(i * 40)), path.parse().unwrap())
            })
            .collect(),
        payload: payload.to_vec(),
    };
    let mut out = Vec::new();
    envelope.encode_into(&mut out);
    out
}

#[test]
fn frame_item_takes_the_short_way_on_sound_envelopes() {
    for n in 0..4 {
        let bytes = with_indexes(n, &[0x93, 1, 2, 3]);
        let (item_type, payload_start) = Header::frame_fast(&bytes).unwrap();
        assert_eq!(item_type.bytes, "t".repeat(n * 3).as_bytes());
        assert_eq!(item_type.at, 2);
        assert_eq!(&bytes[payload_start..], [0x93, 1, 2, 3]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// `frame_item` gives what `frame` gives, value or error, on envelopes with up to three
    /// index keys, cut short, with a byte changed, and on arbitrary bytes.
    #[test]
    fn frame_item_agrees_with_frame(
        n in 0usize..4,
        payload in proptest::collection::vec(any::<u8>(), 0..8),
        cut in any::<proptest::sample::Index>(),
        change in proptest::option::of((any::<proptest::sample::Index>(), any::<u8>())),
        arbitrary in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        let mut bytes = with_indexes(n, &payload);
        if let Some((at, b)) = change {
            let at = at.index(bytes.len());
            bytes[at] = b;
        }
        let cut = cut.index(bytes.len() + 1);
        for bytes in [&bytes[..], &bytes[..cut], &arbitrary[..]] {
            let fast = Header::frame_item(bytes).map(|(t, at)| (t.bytes, t.at, at));
            let slow = Header::frame(bytes, |_, _, _| {}).map(|(t, at)| (t.bytes, t.at, at));
            prop_assert_eq!(fast, slow);
        }
    }
}
