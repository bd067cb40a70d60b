//! The binary form of key paths (specified in `docs/FORMAT.md`).
//!
//! ```text
//! {segment}(01){segment}(01)...{segment}(00){varint}{varint}...{varint}
//! ```
//! Segments are the namespaces and IDs in order; each varint is `(length << 3) | type` of
//! one segment, protobuf style (7 bits per byte, least significant group first, high bit =
//! more). The metadata sits after the terminator so it never decides the order.
//!
//! Decoding reads the metadata backwards from the end: the last byte ends the last varint,
//! and varints are added until `segment bytes + separators + terminator + metadata bytes`
//! equals the input length. That sum grows by at least two with every segment, so at most
//! one segment count fits, and the segment section is found without scanning it (integer and
//! UUID segments may contain `00` and `01` bytes).

use std::fmt;

use super::escape::{self, UnescapeError, BYTES_MARKER, EMPTY_STRING};
use super::id::Id;
use super::{is_valid_namespace, Component, KeyPath};
use crate::int::{IntDecodeError, I65};

/// Separates segments (a namespace from its ID, and one component from the next).
pub const SEPARATOR: u8 = 0x01;
/// Ends the segment section; the metadata follows.
pub const TERMINATOR: u8 = 0x00;
/// Metadata type of a namespace segment.
pub const TYPE_NAMESPACE: u8 = 0;
/// Metadata type of an integer ID segment.
pub const TYPE_INT: u8 = 1;
/// Metadata type of a string ID segment.
pub const TYPE_STRING: u8 = 2;
/// Metadata type of a byte-string ID segment.
pub const TYPE_BYTES: u8 = 3;
/// Metadata type of a UUID ID segment.
pub const TYPE_UUID: u8 = 4;
/// Bits of a metadata varint that hold the type; the rest hold the length.
pub const TYPE_BITS: u32 = 3;
const TYPE_MASK: u64 = (1 << TYPE_BITS) - 1;
const VARINT_MAX_LEN: usize = 10;

/// Where and why bytes are not a valid key path encoding.
///
/// ```
/// let err = keypath::KeyPath::decode(&[0x61, 0x01, 0x09]).unwrap_err();
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
/// let err = keypath::KeyPath::decode(&[]).unwrap_err();
/// assert_eq!(err.kind(), &keypath::DecodeErrorKind::Empty);
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
    /// let err = keypath::KeyPath::decode(&[0x61, 0x01, 0x2D, 0x00, 0x08, 0x10]).unwrap_err();
    /// assert_eq!(err.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What the problem is.
    ///
    /// ```
    /// let err = keypath::KeyPath::decode(&[0x01]).unwrap_err();
    /// assert!(matches!(err.kind(), keypath::DecodeErrorKind::Metadata(_)));
    /// ```
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.kind
    }
}

/// One segment as the decoder sees it: where it is, how long, and its type code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegmentInfo {
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) type_code: u8,
}

fn id_type_code(id: &Id) -> u8 {
    match id {
        Id::Int(_) => TYPE_INT,
        Id::Str(_) => TYPE_STRING,
        Id::Bytes(_) => TYPE_BYTES,
        Id::Uuid(_) => TYPE_UUID,
    }
}

/// Encoded length of an ID segment.
pub(crate) fn id_len(id: &Id) -> usize {
    match id {
        Id::Int(v) => v.encoded_len(),
        Id::Str(s) if s.is_empty() => 1,
        Id::Str(s) => escape::escaped_len(s.as_bytes()),
        Id::Bytes(b) => 1 + escape::escaped_len(b),
        Id::Uuid(_) => 16,
    }
}

