//! String-safe sortable forms, for stores whose keys must stay strings (DynamoDB string
//! sort keys, `USER#0042`-style composite keys, URLs, file names).
//!
//! Every form here sorts byte-wise (which for these ASCII strings is also UTF-8 and
//! UTF-16 order) exactly like the value it encodes:
//!
//! | form | example | domain |
//! |------|---------|--------|
//! | [`padded`] | `padded(42, 6)` = `000042` | `0 ..= 10^width - 1`, overflow is an error |
//! | [`inverted`] | `inverted(42, 999_999)` = `999957` | `0 ..= max`, sorts descending |
//! | [`int_key`] | `42` -> `0242`, `-42` -> `-9757` | every `i128`, no padding |
//! | [`decimal_key`] | `-1.25` -> `-988.74~` | decimals with up to 999 integer digits |
//! | [`float_key`] | `0.1` -> `00.1` | finite `f64` |
//! | [`iso8601_key`] | `2024-05-01T12:00:00.000Z` | years 0000..=9999, fixed precision |
//! | [`Casing`] | `Lower` maps `0xAB` to `0xab` | makes hex/base32 text sort by value |
//!
//! The variable-length forms put the digit count first (two decimal digits, [`LEN_DIGITS`];
//! from 99 digits on, [`LONG_LEN_MARK`] `99` and three digits), so a longer number sorts
//! after a shorter one without zero padding. Negative numbers start with
//! [`NEGATIVE_MARK`] `-` (which sorts before every digit), then the nines' complement of
//! the length prefix and of the digits (`99 - length` for short numbers), so a larger
//! magnitude sorts first. Decimal negatives end with [`NEGATIVE_END`] `~` so that `-1.5`
//! sorts before `-1`.
//!
//! In a composite key, separate fields with a byte below `.` (for example `#`), so that
//! a decimal's fraction compares after its integer part ends.
//!
//! To find the sort bugs in string keys you already have, run them through [`lint`] (or
//! `sortpath lint` on the command line).
//!
//! ```
//! use sortpath::strkey::{int_key, padded};
//! let mut keys = vec![int_key(10), int_key(-3), int_key(2), int_key(-40)];
//! keys.sort();
//! assert_eq!(keys, ["-9759", "-986", "012", "0210"]);
//! assert!(padded(1_000, 3).is_err()); // never truncates
//! ```

use std::borrow::Cow;

use crate::time::text::{parse_utc, write_utc};
use crate::time::{Precision, Timestamp};

#[cfg(test)]
mod tests;

pub mod lint;

/// First byte of every negative variable-length number; sorts before all digits.
///
/// ```
/// assert!(sortpath::strkey::int_key(-5).starts_with(sortpath::strkey::NEGATIVE_MARK));
/// ```
pub const NEGATIVE_MARK: char = '-';
/// Last byte of a negative [`decimal_key`]; sorts after `.` and every digit.
///
/// ```
/// assert!(sortpath::strkey::decimal_key("-5")?.ends_with(sortpath::strkey::NEGATIVE_END));
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub const NEGATIVE_END: char = '~';
/// Separator of integer and fraction digits in [`decimal_key`].
///
/// ```
/// assert_eq!(sortpath::strkey::decimal_key("2.5")?, format!("012{}5", sortpath::strkey::DECIMAL_POINT));
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub const DECIMAL_POINT: char = '.';
/// Number of decimal digits of the (short) length prefix of the variable-length forms.
///
/// ```
/// assert_eq!(sortpath::strkey::int_key(123).len(), sortpath::strkey::LEN_DIGITS + 3);
/// ```
pub const LEN_DIGITS: usize = 2;
/// Two-digit length prefix announcing that three more length digits follow, for 99 or
/// more digits (floats reach 309).
///
/// ```
/// let key = sortpath::strkey::decimal_key(&"1".repeat(120))?;
/// assert!(key.starts_with(&format!("{}120", sortpath::strkey::LONG_LEN_MARK)));
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub const LONG_LEN_MARK: &str = "99";
/// Most integer digits the variable-length forms can hold.
///
/// ```
/// let too_long = "1".repeat(sortpath::strkey::MAX_INT_DIGITS + 1);
/// assert!(sortpath::strkey::decimal_key(&too_long).is_err());
/// ```
pub const MAX_INT_DIGITS: usize = 999;

