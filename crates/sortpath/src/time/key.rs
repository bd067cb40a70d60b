//! The key encoding of [`Timestamp`]: I65 seconds, then a fixed-width fraction;
//! complemented for latest-first order.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use super::{TimeParseError, Timestamp, NANOS_PER_SECOND};
use crate::{IntDecodeError, Order, I65};

/// Longest timestamp key: a 9-byte I65 and a 4-byte nanosecond fraction.
///
/// ```
/// use sortpath::time::{Precision, Timestamp, TIME_KEY_MAX_LEN};
/// use sortpath::Order;
/// assert_eq!(Timestamp::MIN.encode(Precision::Nanos, Order::Ascending).len(), TIME_KEY_MAX_LEN);
/// ```
pub const TIME_KEY_MAX_LEN: usize = crate::consts::int::MAX_ENCODED_LEN + 4;

/// How finely a timestamp key records time.
///
/// ```
/// use sortpath::time::Precision;
/// assert_eq!(Precision::Millis.fraction_len(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Whole seconds; no fraction bytes.
    Seconds,
    /// Milliseconds; a 2-byte fraction `0..=999`.
    Millis,
    /// Nanoseconds; a 4-byte fraction `0..=999_999_999`.
    Nanos,
}

impl Precision {
    /// Bytes of the fraction after the seconds.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Precision::Nanos.fraction_len(), 4);
    /// ```
    pub const fn fraction_len(self) -> usize {
        match self {
            Precision::Seconds => 0,
            Precision::Millis => 2,
            Precision::Nanos => 4,
        }
    }

    /// Nanoseconds in one unit of this precision.
    ///
    /// ```
    /// assert_eq!(sortpath::time::Precision::Millis.nanos_per_unit(), 1_000_000);
    /// ```
    pub const fn nanos_per_unit(self) -> u32 {
        match self {
            Precision::Seconds => NANOS_PER_SECOND,
            Precision::Millis => 1_000_000,
            Precision::Nanos => 1,
        }
    }
}

/// Why bytes are not a timestamp key.
///
/// ```
/// use sortpath::time::{Precision, Timestamp};
/// use sortpath::Order;
/// let err = Timestamp::decode_prefix(&[0x07, 0xFF, 0x03], Precision::Millis, Order::Ascending).unwrap_err();
/// assert_eq!(err.to_string(), "timestamp key needs 4 bytes, found 3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeKeyError {
    /// The seconds are not a valid sort-byte integer (at byte offset 0).
    #[error("timestamp key seconds at byte offset 0: {0}")]
    Seconds(IntDecodeError),
    /// The seconds do not fit in an `i64`.
    #[error("expected timestamp key seconds within i64, found {0}")]
    SecondsOutOfRange(i128),
    /// The fraction is cut short.
    #[error("timestamp key needs {needed} bytes, found {found}")]
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        found: usize,
    },
    /// Bytes follow a whole timestamp key where it should end (reading a key from an ID).
    #[error("timestamp key ends at byte offset {end}, found {found} bytes")]
    Trailing {
        /// Where the key ends.
        end: usize,
        /// Bytes given.
        found: usize,
    },
    /// An ID that is not a byte string (timestamps go into key paths as bytes IDs).
    #[error("expected a bytes ID holding a timestamp key, found {0} ID")]
    NotBytes(&'static str),
    /// The fraction is out of range for the precision.
    #[error(
        "expected a timestamp key fraction 0..={max} at byte offset {position}, found {found}"
    )]
    Fraction {
        /// The largest fraction of the precision.
        max: u32,
        /// Byte offset of the fraction.
        position: usize,
        /// The fraction found.
        found: u32,
    },
}

impl Timestamp {
    /// Appends the key of this timestamp (truncated to `precision`) in `order`.
    ///
    /// ```
    /// use sortpath::time::{Precision, Timestamp};
    /// use sortpath::Order;
    /// let mut out = Vec::new();
    /// Timestamp::from_unix_millis(1500).encode_into(Precision::Millis, Order::Ascending, &mut out);
    /// assert_eq!(out, [0x08, 0x01, 0x01, 0xF4]);
    /// ```
    pub fn encode_into(self, precision: Precision, order: Order, out: &mut Vec<u8>) {
        let start = out.len();
        I65::from(self.secs).encode_into(out);
        let fraction = self.nanos / precision.nanos_per_unit();
        match precision {
            Precision::Seconds => {}
            Precision::Millis => out.extend_from_slice(&(fraction as u16).to_be_bytes()),
            Precision::Nanos => out.extend_from_slice(&fraction.to_be_bytes()),
        }
        if order == Order::Descending {
            out[start..].iter_mut().for_each(|b| *b = !*b);
        }
    }

