//! Order-preserving serde codec: any `Serialize` value to bytes that sort like the value.
//!
//! ```
//! use sortpath::codec::{from_slice, to_vec, Desc};
//! let a = to_vec(&(7u64, Desc(1_700_000_000u64), "alice")).unwrap();
//! let b = to_vec(&(7u64, Desc(1_600_000_000u64), "bob")).unwrap();
//! assert!(a < b); // same tenant, newer first
//! let (tenant, Desc(time), name): (u64, Desc<u64>, &str) = from_slice(&a).unwrap();
//! assert_eq!((tenant, time, name), (7, 1_700_000_000, "alice"));
//! ```
//!
//! The format carries no type tags: the Rust type says how to read the bytes back, as with
//! bincode. Struct and tuple fields are written back to back in declaration order, so a key
//! is the concatenation of its fields, and the bytes of a leading tuple of fields bound all
//! keys that start with it ([`prefix_range`]).
//!
//! # Format
//!
//! Every value's encoding is *prefix-free* within its type (no encoding is a proper prefix
//! of another value's encoding of the same type) and *order-preserving* (byte order equals
//! value order). Both properties carry over to tuples, structs, sequences and [`Desc`].
//!
//! ## Integers
//! `u16`, `u32`, `u64`, `i8`, `i16`, `i32`, `i64` use the sort-byte integer of
//! [`crate::I65`]: a sort byte `0x00..=0x0F` carrying sign and length, then the minimal
//! big-endian magnitude (inverted for negatives). The same number encodes alike at every
//! width, so a field can widen from `u32` to `i64` without rewriting keys.
//! ```text
//! 0u64     07 FF          1234u64      09 04 D2
//! -1i64    07 FE          1678901234   0B 64 11 FF F2
//! 42i32    08 2A          -257i16      06 FE FE
//! ```
//! `u8` is the byte type: one raw byte (`200u8` is `C8`), so `[u8; 16]` takes 16 bytes.
//!
//! `u128` extends the scheme upward: a value that fits a `u64` encodes as the `u64` does
//! (`5u128` is `08 05`), larger ones take the sort bytes `0x10..=0x17` for 9 to 16
//! magnitude bytes (`2^64` is `10 01` + 8×`00`, `u128::MAX` is `17` + 16×`FF`), so a field
//! can widen from `u64` to `u128` without rewriting keys.
//!
//! `i128` cannot do the same: its negative values beyond 64 bits would have to sort below
//! the most negative 65-bit integers, whose sort byte is already `0x00`. It uses the scheme
//! shifted to sort bytes `0x00..=0x1F` ([`WIDE_SORT_BYTE_ZERO`] is `0x0F`): `0i128` is
//! `0F FF`, `1i128` is `10 01`, `-1i128` is `0F FE`, `i128::MIN` is `00 7F` + 15×`FF`.
//! `i128` fields order among themselves; they share no bytes with the other widths.
//!
//! ## Floats
//! Big-endian IEEE 754 bits, sign bit set for positives, all bits inverted for negatives
//! (8 bytes for `f64`, 4 for `f32`). Order is `f64::total_cmp`:
//! `-NaN < -inf < -1.0 < -0.0 < +0.0 < 1.0 < +inf < +NaN`; every bit pattern round-trips.
//! ```text
//! 1.0f64   BF F0 00 00 00 00 00 00      -1.0f64   40 0F FF FF FF FF FF FF
//! 0.0f64   80 00 00 00 00 00 00 00      -0.0f64   7F FF FF FF FF FF FF FF
//! ```
//!
//! ## Strings and bytes
//! The content with `0x00` escaped as `01 01` and `0x01` as `01 02`, then the terminator
//! [`TERMINATOR`] `00`. A string sorts before its extensions, `NUL` sorts below every
//! other byte, and `&str`/`&[u8]` borrow from the input when nothing was escaped.
//! ```text
//! ""        00
//! "ab"      61 62 00
//! "a\0b"    61 01 01 62 00
//! b"\x01"   01 02 00
//! ```
//! Serde's `Vec<u8>`/`&[u8]` impls write a *sequence* of `u8` (see below: 2 bytes per
//! byte, still ordered); annotate such fields with `serde_bytes` to get this byte-string
//! form (a plain `&[u8]` field, written as a sequence, cannot be read back as a borrowed
//! byte string). `&str` and `&[u8]` fields borrow when nothing was escaped and the field is
//! not descending; otherwise they cannot be decoded at all (the content must be unescaped or
//! inverted into new memory): decode text that may hold `0x00`/`0x01` bytes, and descending
//! fields, as `String`/`Vec<u8>` (or `Cow<str>` with serde's `borrow` attribute).
//!
//! ## Other types
//! ```text
//! false / true            00 / 01
//! 'é' (char)              C3 A9            UTF-8: self-delimiting, ordered by code point
//! None / Some(5u16)       00 / 01 08 05    None sorts first
//! () and unit structs     (no bytes)
//! (7u64, "ab")            08 07 61 62 00   tuples, tuple structs, structs: fields in order
//! vec![1u16, 2]           01 08 01 01 08 02 00
//! map {1u16: true}        01 08 01 01 00   like a sequence of (key, value)
//! enum E { A, B(u32) }:
//!   E::A                  07 FF            the variant index as an integer...
//!   E::B(9)               08 01 08 09      ...then the payload
//! ```
//! Sequences and maps write [`SEQ_ELEMENT`] `01` before each element and [`SEQ_END`] `00`
//! after the last, so `[1]` sorts before `[1, 0]` and `[]` first. Maps are written in
//! iteration order: use `BTreeMap` for deterministic keys.
//!
//! A newtype struct is its inner value. `uuid::Uuid` (a byte string in this
//! non-human-readable format) takes 17+ bytes as is, and exactly 16 with
#![cfg_attr(
    feature = "uuid",
    doc = " [`raw_uuid`] (an attribute for a field, the newtype [`raw_uuid::RawUuid`] anywhere). `chrono::DateTime<Utc>` (feature `chrono`),"
)]
#![cfg_attr(
    not(feature = "uuid"),
    doc = " `raw_uuid` (feature `uuid`: an attribute for a field, the newtype `raw_uuid::RawUuid` anywhere). `chrono::DateTime<Utc>` (feature `chrono`),"
)]
//! `time::OffsetDateTime` (feature `time`) and `jiff::Timestamp` (feature `jiff`, jiff 1.x)
//! are stored as integers, seconds then nanoseconds since the Unix epoch, with the attribute
//! modules `codec::chrono_utc`, `codec::time_utc` and `codec::jiff_timestamp`: keys order
//! by time (the crates' own serde forms are text, which does not).
//!
//! ## Descending fields
//! [`Desc<T>`] encodes `T` and inverts every byte of it (`b -> !b`). [`Order::Descending`]
//! does the same to a whole key.
//! ```text
//! (7u64, Desc("ab"), 3u16)     08 07 | 9E 9D FF | 08 03
//! Desc("abc")                  9E 9D 9C FF      sorts before Desc("ab") 9E 9D FF
//! Desc(0u64)                   F8 00
//! ```
//!
//! A worked example: the struct `{ "user", [0xAA; 16], "post", 1234u64, "comment",
//! 1678901234u64, "react", 42u64 }` takes 50 bytes:
//! ```text
//! 75 73 65 72 00 | AA×16 | 70 6F 73 74 00 | 09 04 D2 | 63 6F 6D 6D 65 6E 74 00 |
//! 0B 64 11 FF F2 | 72 65 61 63 74 00 | 08 2A
//! ```
//!
//! # Ordering
//!
//! For two values `a`, `b` of the same type, `to_vec(a).cmp(&to_vec(b))` equals the value
//! order, which is:
//! - integers numerically; floats by `total_cmp`; `bool` false first; `char` by code point;
//! - strings and byte strings lexicographically by bytes (a prefix first; `""` first);
//! - `Option`: `None` first, then `Some` by value; unit: all equal;
//! - tuples, structs, tuple structs: field by field in declaration order (the first field
//!   that differs decides; later fields only break ties);
//! - sequences and maps: element by element, a shorter prefix first;
//! - enums: by variant index (declaration order), then by payload;
//! - `Desc<T>`: the reverse of `T`'s order, nested `Desc` reverses again. Neighbouring fields
//!   are unaffected because each field's comparison is settled inside its own bytes.
//!
//! This is the order `#[derive(Ord)]` gives, except for floats (total order instead of
//! `PartialOrd`) and `HashMap` (iteration order). Across different types the bytes have
//! no meaningful order, and the key bytes of a tuple prefix are a byte prefix of the keys
//! that extend it.
//!
//! # Without serde's generic layer: `Encode` and `Decode`
//!
//! [`encode`], [`encode_into`], [`decode`] and [`decode_prefix`] do what [`to_vec`],
//! [`to_vec_into`], [`from_slice`] and [`from_slice_prefix`] do, for types that implement
//! [`Encode`] and [`Decode`]: `#[derive(sortpath::codec::Encode, sortpath::codec::Decode)]`
//! with the `derive` feature, beside or instead of serde's derives. The bytes are the same
//! as through serde (so are the checks, the error offsets and the nesting limit), so keys
//! written one way are read the other way. What changes is speed that holds in every build profile:
//! through serde, whether the compiler flattens serde's generic visitors (one 16-byte read for
//! a `[u8; 16]`, not 16 calls) depends on `codegen-units` and LTO, and with one codegen unit
//! the serde decoder is several times slower than in the default profile; the derived code
//! calls the codec's readers and writers directly (figures in `BENCHMARKS.md`).
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use sortpath::codec::{decode, encode, from_slice, to_vec, Decode, Desc, Encode};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
//! enum Status { Open, Closed { at: u64 } }
//!
//! #[derive(Encode, Decode, Serialize, Deserialize, Debug, PartialEq)]
//! struct Key { tenant: u64, newest_first: Desc<u64>, id: [u8; 16], status: Status }
//!
//! let key = Key { tenant: 7, newest_first: Desc(9), id: [0xAB; 16], status: Status::Closed { at: 3 } };
//! let bytes = encode(&key).unwrap();
//! assert_eq!(bytes, to_vec(&key).unwrap()); // serde's bytes
//! assert_eq!(decode::<Key>(&bytes).unwrap(), key);
//! assert_eq!(from_slice::<Key>(&bytes).unwrap(), key);
//! ```
//!
//! The derives write fields in declaration order and enum variants by index, as serde's
//! derives do without attributes. Serde attributes that change what serde writes (`skip`,
//! `with`, `flatten`, `tag`, `untagged`, `transparent`, `into`, ...) are refused at compile
//! time, since the two encodings would differ; naming attributes (`rename`, `alias`,
//! `rename_all`, `default`, `borrow`, `bound`, ...) are accepted. A field whose type has no
//! sortpath impl is written and read through its serde impls with `#[sortpath(serde)]`:
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use std::collections::BTreeMap;
//! #[derive(sortpath::codec::Encode, sortpath::codec::Decode, Debug, PartialEq)]
//! struct Tagged {
//!     name: String,
//!     #[sortpath(serde)]
//!     tags: BTreeMap<String, u32>,
//! }
//! let t = Tagged { name: "a".into(), tags: BTreeMap::from([("x".to_string(), 1)]) };
//! let bytes = sortpath::codec::encode(&t).unwrap();
//! assert_eq!(sortpath::codec::decode::<Tagged>(&bytes).unwrap(), t);
//! ```
//!
#![cfg_attr(feature = "derive", doc = "```compile_fail")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! // Refused: serde would skip the field, the derived `Encode` would write it.
//! #[derive(sortpath::codec::Encode, serde::Serialize)]
//! struct Key { id: u64, #[serde(skip)] cache: u64 }
//! ```
//!
//! Type parameters are bounded as serde's derives bound them: `T: Encode` (`Decode`) for a
//! parameter a field uses, none for one used only in `PhantomData<T>` (a typed ID),
//! `T::Assoc: Encode` for an associated type. `#[sortpath(crate = "path")]` on the type names
//! the sortpath crate when it is not `::sortpath`. Two more refusals: `#[serde(borrow)]` on a
//! `#[sortpath(serde)]` field (serde's derive reads such fields with helpers of its own), and
//! a `rename` to a name that starts with NUL (the codec reserves those):
//!
#![cfg_attr(feature = "derive", doc = "```compile_fail")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use std::borrow::Cow;
//! #[derive(sortpath::codec::Decode, serde::Deserialize)]
//! struct Key<'a> { #[serde(borrow)] #[sortpath(serde)] data: Cow<'a, [u8]> }
//! ```
//!
//! Implemented for: `bool`, every integer, `f32`, `f64`, `char`, `String` (and `str`,
//! `&str` borrowed when nothing was escaped), `Option<T>`, `Vec<T>` (and `[T]`), arrays
//! `[T; N]` (`[u8; N]` read and written in one copy), tuples of up to 12 elements, `()`,
//! `PhantomData<T>`, `Box<T>`, `&T`, [`Desc<T>`], and `uuid::Uuid` (feature `uuid`).
//!
//! # Decoding
//!
//! [`from_slice`] rejects trailing bytes and every non-canonical form (non-minimal
//! integers, unknown tags or escapes, invalid UTF-8), so for any bytes that decode,
//! encoding the value again gives the same bytes. (Maps are the exception: the decoder
//! hands entries to the map type as they come, and a `BTreeMap` drops repeated keys and
//! sorts the rest.) The format is not self-describing:
//! `deserialize_any` (untagged enums, `#[serde(flatten)]`) is unsupported, and fields
//! must not be skipped conditionally. Arbitrary input never panics, recursion stops at
//! [`MAX_DEPTH`], and allocation is bounded by the input length.