/// Why a value has no string key of the requested form, or a string is not one.
///
/// ```
/// let err = sortpath::strkey::padded(12_345, 4).unwrap_err();
/// assert_eq!(err.to_string(), "expected at most 4 digits, found 12345 (5 digits)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StrKeyError {
    /// The number needs more digits than the declared width.
    #[error("expected at most {width} digits, found {value} ({digits} digits)")]
    TooWide {
        /// Declared width.
        width: usize,
        /// The number.
        value: String,
        /// Its digit count.
        digits: usize,
    },
    /// The number is above the declared maximum.
    #[error("expected a number at most {max}, found {value}")]
    AboveMax {
        /// Declared maximum.
        max: u64,
        /// The number.
        value: u64,
    },
    /// The text is not in the form expected.
    #[error("expected {expected} at byte offset {position}, found {found:?}")]
    Syntax {
        /// What was expected.
        expected: String,
        /// Byte offset.
        position: usize,
        /// What was found there.
        found: String,
    },
    /// The value is outside the form's domain.
    #[error("expected {expected}, found {found}")]
    OutOfDomain {
        /// The domain, in words.
        expected: &'static str,
        /// The value.
        found: String,
    },
}

fn syntax(expected: impl Into<String>, text: &str, position: usize) -> StrKeyError {
    let found: String = text.get(position..).unwrap_or("").chars().take(8).collect();
    StrKeyError::Syntax {
        expected: expected.into(),
        position,
        found,
    }
}

