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
//! UUID segments may contain `00` and `01` bytes). The fast validator ([`validate_fast`])
//! uses an equivalent fact instead: no metadata byte of a valid encoding is `00`, so the
//! terminator is the last `00` byte.

use super::escape::{self, BYTES_MARKER, EMPTY_STRING, ESCAPE, ESCAPE_MAX_RAW, ESCAPE_OFFSET};
use super::id::{Id, IdType};
use super::namespace;
use super::view::KeyPathRef;
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
pub(crate) const TYPE_MASK: u64 = (1 << TYPE_BITS) - 1;
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
/// assert_eq!(err.kind(), &keypath::path::DecodeErrorKind::Empty);
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
    /// let err = keypath::KeyPath::decode(&[0x61, 0x01, 0x2D, 0x00, 0x08, 0x09]).unwrap_err();
    /// assert_eq!(err.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What the problem is.
    ///
    /// ```
    /// let err = keypath::KeyPath::decode(&[0x01]).unwrap_err();
    /// assert!(matches!(err.kind(), keypath::path::DecodeErrorKind::Metadata(_)));
    /// ```
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.kind
    }
}

/// The type code of an ID, as its segment's metadata carries it.
pub(crate) fn id_type_code(id: &Id) -> u8 {
    match id {
        Id::Int(_) => TYPE_INT,
        Id::Str(_) => TYPE_STRING,
        Id::Bytes(_) => TYPE_BYTES,
        Id::Uuid(_) => TYPE_UUID,
    }
}

