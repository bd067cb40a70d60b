//! The lean reader against rmp-serde: on what rmp-serde writes it answers, with rmp-serde's
//! value; on anything else (mutated encodings, truncations, arbitrary bytes, the wrong
//! type) whatever it answers is rmp-serde's answer too, and it never panics.

use super::{from_slice, Declined, MAX_DEPTH};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Unit;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Newtype(u32);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inner {
    a: i16,
    b: Option<String>,
}

/// A byte string: written with `serialize_bytes` (MessagePack `bin`), read from `bin` or
/// from a sequence of bytes.
#[derive(Debug, Clone, PartialEq)]
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Bytes, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Bytes(out))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// Every kind of value the reader answers for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Wide {
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    f32_: f32,
    f64_: f64,
    flag: bool,
    ch: char,
    text: String,
    bytes: Bytes,
    list_of_bytes: Vec<u8>,
    opt: Option<u64>,
    nested: Option<Option<u8>>,
    inners: Vec<Inner>,
    map: BTreeMap<String, i64>,
    tuple: (u8, String),
    unit: Unit,
    newtype: Newtype,
    empty: (),
}

/// What the reader leaves to rmp-serde: enums, 128-bit integers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Kind {
    A,
    B(u8),
    C { x: i32 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct WithDeclined {
    id: u64,
    kind: Kind,
    big: i128,
}

fn any_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("\0\u{1}\u{10}\u{ff}é😀".to_owned()),
        ".{0,40}",
        // Past the fixstr length (31) and str8's (255).
        "[a-z]{30,300}",
    ]
}

fn any_inner() -> impl Strategy<Value = Inner> {
    (any::<i16>(), proptest::option::of(any_string())).prop_map(|(a, b)| Inner { a, b })
}

fn any_wide() -> impl Strategy<Value = Wide> {
    let ints = (
        any::<u8>(),
        any::<u16>(),
        any::<u32>(),
        prop_oneof![
            Just(0u64),
            Just(127),
            Just(128),
            Just(u64::MAX),
            any::<u64>()
        ],
        any::<i8>(),
        any::<i16>(),
        any::<i32>(),
        prop_oneof![
            Just(i64::MIN),
            Just(-33),
            Just(-32),
            Just(-1),
            Just(i64::MAX),
            any::<i64>()
        ],
    );
    let rest = (
        (
            any::<f32>(),
            any::<f64>(),
            any::<bool>(),
            any::<char>(),
            any_string(),
        ),
        (
            proptest::collection::vec(any::<u8>(), 0..300),
            proptest::collection::vec(any::<u8>(), 0..20),
            proptest::option::of(any::<u64>()),
            proptest::option::of(proptest::option::of(any::<u8>())),
        ),
        (
            proptest::collection::vec(any_inner(), 0..20),
            proptest::collection::btree_map(any_string(), any::<i64>(), 0..20),
            (any::<u8>(), any_string()),
            any::<u32>(),
        ),
    );
    (ints, rest).prop_map(
        |(
            (u8_, u16_, u32_, u64_, i8_, i16_, i32_, i64_),
            (
                (f32_, f64_, flag, ch, text),
                (bytes, list_of_bytes, opt, nested),
                (inners, map, tuple, newtype),
            ),
        )| Wide {
            u8_,
            u16_,
            u32_,
            u64_,
            i8_,
            i16_,
            i32_,
            i64_,
            f32_,
            f64_,
            flag,
            ch,
            text,
            bytes: Bytes(bytes),
            list_of_bytes,
            opt,
            nested,
            inners,
            map,
            tuple,
            unit: Unit,
            newtype: Newtype(newtype),
            empty: (),
        },
    )
}

/// A value as rmp-serde writes it again: equal encodings are equal values (NaN included).
fn encoded<T: Serialize>(value: &T) -> Vec<u8> {
    rmp_serde::to_vec(value).unwrap()
}

/// Whatever the reader answers for `bytes` as a `T`, rmp-serde answers the same; returns
/// whether the reader answered.
fn agrees<T: Serialize + DeserializeOwned>(bytes: &[u8]) -> Result<bool, TestCaseError> {
    let lean = from_slice::<T>(bytes);
    if let Ok(value) = &lean {
        let rmp = rmp_serde::from_slice::<T>(bytes);
        prop_assert!(
            rmp.is_ok(),
            "the reader decoded {:02x?}, rmp-serde did not",
            bytes
        );
        prop_assert_eq!(encoded(value), encoded(&rmp.unwrap()), "{:02x?}", bytes);
    }
    Ok(lean.is_ok())
}

