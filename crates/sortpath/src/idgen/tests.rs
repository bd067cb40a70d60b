use proptest::prelude::*;

use super::*;

fn zeros(buf: &mut [u8]) {
    buf.fill(0);
}

fn ones(buf: &mut [u8]) {
    buf.fill(0xFF);
}

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(crate::test_cases(100_000))
}

#[test]
fn ksuid_reference_vector() {
    let id: Ksuid = "0ujtsYcgvSTl8PAuAdqWYSMnLOv".parse().unwrap();
    let hex: String = id.as_bytes().iter().map(|b| format!("{b:02X}")).collect();
    assert_eq!(hex, "0669F7EFB5A1CD34B5F99D1154FB6853345C9735");
    assert_eq!(id.unix_seconds(), 1_507_608_047);
    assert_eq!(id.to_string(), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
}

#[test]
fn ksuid_extremes_and_errors() {
    assert_eq!(KSUID_MAX_TEXT.parse::<Ksuid>().unwrap(), Ksuid::MAX);
    assert_eq!(
        "000000000000000000000000000".parse::<Ksuid>().unwrap(),
        Ksuid::MIN
    );
    for above in [
        "aWgEPTl1tmebfsQzFP4bxwgy80W",
        "aWgEPTl1tmebfsQzFP4bxwgy810",
        "zzzzzzzzzzzzzzzzzzzzzzzzzzz",
    ] {
        assert_eq!(
            above.parse::<Ksuid>(),
            Err(IdParseError::Overflow {
                kind: "KSUID",
                max: KSUID_MAX_TEXT
            })
        );
    }
    let err = "0ujtsYcgvSTl8PAuAdqWYSMnL-v".parse::<Ksuid>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a base62 (0-9A-Za-z) digit at byte offset 25 of KSUID text, found byte 0x2D"
    );
    assert!(matches!(
        "é".repeat(13).parse::<Ksuid>(),
        Err(IdParseError::TextLength { found: 26, .. })
    ));
    assert!(Ksuid::try_from(&[0u8; 19][..]).is_err());
    assert!(Ksuid::from_unix_seconds(KSUID_EPOCH - 1, [0; 16]).is_err());
    assert!(Ksuid::from_unix_seconds(KSUID_EPOCH + i64::from(u32::MAX) + 1, [0; 16]).is_err());
    assert_eq!(
        Ksuid::from_unix_seconds(KSUID_EPOCH + i64::from(u32::MAX), [0xFF; 16]).unwrap(),
        Ksuid::MAX
    );
}

#[test]
fn ksuid_generator_strictly_increases_within_a_second_and_when_the_clock_steps_back() {
    let mut generator = KsuidGenerator::new();
    let mut last = generator.generate(1_600_000_000, &mut ones).unwrap();
    // All-FF payload cannot be incremented within its second.
    assert_eq!(
        generator.generate(1_600_000_000, &mut zeros),
        Err(GenerateError::Overflow {
            kind: "KSUID",
            unit: "second"
        })
    );
    last = {
        let next = generator.generate(1_600_000_001, &mut zeros).unwrap();
        assert!(next > last);
        next
    };
    for i in 0..10_000 {
        let seconds = if i % 3 == 0 {
            1_599_999_000
        } else {
            1_600_000_001
        };
        let next = generator.generate(seconds, &mut ones).unwrap();
        assert!(next > last, "{next} after {last}");
        assert!(next.to_string() > last.to_string());
        assert_eq!(next.unix_seconds(), 1_600_000_001);
        last = next;
    }
    let later = generator.generate(1_600_000_002, &mut zeros).unwrap();
    assert_eq!(
        later,
        Ksuid::from_unix_seconds(1_600_000_002, [0; 16]).unwrap()
    );
}