/// Appends an ID segment.
pub(crate) fn encode_id(id: &Id, out: &mut Vec<u8>) {
    match id {
        Id::Int(v) => v.encode_into(out),
        Id::Str(s) if s.is_empty() => out.push(EMPTY_STRING),
        Id::Str(s) => escape::escape_into(s.as_bytes(), out),
        Id::Bytes(b) => {
            out.push(BYTES_MARKER);
            escape::escape_into(b, out);
        }
        Id::Uuid(u) => out.extend_from_slice(u),
    }
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn encode_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn meta(len: usize, type_code: u8) -> u64 {
    ((len as u64) << TYPE_BITS) | u64::from(type_code)
}

impl KeyPath {
    /// The binary form as a new vector. Its byte order is the order of [`KeyPath`].
    ///
    /// ```
    /// let path: keypath::KeyPath = "/post-1234".parse().unwrap();
    /// assert_eq!(path.encode(), [0x70, 0x6F, 0x73, 0x74, 0x01, 0x09, 0x04, 0xD2, 0x00, 0x20, 0x19]);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut out);
        out
    }

    /// Appends the binary form to `out`; allocates nothing when `out` has the capacity.
    ///
    /// ```
    /// let path: keypath::KeyPath = "/a-1".parse().unwrap();
    /// let mut buf = Vec::with_capacity(64);
    /// path.encode_into(&mut buf);
    /// assert_eq!(buf, path.encode());
    /// ```
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.reserve(self.encoded_len());
        self.encode_segments(out);
        out.push(TERMINATOR);
        for c in &self.components {
            encode_varint(meta(c.namespace.len(), TYPE_NAMESPACE), out);
            if let Some(id) = &c.id {
                encode_varint(meta(id_len(id), id_type_code(id)), out);
            }
        }
    }

    /// Length of the binary form in bytes.
    ///
    /// ```
    /// let path: keypath::KeyPath =
    ///     "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42"
    ///         .parse()
    ///         .unwrap();
    /// assert_eq!(path.encoded_len(), 63);
    /// ```
    pub fn encoded_len(&self) -> usize {
        let mut len = 1; // terminator
        for (i, c) in self.components.iter().enumerate() {
            let ns = c.namespace.len();
            len += ns + varint_len(meta(ns, TYPE_NAMESPACE)) + usize::from(i > 0);
            if let Some(id) = &c.id {
                let n = id_len(id);
                len += 1 + n + varint_len(meta(n, TYPE_INT));
            }
        }
        len
    }

    /// Appends the segment section: segments joined by [`SEPARATOR`], no terminator.
    pub(crate) fn encode_segments(&self, out: &mut Vec<u8>) {
        for (i, c) in self.components.iter().enumerate() {
            if i > 0 {
                out.push(SEPARATOR);
            }
            out.extend_from_slice(c.namespace.as_bytes());
            if let Some(id) = &c.id {
                out.push(SEPARATOR);
                encode_id(id, out);
            }
        }
    }

    /// Decodes a binary form. Only canonical encodings decode, so whatever decodes
    /// re-encodes to the same bytes; arbitrary bytes give an error, never a panic.
    ///
    /// ```
    /// use keypath::KeyPath;
    /// let path: KeyPath = "/user-1/post-hello/blob-~AAE".parse().unwrap();
    /// assert_eq!(KeyPath::decode(&path.encode()).unwrap(), path);
    /// assert!(KeyPath::decode(b"not a key").is_err());
    /// ```
    pub fn decode(bytes: &[u8]) -> Result<KeyPath, DecodeError> {
        let segments = locate_segments(bytes)?;
        let mut components: Vec<Component> = Vec::with_capacity(segments.len().div_ceil(2));
        for pair in segments.chunks(2) {
            let ns = pair[0];
            let namespace = &bytes[ns.offset..ns.offset + ns.len];
            if ns.type_code != TYPE_NAMESPACE {
                return Err(DecodeError::new(
                    ns.offset,
                    DecodeErrorKind::SegmentType {
                        expected: "a namespace",
                        found: ns.type_code,
                    },
                ));
            }
            let namespace = std::str::from_utf8(namespace)
                .ok()
                .filter(|n| is_valid_namespace(n))
                .ok_or_else(|| {
                    DecodeError::new(
                        ns.offset,
                        DecodeErrorKind::Namespace(String::from_utf8_lossy(namespace).into()),
                    )
                })?;
            let id = match pair.get(1) {
                Some(&seg) => Some(decode_id(bytes, seg)?),
                None => None,
            };
            components.push(Component {
                namespace: namespace.into(),
                id,
            });
        }
        Ok(KeyPath { components })
    }
}

