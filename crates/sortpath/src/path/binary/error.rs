//! The decoding error: where and why bytes are not a valid key path encoding.

use crate::int::IntDecodeError;

/// Where and why bytes are not a valid key path encoding.
///
/// ```
/// let err = sortpath::KeyPath::decode(&[0x61, 0x01, 0x09]).unwrap_err();
/// assert!(err.to_string().starts_with("at byte"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct DecodeError {
    offset: usize,
    kind: DecodeErrorKind,
}

/// The problem a [`DecodeError`] reports.
///
/// ```
/// let err = sortpath::KeyPath::decode(&[]).unwrap_err();
/// assert_eq!(err.kind(), &sortpath::path::DecodeErrorKind::Empty);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// No bytes at all.
    #[error("expected a key path encoding, found no bytes")]
    Empty,
    /// The metadata does not parse as varints, or they do not add up to the input length.
    #[error("expected segment metadata (varints) that accounts for every byte, found {0}")]
    Metadata(&'static str),
    /// A byte between segments is not the separator (or terminator) the metadata implies.
    #[error("expected separator 0x{expected:02X} after a segment, found 0x{found:02X}")]
    Separator {
        /// The byte the metadata implies.
        expected: u8,
        /// The byte found.
        found: u8,
    },
    /// A segment's type does not fit its position (namespaces and IDs alternate).
    #[error("expected {expected} segment, found type code {found}")]
    SegmentType {
        /// What the position needs.
        expected: &'static str,
        /// The type code found.
        found: u8,
    },
    /// A namespace segment that is empty or has bytes other than ASCII letters and `_`.
    #[error("expected a namespace of ASCII letters or '_', found {0:?}")]
    Namespace(String),
    /// An integer segment that is not one canonical sort-byte integer.
    #[error("invalid integer ID: {0}")]
    Int(IntDecodeError),
    /// A string or byte-string segment with an invalid escape.
    #[error(
        "expected an escaped ID byte (0x10 then 0x02..=0x12, or a byte >= 0x11), found 0x{0:02X}"
    )]
    Escape(u8),
    /// A string segment that is not UTF-8 once unescaped.
    #[error("expected a UTF-8 string ID, found invalid UTF-8")]
    Utf8,
    /// A byte-string segment that does not start with `0xFF`.
    #[error("expected the byte-string marker 0xFF, found {0}")]
    BytesMarker(String),
    /// A UUID segment that is not 16 bytes long.
    #[error("expected a 16-byte UUID, found {0} bytes")]
    UuidLength(usize),
    /// A group key must be exactly one component with an ID.
    #[error("expected a group key (one component with an ID)")]
    NotAGroupKey,
}

impl DecodeError {
    pub(crate) fn new(offset: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError { offset, kind }
    }

    /// Byte offset in the input where the problem is.
    ///
    /// ```
    /// let err = sortpath::KeyPath::decode(&[0x61, 0x01, 0x2D, 0x00, 0x08, 0x09]).unwrap_err();
    /// assert_eq!(err.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What the problem is.
    ///
    /// ```
    /// let err = sortpath::KeyPath::decode(&[0x01]).unwrap_err();
    /// assert!(matches!(err.kind(), sortpath::path::DecodeErrorKind::Metadata(_)));
    /// ```
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.kind
    }
}
