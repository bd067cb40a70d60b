//! Conversions between the sortable IDs and key path [`Id`]s.
//!
//! - [`Ksuid`] -> [`Id::Bytes`] (its 20 bytes; KSUIDs are all 20 bytes, so byte order
//!   is their order).
//! - [`Ulid`] -> [`Id::Uuid`] (its 16 bytes; same order as the ULID).
//! - UUIDv7 values are `uuid::Uuid`, which converts with `Id::from` directly.

use super::{IdParseError, Ksuid, Ulid};
use crate::Id;

impl From<Ksuid> for Id {
    /// ```
    /// use sortpath::{idgen::Ksuid, Id};
    /// let id: Ksuid = "0ujtsYcgvSTl8PAuAdqWYSMnLOv".parse()?;
    /// assert_eq!(Id::from(id), Id::Bytes(id.as_bytes().to_vec()));
    /// # Ok::<(), sortpath::idgen::IdParseError>(())
    /// ```
    fn from(id: Ksuid) -> Id {
        Id::Bytes(id.as_bytes().to_vec())
    }
}

impl From<Ulid> for Id {
    /// ```
    /// use sortpath::{idgen::Ulid, Id};
    /// let id: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse()?;
    /// assert_eq!(Id::from(id), Id::Uuid(id.to_bytes()));
    /// # Ok::<(), sortpath::idgen::IdParseError>(())
    /// ```
    fn from(id: Ulid) -> Id {
        Id::Uuid(id.to_bytes())
    }
}

impl TryFrom<&Id> for Ksuid {
    type Error = IdParseError;

    /// Reads a KSUID back from a 20-byte [`Id::Bytes`].
    ///
    /// ```
    /// use sortpath::{idgen::Ksuid, Id};
    /// assert_eq!(Ksuid::try_from(&Id::from(Ksuid::MAX)), Ok(Ksuid::MAX));
    /// assert!(Ksuid::try_from(&Id::from(7u64)).is_err());
    /// ```
    fn try_from(id: &Id) -> Result<Ksuid, IdParseError> {
        match id {
            Id::Bytes(bytes) => Ksuid::try_from(bytes.as_slice()),
            other => Err(IdParseError::IdType {
                kind: "KSUID",
                expected: "bytes",
                found: other.id_type().to_string(),
            }),
        }
    }
}

impl TryFrom<&Id> for Ulid {
    type Error = IdParseError;

    /// Reads a ULID back from an [`Id::Uuid`].
    ///
    /// ```
    /// use sortpath::{idgen::Ulid, Id};
    /// assert_eq!(Ulid::try_from(&Id::from(Ulid::MAX)), Ok(Ulid::MAX));
    /// assert!(Ulid::try_from(&Id::from("x")).is_err());
    /// ```
    fn try_from(id: &Id) -> Result<Ulid, IdParseError> {
        match id {
            Id::Uuid(bytes) => Ok(Ulid::from_bytes(*bytes)),
            other => Err(IdParseError::IdType {
                kind: "ULID",
                expected: "uuid",
                found: other.id_type().to_string(),
            }),
        }
    }
}