/// Parses all of `text` as ASCII decimal digits (at least one) into a u64.
fn parse_digits(text: &str, offset: usize, whole: &str) -> Result<u64, StrKeyError> {
    if text.is_empty() {
        return Err(syntax("a decimal digit", whole, offset));
    }
    let mut value: u64 = 0;
    for (i, b) in text.bytes().enumerate() {
        if !b.is_ascii_digit() {
            return Err(syntax("a decimal digit", whole, offset + i));
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(|| syntax("a number at most 18446744073709551615", whole, offset))?;
    }
    Ok(value)
}

/// `n` as exactly `width` decimal digits, zero-padded; errors (never truncates) when
/// `n` needs more digits.
///
/// ```
/// assert_eq!(sortpath::strkey::padded(42, 5)?, "00042");
/// assert_eq!(sortpath::strkey::padded(u64::MAX, 20)?, "18446744073709551615");
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn padded(n: u64, width: usize) -> Result<String, StrKeyError> {
    let digits = n.to_string();
    if digits.len() > width {
        return Err(StrKeyError::TooWide {
            width,
            digits: digits.len(),
            value: digits,
        });
    }
    Ok(format!("{digits:0>width$}"))
}

/// Reads a [`padded`] number of exactly `width` digits.
///
/// ```
/// assert_eq!(sortpath::strkey::parse_padded("00042", 5)?, 42);
/// assert!(sortpath::strkey::parse_padded("042", 5).is_err());
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn parse_padded(text: &str, width: usize) -> Result<u64, StrKeyError> {
    if text.len() != width {
        return Err(syntax(
            format!("exactly {width} digits"),
            text,
            text.len().min(width),
        ));
    }
    parse_digits(text, 0, text)
}

/// Number of decimal digits of `n`.
fn digit_count(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// The descending form: `max - n`, zero-padded to the digit count of `max`, so larger
/// `n` sort first. Errors when `n > max`.
///
/// ```
/// use sortpath::strkey::inverted;
/// assert_eq!(inverted(0, 999)?, "999");
/// assert_eq!(inverted(998, 999)?, "001");
/// assert!(inverted(7, 999)? > inverted(8, 999)?);
/// assert!(inverted(1000, 999).is_err());
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn inverted(n: u64, max: u64) -> Result<String, StrKeyError> {
    if n > max {
        return Err(StrKeyError::AboveMax { max, value: n });
    }
    padded(max - n, digit_count(max))
}

/// Reads an [`inverted`] number back.
///
/// ```
/// assert_eq!(sortpath::strkey::parse_inverted("001", 999)?, 998);
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn parse_inverted(text: &str, max: u64) -> Result<u64, StrKeyError> {
    let stored = parse_padded(text, digit_count(max))?;
    max.checked_sub(stored)
        .ok_or(StrKeyError::AboveMax { max, value: stored })
}

/// Nines' complement of ASCII digits.
fn complement(digits: &str) -> String {
    digits
        .bytes()
        .map(|b| char::from(b'9' - (b - b'0')))
        .collect()
}

/// The length prefix of `len` digits: two digits for `len <= 98`, otherwise
/// [`LONG_LEN_MARK`] and three digits. The prefixes are prefix-free and sort by length.
fn len_prefix(len: usize) -> String {
    debug_assert!(len <= MAX_INT_DIGITS);
    if len < 99 {
        format!("{len:02}")
    } else {
        format!("{LONG_LEN_MARK}{len:03}")
    }
}

/// The length prefix and digits of a non-negative integer part given as canonical
/// digits ("" for zero), for sign `negative`. Negatives complement the whole prefix
/// and the digits, which reverses their order.
fn push_int(out: &mut String, digits: &str, negative: bool) {
    let prefix = len_prefix(digits.len());
    if negative {
        out.push(NEGATIVE_MARK);
        out.push_str(&complement(&prefix));
        out.push_str(&complement(digits));
    } else {
        out.push_str(&prefix);
        out.push_str(digits);
    }
}

/// Reads a sign, length prefix and integer digits from the front of `text`; returns
/// (negative, canonical digits, bytes used).
fn read_int(text: &str) -> Result<(bool, String, usize), StrKeyError> {
    let negative = text.starts_with(NEGATIVE_MARK);
    let start = usize::from(negative);
    let digits_at = |from: usize, count: usize| -> Result<usize, StrKeyError> {
        let run = text
            .get(from..from + count)
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| syntax(format!("{count} length digits"), text, from))?;
        let stored = if negative {
            complement(run)
        } else {
            run.to_string()
        };
        Ok(stored
            .bytes()
            .fold(0, |acc, b| acc * 10 + usize::from(b - b'0')))
    };
    let short = digits_at(start, LEN_DIGITS)?;
    let (len, body_start) = if short == 99 {
        let len = digits_at(start + LEN_DIGITS, 3)?;
        if len < 99 {
            return Err(syntax(
                "a long length of at least 99",
                text,
                start + LEN_DIGITS,
            ));
        }
        (len, start + LEN_DIGITS + 3)
    } else {
        (short, start + LEN_DIGITS)
    };
    let body = text
        .get(body_start..body_start + len)
        .filter(|b| b.bytes().all(|c| c.is_ascii_digit()))
        .ok_or_else(|| syntax(format!("{len} digits"), text, body_start))?;
    let digits = if negative {
        complement(body)
    } else {
        body.to_string()
    };
    if digits.starts_with('0')
        || (negative && len == 0 && !text[body_start..].starts_with(DECIMAL_POINT))
    {
        // A leading zero, or "-99" with no fraction (negative zero), is not canonical.
        return Err(syntax(
            "a canonical number (no leading zero, no negative zero)",
            text,
            body_start,
        ));
    }
    Ok((negative, digits, body_start + len))
}

/// The variable-length sortable form of an integer: two-digit length then the digits,
/// negatives as `-`, `99 - length`, and the nines' complement of the digits.
///
/// ```
/// use sortpath::strkey::int_key;
/// assert_eq!(int_key(0), "00");
/// assert_eq!(int_key(7), "017");
/// assert_eq!(int_key(1234), "041234");
/// assert_eq!(int_key(-1), "-988");
/// assert_eq!(int_key(-1234), "-958765");
/// assert!(int_key(-1234) < int_key(-1) && int_key(-1) < int_key(0) && int_key(0) < int_key(7));
/// ```
pub fn int_key(n: impl Into<i128>) -> String {
    let n: i128 = n.into();
    let magnitude = n.unsigned_abs();
    let digits = if magnitude == 0 {
        String::new()
    } else {
        magnitude.to_string()
    };
    let mut out = String::with_capacity(digits.len() + 3);
    push_int(&mut out, &digits, n < 0);
    out
}

/// Reads an [`int_key`] back; the whole text must be one canonical key.
///
/// ```
/// assert_eq!(sortpath::strkey::parse_int_key("-958765")?, -1234);
/// assert!(sortpath::strkey::parse_int_key("0201").is_err()); // leading zero
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn parse_int_key(text: &str) -> Result<i128, StrKeyError> {
    let (negative, digits, used) = read_int(text)?;
    if used != text.len() {
        return Err(syntax("the end of the key", text, used));
    }
    if digits.is_empty() {
        return Ok(0);
    }
    let magnitude: u128 = digits
        .parse()
        .map_err(|_| syntax("a number within i128", text, 0))?;
    let value = if negative {
        0i128.checked_sub_unsigned(magnitude)
    } else {
        i128::try_from(magnitude).ok()
    };
    value.ok_or_else(|| syntax("a number within i128", text, 0))
}

/// Splits decimal text into (negative, canonical integer digits, canonical fraction
/// digits): no leading zeros in the integer part, no trailing zeros in the fraction,
/// and no negative zero.
fn parse_decimal(text: &str) -> Result<(bool, &str, &str), StrKeyError> {
    let (negative, unsigned, offset) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..], 1),
        Some(b'+') => (false, &text[1..], 1),
        _ => (false, text, 0),
    };
    let (int, frac) = match unsigned.find(DECIMAL_POINT) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    if int.is_empty() {
        return Err(syntax("an integer digit", text, offset));
    }
    if let Some(i) = int.bytes().position(|b| !b.is_ascii_digit()) {
        return Err(syntax("a decimal digit or '.'", text, offset + i));
    }
    let frac = match frac {
        Some("") => return Err(syntax("a fraction digit", text, offset + int.len() + 1)),
        Some(f) => {
            if let Some(i) = f.bytes().position(|b| !b.is_ascii_digit()) {
                return Err(syntax("a fraction digit", text, offset + int.len() + 1 + i));
            }
            f.trim_end_matches('0')
        }
        None => "",
    };
    let int = int.trim_start_matches('0');
    if int.len() > MAX_INT_DIGITS {
        return Err(StrKeyError::OutOfDomain {
            expected: "a decimal with at most 999 integer digits",
            found: text.chars().take(120).collect(),
        });
    }
    let negative = negative && !(int.is_empty() && frac.is_empty());
    Ok((negative, int, frac))
}

