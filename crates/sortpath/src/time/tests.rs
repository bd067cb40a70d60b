use proptest::prelude::*;

use super::*;
use crate::Order;

const PRECISIONS: [Precision; 3] = [Precision::Seconds, Precision::Millis, Precision::Nanos];
const DIRECTIONS: [Order; 2] = [Order::Ascending, Order::Descending];

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(crate::test_cases(100_000))
}

fn timestamps() -> impl Strategy<Value = Timestamp> {
    let secs = prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0i64),
        Just(-1i64),
        Just(1i64),
        -300_000_000_000i64..300_000_000_000,
        -5_000_000_000i64..5_000_000_000,
        any::<i64>(),
    ];
    let nanos = prop_oneof![
        Just(0u32),
        Just(NANOS_PER_SECOND - 1),
        Just(500_000_000),
        0..NANOS_PER_SECOND
    ];
    (secs, nanos).prop_map(|(s, n)| Timestamp::new(s, n).unwrap())
}

/// Timestamps in years 0000..=9999, where the text form is fixed-width.
fn four_digit_year_timestamps() -> impl Strategy<Value = Timestamp> {
    (-62_167_219_200i64..253_402_300_800, 0..NANOS_PER_SECOND)
        .prop_map(|(s, n)| Timestamp::new(s, n).unwrap())
}

#[test]
fn known_instants() {
    let moon: Timestamp = "1969-07-20T20:17:40Z".parse().unwrap();
    assert_eq!(moon.unix_seconds(), -14_182_940);
    assert_eq!(
        "0000-01-01T00:00:00Z"
            .parse::<Timestamp>()
            .unwrap()
            .unix_seconds(),
        -62_167_219_200
    );
    assert_eq!(
        "9999-12-31T23:59:59.999999999Z"
            .parse::<Timestamp>()
            .unwrap()
            .unix_seconds(),
        253_402_300_799
    );
    assert_eq!(
        "2000-02-29T12:00:00.5Z".parse::<Timestamp>().unwrap(),
        Timestamp::new(951_825_600, 500_000_000).unwrap()
    );
    assert_eq!(
        Timestamp::from_unix_seconds(253_402_300_800).to_string(),
        "+010000-01-01T00:00:00.000000000Z"
    );
    assert_eq!(
        Timestamp::from_unix_seconds(-62_167_219_201).to_string(),
        "-000001-12-31T23:59:59.000000000Z"
    );
    assert_eq!(
        Timestamp::MIN.to_string().parse::<Timestamp>().unwrap(),
        Timestamp::MIN
    );
    assert_eq!(
        Timestamp::MAX.to_string().parse::<Timestamp>().unwrap(),
        Timestamp::MAX
    );
}

#[test]
fn text_errors_say_where() {
    let cases = [
        ("2024-13-01T00:00:00Z", 5, "a month 01..=12"),
        ("2023-02-29T00:00:00Z", 8, "a day 01..=28"),
        ("2024-01-01T24:00:00Z", 11, "an hour 00..=23"),
        ("2024-01-01T00:00:60Z", 17, "a second 00..=59"),
        ("2024-01-01T00:00:00", 19, "'Z'"),
        ("2024-01-01T00:00:00+01:00", 19, "'Z'"),
        ("2024-01-01T00:00:00.Z", 20, "1 to 9 fraction digits"),
        (
            "2024-01-01T00:00:00.1234567890Z",
            20,
            "1 to 9 fraction digits",
        ),
        ("2024-01-01T00:00:00ZZ", 20, "the end of the timestamp"),
        ("24-01-01T00:00:00Z", 0, "4 digits of a year"),
        ("", 0, "4 digits of a year"),
    ];
    for (text, position, expected) in cases {
        let err = text.parse::<Timestamp>().unwrap_err();
        assert_eq!(
            (err.position, err.expected.as_str()),
            (position, expected),
            "{text}"
        );
    }
}

