//! The stored form of an item: its type, its index keys and its value.
//!
//! ```text
//! 01                      ENVELOPE_FORMAT
//! len:u8  type name       the item type (UTF-8; writers write 1..=255 bytes, readers
//!                         accept an empty one)
//! n:u8                    number of index keys, then n times:
//!   len:u8  index name
//!   len:u16 (big endian)  the index key path's encoding (group and rest)
//! payload                 the item as MessagePack, to the end: compact (a struct is the
//!                         list of its field values) for Rust item types unless they ask for
//!                         names (`Item::SELF_DESCRIBING`), with field names for items
//!                         written as data; readers take either
//! ```
//!
//! Keeping the index keys with the item lets any delete or overwrite remove exactly the
//! entries the previous version wrote, without knowing its Rust type, and lets an index query
//! check that an entry is current.

use sortpath::KeyPath;

/// Version byte of the envelope layout.
pub const ENVELOPE_FORMAT: u8 = 0x01;

/// A decoded envelope (for checks: the store itself reads envelopes through [`Header`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Envelope {
    pub item_type: String,
    /// `(index name, index key path)`, sorted by name, names unique.
    pub indexes: Vec<(String, KeyPath)>,
    pub payload: Vec<u8>,
}

/// Why stored bytes are not an envelope.
///
/// ```
/// let e = sortpath_store::EnvelopeError { offset: 0, expected: "envelope format 01", found: "07".into() };
/// assert_eq!(e.to_string(), "stored item is corrupt at byte 0: expected envelope format 01, found 07");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stored item is corrupt at byte {offset}: expected {expected}, found {found}")]
pub struct EnvelopeError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
    /// What was found.
    pub found: String,
}

/// Appends an envelope's header (everything before the payload) to `out`: `indexes` in the
/// order given, which must be sorted by name with unique names. The caller has checked that
/// the type name and index names fit in 255 bytes, index paths in 65535 and the number of
/// indexes in 255. Returns where each index key path's encoding sits in `out`, in the
/// order given (each preceded by its u16 length).
pub(crate) fn encode_header_into<'a>(
    item_type: &str,
    indexes: impl ExactSizeIterator<Item = (&'a str, &'a KeyPath)>,
    out: &mut Vec<u8>,
) -> Vec<std::ops::Range<usize>> {
    out.push(ENVELOPE_FORMAT);
    out.push(item_type.len() as u8);
    out.extend_from_slice(item_type.as_bytes());
    out.push(indexes.len() as u8);
    let mut paths = Vec::with_capacity(indexes.len());
    for (name, path) in indexes {
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(path.encoded_len() as u16).to_be_bytes());
        let at = out.len();
        path.encode_into(out);
        paths.push(at..out.len());
    }
    paths
}

impl Envelope {
    /// Appends the encoding to `out`. The caller has checked that the type name and index
    /// names fit in 255 bytes and index paths in 65535. (The store writes envelopes with
    /// [`encode_header_into`] and the payload, without building an `Envelope`.)
    #[cfg(test)]
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let indexes = self
            .indexes
            .iter()
            .map(|(name, path)| (name.as_str(), path));
        let _paths = encode_header_into(&self.item_type, indexes, out);
        out.extend_from_slice(&self.payload);
    }

    /// Decodes everything, index key paths included.
    pub fn decode(bytes: &[u8]) -> Result<Envelope, EnvelopeError> {
        let h = Header::parse(bytes)?;
        let indexes = h
            .indexes
            .iter()
            .map(|&(name, at, enc)| decode_index_path(at, enc).map(|path| (name.to_owned(), path)))
            .collect::<Result<_, _>>()?;
        Ok(Envelope {
            item_type: h.item_type.to_owned(),
            indexes,
            payload: bytes[h.payload_start..].to_vec(),
        })
    }
}

