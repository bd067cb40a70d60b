//! A lean reader of the MessagePack that item payloads are stored in (written by
//! `rmp_serde::to_vec` or `to_vec_named`), for the reads: a get, a list, a batch get and an
//! index query decode every item they return through it.
//!
//! It reads the bytes in place and hands each value to the visitor as rmp-serde does (the
//! same `visit_*` call for each marker, strings and byte strings borrowed, an array read as
//! a sequence, a map as a map, `nil` as `None` for an option, the same rules for unit
//! structs and for what a struct, tuple or sequence accepts), without rmp-serde's reader
//! layers. It answers only where it is sure to give what rmp-serde gives: anything else
//! (an enum, an extension type, a 128-bit integer, a string that is not UTF-8, a byte
//! string where a sequence is asked for, nesting deeper than [`MAX_DEPTH`], bytes left over,
//! any error at all, the type's own included) is [`Declined`], and the caller decodes the
//! payload again with rmp-serde, whose answer, value or error, is the one given. So a value
//! this reader returns is the one rmp-serde returns for the same bytes (property tests
//! compare the two on generated values, mutated encodings and arbitrary bytes), and the
//! stored format is rmp-serde's, unchanged.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

/// Nesting of arrays and maps this reader follows; deeper payloads are left to rmp-serde
/// (whose own limit is 1,024).
pub(crate) const MAX_DEPTH: u16 = 64;

/// The reader did not decode the payload: decode it with rmp-serde, which decides.
#[derive(Debug)]
pub(crate) struct Declined;

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left to rmp-serde")
    }
}

impl std::error::Error for Declined {}

impl de::Error for Declined {
    #[cold]
    fn custom<T: std::fmt::Display>(_: T) -> Declined {
        Declined
    }
}