    /// The key of this timestamp as a new vector.
    ///
    /// ```
    /// use sortpath::time::{Precision, Timestamp};
    /// use sortpath::Order;
    /// assert_eq!(Timestamp::from_unix_seconds(-1).encode(Precision::Seconds, Order::Ascending), [0x07, 0xFE]);
    /// assert_eq!(Timestamp::from_unix_seconds(-1).encode(Precision::Seconds, Order::Descending), [0xF8, 0x01]);
    /// ```
    pub fn encode(self, precision: Precision, order: Order) -> Vec<u8> {
        let mut out = Vec::with_capacity(TIME_KEY_MAX_LEN);
        self.encode_into(precision, order, &mut out);
        out
    }

    /// Reads a key from the front of `bytes`; returns the timestamp and the bytes used.
    ///
    /// ```
    /// use sortpath::time::{Precision, Timestamp};
    /// use sortpath::Order;
    /// let t = Timestamp::from_unix_millis(-1500);
    /// let mut key = t.encode(Precision::Millis, Order::Descending);
    /// key.push(0x42); // whatever follows in the key
    /// assert_eq!(Timestamp::decode_prefix(&key, Precision::Millis, Order::Descending), Ok((t, key.len() - 1)));
    /// ```
    pub fn decode_prefix(
        bytes: &[u8],
        precision: Precision,
        order: Order,
    ) -> Result<(Timestamp, usize), TimeKeyError> {
        let mut buf = [0u8; TIME_KEY_MAX_LEN];
        let take = bytes.len().min(TIME_KEY_MAX_LEN);
        buf[..take].copy_from_slice(&bytes[..take]);
        if order == Order::Descending {
            buf[..take].iter_mut().for_each(|b| *b = !*b);
        }
        let buf = &buf[..take];
        let (secs, int_len) = I65::decode_prefix(buf).map_err(TimeKeyError::Seconds)?;
        let secs = i64::try_from(secs.to_i128())
            .map_err(|_| TimeKeyError::SecondsOutOfRange(secs.to_i128()))?;
        let needed = int_len + precision.fraction_len();
        let fraction_bytes = buf.get(int_len..needed).ok_or(TimeKeyError::Truncated {
            needed,
            found: bytes.len(),
        })?;
        let fraction = fraction_bytes
            .iter()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        let max = NANOS_PER_SECOND / precision.nanos_per_unit() - 1;
        if fraction > max {
            return Err(TimeKeyError::Fraction {
                max,
                position: int_len,
                found: fraction,
            });
        }
        let t = Timestamp {
            secs,
            nanos: fraction * precision.nanos_per_unit(),
        };
        Ok((t, needed))
    }

    /// Reads a key that is all of `bytes` ([`Timestamp::decode_prefix`] and nothing after it).
    ///
    /// ```
    /// use sortpath::time::{Precision, TimeKeyError, Timestamp};
    /// use sortpath::Order;
    /// let t = Timestamp::from_unix_millis(1500);
    /// let key = t.encode(Precision::Millis, Order::Ascending);
    /// assert_eq!(Timestamp::decode(&key, Precision::Millis, Order::Ascending), Ok(t));
    /// let longer = [&key[..], &[0x42]].concat();
    /// assert_eq!(
    ///     Timestamp::decode(&longer, Precision::Millis, Order::Ascending),
    ///     Err(TimeKeyError::Trailing { end: 4, found: 5 })
    /// );
    /// ```
    pub fn decode(
        bytes: &[u8],
        precision: Precision,
        order: Order,
    ) -> Result<Timestamp, TimeKeyError> {
        let (t, end) = Timestamp::decode_prefix(bytes, precision, order)?;
        if end != bytes.len() {
            return Err(TimeKeyError::Trailing {
                end,
                found: bytes.len(),
            });
        }
        Ok(t)
    }
}

/// A timestamp that sorts newest first: `Ord` is reversed and its byte form (for the
/// codec) is the complemented nanosecond key, so a newest-first scan is a forward scan.
///
/// ```
/// use sortpath::time::{LatestFirst, Timestamp};
/// let old = LatestFirst(Timestamp::from_unix_seconds(0));
/// let new = LatestFirst(Timestamp::from_unix_seconds(60));
/// assert!(new < old);
/// assert!(new.encode() < old.encode());
/// assert_eq!(new.to_string(), "1970-01-01T00:01:00.000000000Z");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct LatestFirst(pub Timestamp);

impl LatestFirst {
    /// The latest-first nanosecond key.
    ///
    /// ```
    /// use sortpath::time::{LatestFirst, Timestamp};
    /// assert_eq!(LatestFirst(Timestamp::UNIX_EPOCH).encode(), [0xF8, 0x00, 0xFF, 0xFF, 0xFF, 0xFF]);
    /// ```
    pub fn encode(self) -> Vec<u8> {
        self.0.encode(Precision::Nanos, Order::Descending)
    }
}

