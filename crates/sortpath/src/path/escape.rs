//! Escaping of string and byte IDs inside the binary form.
//!
//! Raw content bytes `0x00..=0x10` become two bytes, [`ESCAPE`] then `byte + ESCAPE_OFFSET`
//! (so `0x00 -> 10 02`, `0x01 -> 10 03`, `0x10 -> 10 12`); every other byte stands for
//! itself. This is an order-preserving prefix code whose every code starts with a byte
//! `>= 0x10`, which gives the invariants the format relies on:
//! - escaped content never contains the separator `0x01` or the terminator `0x00`, so a
//!   shorter ID (followed by `00`/`01`) sorts before its extensions;
//! - a non-empty string starts with a byte `>= 0x10`, above every integer sort byte
//!   (`<= 0x0F`), so integers sort before strings;
//! - the escaped order of two contents is their raw byte order.
//!
//! The empty string is the lone byte [`EMPTY_STRING`] (`0x10`): above every integer, below
//! every non-empty string (whose second byte, if its first is `0x10`, is at least `0x02`,
//! while the byte after an empty string is `00` or `01`).

/// Escape byte for content bytes `0x00..=ESCAPE_MAX_RAW`; also the empty string on its own.
pub const ESCAPE: u8 = 0x10;
/// Largest raw content byte that is escaped.
pub const ESCAPE_MAX_RAW: u8 = 0x10;
/// Added to an escaped byte so the second byte is never `00` or `01`.
pub const ESCAPE_OFFSET: u8 = 0x02;
/// The encoding of the empty string ID.
pub const EMPTY_STRING: u8 = ESCAPE;
/// First byte of every byte-string ID: sorts after every string (UTF-8 never has `0xFF`).
pub const BYTES_MARKER: u8 = 0xFF;
/// Prefix of a byte-string ID in text form (`~` then its base64url bytes), the text
/// counterpart of [`BYTES_MARKER`].
pub const BYTES_PREFIX: char = '~';

/// Where escaped content (and the rest of an encoding) is written.
pub(crate) trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Appends the escaped form of `raw`.
pub(crate) fn escape_into(raw: &[u8], out: &mut impl Sink) {
    if raw.iter().all(|&b| b > ESCAPE_MAX_RAW) {
        out.put(raw); // the common case: nothing to escape
        return;
    }
    let mut rest = raw;
    while let Some(pos) = rest.iter().position(|&b| b <= ESCAPE_MAX_RAW) {
        out.put(&rest[..pos]);
        out.put(&[ESCAPE, rest[pos] + ESCAPE_OFFSET]);
        rest = &rest[pos + 1..];
    }
    out.put(rest);
}

/// Why escaped content is malformed: the offset (within the content) of the bad byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnescapeError {
    /// A byte `<= 0x10` that is not a valid escape.
    UnescapedByte(usize, u8),
    /// An escape byte at the end, or followed by a byte outside `0x02..=0x12`.
    BadEscape(usize),
}

/// Undoes [`escape_into`], rejecting anything the escaper would not produce.
pub(crate) fn unescape(escaped: &[u8]) -> Result<Vec<u8>, UnescapeError> {
    if escaped.iter().all(|&b| b > ESCAPE) {
        return Ok(escaped.to_vec()); // the common case: nothing escaped
    }
    let mut out = Vec::with_capacity(escaped.len());
    let mut i = 0;
    while i < escaped.len() {
        let b = escaped[i];
        if b == ESCAPE {
            match escaped.get(i + 1) {
                Some(&e) if (ESCAPE_OFFSET..=ESCAPE_MAX_RAW + ESCAPE_OFFSET).contains(&e) => {
                    out.push(e - ESCAPE_OFFSET);
                    i += 2;
                }
                _ => return Err(UnescapeError::BadEscape(i)),
            }
        } else if b < ESCAPE {
            return Err(UnescapeError::UnescapedByte(i, b));
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(out)
}
