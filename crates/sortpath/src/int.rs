//! The sort-byte integer encoding shared by every sortpath format.
//!
//! An integer is one *sort byte* that carries its sign and length, then the minimal
//! big-endian magnitude. Negative magnitudes are bit-inverted so that larger magnitudes
//! sort first. Zero is treated as a negative number with magnitude 0, so it encodes as
//! `07 FF` and never produces a `00` byte that could be confused with a terminator.
//!
//! ```text
//! value range               sort byte   magnitude bytes
//! -(2^64-1) ..= -2^56       0x00        8, inverted
//! -(2^56-1) ..= -2^48       0x01        7, inverted
//!  ...
//! -255      ..= -1          0x07        1, inverted
//!  0                        0x07        FF
//!  1        ..= 255         0x08        1
//!  256      ..= 65535       0x09        2
//!  ...
//!  2^56     ..= 2^64-1      0x0F        8
//! ```
//!
//! Examples: `1 -> 08 01`, `1234 -> 09 04 D2`, `-1 -> 07 FE`, `-256 -> 06 FE FF`,
//! `-257 -> 06 FE FE`, `-(2^56-1) -> 01 00 00 00 00 00 00 00`.
//!
//! Every sort byte is at most [`SORT_BYTE_MAX`] (`0x0F`), so in a key path an integer ID
//! sorts before every string ID (whose first byte is at least `0x10`).

use std::cmp::Ordering;
use std::fmt;

/// Sort byte of zero and of negative numbers whose magnitude fits in one byte.
pub const SORT_BYTE_ZERO: u8 = 0x07;
/// Sort byte of the most negative numbers (8 magnitude bytes).
pub const SORT_BYTE_MIN: u8 = 0x00;
/// Sort byte of the largest positive numbers (8 magnitude bytes).
pub const SORT_BYTE_MAX: u8 = 0x0F;
/// Longest encoding of an [`I65`]: a sort byte and 8 magnitude bytes.
pub const MAX_ENCODED_LEN: usize = 9;

/// A 65-bit signed integer: every `u64` and every `i64`, `-(2^64-1) ..= 2^64-1`.
///
/// This is the integer type of key path IDs. Signed and unsigned values with the same
/// numeric value are the same `I65` and encode to the same bytes.
///
/// ```
/// use sortpath::I65;
/// let a = I65::from(-5i64);
/// let b = I65::from(7u64);
/// assert!(a < b);
/// assert_eq!(I65::try_from(1i128 << 64), Err(sortpath::IntRangeError(1i128 << 64)));
/// assert_eq!(I65::from(1234u64).to_i128(), 1234);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct I65 {
    // Invariant: `negative` implies `magnitude != 0` (zero is not negative).
    negative: bool,
    magnitude: u64,
}

/// The value does not fit in the 65-bit range `-(2^64-1) ..= 2^64-1`.
///
/// ```
/// let err = sortpath::I65::try_from(i128::MAX).unwrap_err();
/// assert!(err.to_string().contains("out of range"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("integer {0} is out of range: IDs take -(2^64-1) ..= 2^64-1")]
pub struct IntRangeError(pub i128);

/// Why bytes are not a valid sort-byte integer.
///
/// ```
/// let err = sortpath::I65::decode_prefix(&[0x09, 0x01]).unwrap_err();
/// assert_eq!(err, sortpath::IntDecodeError::Truncated { needed: 3, found: 2 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntDecodeError {
    /// No bytes at all.
    #[error("expected an integer sort byte, found the end of input")]
    Empty,
    /// The first byte is not a sort byte (`0x00..=0x0F`).
    #[error("expected an integer sort byte 0x00..=0x0F, found 0x{0:02X}")]
    BadSortByte(u8),
    /// Fewer bytes than the sort byte announces.
    #[error("integer needs {needed} bytes, found {found}")]
    Truncated {
        /// Bytes the sort byte announces, including itself.
        needed: usize,
        /// Bytes available.
        found: usize,
    },
    /// The magnitude has a leading zero byte (or is zero where zero is not allowed), so it
    /// is not the one canonical encoding of its value.
    #[error("integer magnitude is not minimal (leading zero byte)")]
    NotMinimal,
    /// Bytes follow the integer where the input should end ([`I65::decode`]).
    #[error("integer ends at byte offset {end}, found {found} bytes")]
    Trailing {
        /// Where the integer ends.
        end: usize,
        /// Bytes given.
        found: usize,
    },
}

impl I65 {
    /// The smallest value, `-(2^64-1)`.
    pub const MIN: I65 = I65 {
        negative: true,
        magnitude: u64::MAX,
    };
    /// The largest value, `2^64-1`.
    pub const MAX: I65 = I65 {
        negative: false,
        magnitude: u64::MAX,
    };
    /// Zero.
    pub const ZERO: I65 = I65 {
        negative: false,
        magnitude: 0,
    };