/// The ID type of a segment type code, `None` for a namespace (or a code no segment has).
pub(crate) fn id_type_of(type_code: u8) -> Option<IdType> {
    match type_code {
        TYPE_INT => Some(IdType::Int),
        TYPE_STRING => Some(IdType::Str),
        TYPE_BYTES => Some(IdType::Bytes),
        TYPE_UUID => Some(IdType::Uuid),
        _ => None,
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

pub(crate) fn encode_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The metadata value of a segment: `(len << 3) | type`.
pub(crate) fn meta(len: usize, type_code: u8) -> u64 {
    ((len as u64) << TYPE_BITS) | u64::from(type_code)
}

/// The layout of an encoding: [`scan_metadata`], else [`find_metadata`].
#[inline]
pub(crate) fn find_layout(bytes: &[u8]) -> Result<Layout, DecodeError> {
    match scan_metadata(bytes, None) {
        Some(layout) => Ok(layout),
        None => find_metadata(bytes),
    }
}

/// Segments the fast paths keep the metadata of on the stack.
pub(crate) const FAST_SEGMENTS: usize = 32;

/// [`find_metadata`] for the common shape, in one backward pass that also keeps each
/// segment's metadata value in `metas` if given (last segment first; then at most
/// [`FAST_SEGMENTS`] segments): every varint at most 3 bytes long (segments shorter than 256 KiB), the byte
/// before the metadata the terminator. `None` for anything else, which [`find_metadata`]
/// then reads (or reports) in full; where this finds a layout, [`find_metadata`] finds the
/// same one (a property test compares them).
#[inline(always)]
pub(crate) fn scan_metadata(
    bytes: &[u8],
    mut metas: Option<&mut [u32; FAST_SEGMENTS]>,
) -> Option<Layout> {
    let total = bytes.len();
    if bytes == [TERMINATOR] {
        return Some(Layout {
            count: 0,
            metadata_start: 1,
        }); // the empty path
    }
    // `covered` is the segment bytes and the byte after each (separator or terminator) of
    // the varints read so far; they account for every byte when `covered` equals the
    // start of the metadata read so far.
    let (mut covered, mut count, mut end) = (0usize, 0usize, total);
    let finish = |covered: usize, count: usize, start: usize| {
        let terminated = bytes.get(start.wrapping_sub(1)) == Some(&TERMINATOR);
        (covered == start && terminated).then_some(Layout {
            count,
            metadata_start: start,
        })
    };
    loop {
        // Two one-byte varints at once: the three bytes before `end` have the high bit
        // clear (the third, if any, ends the varint before them).
        if let Some(&word) = end
            .checked_sub(4)
            .and_then(|at| bytes.get(at..end))
            .and_then(|b| b.first_chunk::<4>())
        {
            let word = u32::from_be_bytes(word);
            if word & 0x0080_8080 == 0 && metas.is_none() {
                let (last, before) = ((word & 0xFF) as usize, ((word >> 8) & 0xFF) as usize);
                let first = covered + (last >> TYPE_BITS) + 1;
                let both = first + (before >> TYPE_BITS) + 1;
                if both >= end - 2 {
                    // The layout ends at one of them (the first, if it already fits).
                    return if first >= end - 1 {
                        finish(first, count + 1, end - 1)
                    } else {
                        finish(both, count + 2, end - 2)
                    };
                }
                covered = both;
                count += 2;
                end -= 2;
                continue;
            }
        }
        // One varint, read backwards: its last byte has the high bit clear, the bytes
        // before it that have it set are its earlier bytes.
        let mut start = end.checked_sub(1)?;
        let last = *bytes.get(start)?;
        if last & 0x80 != 0 {
            return None;
        }
        let mut value = u32::from(last);
        if start > 0 && bytes[start - 1] & 0x80 != 0 {
            if last == 0 {
                return None; // overlong
            }
            while let Some(&b) = bytes.get(start.wrapping_sub(1)) {
                if b & 0x80 == 0 {
                    break;
                }
                if end - start == 3 {
                    return None; // a longer varint: the full reader decides
                }
                start -= 1;
                value = (value << 7) | u32::from(b & 0x7F);
            }
        }
        if let Some(metas) = metas.as_deref_mut() {
            *metas.get_mut(count)? = value;
        }
        count += 1;
        covered += (value >> TYPE_BITS) as usize + 1;
        if covered >= start {
            return finish(covered, count, start);
        }
        end = start;
    }
}

/// [`validate`] without errors: `None` for anything it does not accept, which
/// [`validate_checked`] then decides and reports. Accepts only what [`validate_checked`]
/// accepts, with the same layout (a property test compares them).
///
/// One forward pass, with no backward scan of the metadata: in a valid encoding no
/// metadata byte is `00` (a one-byte varint `00` would be an empty namespace, and the last
/// byte of a longer varint is not zero, which would make it overlong), so the terminator is
/// the last `00` byte of the input and the metadata is what follows it. Each segment's varint
/// is read forwards from there, and the segment checked together with the byte after it: a
/// separator, or, for the segment of the last varint, the terminator. When the pass accepts,
/// the segments tile the bytes before the terminator and the varints the bytes after it, so
/// the lengths add up as [`find_metadata`] requires, and it finds the same layout (there is
/// one segment count that fits, see the module docs).
#[inline(always)]
pub(crate) fn validate_fast(bytes: &[u8]) -> Option<Layout> {
    let terminator = last_zero(bytes)?;
    let metadata_start = terminator + 1;
    let total = bytes.len();
    // The segment section: every segment and the byte after it but the last's lie in it.
    let segments = bytes.get(..terminator)?;
    if metadata_start == total {
        // Only the empty path has no metadata.
        return (terminator == 0).then_some(Layout {
            count: 0,
            metadata_start,
        });
    }
    // `at`: the next metadata byte; `offset`: the next segment; `count`: segments so far.
    let (mut at, mut offset, mut count) = (metadata_start, 0usize, 0usize);
    loop {
        // A namespace, with a one-byte varint (shorter than 16 bytes) or a longer one.
        let ns_meta = match bytes.get(at) {
            Some(&b) if b & 0x80 == 0 => {
                at += 1;
                u32::from(b)
            }
            _ => {
                let (value, used) = meta_at(bytes, at)?;
                at += used;
                value
            }
        };
        if ns_meta & TYPE_MASK as u32 != 0 {
            return None;
        }
        // A namespace has no `00` byte, so a valid one ends at or before the terminator.
        let n = (ns_meta >> TYPE_BITS) as usize;
        let end = offset + n;
        // Up to 8 bytes as one word when the input has them from `offset`.
        let valid = match bytes.get(offset..offset + 8) {
            Some(word) if n.wrapping_sub(1) < 8 => namespace::word_prefix_is_namespace(word, n),
            _ => namespace::is_valid_at(bytes, offset, end),
        };
        if !valid {
            return None;
        }
        count += 1;
        if at == total {
            // A namespace-only component ends the path.
            return (end == terminator).then_some(Layout {
                count,
                metadata_start,
            });
        }
        if segments.get(end) != Some(&SEPARATOR) {
            return None;
        }
        offset = end + 1;
        // Its ID.
        let id_meta = match bytes.get(at) {
            Some(&b) if b & 0x80 == 0 => {
                at += 1;
                u32::from(b)
            }
            // Two bytes (a segment of 16 bytes to 2 KiB, such as a UUID); a second byte of
            // zero would make it overlong.
            Some(&b) if matches!(bytes.get(at + 1), Some(1..=0x7F)) => {
                let second = bytes.get(at + 1).copied().unwrap_or_default();
                at += 2;
                u32::from(b & 0x7F) | (u32::from(second) << 7)
            }
            _ => {
                let (value, used) = meta_at(bytes, at)?;
                at += used;
                value
            }
        };
        let len = (id_meta >> TYPE_BITS) as usize;
        let end = offset + len;
        // The checks of integers and UUIDs look at the bytes before `end` only once the
        // byte at `end` is known to be in the segment section (or the terminator).
        let ok = match (id_meta & TYPE_MASK as u32) as u8 {
            TYPE_INT => is_canonical_int(bytes, offset, len),
            TYPE_UUID => len == 16,
            TYPE_NAMESPACE => false,
            other => validate_id(bytes.get(offset..end)?, other, offset).is_ok(),
        };
        count += 1;
        if !ok {
            return None;
        }
        if at == total {
            return (end == terminator).then_some(Layout {
                count,
                metadata_start,
            });
        }
        if segments.get(end) != Some(&SEPARATOR) {
            return None;
        }
        offset = end + 1;
    }
}

/// The metadata varint at `bytes[at..]` and its length; `None` for a varint that is
/// overlong, unterminated or above `u32::MAX`.
#[inline(never)]
fn meta_at(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let mut metas = bytes.get(at..)?;
    let before = metas.len();
    let value = next_meta(&mut metas)?;
    Some((value, before - metas.len()))
}

/// Where the metadata of `bytes`, a valid encoding, starts: after its terminator, the last
/// `00` byte (see [`validate_fast`]). For bytes that are not an encoding (which no caller
/// passes) it is some index up to the length, so nothing reads out of bounds.
#[inline]
pub(crate) fn metadata_start(bytes: &[u8]) -> usize {
    last_zero(bytes).map_or(bytes.len(), |t| t + 1)
}

/// The index of the last `00` byte of `bytes`, eight bytes at a time from the end.
#[inline(always)]
fn last_zero(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = ONES * 0x7F;
    let mut end = bytes.len();
    while let Some(word) = end
        .checked_sub(8)
        .and_then(|at| bytes.get(at..end))
        .and_then(|b| b.first_chunk::<8>())
    {
        // Big-endian: the last byte is the lowest. A byte's high bit in `zero` is set
        // exactly when the byte is `00` (adding 0x7F to its low 7 bits sets the high bit
        // of every other byte, and no carry crosses a byte).
        let word = u64::from_be_bytes(*word);
        let zero = !(((word & LOW7) + LOW7) | word | LOW7);
        if zero != 0 {
            return Some(end - 1 - (zero.trailing_zeros() / 8) as usize);
        }
        end -= 8;
    }
    bytes.get(..end)?.iter().rposition(|&b| b == TERMINATOR)
}

/// The first metadata varint of `metas`, moving `metas` past it; `None` for a varint that
/// is overlong, unterminated or above `u32::MAX`.
#[inline(always)]
fn next_meta(metas: &mut &[u8]) -> Option<u32> {
    let (&first, rest) = metas.split_first()?;
    if first & 0x80 == 0 {
        *metas = rest;
        return Some(u32::from(first));
    }
    // Two bytes (segments of 16 bytes to 2 KiB, such as a UUID): the second ends it, and
    // is not zero (that would be overlong).
    if let [_, second @ 1..=0x7F, ref after @ ..] = **metas {
        *metas = after;
        return Some(u32::from(first & 0x7F) | (u32::from(second) << 7));
    }
    let (value, used) = varint_at(metas, 0).ok()?;
    *metas = metas.get(used..)?;
    u32::try_from(value).ok()
}

/// For each first byte of an integer segment: the segment's length (sort byte and
/// magnitude), `0` for a byte that is no sort byte; and the magnitude byte that may not come
/// first (a leading zero: `00` for a positive number, `FF`, the inverted zero, for a negative
/// one), `0x100` (no byte) for sort byte `07`, where every byte is minimal (zero and
/// -1..=-255, one magnitude byte).
const INT_SHAPE: [(u8, u16); 256] = {
    use crate::int::{SORT_BYTE_MAX, SORT_BYTE_ZERO};
    let mut table = [(0u8, 0u16); 256];
    let mut sort = 0u8;
    while sort <= SORT_BYTE_MAX {
        table[sort as usize] = if sort < SORT_BYTE_ZERO {
            (SORT_BYTE_ZERO + 2 - sort, 0xFF)
        } else if sort == SORT_BYTE_ZERO {
            (2, 0x100)
        } else {
            (sort - SORT_BYTE_ZERO + 1, 0x00)
        };
        sort += 1;
    }
    table
};

/// Whether `content` is exactly one canonical sort-byte integer (what [`I65::decode_prefix`]
/// accepts, using every byte), without decoding it (a test compares the two on every
/// sort byte and leading byte).
#[inline(always)]
fn is_canonical_int(bytes: &[u8], offset: usize, len: usize) -> bool {
    let Some(&[sort, lead]) = bytes.get(offset..).and_then(|b| b.first_chunk::<2>()) else {
        return false;
    };
    let (shape_len, leading_zero) = INT_SHAPE[usize::from(sort)];
    len == usize::from(shape_len) && u16::from(lead) != leading_zero
}

/// The commonest small encoding, one component with an ID, each segment shorter than 16
/// bytes (one-byte metadata): `ns 01 id 00 meta(ns) meta(id)`, such as a group key or the
/// sort key of an item right under its group (`post-1234`). Its layout when `bytes` has
/// that shape and is valid, else `None` (the general path then decides and reports).
/// Accepts only what [`validate_checked`] accepts (a property test compares them).
/// Inlined into its two callers: a call costs as much as a third of its work.
#[inline(always)]
pub(crate) fn one_component(bytes: &[u8]) -> Option<Layout> {
    let [rest @ .., TERMINATOR, ns_meta, id_meta] = bytes else {
        return None;
    };
    if (ns_meta | id_meta) & 0x80 != 0 || u64::from(*ns_meta) & TYPE_MASK != 0 {
        return None;
    }
    let ns_len = usize::from(ns_meta >> TYPE_BITS);
    let id_len = usize::from(id_meta >> TYPE_BITS);
    if ns_len + 1 + id_len != rest.len() {
        return None;
    }
    let (_, [SEPARATOR, id @ ..]) = rest.split_at_checked(ns_len)? else {
        return None;
    };
    // A word at a time: the namespace and what follows it are at least 8 bytes in all
    // but the shortest keys.
    let ok = namespace::is_valid_at(bytes, 0, ns_len)
        && match id_meta & TYPE_MASK as u8 {
            TYPE_INT => is_canonical_int(id, 0, id_len),
            TYPE_NAMESPACE => false,
            other => validate_id(id, other, ns_len + 1).is_ok(),
        };
    ok.then_some(Layout {
        count: 2,
        metadata_start: bytes.len() - 2,
    })
}

/// Checks that `bytes` is one canonical key path encoding, in one pass over its segments;
/// returns its layout. Errors name the first problem and its byte offset.
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> Result<Layout, DecodeError> {
    match validate_fast(bytes) {
        Some(layout) => Ok(layout),
        None => validate_checked(bytes),
    }
}

/// [`validate`] as a call, for callers that take a faster path first.
#[inline(never)]
pub(crate) fn validate_outlined(bytes: &[u8]) -> Result<Layout, DecodeError> {
    validate(bytes)
}

/// [`validate`] one step at a time, with an error for whatever is wrong.
#[cold]
pub(crate) fn validate_checked(bytes: &[u8]) -> Result<Layout, DecodeError> {
    let layout = find_layout(bytes)?;
    let mut offset = 0;
    let mut meta_at = layout.metadata_start;
    for index in 0..layout.count {
        // The metadata was read once already (backwards), so its varints are well formed;
        // they are read again here forwards, which for a one-byte varint is one load.
        let (value, used) = match bytes.get(meta_at) {
            Some(&b) if b & 0x80 == 0 => (u64::from(b), 1),
            _ => varint_at(bytes, meta_at)?,
        };
        meta_at += used;
        let len = (value >> TYPE_BITS) as usize;
        let type_code = (value & TYPE_MASK) as u8;
        let end = offset + len;
        let last = index + 1 == layout.count;
        let expected = if last { TERMINATOR } else { SEPARATOR };
        // find_layout checked that the lengths add up, so `end` is in bounds.
        let found = bytes.get(end).copied().unwrap_or(TERMINATOR);
        if found != expected {
            return Err(DecodeError::new(
                end,
                DecodeErrorKind::Separator { expected, found },
            ));
        }
        let content = &bytes[offset..end];
        if index % 2 == 0 {
            if type_code != TYPE_NAMESPACE {
                return Err(DecodeError::new(
                    offset,
                    DecodeErrorKind::SegmentType {
                        expected: "a namespace",
                        found: type_code,
                    },
                ));
            }
            if !namespace::is_valid(content) {
                return Err(DecodeError::new(
                    offset,
                    DecodeErrorKind::Namespace(String::from_utf8_lossy(content).into()),
                ));
            }
        } else {
            validate_id(content, type_code, offset)?;
        }
        offset = end + 1;
    }
    Ok(layout)
}

/// Checks one ID segment, `content` at `offset`, of type `type_code`.
fn validate_id(content: &[u8], type_code: u8, offset: usize) -> Result<(), DecodeError> {
    let at = |pos: usize, kind| DecodeError::new(offset + pos, kind);
    match type_code {
        TYPE_INT => match I65::decode_prefix(content) {
            Ok((_, used)) if used == content.len() => Ok(()),
            Ok(_) => Err(at(
                0,
                DecodeErrorKind::Metadata("an integer shorter than its segment"),
            )),
            Err(e) => Err(at(0, DecodeErrorKind::Int(e))),
        },
        TYPE_STRING => {
            if content == [EMPTY_STRING] {
                return Ok(());
            }
            check_escapes(content).map_err(|(pos, b)| at(pos, DecodeErrorKind::Escape(b)))?;
            if content.is_empty() {
                return Err(at(0, DecodeErrorKind::Metadata("an empty string segment")));
            }
            if escaped_is_utf8(content) {
                Ok(())
            } else {
                Err(at(0, DecodeErrorKind::Utf8))
            }
        }
        TYPE_BYTES => match content.split_first() {
            Some((&BYTES_MARKER, rest)) => {
                check_escapes(rest).map_err(|(pos, b)| at(1 + pos, DecodeErrorKind::Escape(b)))
            }
            Some((&b, _)) => Err(at(0, DecodeErrorKind::BytesMarker(format!("0x{b:02X}")))),
            None => Err(at(
                0,
                DecodeErrorKind::BytesMarker("an empty segment".into()),
            )),
        },
        TYPE_UUID if content.len() == 16 => Ok(()),
        TYPE_UUID => Err(at(0, DecodeErrorKind::UuidLength(content.len()))),
        other => Err(at(
            0,
            DecodeErrorKind::SegmentType {
                expected: "an ID",
                found: other,
            },
        )),
    }
}

/// Checks that `escaped` is what [`escape::escape_into`] writes: every byte `<= 0x10` is an
/// escape followed by a byte in `0x02..=0x12`. The error is the offset of the bad byte (of
/// the escape, for a bad escape) and the byte to report.
fn check_escapes(escaped: &[u8]) -> Result<(), (usize, u8)> {
    let mut i = 0;
    while let Some(pos) = escaped[i..].iter().position(|&b| b <= ESCAPE) {
        let at = i + pos;
        let b = escaped[at];
        if b < ESCAPE {
            return Err((at, b));
        }
        match escaped.get(at + 1) {
            Some(&e) if (ESCAPE_OFFSET..=ESCAPE_MAX_RAW + ESCAPE_OFFSET).contains(&e) => {
                i = at + 2;
            }
            Some(&e) => return Err((at, e)),
            None => return Err((at, b)),
        }
    }
    Ok(())
}

/// Whether the raw text of `escaped` (whose escapes [`check_escapes`] accepted) is UTF-8.
/// Escapes stand for ASCII characters, so it is exactly when every run between them is.
fn escaped_is_utf8(escaped: &[u8]) -> bool {
    let mut rest = escaped;
    loop {
        let end = rest.iter().position(|&b| b == ESCAPE).unwrap_or(rest.len());
        if std::str::from_utf8(&rest[..end]).is_err() {
            return false;
        }
        match rest.get(end + 2..) {
            Some(after) => rest = after,
            None => return true,
        }
    }
}

/// One segment of a valid encoding: where it is, how long, its type code, and where its
/// metadata varint is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seg {
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) type_code: u8,
    pub(crate) meta_start: usize,
    pub(crate) meta_end: usize,
}

