//! The peers' known failures, error messages, limits and the typed helpers.

use serde::{Deserialize, Serialize};

use super::{hex, Bytes};
use crate::codec::{
    from_slice, from_slice_ordered, from_slice_prefix, prefix_range, to_vec, to_vec_ordered,
    to_writer, Desc, MAX_DEPTH,
};
use crate::Order;

fn enc<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    to_vec(v).unwrap()
}

#[test]
fn empty_string_before_longer_first_field() {
    // A codec that lets the next field's bytes compete with a shorter string gets this wrong.
    assert!(enc(&("", "a")) < enc(&("a", "")));
    assert!(enc(&("", "")) < enc(&("", "a")));
    assert!(enc(&Desc(("", "a"))) > enc(&Desc(("a", ""))));
}

#[test]
fn nul_inside_a_string_is_not_a_terminator() {
    // ("a", 0, "z") < ("a\0", 0, ""): "a" is a prefix of "a\0", so it sorts first.
    let a = enc(&("a", 0u64, "z"));
    let b = enc(&("a\0", 0u64, ""));
    assert!(a < b, "{} vs {}", hex(&a), hex(&b));
    assert_eq!(
        from_slice::<(String, u64, String)>(&b).unwrap(),
        ("a\0".into(), 0, "".into())
    );
    assert!(enc("a") < enc("a\0") && enc("a\0") < enc("a\u{1}") && enc("a\u{1}") < enc("a\u{2}"));
    assert_eq!(enc("a\0b"), [0x61, 0x01, 0x01, 0x62, 0x00]);
    assert_eq!(
        from_slice::<String>(&enc("\0\u{1}\0")).unwrap(),
        "\0\u{1}\0"
    );
}

#[test]
fn short_strings_decode_at_every_length() {
    // Up to 3 chars from an alphabet with the escaped bytes, the highest ASCII byte and
    // multi-byte chars, after 0..=8 plain bytes: every position of the terminator, an
    // escape or a high byte in (and just past) the 8-byte word an owned string is read from.
    let alphabet = ["", "\0", "\u{1}", "\u{2}", "a", "\u{7f}", "é", "€"];
    for pad in 0..=8 {
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    let s = format!("{}{a}{b}{c}", "x".repeat(pad));
                    let bytes = enc(&(s.as_str(), 7u64));
                    assert_eq!(
                        from_slice::<(String, u64)>(&bytes).unwrap(),
                        (s.clone(), 7),
                        "{}",
                        hex(&bytes)
                    );
                    assert_eq!(from_slice::<String>(&enc(&s)).unwrap(), s);
                    assert_eq!(
                        from_slice_ordered::<(String, u64)>(
                            &to_vec_ordered(&(s.as_str(), 7u64), Order::Descending).unwrap(),
                            Order::Descending
                        )
                        .unwrap(),
                        (s.clone(), 7)
                    );
                }
            }
        }
    }
}

#[test]
fn string_then_integer_decodes() {
    let bytes = enc(&("ab", 7u64));
    assert_eq!(bytes, [0x61, 0x62, 0x00, 0x08, 0x07]);
    assert_eq!(from_slice::<(&str, u64)>(&bytes).unwrap(), ("ab", 7));
    assert_eq!(
        from_slice::<(String, u64)>(&bytes).unwrap(),
        ("ab".into(), 7)
    );
}

#[test]
fn negative_zero_before_positive_zero() {
    assert!(enc(&-0.0f64) < enc(&0.0f64));
    assert!(enc(&-0.0f32) < enc(&0.0f32));
    assert_eq!(
        from_slice::<f64>(&enc(&-0.0f64)).unwrap().to_bits(),
        (-0.0f64).to_bits()
    );
    let order = [
        -f64::NAN,
        f64::NEG_INFINITY,
        -1.0,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        5e-324,
        1.0,
        f64::INFINITY,
        f64::NAN,
    ];
    for w in order.windows(2) {
        assert!(enc(&w[0]) < enc(&w[1]), "{} < {}", w[0], w[1]);
    }
    let payload = f64::from_bits(0x7FF0_0000_0000_0ABC);
    assert_eq!(
        from_slice::<f64>(&enc(&payload)).unwrap().to_bits(),
        payload.to_bits()
    );
}

