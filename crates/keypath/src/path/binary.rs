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
use super::{Component, KeyPath, Namespace};
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
/// Segments whose metadata the encoder keeps on the stack.
const INLINE_SEGMENTS: usize = 32;

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

/// The type code of an ID, as its segment's metadata carries it.
pub(crate) fn id_type_code(id: &Id) -> u8 {
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

/// The binary form of `components` as a new vector.
pub(crate) fn encode_components(components: &[Component]) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(components));
    encode_components_into(components, &mut out);
    out
}

/// Appends the binary form of `components` to `out`.
pub(crate) fn encode_components_into(components: &[Component], out: &mut Vec<u8>) {
    // One pass over the segments records their metadata; paths longer than the stack
    // buffer (rare) recompute it in a second pass.
    let mut metas = [0u64; INLINE_SEGMENTS];
    let mut count = 0;
    for (i, c) in components.iter().enumerate() {
        if i > 0 {
            out.push(SEPARATOR);
        }
        out.extend_from_slice(c.namespace.as_bytes());
        if let Some(m) = metas.get_mut(count) {
            *m = meta(c.namespace.len(), TYPE_NAMESPACE);
        }
        count += 1;
        if let Some(id) = &c.id {
            out.push(SEPARATOR);
            let start = out.len();
            encode_id(id, out);
            if let Some(m) = metas.get_mut(count) {
                *m = meta(out.len() - start, id_type_code(id));
            }
            count += 1;
        }
    }
    out.push(TERMINATOR);
    if count <= INLINE_SEGMENTS {
        for &m in &metas[..count] {
            encode_varint(m, out);
        }
    } else {
        for c in components {
            encode_varint(meta(c.namespace.len(), TYPE_NAMESPACE), out);
            if let Some(id) = &c.id {
                encode_varint(meta(id_len(id), id_type_code(id)), out);
            }
        }
    }
}

/// Length of the binary form of `components`.
fn encoded_len(components: &[Component]) -> usize {
    let mut len = 1; // terminator
    for (i, c) in components.iter().enumerate() {
        let ns = c.namespace.len();
        len += ns + varint_len(meta(ns, TYPE_NAMESPACE)) + usize::from(i > 0);
        if let Some(id) = &c.id {
            let n = id_len(id);
            len += 1 + n + varint_len(meta(n, id_type_code(id)));
        }
    }
    len
}

impl KeyPath {
    /// The binary form as a new vector. Its byte order is the order of [`KeyPath`].
    ///
    /// ```
    /// let path: keypath::KeyPath = "/post-1234".parse().unwrap();
    /// assert_eq!(path.encode(), [0x70, 0x6F, 0x73, 0x74, 0x01, 0x09, 0x04, 0xD2, 0x00, 0x20, 0x19]);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        encode_components(&self.components)
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
        encode_components_into(&self.components, out);
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
        encoded_len(&self.components)
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
        let layout = find_layout(bytes)?;
        let mut components: Vec<Component> = Vec::with_capacity(layout.count.div_ceil(2));
        decode_components(bytes, layout, &mut components)?;
        Ok(KeyPath { components })
    }

    /// Like [`KeyPath::from_group`], with the group key already decoded: decodes only the
    /// sort key, into one allocation, which is what listing many keys of one group needs.
    ///
    /// ```
    /// use keypath::KeyPath;
    /// let group: KeyPath = "/user-1".parse().unwrap();
    /// let path: KeyPath = "/user-1/post-2".parse().unwrap();
    /// let (_, sort) = path.split_group().unwrap();
    /// assert_eq!(KeyPath::from_group_path(&group, &sort).unwrap(), path);
    /// assert!(KeyPath::from_group_path(&"/a".parse().unwrap(), &sort).is_err());
    /// ```
    pub fn from_group_path(group: &KeyPath, sort: &[u8]) -> Result<KeyPath, DecodeError> {
        let [first] = group.components.as_slice() else {
            return Err(DecodeError::new(0, DecodeErrorKind::NotAGroupKey));
        };
        if first.id.is_none() {
            return Err(DecodeError::new(0, DecodeErrorKind::NotAGroupKey));
        }
        if let Some((namespace, id)) = one_int_component(sort) {
            let mut components: Vec<Component> = Vec::with_capacity(2);
            push_clone(&mut components, first);
            // Checked so the compiler knows the push cannot reallocate, and writes the
            // component in place (see `decode_common`).
            if components.len() < components.capacity() {
                components.push(Component {
                    namespace,
                    id: Some(Id::Int(id)),
                });
                return Ok(KeyPath { components });
            }
        }
        let layout = find_layout(sort)?;
        let mut components: Vec<Component> = Vec::with_capacity(1 + layout.count.div_ceil(2));
        push_clone(&mut components, first);
        decode_components(sort, layout, &mut components)?;
        Ok(KeyPath { components })
    }
}