/// `bytes` as one MessagePack value of type `T`, using every byte; [`Declined`] for
/// anything this reader leaves to rmp-serde (see the module documentation).
#[inline]
pub(crate) fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Declined> {
    let mut reader = Reader {
        bytes,
        pos: 0,
        depth: MAX_DEPTH,
    };
    let value = T::deserialize(&mut reader)?;
    if reader.pos != bytes.len() {
        return Err(Declined);
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// How many more levels of arrays and maps may be entered.
    depth: u16,
}

// MessagePack markers (the format's specification names them so).
const NIL: u8 = 0xC0;
const FALSE: u8 = 0xC2;
const TRUE: u8 = 0xC3;
const BIN8: u8 = 0xC4;
const BIN16: u8 = 0xC5;
const BIN32: u8 = 0xC6;
const FLOAT32: u8 = 0xCA;
const FLOAT64: u8 = 0xCB;
const UINT8: u8 = 0xCC;
const UINT16: u8 = 0xCD;
const UINT32: u8 = 0xCE;
const UINT64: u8 = 0xCF;
const INT8: u8 = 0xD0;
const INT16: u8 = 0xD1;
const INT32: u8 = 0xD2;
const INT64: u8 = 0xD3;
const STR8: u8 = 0xD9;
const STR16: u8 = 0xDA;
const STR32: u8 = 0xDB;
const ARRAY16: u8 = 0xDC;
const ARRAY32: u8 = 0xDD;
const MAP16: u8 = 0xDE;
const MAP32: u8 = 0xDF;
const FIXARRAY_EMPTY: u8 = 0x90;
/// The name rmp-serde gives the newtype struct that carries an extension type.
const EXT_STRUCT_NAME: &str = "_ExtStruct";

impl<'a> Reader<'a> {
    #[inline(always)]
    fn peek(&self) -> Result<u8, Declined> {
        self.bytes.get(self.pos).copied().ok_or(Declined)
    }

    #[inline(always)]
    fn byte(&mut self) -> Result<u8, Declined> {
        let b = self.peek()?;
        self.pos += 1;
        Ok(b)
    }

    #[inline(always)]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Declined> {
        let word = self
            .bytes
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>())
            .ok_or(Declined)?;
        self.pos += N;
        Ok(*word)
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], Declined> {
        let end = self.pos.checked_add(n).ok_or(Declined)?;
        let bytes = self.bytes.get(self.pos..end).ok_or(Declined)?;
        self.pos = end;
        Ok(bytes)
    }

    /// The length after a 1-, 2- or 4-byte length marker (`width` 0, 1 or 2).
    #[inline(always)]
    fn len(&mut self, width: u8) -> Result<usize, Declined> {
        Ok(match width {
            0 => usize::from(self.byte()?),
            1 => usize::from(u16::from_be_bytes(self.array()?)),
            _ => u32::from_be_bytes(self.array()?) as usize,
        })
    }

    /// Any value, as rmp-serde's `any_inner`: a byte string goes to `visit_borrowed_bytes`
    /// when `allow_bytes`, else (rmp-serde then visits it as a sequence) is declined.
    #[inline]
    fn any<V: Visitor<'a>>(&mut self, visitor: V, allow_bytes: bool) -> Result<V::Value, Declined> {
        let marker = self.byte()?;
        match marker {
            0x00..=0x7F => visitor.visit_u8(marker),
            0x80..=0x8F => self.map(usize::from(marker & 0x0F), visitor),
            0x90..=0x9F => self.seq(usize::from(marker & 0x0F), visitor),
            0xA0..=0xBF => self.str(usize::from(marker & 0x1F), visitor),
            STR8 | STR16 | STR32 => {
                let len = self.len(marker - STR8)?;
                self.str(len, visitor)
            }
            ARRAY16 | ARRAY32 => {
                let len = self.len(marker - ARRAY16 + 1)?;
                self.seq(len, visitor)
            }
            MAP16 | MAP32 => {
                let len = self.len(marker - MAP16 + 1)?;
                self.map(len, visitor)
            }
            BIN8 | BIN16 | BIN32 if allow_bytes => {
                let len = self.len(marker - BIN8)?;
                visitor.visit_borrowed_bytes(self.take(len)?)
            }
            _ => self.num_after(marker, visitor),
        }
    }

    /// [`Reader::any`] where a string is asked for: the markers of strings under 256 bytes,
    /// what a string field mostly holds, are tried first.
    #[inline(always)]
    fn text<V: Visitor<'a>>(&mut self, visitor: V) -> Result<V::Value, Declined> {
        match self.peek()? {
            marker @ 0xA0..=0xBF => {
                self.pos += 1;
                self.str(usize::from(marker & 0x1F), visitor)
            }
            STR8 => {
                self.pos += 1;
                let len = self.len(0)?;
                self.str(len, visitor)
            }
            _ => self.any(visitor, true),
        }
    }

    /// A nil, boolean or number (rmp-serde's `any_num`, what it reads for the scalar
    /// `deserialize_*` calls): each integer marker visits its own width and signedness.
    #[inline]
    fn num<V: Visitor<'a>>(&mut self, visitor: V) -> Result<V::Value, Declined> {
        let marker = self.byte()?;
        self.num_after(marker, visitor)
    }

    #[inline(always)]
    fn num_after<V: Visitor<'a>>(&mut self, marker: u8, visitor: V) -> Result<V::Value, Declined> {
        match marker {
            0x00..=0x7F => visitor.visit_u8(marker),
            0xE0..=0xFF => visitor.visit_i8(marker as i8),
            NIL => visitor.visit_unit(),
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            UINT8 => visitor.visit_u8(self.byte()?),
            UINT16 => visitor.visit_u16(u16::from_be_bytes(self.array()?)),
            UINT32 => visitor.visit_u32(u32::from_be_bytes(self.array()?)),
            UINT64 => visitor.visit_u64(u64::from_be_bytes(self.array()?)),
            INT8 => visitor.visit_i8(i8::from_be_bytes(self.array()?)),
            INT16 => visitor.visit_i16(i16::from_be_bytes(self.array()?)),
            INT32 => visitor.visit_i32(i32::from_be_bytes(self.array()?)),
            INT64 => visitor.visit_i64(i64::from_be_bytes(self.array()?)),
            FLOAT32 => visitor.visit_f32(f32::from_be_bytes(self.array()?)),
            FLOAT64 => visitor.visit_f64(f64::from_be_bytes(self.array()?)),
            // Strings, arrays, maps and byte strings where a number is asked for (rmp-serde
            // fails), extension types, the reserved marker 0xC1.
            _ => Err(Declined),
        }
    }

    #[inline(always)]
    fn str<V: Visitor<'a>>(&mut self, len: usize, visitor: V) -> Result<V::Value, Declined> {
        match std::str::from_utf8(self.take(len)?) {
            Ok(text) => visitor.visit_borrowed_str(text),
            // rmp-serde then offers the bytes to the visitor.
            Err(_) => Err(Declined),
        }
    }

    #[inline]
    fn seq<V: Visitor<'a>>(&mut self, len: usize, visitor: V) -> Result<V::Value, Declined> {
        self.depth = self.depth.checked_sub(1).ok_or(Declined)?;
        let mut access = Elements {
            reader: self,
            left: len,
        };
        let value = visitor.visit_seq(&mut access)?;
        // rmp-serde fails on elements the visitor left.
        if access.left != 0 {
            return Err(Declined);
        }
        self.depth += 1;
        Ok(value)
    }

    #[inline]
    fn map<V: Visitor<'a>>(&mut self, len: usize, visitor: V) -> Result<V::Value, Declined> {
        self.depth = self.depth.checked_sub(1).ok_or(Declined)?;
        let mut access = Elements {
            reader: self,
            left: len,
        };
        let value = visitor.visit_map(&mut access)?;
        if access.left != 0 {
            return Err(Declined);
        }
        self.depth += 1;
        Ok(value)
    }
}