#[test]
fn descending_strings_order_against_their_prefixes() {
    assert!(enc(&Desc("abc")) < enc(&Desc("ab")));
    assert!(enc(&Desc("ab")) < enc(&Desc("")));
    assert!(enc(&Desc("a\0")) < enc(&Desc("a")));
    // Neighbours stay ascending.
    assert!(enc(&(1u8, Desc("abc"), 9u16)) < enc(&(1u8, Desc("ab"), 0u16)));
    assert!(enc(&(1u8, Desc("ab"), 0u16)) < enc(&(1u8, Desc("ab"), 1u16)));
    assert!(enc(&(1u8, Desc("ab"), 1u16)) < enc(&(2u8, Desc("zz"), 0u16)));
    assert_eq!(enc(&Desc("ab")), [0x9E, 0x9D, 0xFF]);
    assert_eq!(
        from_slice::<Desc<String>>(&enc(&Desc("a\0b"))).unwrap().0,
        "a\0b"
    );
    // Double inversion is ascending again.
    assert_eq!(enc(&Desc(Desc("ab"))), enc("ab"));
}

#[test]
fn integers_of_every_width_share_bytes() {
    assert_eq!(enc(&42u64), enc(&42i64));
    assert_eq!(enc(&42u16), enc(&42i32));
    assert_eq!(enc(&-5i8), enc(&-5i64));
    assert_eq!(enc(&42u64), [0x08, 0x2A]);
    assert_eq!(enc(&200u8), [0xC8]);
    assert_eq!(from_slice::<u32>(&enc(&7u64)).unwrap(), 7);
    let err = from_slice::<u16>(&enc(&70_000u64)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a u16, found integer 70000 at byte offset 0"
    );
    assert!(
        enc(&i64::MIN) < enc(&-1i64) && enc(&-1i64) < enc(&0u64) && enc(&0u64) < enc(&u64::MAX)
    );
    // u128 extends the scheme upward: a u64 field can widen to u128.
    for v in [
        0u64,
        1,
        5,
        255,
        256,
        1234,
        u64::from(u32::MAX),
        u64::MAX - 1,
        u64::MAX,
    ] {
        assert_eq!(enc(&u128::from(v)), enc(&v), "{v}");
        assert_eq!(from_slice::<u128>(&enc(&v)).unwrap(), u128::from(v));
        assert_eq!(from_slice::<u64>(&enc(&u128::from(v))).unwrap(), v);
    }
    assert_eq!(
        from_slice::<(u128, String)>(&enc(&(7u32, "x"))).unwrap(),
        (7, "x".to_owned())
    );
    let err = from_slice::<u128>(&enc(&-3i64)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a u128, found integer -3 at byte offset 0"
    );
    assert!(from_slice::<u64>(&enc(&(1u128 << 64))).is_err());
}

#[test]
fn wide_integers_order_and_round_trip() {
    let values = [
        i128::MIN,
        i128::MIN + 1,
        -(1i128 << 64),
        -1,
        0,
        1,
        1 << 64,
        i128::MAX,
    ];
    for w in values.windows(2) {
        assert!(enc(&w[0]) < enc(&w[1]), "{} < {}", w[0], w[1]);
    }
    for v in values {
        assert_eq!(from_slice::<i128>(&enc(&v)).unwrap(), v);
    }
    let unsigned = [
        0u128,
        1,
        u128::from(u64::MAX),
        1 << 64,
        (1 << 72) - 1,
        1 << 72,
        u128::MAX,
    ];
    for w in unsigned.windows(2) {
        assert!(enc(&w[0]) < enc(&w[1]), "{} < {}", w[0], w[1]);
    }
    for v in unsigned {
        assert_eq!(from_slice::<u128>(&enc(&v)).unwrap(), v);
        assert_eq!(from_slice::<Desc<u128>>(&enc(&Desc(v))).unwrap(), Desc(v));
    }
    assert_eq!(hex(&enc(&(1u128 << 64))), format!("1001{}", "00".repeat(8)));
    assert_eq!(hex(&enc(&u128::MAX)), format!("17{}", "ff".repeat(16)));
    assert_eq!(from_slice::<u128>(&enc(&u128::MAX)).unwrap(), u128::MAX);
    assert!(from_slice::<i128>(&enc(&u128::MAX)).is_err());
    assert!(from_slice::<u128>(&enc(&-1i128)).is_err());
}

