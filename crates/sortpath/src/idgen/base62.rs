//! Fixed-width base62 (`0-9A-Za-z`) text for big-endian byte strings, as KSUID uses.
//!
//! The alphabet is in ASCII order, so for a fixed width the text sorts exactly like the
//! number it spells, and therefore like the bytes.

/// The base62 digits in ascending value and ascending ASCII order.
pub(crate) const ALPHABET: &[u8; 62] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Why text is not a fixed-width base62 number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base62Error {
    /// The byte at this position is not a base62 digit.
    Digit(usize),
    /// The number does not fit in the byte width.
    Overflow,
}

fn digit_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'Z' => Some(c - b'A' + 10),
        b'a'..=b'z' => Some(c - b'a' + 36),
        _ => None,
    }
}

/// Writes `bytes` (a big-endian number) as exactly `M` base62 digits, left-padded with `0`.
///
/// Invariant: `62^M >= 256^N`, so every value fits.
pub(crate) fn encode<const N: usize, const M: usize>(bytes: &[u8; N]) -> [u8; M] {
    let mut number = *bytes;
    let mut out = [ALPHABET[0]; M];
    for slot in out.iter_mut().rev() {
        // Long division of the big-endian number by 62; the remainder is the next digit.
        let mut remainder: u32 = 0;
        for byte in number.iter_mut() {
            let acc = (remainder << 8) | u32::from(*byte);
            *byte = (acc / 62) as u8;
            remainder = acc % 62;
        }
        *slot = ALPHABET[remainder as usize];
    }
    out
}

/// Parses exactly `M` base62 digits into an `N`-byte big-endian number.
pub(crate) fn decode<const N: usize, const M: usize>(
    text: &[u8; M],
) -> Result<[u8; N], Base62Error> {
    let mut number = [0u8; N];
    for (position, &c) in text.iter().enumerate() {
        let digit = digit_value(c).ok_or(Base62Error::Digit(position))?;
        // number = number * 62 + digit, from the least significant byte up.
        let mut carry = u32::from(digit);
        for byte in number.iter_mut().rev() {
            let acc = u32::from(*byte) * 62 + carry;
            *byte = acc as u8;
            carry = acc >> 8;
        }
        if carry != 0 {
            return Err(Base62Error::Overflow);
        }
    }
    Ok(number)
}
