//! [`Encode`] and [`Decode`]: the codec without serde's generic layer in between.
//!
//! A type that implements them (by `#[derive(Encode, Decode)]` with the `derive` feature,
//! or by hand) encodes to exactly the bytes serde's derives give through [`super::to_vec`],
//! so the two can be mixed freely: a key written by one is read by the other. The point
//! is speed that does not depend on the build profile: serde's derived code reaches the
//! encoder through generic visitors and sequence accessors, and whether the compiler
//! flattens them (one 16-byte read for a `[u8; 16]`, strings built in registers) changes
//! with `codegen-units` and LTO. These traits call the codec's readers and writers
//! directly.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use super::de::{field_failed, Deserializer};
use super::desc::{Desc, DESC_MASK};
use super::error::{Error, Found};
use super::ser::Serializer;
use super::sink::Sink;
use super::{escape, SEQ_ELEMENT, SEQ_END};

/// A value the codec writes without going through serde; derive it with
/// `#[derive(sortpath::codec::Encode)]` (feature `derive`).
///
/// The bytes are the ones [`super::to_vec`] writes for the same value through serde's
/// derived `Serialize` (fields in declaration order, enum variants by index), so keys
/// written either way sort together and decode either way.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use sortpath::codec::{encode, to_vec, Desc, Encode};
/// #[derive(Encode, serde::Serialize)]
/// struct Key { tenant: u64, newest_first: Desc<u64>, name: String }
/// let key = Key { tenant: 7, newest_first: Desc(1_700_000_000), name: "ada".into() };
/// assert_eq!(encode(&key).unwrap(), to_vec(&key).unwrap());
/// # }
/// ```
pub trait Encode {
    /// Writes the value's bytes. Fails only where a field is written through serde
    /// ([`Encoder::serde`]) and its `Serialize` impl fails.
    ///
    /// ```
    /// use sortpath::codec::{Encode, Encoder, Error, Sink};
    /// struct Pair(u16, String);
    /// impl Encode for Pair {
    ///     fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
    ///         self.0.encode(e)?;
    ///         self.1.encode(e)
    ///     }
    /// }
    /// let bytes = sortpath::codec::encode(&Pair(1, "a".into())).unwrap();
    /// assert_eq!(bytes, sortpath::codec::to_vec(&(1u16, "a")).unwrap());
    /// ```
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error>;

    /// Writes the elements of an array, back to back. `u8` writes them in one copy.
    #[doc(hidden)]
    #[inline]
    fn encode_array<S: Sink>(items: &[Self], e: &mut Encoder<S>) -> Result<(), Error>
    where
        Self: Sized,
    {
        items.iter().try_for_each(|item| item.encode(e))
    }
}

/// A value the codec reads without going through serde; derive it with
/// `#[derive(sortpath::codec::Decode)]` (feature `derive`).
///
/// Reads the bytes serde's derived `Deserialize` reads through [`super::from_slice`], with
/// the same checks, the same errors at the same offsets (only an enum variant index the
/// enum does not have is worded differently) and the same nesting limit
/// ([`super::MAX_DEPTH`]).
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use sortpath::codec::{decode, to_vec, Decode};
/// #[derive(Decode, serde::Serialize, Debug, PartialEq)]
/// struct Key { tenant: u64, id: [u8; 4], name: String }
/// let key = Key { tenant: 7, id: *b"\x00\x01\xfe\xff", name: "ada".into() };
/// assert_eq!(decode::<Key>(&to_vec(&key).unwrap()).unwrap(), key);
/// # }
/// ```
pub trait Decode<'de>: Sized {
    /// Reads one value.
    ///
    /// ```
    /// use sortpath::codec::{Decode, Decoder, Error};
    /// struct Pair(u16, String);
    /// impl<'de> Decode<'de> for Pair {
    ///     fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
    ///         Ok(Pair(u16::decode(d)?, String::decode(d)?))
    ///     }
    /// }
    /// let pair: Pair = sortpath::codec::decode(&[0x08, 0x01, 0x61, 0x00]).unwrap();
    /// assert_eq!((pair.0, pair.1.as_str()), (1, "a"));
    /// ```
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error>;

    /// Reads the `N` elements of an array. `u8` reads them in one copy.
    #[doc(hidden)]
    #[inline]
    fn decode_array<const N: usize>(d: &mut Decoder<'de>) -> Result<[Self; N], Error> {
        // Through a vector (one allocation): safe code cannot fill an array element by
        // element when an element may fail. Exactly `N` are pushed, so the conversion
        // succeeds; its error is reported, not unwrapped, all the same.
        let mut items = Vec::with_capacity(N);
        for _ in 0..N {
            items.push(d.__field::<Self>()?);
        }
        let (got, at) = (items.len(), d.position());
        items.try_into().map_err(|_| {
            Error::unexpected(
                "an array's elements",
                Found::Text(format!("{got} of {N} elements")),
                at,
            )
        })
    }
}

