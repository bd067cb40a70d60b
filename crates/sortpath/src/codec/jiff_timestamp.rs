//! `#[serde(with = "sortpath::codec::jiff_timestamp")]`: a `jiff::Timestamp` (jiff 1.x) as
//! integers.
//!
//! The instant is written as the tuple (seconds since 1970-01-01T00:00:00Z as `i64`, rounded
//! down, then nanoseconds within that second as `u32`, `0..=999_999_999`), two sort-byte
//! integers: keys order by time (before the epoch too), and a whole-second instant of this
//! century takes 7 bytes. Human-readable formats keep jiff's RFC 3339 text.
//!
//! ```
//! use sortpath::codec::{from_slice, to_vec};
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Event(#[serde(with = "sortpath::codec::jiff_timestamp")] jiff::Timestamp);
//! let t = jiff::Timestamp::from_second(1_678_901_234).unwrap();
//! let bytes = to_vec(&Event(t)).unwrap();
//! assert_eq!(bytes, [0x0B, 0x64, 0x11, 0xFF, 0xF2, 0x07, 0xFF]);
//! assert_eq!(from_slice::<Event>(&bytes).unwrap(), Event(t));
//! ```

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};

use crate::time::Timestamp;

/// Serializes `t` as (seconds rounded down, nanoseconds) since the Unix epoch (RFC 3339 text
/// if human-readable).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct E(#[serde(serialize_with = "sortpath::codec::jiff_timestamp::serialize")] jiff::Timestamp);
/// // 5 ns after 1969-12-31T23:59:59Z: second -1, nanosecond 5.
/// let t = jiff::Timestamp::from_nanosecond(-999_999_995).unwrap();
/// assert_eq!(sortpath::codec::to_vec(&E(t)).unwrap(), [0x07, 0xFE, 0x08, 0x05]);
/// assert_eq!(serde_json::to_string(&E(t)).unwrap(), "\"1969-12-31T23:59:59.000000005Z\"");
/// ```
pub fn serialize<S: Serializer>(t: &jiff::Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        return serializer.collect_str(t);
    }
    // jiff's range (years -9999..=9999) is well inside a Timestamp's.
    let instant =
        Timestamp::from_unix_nanos(t.as_nanosecond()).map_err(serde::ser::Error::custom)?;
    super::instant::serialize(instant, serializer)
}

/// Deserializes what [`serialize`] wrote, rejecting nanoseconds of a second or more and
/// instants outside jiff's range.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct E(#[serde(deserialize_with = "sortpath::codec::jiff_timestamp::deserialize")] jiff::Timestamp);
/// let e: E = sortpath::codec::from_slice(&[0x08, 0x01, 0x07, 0xFF]).unwrap();
/// assert_eq!(e.0.as_second(), 1);
/// assert!(sortpath::codec::from_slice::<E>(&[0x08, 0x01, 0x0B, 0x3B, 0x9A, 0xCA, 0x00]).is_err());
/// let e: E = serde_json::from_str("\"1970-01-01T00:00:01Z\"").unwrap();
/// assert_eq!(e.0.as_second(), 1);
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<jiff::Timestamp, D::Error> {
    if deserializer.is_human_readable() {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        return text.parse().map_err(D::Error::custom);
    }
    let instant = super::instant::deserialize(deserializer)?;
    jiff::Timestamp::from_nanosecond(instant.unix_nanos()).map_err(D::Error::custom)
}
