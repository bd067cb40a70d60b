//! Property tests over random schemas with random `Desc` wrapping.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::model::{
    decode, encode, model_cmp, schema, schema_and_two_values, value, Schema, Value,
};
use crate::codec::{from_slice, int64, prefix_range, to_vec, Desc};
use crate::I65;

pub(super) fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(crate::test_cases(100_000)))]

    /// The main property: byte order is the model order, and every value round-trips.
    #[test]
    fn byte_order_is_value_order_and_round_trips((s, a, b) in schema_and_two_values()) {
        let (ea, eb) = (encode(&s, &a), encode(&s, &b));
        prop_assert_eq!(ea.cmp(&eb), model_cmp(&s, &a, &b), "schema {:?}: {:02x?} vs {:02x?}", s, ea, eb);
        prop_assert_eq!(decode(&s, &ea).unwrap(), a);
        prop_assert_eq!(decode(&s, &eb).unwrap(), b);
    }
}

proptest! {
    #![proptest_config(config(crate::test_cases(20_000)))]

    /// Keys built from (a, b) under a random second field: the first field's order is
    /// decided inside its own bytes, whatever follows (prefix-freeness under `Desc`).
    #[test]
    fn fields_are_settled_inside_their_bytes(
        (s, a, b) in schema_and_two_values(),
        tail in prop::collection::vec(any::<u8>(), 0..4),
        tail2 in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let mut ea = encode(&s, &a);
        let mut eb = encode(&s, &b);
        let expected = model_cmp(&s, &a, &b);
        if expected != std::cmp::Ordering::Equal {
            ea.extend(&tail);
            eb.extend(&tail2);
            prop_assert_eq!(ea.cmp(&eb), expected);
        }
    }

    /// Arbitrary bytes and damaged encodings never panic; whatever decodes re-encodes to
    /// the same bytes (the decoder accepts only canonical encodings).
    #[test]
    fn decoding_damaged_bytes_is_safe_and_canonical(
        (s, a) in schema().prop_flat_map(|s| { let v = value(&s); (Just(s), v) }),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        xor in 1u8..=255,
        noise in prop::collection::vec(any::<u8>(), 0..24),
    ) {
        let good = encode(&s, &a);
        let mut damaged = good.clone();
        if !damaged.is_empty() {
            damaged[flip.index(good.len())] ^= xor;
        }
        let truncated = &good[..cut.index(good.len() + 1)];
        for bytes in [&damaged[..], truncated, &noise[..]] {
            if let Ok(v) = decode(&s, bytes) {
                prop_assert_eq!(encode(&s, &v), bytes.to_vec());
            }
        }
    }

    /// `prefix_range` of the first field holds exactly the keys whose first field is equal.
    #[test]
    fn prefix_range_is_exact(
        keys in prop::collection::vec((value(&Schema::Str), any::<i8>(), any::<bool>(), any::<u16>()), 1..40),
        pick in any::<prop::sample::Index>(),
        desc in any::<bool>(),
    ) {
        let str_of = |v: &Value| match v { Value::Str(s) => s.clone(), _ => unreachable!() };
        let mut map = BTreeMap::new();
        for (s, i, d, n) in &keys {
            let bytes = if desc { to_vec(&(str_of(s), Desc(*i), d, n)) } else { to_vec(&(str_of(s), *i, d, n)) };
            map.insert(bytes.unwrap(), (str_of(s), *i));
        }
        let (probe, probe_i) = { let k = &keys[pick.index(keys.len())]; (str_of(&k.0), k.1) };
        // One field of prefix, then two.
        let range = prefix_range(&(&probe,)).unwrap();
        let found: Vec<_> = map.range(range.clone()).map(|(_, v)| v.clone()).collect();
        let expected: Vec<_> = map.values().filter(|(s, _)| *s == probe).cloned().collect();
        prop_assert_eq!(found, expected);
        for key in map.keys() {
            prop_assert_eq!(range.contains(key), key.starts_with(range.start()));
        }
        let range = if desc { prefix_range(&(&probe, Desc(probe_i))) } else { prefix_range(&(&probe, probe_i)) }.unwrap();
        let found: Vec<_> = map.range(range).map(|(_, v)| v.clone()).collect();
        let expected: Vec<_> = map.values().filter(|(s, i)| *s == probe && *i == probe_i).cloned().collect();
        prop_assert_eq!(found, expected);
    }

    /// Static types: a derived struct with a `Desc` string orders like its derived `Ord`.
    #[test]
    fn derived_struct_order(a in key(), b in key()) {
        let (ea, eb) = (to_vec(&a).unwrap(), to_vec(&b).unwrap());
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(from_slice::<Key>(&ea).unwrap(), a);
    }

    /// The codec's inlined sort-byte integer code agrees with `I65`, the specification.
    #[test]
    fn int64_agrees_with_i65(
        negative in any::<bool>(),
        magnitude in prop_oneof![any::<u64>(), 0u64..300],
        first in 0u8..=0x11,
        rest in prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], 0..10),
        descending in any::<bool>(),
    ) {
        let v = I65::from_sign_magnitude(negative, magnitude);
        for capacity in [0, 64] {
            let mut out = Vec::with_capacity(capacity);
            out.push(0xAB);
            int64::encode_into(&mut out, negative, magnitude);
            prop_assert_eq!(&out[1..], &v.encode()[..]);
        }
        if !negative {
            // The unsigned writer's sort byte and used magnitude bytes are the same.
            let (sort, word, k) = int64::encode_unsigned(magnitude);
            let mut bytes = vec![sort];
            bytes.extend_from_slice(&word[..k]);
            prop_assert_eq!(&bytes[..], &v.encode()[..]);
            // The word's bytes past the magnitude are zero (the window encoder relies on it).
            prop_assert!(word[k..].iter().all(|&b| b == 0));
        }
        let plain: Vec<u8> = std::iter::once(first).chain(rest).collect();
        let mask = if descending { 0xFF } else { 0x00 };
        let masked: Vec<u8> = plain.iter().map(|b| b ^ mask).collect();
        let expected = I65::decode_prefix(&plain).ok().map(|(v, used)| (v.is_negative(), v.magnitude(), used));
        prop_assert_eq!(int64::decode(&masked, mask).ok(), expected);
    }

    /// `to_vec_into` appends after existing bytes and keeps them.
    #[test]
    fn encode_into_appends(head in prop::collection::vec(any::<u8>(), 0..8), k in key()) {
        let mut out = head.clone();
        crate::codec::to_vec_into(&k, &mut out).unwrap();
        prop_assert_eq!(&out[..head.len()], &head[..]);
        prop_assert_eq!(&out[head.len()..], &to_vec(&k).unwrap()[..]);
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
enum Kind {
    Post,
    Comment(u32),
    React { emoji: char, count: Desc<i64> },
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
struct Key {
    tenant: u64,
    name: Desc<String>,
    kind: Option<Kind>,
    tags: Vec<(String, Desc<Option<i16>>)>,
    id: [u8; 3],
}

fn key() -> impl Strategy<Value = Key> {
    let s = || {
        prop::sample::select(vec!["", "a", "a\0", "a\u{1}", "ab", "\u{FFFF}"])
            .prop_map(String::from)
    };
    let kind = prop_oneof![
        Just(Kind::Post),
        any::<u32>().prop_map(Kind::Comment),
        (any::<char>(), any::<i64>()).prop_map(|(emoji, c)| Kind::React {
            emoji,
            count: Desc(c)
        }),
    ];
    (
        0u64..3,
        s(),
        prop::option::of(kind),
        prop::collection::vec((s(), prop::option::of(any::<i16>()).prop_map(Desc)), 0..3),
        any::<[u8; 3]>(),
    )
        .prop_map(|(tenant, name, kind, tags, id)| Key {
            tenant,
            name: Desc(name),
            kind,
            tags,
            id,
        })
}

/// `u8` fields mixed with other fields at every alignment: a lone byte, arrays shorter and
/// longer than a word, a descending array, bytes in a nested tuple, an `i8` (one byte, not
/// a `u8`) and a `bool`; with a string of up to 48 bytes the key crosses the 64-byte
/// window, so both writers run.
type Bytes = (
    u8,
    [u8; 9],
    String,
    u8,
    Desc<[u8; 3]>,
    (u8, u8),
    i8,
    bool,
    u16,
    [u8; 17],
);

proptest! {
    #![proptest_config(config(crate::test_cases(20_000)))]

    /// Byte fields take one raw byte each, in field order (the spec), and round-trip.
    #[test]
    fn byte_fields_are_raw_bytes_in_order(
        v in (any::<u8>(), any::<[u8; 9]>(), "[a-z\u{0}\u{1}]{0,48}", any::<u8>(),
            any::<[u8; 3]>(), any::<(u8, u8)>(), any::<i8>(), any::<bool>(), any::<u16>(),
            any::<[u8; 17]>()),
        head in prop::collection::vec(any::<u8>(), 0..3),
    ) {
        let (a, b, s, c, d, e, i, t, f, g) = v;
        let key: Bytes = (a, b, s.clone(), c, Desc(d), e, i, t, f, g);
        let mut expected = vec![a];
        expected.extend_from_slice(&b);
        expected.extend(to_vec(&s).unwrap());
        expected.push(c);
        expected.extend(d.iter().map(|x| !x));
        expected.extend([e.0, e.1]);
        expected.extend(to_vec(&i).unwrap());
        expected.extend(to_vec(&t).unwrap());
        expected.extend(to_vec(&f).unwrap());
        expected.extend_from_slice(&g);
        let encoded = to_vec(&key).unwrap();
        prop_assert_eq!(&encoded, &expected);
        // Appending after existing bytes, with less spare capacity than the window.
        let mut out = head.clone();
        crate::codec::to_vec_into(&key, &mut out).unwrap();
        prop_assert_eq!(&out[head.len()..], &expected[..]);
        prop_assert_eq!(from_slice::<Bytes>(&encoded).unwrap(), key);
    }
}

/// The typed helpers for UUIDs and the three time crates' instants.
#[cfg(all(
    feature = "jiff",
    feature = "time",
    feature = "chrono",
    feature = "uuid"
))]
mod typed {
    use super::*;