/// Where [`Encode::encode`] writes: the codec's output, passed to every field in turn.
///
/// ```
/// use sortpath::codec::{Encode, Encoder, Error, Sink};
/// struct Version { major: u32, minor: u32 }
/// impl Encode for Version {
///     fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
///         self.major.encode(e)?;
///         self.minor.encode(e)
///     }
/// }
/// let v1_10 = sortpath::codec::encode(&Version { major: 1, minor: 10 }).unwrap();
/// let v1_9 = sortpath::codec::encode(&Version { major: 1, minor: 9 }).unwrap();
/// assert!(v1_9 < v1_10);
/// ```
pub struct Encoder<S> {
    ser: Serializer<S>,
}

impl<S: Sink> Encoder<S> {
    #[inline(always)]
    pub(crate) fn new(out: S) -> Self {
        Encoder {
            ser: Serializer { out },
        }
    }

    /// Bytes written so far (also the ones past a full buffer, which the codec then writes
    /// again into a larger one).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.ser.out.len()
    }

    /// Writes `value` through its serde `Serialize` impl: for field types that do not
    /// implement [`Encode`] (derive: `#[sortpath(serde)]` on the field). The bytes are the
    /// same either way.
    ///
    /// ```
    /// use sortpath::codec::{Encode, Encoder, Error, Sink};
    /// use std::collections::BTreeMap;
    /// struct Tags(BTreeMap<String, u32>);
    /// impl Encode for Tags {
    ///     fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
    ///         e.serde(&self.0)
    ///     }
    /// }
    /// let tags = Tags(BTreeMap::from([("a".to_string(), 1)]));
    /// assert_eq!(sortpath::codec::encode(&tags).unwrap(), sortpath::codec::to_vec(&tags.0).unwrap());
    /// ```
    #[inline]
    pub fn serde<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut self.ser)
    }

    /// An enum variant's index (derive support).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __variant(&mut self, index: u32) {
        self.ser.variant(index);
    }
}

/// Where [`Decode::decode`] reads from: the input and the position in it.
///
/// ```
/// use sortpath::codec::{Decode, Decoder, Error};
/// struct Version { major: u32, minor: u32 }
/// impl<'de> Decode<'de> for Version {
///     fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
///         Ok(Version { major: u32::decode(d)?, minor: u32::decode(d)? })
///     }
/// }
/// let v: Version = sortpath::codec::decode(&sortpath::codec::to_vec(&(1u32, 10u32)).unwrap()).unwrap();
/// assert_eq!((v.major, v.minor), (1, 10));
/// ```
pub struct Decoder<'de> {
    de: Deserializer<'de>,
}

impl<'de> Decoder<'de> {
    #[inline(always)]
    pub(crate) fn new(input: &'de [u8]) -> Self {
        Decoder {
            de: Deserializer::new(input),
        }
    }

    /// Bytes of the input read so far.
    ///
    /// ```
    /// use sortpath::codec::{Decode, Decoder, Error};
    /// /// A number and how many bytes its encoding took.
    /// struct Sized(u64, usize);
    /// impl<'de> Decode<'de> for Sized {
    ///     fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
    ///         let start = d.position();
    ///         let n = u64::decode(d)?;
    ///         Ok(Sized(n, d.position() - start))
    ///     }
    /// }
    /// let s: Sized = sortpath::codec::decode(&sortpath::codec::to_vec(&1234u64).unwrap()).unwrap();
    /// assert_eq!((s.0, s.1), (1234, 3));
    /// ```
    #[inline]
    pub fn position(&self) -> usize {
        self.de.position()
    }