/// `agrees` for several types that read the same bytes in different ways.
fn agrees_as_many(bytes: &[u8]) -> Result<(), TestCaseError> {
    agrees::<Wide>(bytes)?;
    agrees::<Inner>(bytes)?;
    agrees::<WithDeclined>(bytes)?;
    agrees::<Vec<u64>>(bytes)?;
    agrees::<BTreeMap<String, u8>>(bytes)?;
    agrees::<Option<String>>(bytes)?;
    agrees::<(u8, i64)>(bytes)?;
    agrees::<Bytes>(bytes)?;
    agrees::<Unit>(bytes)?;
    agrees::<Newtype>(bytes)?;
    agrees::<f64>(bytes)?;
    agrees::<char>(bytes)?;
    agrees::<serde_json::Value>(bytes)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// What rmp-serde writes, compact and with field names, the reader reads, as rmp-serde
    /// reads it.
    #[test]
    fn reads_what_rmp_serde_writes(value in any_wide()) {
        for bytes in [rmp_serde::to_vec(&value).unwrap(), rmp_serde::to_vec_named(&value).unwrap()] {
            let lean = from_slice::<Wide>(&bytes);
            prop_assert!(lean.is_ok(), "{:02x?}", bytes);
            prop_assert_eq!(encoded(&lean.unwrap()), encoded(&value));
            prop_assert!(agrees::<Wide>(&bytes)?);
            agrees_as_many(&bytes)?;
        }
    }

    /// Enums and 128-bit integers are left to rmp-serde.
    #[test]
    fn leaves_enums_and_wide_integers_to_rmp_serde(
        id in any::<u64>(),
        kind in prop_oneof![
            Just(Kind::A),
            any::<u8>().prop_map(Kind::B),
            any::<i32>().prop_map(|x| Kind::C { x }),
        ],
        big in any::<i128>(),
    ) {
        let value = WithDeclined { id, kind, big };
        let bytes = rmp_serde::to_vec(&value).unwrap();
        prop_assert!(matches!(from_slice::<WithDeclined>(&bytes), Err(Declined)));
        prop_assert_eq!(rmp_serde::from_slice::<WithDeclined>(&bytes).unwrap(), value);
    }

    /// An encoding with one byte changed, or cut short.
    #[test]
    fn mutated_and_truncated_encodings(
        value in any_wide(),
        named in any::<bool>(),
        at in any::<prop::sample::Index>(),
        byte in prop_oneof![
            Just(0xC0u8), Just(0xC1), Just(0xC4), Just(0xD4), Just(0xDC), Just(0xDE),
            Just(0x90), Just(0x80), Just(0xFF), any::<u8>(),
        ],
    ) {
        let bytes = if named {
            rmp_serde::to_vec_named(&value).unwrap()
        } else {
            rmp_serde::to_vec(&value).unwrap()
        };
        let i = at.index(bytes.len());
        let mut mutated = bytes.clone();
        mutated[i] = byte;
        agrees_as_many(&mutated)?;
        agrees_as_many(&bytes[..i])?;
    }

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        agrees_as_many(&bytes)?;
    }
}

/// Nesting deeper than the reader follows is left to rmp-serde, which reads it.
#[test]
fn deep_nesting_is_left_to_rmp_serde() {
    let mut deep = serde_json::Value::Null;
    for _ in 0..=MAX_DEPTH {
        deep = serde_json::Value::Array(vec![deep]);
    }
    let bytes = rmp_serde::to_vec(&deep).unwrap();
    assert!(matches!(
        from_slice::<serde_json::Value>(&bytes),
        Err(Declined)
    ));
    assert_eq!(
        rmp_serde::from_slice::<serde_json::Value>(&bytes).unwrap(),
        deep
    );
    let shallow = serde_json::json!([[[1, "a", {"b": [true, null, -1.5]}]]]);
    let bytes = rmp_serde::to_vec(&shallow).unwrap();
    assert_eq!(from_slice::<serde_json::Value>(&bytes).unwrap(), shallow);
}

/// Bytes after the value are left to rmp-serde (which ignores them).
#[test]
fn trailing_bytes_are_left_to_rmp_serde() {
    let mut bytes = rmp_serde::to_vec(&Inner { a: 1, b: None }).unwrap();
    assert!(from_slice::<Inner>(&bytes).is_ok());
    bytes.push(0);
    assert!(matches!(from_slice::<Inner>(&bytes), Err(Declined)));
}