#[test]
fn ulid_reference_and_extremes() {
    let id: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!(id.timestamp_ms(), 1_469_922_850_259);
    assert_eq!(id, "01arz3ndektsv4rrffq69g5fav".parse().unwrap());
    assert_eq!(ULID_MAX_TEXT.parse::<Ulid>().unwrap(), Ulid::MAX);
    assert_eq!(
        "7zzzzzzzzzzzzzzzzzzzzzzzzz".parse::<Ulid>().unwrap(),
        Ulid::MAX
    );
    assert_eq!(Ulid::MAX.to_string(), ULID_MAX_TEXT);
    assert_eq!(Ulid::MIN.to_string(), "00000000000000000000000000");
    for above in ["80000000000000000000000000", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ"] {
        assert_eq!(
            above.parse::<Ulid>(),
            Err(IdParseError::Overflow {
                kind: "ULID",
                max: ULID_MAX_TEXT
            })
        );
    }
    for (bad, position) in [
        ("01ARZ3NDEKTSV4RRFFQ69G5FAI", 25),
        ("O1ARZ3NDEKTSV4RRFFQ69G5FAV", 0),
        ("01ARZ3NDEKTSV4RRFFQ69G5FUV", 24),
    ] {
        assert!(
            matches!(bad.parse::<Ulid>(), Err(IdParseError::Digit { position: p, .. }) if p == position),
            "{bad}"
        );
    }
    assert!("01ARZ3NDEKTSV4RRFFQ69G5FA".parse::<Ulid>().is_err());
    assert!(Ulid::from_parts(ULID_MAX_MILLIS + 1, 0).is_err());
    assert!(Ulid::from_parts(0, 1 << 80).is_err());
    assert_eq!(
        Ulid::from_parts(ULID_MAX_MILLIS, (1 << 80) - 1).unwrap(),
        Ulid::MAX
    );
}

#[test]
fn ulid_generator_monotonic_with_overflow_error() {
    let mut generator = UlidGenerator::new();
    let first = generator.generate(10, &mut |b: &mut [u8]| {
        b.fill(0xFF);
        b[b.len() - 1] = 0xFD;
    });
    let first = first.unwrap();
    let second = generator.generate(10, &mut zeros).unwrap();
    let third = generator.generate(9, &mut zeros).unwrap(); // clock stepped back
    assert_eq!(second.to_u128(), first.to_u128() + 1);
    assert_eq!(third.random(), (1 << 80) - 1);
    assert_eq!(third.timestamp_ms(), 10);
    assert_eq!(
        generator.generate(10, &mut zeros),
        Err(GenerateError::Overflow {
            kind: "ULID",
            unit: "millisecond"
        })
    );
    // The error leaves the generator usable in the next millisecond.
    let next = generator.generate(11, &mut zeros).unwrap();
    assert_eq!(next, Ulid::from_parts(11, 0).unwrap());
    let mut last = next;
    for _ in 0..10_000 {
        let id = generator.generate(11, &mut ones).unwrap();
        assert!(id > last && id.to_string() > last.to_string());
        last = id;
    }
    assert!(generator.generate(ULID_MAX_MILLIS + 1, &mut zeros).is_err());
}

#[cfg(feature = "uuid")]
#[test]
fn uuid7_generator_orders_within_a_millisecond_and_across_clock_steps() {
    let mut generator = Uuid7Generator::new();
    let mut last = generator.generate(1_700_000_000_000, &mut ones).unwrap();
    assert_eq!(last.get_version_num(), 7);
    assert_eq!(last.get_variant(), uuid::Variant::RFC4122);
    for i in 0..10_000u64 {
        let ms = 1_700_000_000_000 - (i % 5) * 1000; // same millisecond or earlier
        let id = generator.generate(ms, &mut ones).unwrap();
        assert!(id > last, "{id} after {last}");
        assert!(id.to_string() > last.to_string());
        assert_eq!(id.get_version_num(), 7);
        assert_eq!(id.get_variant(), uuid::Variant::RFC4122);
        assert_eq!(uuid7_timestamp_ms(id), Some(1_700_000_000_000));
        last = id;
    }
    let later = generator.generate(1_700_000_000_001, &mut zeros).unwrap();
    assert!(later > last);
    assert_eq!(
        later.as_u128() & !(0xFu128 << 76 | 0b11 << 62),
        1_700_000_000_001u128 << 80
    );
}

