//! ULID: Universally Unique Lexicographically Sortable Identifier.
//!
//! ```text
//! bits 127..80  timestamp: 48-bit Unix milliseconds
//! bits  79..0   80 random bits
//! bytes         16, big-endian (the same layout as a UUID)
//! text          26 Crockford base32 digits, upper case out, any case in
//! ```
//!
//! Example: `01ARZ3NDEKTSV4RRFFQ69G5FAV` has timestamp 1,469,922,850,259 ms.
//! The largest ULID is `7ZZZZZZZZZZZZZZZZZZZZZZZZZ`; text above it is rejected.
//!
//! Ordering: `Ord`, the bytes and the upper-case text all order as the 128-bit number.

use std::fmt;
use std::str::FromStr;

use super::crockford::{self, Base32Error, DIGITS};
use super::{GenerateError, IdParseError, OsRandom, RandomSource};

/// Length of the binary form.
///
/// ```
/// assert_eq!(sortpath::idgen::Ulid::MIN.to_bytes().len(), sortpath::idgen::ULID_BYTES);
/// ```
pub const ULID_BYTES: usize = 16;
/// Length of the text form.
///
/// ```
/// assert_eq!(sortpath::idgen::Ulid::MIN.to_string().len(), sortpath::idgen::ULID_TEXT_LEN);
/// ```
pub const ULID_TEXT_LEN: usize = DIGITS;
/// Text of the largest ULID; parsing rejects anything above it.
///
/// ```
/// assert!("80000000000000000000000000".parse::<sortpath::idgen::Ulid>().is_err());
/// assert!(sortpath::idgen::ULID_MAX_TEXT.parse::<sortpath::idgen::Ulid>().is_ok());
/// ```
pub const ULID_MAX_TEXT: &str = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";
/// Largest ULID timestamp, `2^48 - 1` milliseconds.
///
/// ```
/// assert!(sortpath::idgen::Ulid::from_parts(sortpath::idgen::ULID_MAX_MILLIS + 1, 0).is_err());
/// ```
pub const ULID_MAX_MILLIS: u64 = (1 << 48) - 1;
/// Mask of the 80 random bits.
const RANDOM_MASK: u128 = (1 << 80) - 1;

const KIND: &str = "ULID";

/// A ULID: 48 bits of Unix milliseconds and 80 random bits.
///
/// ```
/// use sortpath::idgen::Ulid;
/// let id: Ulid = "01arz3ndektsv4rrffq69g5fav".parse()?;
/// assert_eq!(id.timestamp_ms(), 1_469_922_850_259);
/// assert_eq!(id.to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
/// # Ok::<(), sortpath::idgen::IdParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Ulid(u128);

