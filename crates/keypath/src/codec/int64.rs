//! Hot-path writer and reader of the [`crate::I65`] sort-byte layout for the codec.
//!
//! [`crate::I65`] is the specification; these functions produce and accept exactly its
//! bytes (checked by the golden vectors and by a property test against `I65` itself), but
//! they work on a plain (sign, magnitude) pair, are inlined and use fixed-size copies,
//! which matters when a key holds several integers.

use crate::consts::int::{
    SORT_BYTE_MAX as INT_SORT_BYTE_MAX, SORT_BYTE_ZERO as INT_SORT_BYTE_ZERO,
};

/// Appends the sort-byte encoding of `-magnitude` (if `negative`) or `magnitude`.
#[inline]
pub(crate) fn encode_into(out: &mut Vec<u8>, negative: bool, magnitude: u64) {
    // Magnitude bytes: 1..=8 (zero takes one byte).
    let k = (8 - magnitude.leading_zeros() as usize / 8).max(1);
    // Zero counts as negative: sort byte 0x07 and the inverted magnitude `FF`.
    let negative_or_zero = negative || magnitude == 0;
    let (sort, stored) = if negative_or_zero {
        (INT_SORT_BYTE_ZERO + 1 - k as u8, !magnitude)
    } else {
        (INT_SORT_BYTE_ZERO + k as u8, magnitude)
    };
    // The magnitude bytes left-aligned in one word, so they can be appended as a fixed
    // 8-byte copy straight from a register, then the excess is cut off. That needs spare
    // capacity for all 9 bytes: `out` must never reallocate because of the excess.
    let body = (stored << (8 * (8 - k))).to_be_bytes();
    let start = out.len();
    out.push(sort);
    if out.capacity() - out.len() >= body.len() {
        out.extend_from_slice(&body);
        out.truncate(start + 1 + k);
    } else {
        out.extend_from_slice(&body[..k]);
    }
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
#[inline]
pub(crate) fn decode(input: &[u8], mask: u8) -> Result<(bool, u64, usize), Bad> {
    let sort = input.first().ok_or(Bad::Truncated)? ^ mask;
    if sort > INT_SORT_BYTE_MAX {
        return Err(Bad::SortByte);
    }
    let negative_or_zero = sort <= INT_SORT_BYTE_ZERO;
    let k = if negative_or_zero {
        usize::from(INT_SORT_BYTE_ZERO + 1 - sort)
    } else {
        usize::from(sort - INT_SORT_BYTE_ZERO)
    };
    if input.len() <= k {
        return Err(Bad::Truncated);
    }
    // Load 8 bytes after the sort byte (a fixed-size copy) when the input has them, then
    // keep the top `k`; near the end of the input, copy just the `k` bytes.
    let raw = match input.get(1..9) {
        Some(word) => {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(word);
            u64::from_be_bytes(buf) >> (8 * (8 - k))
        }
        None => input[1..=k]
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
    };
    let flip = if negative_or_zero { !mask } else { mask };
    // XOR every magnitude byte with `flip`; the bytes above the magnitude stay zero.
    let magnitude = raw ^ (u64::from_ne_bytes([flip; 8]) >> (8 * (8 - k)));
    let leading_zero = magnitude >> (8 * (k - 1)) == 0;
    if leading_zero && !(sort == INT_SORT_BYTE_ZERO && magnitude == 0) {
        return Err(Bad::NotMinimal);
    }
    Ok((negative_or_zero && magnitude != 0, magnitude, k + 1))
}
