//! Hot-path writer and reader of the [`crate::I65`] sort-byte layout for the codec.
//!
//! [`crate::I65`] is the specification; these functions produce and accept exactly its
//! bytes (checked by the golden vectors and by a property test against `I65` itself), but
//! they work on a plain (sign, magnitude) pair, are inlined and use fixed-size copies,
//! which matters when a key holds several integers.

use crate::consts::int::{
    MAX_ENCODED_LEN as INT_MAX_ENCODED_LEN, SORT_BYTE_MAX as INT_SORT_BYTE_MAX,
    SORT_BYTE_ZERO as INT_SORT_BYTE_ZERO,
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
    let mut buf = [0u8; INT_MAX_ENCODED_LEN];
    buf[0] = sort;
    // Left-align the magnitude bytes after the sort byte.
    buf[1..].copy_from_slice(&(stored << (8 * (8 - k))).to_be_bytes());
    // A fixed-size copy then truncate is cheaper than a variable-length copy, but it needs
    // the spare capacity for all 9 bytes: `out` must not reallocate because of it.
    if out.capacity() - out.len() >= INT_MAX_ENCODED_LEN {
        let start = out.len();
        out.extend_from_slice(&buf);
        out.truncate(start + 1 + k);
    } else {
        out.extend_from_slice(&buf[..1 + k]);
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

/// Decodes one integer from `input` XORed with `mask`: its value and length.
#[inline]
pub(crate) fn decode(input: &[u8], mask: u8) -> Result<(i128, usize), Bad> {
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
    let Some(body) = input.get(1..=k) else {
        return Err(Bad::Truncated);
    };
    let flip = if negative_or_zero { !mask } else { mask };
    let mut word = [0u8; 8];
    word[8 - k..].copy_from_slice(body);
    // XOR every magnitude byte with `flip`; the bytes above the magnitude stay zero.
    let magnitude = u64::from_be_bytes(word) ^ (u64::from_ne_bytes([flip; 8]) >> (8 * (8 - k)));
    if body[0] ^ flip == 0 && !(sort == INT_SORT_BYTE_ZERO && magnitude == 0) {
        return Err(Bad::NotMinimal);
    }
    let value = if negative_or_zero {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    Ok((value, k + 1))
}