/// Decodes one ID segment.
pub(crate) fn decode_id(bytes: &[u8], seg: SegmentInfo) -> Result<Id, DecodeError> {
    let content = &bytes[seg.offset..seg.offset + seg.len];
    let at = |pos: usize, kind| DecodeError::new(seg.offset + pos, kind);
    let unescape = |content: &[u8], base: usize| {
        escape::unescape(content).map_err(|e| match e {
            UnescapeError::UnescapedByte(pos, b) => at(base + pos, DecodeErrorKind::Escape(b)),
            UnescapeError::BadEscape(pos) => {
                let found = content.get(pos + 1).copied().unwrap_or(content[pos]);
                at(base + pos, DecodeErrorKind::Escape(found))
            }
        })
    };
    match seg.type_code {
        TYPE_INT => match I65::decode(content) {
            Ok((v, used)) if used == content.len() => Ok(Id::Int(v)),
            Ok(_) => Err(at(
                0,
                DecodeErrorKind::Metadata("an integer shorter than its segment"),
            )),
            Err(e) => Err(at(0, DecodeErrorKind::Int(e))),
        },
        TYPE_STRING => {
            if content == [EMPTY_STRING] {
                return Ok(Id::Str(String::new()));
            }
            let raw = unescape(content, 0)?;
            if raw.is_empty() {
                return Err(at(0, DecodeErrorKind::Metadata("an empty string segment")));
            }
            String::from_utf8(raw)
                .map(Id::Str)
                .map_err(|_| at(0, DecodeErrorKind::Utf8))
        }
        TYPE_BYTES => match content.split_first() {
            Some((&BYTES_MARKER, rest)) => unescape(rest, 1).map(Id::Bytes),
            Some((&b, _)) => Err(at(0, DecodeErrorKind::BytesMarker(format!("0x{b:02X}")))),
            None => Err(at(
                0,
                DecodeErrorKind::BytesMarker("an empty segment".into()),
            )),
        },
        TYPE_UUID => <[u8; 16]>::try_from(content)
            .map(Id::Uuid)
            .map_err(|_| at(0, DecodeErrorKind::UuidLength(content.len()))),
        other => Err(at(
            0,
            DecodeErrorKind::SegmentType {
                expected: "an ID",
                found: other,
            },
        )),
    }
}

/// Reads one varint that ends at `end` (exclusive), going backwards. Returns the value and
/// where the varint starts.
fn varint_ending_at(bytes: &[u8], end: usize) -> Result<(u64, usize), DecodeError> {
    let bad = |what| DecodeError::new(end.saturating_sub(1), DecodeErrorKind::Metadata(what));
    if end == 0 || bytes[end - 1] & 0x80 != 0 {
        return Err(bad("a varint whose last byte has the continuation bit"));
    }
    let mut start = end - 1;
    while start > 0 && bytes[start - 1] & 0x80 != 0 {
        start -= 1;
        if end - start > VARINT_MAX_LEN {
            return Err(bad("a varint longer than 10 bytes"));
        }
    }
    if end - start > 1 && bytes[end - 1] == 0 {
        return Err(bad("an overlong varint"));
    }
    let mut value: u64 = 0;
    for (i, &b) in bytes[start..end].iter().enumerate() {
        let chunk = u64::from(b & 0x7F);
        let shift = 7 * i as u32;
        if shift >= 64 || (shift > 0 && chunk >> (64 - shift) != 0) {
            return Err(bad("a varint above 2^64"));
        }
        value |= chunk << shift;
    }
    Ok((value, start))
}

/// Finds the segments of an encoding from its metadata and checks the separators.
/// The returned list alternates namespace and ID segments as the metadata says; types are
/// checked by the caller.
pub(crate) fn locate_segments(bytes: &[u8]) -> Result<Vec<SegmentInfo>, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::new(0, DecodeErrorKind::Empty));
    }
    if bytes == [TERMINATOR] {
        return Ok(Vec::new()); // the empty path
    }
    let total = bytes.len() as u128;
    // (length, type) of each segment, last segment first.
    let mut metas: Vec<(usize, u8)> = Vec::new();
    let mut seg_bytes: u128 = 0;
    let mut end = bytes.len();
    loop {
        let (value, start) = varint_ending_at(bytes, end)?;
        metas.push(((value >> TYPE_BITS) as usize, (value & TYPE_MASK) as u8));
        seg_bytes += u128::from(value >> TYPE_BITS);
        let count = metas.len() as u128;
        let meta_bytes = (bytes.len() - start) as u128;
        // segments + (count - 1) separators + terminator + metadata
        let needed = seg_bytes + count + meta_bytes;
        if needed == total {
            break;
        }
        if needed > total || start == 0 {
            return Err(DecodeError::new(
                start,
                DecodeErrorKind::Metadata("lengths that do not add up to the input length"),
            ));
        }
        end = start;
    }
    metas.reverse();
    let mut segments = Vec::with_capacity(metas.len());
    let mut offset = 0;
    for (i, &(len, type_code)) in metas.iter().enumerate() {
        segments.push(SegmentInfo {
            offset,
            len,
            type_code,
        });
        offset += len;
        let expected = if i + 1 == metas.len() {
            TERMINATOR
        } else {
            SEPARATOR
        };
        if bytes[offset] != expected {
            return Err(DecodeError::new(
                offset,
                DecodeErrorKind::Separator {
                    expected,
                    found: bytes[offset],
                },
            ));
        }
        offset += 1;
    }
    Ok(segments)
}

impl fmt::Debug for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyPath({self})")
    }
}
