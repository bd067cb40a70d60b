//! Recognizes a `u8` among the fields of a tuple or struct, so that runs of them (a
//! `[u8; N]` field is N tuple elements) can be written a word at a time.
//!
//! Serde hands a compound's elements over as `&T` with no `'static` bound, so `TypeId`
//! cannot say which are bytes. Instead, a value of size 1 is asked to serialize itself into
//! [`OneByte`], which accepts `serialize_u8` and refuses everything else before doing any
//! work. For a `u8` this inlines to a load; for other types the attempt folds away.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};

/// The value was not a `u8`.
#[derive(Debug)]
pub(crate) struct NotAByte;

impl fmt::Display for NotAByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a u8")
    }
}

impl std::error::Error for NotAByte {}

impl ser::Error for NotAByte {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        NotAByte
    }
}

/// The byte `value` is, if it serializes as a single `u8`. Only values of size 1 are
/// asked (a `u8`, `i8` or `bool`, a one-byte enum or newtype), so other fields are never
/// serialized twice; a one-byte value that is not a `u8` is refused before its
/// `Serialize` impl writes anything and is then serialized again, for real.
#[inline(always)]
pub(crate) fn byte_of<T: ?Sized + Serialize>(value: &T) -> Option<u8> {
    if std::mem::size_of_val(value) != 1 {
        return None;
    }
    value.serialize(OneByte).ok()
}

/// A serializer that takes exactly one `u8`.
struct OneByte;

/// Every method but `serialize_u8` refuses.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {$(
        #[inline(always)]
        fn $method(self, $(_: $arg),*) -> Result<u8, NotAByte> {
            Err(NotAByte)
        }
    )*};
}

/// Every compound method refuses.
macro_rules! refuse_compound {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
        #[inline(always)]
        fn $method(self, $(_: $arg),*) -> Result<$ret, NotAByte> {
            Err(NotAByte)
        }
    )*};
}

impl ser::Serializer for OneByte {
    type Ok = u8;
    type Error = NotAByte;
    type SerializeSeq = Impossible<u8, NotAByte>;
    type SerializeTuple = Impossible<u8, NotAByte>;
    type SerializeTupleStruct = Impossible<u8, NotAByte>;
    type SerializeTupleVariant = Impossible<u8, NotAByte>;
    type SerializeMap = Impossible<u8, NotAByte>;
    type SerializeStruct = Impossible<u8, NotAByte>;
    type SerializeStructVariant = Impossible<u8, NotAByte>;

    /// As the codec's own serializer answers: a type that picks its form by this flag
    /// must pick the same form in the probe as when it is then written for real.
    #[inline(always)]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline(always)]
    fn serialize_u8(self, v: u8) -> Result<u8, NotAByte> {
        Ok(v)
    }

    refuse! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
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
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<u8, NotAByte> {
        Err(NotAByte)
    }

    #[inline(always)]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<u8, NotAByte> {
        Err(NotAByte)
    }

    #[inline(always)]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<u8, NotAByte> {
        Err(NotAByte)
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