#[test]
fn errors_say_what_where() {
    let e = from_slice::<(u64, String)>(&[0x08, 0x07, 0x61, 0x01, 0x05]).unwrap_err();
    assert_eq!(e.to_string(), "expected an escape (01 01 or 01 02) or the string terminator 00, found byte 0x05 at byte offset 4");
    let e = from_slice::<(u64, String)>(&[0x08, 0x07, 0x61]).unwrap_err();
    assert_eq!(e.to_string(), "expected an escape (01 01 or 01 02) or the string terminator 00, found the end of input at byte offset 3");
    let e = from_slice::<Option<u64>>(&[0x02]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected an option tag (0x00 or 0x01), found byte 0x02 at byte offset 0"
    );
    let e = from_slice::<String>(&[0xFF, 0x00]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a UTF-8 string, found invalid UTF-8 at byte offset 0"
    );
    let e = from_slice::<u64>(&[0x09, 0x00, 0x05]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a minimal integer magnitude, found a leading zero byte at byte offset 1"
    );
    let e = from_slice::<u64>(&[0x10]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a sort-byte integer, found byte 0x10 at byte offset 0"
    );
    let e = from_slice::<Vec<u16>>(&[0x01, 0x08, 0x01, 0x02]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected an element marker 0x01 or the end marker 0x00, found byte 0x02 at byte offset 3"
    );
    let e = from_slice::<serde_json::Value>(&[0x00]).unwrap_err();
    assert!(e.to_string().contains("not self-describing"), "{e}");
    #[derive(Deserialize, Debug)]
    enum Two {
        _A,
        _B,
    }
    let e = from_slice::<(u64, Two)>(&[0x08, 0x01, 0x08, 0x05]).unwrap_err();
    assert_eq!(e.offset(), Some(2), "{e}");
    assert!(e.to_string().contains("variant index"), "{e}");
    // Descending fields report the byte stored in the input, and inverted back (the value
    // `expected` speaks of).
    let e = from_slice::<Desc<bool>>(&[0xF0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a bool (0x00 or 0x01), found byte 0xF0 (0x0F inverted, in a descending field) at byte offset 0"
    );
    let e = from_slice::<Desc<String>>(&[0x9E, 0xFE, 0xFA]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected an escape (01 01 or 01 02) or the string terminator 00, found byte 0xFA (0x05 inverted, in a descending field) at byte offset 2"
    );
    // Errors raised by serde or a field's type (no offset of their own) point at the start
    // of the field: the NonZeroU32 at 1, not the u64 after it at 3.
    let e = from_slice::<(u8, std::num::NonZeroU32, u64)>(&[
        0x01, 0x07, 0xFF, 0x0B, 0x07, 0x5B, 0xCD, 0x15,
    ]);
    let e = e.unwrap_err();
    assert_eq!(e.offset(), Some(1), "{e}");
    assert!(e.to_string().contains("nonzero"), "{e}");
    // A borrowed &str whose text needed unescaping: at the string's start.
    let key = crate::codec::to_vec(&(1u8, "a\0b", 5u64)).unwrap();
    let e = from_slice::<(u8, &str, u64)>(&key).unwrap_err();
    assert_eq!(e.offset(), Some(1), "{e}");
    // The same inside a sequence and as a map value.
    let key = crate::codec::to_vec(&vec![1u32, 0, 3]).unwrap();
    let e = from_slice::<Vec<std::num::NonZeroU32>>(&key).unwrap_err();
    assert_eq!(e.offset(), Some(4), "{e}");
    let map: std::collections::BTreeMap<u8, u32> = [(5, 0)].into();
    let key = crate::codec::to_vec(&map).unwrap();
    assert_eq!(key, [0x01, 0x05, 0x07, 0xFF, 0x00]); // marker, key 5 (a u8 is one byte), value 0, end
    let e = from_slice::<std::collections::BTreeMap<u8, std::num::NonZeroU32>>(&key).unwrap_err();
    assert_eq!(e.offset(), Some(2), "{e}");
    // Invalid UTF-8 after escapes: the offset of the bad byte in the input (the content
    // offset, 2, would point into the escapes).
    let e = from_slice::<(u8, String)>(&[0x00, 0x01, 0x01, 0x01, 0x01, 0x61, 0xFF, 0x00]);
    let e = e.unwrap_err();
    assert_eq!(e.offset(), Some(6), "{e}");
    let e = from_slice::<Desc<String>>(&[0xFE, 0xFD, 0x9E, 0x00, 0xFF]).unwrap_err();
    assert_eq!(e.offset(), Some(3), "{e}");
}

/// A byte string as serde bytes (serde's `[u8]` impl writes a sequence of `u8`).
struct B<'a>(&'a [u8]);

impl Serialize for B<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

#[test]
fn borrows_when_nothing_was_escaped() {
    let bytes = enc(&("plain", B(b"raw")));
    let (s, b): (&str, &[u8]) = from_slice(&bytes).unwrap();
    assert_eq!((s, b), ("plain", &b"raw"[..]));
    assert_eq!(s.as_ptr(), bytes.as_ptr());
    assert_eq!(b.as_ptr(), bytes[6..].as_ptr());
    // An escaped string cannot be borrowed; an owned String still decodes.
    assert!(from_slice::<&str>(&enc("a\0")).is_err());
    assert_eq!(from_slice::<String>(&enc("a\0")).unwrap(), "a\0");
    assert!(from_slice::<&[u8]>(&enc(&B(b"\x01"))).is_err());
    // Inside a descending field the bytes are inverted, so nothing can be borrowed.
    assert!(from_slice::<Desc<&str>>(&enc(&Desc("x"))).is_err());
    assert_eq!(from_slice::<Desc<String>>(&enc(&Desc("x"))).unwrap().0, "x");
    // `Vec<u8>` without serde_bytes is a sequence: element markers, still ordered.
    assert_eq!(enc(&vec![7u8, 0]), [0x01, 0x07, 0x01, 0x00, 0x00]);
}