impl Ulid {
    /// The smallest ULID, `00000000000000000000000000`.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::MIN.to_u128(), 0);
    /// ```
    pub const MIN: Ulid = Ulid(0);
    /// The largest ULID, [`ULID_MAX_TEXT`].
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::MAX.to_string(), sortpath::idgen::ULID_MAX_TEXT);
    /// ```
    pub const MAX: Ulid = Ulid(u128::MAX);

    /// Builds a ULID from milliseconds and 80 random bits; errors if `timestamp_ms`
    /// exceeds [`ULID_MAX_MILLIS`] or `random` exceeds 80 bits.
    ///
    /// ```
    /// let id = sortpath::idgen::Ulid::from_parts(1, 2)?;
    /// assert_eq!((id.timestamp_ms(), id.random()), (1, 2));
    /// let err = sortpath::idgen::Ulid::from_parts(1, 1 << 80).unwrap_err();
    /// assert_eq!(err.to_string(), "expected ULID random bits within 80 bits, found 1208925819614629174706176");
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn from_parts(timestamp_ms: u64, random: u128) -> Result<Ulid, GenerateError> {
        if timestamp_ms > ULID_MAX_MILLIS {
            return Err(GenerateError::TimeOutOfRange {
                kind: KIND,
                range: "0 ..= 2^48-1 Unix milliseconds",
                found: i128::from(timestamp_ms),
            });
        }
        if random > RANDOM_MASK {
            return Err(GenerateError::RandomTooWide {
                kind: KIND,
                bits: 80,
                found: random,
            });
        }
        Ok(Ulid((u128::from(timestamp_ms) << 80) | random))
    }

    /// The ULID with this 128-bit value.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::from_u128(u128::MAX), sortpath::idgen::Ulid::MAX);
    /// ```
    pub const fn from_u128(value: u128) -> Ulid {
        Ulid(value)
    }

    /// The 128-bit value.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::MAX.to_u128(), u128::MAX);
    /// ```
    pub const fn to_u128(self) -> u128 {
        self.0
    }

    /// Builds a ULID from its 16 big-endian bytes.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::from_bytes([0; 16]), sortpath::idgen::Ulid::MIN);
    /// ```
    pub const fn from_bytes(bytes: [u8; ULID_BYTES]) -> Ulid {
        Ulid(u128::from_be_bytes(bytes))
    }

    /// The 16 big-endian bytes.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::MAX.to_bytes(), [0xFF; 16]);
    /// ```
    pub const fn to_bytes(self) -> [u8; ULID_BYTES] {
        self.0.to_be_bytes()
    }

    /// The timestamp in Unix milliseconds.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::MAX.timestamp_ms(), sortpath::idgen::ULID_MAX_MILLIS);
    /// ```
    pub const fn timestamp_ms(self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The 80 random bits.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ulid::MAX.random(), (1 << 80) - 1);
    /// ```
    pub const fn random(self) -> u128 {
        self.0 & RANDOM_MASK
    }

    /// A random ULID for the current time, from the operating system's secure RNG.
    /// Not monotonic within a millisecond: use [`UlidGenerator`] for that.
    ///
    /// ```
    /// let id = sortpath::idgen::Ulid::now()?;
    /// assert!(id.timestamp_ms() > 1_700_000_000_000);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn now() -> Result<Ulid, GenerateError> {
        Ulid::from_parts(super::unix_now_millis(), random_bits(&mut OsRandom)?)
    }
}

/// 80 random bits from `random`.
fn random_bits<R: RandomSource + ?Sized>(random: &mut R) -> Result<u128, GenerateError> {
    let mut buf = [0u8; 16];
    random.fill_random(&mut buf[6..])?;
    Ok(u128::from_be_bytes(buf))
}

impl fmt::Display for Ulid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = crockford::encode(self.0);
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Ulid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ulid({self})")
    }
}

impl FromStr for Ulid {
    type Err = IdParseError;

    fn from_str(s: &str) -> Result<Ulid, IdParseError> {
        let text: &[u8; DIGITS] =
            s.as_bytes()
                .try_into()
                .map_err(|_| IdParseError::TextLength {
                    kind: KIND,
                    expected: ULID_TEXT_LEN,
                    found: s.len(),
                })?;
        match crockford::decode(text) {
            Ok(value) => Ok(Ulid(value)),
            Err(Base32Error::Digit(position)) => Err(IdParseError::Digit {
                kind: KIND,
                alphabet: "Crockford base32 (0-9A-HJKMNP-TV-Z)",
                position,
                found: text[position],
            }),
            Err(Base32Error::Overflow) => Err(IdParseError::Overflow {
                kind: KIND,
                max: ULID_MAX_TEXT,
            }),
        }
    }
}

impl TryFrom<&[u8]> for Ulid {
    type Error = IdParseError;

    /// Reads the 16-byte binary form.
    fn try_from(bytes: &[u8]) -> Result<Ulid, IdParseError> {
        let array: [u8; ULID_BYTES] = bytes.try_into().map_err(|_| IdParseError::ByteLength {
            kind: KIND,
            expected: ULID_BYTES,
            found: bytes.len(),
        })?;
        Ok(Ulid::from_bytes(array))
    }
}

#[cfg(feature = "uuid")]
impl From<Ulid> for uuid::Uuid {
    /// The same 128 bits as a UUID (not a valid v7: the version bits are random).
    fn from(id: Ulid) -> uuid::Uuid {
        uuid::Uuid::from_u128(id.0)
    }
}