impl Seg {
    /// The segment's bytes in `bytes`.
    pub(crate) fn content(self, bytes: &[u8]) -> &[u8] {
        bytes
            .get(self.offset..self.offset + self.len)
            .unwrap_or_default()
    }
}

/// The segments of a valid encoding, in order.
#[derive(Debug, Clone)]
pub(crate) struct Walk<'a> {
    bytes: &'a [u8],
    offset: usize,
    meta_at: usize,
}

impl<'a> Walk<'a> {
    /// Walks `bytes`, a valid encoding whose metadata starts at `metadata_start`.
    pub(crate) fn with_layout(bytes: &'a [u8], metadata_start: usize) -> Walk<'a> {
        Walk {
            bytes,
            offset: 0,
            meta_at: metadata_start,
        }
    }

    /// Walks `bytes`, a valid encoding.
    #[inline]
    pub(crate) fn new(bytes: &'a [u8]) -> Walk<'a> {
        Walk::with_layout(bytes, metadata_start(bytes))
    }
}

impl Iterator for Walk<'_> {
    type Item = Seg;

    #[inline]
    fn next(&mut self) -> Option<Seg> {
        let &first = self.bytes.get(self.meta_at)?;
        let (value, used) = if first & 0x80 == 0 {
            (u64::from(first), 1)
        } else {
            varint_at(self.bytes, self.meta_at).ok()?
        };
        let seg = Seg {
            offset: self.offset,
            len: (value >> TYPE_BITS) as usize,
            type_code: (value & TYPE_MASK) as u8,
            meta_start: self.meta_at,
            meta_end: self.meta_at + used,
        };
        self.meta_at += used;
        self.offset += seg.len + 1;
        Some(seg)
    }
}

impl std::iter::FusedIterator for Walk<'_> {}

/// Where one segment of an encoding lies, as [`KeyPathRef::segment_spans`] reports it.
///
/// ```
/// use keypath::{KeyPath, path::IdType};
/// let path: KeyPath = "/a-1".parse().unwrap();
/// let spans = path.as_path_ref().segment_spans();
/// assert_eq!(spans[1].range, 2..4);
/// assert_eq!(spans[1].id_type, Some(IdType::Int));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SegmentSpan {
    /// Byte range of the segment in the encoding.
    pub range: std::ops::Range<usize>,
    /// `None` for a namespace, else the ID's type.
    pub id_type: Option<IdType>,
    /// Byte range of the segment's metadata varint.
    pub metadata: std::ops::Range<usize>,
}

