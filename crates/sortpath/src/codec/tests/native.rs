//! The derived `Encode`/`Decode` against serde's derives through the same codec: the same
//! bytes, the same values back, the same order, and the same verdict on damaged input.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};

use super::props::config;
use crate::codec::{
    decode, decode_prefix, encode, encode_into, from_slice, to_vec, to_vec_into, Decode, Desc,
    Encode,
};

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Empty,
    One(String),
    Two(i16, Desc<u8>),
    Named { a: u32, b: Option<i64> },
}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Wrapped(Desc<i32>);

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Marker;

/// Every kind of field the derives handle, in an order-preserving arrangement: the derived
/// `Ord` is the order the bytes must have.
#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    user: String,
    id: [u8; 16],
    post_id: u64,
    n: i64,
    small: i8,
    byte: u8,
    flag: bool,
    tail: Option<String>,
    list: Vec<u32>,
    rev: Desc<String>,
    pair: Desc<(i32, String)>,
    kind: Kind,
    wrapped: Wrapped,
    unit: Marker,
    arr: [u16; 3],
    tuple: (u8, String),
    boxed: Box<Option<Kind>>,
    c: char,
    big: u128,
    last: String,
}

/// Fields without a total order or without sortpath impls.
#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Mixed {
    f: f64,
    #[sortpath(serde)]
    tags: BTreeMap<String, u8>,
    key: Key,
    size: usize,
    offset: isize,
    wide: i128,
    #[serde(rename = "other_name")]
    renamed: f32,
}

/// Borrowed and generic.
#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
struct Borrowed<'a, T> {
    name: &'a str,
    value: T,
}

/// Recursive: two levels of nesting per node, as through serde.
#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
struct List(Option<Box<List>>);

#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
enum Never {}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
struct Pair(u64, String);

#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
struct NoFields {}

/// Strings with the bytes that need care: NUL and 0x01 (escaped), 0x02, ASCII, 0x7F, and
/// multi-byte characters; short ones most often (the decoder's fast path).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c]{0,7}",
        "[\\x00\\x01\\x02a-c\\x7F\u{80}\u{FF}\u{10000}]{0,12}",
        "[a-z]{8,20}",
    ]
}

fn int<T: Arbitrary + std::fmt::Debug + Clone + 'static>(
    small: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<T> {
    prop_oneof![small, any::<T>()].boxed()
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Empty),
        text().prop_map(Kind::One),
        (any::<i16>(), any::<u8>()).prop_map(|(a, b)| Kind::Two(a, Desc(b))),
        (any::<u32>(), proptest::option::of(int(-300i64..300)))
            .prop_map(|(a, b)| Kind::Named { a, b }),
    ]
}

fn key() -> impl Strategy<Value = Key> {
    (
        (
            text(),
            any::<[u8; 16]>(),
            int(0u64..300),
            int(-300i64..300),
            any::<i8>(),
            any::<u8>(),
            any::<bool>(),
        ),
        (
            proptest::option::of(text()),
            proptest::collection::vec(int(0u32..300), 0..4),
            text(),
            (any::<i32>(), text()),
            kind(),
            any::<i32>(),
        ),
        (
            any::<[u16; 3]>(),
            (any::<u8>(), text()),
            proptest::option::of(kind()),
            any::<char>(),
            int(0u128..300),
            text(),
        ),
    )
        .prop_map(
            |(
                (user, id, post_id, n, small, byte, flag),
                (tail, list, rev, pair, kind, w),
                (arr, tuple, boxed, c, big, last),
            )| Key {
                user,
                id,
                post_id,
                n,
                small,
                byte,
                flag,
                tail,
                list,
                rev: Desc(rev),
                pair: Desc(pair),
                kind,
                wrapped: Wrapped(Desc(w)),
                unit: Marker,
                arr,
                tuple,
                boxed: Box::new(boxed),
                c,
                big,
                last,
            },
        )
}

