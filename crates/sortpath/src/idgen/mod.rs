#![cfg_attr(
    feature = "uuid",
    doc = " Sortable unique IDs: [`Ksuid`], [`Ulid`] and UUIDv7 ([`Uuid7Generator`]), with"
)]
#![cfg_attr(
    not(feature = "uuid"),
    doc = " Sortable unique IDs: [`Ksuid`], [`Ulid`] and UUIDv7 (`Uuid7Generator`, feature `uuid`), with"
)]
//! monotonic generators.
//!
//! Every ID's bytes, text and `Ord` agree, so an ID used as a key field sorts by creation
//! time. Generators take the time and a [`RandomSource`] explicitly, so tests are
//! deterministic; each also has a `now()` that reads the system clock and the operating
//! system's secure RNG ([`OsRandom`]).
//!
//! | type    | bytes | text                      | time unit   | random bits |
//! |---------|-------|---------------------------|-------------|-------------|
//! | KSUID   | 20    | 27 base62                 | second      | 128         |
//! | ULID    | 16    | 26 Crockford base32       | millisecond | 80          |
//! | UUIDv7  | 16    | 36 hex with hyphens       | millisecond | 74          |
//!
//! As serde values they serialize as text in human-readable formats and as raw bytes
//! (`serialize_bytes`) otherwise.
//!
//! ```
//! use sortpath::idgen::{Ksuid, UlidGenerator};
//! let mut generator = UlidGenerator::new();
//! let first = generator.now()?;
//! let second = generator.now()?;
//! assert!(first < second && first.to_string() < second.to_string());
//! # Ok::<(), sortpath::idgen::GenerateError>(())
//! ```

mod base62;
mod crockford;
mod error;
mod key_path;
mod ksuid;
mod random;
#[cfg(feature = "serde")]
pub(crate) mod serde_impl;
mod ulid;
#[cfg(feature = "uuid")]
mod uuid7;

#[cfg(test)]
mod tests;

pub use error::{GenerateError, IdParseError};
pub use ksuid::{Ksuid, KsuidGenerator, KSUID_BYTES, KSUID_EPOCH, KSUID_MAX_TEXT, KSUID_TEXT_LEN};
pub use random::{OsRandom, RandomSource};
pub use ulid::{Ulid, UlidGenerator, ULID_BYTES, ULID_MAX_MILLIS, ULID_MAX_TEXT, ULID_TEXT_LEN};
#[cfg(feature = "uuid")]
pub use uuid7::{uuid7_timestamp_ms, Uuid7Generator, UUID7_MAX_MILLIS};

use std::time::{SystemTime, UNIX_EPOCH};

/// The system clock in Unix seconds (negative before 1970).
fn unix_now_seconds() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_secs()).map_or(i64::MIN, |s| -s),
    }
}

/// The system clock in Unix milliseconds (0 before 1970, which no ID can hold).
fn unix_now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
