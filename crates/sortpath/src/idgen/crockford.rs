//! Crockford base32 (`0-9A-HJKMNP-TV-Z`) for 128-bit numbers, as ULID uses.
//!
//! The alphabet is in ASCII order, so 26-digit upper-case text sorts like the number.
//! Input is case-insensitive; output is upper case. The letters I, L, O and U are not
//! digits and are rejected, so that every accepted text names one value and prints back
//! the same up to case.

/// The Crockford base32 digits in ascending value and ascending ASCII order.
pub(crate) const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Number of digits of a 128-bit value: 26 * 5 = 130 bits, the top 2 always zero.
pub(crate) const DIGITS: usize = 26;

/// Why text is not a 26-digit Crockford base32 number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base32Error {
    /// The byte at this position is not a Crockford base32 digit.
    Digit(usize),
    /// The first digit is above `7`, so the value needs more than 128 bits.
    Overflow,
}

fn digit_value(c: u8) -> Option<u8> {
    let upper = c.to_ascii_uppercase();
    ALPHABET.iter().position(|&d| d == upper).map(|v| v as u8)
}

/// Writes `value` as 26 upper-case digits.
pub(crate) fn encode(value: u128) -> [u8; DIGITS] {
    let mut out = [0u8; DIGITS];
    for (i, slot) in out.iter_mut().enumerate() {
        let shift = 5 * (DIGITS - 1 - i);
        *slot = ALPHABET[((value >> shift) & 0x1F) as usize];
    }
    out
}

/// Parses 26 digits (any case).
pub(crate) fn decode(text: &[u8; DIGITS]) -> Result<u128, Base32Error> {
    let mut value: u128 = 0;
    for (position, &c) in text.iter().enumerate() {
        let digit = digit_value(c).ok_or(Base32Error::Digit(position))?;
        if position == 0 && digit > 7 {
            return Err(Base32Error::Overflow);
        }
        value = (value << 5) | u128::from(digit);
    }
    Ok(value)
}