    /// Reads a value through its serde `Deserialize` impl: for field types that do not
    /// implement [`Decode`] (derive: `#[sortpath(serde)]` on the field).
    ///
    /// ```
    /// use sortpath::codec::{Decode, Decoder, Error};
    /// use std::collections::BTreeMap;
    /// struct Tags(BTreeMap<String, u32>);
    /// impl<'de> Decode<'de> for Tags {
    ///     fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
    ///         d.serde().map(Tags)
    ///     }
    /// }
    /// let bytes = sortpath::codec::to_vec(&BTreeMap::from([("a", 1u32)])).unwrap();
    /// let tags: Tags = sortpath::codec::decode(&bytes).unwrap();
    /// assert_eq!(tags.0["a"], 1);
    /// ```
    #[inline]
    pub fn serde<T: Deserialize<'de>>(&mut self) -> Result<T, Error> {
        T::deserialize(&mut self.de)
    }

    /// A field of a struct, tuple or variant: an error inside it without an offset gets
    /// the field's (derive support).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __field<T: Decode<'de>>(&mut self) -> Result<T, Error> {
        self.field(T::decode)
    }

    /// [`Self::__field`] read through serde (derive support).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __serde_field<T: Deserialize<'de>>(&mut self) -> Result<T, Error> {
        self.field(Self::serde)
    }

    /// Reads a field with `read`, giving an error without an offset the field's.
    #[inline(always)]
    fn field<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        let start = self.de.position();
        match read(self) {
            Ok(value) => Ok(value),
            Err(e) => Err(field_failed(e, start)),
        }
    }

    /// Goes one nesting level deeper (derive support: every struct, tuple struct and enum
    /// is one level, as through serde), refusing to go past [`super::MAX_DEPTH`].
    #[doc(hidden)]
    #[inline(always)]
    pub fn __enter(&mut self) -> Result<(), Error> {
        self.de.enter()
    }

    /// Leaves the level [`Self::__enter`] went into (derive support).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __leave(&mut self) {
        self.de.leave();
    }

    /// Runs `f` one nesting level deeper.
    #[inline(always)]
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        self.de.enter()?;
        let result = f(self);
        self.de.leave();
        result
    }

    /// An enum's variant index, below `count` (derive support).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __variant(&mut self, count: u32) -> Result<u32, Error> {
        let start = self.de.position();
        let index: u32 = self.de.uint("a variant index")?;
        if index < count {
            Ok(index)
        } else {
            Err(unknown_variant(index, count, start))
        }
    }

    /// Reads the variant index of an enum without variants: always an error (derive
    /// support).
    #[doc(hidden)]
    #[inline]
    pub fn __no_variant<T>(&mut self) -> Result<T, Error> {
        let start = self.de.position();
        // Fails for every index; the error below is for the compiler.
        let index = self.__variant(0)?;
        Err(unknown_variant(index, 0, start))
    }
}

/// The error for a variant index the enum does not have.
#[cold]
fn unknown_variant(index: u32, count: u32, at: usize) -> Error {
    Error::unexpected(
        "a variant index of the enum",
        Found::Text(format!(
            "variant index {index} (the enum has {count} variants)"
        )),
        at,
    )
}

/// A value [`super::put_into`] can write: through serde or through [`Encode`]. A
/// reference in a wrapper, passed by value (a reference to the wrapper would be one more
/// pointer in memory).
pub(crate) trait Put: Copy {
    fn put<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error>;
}

/// Writes through serde ([`super::to_vec_into`]).
pub(crate) struct BySerde<'a, T: ?Sized>(pub(crate) &'a T);

// By hand: derived, they would require `T: Copy`.
impl<T: ?Sized> Clone for BySerde<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for BySerde<'_, T> {}

