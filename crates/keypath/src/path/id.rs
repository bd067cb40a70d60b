//! Typed IDs of key path components.

use crate::int::{IntRangeError, I65};

/// The ID of a key path component.
///
/// ```
/// use keypath::Id;
/// assert_eq!(Id::from(42u64), Id::Int(keypath::I65::from(42u64)));
/// assert_eq!(Id::from("abc"), Id::Str("abc".to_owned()));
/// assert_eq!(Id::from(&b"\x00"[..]), Id::Bytes(vec![0]));
/// assert!(Id::from(-1i64) < Id::from(0u64));
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Id {
    /// An integer in `-(2^64-1) ..= 2^64-1`; encoded with the sort-byte scheme.
    Int(I65),
    /// Any Unicode string, including empty and control characters.
    Str(String),
    /// A UUID, encoded as its 16 raw bytes.
    Uuid([u8; 16]),
    /// Any bytes, of any length.
    Bytes(Vec<u8>),
}

/// The type of an [`Id`], as recorded in the binary form's metadata.
///
/// ```
/// assert_eq!(keypath::Id::from("x").id_type(), keypath::IdType::Str);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IdType {
    /// [`Id::Int`].
    Int,
    /// [`Id::Str`].
    Str,
    /// [`Id::Uuid`].
    Uuid,
    /// [`Id::Bytes`].
    Bytes,
}

impl Id {
    /// The ID's type.
    ///
    /// ```
    /// assert_eq!(keypath::Id::from(1u8).id_type(), keypath::IdType::Int);
    /// ```
    pub fn id_type(&self) -> IdType {
        match self {
            Id::Int(_) => IdType::Int,
            Id::Str(_) => IdType::Str,
            Id::Uuid(_) => IdType::Uuid,
            Id::Bytes(_) => IdType::Bytes,
        }
    }
}

impl std::fmt::Display for IdType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IdType::Int => "int",
            IdType::Str => "string",
            IdType::Uuid => "uuid",
            IdType::Bytes => "bytes",
        })
    }
}

macro_rules! id_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Id {
            fn from(v: $t) -> Id {
                Id::Int(I65::from(v))
            }
        }
    )*};
}
id_from_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, I65);

impl TryFrom<i128> for Id {
    type Error = IntRangeError;
    fn try_from(v: i128) -> Result<Id, IntRangeError> {
        I65::try_from(v).map(Id::Int)
    }
}

impl TryFrom<u128> for Id {
    type Error = IntRangeError;
    fn try_from(v: u128) -> Result<Id, IntRangeError> {
        I65::try_from(v).map(Id::Int)
    }
}

impl From<&str> for Id {
    fn from(v: &str) -> Id {
        Id::Str(v.to_owned())
    }
}

impl From<String> for Id {
    fn from(v: String) -> Id {
        Id::Str(v)
    }
}

impl From<&String> for Id {
    fn from(v: &String) -> Id {
        Id::Str(v.clone())
    }
}

impl From<&[u8]> for Id {
    fn from(v: &[u8]) -> Id {
        Id::Bytes(v.to_vec())
    }
}

impl From<Vec<u8>> for Id {
    fn from(v: Vec<u8>) -> Id {
        Id::Bytes(v)
    }
}

#[cfg(feature = "uuid")]
impl From<uuid::Uuid> for Id {
    fn from(v: uuid::Uuid) -> Id {
        Id::Uuid(v.into_bytes())
    }
}

impl From<&Id> for Id {
    fn from(v: &Id) -> Id {
        v.clone()
    }
}
