//! 128-bit integers: the sort-byte scheme widened to 16 magnitude bytes.
//!
//! `u128`/`i128` fields do not fit the 65-bit [`crate::I65`] range, and no byte sorts
//! below the `0x00` sort byte of its most negative values, so 128-bit fields use their own
//! sort bytes: `0x0F - (k - 1)` for zero and negative values with `k` magnitude bytes
//! (inverted), `0x0F + k` for positive values. Zero is `0F FF`, 1 is `10 01`, -1 is `0F FE`,
//! `u128::MAX` is `1F` and sixteen `FF`, `i128::MIN` is `00 7F` and fifteen `FF`.
//! A `u128` and an `i128` holding the same number encode alike.

/// Sort byte of zero (and of negative numbers with one magnitude byte) in a 128-bit field.
pub const WIDE_SORT_BYTE_ZERO: u8 = 0x0F;
/// Largest sort byte of a 128-bit field (positive, 16 magnitude bytes).
pub const WIDE_SORT_BYTE_MAX: u8 = 0x1F;
/// Longest encoding of a 128-bit integer: a sort byte and 16 magnitude bytes.
pub const WIDE_MAX_ENCODED_LEN: usize = 17;

/// The widened sort-byte encoding of `±magnitude` (`negative` is ignored for 0): the sort
/// byte, the stored magnitude as 16 big-endian bytes, and how many of them (the last `k`)
/// are written.
#[inline]
pub(crate) fn encode(negative: bool, magnitude: u128) -> (u8, [u8; 16], usize) {
    let k = (16 - magnitude.leading_zeros() as usize / 8).max(1);
    if negative || magnitude == 0 {
        (
            WIDE_SORT_BYTE_ZERO + 1 - k as u8,
            (!magnitude).to_be_bytes(),
            k,
        )
    } else {
        (WIDE_SORT_BYTE_ZERO + k as u8, magnitude.to_be_bytes(), k)
    }
}

/// Why a widened integer could not be decoded.
pub(crate) enum Bad {
    /// Offset (relative to the integer's start) of a bad sort byte or of the end of input.
    At(usize),
    /// The magnitude has a leading zero byte.
    NotMinimal,
}

/// Decodes `(negative, magnitude, bytes used)` from `input` XORed with `mask`.
#[inline]
pub(crate) fn decode(input: &[u8], mask: u8) -> Result<(bool, u128, usize), Bad> {
    let sort = input.first().ok_or(Bad::At(0))? ^ mask;
    if sort > WIDE_SORT_BYTE_MAX {
        return Err(Bad::At(0));
    }
    let negative_or_zero = sort <= WIDE_SORT_BYTE_ZERO;
    let k = if negative_or_zero {
        usize::from(WIDE_SORT_BYTE_ZERO + 1 - sort)
    } else {
        usize::from(sort - WIDE_SORT_BYTE_ZERO)
    };
    if input.len() <= k {
        return Err(Bad::At(input.len()));
    }
    let flip = if negative_or_zero { !mask } else { mask };
    let mut magnitude = 0u128;
    for &b in &input[1..=k] {
        magnitude = (magnitude << 8) | u128::from(b ^ flip);
    }
    let leading = input[1] ^ flip;
    if leading == 0 && !(sort == WIDE_SORT_BYTE_ZERO && magnitude == 0) {
        return Err(Bad::NotMinimal);
    }
    Ok((negative_or_zero && magnitude != 0, magnitude, k + 1))
}
