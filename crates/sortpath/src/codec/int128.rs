//! 128-bit integers: the sort-byte scheme widened to 16 magnitude bytes.
//!
//! A magnitude of `k` bytes (1..=16) gets the sort byte `zero + k` if positive and
//! `zero + 1 - k` if zero or negative (then stored inverted), as in [`crate::I65`], whose
//! `zero` is `0x07`:
//!
//! - `u128` keeps `zero = 0x07` and extends the 64-bit scheme upward: a value that fits a
//!   `u64` encodes exactly as the `u64` does (so a field can widen from `u64` to `u128`
//!   without rewriting keys), and larger values take the sort bytes `0x10..=0x17` (9 to 16
//!   magnitude bytes). `u128::MAX` is `17` and sixteen `FF`.
//! - `i128` cannot share the 64-bit bytes: its negative values beyond 64 bits would need
//!   sort bytes below `0x00`, the sort byte of [`crate::I65`]'s most negative values, and no
//!   byte sorts there. So it uses `zero = 0x0F` ([`WIDE_SORT_BYTE_ZERO`]), sort bytes
//!   `0x00..=0x1F`: zero is `0F FF`, 1 is `10 01`, -1 is `0F FE`, `i128::MIN` is `00 7F` and
//!   fifteen `FF`, `i128::MAX` is `1F 7F` and fifteen `FF`. An `i128` field orders among
//!   `i128` fields; it does not share bytes with the narrower widths or with `u128`.

/// Sort byte of zero (and of negative numbers with one magnitude byte) in an `i128` field.
pub const WIDE_SORT_BYTE_ZERO: u8 = 0x0F;
/// Largest sort byte of an `i128` field (positive, 16 magnitude bytes).
pub const WIDE_SORT_BYTE_MAX: u8 = 0x1F;
/// Largest sort byte of a `u128` field (16 magnitude bytes; zero's is `0x07`, as in a `u64`).
pub const U128_SORT_BYTE_MAX: u8 = 0x17;
/// Longest encoding of a 128-bit integer: a sort byte and 16 magnitude bytes.
pub const WIDE_MAX_ENCODED_LEN: usize = 17;

/// Sort byte of zero in a `u128` field: the 64-bit scheme's.
pub(crate) const U128_SORT_BYTE_ZERO: u8 = crate::consts::int::SORT_BYTE_ZERO;
const _: () = assert!(U128_SORT_BYTE_ZERO + 16 == U128_SORT_BYTE_MAX);
const _: () = assert!(WIDE_SORT_BYTE_ZERO + 16 == WIDE_SORT_BYTE_MAX);

/// The widened sort-byte encoding of `±magnitude` (`negative` is ignored for 0) around the
/// sort byte `zero`: the sort byte, the stored magnitude as 16 big-endian bytes, and how
/// many of them (the last `k`) are written.
#[inline]
pub(crate) fn encode(negative: bool, magnitude: u128, zero: u8) -> (u8, [u8; 16], usize) {
    let k = (16 - magnitude.leading_zeros() as usize / 8).max(1);
    if negative || magnitude == 0 {
        (zero + 1 - k as u8, (!magnitude).to_be_bytes(), k)
    } else {
        (zero + k as u8, magnitude.to_be_bytes(), k)
    }
}

/// Why a widened integer could not be decoded.
pub(crate) enum Bad {
    /// Offset (relative to the integer's start) of a bad sort byte or of the end of input.
    At(usize),
    /// The magnitude has a leading zero byte.
    NotMinimal,
}

/// Decodes `(negative, magnitude, bytes used)` from `input` XORed with `mask`, in the
/// scheme around the sort byte `zero` (positive magnitudes up to 16 bytes; negative ones up
/// to 16 bytes or as many as sort bytes down to `0x00` allow, 8 for `u128`'s).
#[inline]
pub(crate) fn decode(input: &[u8], mask: u8, zero: u8) -> Result<(bool, u128, usize), Bad> {
    let sort = input.first().ok_or(Bad::At(0))? ^ mask;
    if sort > zero + 16 {
        return Err(Bad::At(0));
    }
    let negative_or_zero = sort <= zero;
    let k = if negative_or_zero {
        usize::from(zero + 1 - sort)
    } else {
        usize::from(sort - zero)
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
    if leading == 0 && !(sort == zero && magnitude == 0) {
        return Err(Bad::NotMinimal);
    }
    Ok((negative_or_zero && magnitude != 0, magnitude, k + 1))
}