/// `a`, and `a` with the fields `mask` picks taken from `other`: pairs that agree on a
/// random set of fields, so later fields decide the order too.
fn blend(a: &Key, other: &Key, mask: u32) -> Key {
    let mut b = a.clone();
    macro_rules! take {
        ($($bit:literal $field:ident),*) => {$(
            if mask & (1 << $bit) != 0 {
                b.$field = other.$field.clone();
            }
        )*};
    }
    take!(0 user, 1 id, 2 post_id, 3 n, 4 small, 5 byte, 6 flag, 7 tail, 8 list, 9 rev,
          10 pair, 11 kind, 12 wrapped, 13 arr, 14 tuple, 15 boxed, 16 c, 17 big, 18 last);
    b
}

proptest! {
    #![proptest_config(config(crate::test_cases(20_000)))]

    /// The derived encoder writes serde's bytes, through both output paths, and the
    /// derived decoder gives the value back; so does serde's from the derived bytes.
    #[test]
    fn derived_bytes_are_serde_bytes_and_round_trip(k in key()) {
        let bytes = encode(&k).unwrap();
        prop_assert_eq!(&bytes, &to_vec(&k).unwrap());
        // No spare capacity: the checked writer; a large buffer: the window (and the
        // second pass for keys over 64 bytes).
        let (mut small, mut large) = (vec![0xEE], Vec::with_capacity(256));
        large.push(0xEE);
        encode_into(&k, &mut small).unwrap();
        encode_into(&k, &mut large).unwrap();
        prop_assert_eq!(&small[1..], &bytes[..]);
        prop_assert_eq!(&large[1..], &bytes[..]);
        prop_assert_eq!(decode::<Key>(&bytes).unwrap(), k.clone());
        prop_assert_eq!(from_slice::<Key>(&bytes).unwrap(), k.clone());
        let (partial, used) = decode_prefix::<Key>(&[&bytes[..], &[7, 7]].concat()).unwrap();
        prop_assert_eq!((partial, used), (k, bytes.len()));
    }

    /// Byte order is the derived `Ord`, for pairs that share a random set of fields.
    #[test]
    fn derived_byte_order_is_value_order(a in key(), other in key(), mask in any::<u32>()) {
        let b = blend(&a, &other, mask);
        let (ea, eb) = (encode(&a).unwrap(), encode(&b).unwrap());
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{:02x?} vs {:02x?}", ea, eb);
    }

    /// On damaged bytes the derived decoder and serde's agree: the same value, or an
    /// error at the same offset with the same message.
    #[test]
    fn derived_decoder_agrees_with_serde_on_damaged_bytes(
        k in key(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        xor in 1u8..=255,
        noise in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let good = encode(&k).unwrap();
        let mut damaged = good.clone();
        damaged[flip.index(good.len())] ^= xor;
        let truncated = &good[..cut.index(good.len() + 1)];
        for bytes in [&damaged[..], truncated, &noise[..]] {
            match (decode::<Key>(bytes), from_slice::<Key>(bytes)) {
                (Ok(native), Ok(serde)) => prop_assert_eq!(native, serde),
                (Err(native), Err(serde)) => {
                    prop_assert_eq!(native.offset(), serde.offset());
                    if !serde.to_string().contains("variant index") {
                        prop_assert_eq!(native.to_string(), serde.to_string());
                    }
                }
                (native, serde) => prop_assert!(false, "{:02x?}: derived {:?}, serde {:?}", bytes, native, serde),
            }
        }
    }

    /// Floats (NaN too), `#[sortpath(serde)]` fields, pointer-sized and 128-bit integers.
    #[test]
    fn mixed_fields_match_serde(
        k in key(),
        bits in any::<u64>(),
        tags in proptest::collection::btree_map(text(), any::<u8>(), 0..3),
        size in any::<usize>(),
        offset in any::<isize>(),
        wide in any::<i128>(),
        renamed in any::<u32>(),
    ) {
        let m = Mixed { f: f64::from_bits(bits), tags, key: k, size, offset, wide, renamed: f32::from_bits(renamed) };
        let bytes = encode(&m).unwrap();
        prop_assert_eq!(&bytes, &to_vec(&m).unwrap());
        let back: Mixed = decode(&bytes).unwrap();
        prop_assert_eq!(encode(&back).unwrap(), bytes);
    }
}

/// A typed ID: the type parameter is only a marker, so it needs no sortpath impls (as with
/// serde's derives).
#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
struct Id<T> {
    n: u64,
    kind: std::marker::PhantomData<T>,
}

/// Neither sortpath's nor serde's traits.
#[derive(Debug, PartialEq)]
struct User;

trait Schema {
    type Key;
}

struct Tickets;

impl Schema for Tickets {
    type Key = (u32, String);
}

/// An associated type as a field: bounded as `S::Key: Encode`, not `S: Encode`.
#[derive(Encode, Decode, Serialize, Deserialize)]
struct ByKey<S: Schema> {
    key: S::Key,
    #[sortpath(serde)]
    extra: Option<S::Key>,
}

/// The crate path given explicitly (as when sortpath is re-exported under another name).
#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
#[sortpath(crate = "crate")]
struct Elsewhere(u8, String);

/// A lifetime only in `PhantomData`: the value borrows nothing, so it decodes from a buffer
/// that lives shorter than the lifetime (here `'static`).
#[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
struct Scoped<'a> {
    name: String,
    scope: std::marker::PhantomData<&'a ()>,
}