mod de;
mod desc;
mod error;
mod escape;
mod float;
mod int128;
mod int64;
mod lone_u64;
mod native;
mod one_byte;
mod prefix;
mod ser;
mod sink;
mod write;

#[cfg(feature = "chrono")]
pub mod chrono_utc;
#[cfg(any(feature = "jiff", feature = "time"))]
mod instant;
#[cfg(feature = "jiff")]
pub mod jiff_timestamp;
#[cfg(feature = "uuid")]
pub mod raw_uuid;
#[cfg(feature = "time")]
pub mod time_utc;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::Order;
pub use de::MAX_DEPTH;
pub use desc::{Desc, DESC_MASK};
pub use error::Error;
pub use escape::{ESCAPE, ESCAPED_ESCAPE, ESCAPED_NUL, TERMINATOR};
pub use int128::{
    U128_SORT_BYTE_MAX, WIDE_MAX_ENCODED_LEN, WIDE_SORT_BYTE_MAX, WIDE_SORT_BYTE_ZERO,
};
pub use native::{Decode, Decoder, Encode, Encoder};
#[cfg(feature = "derive")]
pub use sortpath_derive::{Decode, Encode};

/// What the derives' generated code names (not public API).
#[doc(hidden)]
pub mod __private {
    pub use serde::{Deserialize, Serialize};
}
pub use prefix::prefix_range;
pub use sink::Sink;

