//! KSUID: K-Sortable Unique IDentifier.
//!
//! ```text
//! bytes  0..4   timestamp: u32 big-endian, seconds since KSUID_EPOCH (1,400,000,000)
//! bytes  4..20  payload: 16 random bytes
//! text          27 base62 digits (0-9A-Za-z), left-padded with '0'
//! ```
//!
//! Example: `0ujtsYcgvSTl8PAuAdqWYSMnLOv` is `0669F7EF B5A1CD34B5F99D1154FB6853345C9735`
//! (timestamp 107,608,047, i.e. Unix time 1,507,608,047).
//!
//! Ordering: bytes compare as a 160-bit big-endian number, and the fixed-width text uses
//! an alphabet in ASCII order, so text order, byte order and `Ord` agree.

use std::fmt;
use std::str::FromStr;

use super::base62::{self, Base62Error};
use super::{GenerateError, IdParseError, OsRandom, RandomSource};

/// Unix time (seconds) of KSUID timestamp 0.
///
/// ```
/// assert_eq!(sortpath::idgen::Ksuid::from_parts(0, [0; 16]).unix_seconds(), sortpath::idgen::KSUID_EPOCH);
/// ```
pub const KSUID_EPOCH: i64 = 1_400_000_000;
/// Length of the binary form.
///
/// ```
/// assert_eq!(sortpath::idgen::Ksuid::MIN.as_bytes().len(), sortpath::idgen::KSUID_BYTES);
/// ```
pub const KSUID_BYTES: usize = 20;
/// Length of the text form.
///
/// ```
/// assert_eq!(sortpath::idgen::Ksuid::MIN.to_string().len(), sortpath::idgen::KSUID_TEXT_LEN);
/// ```
pub const KSUID_TEXT_LEN: usize = 27;
/// Text of the largest KSUID (all bytes `FF`); parsing rejects anything above it.
///
/// ```
/// assert!("aWgEPTl1tmebfsQzFP4bxwgy80W".parse::<sortpath::idgen::Ksuid>().is_err());
/// assert!(sortpath::idgen::KSUID_MAX_TEXT.parse::<sortpath::idgen::Ksuid>().is_ok());
/// ```
pub const KSUID_MAX_TEXT: &str = "aWgEPTl1tmebfsQzFP4bxwgy80V";

const KIND: &str = "KSUID";

/// A KSUID: 4 bytes of seconds since [`KSUID_EPOCH`] and 16 random bytes.
///
/// ```
/// use sortpath::idgen::Ksuid;
/// let id: Ksuid = "0ujtsYcgvSTl8PAuAdqWYSMnLOv".parse()?;
/// assert_eq!(id.unix_seconds(), 1_507_608_047);
/// assert_eq!(id.to_string(), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
/// assert_eq!(id.as_bytes()[..4], [0x06, 0x69, 0xF7, 0xEF]);
/// # Ok::<(), sortpath::idgen::IdParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Ksuid([u8; KSUID_BYTES]);