/// Pushes a clone of `c` onto `components`, which has room for it. The common group
/// component (an inline namespace and an integer or UUID ID) is copied field by field, so
/// that the compiler writes it straight into its slot: a derived `clone` builds the copy
/// in a temporary first and moves it in wider pieces than it was written in (a
/// store-forwarding stall per call).
#[inline(always)]
fn push_clone(components: &mut Vec<Component>, c: &Component) {
    if components.len() < components.capacity() {
        if let Namespace::Inline { len, bytes } = &c.namespace {
            let namespace = Namespace::inline_copy(*len, bytes);
            match &c.id {
                Some(Id::Int(v)) => {
                    return components.push(Component {
                        namespace,
                        id: Some(Id::Int(*v)),
                    })
                }
                Some(Id::Uuid(u)) => {
                    return components.push(Component {
                        namespace,
                        id: Some(Id::Uuid(*u)),
                    })
                }
                _ => {}
            }
        }
    }
    components.push(c.clone());
}

/// The commonest sort key of an item under its group: one namespace (valid, inline) with
/// an integer ID, each segment shorter than 16 bytes (`post-1234` of `/user-1/post-1234`):
/// `ns 01 int 00 meta(ns) meta(int)`. Its namespace and ID, or `None` for any other
/// shape or anything not valid, which [`decode_components`] then decodes or reports.
/// Accepts exactly what [`find_layout`] and [`decode_common`] accept for this shape (a
/// property test compares them).
#[inline(always)]
pub(super) fn one_int_component(bytes: &[u8]) -> Option<(Namespace, I65)> {
    let [rest @ .., TERMINATOR, ns_meta, id_meta] = bytes else {
        return None;
    };
    // One-byte varints (high bit clear) of the right types.
    if (ns_meta | id_meta) & 0x80 != 0
        || u64::from(*ns_meta) & TYPE_MASK != u64::from(TYPE_NAMESPACE)
        || u64::from(*id_meta) & TYPE_MASK != u64::from(TYPE_INT)
    {
        return None;
    }
    let ns_len = usize::from(ns_meta >> TYPE_BITS);
    let id_len = usize::from(id_meta >> TYPE_BITS);
    if ns_len + 1 + id_len != rest.len() {
        return None;
    }
    let Some((ns, [SEPARATOR, int @ ..])) = rest.split_at_checked(ns_len) else {
        return None;
    };
    if !Namespace::fits_inline(ns) {
        return None;
    }
    match I65::decode(int) {
        Ok((value, used)) if used == id_len => {
            Some((Namespace::inline_prefix(bytes, ns_len), value))
        }
        _ => None,
    }
}

/// The layout of an encoding: [`find_metadata_common`], else [`find_metadata`].
#[inline]
fn find_layout(bytes: &[u8]) -> Result<Layout, DecodeError> {
    match find_metadata_common(bytes) {
        Some(layout) => Ok(layout),
        None => find_metadata(bytes),
    }
}

/// Decodes the components of the encoding `bytes`, whose metadata is `layout`, appending
/// them to `components`.
fn decode_components(
    bytes: &[u8],
    layout: Layout,
    components: &mut Vec<Component>,
) -> Result<(), DecodeError> {
    let before = components.len();
    if decode_common(bytes, layout, components) {
        return Ok(());
    }
    components.truncate(before);
    decode_components_checked(bytes, layout, components)
}