#[cfg(feature = "uuid")]
impl From<uuid::Uuid> for Ulid {
    fn from(id: uuid::Uuid) -> Ulid {
        Ulid(id.as_u128())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Ulid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::serde_impl::serialize(serializer, self, &self.to_bytes())
    }
}

#[cfg(feature = "serde")]
impl super::serde_impl::TextOrBytes for Ulid {
    const EXPECTING: &'static str = "a ULID as 26 Crockford base32 characters or 16 bytes";
    fn from_byte_form(bytes: &[u8]) -> Result<Self, String> {
        Ulid::try_from(bytes).map_err(|e| e.to_string())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Ulid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ulid, D::Error> {
        super::serde_impl::deserialize(deserializer)
    }
}

/// Generates ULIDs that strictly increase (the ULID spec's monotonic mode).
///
/// A new millisecond (later than the last ID's) gets 80 fresh random bits. Within the
/// last ID's millisecond, or when the clock reads an earlier millisecond, the generator
/// keeps the last timestamp and adds one to the random part with carry; carrying out of
/// the 80 bits is [`GenerateError::Overflow`], as the spec requires.
///
/// ```
/// use sortpath::idgen::UlidGenerator;
/// let mut generator = UlidGenerator::new();
/// let mut rng = |buf: &mut [u8]| buf.fill(0);
/// let a = generator.generate(1_000, &mut rng)?;
/// let b = generator.generate(1_000, &mut rng)?;
/// assert_eq!(b.random(), a.random() + 1);
/// # Ok::<(), sortpath::idgen::GenerateError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct UlidGenerator {
    last: Option<Ulid>,
}

impl UlidGenerator {
    /// A generator that has produced nothing yet.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::UlidGenerator::new().last(), None);
    /// ```
    pub const fn new() -> UlidGenerator {
        UlidGenerator { last: None }
    }

    /// A generator that continues after `last` (for example the newest ID read back from
    /// the store after a restart), so every ID it produces sorts after it.
    ///
    /// ```
    /// use sortpath::idgen::{Ulid, UlidGenerator};
    /// let stored: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse()?;
    /// let mut generator = UlidGenerator::starting_after(stored);
    /// assert!(generator.now()? > stored);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn starting_after(last: Ulid) -> UlidGenerator {
        UlidGenerator { last: Some(last) }
    }

    /// The last ID produced.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::UlidGenerator::new();
    /// let id = generator.now()?;
    /// assert_eq!(generator.last(), Some(id));
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub const fn last(&self) -> Option<Ulid> {
        self.last
    }

    /// The next ID for Unix time `timestamp_ms`, with random bits from `random`.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::UlidGenerator::new();
    /// let id = generator.generate(5, &mut |b: &mut [u8]| b.fill(0xFF))?;
    /// assert_eq!(id.random(), (1 << 80) - 1);
    /// assert!(generator.generate(5, &mut |b: &mut [u8]| b.fill(0)).is_err()); // overflow
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn generate<R: RandomSource + ?Sized>(
        &mut self,
        timestamp_ms: u64,
        random: &mut R,
    ) -> Result<Ulid, GenerateError> {
        let fresh = Ulid::from_parts(timestamp_ms, 0)?;
        let id = match self.last {
            Some(last) if timestamp_ms <= last.timestamp_ms() => {
                if last.random() == RANDOM_MASK {
                    return Err(GenerateError::Overflow {
                        kind: KIND,
                        unit: "millisecond",
                    });
                }
                Ulid(last.0 + 1)
            }
            _ => Ulid(fresh.0 | random_bits(random)?),
        };
        self.last = Some(id);
        Ok(id)
    }

    /// The next ID for the current time with random bits from the operating system.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::UlidGenerator::new();
    /// let a = generator.now()?;
    /// assert!(a < generator.now()?);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn now(&mut self) -> Result<Ulid, GenerateError> {
        self.generate(super::unix_now_millis(), &mut OsRandom)
    }
}