/// `false`.
pub const FALSE: u8 = 0x00;
/// `true`.
pub const TRUE: u8 = 0x01;
/// `None`: sorts before every `Some`.
pub const OPTION_NONE: u8 = 0x00;
/// `Some`, followed by the value.
pub const OPTION_SOME: u8 = 0x01;
/// Precedes every element of a sequence and every entry of a map.
pub const SEQ_ELEMENT: u8 = 0x01;
/// Ends a sequence or map; below [`SEQ_ELEMENT`], so shorter sequences sort first.
pub const SEQ_END: u8 = 0x00;

/// Encodes `value` into a new vector.
///
/// ```
/// assert_eq!(sortpath::codec::to_vec(&(7u64, "ab")).unwrap(), [0x08, 0x07, 0x61, 0x62, 0x00]);
/// ```
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(write::WINDOW_BYTES);
    to_vec_into(value, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out`. Existing bytes are kept, and `out` does not
/// reallocate when its spare capacity is large enough. On error, `out` holds its original
/// bytes.
///
/// ```
/// let mut buf = Vec::with_capacity(128);
/// sortpath::codec::to_vec_into(&1234u64, &mut buf).unwrap();
/// buf.clear(); // reuse the buffer for the next key
/// sortpath::codec::to_vec_into(&"ab", &mut buf).unwrap();
/// assert_eq!(buf, [0x61, 0x62, 0x00]);
/// ```
///
/// The encoder writes into zeroed bytes of `out`'s spare capacity: a 72-byte window when
/// there is that much (keys of up to 64 bytes fit it), else all of it, with a bounds check
/// per write. A key that does not fit is measured by that first pass and serialized again
/// into exactly its length, so `value.serialize` runs twice for it. So a buffer reused for
/// keys is best given 72 bytes of spare capacity. A key that is one `u64` takes no window:
/// its at most 9 bytes are appended as one array.
///
/// Fields of tuples and structs that take one byte of memory (`u8`, `i8`, `bool`, one-byte
/// enums and newtypes) are first asked to serialize themselves as a lone `u8`, so that runs
/// of `u8` (a `[u8; N]` field) are written a word at a time; the others refuse before
/// writing anything and are serialized again.
#[inline]
pub fn to_vec_into<T: ?Sized + Serialize>(value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
    // A key that is one `u64`: its at most 9 bytes written as one array, no window.
    if let Some(v) = lone_u64::u64_of(value) {
        let (bytes, len) = lone_u64::encode(v);
        let start = out.len();
        out.extend_from_slice(&bytes);
        out.truncate(start + len);
        return Ok(());
    }
    put_into(native::BySerde(value), out)
}

/// [`to_vec_into`] and [`encode_into`]: writes `value` into a window of `out`'s spare
/// capacity, or through [`encode_sized`].
#[inline(always)]
fn put_into<P: native::Put>(value: P, out: &mut Vec<u8>) -> Result<(), Error> {
    let start = out.len();
    if out.capacity() - start < write::WINDOW_BYTES {
        return encode_sized(value, out, start, out.capacity() - start);
    }
    // A constant-size zero fill: a few vector stores, no call.
    out.resize(start + write::WINDOW_BYTES, 0);
    let Some(window) = out.last_chunk_mut::<{ write::WINDOW_BYTES }>() else {
        unreachable!("the window was just appended")
    };
    let mut e = native::Encoder::new(write::Window::new(window));
    if let Err(e) = value.put(&mut e) {
        out.truncate(start);
        return Err(e);
    }
    let len = e.len();
    if len > write::WINDOW {
        return encode_sized(value, out, start, len);
    }
    out.truncate(start + len);
    Ok(())
}

/// The general path of [`to_vec_into`]: encodes into `size` zeroed bytes after `start`,
/// and again into the encoded length while that is larger (a `Serialize` impl may write
/// more the second time).
#[cold]
#[inline(never)]
fn encode_sized<P: native::Put>(
    value: P,
    out: &mut Vec<u8>,
    start: usize,
    size: usize,
) -> Result<(), Error> {
    let mut size = size;
    loop {
        out.resize(start + size, 0);
        let mut e = native::Encoder::new(write::Writer::new(&mut out[start..]));
        if let Err(e) = value.put(&mut e) {
            out.truncate(start);
            return Err(e);
        }
        let len = e.len();
        if len <= size {
            out.truncate(start + len);
            return Ok(());
        }
        size = len;
    }
}

/// Encodes `value` through [`Encode`] into a new vector: the bytes [`to_vec`] writes
/// for the same value through serde.
///
/// ```
/// assert_eq!(sortpath::codec::encode(&(7u64, "ab")).unwrap(), [0x08, 0x07, 0x61, 0x62, 0x00]);
/// ```
pub fn encode<T: ?Sized + Encode>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(write::WINDOW_BYTES);
    encode_into(value, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out` through [`Encode`]; otherwise as
/// [`to_vec_into`] (no reallocation when `out` has 72 bytes of spare capacity, `out`
/// unchanged on error).
///
/// ```
/// let mut buf = Vec::with_capacity(128);
/// sortpath::codec::encode_into(&(1234u64, [0xAB_u8; 2]), &mut buf).unwrap();
/// assert_eq!(buf, sortpath::codec::to_vec(&(1234u64, [0xAB_u8; 2])).unwrap());
/// ```
#[inline]
pub fn encode_into<T: ?Sized + Encode>(value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
    put_into(native::ByEncode(value), out)
}

/// Decodes a value through [`Decode`] from all of `bytes`: what [`from_slice`] does
/// through serde, with the same checks and errors.
///
/// ```
/// let v: (u64, String) = sortpath::codec::decode(&[0x08, 0x07, 0x61, 0x00]).unwrap();
/// assert_eq!(v, (7, "a".to_string()));
/// let err = sortpath::codec::decode::<u64>(&[0x08, 0x07, 0x00]).unwrap_err();
/// assert_eq!(err.to_string(), "expected the end of input, found 1 trailing byte(s) at byte offset 2");
/// ```
#[inline(always)]
pub fn decode<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut d = Decoder::new(bytes);
    // Checked and returned in place: the value is not moved into another `Result`, which
    // for a large key can be a `memcpy` call.
    let mut result = T::decode(&mut d);
    match &mut result {
        Ok(_) if d.position() != bytes.len() => {
            result = Err(trailing_bytes(bytes.len(), d.position()));
        }
        Ok(_) => {}
        Err(e) => e.fill_offset(0),
    }
    result
}

/// Decodes a value through [`Decode`] from the start of `bytes`, returning it and the
/// number of bytes used, as [`from_slice_prefix`] does through serde.
///
/// ```
/// let key = sortpath::codec::to_vec(&(7u64, "rest", 1.5f64)).unwrap();
/// let (tenant, used): (u64, usize) = sortpath::codec::decode_prefix(&key).unwrap();
/// assert_eq!((tenant, used), (7, 2));
/// ```
pub fn decode_prefix<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<(T, usize), Error> {
    let mut d = Decoder::new(bytes);
    match T::decode(&mut d) {
        Ok(value) => Ok((value, d.position())),
        Err(e) => Err(e.or_at(0)),
    }
}

/// Writes the encoding of `value` to `writer` (encoded in memory first, then written once).
///
/// ```
/// let mut out = Vec::new();
/// sortpath::codec::to_writer(&mut out, &Some(true)).unwrap();
/// assert_eq!(out, [0x01, 0x01]);
/// ```
pub fn to_writer<W: std::io::Write, T: ?Sized + Serialize>(
    mut writer: W,
    value: &T,
) -> Result<(), Error> {
    let bytes = to_vec(value)?;
    writer.write_all(&bytes).map_err(Error::io)
}

/// Encodes `value` as a whole-key ascending or descending key.
///
/// ```
/// use sortpath::codec::to_vec_ordered;
/// use sortpath::Order;
/// assert_eq!(to_vec_ordered(&0u64, Order::Descending).unwrap(), [0xF8, 0x00]);
/// ```
pub fn to_vec_ordered<T: ?Sized + Serialize>(value: &T, order: Order) -> Result<Vec<u8>, Error> {
    match order {
        Order::Ascending => to_vec(value),
        Order::Descending => to_vec(&Desc(value)),
    }
}

/// Decodes a value from exactly `bytes`; trailing bytes are an error.
///
/// ```
/// let v: (u64, String) = sortpath::codec::from_slice(&[0x08, 0x07, 0x61, 0x00]).unwrap();
/// assert_eq!(v, (7, "a".to_string()));
/// let err = sortpath::codec::from_slice::<u64>(&[0x08, 0x07, 0x00]).unwrap_err();
/// assert_eq!(err.to_string(), "expected the end of input, found 1 trailing byte(s) at byte offset 2");
/// ```
#[inline]
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut de = de::Deserializer::new(bytes);
    match T::deserialize(&mut de) {
        Ok(value) if de.position() == bytes.len() => Ok(value),
        Ok(_) => Err(trailing_bytes(bytes.len(), de.position())),
        // An error without an offset comes from the value's type (a `NonZeroU32` of 0):
        // it is about the value, which starts at 0.
        Err(e) => Err(e.or_at(0)),
    }
}