#[test]
fn encode_into_does_not_reallocate_with_spare_capacity() {
    let mut buf = Vec::with_capacity(64);
    let ptr = buf.as_ptr();
    for _ in 0..3 {
        buf.clear();
        crate::codec::to_vec_into(&("user", [7u8; 16], 1234u64, Desc("x")), &mut buf).unwrap();
        assert_eq!((buf.as_ptr(), buf.capacity()), (ptr, 64));
    }
}

/// Keys whose encodings end around the fixed window's 64 bytes, written through the window
/// (72 bytes of spare capacity or more, after a head or not) and with checked writes (less
/// spare capacity, and for reference): the same bytes, which decode back.
#[test]
fn encodings_around_the_window_size() {
    fn check<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(key: &T) {
        let mut checked = Vec::new();
        crate::codec::encode_sized(crate::codec::native::BySerde(key), &mut checked, 0, 0).unwrap();
        for head in [0, 1, 7] {
            for spare in [128, 71, 0] {
                let mut out = vec![0xEE; head];
                out.reserve_exact(spare);
                crate::codec::to_vec_into(key, &mut out).unwrap();
                assert_eq!(&out[..head], &vec![0xEE; head][..]);
                assert_eq!(out[head..], checked, "{key:?}, head {head}, spare {spare}");
            }
        }
        assert_eq!(&from_slice::<T>(&checked).unwrap(), key);
    }
    for len in 40..80 {
        let text = "x".repeat(len);
        check(&(text.clone(), 1234u64));
        check(&(1234u64, text.clone(), [9u8; 8]));
        check(&(text.clone(), Desc(u64::MAX)));
        check(&(Desc(text.clone()), "ab".to_owned()));
        check(&vec![7u8; len]);
    }
}

/// Strings and byte strings of 0..=9 bytes (the short paths take 1..=3 and 4..=7 bytes
/// without a loop, 4..=7 as two overlapping stores and no terminator store), plain or with a
/// byte that needs escaping (or a high byte) at each place, at every offset in the encoder's
/// window, also descending: the bytes the escaping rule gives, the same through the window
/// and the checked writer, and decoded back.
#[test]
fn short_strings_at_every_offset_in_the_window() {
    fn escaped(content: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &b in content {
            match b {
                0x00 => out.extend([0x01, 0x01]),
                0x01 => out.extend([0x01, 0x02]),
                b => out.push(b),
            }
        }
        out.push(0x00);
        out
    }
    let plain = |n: usize| (0..n).map(|i| b'a' + i as u8).collect::<Vec<u8>>();
    let mut contents = Vec::new();
    for n in 0..=9 {
        contents.push(plain(n));
        for at in 0..n {
            for special in [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF] {
                let mut c = plain(n);
                c[at] = special;
                contents.push(c);
            }
        }
    }
    /// Encodes `key` through the window and with checked writes, which must agree.
    fn both<T: Serialize>(key: &T) -> Vec<u8> {
        let through_window = enc(key);
        let mut checked = Vec::new();
        crate::codec::encode_sized(crate::codec::native::BySerde(key), &mut checked, 0, 0).unwrap();
        assert_eq!(checked, through_window, "checked writes against the window");
        through_window
    }
    /// The key with a field before the string that puts it at `offset`: nothing (a unit
    /// takes no bytes) for 0, else a byte string of `offset - 1` bytes.
    fn at_offset<T: Serialize>(offset: usize, field: T) -> (Vec<u8>, Vec<u8>) {
        let prefix = vec![0xEE; offset.max(1) - 1];
        if offset == 0 {
            (Vec::new(), both(&((), field, "tail")))
        } else {
            (escaped(&prefix), both(&(B(&prefix), field, "tail")))
        }
    }
    for content in &contents {
        for offset in 0..72 {
            // A string after the field checks that its terminator is in place.
            let (head, encoded) = at_offset(offset, B(content));
            let mut expected = head.clone();
            expected.extend(escaped(content));
            expected.extend(escaped(b"tail"));
            assert_eq!(encoded, expected, "{content:?} at {offset}");
            let decoded: (Bytes, String) = from_slice(&expected[head.len()..]).unwrap();
            assert_eq!(decoded, (Bytes(content.clone()), "tail".to_owned()));
            // Descending: every byte of the field inverted, the rest as before.
            let (head, encoded) = at_offset(offset, Desc(B(content)));
            let mut expected = head;
            expected.extend(escaped(content).iter().map(|b| !b));
            expected.extend(escaped(b"tail"));
            assert_eq!(encoded, expected, "{content:?} at {offset}, descending");
        }
        if let Ok(text) = std::str::from_utf8(content) {
            assert_eq!(
                enc(&(text, 7u64)),
                [escaped(content), vec![0x08, 0x07]].concat()
            );
        }
    }
}