#[test]
fn key_vectors() {
    let k = |t: Timestamp, p| t.encode(p, Order::Ascending);
    assert_eq!(k(Timestamp::UNIX_EPOCH, Precision::Seconds), [0x07, 0xFF]);
    assert_eq!(
        k(
            Timestamp::from_unix_seconds(1_700_000_000),
            Precision::Seconds
        ),
        [0x0B, 0x65, 0x53, 0xF1, 0x00]
    );
    assert_eq!(
        k(Timestamp::from_unix_millis(-1), Precision::Millis),
        [0x07, 0xFE, 0x03, 0xE7]
    );
    assert_eq!(
        k(Timestamp::new(0, 1).unwrap(), Precision::Nanos),
        [0x07, 0xFF, 0, 0, 0, 1]
    );
    assert_eq!(
        k(Timestamp::MIN, Precision::Seconds),
        [0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    assert_eq!(
        Timestamp::MAX
            .encode(Precision::Nanos, Order::Ascending)
            .len(),
        TIME_KEY_MAX_LEN
    );
}

#[test]
fn key_decode_errors() {
    let d = |b: &[u8], p| Timestamp::decode_prefix(b, p, Order::Ascending);
    assert_eq!(
        d(&[], Precision::Seconds),
        Err(TimeKeyError::Seconds(crate::IntDecodeError::Empty))
    );
    assert_eq!(
        d(
            &[0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            Precision::Seconds
        ),
        Err(TimeKeyError::SecondsOutOfRange(u64::MAX as i128))
    );
    assert_eq!(
        d(&[0x07, 0xFF, 0x03, 0xE8], Precision::Millis),
        Err(TimeKeyError::Fraction {
            max: 999,
            position: 2,
            found: 1000
        })
    );
    assert_eq!(
        d(&[0x07, 0xFF, 0, 0, 0], Precision::Nanos),
        Err(TimeKeyError::Truncated {
            needed: 6,
            found: 5
        })
    );
}

#[test]
fn system_time_round_trip() {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let before = UNIX_EPOCH - Duration::new(86_400 * 365 * 100, 123);
    let t = Timestamp::try_from(before).unwrap();
    assert_eq!(
        t.unix_nanos(),
        -(86_400i128 * 365 * 100 * 1_000_000_000 + 123)
    );
    assert_eq!(SystemTime::try_from(t).unwrap(), before);
    let now = Timestamp::now();
    assert!(now > Timestamp::from_unix_seconds(1_700_000_000));
}

#[cfg(feature = "serde")]
#[test]
fn serde_text_and_bytes() {
    use serde::de::value::{BytesDeserializer, Error};
    use serde::Deserialize;
    let t = Timestamp::from_unix_millis(-1500);
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        "\"1969-12-31T23:59:58.500000000Z\""
    );
    assert_eq!(
        serde_json::from_str::<Timestamp>("\"1969-12-31T23:59:58.5Z\"").unwrap(),
        t
    );
    let key = t.encode(Precision::Nanos, Order::Ascending);
    assert_eq!(
        Timestamp::deserialize(BytesDeserializer::<Error>::new(&key)).unwrap(),
        t
    );
    let mut long = key.clone();
    long.push(0);
    assert!(Timestamp::deserialize(BytesDeserializer::<Error>::new(&long)).is_err());
    let lf = LatestFirst(t);
    assert_eq!(
        LatestFirst::deserialize(BytesDeserializer::<Error>::new(&lf.encode())).unwrap(),
        lf
    );
    assert_eq!(
        serde_json::from_str::<LatestFirst>(&serde_json::to_string(&lf).unwrap()).unwrap(),
        lf
    );
}

#[cfg(feature = "chrono")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    #[test]
    fn text_matches_chrono(t in four_digit_year_timestamps()) {
        let dt = chrono::DateTime::<chrono::Utc>::try_from(t).unwrap();
        prop_assert_eq!(t.to_string(), dt.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true));
        prop_assert_eq!(Timestamp::from(dt), t);
    }
}

#[cfg(feature = "time")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    #[test]
    fn converts_like_time_crate(t in four_digit_year_timestamps()) {
        let odt = ::time::OffsetDateTime::try_from(t).unwrap();
        prop_assert_eq!(odt.unix_timestamp_nanos(), t.unix_nanos());
        prop_assert_eq!(Timestamp::from(odt), t);
        prop_assert_eq!((odt.year() as i64, odt.month() as u8), {
            let s = t.to_string();
            (s[..4].parse::<i64>().unwrap(), s[5..7].parse::<u8>().unwrap())
        });
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn key_order_matches_time_order(a in timestamps(), b in timestamps()) {
        for p in PRECISIONS {
            let (ta, tb) = (a.truncate(p), b.truncate(p));
            for d in DIRECTIONS {
                let (ka, kb) = (a.encode(p, d), b.encode(p, d));
                let expected = if d == Order::Ascending { ta.cmp(&tb) } else { tb.cmp(&ta) };
                prop_assert_eq!(ka.cmp(&kb), expected, "{:?} {:?} {} {}", p, d, a, b);
                prop_assert_eq!(Timestamp::decode_prefix(&ka, p, d), Ok((ta, ka.len())));
            }
        }
        prop_assert_eq!(LatestFirst(a).cmp(&LatestFirst(b)), LatestFirst(a).encode().cmp(&LatestFirst(b).encode()));
    }

    #[test]
    fn text_round_trips(t in timestamps()) {
        prop_assert_eq!(t.to_string().parse::<Timestamp>(), Ok(t));
        prop_assert_eq!(Timestamp::from_unix_nanos(t.unix_nanos()), Ok(t));
    }

    #[test]
    fn text_order_matches_time_order_in_four_digit_years(a in four_digit_year_timestamps(), b in four_digit_year_timestamps()) {
        prop_assert_eq!(a.to_string().cmp(&b.to_string()), a.cmp(&b));
    }

    #[test]
    fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..16), text in "[-+0-9TZ:.]{0,32}") {
        for p in PRECISIONS {
            for d in DIRECTIONS {
                if let Ok((t, used)) = Timestamp::decode_prefix(&bytes, p, d) {
                    prop_assert_eq!(t.encode(p, d), bytes[..used].to_vec());
                }
            }
        }
        if let Ok(t) = text.parse::<Timestamp>() {
            prop_assert_eq!(t.to_string().parse::<Timestamp>(), Ok(t));
        }
    }
}

#[test]
fn parse_errors_show_a_non_ascii_character_whole() {
    let err = "2024-01-05T10:00:00é".parse::<Timestamp>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected 'Z' at byte offset 19, found \"é\""
    );
    let err = "2024-0é-05T10:00:00Z".parse::<Timestamp>().unwrap_err();
    assert!(err.to_string().contains("found \"0é\""), "{err}");
    let err = "2024-01-05T10:00:0".parse::<Timestamp>().unwrap_err();
    assert!(err.to_string().ends_with("found \"0\""), "{err}");
}
