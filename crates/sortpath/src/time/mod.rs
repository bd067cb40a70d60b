//! Timestamps as key fields: ascending or latest-first, at a declared precision, with
//! times before 1970 sorting correctly.
//!
//! This module lives at `sortpath::time` (a directory module, `src/time/`). A
//! [`Timestamp`] is a UTC instant with nanosecond resolution: whole seconds since
//! 1970-01-01 (an `i64`, negative before 1970) and a nanosecond fraction (`0..1e9`,
//! always counted forward, so -0.5 s is second -1 plus 500,000,000 ns). Its key
//! encoding ([`Timestamp::encode_into`]) is:
//!
//! ```text
//! [ I65 sort-byte integer: whole seconds ][ fraction, fixed width, big-endian ]
//!   1..9 bytes, e.g. 0 -> 07 FF,              Precision::Seconds: none
//!   1700000000 -> 0B 65 53 F1 00,             Precision::Millis:  2 bytes, 0..=999
//!   -1 -> 07 FE                               Precision::Nanos:   4 bytes, 0..=999_999_999
//! ```
//!
//! The integer part is the shared [`I65`](crate::I65) encoding, so seconds are
//! variable-length, negatives sort first, and the whole key is prefix-free.
//! [`Order::Descending`](crate::Order::Descending) complements every byte; because the ascending encoding is
//! prefix-free, the complement sorts in exactly the reverse order.
//!
//! Keep one precision per key position. Keys of different precisions are not prefix-free
//! among themselves (1 s at `Seconds` is a prefix of 1.5 s at `Millis`): ascending, they
//! still sort by time, but latest-first the shorter key sorts before every longer key it
//! starts, older or not.
//!
//! Encoding truncates to the precision (toward the past: -0.5 s at `Seconds` is -1 s).
//!
//! Conversions: `std::time::SystemTime` always; `time::OffsetDateTime` with the `time`
//! feature; `chrono::DateTime<Utc>` with the `chrono` feature.
//!
//! ```
//! use sortpath::time::{Precision, Timestamp};
//! use sortpath::Order;
//! let before_1970: Timestamp = "1969-07-20T20:17:40Z".parse()?;
//! let now = Timestamp::now();
//! let key = |t: Timestamp| t.encode(Precision::Millis, Order::Ascending);
//! assert!(key(before_1970) < key(now));
//! let latest_first = |t: Timestamp| t.encode(Precision::Millis, Order::Descending);
//! assert!(latest_first(now) < latest_first(before_1970));
//! # Ok::<(), sortpath::time::TimeParseError>(())
//! ```

pub(crate) mod civil;
mod convert;
mod key;
pub(crate) mod text;

#[cfg(test)]
mod tests;

pub use convert::TimeRangeError;
pub use key::{LatestFirst, Precision, TimeKeyError, TIME_KEY_MAX_LEN};
pub use text::TimeParseError;

/// Nanoseconds in a second; the fraction of a [`Timestamp`] is below this.
///
/// ```
/// assert!(sortpath::time::Timestamp::new(0, sortpath::time::NANOS_PER_SECOND).is_err());
/// ```
pub const NANOS_PER_SECOND: u32 = 1_000_000_000;

/// A UTC instant: seconds since 1970-01-01T00:00:00Z and a nanosecond fraction.
///
/// `Ord` is chronological. `Display`/`FromStr` use RFC 3339 UTC text with nine fraction
/// digits. As a serde value it is that text in human-readable formats and the
/// nanosecond ascending key bytes otherwise.
///
/// ```
/// use sortpath::time::Timestamp;
/// let t = Timestamp::from_unix_millis(-1);
/// assert_eq!((t.unix_seconds(), t.subsec_nanos()), (-1, 999_000_000));
/// assert_eq!(t.to_string(), "1969-12-31T23:59:59.999000000Z");
/// assert!(t < Timestamp::UNIX_EPOCH);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
pub struct Timestamp {
    // Invariant: nanos < NANOS_PER_SECOND. Field order makes the derived Ord chronological.
    secs: i64,
    nanos: u32,
}

impl Timestamp {
    /// 1970-01-01T00:00:00Z.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::UNIX_EPOCH.unix_seconds(), 0);
    /// ```
    pub const UNIX_EPOCH: Timestamp = Timestamp { secs: 0, nanos: 0 };
    /// The earliest instant, `i64::MIN` seconds.
    ///
    /// ```
    /// assert!(sortpath::time::Timestamp::MIN < sortpath::time::Timestamp::UNIX_EPOCH);
    /// ```
    pub const MIN: Timestamp = Timestamp {
        secs: i64::MIN,
        nanos: 0,
    };
    /// The latest instant, `i64::MAX` seconds plus 999,999,999 ns.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::MAX.subsec_nanos(), 999_999_999);
    /// ```
    pub const MAX: Timestamp = Timestamp {
        secs: i64::MAX,
        nanos: NANOS_PER_SECOND - 1,
    };