#[test]
fn bounds_follow_the_fields() {
    let bytes = encode(&Scoped {
        name: "n".into(),
        scope: std::marker::PhantomData,
    })
    .unwrap();
    let local = bytes.clone();
    let scoped: Scoped<'static> = decode(&local).unwrap();
    assert_eq!(scoped.name, "n");
    drop(local);
    let id: Id<User> = Id {
        n: 7,
        kind: std::marker::PhantomData,
    };
    let bytes = encode(&id).unwrap();
    assert_eq!(bytes, to_vec(&id).unwrap());
    assert_eq!(decode::<Id<User>>(&bytes).unwrap(), id);
    let k: ByKey<Tickets> = ByKey {
        key: (1, "a".into()),
        extra: Some((2, "b".into())),
    };
    let bytes = encode(&k).unwrap();
    assert_eq!(bytes, to_vec(&k).unwrap());
    let back: ByKey<Tickets> = decode(&bytes).unwrap();
    assert_eq!((back.key, back.extra), (k.key, k.extra));
    let e = Elsewhere(1, "x".into());
    assert_eq!(decode::<Elsewhere>(&encode(&e).unwrap()).unwrap(), e);
}

#[test]
fn borrowed_generic_struct_decodes_in_place() {
    let v = Borrowed {
        name: "ada",
        value: (7u8, Desc(-1i64)),
    };
    let bytes = encode(&v).unwrap();
    assert_eq!(bytes, to_vec(&v).unwrap());
    let back: Borrowed<(u8, Desc<i64>)> = decode(&bytes).unwrap();
    assert_eq!(back, v);
    assert!(std::ptr::eq(back.name.as_ptr(), bytes.as_ptr()));
    // An escaped string cannot be borrowed: the same error as serde's.
    let escaped = encode(&Borrowed {
        name: "a\0b",
        value: 0u8,
    })
    .unwrap();
    let native = decode::<Borrowed<u8>>(&escaped).unwrap_err();
    let serde = from_slice::<Borrowed<u8>>(&escaped).unwrap_err();
    assert_eq!(native.to_string(), serde.to_string());
}

#[test]
fn unknown_variant_says_which_and_where() {
    // Field 0 of `Pair`-like tuple, then variant index 9 of `Kind` (4 variants).
    let bytes = to_vec(&(5u64, 9u32)).unwrap();
    let err = decode::<(u64, Kind)>(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a variant index of the enum, found variant index 9 (the enum has 4 variants) at byte offset 2"
    );
    assert_eq!(
        from_slice::<(u64, Kind)>(&bytes).unwrap_err().offset(),
        Some(2)
    );
    let err = decode::<Never>(&to_vec(&0u32).unwrap()).unwrap_err();
    assert_eq!(err.offset(), Some(0));
    assert!(err.to_string().contains("the enum has 0 variants"), "{err}");
}

