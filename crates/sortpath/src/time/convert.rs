//! Conversions between [`Timestamp`] and `std::time::SystemTime`, and (behind features)
//! the `time` and `chrono` crates.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Timestamp;

/// A time is outside the range the other side can represent.
///
/// ```
/// let err = sortpath::time::Timestamp::new(0, 2_000_000_000).unwrap_err();
/// assert_eq!(err.to_string(),
///            "expected a nanosecond fraction 0..1000000000, found 2000000000");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, found {found}")]
pub struct TimeRangeError {
    expected: &'static str,
    found: String,
}

impl TimeRangeError {
    pub(crate) fn new(expected: &'static str, found: impl std::fmt::Display) -> TimeRangeError {
        TimeRangeError {
            expected,
            found: found.to_string(),
        }
    }
}

impl TryFrom<SystemTime> for Timestamp {
    type Error = TimeRangeError;

    /// Converts a system time (before or after 1970) to a timestamp.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use sortpath::time::Timestamp;
    /// let t = Timestamp::try_from(UNIX_EPOCH - Duration::from_millis(1500))?;
    /// assert_eq!(t, Timestamp::from_unix_millis(-1500));
    /// # Ok::<(), sortpath::time::TimeRangeError>(())
    /// ```
    fn try_from(time: SystemTime) -> Result<Timestamp, TimeRangeError> {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_nanos() as i128,
            Err(before) => -(before.duration().as_nanos() as i128),
        };
        Timestamp::from_unix_nanos(nanos)
    }
}

impl TryFrom<Timestamp> for SystemTime {
    type Error = TimeRangeError;

    /// Converts to a system time, if the platform can represent it.
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use sortpath::time::Timestamp;
    /// let t = Timestamp::from_unix_millis(-1500);
    /// assert_eq!(Timestamp::try_from(SystemTime::try_from(t)?)?, t);
    /// # Ok::<(), sortpath::time::TimeRangeError>(())
    /// ```
    fn try_from(t: Timestamp) -> Result<SystemTime, TimeRangeError> {
        let out_of_range = || TimeRangeError::new("a time the system clock type can hold", t);
        let whole = Duration::from_secs(t.secs.unsigned_abs());
        let base = if t.secs >= 0 {
            UNIX_EPOCH.checked_add(whole)
        } else {
            UNIX_EPOCH.checked_sub(whole)
        };
        base.and_then(|b| b.checked_add(Duration::from_nanos(u64::from(t.nanos))))
            .ok_or_else(out_of_range)
    }
}

#[cfg(feature = "time")]
impl From<::time::OffsetDateTime> for Timestamp {
    /// Converts a `time` crate date-time (any offset) to its UTC instant.
    ///
    /// ```
    /// let t = sortpath::time::Timestamp::from(time::OffsetDateTime::UNIX_EPOCH);
    /// assert_eq!(t, sortpath::time::Timestamp::UNIX_EPOCH);
    /// ```
    fn from(t: ::time::OffsetDateTime) -> Timestamp {
        Timestamp {
            secs: t.unix_timestamp(),
            nanos: t.nanosecond(),
        }
    }
}

#[cfg(feature = "time")]
impl TryFrom<Timestamp> for ::time::OffsetDateTime {
    type Error = TimeRangeError;

    /// Converts to a UTC `time::OffsetDateTime`, if within its year range.
    ///
    /// ```
    /// let t = sortpath::time::Timestamp::from_unix_millis(-1);
    /// let odt = time::OffsetDateTime::try_from(t)?;
    /// assert_eq!(odt.year(), 1969);
    /// # Ok::<(), sortpath::time::TimeRangeError>(())
    /// ```
    fn try_from(t: Timestamp) -> Result<::time::OffsetDateTime, TimeRangeError> {
        ::time::OffsetDateTime::from_unix_timestamp_nanos(t.unix_nanos())
            .map_err(|_| TimeRangeError::new("a time within the time crate's years", t))
    }
}

#[cfg(feature = "chrono")]
impl From<chrono::DateTime<chrono::Utc>> for Timestamp {
    /// Converts a chrono UTC date-time.
    ///
    /// ```
    /// let t = sortpath::time::Timestamp::from(chrono::DateTime::UNIX_EPOCH);
    /// assert_eq!(t, sortpath::time::Timestamp::UNIX_EPOCH);
    /// ```
    fn from(t: chrono::DateTime<chrono::Utc>) -> Timestamp {
        // chrono keeps leap seconds as nanos >= 1e9; fold them into the same second.
        Timestamp {
            secs: t.timestamp(),
            nanos: t.timestamp_subsec_nanos().min(super::NANOS_PER_SECOND - 1),
        }
    }
}

#[cfg(feature = "chrono")]
impl TryFrom<Timestamp> for chrono::DateTime<chrono::Utc> {
    type Error = TimeRangeError;

    /// Converts to a chrono UTC date-time, if within its year range.
    ///
    /// ```
    /// let t = sortpath::time::Timestamp::from_unix_millis(-1);
    /// let dt = chrono::DateTime::<chrono::Utc>::try_from(t)?;
    /// assert_eq!(dt.timestamp_millis(), -1);
    /// # Ok::<(), sortpath::time::TimeRangeError>(())
    /// ```
    fn try_from(t: Timestamp) -> Result<chrono::DateTime<chrono::Utc>, TimeRangeError> {
        chrono::DateTime::from_timestamp(t.secs, t.nanos)
            .ok_or_else(|| TimeRangeError::new("a time within chrono's years", t))
    }
}
