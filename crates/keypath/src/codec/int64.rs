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
    if end > input.len() {
        return Err(Bad::Truncated);
    }
    let raw = load_be(input, end, k);
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
    if end > input.len() {
        return None;
    }
    let magnitude = load_be(input, end, k);
    // Minimal: the first magnitude byte is not zero.
    (magnitude >> (8 * (k - 1)) != 0).then_some((magnitude, end))
}

/// The `k` (1..=8) bytes of `input` that end at `end` (at most `input.len()`) as a
/// big-endian number, with a fixed number of loads: the 8 (or 4, for `k <= 4`) bytes
/// ending there when the input has them (the bytes before the `k` are masked off), else
/// two overlapping 4-byte loads or three single bytes.
#[inline]
fn load_be(input: &[u8], end: usize, k: usize) -> u64 {
    debug_assert!((1..=8).contains(&k) && k <= end && end <= input.len());
    if let Some(word) = end.checked_sub(8).and_then(|start| input.get(start..end)) {
        let word = u64::from_be_bytes(word.try_into().unwrap_or_default());
        return word & (u64::MAX >> (8 * (8 - k)));
    }
    if k <= 4 {
        if let Some(word) = end.checked_sub(4).and_then(|start| input.get(start..end)) {
            let word = u32::from_be_bytes(word.try_into().unwrap_or_default());
            return u64::from(word & (u32::MAX >> (8 * (4 - k))));
        }
    }
    // Fewer than 8 bytes up to `end`, so k <= 7.
    let b = &input[end - k..end];
    if k >= 4 {
        let hi = u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        let lo = u64::from(u32::from_be_bytes([b[k - 4], b[k - 3], b[k - 2], b[k - 1]]));
        // The overlapping bytes are the same in both halves, so OR joins them.
        hi << (8 * (k - 4)) | lo
    } else {
        u64::from(b[0]) << (8 * (k - 1))
            | u64::from(b[k / 2]) << (8 * (k - 1 - k / 2))
            | u64::from(b[k - 1])
    }
}