/// What the envelope `value` of the item at `item_path` is made of, read back from it: what
/// the store hands a backend with the write ([`ItemParts`](crate::backend::ItemParts)),
/// for tests of backends. `None` if `value` is not an envelope or an index key path is not
/// one an entry can have.
#[cfg(all(test, feature = "dynamodb"))]
pub(crate) fn parts_of(value: &[u8], item_path: &KeyPath) -> Option<crate::backend::ItemParts> {
    let header = Header::parse(value).ok()?;
    let index_keys = header
        .indexes
        .iter()
        .map(|&(name, at, enc)| {
            let path = KeyPath::decode(enc).ok()?;
            let (group, rest) = path.split_group_paths().ok()?;
            Some(crate::backend::IndexKeyParts {
                index: name.to_owned(),
                path: at..at + enc.len(),
                partition: group.into_bytes(),
                sort: crate::layout::entry_sort_key(&rest, item_path),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(crate::backend::ItemParts {
        item_type: header.item_type.to_owned(),
        payload_start: header.payload_start,
        index_keys,
    })
}

/// Decodes the index key path `enc` that [`Header::parse`] found at offset `at`.
pub(crate) fn decode_index_path(at: usize, enc: &[u8]) -> Result<KeyPath, EnvelopeError> {
    KeyPath::decode(enc).map_err(|e| EnvelopeError {
        offset: at,
        expected: "an index key path",
        found: e.to_string(),
    })
}

/// The framing of an envelope, borrowed: nothing decoded beyond UTF-8 checks.
pub(crate) struct Header<'a> {
    // The payload start is read by the DynamoDB backend (its item attributes); a write reads
    // the type and the index keys of the item it replaces.
    pub item_type: &'a str,
    /// `(index name, offset of the key path, key path encoding)`.
    pub indexes: Vec<(&'a str, usize, &'a [u8])>,
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub payload_start: usize,
}

impl<'a> Header<'a> {
    /// Checks the framing and that the type and index names are UTF-8, collecting the
    /// index entries.
    pub fn parse(bytes: &'a [u8]) -> Result<Header<'a>, EnvelopeError> {
        let mut indexes = Vec::new();
        let mut bad_name = None;
        let (item_type, payload_start) =
            Header::frame(bytes, |name, at, key| match name.utf8("index name") {
                Ok(name) => indexes.push((name, at, key)),
                Err(e) => {
                    bad_name.get_or_insert(e);
                }
            })?;
        let item_type = item_type.utf8("item type name")?;
        if let Some(e) = bad_name {
            return Err(e);
        }
        Ok(Header {
            item_type,
            indexes,
            payload_start,
        })
    }

    /// Checks the framing only, passing each index entry `(name, offset of the key path, key
    /// path encoding)` to `on_index`; returns the item type name and where the payload
    /// starts. Nothing is checked as UTF-8, so a read that compares the type name with a
    /// known one, or needs only the payload, costs a few bounds checks.
    #[inline]
    pub fn frame(
        bytes: &'a [u8],
        mut on_index: impl FnMut(Field<'a>, usize, &'a [u8]),
    ) -> Result<(Field<'a>, usize), EnvelopeError> {
        let mut r = Reader { bytes, pos: 0 };
        let format = r.take(1, "envelope format 01")?[0];
        if format != ENVELOPE_FORMAT {
            return Err(error_at(0, "envelope format 01", format!("{format:02x}")));
        }
        let len = r.take(1, "type name length")?[0] as usize;
        let item_type = r.field(len, "item type name")?;
        let count = r.take(1, "index count")?[0] as usize;
        for _ in 0..count {
            let len = r.take(1, "index name length")?[0] as usize;
            let name = r.field(len, "index name")?;
            let lb = r.take(2, "index key length")?;
            let len = u16::from_be_bytes([lb[0], lb[1]]) as usize;
            let at = r.pos;
            on_index(name, at, r.take(len, "index key path")?);
        }
        Ok((item_type, r.pos))
    }

    /// [`Header::frame`] without index entries, for the reads that need only the type
    /// name and the payload (a get, a batch get, a list): the same answer, the framing
    /// walked with one bounds check per field. An envelope it cannot frame is framed again
    /// by [`Header::frame`], out of line, for its error.
    #[inline(always)]
    pub fn frame_item(bytes: &'a [u8]) -> Result<(Field<'a>, usize), EnvelopeError> {
        match Header::frame_fast(bytes) {
            Some(framed) => Ok(framed),
            None => Header::frame_slow(bytes),
        }
    }

    #[cold]
    #[inline(never)]
    fn frame_slow(bytes: &'a [u8]) -> Result<(Field<'a>, usize), EnvelopeError> {
        Header::frame(bytes, |_, _, _| {})
    }

    /// [`Header::frame_item`] of an envelope whose framing is sound, `None` for any other.
    /// Every position is at most `3 + 256 * (3 + 255 + 65535)` past the start, so none
    /// overflows.
    #[inline(always)]
    fn frame_fast(bytes: &'a [u8]) -> Option<(Field<'a>, usize)> {
        let [ENVELOPE_FORMAT, type_len, ..] = *bytes else {
            return None;
        };
        let type_end = 2 + usize::from(type_len);
        let mut pos = type_end + 1;
        let count = *bytes.get(type_end)?;
        for _ in 0..count {
            // The name's length, the name, the key path's length, the key path.
            let name_len = usize::from(*bytes.get(pos)?);
            let key_at = pos + 1 + name_len;
            let key_len = bytes.get(key_at..)?.first_chunk::<2>()?;
            pos = key_at + 2 + usize::from(u16::from_be_bytes(*key_len));
        }
        if pos > bytes.len() {
            return None;
        }
        let item_type = Field {
            bytes: bytes.get(2..type_end)?,
            at: 2,
        };
        Some((item_type, pos))
    }
}

/// A length-prefixed field of an envelope: its bytes and their offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Field<'a> {
    /// The field as text; an error at its offset, naming it as `expected`, if it is not
    /// UTF-8.
    pub fn utf8(self, expected: &'static str) -> Result<&'a str, EnvelopeError> {
        std::str::from_utf8(self.bytes).map_err(|e| error_at(self.at, expected, e.to_string()))
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn take(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8], EnvelopeError> {
        let rest = &self.bytes[self.pos..];
        if rest.len() < n {
            return Err(truncated(self.pos, expected, rest.len()));
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    #[inline]
    fn field(&mut self, n: usize, expected: &'static str) -> Result<Field<'a>, EnvelopeError> {
        let at = self.pos;
        let bytes = self.take(n, expected)?;
        Ok(Field { bytes, at })
    }
}

#[cold]
fn truncated(offset: usize, expected: &'static str, left: usize) -> EnvelopeError {
    error_at(offset, expected, format!("the end after {left} bytes"))
}

#[cold]
fn error_at(offset: usize, expected: &'static str, found: String) -> EnvelopeError {
    EnvelopeError {
        offset,
        expected,
        found,
    }
}

#[cfg(test)]
mod tests;
