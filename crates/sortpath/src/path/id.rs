//! Typed IDs of key path components: [`Id`] (owned, for building) and [`IdRef`] (borrowed
//! from an encoding).

use std::borrow::Cow;

use super::binary::{TYPE_BYTES, TYPE_INT, TYPE_STRING, TYPE_UUID};
use super::escape::{self, BYTES_MARKER, EMPTY_STRING};
use crate::int::{IntRangeError, I65};

/// The ID of a key path component.
///
/// ```
/// use sortpath::Id;
/// assert_eq!(Id::from(42u64), Id::Int(sortpath::I65::from(42u64)));
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
/// assert_eq!(sortpath::Id::from("x").id_type(), sortpath::path::IdType::Str);
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
    /// assert_eq!(sortpath::Id::from(1u8).id_type(), sortpath::path::IdType::Int);
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

/// The ID of a key path component, borrowed from the path's encoding (see
/// [`super::Segment::id`]); [`Id`] is the owned form. Strings and bytes borrow their
/// encoding unless it has escaped bytes (`0x00..=0x10`), which are unescaped into a copy.
///
/// ```
/// use sortpath::{path::IdRef, Id, KeyPath};
/// let path: KeyPath = "/a-7/b-x/c-~AAE".parse().unwrap();
/// let ids: Vec<IdRef<'_>> = path.segments().filter_map(|s| s.id()).collect();
/// assert_eq!(ids[0], IdRef::Int(7u64.into()));
/// assert_eq!(ids[1], IdRef::Str("x".into()));
/// assert_eq!(ids[2], Id::Bytes(vec![0, 1]));
/// assert_eq!(ids[2].to_id(), Id::Bytes(vec![0, 1]));
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum IdRef<'a> {
    /// An integer in `-(2^64-1) ..= 2^64-1`.
    Int(I65),
    /// A string.
    Str(Cow<'a, str>),
    /// A UUID's 16 bytes.
    Uuid([u8; 16]),
    /// A byte string.
    Bytes(Cow<'a, [u8]>),
}

impl<'a> IdRef<'a> {
    /// Reads an ID segment of type `type_code` that validation accepted.
    pub(crate) fn from_encoded(type_code: u8, bytes: &'a [u8]) -> IdRef<'a> {
        // Validated segments always read; the fallbacks below are never taken.
        match type_code {
            TYPE_INT => IdRef::Int(I65::decode_prefix(bytes).map_or(I65::ZERO, |(v, _)| v)),
            TYPE_STRING if bytes == [EMPTY_STRING] => IdRef::Str(Cow::Borrowed("")),
            TYPE_STRING => IdRef::Str(match unescaped(bytes) {
                Cow::Borrowed(b) => Cow::Borrowed(std::str::from_utf8(b).unwrap_or_default()),
                Cow::Owned(v) => Cow::Owned(String::from_utf8(v).unwrap_or_default()),
            }),
            TYPE_UUID => IdRef::Uuid(bytes.try_into().unwrap_or_default()),
            TYPE_BYTES => match bytes.split_first() {
                Some((&BYTES_MARKER, rest)) => IdRef::Bytes(unescaped(rest)),
                _ => IdRef::Bytes(Cow::Borrowed(&[])),
            },
            _ => IdRef::Bytes(Cow::Borrowed(&[])),
        }
    }

    /// The ID's type.
    ///
    /// ```
    /// use sortpath::path::{IdRef, IdType};
    /// assert_eq!(IdRef::Str("a".into()).id_type(), IdType::Str);
    /// ```
    pub fn id_type(&self) -> IdType {
        match self {
            IdRef::Int(_) => IdType::Int,
            IdRef::Str(_) => IdType::Str,
            IdRef::Uuid(_) => IdType::Uuid,
            IdRef::Bytes(_) => IdType::Bytes,
        }
    }

    /// The owned [`Id`].
    ///
    /// ```
    /// use sortpath::{path::IdRef, Id};
    /// assert_eq!(IdRef::Str("a".into()).to_id(), Id::from("a"));
    /// ```
    pub fn to_id(&self) -> Id {
        match self {
            IdRef::Int(v) => Id::Int(*v),
            IdRef::Str(s) => Id::Str(s.clone().into_owned()),
            IdRef::Uuid(u) => Id::Uuid(*u),
            IdRef::Bytes(b) => Id::Bytes(b.clone().into_owned()),
        }
    }
}

/// `escaped` (valid) unescaped, borrowed when nothing is escaped.
fn unescaped(escaped: &[u8]) -> Cow<'_, [u8]> {
    // Valid escaped content has bytes below 0x11 only in escapes, which start with 0x10.
    if !escaped.contains(&escape::ESCAPE) {
        return Cow::Borrowed(escaped);
    }
    Cow::Owned(escape::unescape(escaped).unwrap_or_default())
}

impl<'a> From<&'a Id> for IdRef<'a> {
    fn from(id: &'a Id) -> IdRef<'a> {
        match id {
            Id::Int(v) => IdRef::Int(*v),
            Id::Str(s) => IdRef::Str(Cow::Borrowed(s)),
            Id::Uuid(u) => IdRef::Uuid(*u),
            Id::Bytes(b) => IdRef::Bytes(Cow::Borrowed(b)),
        }
    }
}

impl From<IdRef<'_>> for Id {
    fn from(id: IdRef<'_>) -> Id {
        match id {
            IdRef::Int(v) => Id::Int(v),
            IdRef::Str(s) => Id::Str(s.into_owned()),
            IdRef::Uuid(u) => Id::Uuid(u),
            IdRef::Bytes(b) => Id::Bytes(b.into_owned()),
        }
    }
}

impl PartialEq<Id> for IdRef<'_> {
    fn eq(&self, other: &Id) -> bool {
        match (self, other) {
            (IdRef::Int(a), Id::Int(b)) => a == b,
            (IdRef::Str(a), Id::Str(b)) => **a == **b,
            (IdRef::Uuid(a), Id::Uuid(b)) => a == b,
            (IdRef::Bytes(a), Id::Bytes(b)) => **a == **b,
            _ => false,
        }
    }
}

impl PartialEq<IdRef<'_>> for Id {
    fn eq(&self, other: &IdRef<'_>) -> bool {
        other == self
    }
}

impl std::fmt::Display for IdRef<'_> {
    /// The ID's canonical text, as it appears after `namespace-` in a key path.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_id().fmt(f)
    }
}
