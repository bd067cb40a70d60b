//! The serde `Serializer`: writes each value's order-preserving bytes to a `Vec<u8>`.

use serde::ser::{self, Serialize};

use super::desc::{DESC_MASK, DESC_NAME};
use super::error::Error;
use super::one_byte::byte_of;
use super::sink::Sink;
use super::{
    escape, float, int128, int64, FALSE, OPTION_NONE, OPTION_SOME, SEQ_ELEMENT, SEQ_END, TRUE,
};

/// Writes encodings to a [`Sink`]; [`super::to_vec_into`] chooses and sizes it.
pub(crate) struct Serializer<W> {
    pub(crate) out: W,
}

impl<W: Sink> Serializer<W> {
    #[inline]
    fn int(&mut self, v: impl Into<i64>) {
        let v = v.into();
        let (sort, body, k) = int64::encode(v < 0, v.unsigned_abs());
        self.out.tagged_word(sort, body, k);
    }

    #[inline]
    fn uint(&mut self, v: impl Into<u64>) {
        let (sort, body, k) = int64::encode_unsigned(v.into());
        self.out.tagged_word(sort, body, k);
    }

    #[inline]
    fn wide(&mut self, negative: bool, magnitude: u128, zero: u8) {
        let (sort, be, k) = int128::encode(negative, magnitude, zero);
        self.out.byte(sort);
        self.out.bytes(&be[16 - k..]);
    }

    #[inline]
    pub(crate) fn variant(&mut self, index: u32) {
        self.uint(index);
    }
}

/// Sequences and maps: [`SEQ_ELEMENT`] before every element (map entry), [`SEQ_END`] after
/// the last, so a sequence sorts before its extensions.
pub(crate) struct Framed<'s, W>(&'s mut Serializer<W>);

/// Tuples, structs and variant payloads: a fixed number of fields, written back to back.
///
/// `u8` fields are collected (up to 8) and written as one word when another field comes,
/// at 8, or at the end: a `[u8; N]` is a tuple of N bytes, and written one at a time each
/// byte costs a position update and a store. Inlined into the (unrolled) loop over the
/// elements, the count of held bytes is a constant at every step, so collecting compiles
/// to word loads and stores.
pub(crate) struct Fixed<'s, W> {
    ser: &'s mut Serializer<W>,
    /// Bytes of `u8` fields not written yet, the first in the lowest byte.
    held: u64,
    /// How many bytes `held` holds: 0..8.
    held_len: usize,
}

impl<'s, W: Sink> Fixed<'s, W> {
    #[inline(always)]
    fn new(ser: &'s mut Serializer<W>) -> Self {
        Fixed {
            ser,
            held: 0,
            held_len: 0,
        }
    }
}