#[cfg(feature = "uuid")]
#[test]
fn uuid7_counter_exhaustion_borrows_the_next_millisecond() {
    // Generate at the last millisecond, then force the counter to its maximum by
    // seeding with all-ones and incrementing until the top bit region is full.
    let mut generator = Uuid7Generator::new();
    let start = generator.generate(UUID7_MAX_MILLIS - 1, &mut ones).unwrap();
    // Counter seeded with the top bit clear: 2^73 - 1.
    let v = start.as_u128();
    assert_eq!((v >> 64) & 0xFFF, 0x7FF);
    assert_eq!(v & ((1 << 62) - 1), (1 << 62) - 1);
    let exhausted = uuid::Uuid::from_u128(v | (0xFFF << 64));
    let mut forced = Uuid7Generator::starting_after(exhausted);
    let borrowed = forced.generate(UUID7_MAX_MILLIS - 1, &mut zeros).unwrap();
    assert_eq!(uuid7_timestamp_ms(borrowed), Some(UUID7_MAX_MILLIS));
    assert!(borrowed > exhausted);
    let mut at_end = Uuid7Generator::starting_after(uuid::Uuid::from_u128(
        (!(0xFu128 << 76 | 0b11 << 62)) | 0x7 << 76 | 0b10 << 62,
    ));
    assert_eq!(
        at_end.generate(0, &mut zeros),
        Err(GenerateError::Overflow {
            kind: "UUIDv7",
            unit: "millisecond"
        })
    );
    assert!(generator
        .generate(UUID7_MAX_MILLIS + 1, &mut zeros)
        .is_err());
}

#[test]
fn now_helpers_produce_increasing_ids() {
    let mut k = KsuidGenerator::new();
    let mut u = UlidGenerator::new();
    let (mut lk, mut lu) = (k.now().unwrap(), u.now().unwrap());
    for _ in 0..1000 {
        let (nk, nu) = (k.now().unwrap(), u.now().unwrap());
        assert!(nk > lk && nu > lu);
        (lk, lu) = (nk, nu);
    }
    assert_ne!(Ksuid::now().unwrap(), Ksuid::now().unwrap());
    assert_ne!(Ulid::now().unwrap(), Ulid::now().unwrap());
}

#[cfg(feature = "serde")]
#[test]
fn serde_text_and_bytes() {
    use serde::de::value::{BytesDeserializer, Error};
    use serde::Deserialize;
    let k: Ksuid = "0ujtsYcgvSTl8PAuAdqWYSMnLOv".parse().unwrap();
    assert_eq!(
        serde_json::to_string(&k).unwrap(),
        "\"0ujtsYcgvSTl8PAuAdqWYSMnLOv\""
    );
    assert_eq!(
        serde_json::from_str::<Ksuid>("\"0ujtsYcgvSTl8PAuAdqWYSMnLOv\"").unwrap(),
        k
    );
    assert_eq!(
        Ksuid::deserialize(BytesDeserializer::<Error>::new(k.as_bytes())).unwrap(),
        k
    );
    assert!(Ksuid::deserialize(BytesDeserializer::<Error>::new(&[1, 2])).is_err());
    let u: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!(
        serde_json::to_string(&u).unwrap(),
        "\"01ARZ3NDEKTSV4RRFFQ69G5FAV\""
    );
    assert_eq!(
        serde_json::from_str::<Ulid>("\"01arz3ndektsv4rrffq69g5fav\"").unwrap(),
        u
    );
    assert_eq!(
        Ulid::deserialize(BytesDeserializer::<Error>::new(&u.to_bytes())).unwrap(),
        u
    );
}

fn edge_bytes<const N: usize>() -> impl Strategy<Value = [u8; N]> {
    prop_oneof![
        Just([0u8; N]),
        Just([0xFFu8; N]),
        Just({
            let mut a = [0u8; N];
            a[N - 1] = 1;
            a
        }),
        prop::array::uniform(prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()]),
    ]
}

/// A UUID whose version nibble and variant bits are set from `vv` (4 + 2 bits), the rest
/// from `bits`: every version and variant, near the 7 / `0b10` that the generator writes.
#[cfg(feature = "uuid")]
fn any_version_uuid(bits: [u8; 16], vv: u8) -> uuid::Uuid {
    let v = u128::from_be_bytes(bits) & !(0xF << 76 | 0b11 << 62);
    uuid::Uuid::from_u128(v | u128::from(vv >> 2 & 0xF) << 76 | u128::from(vv & 0b11) << 62)
}

