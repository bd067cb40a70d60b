//! The binary form shared by the time-type modules ([`super::time_utc`],
//! [`super::jiff_timestamp`]): an instant as (seconds since the Unix epoch, rounded down, as
//! `i64`; nanoseconds within that second as `u32`), two sort-byte integers, through
//! [`Timestamp`], which holds exactly that pair.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::time::Timestamp;

/// Writes `t` as (seconds, nanoseconds).
pub(crate) fn serialize<S: Serializer>(t: Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
    (t.unix_seconds(), t.subsec_nanos()).serialize(serializer)
}

/// Reads (seconds, nanoseconds), rejecting nanoseconds of a second or more.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Timestamp, D::Error> {
    let (secs, nanos) = <(i64, u32)>::deserialize(deserializer)?;
    Timestamp::new(secs, nanos).map_err(D::Error::custom)
}
