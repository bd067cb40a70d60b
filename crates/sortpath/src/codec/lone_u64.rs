//! Recognizes a key that is one `u64` (the smallest keys: a row ID, a sequence number), so
//! that [`super::to_vec_into`] writes it without the generic encoder's zeroed window.
//!
//! As in `one_byte.rs`, the value is asked to serialize itself into [`LoneU64`], which
//! accepts `serialize_u64` and refuses everything else before doing any work. Only values
//! of the size of a `u64` are asked, so for other types the attempt folds away; whatever is
//! refused is encoded by the general path. The bytes are the general encoder's for a `u64`
//! (`int64::encode_unsigned`, the same call).
//!
//! (Decoding has no such path: the decoder's own fast path for a positive integer is
//! inlined into `from_slice` already, and a probe measured slower.)

use std::fmt;

use serde::ser::{self, Impossible, Serialize};

use super::int64;

/// The value was not a lone `u64`.
#[derive(Debug)]
pub(crate) struct NotAU64;

impl fmt::Display for NotAU64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a lone u64")
    }
}

impl std::error::Error for NotAU64 {}

impl ser::Error for NotAU64 {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        NotAU64
    }
}

/// The `u64` that `value` is, if it serializes as exactly one `u64` (and nothing else).
#[inline(always)]
pub(crate) fn u64_of<T: ?Sized + Serialize>(value: &T) -> Option<u64> {
    if std::mem::size_of_val(value) != std::mem::size_of::<u64>() {
        return None;
    }
    value.serialize(LoneU64).ok()
}

/// The encoding of `v` (what the general encoder writes for a `u64`): the sort byte and the
/// magnitude bytes in the first 9 bytes, and its length.
#[inline(always)]
pub(crate) fn encode(v: u64) -> ([u8; 9], usize) {
    let (sort, body, k) = int64::encode_unsigned(v);
    let mut out = [0u8; 9];
    out[0] = sort;
    out[1..].copy_from_slice(&body);
    (out, 1 + k)
}

/// A serializer that takes exactly one `u64`.
struct LoneU64;

/// Every method but `serialize_u64` refuses.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {$(
        #[inline(always)]
        fn $method(self, $(_: $arg),*) -> Result<u64, NotAU64> {
            Err(NotAU64)
        }
    )*};
}

/// Every compound method refuses.
macro_rules! refuse_compound {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
        #[inline(always)]
        fn $method(self, $(_: $arg),*) -> Result<$ret, NotAU64> {
            Err(NotAU64)
        }
    )*};
}

impl ser::Serializer for LoneU64 {
    type Ok = u64;
    type Error = NotAU64;
    type SerializeSeq = Impossible<u64, NotAU64>;
    type SerializeTuple = Impossible<u64, NotAU64>;
    type SerializeTupleStruct = Impossible<u64, NotAU64>;
    type SerializeTupleVariant = Impossible<u64, NotAU64>;
    type SerializeMap = Impossible<u64, NotAU64>;
    type SerializeStruct = Impossible<u64, NotAU64>;
    type SerializeStructVariant = Impossible<u64, NotAU64>;

    /// As the codec's own serializer answers: a type that picks its form by this flag
    /// must pick the same form here as when it is written for real.
    #[inline(always)]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline(always)]
    fn serialize_u64(self, v: u64) -> Result<u64, NotAU64> {
        Ok(v)
    }

    refuse! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    #[inline(always)]
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<u64, NotAU64> {
        Err(NotAU64)
    }

    #[inline(always)]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<u64, NotAU64> {
        Err(NotAU64)
    }

    #[inline(always)]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<u64, NotAU64> {
        Err(NotAU64)
    }

    refuse_compound! {
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{native, put_into, Desc};

    /// What the general encoder appends for `value` (the path every other key takes).
    fn general<T: ?Sized + serde::Serialize>(value: &T, out: &mut Vec<u8>) {
        put_into(native::BySerde(value), out).unwrap();
    }

    /// A lone `u64` is written as the general encoder writes it, after existing bytes,
    /// into a buffer with or without spare capacity, at every length of its encoding.
    #[test]
    fn lone_u64_matches_general_encoder() {
        let mut values = vec![0, 1, 2, 0x7F, 0xFF, 0x100, u64::MAX - 1, u64::MAX];
        values.extend((0..64).map(|s| 1u64 << s));
        values.extend((1..64).map(|s| (1u64 << s) - 1));
        for v in values {
            for prefix in [&b""[..], b"\x00\x01\xFF"] {
                let (mut fast, mut slow) = (prefix.to_vec(), prefix.to_vec());
                super::super::to_vec_into(&v, &mut fast).unwrap();
                general(&v, &mut slow);
                assert_eq!(fast, slow, "{v}");
                let mut roomy = Vec::with_capacity(256);
                roomy.extend_from_slice(prefix);
                super::super::to_vec_into(&v, &mut roomy).unwrap();
                assert_eq!(roomy, slow, "{v}");
            }
        }
    }

    /// Values of the same size that are not a lone `u64` are refused, and written by the
    /// general encoder.
    #[test]
    fn other_eight_byte_values_are_refused() {
        #[derive(serde::Serialize)]
        struct Id(u64);
        assert_eq!(super::u64_of(&7u64), Some(7));
        assert_eq!(super::u64_of(&-7i64), None);
        assert_eq!(super::u64_of(&7.5f64), None);
        assert_eq!(super::u64_of(&[1u8; 8]), None);
        assert_eq!(super::u64_of(&Id(7)), None);
        assert_eq!(super::u64_of(&Desc(7u64)), None);
        assert_eq!(super::u64_of(&7u32), None);
        assert_eq!(super::u64_of(&(7u32, 8u32)), None);
        let mut out = Vec::new();
        super::super::to_vec_into(&Desc(7u64), &mut out).unwrap();
        let mut expected = Vec::new();
        general(&Desc(7u64), &mut expected);
        assert_eq!(out, expected);
    }
}