/// The fast path of [`decode_components`] for the common shape: every segment shorter than
/// 16 bytes (so every metadata varint is one byte) and integer IDs. Returns `false`,
/// perhaps after appending some components, at the first thing outside that shape or not
/// valid; [`decode_components_checked`] then decodes it again and reports what is wrong.
/// Checks everything the checked path checks for these segments, so both accept the same
/// inputs (a property test compares them).
#[inline]
pub(super) fn decode_common(bytes: &[u8], layout: Layout, components: &mut Vec<Component>) -> bool {
    let Some(metas) = bytes.get(layout.metadata_start..) else {
        return false;
    };
    if metas.len() != layout.count {
        return false; // some varint is longer than a byte
    }
    // Room for every component first. Each one is then pushed only after a check that there
    // is room (which, after this reservation, always passes), so the compiler knows the push
    // cannot reallocate and writes the component straight into the vector. Otherwise it
    // builds the component in a temporary that outlives the reallocation and copies it over
    // in wider pieces than it was written in: a store-forwarding stall per component. For
    // the same reason the ID is made only at the push, after the last check that can fail
    // (an ID alive across a failing check is kept in memory, to be dropped there).
    components.reserve(layout.count.div_ceil(2));
    let mut offset = 0;
    let mut metas = metas.iter();
    while let Some(&ns_meta) = metas.next() {
        if components.len() == components.capacity() {
            return false;
        }
        // Namespace: type 0, then a separator (or the terminator if no ID follows).
        if u64::from(ns_meta) & TYPE_MASK != u64::from(TYPE_NAMESPACE) {
            return false;
        }
        let ns_len = usize::from(ns_meta >> TYPE_BITS);
        let Some(ns) = bytes.get(offset..offset + ns_len) else {
            return false;
        };
        if !Namespace::fits_inline(ns) {
            return false;
        }
        offset += ns_len;
        let Some(&id_meta) = metas.as_slice().first() else {
            // The last segment, a namespace without an ID: the terminator follows.
            if bytes.get(offset) != Some(&TERMINATOR) {
                return false;
            }
            components.push(Component {
                namespace: Namespace::inline_unchecked(ns),
                id: None,
            });
            return true;
        };
        if bytes.get(offset) != Some(&SEPARATOR) {
            return false;
        }
        offset += 1;
        let id_len = usize::from(id_meta >> TYPE_BITS);
        // Anything but an integer, a namespace included (only the last component may lack an
        // ID), is for the checked path.
        if id_meta & TYPE_MASK as u8 != TYPE_INT {
            return false;
        }
        let value = match bytes.get(offset..offset + id_len).map(I65::decode) {
            Some(Ok((v, used))) if used == id_len => v,
            _ => return false,
        };
        metas.next();
        offset += id_len;
        let expected = if metas.as_slice().is_empty() {
            TERMINATOR
        } else {
            SEPARATOR
        };
        if bytes.get(offset) != Some(&expected) {
            return false;
        }
        offset += 1;
        components.push(Component {
            namespace: Namespace::inline_unchecked(ns),
            id: Some(Id::Int(value)),
        });
    }
    true
}

/// [`decode_components`] one segment at a time, with an error for whatever is wrong.
pub(super) fn decode_components_checked(
    bytes: &[u8],
    layout: Layout,
    components: &mut Vec<Component>,
) -> Result<(), DecodeError> {
    let mut segments = Segments::new(bytes, layout);
    while let Some(ns) = segments.next_segment()? {
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
        let namespace = Namespace::from_bytes(namespace).ok_or_else(|| {
            DecodeError::new(
                ns.offset,
                DecodeErrorKind::Namespace(String::from_utf8_lossy(namespace).into()),
            )
        })?;
        let id = match segments.next_segment()? {
            Some(seg) => Some(decode_id(bytes, seg)?),
            None => None,
        };
        components.push(Component { namespace, id });
    }
    Ok(())
}

/// Where one segment of an encoding lies, as [`KeyPath::segment_spans`] reports it.
///
/// ```
/// let bytes = "/a-1".parse::<keypath::KeyPath>().unwrap().encode();
/// let spans = keypath::KeyPath::segment_spans(&bytes).unwrap();
/// assert_eq!(spans[1].range, 2..4);
/// assert_eq!(spans[1].id_type, Some(keypath::IdType::Int));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SegmentSpan {
    /// Byte range of the segment in the encoding.
    pub range: std::ops::Range<usize>,
    /// `None` for a namespace, else the ID's type.
    pub id_type: Option<crate::IdType>,
    /// Byte range of the segment's metadata varint.
    pub metadata: std::ops::Range<usize>,
}

