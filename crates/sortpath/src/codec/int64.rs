//! Hot-path writer and reader of the [`crate::I65`] sort-byte layout for the codec.
//!
//! [`crate::I65`] is the specification; these functions produce and accept exactly its
//! bytes (checked by the golden vectors and by a property test against `I65` itself), but
//! they work on a plain (sign, magnitude) pair, are inlined and use fixed-size copies,
//! which matters when a key holds several integers.

use crate::consts::int::{
    SORT_BYTE_MAX as INT_SORT_BYTE_MAX, SORT_BYTE_ZERO as INT_SORT_BYTE_ZERO,
};

/// The sort-byte encoding of `-magnitude` (if `negative`) or `magnitude` as the sort byte,
/// the magnitude bytes left-aligned (big-endian) in a word, and how many of them are used.
/// The caller writes the sort byte and the first `k` bytes of the word; the word is whole
/// so that it can be stored at once.
#[inline]
pub(crate) fn encode(negative: bool, magnitude: u64) -> (u8, [u8; 8], usize) {
    // Magnitude bytes: 1..=8 (zero takes one byte, as 1 does).
    let k = 8 - (magnitude | 1).leading_zeros() as usize / 8;
    // Zero counts as negative: sort byte 0x07 and the inverted magnitude `FF`.
    let negative_or_zero = negative || magnitude == 0;
    let (sort, stored) = if negative_or_zero {
        (INT_SORT_BYTE_ZERO + 1 - k as u8, !magnitude)
    } else {
        (INT_SORT_BYTE_ZERO + k as u8, magnitude)
    };
    // The magnitude bytes left-aligned in one word, straight from a register.
    (sort, (stored << (8 * (8 - k))).to_be_bytes(), k)
}

/// [`encode`] of a non-negative value, with arithmetic where [`encode`] selects: the sort
/// byte for zero is one below that of 1, and its magnitude byte `FF` is all ones.
#[inline]
pub(crate) fn encode_unsigned(v: u64) -> (u8, [u8; 8], usize) {
    let lz = (v | 1).leading_zeros() as usize;
    // Magnitude bytes less one: 0..=7.
    let more = 7 - lz / 8;
    // All ones for zero, else zero.
    let zero = 0u64.wrapping_sub(u64::from(v == 0));
    let sort = (INT_SORT_BYTE_ZERO + 1 + more as u8).wrapping_add(zero as u8);
    (sort, ((v | zero) << (lz & 0x38)).to_be_bytes(), more + 1)
}

/// Appends the sort-byte encoding of `-magnitude` (if `negative`) or `magnitude`.
#[cfg(test)]
pub(crate) fn encode_into(out: &mut Vec<u8>, negative: bool, magnitude: u64) {
    let (sort, body, k) = encode(negative, magnitude);
    out.push(sort);
    out.extend_from_slice(&body[..k]);
}

/// Why bytes are not a sort-byte integer, relative to its first byte.
pub(crate) enum Bad {
    /// The sort byte is not `0x00..=0x0F`.
    SortByte,
    /// The input ends before the magnitude does.
    Truncated,
    /// The magnitude has a leading zero byte.
    NotMinimal,
}

/// Decodes one integer from `input` XORed with `mask`: whether it is negative, its
/// magnitude, and its length.
#[cfg(test)]
pub(crate) fn decode(input: &[u8], mask: u8) -> Result<(bool, u64, usize), Bad> {
    decode_at(input, 0, mask)
}

/// Decodes one integer from `input[pos..]` XORed with `mask`: whether it is negative, its
/// magnitude, and its length. Bytes before `pos` are not part of it, but may be read
/// (to load the magnitude as one word).
#[inline]
pub(crate) fn decode_at(input: &[u8], pos: usize, mask: u8) -> Result<(bool, u64, usize), Bad> {
    let sort = input.get(pos).ok_or(Bad::Truncated)? ^ mask;
    if sort > INT_SORT_BYTE_MAX {
        return Err(Bad::SortByte);
    }
    let negative_or_zero = sort <= INT_SORT_BYTE_ZERO;
    let k = if negative_or_zero {
        usize::from(INT_SORT_BYTE_ZERO + 1 - sort)
    } else {
        usize::from(sort - INT_SORT_BYTE_ZERO)
    };
    let end = pos + 1 + k;
    let Some(upto_end) = input.get(..end) else {
        return Err(Bad::Truncated);
    };
    let raw = load_top(upto_end, k) >> (8 * (8 - k));
    let flip = if negative_or_zero { !mask } else { mask };
    // XOR every magnitude byte with `flip`; the bytes above the magnitude stay zero.
    let magnitude = raw ^ (u64::from_ne_bytes([flip; 8]) >> (8 * (8 - k)));
    let leading_zero = magnitude >> (8 * (k - 1)) == 0;
    if leading_zero && !(sort == INT_SORT_BYTE_ZERO && magnitude == 0) {
        return Err(Bad::NotMinimal);
    }
    Ok((negative_or_zero && magnitude != 0, magnitude, k + 1))
}

/// The fast path of [`decode_at`] for an ascending positive integer at `input[pos..]`: its
/// magnitude and where it ends, or `None` if it is anything else (which includes every
/// error: [`decode_at`] then says which).
#[inline(always)]
pub(crate) fn decode_positive(input: &[u8], pos: usize) -> Option<(u64, usize)> {
    let sort = *input.get(pos)?;
    if !(INT_SORT_BYTE_ZERO + 1..=INT_SORT_BYTE_MAX).contains(&sort) {
        return None;
    }
    let k = usize::from(sort - INT_SORT_BYTE_ZERO);
    let end = pos + 1 + k;
    let top = load_top(input.get(..end)?, k);
    // Minimal: the first magnitude byte, now the top byte, is not zero.
    (top >> 56 != 0).then_some((top >> (8 * (8 - k)), end))
}

/// The last `k` (1..=8) bytes of `upto_end` in the top `k` bytes of a word (big-endian, so
/// the first of them is the top byte), the rest zero. The bytes before them are loaded too
/// (so that every length takes a fixed number of loads) and shifted out.
#[inline(always)]
fn load_top(upto_end: &[u8], k: usize) -> u64 {
    debug_assert!((1..=8).contains(&k) && k < upto_end.len());
    let word = match upto_end.last_chunk::<8>() {
        Some(word) => u64::from_be_bytes(*word),
        // Shorter than a word (2..=7 bytes: a sort byte and at least one magnitude byte,
        // so a lone integer key is this short).
        None => crate::int::be_word(upto_end),
    };
    word << (8 * (8 - k))
}