impl<'a> KeyPathRef<'a> {
    /// The segments of the encoding: where each segment and its metadata varint lie.
    ///
    /// ```
    /// use keypath::{KeyPath, KeyPathRef};
    /// let bytes = "/post-1234".parse::<KeyPath>().unwrap().encode();
    /// let spans = KeyPathRef::decode(&bytes).unwrap().segment_spans();
    /// assert_eq!(spans.len(), 2);
    /// assert_eq!(&bytes[spans[1].range.clone()], [0x09, 0x04, 0xD2]);
    /// assert_eq!(&bytes[spans[1].metadata.clone()], [0x19]);
    /// ```
    pub fn segment_spans(self) -> Vec<SegmentSpan> {
        Walk::new(self.as_bytes())
            .map(|seg| SegmentSpan {
                range: seg.offset..seg.offset + seg.len,
                id_type: id_type_of(seg.type_code),
                metadata: seg.meta_start..seg.meta_end,
            })
            .collect()
    }
}

/// Reads one varint that ends at `end` (exclusive), going backwards; returns where it starts
/// and its length field.
fn varint_ending_at(bytes: &[u8], end: usize) -> Result<(u64, usize), DecodeError> {
    // Fast path: a one-byte varint (every segment shorter than 16 bytes).
    if end >= 2 && bytes[end - 1] & 0x80 == 0 && bytes[end - 2] & 0x80 == 0 {
        return Ok((u64::from(bytes[end - 1]), end - 1));
    }
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
    let (value, used) = varint_at(bytes, start)?;
    debug_assert_eq!(used, end - start);
    Ok((value, start))
}

