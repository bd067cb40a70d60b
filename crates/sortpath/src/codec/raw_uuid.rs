//! `#[serde(with = "sortpath::codec::raw_uuid")]`: a `Uuid` as exactly 16 raw bytes.
//!
//! A plain `uuid::Uuid` field already works with the codec: in non-human-readable formats
//! it serializes as a byte string, so it orders correctly and takes 17 bytes (plus one per
//! `0x00`/`0x01` byte it contains). With this module it is written as a tuple of 16 `u8`,
//! which the codec stores as 16 raw bytes (fixed width, so no terminator is needed).
//! Human-readable formats (JSON) keep the usual hyphenated text. Where an attribute cannot
//! reach (`Option<Uuid>`, `Vec<Uuid>`, tuple elements, map keys), use the newtype
//! [`RawUuid`].
//!
//! ```
//! use sortpath::codec::{from_slice, to_vec};
//! use uuid::Uuid;
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Key(#[serde(with = "sortpath::codec::raw_uuid")] Uuid);
//! let id = Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
//! let bytes = to_vec(&Key(id)).unwrap();
//! assert_eq!(bytes, id.as_bytes());
//! assert_eq!(from_slice::<Key>(&bytes).unwrap(), Key(id));
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

/// Serializes `id` as 16 raw bytes (text in human-readable formats).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct K(#[serde(serialize_with = "sortpath::codec::raw_uuid::serialize")] uuid::Uuid);
/// assert_eq!(sortpath::codec::to_vec(&K(uuid::Uuid::nil())).unwrap(), [0u8; 16]);
/// ```
pub fn serialize<S: Serializer>(id: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        id.serialize(serializer)
    } else {
        id.as_bytes().serialize(serializer)
    }
}

/// Deserializes what [`serialize`] wrote.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct K(#[serde(deserialize_with = "sortpath::codec::raw_uuid::deserialize")] uuid::Uuid);
/// let k: K = sortpath::codec::from_slice(&[0xFF; 16]).unwrap();
/// assert_eq!(k.0, uuid::Uuid::max());
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
    if deserializer.is_human_readable() {
        Uuid::deserialize(deserializer)
    } else {
        <[u8; 16]>::deserialize(deserializer).map(Uuid::from_bytes)
    }
}

/// A `Uuid` that the codec stores as exactly 16 raw bytes wherever it sits: in an `Option`,
/// a `Vec`, a tuple or a map key, where a `#[serde(with)]` attribute cannot reach.
///
/// Serializes like a field under [`serialize`] (text in human-readable formats), orders
/// like the `Uuid` (by its bytes), and converts to and from `Uuid`.
///
/// ```
/// use sortpath::codec::{from_slice, raw_uuid::RawUuid, to_vec};
/// use uuid::Uuid;
/// let id = RawUuid(Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff));
/// // `Some` is one tag byte, then the 16 bytes.
/// let bytes = to_vec(&(Some(id), 7u64)).unwrap();
/// assert_eq!(bytes.len(), 1 + 16 + 2);
/// assert_eq!(&bytes[1..17], id.0.as_bytes());
/// assert_eq!(from_slice::<(Option<RawUuid>, u64)>(&bytes).unwrap(), (Some(id), 7));
/// assert_eq!(id.to_string(), "00112233-4455-6677-8899-aabbccddeeff");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RawUuid(pub Uuid);

impl Serialize for RawUuid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for RawUuid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize(deserializer).map(RawUuid)
    }
}

impl From<Uuid> for RawUuid {
    /// ```
    /// let id = uuid::Uuid::max();
    /// assert_eq!(sortpath::codec::raw_uuid::RawUuid::from(id).0, id);
    /// ```
    fn from(id: Uuid) -> Self {
        RawUuid(id)
    }
}

impl From<RawUuid> for Uuid {
    /// ```
    /// let raw = sortpath::codec::raw_uuid::RawUuid(uuid::Uuid::nil());
    /// assert_eq!(uuid::Uuid::from(raw), uuid::Uuid::nil());
    /// ```
    fn from(id: RawUuid) -> Self {
        id.0
    }
}

impl std::fmt::Display for RawUuid {
    /// The hyphenated lower-case text, as `Uuid` prints it.
    ///
    /// ```
    /// let raw = sortpath::codec::raw_uuid::RawUuid(uuid::Uuid::nil());
    /// assert_eq!(raw.to_string(), "00000000-0000-0000-0000-000000000000");
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for RawUuid {
    type Err = uuid::Error;

    /// Any text `Uuid` parses.
    ///
    /// ```
    /// let raw: sortpath::codec::raw_uuid::RawUuid =
    ///     "00112233-4455-6677-8899-aabbccddeeff".parse().unwrap();
    /// assert_eq!(raw.0.as_u128(), 0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(RawUuid)
    }
}