impl<T: ?Sized + Serialize> Put for BySerde<'_, T> {
    #[inline(always)]
    fn put<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        self.0.serialize(&mut e.ser)
    }
}

/// Writes through [`Encode`] ([`super::encode_into`]).
pub(crate) struct ByEncode<'a, T: ?Sized>(pub(crate) &'a T);

// By hand: derived, they would require `T: Copy`.
impl<T: ?Sized> Clone for ByEncode<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for ByEncode<'_, T> {}

impl<T: ?Sized + Encode> Put for ByEncode<'_, T> {
    #[inline(always)]
    fn put<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        self.0.encode(e)
    }
}

/// The first `len` (at most 7) bytes of `word` as a `String`, with the high bit of every
/// byte cleared (the caller has checked that the content bytes are ASCII).
///
/// The one `unsafe` in the crate: the bytes are made ASCII by the mask itself, whatever
/// the input, so every prefix of them is UTF-8. Safe code has to check that again
/// (`String::from_utf8`) or push the bytes one by one as `char`s, which some build
/// profiles compile to eight stores of the length into a `String` in memory; either
/// takes more time than decoding the field.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn ascii_word_string(word: [u8; 8], len: usize) -> String {
    let ascii = (u64::from_le_bytes(word) & !escape::HIGHS).to_le_bytes();
    let mut bytes = Vec::with_capacity(8);
    bytes.extend_from_slice(&ascii);
    bytes.truncate(len);
    debug_assert!(bytes.is_ascii());
    // SAFETY: every byte of `ascii` is below 0x80 (the mask clears bit 7 of each), so any
    // prefix of it is ASCII, which is valid UTF-8.
    unsafe { String::from_utf8_unchecked(bytes) }
}

/// `Encode` and `Decode` for integers read as sort-byte integers.
macro_rules! ints {
    ($($t:ty: $ser:ident, $read:ident, $what:literal;)*) => {$(
        impl Encode for $t {
            #[inline(always)]
            fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
                serde::Serializer::$ser(&mut e.ser, *self)
            }
        }
        impl<'de> Decode<'de> for $t {
            #[inline(always)]
            fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
                d.de.$read::<$t>($what)
            }
        }
    )*};
}

ints! {
    u16: serialize_u16, uint, "a u16";
    u32: serialize_u32, uint, "a u32";
    u64: serialize_u64, uint, "a u64";
    i8: serialize_i8, sint, "an i8";
    i16: serialize_i16, sint, "an i16";
    i32: serialize_i32, sint, "an i32";
    i64: serialize_i64, sint, "an i64";
}

/// `Encode` and `Decode` through the codec's serde impl, for types whose serde path has
/// no generic layer worth skipping (and for `usize`/`isize`, which serde writes as 64-bit).
macro_rules! through_serde {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            #[inline]
            fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
                e.serde(self)
            }
        }
        impl<'de> Decode<'de> for $t {
            #[inline]
            fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
                d.serde()
            }
        }
    )*};
}

through_serde!(usize, isize, u128, i128, f32, f64, char);

#[cfg(feature = "uuid")]
through_serde!(uuid::Uuid);

impl Encode for u8 {
    /// One raw byte (the codec's byte type).
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        e.ser.out.byte(*self);
        Ok(())
    }

    #[inline(always)]
    fn encode_array<S: Sink>(items: &[Self], e: &mut Encoder<S>) -> Result<(), Error> {
        e.ser.out.bytes(items);
        Ok(())
    }
}

impl<'de> Decode<'de> for u8 {
    #[inline(always)]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        d.de.byte("a u8 byte")
    }

    #[inline(always)]
    fn decode_array<const N: usize>(d: &mut Decoder<'de>) -> Result<[Self; N], Error> {
        d.de.array::<N>("a u8 byte")
    }
}

impl Encode for bool {
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        serde::Serializer::serialize_bool(&mut e.ser, *self)
    }
}

impl<'de> Decode<'de> for bool {
    #[inline(always)]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        d.de.bool()
    }
}

impl Encode for str {
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        serde::Serializer::serialize_str(&mut e.ser, self)
    }
}

impl Encode for String {
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        self.as_str().encode(e)
    }
}

