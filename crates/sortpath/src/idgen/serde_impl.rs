//! serde support shared by the fixed-size building blocks: text in human-readable
//! formats, raw bytes (via `serialize_bytes`) otherwise.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserializer, Serializer};

/// Longest byte form any building block uses; sequences longer than this are rejected
/// before allocation grows.
const MAX_BYTES: usize = 64;

/// Serializes `value` as its `Display` text or as `bytes`, by the format's preference.
pub(crate) fn serialize<S: Serializer, T: fmt::Display>(
    serializer: S,
    value: &T,
    bytes: &[u8],
) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.collect_str(value)
    } else {
        serializer.serialize_bytes(bytes)
    }
}

/// A type with a text form and a byte form.
pub(crate) trait TextOrBytes: FromStr + Sized {
    /// What the visitor expects, for error messages.
    const EXPECTING: &'static str;
    /// Parses the byte form.
    fn from_byte_form(bytes: &[u8]) -> Result<Self, String>;
}

struct TextOrBytesVisitor<T>(PhantomData<T>);

impl<'de, T: TextOrBytes> Visitor<'de> for TextOrBytesVisitor<T>
where
    T::Err: fmt::Display,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<T, E> {
        T::from_byte_form(v).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut bytes = Vec::new();
        while let Some(b) = seq.next_element::<u8>()? {
            if bytes.len() == MAX_BYTES {
                return Err(de::Error::invalid_length(MAX_BYTES + 1, &self));
            }
            bytes.push(b);
        }
        T::from_byte_form(&bytes).map_err(de::Error::custom)
    }
}

/// Deserializes text (human-readable formats) or bytes (others).
pub(crate) fn deserialize<'de, D: Deserializer<'de>, T: TextOrBytes>(
    deserializer: D,
) -> Result<T, D::Error>
where
    T::Err: fmt::Display,
{
    if deserializer.is_human_readable() {
        deserializer.deserialize_str(TextOrBytesVisitor(PhantomData))
    } else {
        deserializer.deserialize_bytes(TextOrBytesVisitor(PhantomData))
    }
}
