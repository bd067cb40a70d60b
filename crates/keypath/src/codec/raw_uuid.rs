//! `#[serde(with = "keypath::codec::raw_uuid")]`: a `Uuid` as exactly 16 raw bytes.
//!
//! A plain `uuid::Uuid` field already works with the codec: in non-human-readable formats
//! it serializes as a byte string, so it orders correctly and takes 17 bytes (plus one per
//! `0x00`/`0x01` byte it contains). With this module it is written as a tuple of 16 `u8`,
//! which the codec stores as 16 raw bytes (fixed width, so no terminator is needed).
//! Human-readable formats (JSON) keep the usual hyphenated text.
//!
//! ```
//! use keypath::codec::{from_slice, to_vec};
//! use uuid::Uuid;
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Key(#[serde(with = "keypath::codec::raw_uuid")] Uuid);
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
/// struct K(#[serde(serialize_with = "keypath::codec::raw_uuid::serialize")] uuid::Uuid);
/// assert_eq!(keypath::codec::to_vec(&K(uuid::Uuid::nil())).unwrap(), [0u8; 16]);
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
/// struct K(#[serde(deserialize_with = "keypath::codec::raw_uuid::deserialize")] uuid::Uuid);
/// let k: K = keypath::codec::from_slice(&[0xFF; 16]).unwrap();
/// assert_eq!(k.0, uuid::Uuid::max());
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
    if deserializer.is_human_readable() {
        Uuid::deserialize(deserializer)
    } else {
        <[u8; 16]>::deserialize(deserializer).map(Uuid::from_bytes)
    }
}