impl<'de> Decode<'de> for String {
    #[inline(always)]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        match d.de.short_ascii() {
            Some((word, len)) => Ok(ascii_word_string(word, len)),
            None => String::deserialize(&mut d.de),
        }
    }
}

/// Borrowed from the input; fails for a string with escaped bytes (decode a `String`).
impl<'de: 'a, 'a> Decode<'de> for &'a str {
    #[inline]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        <&'de str>::deserialize(&mut d.de)
    }
}

impl<T: ?Sized + Encode> Encode for &T {
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        (**self).encode(e)
    }
}

impl<T: ?Sized + Encode> Encode for Box<T> {
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        (**self).encode(e)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Box<T> {
    #[inline]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        T::decode(d).map(Box::new)
    }
}

impl<T: Encode> Encode for Option<T> {
    #[inline]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        match self {
            None => serde::Serializer::serialize_none(&mut e.ser),
            Some(value) => {
                e.ser.out.byte(super::OPTION_SOME);
                value.encode(e)
            }
        }
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    #[inline]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        if d.de.option_tag()? {
            d.nested(|d| T::decode(d).map(Some))
        } else {
            Ok(None)
        }
    }
}

/// A sequence: each element after a marker byte, an end marker after the last.
impl<T: Encode> Encode for [T] {
    #[inline]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        for item in self {
            e.ser.out.byte(SEQ_ELEMENT);
            item.encode(e)?;
        }
        e.ser.out.byte(SEQ_END);
        Ok(())
    }
}

impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        self.as_slice().encode(e)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    #[inline]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        d.nested(|d| {
            // No capacity from the input: every element takes at least its marker byte.
            let mut items = Vec::new();
            while d.de.seq_marker()? {
                items.push(d.__field()?);
            }
            Ok(items)
        })
    }
}

/// The elements back to back, as a tuple.
impl<T: Encode, const N: usize> Encode for [T; N] {
    #[inline(always)]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        T::encode_array(self, e)
    }
}

impl<'de, T: Decode<'de>, const N: usize> Decode<'de> for [T; N] {
    #[inline(always)]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        d.nested(|d| T::decode_array::<N>(d))
    }
}

/// Inverts the inner value's bytes.
impl<T: Encode> Encode for Desc<T> {
    #[inline]
    fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
        let start = e.len();
        self.0.encode(e)?;
        // Nested descending fields are inverted twice, so they end up ascending.
        e.ser.out.invert_from(start, DESC_MASK);
        Ok(())
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Desc<T> {
    #[inline]
    fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
        d.de.enter()?;
        d.de.flip_mask();
        let result = T::decode(d);
        d.de.flip_mask();
        d.de.leave();
        result.map(Desc)
    }
}

/// No bytes.
impl Encode for () {
    #[inline(always)]
    fn encode<S: Sink>(&self, _e: &mut Encoder<S>) -> Result<(), Error> {
        Ok(())
    }
}

impl<'de> Decode<'de> for () {
    #[inline(always)]
    fn decode(_d: &mut Decoder<'de>) -> Result<Self, Error> {
        Ok(())
    }
}

/// No bytes.
impl<T: ?Sized> Encode for PhantomData<T> {
    #[inline(always)]
    fn encode<S: Sink>(&self, _e: &mut Encoder<S>) -> Result<(), Error> {
        Ok(())
    }
}

impl<'de, T: ?Sized> Decode<'de> for PhantomData<T> {
    #[inline(always)]
    fn decode(_d: &mut Decoder<'de>) -> Result<Self, Error> {
        Ok(PhantomData)
    }
}

/// Tuples: the elements back to back.
macro_rules! tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            #[inline(always)]
            fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
                $(self.$index.encode(e)?;)+
                Ok(())
            }
        }
        impl<'de, $($name: Decode<'de>),+> Decode<'de> for ($($name,)+) {
            #[inline(always)]
            fn decode(d: &mut Decoder<'de>) -> Result<Self, Error> {
                d.nested(|d| Ok(($(d.__field::<$name>()?,)+)))
            }
        }
    )*};
}

tuples! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11)
}