#[test]
fn nesting_limit_is_serdes() {
    let mut list = List(None);
    for _ in 0..63 {
        list = List(Some(Box::new(list)));
    }
    let bytes = encode(&list).unwrap();
    assert_eq!(bytes, to_vec(&list).unwrap());
    // 64 nodes: 127 levels, within the limit.
    assert_eq!(decode::<List>(&bytes).unwrap(), list);
    let deeper = List(Some(Box::new(list)));
    let bytes = encode(&deeper).unwrap();
    let native = decode::<List>(&bytes).unwrap_err();
    let serde = from_slice::<List>(&bytes).unwrap_err();
    assert_eq!(native.to_string(), serde.to_string());
    assert!(
        native.to_string().contains("at most 128 levels"),
        "{native}"
    );
    // Deep input that is not a valid encoding at all ends the same way, without recursion
    // past the limit.
    let bytes = vec![0x01; 100_000];
    assert_eq!(
        decode::<List>(&bytes).unwrap_err().to_string(),
        from_slice::<List>(&bytes).unwrap_err().to_string()
    );
}

#[test]
fn small_shapes_match_serde() {
    assert_eq!(
        encode(&Pair(3, "x".into())).unwrap(),
        to_vec(&Pair(3, "x".into())).unwrap()
    );
    assert_eq!(
        decode::<Pair>(&to_vec(&Pair(3, "x".into())).unwrap()).unwrap(),
        Pair(3, "x".into())
    );
    assert_eq!(encode(&NoFields {}).unwrap(), Vec::<u8>::new());
    assert_eq!(decode::<NoFields>(&[]).unwrap(), NoFields {});
    assert_eq!(encode(&Marker).unwrap(), Vec::<u8>::new());
    // A `u8` array short of bytes fails where serde's does, with the same message.
    let short = [0x01, 0x02];
    assert_eq!(
        decode::<[u8; 4]>(&short).unwrap_err().to_string(),
        from_slice::<[u8; 4]>(&short).unwrap_err().to_string()
    );
    assert_eq!(
        decode::<[u16; 3]>(&short).unwrap_err().to_string(),
        from_slice::<[u16; 3]>(&short).unwrap_err().to_string()
    );
    // Trailing bytes.
    assert_eq!(
        decode::<u8>(&[1, 2]).unwrap_err().to_string(),
        from_slice::<u8>(&[1, 2]).unwrap_err().to_string()
    );
}

#[test]
fn encode_keeps_the_buffer_on_error() {
    struct Fails;
    impl serde::Serialize for Fails {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    #[derive(Encode)]
    struct Holder {
        a: u64,
        #[sortpath(serde)]
        b: Fails,
    }
    for capacity in [0, 256] {
        let mut out = Vec::with_capacity(capacity);
        out.extend_from_slice(b"kept");
        let err = encode_into(&Holder { a: 1, b: Fails }, &mut out).unwrap_err();
        assert_eq!(err.to_string(), "no");
        assert_eq!(out, b"kept");
        to_vec_into(&1u8, &mut out).unwrap();
        assert_eq!(out, b"kept\x01");
    }
}

#[test]
fn ascii_word_string_is_the_masked_prefix() {
    // Every length, and bytes with and without the high bit (masked off).
    for word in [
        *b"abcdefgh",
        [0xFF; 8],
        [0x80, 0x7F, 0x00, 0x01, 0xC3, 0xA9, 0x61, 0x62],
    ] {
        for len in 0..=7 {
            let s = crate::codec::native::ascii_word_string(word, len);
            let expected: String = word[..len].iter().map(|&b| char::from(b & 0x7F)).collect();
            assert_eq!(s, expected);
            assert!(s.is_ascii());
        }
    }
}