impl Ksuid {
    /// The smallest KSUID (all zero bytes), text `000000000000000000000000000`.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ksuid::MIN.to_string(), "0".repeat(27));
    /// ```
    pub const MIN: Ksuid = Ksuid([0; KSUID_BYTES]);
    /// The largest KSUID (all `FF` bytes), text [`KSUID_MAX_TEXT`].
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ksuid::MAX.to_string(), sortpath::idgen::KSUID_MAX_TEXT);
    /// ```
    pub const MAX: Ksuid = Ksuid([0xFF; KSUID_BYTES]);

    /// Builds a KSUID from its raw timestamp (seconds since [`KSUID_EPOCH`]) and payload.
    ///
    /// ```
    /// let id = sortpath::idgen::Ksuid::from_parts(7, [1; 16]);
    /// assert_eq!(id.timestamp(), 7);
    /// assert_eq!(id.payload(), [1; 16]);
    /// ```
    pub const fn from_parts(timestamp: u32, payload: [u8; 16]) -> Ksuid {
        let mut bytes = [0u8; KSUID_BYTES];
        let ts = timestamp.to_be_bytes();
        let mut i = 0;
        while i < 4 {
            bytes[i] = ts[i];
            i += 1;
        }
        while i < KSUID_BYTES {
            bytes[i] = payload[i - 4];
            i += 1;
        }
        Ksuid(bytes)
    }

    /// Builds a KSUID from Unix seconds; errors if the time is before [`KSUID_EPOCH`] or
    /// more than `u32::MAX` seconds after it.
    ///
    /// ```
    /// use sortpath::idgen::Ksuid;
    /// let id = Ksuid::from_unix_seconds(1_507_608_047, [0; 16])?;
    /// assert_eq!(id.timestamp(), 107_608_047);
    /// assert!(Ksuid::from_unix_seconds(0, [0; 16]).is_err());
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn from_unix_seconds(unix_seconds: i64, payload: [u8; 16]) -> Result<Ksuid, GenerateError> {
        let raw = i128::from(unix_seconds) - i128::from(KSUID_EPOCH);
        let timestamp = u32::try_from(raw).map_err(|_| GenerateError::TimeOutOfRange {
            kind: KIND,
            range: "1400000000 ..= 5694967295 Unix seconds",
            found: i128::from(unix_seconds),
        })?;
        Ok(Ksuid::from_parts(timestamp, payload))
    }

    /// Builds a KSUID from its 20 bytes.
    ///
    /// ```
    /// let id = sortpath::idgen::Ksuid::from_bytes([0xFF; 20]);
    /// assert_eq!(id, sortpath::idgen::Ksuid::MAX);
    /// ```
    pub const fn from_bytes(bytes: [u8; KSUID_BYTES]) -> Ksuid {
        Ksuid(bytes)
    }

    /// The 20 bytes.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ksuid::MIN.as_bytes(), &[0; 20]);
    /// ```
    pub const fn as_bytes(&self) -> &[u8; KSUID_BYTES] {
        &self.0
    }

    /// The raw timestamp: seconds since [`KSUID_EPOCH`].
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ksuid::MAX.timestamp(), u32::MAX);
    /// ```
    pub const fn timestamp(&self) -> u32 {
        u32::from_be_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }

    /// The timestamp as Unix seconds.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ksuid::MIN.unix_seconds(), sortpath::idgen::KSUID_EPOCH);
    /// ```
    pub const fn unix_seconds(&self) -> i64 {
        self.timestamp() as i64 + KSUID_EPOCH
    }

    /// The 16 payload bytes.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Ksuid::MAX.payload(), [0xFF; 16]);
    /// ```
    pub fn payload(&self) -> [u8; 16] {
        let mut payload = [0u8; 16];
        payload.copy_from_slice(&self.0[4..]);
        payload
    }

    /// The next KSUID as a 160-bit number (payload overflow carries into the timestamp),
    /// or `None` after [`Ksuid::MAX`].
    ///
    /// ```
    /// use sortpath::idgen::Ksuid;
    /// let id = Ksuid::from_parts(1, [0xFF; 16]);
    /// assert_eq!(id.next(), Some(Ksuid::from_parts(2, [0; 16])));
    /// assert_eq!(Ksuid::MAX.next(), None);
    /// ```
    pub fn next(&self) -> Option<Ksuid> {
        let mut bytes = self.0;
        increment(&mut bytes).then_some(Ksuid(bytes))
    }

    /// A random KSUID for the current time, from the operating system's secure RNG.
    /// Not monotonic within a second: use [`KsuidGenerator`] for that.
    ///
    /// ```
    /// let id = sortpath::idgen::Ksuid::now()?;
    /// assert!(id.unix_seconds() > 1_700_000_000);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn now() -> Result<Ksuid, GenerateError> {
        let mut payload = [0u8; 16];
        OsRandom.fill_random(&mut payload)?;
        Ksuid::from_unix_seconds(super::unix_now_seconds(), payload)
    }
}

/// Adds one to a big-endian number in place; false (and all zeros) on overflow.
fn increment(bytes: &mut [u8]) -> bool {
    for byte in bytes.iter_mut().rev() {
        let (v, carry) = byte.overflowing_add(1);
        *byte = v;
        if !carry {
            return true;
        }
    }
    false
}

impl fmt::Display for Ksuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: [u8; KSUID_TEXT_LEN] = base62::encode(&self.0);
        // The alphabet is ASCII.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Ksuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ksuid({self})")
    }
}

impl FromStr for Ksuid {
    type Err = IdParseError;

    fn from_str(s: &str) -> Result<Ksuid, IdParseError> {
        let text: &[u8; KSUID_TEXT_LEN] =
            s.as_bytes()
                .try_into()
                .map_err(|_| IdParseError::TextLength {
                    kind: KIND,
                    expected: KSUID_TEXT_LEN,
                    found: s.len(),
                })?;
        match base62::decode(text) {
            Ok(bytes) => Ok(Ksuid(bytes)),
            Err(Base62Error::Digit(position)) => Err(IdParseError::Digit {
                kind: KIND,
                alphabet: "base62 (0-9A-Za-z)",
                position,
                found: text[position],
            }),
            Err(Base62Error::Overflow) => Err(IdParseError::Overflow {
                kind: KIND,
                max: KSUID_MAX_TEXT,
            }),
        }
    }
}

impl TryFrom<&[u8]> for Ksuid {
    type Error = IdParseError;