    /// Builds a value from a sign and a magnitude; `-0` is zero.
    ///
    /// ```
    /// use sortpath::I65;
    /// assert_eq!(I65::from_sign_magnitude(true, 0), I65::ZERO);
    /// assert_eq!(I65::from_sign_magnitude(true, u64::MAX), I65::MIN);
    /// ```
    pub const fn from_sign_magnitude(negative: bool, magnitude: u64) -> I65 {
        I65 {
            negative: negative && magnitude != 0,
            magnitude,
        }
    }

    /// Whether the value is below zero.
    ///
    /// ```
    /// assert!(sortpath::I65::from(-1i64).is_negative());
    /// ```
    pub const fn is_negative(self) -> bool {
        self.negative
    }

    /// The absolute value.
    ///
    /// ```
    /// assert_eq!(sortpath::I65::from(-7i64).magnitude(), 7);
    /// ```
    pub const fn magnitude(self) -> u64 {
        self.magnitude
    }

    /// The value as an `i128` (always fits).
    ///
    /// ```
    /// assert_eq!(sortpath::I65::MIN.to_i128(), -(u64::MAX as i128));
    /// ```
    pub const fn to_i128(self) -> i128 {
        if self.negative {
            -(self.magnitude as i128)
        } else {
            self.magnitude as i128
        }
    }

    /// The value as an `i64`, if it fits.
    ///
    /// ```
    /// assert_eq!(sortpath::I65::from(u64::MAX).to_i64(), None);
    /// ```
    pub fn to_i64(self) -> Option<i64> {
        i64::try_from(self.to_i128()).ok()
    }

    /// The value as a `u64`, if it fits.
    ///
    /// ```
    /// assert_eq!(sortpath::I65::from(-1i64).to_u64(), None);
    /// ```
    pub fn to_u64(self) -> Option<u64> {
        if self.negative {
            None
        } else {
            Some(self.magnitude)
        }
    }

    /// Number of magnitude bytes in the encoding (1 to 8).
    const fn magnitude_len(self) -> usize {
        let bytes = 8 - (self.magnitude.leading_zeros() as usize) / 8;
        if bytes == 0 {
            1
        } else {
            bytes
        }
    }

    /// The sort byte of this value.
    ///
    /// ```
    /// use sortpath::I65;
    /// assert_eq!(I65::from(0u64).sort_byte(), 0x07);
    /// assert_eq!(I65::from(1234u64).sort_byte(), 0x09);
    /// assert_eq!(I65::from(-257i64).sort_byte(), 0x06);
    /// ```
    pub const fn sort_byte(self) -> u8 {
        let k = self.magnitude_len() as u8;
        if self.negative || self.magnitude == 0 {
            8 - k
        } else {
            7 + k
        }
    }

    /// Length of the encoding in bytes (2 to 9).
    ///
    /// ```
    /// assert_eq!(sortpath::I65::from(1234u64).encoded_len(), 3);
    /// ```
    pub const fn encoded_len(self) -> usize {
        1 + self.magnitude_len()
    }

    /// Appends the encoding to `out`.
    ///
    /// ```
    /// let mut out = Vec::new();
    /// sortpath::I65::from(-256i64).encode_into(&mut out);
    /// assert_eq!(out, [0x06, 0xFE, 0xFF]);
    /// ```
    pub fn encode_into(self, out: &mut Vec<u8>) {
        let (buf, start) = self.encoded();
        out.extend_from_slice(&buf[start..]);
    }

    /// The encoding as the bytes of a buffer from an offset on.
    #[inline]
    pub(crate) fn encoded(self) -> ([u8; MAX_ENCODED_LEN], usize) {
        let k = self.magnitude_len();
        let negative_or_zero = self.negative || self.magnitude == 0;
        // Sort byte and big-endian magnitude in one 9-byte buffer, written with one copy.
        let magnitude = if negative_or_zero {
            !self.magnitude
        } else {
            self.magnitude
        };
        let mut buf = [0u8; MAX_ENCODED_LEN];
        buf[1..].copy_from_slice(&magnitude.to_be_bytes());
        buf[8 - k] = self.sort_byte();
        (buf, 8 - k)
    }