#[cfg(feature = "uuid")]
proptest! {
    #![proptest_config(config())]

    /// Whatever UUID a generator starts after, and whatever the clock says, it produces an
    /// ID after it, or an overflow error only when nothing after it fits.
    #[test]
    fn uuid7_starting_after_any_uuid_goes_after_it(
        bits in edge_bytes::<16>(),
        vv in prop_oneof![
            // (version << 2) | variant: 7/0b10 (ours), 7/0b11, 7/0b01, 8/0b10, 6/0b10, any.
            Just(7u8 << 2 | 2), Just(7 << 2 | 3), Just(7 << 2 | 1), Just(8 << 2 | 2), Just(6 << 2 | 2), 0u8..64
        ],
        behind in 0u64..3,
        random in any::<u8>(),
    ) {
        let last = any_version_uuid(bits, vv);
        let last_ms = (last.as_u128() >> 80) as u64;
        let mut generator = Uuid7Generator::starting_after(last);
        match generator.generate(last_ms.saturating_sub(behind), &mut |b: &mut [u8]| b.fill(random)) {
            Ok(id) => {
                prop_assert!(id > last, "{} after {}", id, last);
                prop_assert_eq!(id.get_version_num(), 7);
                prop_assert_eq!(id.as_u128() >> 62 & 0b11, 0b10);
            }
            Err(e) => {
                prop_assert_eq!(last_ms, UUID7_MAX_MILLIS, "{}", e);
                // Then no UUIDv7 of the last millisecond is after it.
                let top = uuid::Uuid::from_u128(!(0x8 << 76) & !(0b01 << 62));
                prop_assert!(top <= last, "{} is after {}", top, last);
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ksuid_text_bytes_and_ord_agree(a in edge_bytes::<20>(), b in edge_bytes::<20>()) {
        let (ka, kb) = (Ksuid::from_bytes(a), Ksuid::from_bytes(b));
        let (ta, tb) = (ka.to_string(), kb.to_string());
        prop_assert_eq!(ta.len(), KSUID_TEXT_LEN);
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
        prop_assert_eq!(ta.parse::<Ksuid>().unwrap(), ka);
        prop_assert_eq!(Ksuid::try_from(&a[..]).unwrap(), ka);
    }

    #[test]
    fn ulid_text_bytes_and_ord_agree(a in edge_bytes::<16>(), b in edge_bytes::<16>()) {
        let (ua, ub) = (Ulid::from_bytes(a), Ulid::from_bytes(b));
        let (ta, tb) = (ua.to_string(), ub.to_string());
        prop_assert_eq!(ua.cmp(&ub), a.cmp(&b));
        prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
        prop_assert_eq!(ta.parse::<Ulid>().unwrap(), ua);
        prop_assert_eq!(ta.to_lowercase().parse::<Ulid>().unwrap(), ua);
        prop_assert_eq!(Ulid::try_from(&a[..]).unwrap().to_bytes(), a);
    }

    #[test]
    fn parsers_never_panic(text in ".{0,40}", bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        let _ = text.parse::<Ksuid>();
        let _ = text.parse::<Ulid>();
        let _ = Ksuid::try_from(&bytes[..]);
        let _ = Ulid::try_from(&bytes[..]);
        if let Ok(s) = std::str::from_utf8(&bytes) {
            if let Ok(k) = s.parse::<Ksuid>() { prop_assert_eq!(k.to_string(), s); }
            if let Ok(u) = s.parse::<Ulid>() { prop_assert_eq!(u.to_string(), s.to_ascii_uppercase()); }
        }
    }

    #[test]
    fn ksuid_text_above_max_is_rejected(digits in prop::collection::vec(0usize..62, 27)) {
        let text: String = digits.iter().map(|&d| char::from(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[d])).collect();
        match text.parse::<Ksuid>() {
            Ok(k) => { prop_assert!(text.as_str() <= KSUID_MAX_TEXT); prop_assert_eq!(k.to_string(), text); }
            Err(e) => { prop_assert!(text.as_str() > KSUID_MAX_TEXT); let overflow = matches!(e, IdParseError::Overflow { .. }); prop_assert!(overflow); }
        }
    }
}