/// The variable-length sortable form of decimal text (`[+-]digits[.digits]`, no
/// exponent). Trailing fraction zeros and leading integer zeros do not matter: `1.50`
/// and `01.5` give the same key.
///
/// Layout: the integer part as in [`int_key`], then `.` and the fraction digits if
/// any; for negatives the fraction digits are complemented and [`NEGATIVE_END`] ends
/// the key.
///
/// ```
/// use sortpath::strkey::decimal_key;
/// assert_eq!(decimal_key("1.5")?, "011.5");
/// assert_eq!(decimal_key("-1.25")?, "-988.74~");
/// assert_eq!(decimal_key("-1")?, "-988~");
/// assert_eq!(decimal_key("-0.00")?, "00");
/// assert!(decimal_key("-1.25")? < decimal_key("-1.2")?);
/// assert!(decimal_key("-1.2")? < decimal_key("-1")?);
/// assert!(decimal_key("0.5")? < decimal_key("1")?);
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn decimal_key(text: &str) -> Result<String, StrKeyError> {
    let (negative, int, frac) = parse_decimal(text)?;
    let mut out = String::with_capacity(int.len() + frac.len() + 5);
    push_int(&mut out, int, negative);
    if !frac.is_empty() {
        out.push(DECIMAL_POINT);
        out.push_str(&if negative {
            complement(frac)
        } else {
            frac.to_string()
        });
    }
    if negative {
        out.push(NEGATIVE_END);
    }
    Ok(out)
}