/// The elements of an array, or the entries of a map, still to be read.
struct Elements<'r, 'a> {
    reader: &'r mut Reader<'a>,
    left: usize,
}

impl<'a> de::SeqAccess<'a> for Elements<'_, 'a> {
    type Error = Declined;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Declined> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'a> de::MapAccess<'a> for Elements<'_, 'a> {
    type Error = Declined;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Declined> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'a>>(&mut self, seed: V) -> Result<V::Value, Declined> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

macro_rules! scalars {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Declined> {
            self.num(visitor)
        }
    )*};
}

macro_rules! anything {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Declined> {
            self.any(visitor, true)
        }
    )*};
}

impl<'a> de::Deserializer<'a> for &mut Reader<'a> {
    type Error = Declined;

    fn is_human_readable(&self) -> bool {
        // rmp-serde's default configuration, which the store writes with.
        false
    }

    scalars! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f32 deserialize_f64
    }

    anything! {
        deserialize_any deserialize_char deserialize_bytes
        deserialize_byte_buf deserialize_unit deserialize_map deserialize_identifier
        deserialize_ignored_any
    }

    #[inline]
    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Declined> {
        self.text(visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Declined> {
        self.text(visitor)
    }

    fn deserialize_i128<V: Visitor<'a>>(self, _: V) -> Result<V::Value, Declined> {
        Err(Declined)
    }

    fn deserialize_u128<V: Visitor<'a>>(self, _: V) -> Result<V::Value, Declined> {
        Err(Declined)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Declined> {
        if self.peek()? == NIL {
            self.pos += 1;
            visitor.visit_none()
        } else {
            // The marker stays for the value, as rmp-serde keeps it.
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Declined> {
        match self.peek()? {
            NIL | FIXARRAY_EMPTY => {
                self.pos += 1;
                visitor.visit_unit()
            }
            _ => self.any(visitor, true),
        }
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Declined> {
        if name == EXT_STRUCT_NAME {
            return Err(Declined);
        }
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Declined> {
        self.any(visitor, false)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'a>>(self, _: usize, visitor: V) -> Result<V::Value, Declined> {
        self.any(visitor, false)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, Declined> {
        self.any(visitor, false)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Declined> {
        self.any(visitor, false)
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Declined> {
        Err(Declined)
    }
}

#[cfg(test)]
mod tests;
