//! The metadata varints: writing one, and reading one forwards or backwards with every
//! non-canonical form rejected.

use super::error::{DecodeError, DecodeErrorKind};

const VARINT_MAX_LEN: usize = 10;

/// Appends `v` as a varint (7 bits per byte, least significant group first, high bit = more).
pub(crate) fn encode_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads one varint that ends at `end` (exclusive), going backwards; returns where it starts
/// and its length field.
pub(super) fn varint_ending_at(bytes: &[u8], end: usize) -> Result<(u64, usize), DecodeError> {
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
pub(super) fn varint_at(bytes: &[u8], start: usize) -> Result<(u64, usize), DecodeError> {
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