/// Reads one varint forwards from `start`; returns it and its length. Rejects overlong
/// forms and values above 2^64, so each value has one encoding.
fn varint_at(bytes: &[u8], start: usize) -> Result<(u64, usize), DecodeError> {
    if let Some(&b) = bytes.get(start) {
        if b & 0x80 == 0 {
            return Ok((u64::from(b), 1)); // fast path: a one-byte varint
        }
    }
    let bad = |what| DecodeError::new(start, DecodeErrorKind::Metadata(what));
    let mut value: u64 = 0;
    for (i, &b) in bytes[start..].iter().enumerate().take(VARINT_MAX_LEN) {
        let chunk = u64::from(b & 0x7F);
        let shift = 7 * i as u32;
        // `shift` is at most 63 (ten bytes at most); reject bits shifted past bit 63.
        if shift > 0 && chunk >> (64 - shift) != 0 {
            return Err(bad("a varint above 2^64"));
        }
        value |= chunk << shift;
        if b & 0x80 == 0 {
            if i > 0 && b == 0 {
                return Err(bad("an overlong varint"));
            }
            return Ok((value, i + 1));
        }
    }
    Err(bad("an unterminated varint"))
}

/// Where the metadata of an encoding starts, and how many segments it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) count: usize,
    pub(crate) metadata_start: usize,
}

