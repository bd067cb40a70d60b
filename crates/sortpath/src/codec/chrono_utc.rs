//! `#[serde(with = "sortpath::codec::chrono_utc")]`: a `chrono::DateTime<Utc>` as integers.
//!
//! chrono's own serde form is RFC 3339 text, which does not sort by time (`…00.5Z` sorts
//! before `…00Z`, years past 9999 sort wrong). This module writes the instant as the tuple
//! (seconds since 1970-01-01T00:00:00Z as `i64`, nanoseconds within the second as `u32`),
//! two sort-byte integers, so keys order by time and every `DateTime<Utc>` (leap-second
//! nanoseconds ≥ 10^9 included) round-trips exactly. A whole-second instant of this century
//! takes 7 bytes. Human-readable formats keep chrono's text form.
//!
//! ```
//! use chrono::{DateTime, Utc};
//! use sortpath::codec::to_vec;
//! #[derive(serde::Serialize)]
//! struct Event(#[serde(with = "sortpath::codec::chrono_utc")] DateTime<Utc>);
//! let t = DateTime::from_timestamp(1_678_901_234, 0).unwrap();
//! assert_eq!(to_vec(&Event(t)).unwrap(), [0x0B, 0x64, 0x11, 0xFF, 0xF2, 0x07, 0xFF]);
//! ```

use chrono::{DateTime, Utc};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serializes `t` as (seconds, nanoseconds) since the Unix epoch (text if human-readable).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct E(#[serde(serialize_with = "sortpath::codec::chrono_utc::serialize")] chrono::DateTime<chrono::Utc>);
/// let t = chrono::DateTime::from_timestamp(-1, 5).unwrap();
/// assert_eq!(sortpath::codec::to_vec(&E(t)).unwrap(), [0x07, 0xFE, 0x08, 0x05]);
/// ```
pub fn serialize<S: Serializer>(t: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        t.serialize(serializer)
    } else {
        (t.timestamp(), t.timestamp_subsec_nanos()).serialize(serializer)
    }
}

/// Deserializes what [`serialize`] wrote, rejecting instants chrono cannot represent.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct E(#[serde(deserialize_with = "sortpath::codec::chrono_utc::deserialize")] chrono::DateTime<chrono::Utc>);
/// let e: E = sortpath::codec::from_slice(&[0x08, 0x01, 0x07, 0xFF]).unwrap();
/// assert_eq!(e.0.timestamp(), 1);
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    if deserializer.is_human_readable() {
        return DateTime::<Utc>::deserialize(deserializer);
    }
    let (secs, nanos) = <(i64, u32)>::deserialize(deserializer)?;
    DateTime::from_timestamp(secs, nanos).ok_or_else(|| {
        D::Error::custom(format_args!(
            "expected an instant chrono can represent, found {secs} s + {nanos} ns"
        ))
    })
}