#[test]
fn encode_into_fits_exact_capacity() {
    let key = (
        "user",
        [7u8; 16],
        "post",
        1234u64,
        "comment",
        1_678_901_234u64,
        Desc("r"),
        42u64,
    );
    let expected = enc(&key);
    for head in 0..4 {
        let mut buf = Vec::with_capacity(head + expected.len());
        buf.resize(head, 0xEE);
        let (ptr, cap) = (buf.as_ptr(), buf.capacity());
        crate::codec::to_vec_into(&key, &mut buf).unwrap();
        assert_eq!((buf.as_ptr(), buf.capacity()), (ptr, cap));
        assert_eq!(&buf[head..], &expected[..]);
    }
}

#[test]
fn trailing_bytes_and_partial_decoding() {
    let key = enc(&(7u64, "x"));
    assert_eq!(from_slice_prefix::<u64>(&key).unwrap(), (7, 2));
    let e = from_slice::<u64>(&key).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected the end of input, found 2 trailing byte(s) at byte offset 2"
    );
    let mut w = Vec::new();
    to_writer(&mut w, &(7u64, "x")).unwrap();
    assert_eq!(w, key);
}

#[test]
fn whole_key_descending() {
    let a = to_vec_ordered(&(1u64, "b"), Order::Descending).unwrap();
    let b = to_vec_ordered(&(1u64, "ab"), Order::Descending).unwrap();
    let c = to_vec_ordered(&(0u64, "zz"), Order::Descending).unwrap();
    assert!(a < b && b < c);
    assert_eq!(
        from_slice_ordered::<(u64, String)>(&b, Order::Descending).unwrap(),
        (1, "ab".into())
    );
    assert_eq!(to_vec_ordered(&5u64, Order::Ascending).unwrap(), enc(&5u64));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    #[derive(Deserialize, Debug)]
    struct Chain(Option<Box<Chain>>);
    let bytes = vec![0x01; 100_000];
    let e = from_slice::<Chain>(&bytes).unwrap_err();
    assert!(e.to_string().contains("levels of nesting"), "{e}");
    let ok = [&[0x01u8; 10][..], &[0x00]].concat();
    let mut chain = from_slice::<Chain>(&ok).unwrap();
    let mut links = 0;
    while let Some(next) = chain.0 {
        chain = *next;
        links += 1;
    }
    assert_eq!(links, 10);
    assert_eq!(MAX_DEPTH, 128);
    // A long sequence is fine: its length is not nesting, and nothing is pre-allocated.
    let mut seq = vec![0x01u8; 200_001];
    seq[200_000] = 0x00;
    assert_eq!(from_slice::<Vec<()>>(&seq).unwrap().len(), 200_000);
}

#[test]
fn structs_enums_options_and_maps() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum E {
        A,
        B(u32),
        C { x: i8, y: String },
        D(u8, bool),
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Unit;
    let map: std::collections::BTreeMap<u16, bool> = [(1, true)].into();
    assert_eq!(enc(&map), [0x01, 0x08, 0x01, 0x01, 0x00]);
    assert_eq!(enc(&E::A), [0x07, 0xFF]);
    assert_eq!(enc(&E::B(9)), [0x08, 0x01, 0x08, 0x09]);
    assert_eq!(
        enc(&E::C {
            x: -1,
            y: "".into()
        }),
        [0x08, 0x02, 0x07, 0xFE, 0x00]
    );
    assert_eq!(enc(&Unit), [] as [u8; 0]);
    assert_eq!(enc(&(None::<u8>, Some(5u16))), [0x00, 0x01, 0x08, 0x05]);
    assert_eq!(enc(&'é'), [0xC3, 0xA9]);
    assert!(
        enc(&E::A) < enc(&E::B(0))
            && enc(&E::B(u32::MAX))
                < enc(&E::C {
                    x: i8::MIN,
                    y: "".into()
                })
    );
    for v in [
        E::A,
        E::B(3),
        E::C {
            x: 5,
            y: "\0".into(),
        },
        E::D(255, true),
    ] {
        assert_eq!(from_slice::<E>(&enc(&v)).unwrap(), v);
    }
    assert_eq!(
        from_slice::<std::collections::BTreeMap<u16, bool>>(&enc(&map)).unwrap(),
        map
    );
    assert!(enc(&Vec::<u16>::new()) < enc(&vec![0u16]) && enc(&vec![1u16]) < enc(&vec![1u16, 0]));
}