/// Reads a [`decimal_key`] back as canonical decimal text.
///
/// ```
/// assert_eq!(sortpath::strkey::parse_decimal_key("-988.74~")?, "-1.25");
/// assert_eq!(sortpath::strkey::parse_decimal_key("00.5")?, "0.5");
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn parse_decimal_key(text: &str) -> Result<String, StrKeyError> {
    let (negative, int, mut used) = read_int(text)?;
    let mut frac = String::new();
    if text[used..].starts_with(DECIMAL_POINT) {
        let start = used + 1;
        let len = text[start..].bytes().take_while(u8::is_ascii_digit).count();
        let stored = &text[start..start + len];
        frac = if negative {
            complement(stored)
        } else {
            stored.to_string()
        };
        if frac.is_empty() || frac.ends_with('0') {
            return Err(syntax(
                "canonical fraction digits (no trailing zero)",
                text,
                start,
            ));
        }
        used = start + len;
    }
    if negative {
        if !text[used..].starts_with(NEGATIVE_END) {
            return Err(syntax(
                format!("{NEGATIVE_END:?} ending a negative decimal"),
                text,
                used,
            ));
        }
        used += 1;
    }
    if used != text.len() {
        return Err(syntax("the end of the key", text, used));
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { &int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(&frac);
    }
    Ok(out)
}

/// The [`decimal_key`] of a finite float's shortest round-trip decimal text; `-0.0` and
/// `0.0` give the same key. Errors on NaN and infinities.
///
/// ```
/// use sortpath::strkey::float_key;
/// assert_eq!(float_key(0.1)?, "00.1");
/// assert!(float_key(-2.5)? < float_key(-0.001)? && float_key(-0.001)? < float_key(1e300)?);
/// assert!(float_key(f64::NAN).is_err());
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn float_key(value: f64) -> Result<String, StrKeyError> {
    if !value.is_finite() {
        return Err(StrKeyError::OutOfDomain {
            expected: "a finite float",
            found: value.to_string(),
        });
    }
    // `Display` for f64 prints the shortest text that round-trips, without an exponent.
    decimal_key(&value.to_string())
}

/// Fraction digits of a precision in text.
fn fraction_digits(precision: Precision) -> usize {
    match precision {
        Precision::Seconds => 0,
        Precision::Millis => 3,
        Precision::Nanos => 9,
    }
}

/// ISO 8601 UTC text with a fixed number of fraction digits (0, 3 or 9 by
/// `precision`, truncating), which sorts like the time. Years must be 0000..=9999.
///
/// ```
/// use sortpath::strkey::iso8601_key;
/// use sortpath::time::{Precision, Timestamp};
/// let t = Timestamp::from_unix_millis(-1);
/// assert_eq!(iso8601_key(t, Precision::Millis)?, "1969-12-31T23:59:59.999Z");
/// assert_eq!(iso8601_key(t, Precision::Seconds)?, "1969-12-31T23:59:59Z");
/// assert!(iso8601_key(Timestamp::from_unix_seconds(253_402_300_800), Precision::Seconds).is_err());
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn iso8601_key(time: Timestamp, precision: Precision) -> Result<String, StrKeyError> {
    // 0000-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z.
    if !(-62_167_219_200..=253_402_300_799).contains(&time.unix_seconds()) {
        return Err(StrKeyError::OutOfDomain {
            expected: "a time in years 0000..=9999",
            found: time.to_string(),
        });
    }
    let mut out = String::with_capacity(30);
    write_utc(
        &mut out,
        time.unix_seconds(),
        time.subsec_nanos(),
        fraction_digits(precision),
    );
    Ok(out)
}

/// Reads an [`iso8601_key`] of exactly this precision.
///
/// ```
/// use sortpath::strkey::parse_iso8601_key;
/// use sortpath::time::{Precision, Timestamp};
/// let t = parse_iso8601_key("1969-12-31T23:59:59.999Z", Precision::Millis)?;
/// assert_eq!(t, Timestamp::from_unix_millis(-1));
/// assert!(parse_iso8601_key("1969-12-31T23:59:59Z", Precision::Millis).is_err());
/// # Ok::<(), sortpath::strkey::StrKeyError>(())
/// ```
pub fn parse_iso8601_key(text: &str, precision: Precision) -> Result<Timestamp, StrKeyError> {
    if text.starts_with(['+', '-']) {
        return Err(syntax("a four-digit year", text, 0));
    }
    parse_utc(text, Some(fraction_digits(precision))).map_err(|e| StrKeyError::Syntax {
        expected: e.expected,
        position: e.position,
        found: e.found,
    })
}

/// How letters in a string key are cased.
///
/// Byte order puts every upper-case ASCII letter before every lower-case one
/// (`"Z" < "a"`), so text that is case-insensitive by meaning (hex, base32, emails,
/// tags) must be stored in one case for its order to mean anything. Only ASCII letters
/// are mapped; other characters are left alone (full Unicode case folding changes
/// lengths and depends on the Unicode version; use `sortpath::collate` keys, feature
/// `collate`, for that).
///
/// ```
/// use sortpath::strkey::Casing;
/// assert_eq!(Casing::Lower.apply("0xAbC"), "0xabc");
/// assert!(Casing::Upper.check("01ARZ").is_ok());
/// assert!(Casing::Upper.check("01arz").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Casing {
    /// Keep letters as given (the text is case-sensitive by meaning).
    Preserve,
    /// ASCII lower case.
    Lower,
    /// ASCII upper case.
    Upper,
}