    /// A key of the typed helper fields: a UUID anywhere, and instants of the three time crates.
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug, Clone)]
    struct Typed(
        #[serde(with = "crate::codec::jiff_timestamp")] jiff::Timestamp,
        Option<crate::codec::raw_uuid::RawUuid>,
        #[serde(with = "crate::codec::time_utc")] time::OffsetDateTime,
        #[serde(with = "crate::codec::chrono_utc")] chrono::DateTime<chrono::Utc>,
    );

    /// Nanoseconds since the epoch within the range all three time crates hold, weighted to
    /// the edges (the epoch, whole seconds, the limits).
    fn instant_nanos() -> impl Strategy<Value = i128> {
        const LO: i128 = -62_135_596_800_000_000_000; // 0001-01-01
        const HI: i128 = 253_402_207_199_999_999_999; // inside jiff's last day
        prop_oneof![
            LO..=HI,
            (-3i128..=3).prop_map(|s| s * 1_000_000_000),
            -2_000_000_000i128..=2_000_000_000,
            prop::sample::select(vec![LO, HI, -1, 0, 1]),
        ]
    }

    fn typed() -> impl Strategy<Value = Typed> {
        (
            instant_nanos(),
            prop::option::of(any::<u128>()),
            instant_nanos(),
            instant_nanos(),
            -12i8..=12,
        )
            .prop_map(|(j, id, t, c, hours)| {
                let offset = time::UtcOffset::from_hms(hours, 0, 0).unwrap();
                let (secs, nanos) = (c.div_euclid(1_000_000_000), c.rem_euclid(1_000_000_000));
                Typed(
                    jiff::Timestamp::from_nanosecond(j).unwrap(),
                    id.map(|v| crate::codec::raw_uuid::RawUuid(uuid::Uuid::from_u128(v))),
                    time::OffsetDateTime::from_unix_timestamp_nanos(t)
                        .unwrap()
                        .to_offset(offset),
                    chrono::DateTime::from_timestamp(secs as i64, nanos as u32).unwrap(),
                )
            })
    }

    proptest! {
        #![proptest_config(config(crate::test_cases(20_000)))]

        /// The typed helpers: bytes order like the values (instants by time, whatever the
        /// offset; UUIDs by their bytes, 16 of them), and every value round-trips (a
        /// `time` value comes back in UTC, the same instant).
        #[test]
        fn typed_helpers_order_and_round_trip(a in typed(), b in typed()) {
            let (ea, eb) = (to_vec(&a).unwrap(), to_vec(&b).unwrap());
            let order = a.0.cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3));
            prop_assert_eq!(ea.cmp(&eb), order);
            prop_assert_eq!(from_slice::<Typed>(&ea).unwrap(), a.clone());
            let back = from_slice::<Typed>(&ea).unwrap();
            prop_assert_eq!(back.2.offset(), time::UtcOffset::UTC);
            // The UUID after the jiff field: a tag byte, then its 16 bytes as they are.
            #[derive(serde::Serialize)]
            struct J(#[serde(with = "crate::codec::jiff_timestamp")] jiff::Timestamp);
            let at = to_vec(&J(a.0)).unwrap().len();
            match a.1 {
                Some(id) => {
                    prop_assert_eq!(ea[at], 0x01);
                    prop_assert_eq!(&ea[at + 1..at + 17], id.0.as_bytes());
                }
                None => prop_assert_eq!(ea[at], 0x00),
            }
        }
    }
}