    /// The encoding as a new vector.
    ///
    /// ```
    /// assert_eq!(sortpath::I65::from(0u64).encode(), [0x07, 0xFF]);
    /// ```
    pub fn encode(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MAX_ENCODED_LEN);
        self.encode_into(&mut out);
        out
    }

    /// Decodes one integer from the start of `bytes`, returning it and the bytes it took.
    /// Only the canonical (minimal) encoding of a value is accepted.
    ///
    /// ```
    /// use sortpath::I65;
    /// assert_eq!(I65::decode_prefix(&[0x09, 0x04, 0xD2, 0x01]), Ok((I65::from(1234u64), 3)));
    /// assert!(I65::decode_prefix(&[0x09, 0x00, 0xD2]).is_err()); // leading zero
    /// ```
    pub fn decode_prefix(bytes: &[u8]) -> Result<(I65, usize), IntDecodeError> {
        let &sort = bytes.first().ok_or(IntDecodeError::Empty)?;
        if sort > SORT_BYTE_MAX {
            return Err(IntDecodeError::BadSortByte(sort));
        }
        let negative_or_zero = sort <= SORT_BYTE_ZERO;
        let k = if negative_or_zero {
            usize::from(8 - sort)
        } else {
            usize::from(sort - 7)
        };
        let needed = 1 + k;
        let Some(body) = bytes.get(1..needed) else {
            return Err(IntDecodeError::Truncated {
                needed,
                found: bytes.len(),
            });
        };
        let stored = be_word(body);
        // The inverted magnitude bytes of a negative number (or zero), and only those.
        let magnitude = if negative_or_zero {
            !stored & (u64::MAX >> (8 * (8 - k)))
        } else {
            stored
        };
        // Minimal: the leading magnitude byte is non-zero, except for zero itself (`07 FF`).
        let leading_zero = magnitude >> (8 * (k - 1)) == 0;
        if leading_zero && !(sort == SORT_BYTE_ZERO && magnitude == 0) {
            return Err(IntDecodeError::NotMinimal);
        }
        Ok((
            I65::from_sign_magnitude(negative_or_zero, magnitude),
            needed,
        ))
    }

    /// Decodes an integer that is all of `bytes`: [`I65::decode_prefix`] and no byte after it.
    ///
    /// ```
    /// use sortpath::{IntDecodeError, I65};
    /// assert_eq!(I65::decode(&[0x09, 0x04, 0xD2]), Ok(I65::from(1234u64)));
    /// assert_eq!(
    ///     I65::decode(&[0x09, 0x04, 0xD2, 0x01]),
    ///     Err(IntDecodeError::Trailing { end: 3, found: 4 })
    /// );
    /// ```
    pub fn decode(bytes: &[u8]) -> Result<I65, IntDecodeError> {
        let (value, end) = I65::decode_prefix(bytes)?;
        if end != bytes.len() {
            return Err(IntDecodeError::Trailing {
                end,
                found: bytes.len(),
            });
        }
        Ok(value)
    }
}

/// `bytes` (1..=8 of them) as a big-endian number, with a fixed number of loads: two
/// overlapping 4-byte loads for 4..=8 bytes, two overlapping 2-byte loads for 2 or 3, one
/// byte for 1. Also the codec's integer reader's, for inputs shorter than a word.
#[inline(always)]
pub(crate) fn be_word(bytes: &[u8]) -> u64 {
    // The overlapping bytes are the same in both halves, so OR joins them.
    let n = bytes.len();
    debug_assert!((1..=8).contains(&n));
    if let (Some(hi), Some(lo)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return u64::from(u32::from_be_bytes(*hi)) << (8 * (n - 4))
            | u64::from(u32::from_be_bytes(*lo));
    }
    if let (Some(hi), Some(lo)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>()) {
        return u64::from(u16::from_be_bytes(*hi)) << (8 * (n - 2))
            | u64::from(u16::from_be_bytes(*lo));
    }
    // One byte, or none (not passed: every magnitude has at least one; 0 keeps this total).
    bytes.first().map_or(0, |&b| u64::from(b))
}

impl Ord for I65 {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, false) => self.magnitude.cmp(&other.magnitude),
            (true, true) => other.magnitude.cmp(&self.magnitude),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
        }
    }
}

impl PartialOrd for I65 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for I65 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for I65 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            write!(f, "-{}", self.magnitude)
        } else {
            write!(f, "{}", self.magnitude)
        }
    }
}

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for I65 {
            fn from(v: $t) -> I65 {
                I65::from_sign_magnitude(false, v as u64)
            }
        }
    )*};
}
macro_rules! from_signed {
    ($($t:ty),*) => {$(
        impl From<$t> for I65 {
            fn from(v: $t) -> I65 {
                I65::from_sign_magnitude(v < 0, (v as i64).unsigned_abs())
            }
        }
    )*};
}
from_unsigned!(u8, u16, u32, u64, usize);
from_signed!(i8, i16, i32, i64, isize);

impl TryFrom<i128> for I65 {
    type Error = IntRangeError;
    fn try_from(v: i128) -> Result<I65, IntRangeError> {
        let magnitude = u64::try_from(v.unsigned_abs()).map_err(|_| IntRangeError(v))?;
        Ok(I65::from_sign_magnitude(v < 0, magnitude))
    }
}

impl TryFrom<u128> for I65 {
    type Error = IntRangeError;
    fn try_from(v: u128) -> Result<I65, IntRangeError> {
        let magnitude =
            u64::try_from(v).map_err(|_| IntRangeError(v.min(i128::MAX as u128) as i128))?;
        Ok(I65::from_sign_magnitude(false, magnitude))
    }
}

impl From<I65> for i128 {
    fn from(v: I65) -> i128 {
        v.to_i128()
    }
}

#[cfg(test)]
mod tests;