impl<'s, W: Sink> ser::Serializer for &'s mut Serializer<W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Framed<'s, W>;
    type SerializeTuple = Fixed<'s, W>;
    type SerializeTupleStruct = Fixed<'s, W>;
    type SerializeTupleVariant = Fixed<'s, W>;
    type SerializeMap = Framed<'s, W>;
    type SerializeStruct = Fixed<'s, W>;
    type SerializeStructVariant = Fixed<'s, W>;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.byte(if v { TRUE } else { FALSE });
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.int(v);
        Ok(())
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.int(v);
        Ok(())
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.int(v);
        Ok(())
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.int(v);
        Ok(())
    }
    #[inline]
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.wide(v < 0, v.unsigned_abs(), int128::WIDE_SORT_BYTE_ZERO);
        Ok(())
    }

    /// `u8` is the byte type: one raw byte, so `[u8; N]` takes exactly `N` bytes.
    #[inline]
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.out.byte(v);
        Ok(())
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.uint(v);
        Ok(())
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.uint(v);
        Ok(())
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.uint(v);
        Ok(())
    }
    #[inline]
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.wide(false, v, int128::U128_SORT_BYTE_ZERO);
        Ok(())
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.out.bytes(&float::f32_to_key(v).to_be_bytes());
        Ok(())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.out.bytes(&float::f64_to_key(v).to_be_bytes());
        Ok(())
    }

    /// A char is its UTF-8 bytes: self-delimiting, and ordered by code point.
    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        let mut buf = [0u8; 4];
        self.out.bytes(v.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        escape::encode_into(&mut self.out, v.as_bytes());
        Ok(())
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        escape::encode_into(&mut self.out, v);
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<(), Error> {
        self.out.byte(OPTION_NONE);
        Ok(())
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        self.out.byte(OPTION_SOME);
        value.serialize(self)
    }

    /// Unit values carry no information and take no bytes.
    #[inline]
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Ok(())
    }
    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
    ) -> Result<(), Error> {
        self.variant(index);
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        if name == DESC_NAME {
            let start = self.out.len();
            value.serialize(&mut *self)?;
            // Nested descending fields are inverted twice, so they end up ascending.
            self.out.invert_from(start, DESC_MASK);
            Ok(())
        } else {
            value.serialize(self)
        }
    }
    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant(index);
        value.serialize(self)
    }

    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<Framed<'s, W>, Error> {
        Ok(Framed(self))
    }
    #[inline]
    fn serialize_tuple(self, _len: usize) -> Result<Fixed<'s, W>, Error> {
        Ok(Fixed::new(self))
    }
    #[inline]
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Fixed<'s, W>, Error> {
        Ok(Fixed::new(self))
    }
    #[inline]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Fixed<'s, W>, Error> {
        self.variant(index);
        Ok(Fixed::new(self))
    }
    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Framed<'s, W>, Error> {
        Ok(Framed(self))
    }
    #[inline]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Fixed<'s, W>, Error> {
        Ok(Fixed::new(self))
    }
    #[inline]
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Fixed<'s, W>, Error> {
        self.variant(index);
        Ok(Fixed::new(self))
    }
}

impl<W: Sink> Framed<'_, W> {
    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.0.out.byte(SEQ_ELEMENT);
        value.serialize(&mut *self.0)
    }
    #[inline]
    fn finish(self) -> Result<(), Error> {
        self.0.out.byte(SEQ_END);
        Ok(())
    }
}

impl<W: Sink> ser::SerializeSeq for Framed<'_, W> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    #[inline]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl<W: Sink> ser::SerializeMap for Framed<'_, W> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        self.element(key)
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.0)
    }
    #[inline]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl<W: Sink> Fixed<'_, W> {
    #[inline(always)]
    fn field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        if let Some(b) = byte_of(value) {
            // `held_len` is below 8 here, so the shift is at most 56.
            self.held |= u64::from(b) << (8 * (self.held_len % 8));
            self.held_len += 1;
            if self.held_len == 8 {
                self.write_held();
            }
            return Ok(());
        }
        self.write_held();
        value.serialize(&mut *self.ser)
    }

    /// Writes the held bytes, if any.
    #[inline(always)]
    fn write_held(&mut self) {
        if self.held_len > 0 {
            self.ser.out.word(self.held.to_le_bytes(), self.held_len);
            self.held = 0;
            self.held_len = 0;
        }
    }
}

/// The fixed-field compound traits all write their fields back to back.
macro_rules! fixed_compound {
    ($($trait:ident :: $method:ident ($($key:ident)?);)*) => {$(
        impl<W: Sink> ser::$trait for Fixed<'_, W> {
            type Ok = ();
            type Error = Error;
            #[inline(always)]
            fn $method<T: ?Sized + Serialize>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<(), Error> {
                self.field(value)
            }
            #[inline(always)]
            fn end(mut self) -> Result<(), Error> {
                self.write_held();
                Ok(())
            }
        }
    )*};
}

fixed_compound! {
    SerializeTuple::serialize_element();
    SerializeTupleStruct::serialize_field();
    SerializeTupleVariant::serialize_field();
    SerializeStruct::serialize_field(_key);
    SerializeStructVariant::serialize_field(_key);
}
