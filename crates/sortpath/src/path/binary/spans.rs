//! Walking the segments of a valid encoding ([`Walk`]) and reporting where each lies
//! ([`SegmentSpan`]).

use super::encode::id_type_of;
use super::fast::metadata_start;
use super::varint::varint_at;
use super::{TYPE_BITS, TYPE_MASK};
use crate::path::id::IdType;
use crate::path::view::KeyPathRef;

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
/// use sortpath::{KeyPath, path::IdType};
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
    /// use sortpath::{KeyPath, KeyPathRef};
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