impl KeyPath {
    /// The segments of a valid encoding: where each segment and its metadata varint lie.
    /// Fails exactly when [`KeyPath::decode`] fails.
    ///
    /// ```
    /// use keypath::KeyPath;
    /// let bytes = "/post-1234".parse::<KeyPath>().unwrap().encode();
    /// let spans = KeyPath::segment_spans(&bytes).unwrap();
    /// assert_eq!(spans.len(), 2);
    /// assert_eq!(&bytes[spans[1].range.clone()], [0x09, 0x04, 0xD2]);
    /// assert_eq!(&bytes[spans[1].metadata.clone()], [0x19]);
    /// ```
    pub fn segment_spans(bytes: &[u8]) -> Result<Vec<SegmentSpan>, DecodeError> {
        let path = KeyPath::decode(bytes)?;
        let layout = find_metadata(bytes)?;
        let mut walk = Segments::new(bytes, layout);
        let mut segments = Vec::with_capacity(layout.count);
        while let Some(seg) = walk.next_segment()? {
            segments.push(seg);
        }
        let mut meta_at = layout.metadata_start;
        let ids = path
            .components
            .iter()
            .flat_map(|c| [None, c.id.as_ref().map(Id::id_type)]);
        Ok(segments
            .iter()
            .zip(ids)
            .map(|(seg, id_type)| {
                let meta_len = varint_len(meta(seg.len, seg.type_code));
                meta_at += meta_len;
                SegmentSpan {
                    range: seg.offset..seg.offset + seg.len,
                    id_type,
                    metadata: meta_at - meta_len..meta_at,
                }
            })
            .collect())
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

/// [`find_metadata`] for the common shape: every metadata varint one byte long (every
/// segment shorter than 16 bytes) and the byte before the metadata the terminator. `None`
/// for anything else, which [`find_metadata`] then reads (or reports) in full; where this
/// finds a layout, [`find_metadata`] finds the same one (a property test compares them).
#[inline]
pub(crate) fn find_metadata_common(bytes: &[u8]) -> Option<Layout> {
    if bytes == [TERMINATOR] {
        return Some(Layout {
            count: 0,
            metadata_start: 1,
        }); // the empty path
    }
    let total = bytes.len();
    let (mut seg_bytes, mut count, mut start) = (0usize, 0usize, total);
    loop {
        // A one-byte varint: its high bit clear, and the byte before it too (that byte is
        // the next varint, or the terminator).
        let &meta = bytes.get(start.checked_sub(1)?)?;
        if meta & 0x80 != 0 {
            return None;
        }
        start -= 1;
        count += 1;
        seg_bytes += usize::from(meta >> TYPE_BITS);
        // segments + (count - 1) separators + terminator + count one-byte varints
        let needed = seg_bytes + 2 * count;
        if needed >= total {
            let terminated = start > 0 && bytes[start - 1] == TERMINATOR;
            return (needed == total && terminated).then_some(Layout {
                count,
                metadata_start: start,
            });
        }
    }
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

/// Walks the segments of an encoding in order, reading their metadata forwards and checking
/// the separator or terminator after each.
pub(crate) struct Segments<'a> {
    bytes: &'a [u8],
    layout: Layout,
    index: usize,
    offset: usize,
    meta_at: usize,
}

impl<'a> Segments<'a> {
    pub(crate) fn new(bytes: &'a [u8], layout: Layout) -> Segments<'a> {
        Segments {
            bytes,
            layout,
            index: 0,
            offset: 0,
            meta_at: layout.metadata_start,
        }
    }

    pub(crate) fn next_segment(&mut self) -> Result<Option<SegmentInfo>, DecodeError> {
        if self.index == self.layout.count {
            return Ok(None);
        }
        let (value, used) = varint_at(self.bytes, self.meta_at)?;
        self.meta_at += used;
        // find_metadata checked that the lengths add up, so the segment is in bounds.
        let seg = SegmentInfo {
            offset: self.offset,
            len: (value >> TYPE_BITS) as usize,
            type_code: (value & TYPE_MASK) as u8,
        };
        self.index += 1;
        self.offset += seg.len;
        let expected = if self.index == self.layout.count {
            TERMINATOR
        } else {
            SEPARATOR
        };
        let found = self.bytes[self.offset];
        if found != expected {
            return Err(DecodeError::new(
                self.offset,
                DecodeErrorKind::Separator { expected, found },
            ));
        }
        self.offset += 1;
        Ok(Some(seg))
    }
}

impl fmt::Debug for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyPath({self})")
    }
}
