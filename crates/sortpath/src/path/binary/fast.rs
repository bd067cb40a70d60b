//! The fast decoder: one backward pass over the metadata ([`scan_metadata`]), a validator
//! that finds the terminator as the last `00` byte ([`validate_fast`]), and the one-component
//! shape ([`one_component`]). Each accepts only what the checked decoder accepts and leaves
//! anything else to it.

use super::error::DecodeError;
use super::ids::validate_id;
use super::layout::{find_metadata, Layout};
use super::varint::varint_at;
use super::{SEPARATOR, TERMINATOR, TYPE_BITS, TYPE_INT, TYPE_MASK, TYPE_NAMESPACE, TYPE_UUID};
#[cfg(doc)]
use crate::int::I65;
use crate::path::namespace;

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

/// [`validate`](super::validate) without errors: `None` for anything it does not accept,
/// which [`validate_checked`](super::checked::validate_checked) then decides and reports.
/// Accepts only what `validate_checked` accepts, with the same layout (a property test
/// compares them).
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
/// Accepts only what [`validate_checked`](super::checked::validate_checked) accepts (a
/// property test compares them).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::int::I65;

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