impl Ord for LatestFirst {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.cmp(&self.0)
    }
}

impl PartialOrd for LatestFirst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for LatestFirst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for LatestFirst {
    type Err = TimeParseError;
    fn from_str(s: &str) -> Result<LatestFirst, TimeParseError> {
        s.parse().map(LatestFirst)
    }
}

/// Reads a whole byte form (nothing may follow the key).
#[cfg(feature = "serde")]
fn from_whole_key(bytes: &[u8], order: Order) -> Result<Timestamp, String> {
    Timestamp::decode(bytes, Precision::Nanos, order).map_err(|e| e.to_string())
}

#[cfg(feature = "serde")]
impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::idgen::serde_impl::serialize(
            serializer,
            self,
            &self.encode(Precision::Nanos, Order::Ascending),
        )
    }
}

#[cfg(feature = "serde")]
impl crate::idgen::serde_impl::TextOrBytes for Timestamp {
    const EXPECTING: &'static str = "an RFC 3339 UTC timestamp or a timestamp key";
    fn from_byte_form(bytes: &[u8]) -> Result<Self, String> {
        from_whole_key(bytes, Order::Ascending)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        crate::idgen::serde_impl::deserialize(deserializer)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for LatestFirst {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::idgen::serde_impl::serialize(serializer, self, &self.encode())
    }
}

#[cfg(feature = "serde")]
impl crate::idgen::serde_impl::TextOrBytes for LatestFirst {
    const EXPECTING: &'static str = "an RFC 3339 UTC timestamp or a latest-first timestamp key";
    fn from_byte_form(bytes: &[u8]) -> Result<Self, String> {
        from_whole_key(bytes, Order::Descending).map(LatestFirst)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for LatestFirst {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<LatestFirst, D::Error> {
        crate::idgen::serde_impl::deserialize(deserializer)
    }
}

impl From<Timestamp> for crate::Id {
    /// A key path ID holding the ascending nanosecond key (as bytes), so paths sort by time.
    ///
    /// ```
    /// use sortpath::{time::Timestamp, Id, KeyPath};
    /// let path = |t| KeyPath::new().push("event", Timestamp::from_unix_millis(t)).unwrap().encode();
    /// assert!(path(-1) < path(0) && path(0) < path(1_700_000_000_000));
    /// ```
    fn from(t: Timestamp) -> crate::Id {
        crate::Id::Bytes(t.encode(Precision::Nanos, Order::Ascending))
    }
}

impl From<LatestFirst> for crate::Id {
    /// A key path ID holding the latest-first nanosecond key, so paths sort newest first.
    ///
    /// ```
    /// use sortpath::{time::{LatestFirst, Timestamp}, KeyPath};
    /// let path = |t| KeyPath::new().push("event", LatestFirst(Timestamp::from_unix_millis(t))).unwrap().encode();
    /// assert!(path(1_700_000_000_000) < path(0) && path(0) < path(-1));
    /// ```
    fn from(t: LatestFirst) -> crate::Id {
        crate::Id::Bytes(t.encode())
    }
}

impl TryFrom<&crate::Id> for Timestamp {
    type Error = TimeKeyError;

    /// Reads a timestamp back from an ID made by `Id::from(Timestamp)`.
    ///
    /// ```
    /// use sortpath::{time::Timestamp, Id};
    /// let t = Timestamp::from_unix_millis(-5);
    /// assert_eq!(Timestamp::try_from(&Id::from(t)), Ok(t));
    /// let err = Timestamp::try_from(&Id::from("x")).unwrap_err();
    /// assert_eq!(err.to_string(), "expected a bytes ID holding a timestamp key, found a string ID");
    /// let Id::Bytes(mut key) = Id::from(t) else { unreachable!() };
    /// key.push(0);
    /// let err = Timestamp::try_from(&Id::Bytes(key)).unwrap_err();
    /// assert_eq!(err.to_string(), "timestamp key ends at byte offset 6, found 7 bytes");
    /// ```
    fn try_from(id: &crate::Id) -> Result<Timestamp, TimeKeyError> {
        let bytes: &[u8] = match id {
            crate::Id::Bytes(bytes) => bytes,
            crate::Id::Int(_) => return Err(TimeKeyError::NotBytes("an integer")),
            crate::Id::Str(_) => return Err(TimeKeyError::NotBytes("a string")),
            crate::Id::Uuid(_) => return Err(TimeKeyError::NotBytes("a UUID")),
        };
        let (t, used) = Timestamp::decode_prefix(bytes, Precision::Nanos, Order::Ascending)?;
        if used != bytes.len() {
            return Err(TimeKeyError::Trailing {
                end: used,
                found: bytes.len(),
            });
        }
        Ok(t)
    }
}