    /// Builds a timestamp; errors if `nanos` is not below one second.
    ///
    /// ```
    /// use sortpath::time::Timestamp;
    /// assert!(Timestamp::new(-1, 500_000_000).is_ok());
    /// assert!(Timestamp::new(0, 1_000_000_000).is_err());
    /// ```
    pub fn new(secs: i64, nanos: u32) -> Result<Timestamp, TimeRangeError> {
        if nanos >= NANOS_PER_SECOND {
            return Err(TimeRangeError::new(
                "a nanosecond fraction 0..1000000000",
                nanos,
            ));
        }
        Ok(Timestamp { secs, nanos })
    }

    /// The timestamp `secs` seconds after the epoch.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::from_unix_seconds(-86_400).to_string(),
    ///            "1969-12-31T00:00:00.000000000Z");
    /// ```
    pub const fn from_unix_seconds(secs: i64) -> Timestamp {
        Timestamp { secs, nanos: 0 }
    }

    /// The timestamp `millis` milliseconds after the epoch.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::from_unix_millis(1500).subsec_nanos(), 500_000_000);
    /// ```
    pub const fn from_unix_millis(millis: i64) -> Timestamp {
        Timestamp {
            secs: millis.div_euclid(1000),
            nanos: millis.rem_euclid(1000) as u32 * 1_000_000,
        }
    }

    /// The timestamp `nanos` nanoseconds after the epoch; errors beyond `i64` seconds.
    ///
    /// ```
    /// use sortpath::time::Timestamp;
    /// assert_eq!(Timestamp::from_unix_nanos(-1)?.unix_nanos(), -1);
    /// assert!(Timestamp::from_unix_nanos(i128::MAX).is_err());
    /// # Ok::<(), sortpath::time::TimeRangeError>(())
    /// ```
    pub fn from_unix_nanos(nanos: i128) -> Result<Timestamp, TimeRangeError> {
        let n = i128::from(NANOS_PER_SECOND);
        let secs = i64::try_from(nanos.div_euclid(n))
            .map_err(|_| TimeRangeError::new("a time within i64 seconds of 1970", nanos))?;
        Ok(Timestamp {
            secs,
            nanos: nanos.rem_euclid(n) as u32,
        })
    }

    /// Whole seconds since the epoch (rounded toward the past).
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::from_unix_millis(-1).unix_seconds(), -1);
    /// ```
    pub const fn unix_seconds(self) -> i64 {
        self.secs
    }

    /// The nanosecond fraction, `0..1_000_000_000`, counted forward from `unix_seconds`.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::from_unix_millis(-1).subsec_nanos(), 999_000_000);
    /// ```
    pub const fn subsec_nanos(self) -> u32 {
        self.nanos
    }

    /// Milliseconds since the epoch (rounded toward the past).
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::from_unix_millis(-7).unix_millis(), -7);
    /// ```
    pub const fn unix_millis(self) -> i128 {
        self.secs as i128 * 1000 + (self.nanos / 1_000_000) as i128
    }

    /// Nanoseconds since the epoch.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Timestamp::from_unix_seconds(1).unix_nanos(), 1_000_000_000);
    /// ```
    pub const fn unix_nanos(self) -> i128 {
        self.secs as i128 * NANOS_PER_SECOND as i128 + self.nanos as i128
    }

    /// The timestamp truncated (toward the past) to `precision`.
    ///
    /// ```
    /// use sortpath::time::{Precision, Timestamp};
    /// let t = Timestamp::new(-1, 123_456_789)?;
    /// assert_eq!(t.truncate(Precision::Millis), Timestamp::new(-1, 123_000_000)?);
    /// assert_eq!(t.truncate(Precision::Seconds), Timestamp::from_unix_seconds(-1));
    /// # Ok::<(), sortpath::time::TimeRangeError>(())
    /// ```
    pub const fn truncate(self, precision: Precision) -> Timestamp {
        let unit = precision.nanos_per_unit();
        Timestamp {
            secs: self.secs,
            nanos: self.nanos - self.nanos % unit,
        }
    }

    /// The system clock now.
    ///
    /// ```
    /// assert!(sortpath::time::Timestamp::now().unix_seconds() > 1_700_000_000);
    /// ```
    pub fn now() -> Timestamp {
        // The system clock is always within i64 seconds of 1970.
        Timestamp::try_from(std::time::SystemTime::now()).unwrap_or(Timestamp::UNIX_EPOCH)
    }
}