impl Casing {
    /// The text in this casing (borrowed when already conforming).
    ///
    /// ```
    /// assert_eq!(sortpath::strkey::Casing::Upper.apply("ab-Ü"), "AB-Ü");
    /// ```
    pub fn apply<'a>(self, text: &'a str) -> Cow<'a, str> {
        match self {
            Casing::Lower if text.bytes().any(|b| b.is_ascii_uppercase()) => {
                Cow::Owned(text.to_ascii_lowercase())
            }
            Casing::Upper if text.bytes().any(|b| b.is_ascii_lowercase()) => {
                Cow::Owned(text.to_ascii_uppercase())
            }
            _ => Cow::Borrowed(text),
        }
    }

    /// Whether the text already conforms; the error names the first offending byte.
    ///
    /// ```
    /// let err = sortpath::strkey::Casing::Lower.check("abC").unwrap_err();
    /// assert_eq!(err.to_string(), "expected a lower-case letter at byte offset 2, found \"C\"");
    /// ```
    pub fn check(self, text: &str) -> Result<(), StrKeyError> {
        let bad = match self {
            Casing::Preserve => None,
            Casing::Lower => text
                .bytes()
                .position(|b| b.is_ascii_uppercase())
                .map(|p| (p, "a lower-case letter")),
            Casing::Upper => text
                .bytes()
                .position(|b| b.is_ascii_lowercase())
                .map(|p| (p, "an upper-case letter")),
        };
        match bad {
            Some((position, expected)) => Err(syntax(expected, text, position)),
            None => Ok(()),
        }
    }
}
