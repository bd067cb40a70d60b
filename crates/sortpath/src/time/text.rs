//! RFC 3339 / ISO 8601 UTC text: `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`.
//!
//! Years 0..=9999 print as four digits; other years in ISO 8601 expanded form, a sign
//! and at least six digits (`+010000-01-01T00:00:00Z`, `-000001-12-31T23:59:59Z`).
//! Only `Z` (UTC) is accepted as the zone, and there are no leap seconds (`:60`).

use std::fmt::{self, Write as _};
use std::str::FromStr;

use super::civil::{civil_from_days, days_from_civil, days_in_month};
use super::{Timestamp, NANOS_PER_SECOND};

const SECONDS_PER_DAY: i64 = 86_400;

/// Why text is not an RFC 3339 UTC timestamp.
///
/// ```
/// let err = "2024-02-30T00:00:00Z".parse::<sortpath::time::Timestamp>().unwrap_err();
/// assert_eq!(err.to_string(), "expected a day 01..=29 at byte offset 8, found \"30\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected} at byte offset {position}, found {found:?}")]
pub struct TimeParseError {
    /// What the parser expected.
    pub expected: String,
    /// Byte offset in the text.
    pub position: usize,
    /// The text found there (possibly empty at the end).
    pub found: String,
}

/// Writes `secs`/`nanos` as UTC text with exactly `fraction_digits` (0..=9) fraction
/// digits (truncating), expanding years outside 0..=9999.
pub(crate) fn write_utc(out: &mut String, secs: i64, nanos: u32, fraction_digits: usize) {
    let days = secs.div_euclid(SECONDS_PER_DAY);
    let second_of_day = secs.rem_euclid(SECONDS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    // Writing to a String cannot fail.
    let _ = if (0..=9999).contains(&year) {
        write!(out, "{year:04}")
    } else {
        write!(
            out,
            "{}{:06}",
            if year < 0 { '-' } else { '+' },
            year.unsigned_abs()
        )
    };
    let _ = write!(
        out,
        "-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    );
    if fraction_digits > 0 {
        let digits = format!("{nanos:09}");
        out.push('.');
        out.push_str(&digits[..fraction_digits.min(9)]);
    }
    out.push('Z');
}

/// A small cursor for error positions.
struct Cursor<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Cursor<'a> {
    fn error(&self, expected: impl Into<String>, len: usize) -> TimeParseError {
        // `len` bytes, widened to whole characters: a non-ASCII character where a digit or
        // a separator belongs is shown, not cut to nothing.
        let rest = self.text.get(self.position..).unwrap_or("");
        let mut end = len.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        TimeParseError {
            expected: expected.into(),
            position: self.position,
            found: rest[..end].to_string(),
        }
    }

    fn digits(&mut self, count: usize, what: &str) -> Result<(u64, &'a str), TimeParseError> {
        let bytes = self.text.as_bytes();
        let end = self.position + count;
        match bytes.get(self.position..end) {
            Some(run) if run.iter().all(u8::is_ascii_digit) => {
                let s = &self.text[self.position..end];
                self.position = end;
                Ok((
                    run.iter().fold(0, |acc, &b| acc * 10 + u64::from(b - b'0')),
                    s,
                ))
            }
            _ => Err(self.error(format!("{count} digits of {what}"), count)),
        }
    }

    fn ranged(
        &mut self,
        count: usize,
        what: &str,
        min: u64,
        max: u64,
    ) -> Result<u64, TimeParseError> {
        let start = self.position;
        let (v, _) = self.digits(count, what)?;
        if v < min || v > max {
            self.position = start;
            return Err(self.error(format!("{what} {min:0count$}..={max:0count$}"), count));
        }
        Ok(v)
    }

    fn literal(&mut self, c: u8) -> Result<(), TimeParseError> {
        if self.text.as_bytes().get(self.position) == Some(&c) {
            self.position += 1;
            Ok(())
        } else {
            Err(self.error(format!("{:?}", char::from(c)), 1))
        }
    }
}

/// Parses UTC text. With `fraction_digits = Some(n)` exactly `n` fraction digits are
/// required (no dot when `n == 0`); with `None`, 0 to 9 digits are accepted.
pub(crate) fn parse_utc(
    text: &str,
    fraction_digits: Option<usize>,
) -> Result<Timestamp, TimeParseError> {
    let mut c = Cursor { text, position: 0 };
    let year: i64 = match text.as_bytes().first() {
        Some(&sign @ (b'+' | b'-')) => {
            c.position = 1;
            let start = c.position;
            let len = text.as_bytes()[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if !(6..=12).contains(&len) {
                return Err(c.error("6 to 12 digits of an expanded year", len.max(1)));
            }
            let (v, _) = c.digits(len, "an expanded year")?;
            let v = v as i64;
            if sign == b'-' {
                -v
            } else {
                v
            }
        }
        _ => c.digits(4, "a year")?.0 as i64,
    };
    c.literal(b'-')?;
    let month = c.ranged(2, "a month", 1, 12)? as u32;
    c.literal(b'-')?;
    let day = c.ranged(2, "a day", 1, u64::from(days_in_month(year, month)))? as u32;
    c.literal(b'T')?;
    let hour = c.ranged(2, "an hour", 0, 23)? as i64;
    c.literal(b':')?;
    let minute = c.ranged(2, "a minute", 0, 59)? as i64;
    c.literal(b':')?;
    let second = c.ranged(2, "a second", 0, 59)? as i64;
    let mut nanos: u32 = 0;
    let has_dot = text.as_bytes().get(c.position) == Some(&b'.');
    match fraction_digits {
        Some(0) | None if !has_dot => {}
        Some(0) => return Err(c.error("'Z' (no fraction at this precision)", 1)),
        Some(n) if !has_dot => return Err(c.error(format!("'.' and {n} fraction digits"), 1)),
        _ => {
            c.position += 1;
            let start = c.position;
            let len = text.as_bytes()[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let allowed = fraction_digits.map_or(1..=9, |n| n..=n);
            if !allowed.contains(&len) {
                let (lo, hi) = (allowed.start(), allowed.end());
                return Err(c.error(format!("{lo} to {hi} fraction digits"), len.max(1)));
            }
            let (v, _) = c.digits(len, "a fraction")?;
            nanos = (v * 10u64.pow(9 - len as u32)) as u32;
        }
    }
    c.literal(b'Z')?;
    if c.position != text.len() {
        return Err(c.error("the end of the timestamp", text.len() - c.position));
    }
    let days = i128::from(days_from_civil(year, month, day));
    let secs = days * i128::from(SECONDS_PER_DAY) + i128::from(hour * 3600 + minute * 60 + second);
    let secs = i64::try_from(secs).map_err(|_| TimeParseError {
        expected: "a time within i64 seconds of 1970".into(),
        position: 0,
        found: text.to_string(),
    })?;
    debug_assert!(nanos < NANOS_PER_SECOND);
    Ok(Timestamp { secs, nanos })
}

impl fmt::Display for Timestamp {
    /// RFC 3339 UTC with nine fraction digits, e.g. `1969-12-31T23:59:59.500000000Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(30);
        write_utc(&mut out, self.secs, self.nanos, 9);
        f.write_str(&out)
    }
}

impl FromStr for Timestamp {
    type Err = TimeParseError;

    /// Parses RFC 3339 UTC text with 0 to 9 fraction digits and a `Z` zone.
    fn from_str(s: &str) -> Result<Timestamp, TimeParseError> {
        parse_utc(s, None)
    }
}