/// Finds the metadata by reading varints backwards from the end until the segment lengths,
/// separators, terminator and metadata account for every byte (see the module docs).
pub(crate) fn find_metadata(bytes: &[u8]) -> Result<Layout, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::new(0, DecodeErrorKind::Empty));
    }
    if bytes == [TERMINATOR] {
        return Ok(Layout {
            count: 0,
            metadata_start: 1,
        }); // the empty path
    }
    let total = bytes.len() as u128;
    let mut seg_bytes: u128 = 0;
    let mut count: u128 = 0;
    let mut end = bytes.len();
    loop {
        let (value, start) = varint_ending_at(bytes, end)?;
        seg_bytes += u128::from(value >> TYPE_BITS);
        count += 1;
        // segments + (count - 1) separators + terminator + metadata
        let needed = seg_bytes + count + (bytes.len() - start) as u128;
        if needed == total {
            return Ok(Layout {
                count: count as usize,
                metadata_start: start,
            });
        }
        if needed > total || start == 0 {
            return Err(DecodeError::new(
                start,
                DecodeErrorKind::Metadata("lengths that do not add up to the input length"),
            ));
        }
        end = start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table check of integer segments accepts exactly what `I65::decode_prefix` accepts
    /// using every byte: every sort byte, with every leading byte, at every length up to
    /// 11 (the rest of the bytes `00`, `7F` or `FF`).
    #[test]
    fn int_check_matches_decoder() {
        for sort in 0..=255u8 {
            for lead in 0..=255u8 {
                for len in 0..=11usize {
                    for fill in [0x00u8, 0x7F, 0xFF] {
                        let mut content = vec![fill; len];
                        if let Some(first) = content.first_mut() {
                            *first = sort;
                        }
                        if let Some(second) = content.get_mut(1) {
                            *second = lead;
                        }
                        let want = matches!(I65::decode_prefix(&content), Ok((_, used)) if used == content.len());
                        assert_eq!(
                            is_canonical_int(&content, 0, content.len()),
                            want,
                            "{content:02x?}"
                        );
                    }
                }
            }
        }
    }
}