#[test]
fn desc_is_transparent_elsewhere_and_reverses_ord() {
    assert_eq!(
        serde_json::to_string(&(1, Desc("a"))).unwrap(),
        r#"[1,"a"]"#
    );
    let back: (u8, Desc<String>) = serde_json::from_str(r#"[1,"a"]"#).unwrap();
    assert_eq!(back.1 .0, "a");
    assert!(Desc(2) < Desc(1));
}

#[test]
fn prefix_range_bounds() {
    let r = prefix_range(&(7u64,)).unwrap();
    assert_eq!(
        (r.start(), r.end()),
        (&[0x08, 0x07][..], Some(&[0x08, 0x08][..]))
    );
    let r = prefix_range(&()).unwrap();
    assert_eq!((r.start(), r.end()), (&[][..], None));
    let r = prefix_range(&(Desc(0u8),)).unwrap();
    assert_eq!((r.start(), r.end()), (&[0xFF][..], None));
    assert!(r.contains(&enc(&(Desc(0u8), "x"))));
    let r = prefix_range(&("ab",)).unwrap();
    assert!(
        r.contains(&enc(&("ab", "")))
            && !r.contains(&enc(&("ab\0", "")))
            && !r.contains(&enc(&("abc", "")))
    );
}

#[cfg(feature = "uuid")]
#[test]
fn uuids_order_as_bytes() {
    let ids = [
        uuid::Uuid::nil(),
        uuid::Uuid::from_u128(1),
        uuid::Uuid::from_u128(0x0100),
        uuid::Uuid::max(),
    ];
    for w in ids.windows(2) {
        assert!(enc(&w[0]) < enc(&w[1]));
    }
    for id in ids {
        assert_eq!(from_slice::<uuid::Uuid>(&enc(&id)).unwrap(), id);
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Raw(#[serde(with = "crate::codec::raw_uuid")] uuid::Uuid);
    for id in ids {
        assert_eq!(enc(&Raw(id)), id.as_bytes());
        assert_eq!(from_slice::<Raw>(id.as_bytes()).unwrap(), Raw(id));
    }
    let json = serde_json::to_string(&Raw(ids[1])).unwrap();
    assert_eq!(json, "\"00000000-0000-0000-0000-000000000001\"");
    assert_eq!(serde_json::from_str::<Raw>(&json).unwrap(), Raw(ids[1]));
    // The newtype: 16 raw bytes in positions an attribute cannot reach, same order.
    use crate::codec::raw_uuid::RawUuid;
    let raw = ids.map(RawUuid);
    for w in raw.windows(2) {
        assert!(w[0] < w[1] && enc(&w[0]) < enc(&w[1]));
        assert!(enc(&Some(w[0])) < enc(&Some(w[1])));
        assert!(enc(&Desc(w[0])) > enc(&Desc(w[1])));
    }
    for id in raw {
        assert_eq!(enc(&id), id.0.as_bytes());
        let mut some = vec![0x01];
        some.extend_from_slice(id.0.as_bytes());
        assert_eq!(enc(&Some(id)), some);
        assert_eq!(from_slice::<Option<RawUuid>>(&some).unwrap(), Some(id));
    }
    let list = vec![raw[3], raw[0]];
    let bytes = enc(&(list.clone(), raw[1]));
    assert_eq!(bytes.len(), 2 * 17 + 1 + 16); // marker and 16 bytes per element, end, tuple field
    assert_eq!(
        from_slice::<(Vec<RawUuid>, RawUuid)>(&bytes).unwrap(),
        (list, raw[1])
    );
    let map: std::collections::BTreeMap<RawUuid, u8> = [(raw[2], 9)].into();
    assert_eq!(
        from_slice::<std::collections::BTreeMap<RawUuid, u8>>(&enc(&map)).unwrap(),
        map
    );
    let json = serde_json::to_string(&Some(raw[1])).unwrap();
    assert_eq!(json, "\"00000000-0000-0000-0000-000000000001\"");
    assert_eq!(serde_json::from_str::<RawUuid>(&json).unwrap(), raw[1]);
    assert!(from_slice::<RawUuid>(&[0u8; 15]).is_err());
}

#[cfg(feature = "chrono")]
#[test]
fn chrono_instants_order_by_time() {
    use chrono::{DateTime, Utc};
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct T(#[serde(with = "crate::codec::chrono_utc")] DateTime<Utc>);
    let times: Vec<DateTime<Utc>> = [
        (-62_135_596_800i64, 0u32),
        (-1, 999_999_999),
        (0, 0),
        (0, 500_000_000),
        (1, 0),
        (1_678_901_234, 0),
        (253_402_300_800, 0),
    ]
    .iter()
    .map(|&(s, n)| DateTime::from_timestamp(s, n).unwrap())
    .collect();
    for w in times.windows(2) {
        assert!(enc(&T(w[0])) < enc(&T(w[1])), "{} < {}", w[0], w[1]);
    }
    for t in &times {
        assert_eq!(from_slice::<T>(&enc(&T(*t))).unwrap(), T(*t));
    }
    let e = from_slice::<T>(&enc(&(i64::MAX, 0u32))).unwrap_err();
    assert!(
        e.to_string()
            .contains("expected an instant chrono can represent"),
        "{e}"
    );
    assert!(e.offset().is_some());
}

#[test]
fn one_byte_fields_are_written_in_the_same_form_as_alone() {
    // A one-byte type whose form depends on `is_human_readable`: in a tuple or struct its
    // fields are first offered to a one-byte probe, which must answer like the codec.
    #[derive(Debug, PartialEq)]
    struct Level(u8);
    impl Serialize for Level {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if s.is_human_readable() {
                s.serialize_u8(self.0)
            } else {
                s.serialize_u16(u16::from(self.0) * 1000)
            }
        }
    }
    impl<'de> Deserialize<'de> for Level {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let v = u16::deserialize(d)?;
            u8::try_from(v / 1000)
                .map(Level)
                .map_err(serde::de::Error::custom)
        }
    }
    assert_eq!(enc(&Level(3)), [0x09, 0x0B, 0xB8]);
    assert_eq!(enc(&(Level(3),)), enc(&Level(3)));
    assert_eq!(enc(&(1u8, Level(3), 2u8)), [0x01, 0x09, 0x0B, 0xB8, 0x02]);
    assert_eq!(
        from_slice::<(u8, Level, u8)>(&enc(&(1u8, Level(3), 2u8))).unwrap(),
        (1, Level(3), 2)
    );
}

#[test]
fn flattened_structs_fail_with_a_clear_message() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inner {
        b: u64,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Outer {
        a: u64,
        #[serde(flatten)]
        inner: Inner,
    }
    let key = enc(&Outer {
        a: 1,
        inner: Inner { b: 2 },
    });
    let e = from_slice::<Outer>(&key).unwrap_err();
    assert!(e.to_string().contains("#[serde(flatten)]"), "{e}");
    assert!(
        e.to_string().ends_with("found byte 0x61 at byte offset 1"),
        "{e}"
    );
}

#[test]
fn adjacently_tagged_enums_read_their_tag_as_an_index() {
    // The tag is written as the variant index and read back through
    // `deserialize_identifier`; a newtype payload then decodes by position.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "t", content = "c")]
    enum Adj {
        A(u32),
        B { x: String },
    }
    let key = enc(&Adj::A(5));
    assert_eq!(key, [0x07, 0xFF, 0x08, 0x05]);
    assert_eq!(from_slice::<Adj>(&key).unwrap(), Adj::A(5));
    assert!(enc(&Adj::A(5)) < enc(&Adj::B { x: String::new() }));
    // A struct payload needs a self-describing format: a clear error, not a wrong value.
    let e = from_slice::<Adj>(&enc(&Adj::B { x: "q".into() })).unwrap_err();
    assert!(e.to_string().contains("not self-describing"), "{e}");
}

#[test]
fn char_errors_name_a_char_at_its_start() {
    let e = from_slice::<(u64, char)>(&[0x08, 0x07, 0xC3, 0x41]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a UTF-8 encoded char, found invalid UTF-8 at byte offset 2"
    );
    let e = from_slice::<char>(&[0xED, 0xA0, 0x80]).unwrap_err(); // a surrogate
    assert_eq!(e.offset(), Some(0), "{e}");
    let e = from_slice::<char>(&[0xFF]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a UTF-8 encoded char, found byte 0xFF at byte offset 0"
    );
}

#[test]
fn type_errors_point_at_the_value_that_failed() {
    use std::num::NonZeroU32;
    // A whole key: the value starts at 0 (not at 2, the end of input).
    let e = from_slice::<NonZeroU32>(&[0x07, 0xFF]).unwrap_err();
    assert_eq!(e.offset(), Some(0), "{e}");
    let e = from_slice_prefix::<NonZeroU32>(&[0x07, 0xFF, 0x05]).unwrap_err();
    assert_eq!(e.offset(), Some(0), "{e}");
    // A newtype variant's payload: where the payload starts, after the variant index.
    #[derive(Deserialize, Debug)]
    enum E {
        _A(#[allow(dead_code)] NonZeroU32),
    }
    let e = from_slice::<(u64, E)>(&[0x08, 0x01, 0x07, 0xFF, 0x07, 0xFF]).unwrap_err();
    assert_eq!(e.offset(), Some(4), "{e}");
    assert!(e.to_string().contains("nonzero"), "{e}");
}

#[test]
fn desc_of_a_partially_ordered_type_derives_partial_ord() {
    #[derive(Serialize, PartialEq, PartialOrd)]
    struct Reading {
        sensor: u32,
        value: Desc<f64>,
    }
    let high = Reading {
        sensor: 1,
        value: Desc(9.5),
    };
    let low = Reading {
        sensor: 1,
        value: Desc(-3.0),
    };
    assert!(high < low);
    assert!(enc(&high) < enc(&low));
    assert_eq!(Desc(f64::NAN).partial_cmp(&Desc(0.0)), None);
    assert_eq!(Desc(1u8).cmp(&Desc(2u8)), std::cmp::Ordering::Greater);
}

/// Instants as (seconds rounded down, nanoseconds): the order of time, before the epoch too.
#[cfg(any(feature = "time", feature = "jiff"))]
const INSTANTS: [(i64, u32); 8] = [
    (-62_135_596_800, 0),
    (-1, 0),
    (-1, 999_999_999),
    (0, 0),
    (0, 500_000_000),
    (1, 0),
    (1_678_901_234, 0),
    (253_402_207_199, 999_999_999),
];

#[cfg(feature = "time")]
#[test]
fn time_crate_instants_order_by_time() {
    use time::{OffsetDateTime, UtcOffset};
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct T(#[serde(with = "crate::codec::time_utc")] OffsetDateTime);
    let times: Vec<OffsetDateTime> = INSTANTS
        .iter()
        .map(|&(s, n)| {
            OffsetDateTime::from_unix_timestamp_nanos(i128::from(s) * 1_000_000_000 + i128::from(n))
                .unwrap()
        })
        .collect();
    let east = UtcOffset::from_hms(9, 0, 0).unwrap();
    for w in times.windows(2) {
        assert!(enc(&T(w[0])) < enc(&T(w[1])), "{} < {}", w[0], w[1]);
        // The offset changes nothing: the instant decides.
        assert!(enc(&T(w[0].to_offset(east))) < enc(&T(w[1])));
    }
    for (t, &(s, n)) in times.iter().zip(&INSTANTS) {
        assert_eq!(enc(&T(*t)), enc(&(s, n)));
        let back = from_slice::<T>(&enc(&T(t.to_offset(east)))).unwrap();
        assert_eq!(back, T(*t));
        assert_eq!(back.0.offset(), UtcOffset::UTC);
        let json = serde_json::to_string(&T(*t)).unwrap();
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), T(*t));
    }
    let e = from_slice::<T>(&enc(&(i64::MAX, 0u32))).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    assert!(from_slice::<T>(&enc(&(0i64, 1_000_000_000u32))).is_err());
}

#[cfg(feature = "jiff")]
#[test]
fn jiff_instants_order_by_time() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct T(#[serde(with = "crate::codec::jiff_timestamp")] jiff::Timestamp);
    let times: Vec<jiff::Timestamp> = INSTANTS
        .iter()
        .map(|&(s, n)| {
            jiff::Timestamp::from_nanosecond(i128::from(s) * 1_000_000_000 + i128::from(n)).unwrap()
        })
        .chain([jiff::Timestamp::MIN, jiff::Timestamp::MAX])
        .collect();
    let mut sorted = times.clone();
    sorted.sort();
    for w in sorted.windows(2) {
        assert!(enc(&T(w[0])) < enc(&T(w[1])), "{} < {}", w[0], w[1]);
    }
    for (t, &(s, n)) in times.iter().zip(&INSTANTS) {
        assert_eq!(enc(&T(*t)), enc(&(s, n)));
    }
    for t in &times {
        assert_eq!(from_slice::<T>(&enc(&T(*t))).unwrap(), T(*t));
        let json = serde_json::to_string(&T(*t)).unwrap();
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), T(*t));
    }
    let e = from_slice::<T>(&enc(&(i64::MAX, 0u32))).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    let e = from_slice::<T>(&enc(&(0i64, 1_000_000_000u32))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a nanosecond fraction 0..1000000000, found 1000000000 at byte offset 0"
    );
}