/// The error for bytes left over after a value.
#[cold]
fn trailing_bytes(len: usize, used: usize) -> Error {
    Error::unexpected(
        "the end of input",
        error::Found::Text(format!("{} trailing byte(s)", len - used)),
        used,
    )
}

/// Decodes a value from the start of `bytes`, returning it and the number of bytes used
/// (for keys whose leading fields you want without knowing the rest).
///
/// ```
/// let key = sortpath::codec::to_vec(&(7u64, "rest", 1.5f64)).unwrap();
/// let (tenant, used): (u64, usize) = sortpath::codec::from_slice_prefix(&key).unwrap();
/// assert_eq!((tenant, used), (7, 2));
/// ```
pub fn from_slice_prefix<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, usize), Error> {
    let mut de = de::Deserializer::new(bytes);
    match T::deserialize(&mut de) {
        Ok(value) => Ok((value, de.position())),
        Err(e) => Err(e.or_at(0)),
    }
}

/// Decodes a key written with [`to_vec_ordered`] in the given order.
///
/// ```
/// use sortpath::codec::{from_slice_ordered, to_vec_ordered};
/// use sortpath::Order;
/// let key = to_vec_ordered(&(1u64, "a"), Order::Descending).unwrap();
/// let v: (u64, String) = from_slice_ordered(&key, Order::Descending).unwrap();
/// assert_eq!(v, (1, "a".into()));
/// ```
pub fn from_slice_ordered<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    order: Order,
) -> Result<T, Error> {
    match order {
        Order::Ascending => from_slice(bytes),
        Order::Descending => from_slice::<Desc<T>>(bytes).map(|d| d.0),
    }
}
