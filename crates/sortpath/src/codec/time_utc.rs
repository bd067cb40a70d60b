//! `#[serde(with = "sortpath::codec::time_utc")]`: a `time::OffsetDateTime` as integers.
//!
//! The instant is written as the tuple (seconds since 1970-01-01T00:00:00Z as `i64`,
//! nanoseconds within the second as `u32`), two sort-byte integers, as
//! [`chrono_utc`](super) does for chrono: keys order by the instant whatever the offset, and a
//! whole-second instant of this century takes 7 bytes. The offset is not stored: a value
//! decodes in UTC, the same instant, which `OffsetDateTime` compares equal to the original.
//! Human-readable formats get RFC 3339 text in UTC (as [`crate::time::Timestamp`] prints it).
//!
//! ```
//! use sortpath::codec::{from_slice, to_vec};
//! use time::{OffsetDateTime, UtcOffset};
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Event(#[serde(with = "sortpath::codec::time_utc")] OffsetDateTime);
//! let t = OffsetDateTime::from_unix_timestamp(1_678_901_234).unwrap();
//! let bytes = to_vec(&Event(t)).unwrap();
//! assert_eq!(bytes, [0x0B, 0x64, 0x11, 0xFF, 0xF2, 0x07, 0xFF]);
//! // Another offset, the same instant: the same bytes.
//! let local = t.to_offset(UtcOffset::from_hms(5, 30, 0).unwrap());
//! assert_eq!(to_vec(&Event(local)).unwrap(), bytes);
//! assert_eq!(from_slice::<Event>(&bytes).unwrap(), Event(local));
//! ```

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};
use time::OffsetDateTime;

use crate::time::Timestamp;

/// Serializes the instant of `t` as (seconds, nanoseconds) since the Unix epoch (RFC 3339
/// text in UTC if human-readable).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct E(#[serde(serialize_with = "sortpath::codec::time_utc::serialize")] time::OffsetDateTime);
/// let t = time::OffsetDateTime::from_unix_timestamp_nanos(-999_999_995).unwrap();
/// assert_eq!(sortpath::codec::to_vec(&E(t)).unwrap(), [0x07, 0xFE, 0x08, 0x05]);
/// assert_eq!(serde_json::to_string(&E(t)).unwrap(), "\"1969-12-31T23:59:59.000000005Z\"");
/// ```
pub fn serialize<S: Serializer>(t: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
    let instant = Timestamp::from(*t);
    if serializer.is_human_readable() {
        serializer.collect_str(&instant)
    } else {
        super::instant::serialize(instant, serializer)
    }
}

/// Deserializes what [`serialize`] wrote, in UTC, rejecting instants outside the `time`
/// crate's years and nanoseconds of a second or more.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct E(#[serde(deserialize_with = "sortpath::codec::time_utc::deserialize")] time::OffsetDateTime);
/// let e: E = sortpath::codec::from_slice(&[0x08, 0x01, 0x07, 0xFF]).unwrap();
/// assert_eq!(e.0.unix_timestamp(), 1);
/// let e: E = serde_json::from_str("\"1970-01-01T00:00:01Z\"").unwrap();
/// assert_eq!(e.0.unix_timestamp(), 1);
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OffsetDateTime, D::Error> {
    let instant = if deserializer.is_human_readable() {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        text.parse::<Timestamp>().map_err(D::Error::custom)?
    } else {
        super::instant::deserialize(deserializer)?
    };
    OffsetDateTime::try_from(instant).map_err(D::Error::custom)
}