    /// Reads the 20-byte binary form.
    fn try_from(bytes: &[u8]) -> Result<Ksuid, IdParseError> {
        let array: [u8; KSUID_BYTES] = bytes.try_into().map_err(|_| IdParseError::ByteLength {
            kind: KIND,
            expected: KSUID_BYTES,
            found: bytes.len(),
        })?;
        Ok(Ksuid(array))
    }
}

impl From<Ksuid> for [u8; KSUID_BYTES] {
    fn from(id: Ksuid) -> [u8; KSUID_BYTES] {
        id.0
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Ksuid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::serde_impl::serialize(serializer, self, &self.0)
    }
}

#[cfg(feature = "serde")]
impl super::serde_impl::TextOrBytes for Ksuid {
    const EXPECTING: &'static str = "a KSUID as 27 base62 characters or 20 bytes";
    fn from_byte_form(bytes: &[u8]) -> Result<Self, String> {
        Ksuid::try_from(bytes).map_err(|e| e.to_string())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Ksuid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ksuid, D::Error> {
        super::serde_impl::deserialize(deserializer)
    }
}

/// Generates KSUIDs that strictly increase, even within one second and when the clock
/// steps back.
///
/// A new second (later than the last ID's) gets a fresh random payload. Within the last
/// ID's second, or when the clock reads an earlier second, the generator keeps the last
/// timestamp and adds one to the payload; when the payload is all `FF` that is
/// [`GenerateError::Overflow`] (2^128 IDs in one second cannot happen by chance).
///
/// ```
/// use sortpath::idgen::KsuidGenerator;
/// let mut generator = KsuidGenerator::new();
/// let mut rng = |buf: &mut [u8]| buf.fill(0x42);
/// let a = generator.generate(1_700_000_000, &mut rng)?;
/// let b = generator.generate(1_700_000_000, &mut rng)?;
/// let c = generator.generate(1_699_999_999, &mut rng)?; // clock stepped back
/// assert!(a < b && b < c);
/// assert_eq!(c.unix_seconds(), 1_700_000_000);
/// # Ok::<(), sortpath::idgen::GenerateError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct KsuidGenerator {
    last: Option<Ksuid>,
}

impl KsuidGenerator {
    /// A generator that has produced nothing yet.
    ///
    /// ```
    /// let generator = sortpath::idgen::KsuidGenerator::new();
    /// assert_eq!(generator.last(), None);
    /// ```
    pub const fn new() -> KsuidGenerator {
        KsuidGenerator { last: None }
    }

    /// A generator that continues after `last` (for example the newest ID read back from
    /// the store after a restart), so every ID it produces sorts after it.
    ///
    /// ```
    /// use sortpath::idgen::{Ksuid, KsuidGenerator};
    /// let stored: Ksuid = "0ujtsYcgvSTl8PAuAdqWYSMnLOv".parse()?;
    /// let mut generator = KsuidGenerator::starting_after(stored);
    /// assert!(generator.generate(1_400_000_000, &mut |b: &mut [u8]| b.fill(0))? > stored);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn starting_after(last: Ksuid) -> KsuidGenerator {
        KsuidGenerator { last: Some(last) }
    }

    /// The last ID produced.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::KsuidGenerator::new();
    /// let id = generator.now()?;
    /// assert_eq!(generator.last(), Some(id));
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub const fn last(&self) -> Option<Ksuid> {
        self.last
    }

    /// The next ID for Unix time `unix_seconds`, with payload bytes from `random`.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::KsuidGenerator::new();
    /// let id = generator.generate(1_507_608_047, &mut |b: &mut [u8]| b.fill(1))?;
    /// assert_eq!(id.payload(), [1; 16]);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn generate<R: RandomSource + ?Sized>(
        &mut self,
        unix_seconds: i64,
        random: &mut R,
    ) -> Result<Ksuid, GenerateError> {
        let candidate = Ksuid::from_unix_seconds(unix_seconds, [0; 16])?;
        let id = match self.last {
            Some(last) if candidate.timestamp() <= last.timestamp() => {
                let mut payload = last.payload();
                if !increment(&mut payload) {
                    return Err(GenerateError::Overflow {
                        kind: KIND,
                        unit: "second",
                    });
                }
                Ksuid::from_parts(last.timestamp(), payload)
            }
            _ => {
                let mut payload = [0u8; 16];
                random.fill_random(&mut payload)?;
                Ksuid::from_parts(candidate.timestamp(), payload)
            }
        };
        self.last = Some(id);
        Ok(id)
    }

    /// The next ID for the current time with payload from the operating system's RNG.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::KsuidGenerator::new();
    /// let a = generator.now()?;
    /// let b = generator.now()?;
    /// assert!(a < b);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn now(&mut self) -> Result<Ksuid, GenerateError> {
        self.generate(super::unix_now_seconds(), &mut OsRandom)
    }
}
