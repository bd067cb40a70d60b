//! UUIDv7 (RFC 9562) with a monotonic generator, built on the `uuid` crate.
//!
//! ```text
//! bits 127..80  unix_ts_ms: 48-bit Unix milliseconds
//! bits  79..76  version 0b0111
//! bits  75..64  rand_a (12 bits)  \  together the 74-bit "counter" this generator
//! bits  63..62  variant 0b10       > increments (RFC 9562 section 6.2, method 2,
//! bits  61..0   rand_b (62 bits)  /  with the counter seeded randomly each millisecond)
//! ```
//!
//! Ordering: the bytes (and the `uuid` crate's `Ord` and lower-case hex text) order by
//! timestamp first, then counter.

use uuid::Uuid;

use super::{GenerateError, OsRandom, RandomSource};

/// Largest UUIDv7 timestamp, `2^48 - 1` milliseconds.
///
/// ```
/// assert!(sortpath::idgen::Uuid7Generator::new().generate(sortpath::idgen::UUID7_MAX_MILLIS + 1, &mut |b: &mut [u8]| b.fill(0)).is_err());
/// ```
pub const UUID7_MAX_MILLIS: u64 = (1 << 48) - 1;
/// Width of the counter (rand_a and rand_b together).
const COUNTER_BITS: u32 = 74;
const COUNTER_MAX: u128 = (1 << COUNTER_BITS) - 1;
/// A fresh counter has its top bit clear, leaving at least 2^73 increments in a
/// millisecond before the generator has to borrow the next millisecond.
const SEED_MASK: u128 = (1 << (COUNTER_BITS - 1)) - 1;
const VERSION_BITS: u128 = 0x7 << 76;
const VARIANT_BITS: u128 = 0b10 << 62;
const KIND: &str = "UUIDv7";

/// Assembles a UUIDv7 from milliseconds and a 74-bit counter.
fn assemble(timestamp_ms: u64, counter: u128) -> Uuid {
    let rand_a = (counter >> 62) & 0xFFF;
    let rand_b = counter & ((1 << 62) - 1);
    Uuid::from_u128(
        (u128::from(timestamp_ms) << 80) | VERSION_BITS | (rand_a << 64) | VARIANT_BITS | rand_b,
    )
}

/// The 74-bit counter (rand_a and rand_b) of a UUIDv7.
fn counter_of(id: Uuid) -> u128 {
    let v = id.as_u128();
    (((v >> 64) & 0xFFF) << 62) | (v & ((1 << 62) - 1))
}

/// The smallest counter whose UUIDv7 in `last`'s millisecond sorts after `last`, or `None`
/// if there is none. `last` is usually one of ours (version 7, variant `0b10`: the next
/// counter), but a generator may start after any UUID: the version nibble and the variant
/// bits sit between the timestamp and the counter's two parts, and decide first.
fn next_counter(last: Uuid) -> Option<u128> {
    let v = last.as_u128();
    let version = (v >> 76) & 0xF;
    let variant = (v >> 62) & 0b11;
    let rand_a = (v >> 64) & 0xFFF;
    match (version.cmp(&7), variant.cmp(&0b10)) {
        // Every UUIDv7 of the millisecond sorts after a lower version.
        (std::cmp::Ordering::Less, _) => Some(0),
        // None sorts after a higher version.
        (std::cmp::Ordering::Greater, _) => None,
        // Same rand_a: a lower variant sorts first, so the same counter is after it.
        (_, std::cmp::Ordering::Less) => Some(counter_of(last)),
        (_, std::cmp::Ordering::Equal) => {
            (counter_of(last) < COUNTER_MAX).then(|| counter_of(last) + 1)
        }
        // A higher variant: only a larger rand_a is after it.
        (_, std::cmp::Ordering::Greater) => (rand_a < 0xFFF).then(|| (rand_a + 1) << 62),
    }
}

/// The Unix millisecond timestamp of a UUIDv7, or `None` for other versions.
///
/// ```
/// let id: uuid::Uuid = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse().unwrap();
/// assert_eq!(sortpath::idgen::uuid7_timestamp_ms(id), Some(1_645_557_742_000));
/// assert_eq!(sortpath::idgen::uuid7_timestamp_ms(uuid::Uuid::nil()), None);
/// ```
pub fn uuid7_timestamp_ms(id: Uuid) -> Option<u64> {
    (id.get_version_num() == 7).then(|| (id.as_u128() >> 80) as u64)
}

/// Generates UUIDv7 values that strictly increase, within a millisecond and when the
/// clock steps back.
///
/// A new millisecond (later than the last ID's) seeds the 74-bit counter with random
/// bits (top bit clear). Within the last millisecond, or when the clock reads an earlier
/// one, the counter of the last ID is incremented; if it is exhausted the timestamp
/// advances by one millisecond (RFC 9562 section 6.2 allows this) with a fresh counter.
///
/// ```
/// use sortpath::idgen::Uuid7Generator;
/// let mut generator = Uuid7Generator::new();
/// let mut rng = |buf: &mut [u8]| buf.fill(0);
/// let a = generator.generate(1_000, &mut rng)?;
/// let b = generator.generate(999, &mut rng)?; // clock stepped back
/// assert!(a < b);
/// assert_eq!(b.get_version_num(), 7);
/// assert_eq!(sortpath::idgen::uuid7_timestamp_ms(b), Some(1_000));
/// # Ok::<(), sortpath::idgen::GenerateError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Uuid7Generator {
    last: Option<Uuid>,
}

impl Uuid7Generator {
    /// A generator that has produced nothing yet.
    ///
    /// ```
    /// assert_eq!(sortpath::idgen::Uuid7Generator::new().last(), None);
    /// ```
    pub const fn new() -> Uuid7Generator {
        Uuid7Generator { last: None }
    }

    /// A generator that continues after `last` (for example the newest ID read back from
    /// the store after a restart), so every ID it produces sorts after it, whatever UUID
    /// `last` is (another version or variant too).
    ///
    /// ```
    /// use sortpath::idgen::Uuid7Generator;
    /// let stored: uuid::Uuid = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse().unwrap();
    /// let mut generator = Uuid7Generator::starting_after(stored);
    /// assert!(generator.generate(0, &mut |b: &mut [u8]| b.fill(0))? > stored);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub const fn starting_after(last: Uuid) -> Uuid7Generator {
        Uuid7Generator { last: Some(last) }
    }

    /// The last ID produced.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::Uuid7Generator::new();
    /// let id = generator.now()?;
    /// assert_eq!(generator.last(), Some(id));
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub const fn last(&self) -> Option<Uuid> {
        self.last
    }

    /// The next ID for Unix time `timestamp_ms`, with random bits from `random`.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::Uuid7Generator::new();
    /// let id = generator.generate(1_645_557_742_000, &mut |b: &mut [u8]| b.fill(0x11))?;
    /// assert!(id.to_string().starts_with("017f22e2-79b0-7"));
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn generate<R: RandomSource + ?Sized>(
        &mut self,
        timestamp_ms: u64,
        random: &mut R,
    ) -> Result<Uuid, GenerateError> {
        if timestamp_ms > UUID7_MAX_MILLIS {
            return Err(time_error(timestamp_ms));
        }
        let id = match self.last {
            Some(last) => {
                let last_ms = (last.as_u128() >> 80) as u64;
                if timestamp_ms > last_ms {
                    assemble(timestamp_ms, seed(random)?)
                } else if let Some(counter) = next_counter(last) {
                    assemble(last_ms, counter)
                } else if last_ms < UUID7_MAX_MILLIS {
                    assemble(last_ms + 1, seed(random)?)
                } else {
                    return Err(GenerateError::Overflow {
                        kind: KIND,
                        unit: "millisecond",
                    });
                }
            }
            None => assemble(timestamp_ms, seed(random)?),
        };
        self.last = Some(id);
        Ok(id)
    }

    /// The next ID for the current time with random bits from the operating system.
    ///
    /// ```
    /// let mut generator = sortpath::idgen::Uuid7Generator::new();
    /// let a = generator.now()?;
    /// assert!(a < generator.now()?);
    /// # Ok::<(), sortpath::idgen::GenerateError>(())
    /// ```
    pub fn now(&mut self) -> Result<Uuid, GenerateError> {
        self.generate(super::unix_now_millis(), &mut OsRandom)
    }
}

fn time_error(timestamp_ms: u64) -> GenerateError {
    GenerateError::TimeOutOfRange {
        kind: KIND,
        range: "0 ..= 2^48-1 Unix milliseconds",
        found: i128::from(timestamp_ms),
    }
}

/// A fresh counter: 73 random bits (top counter bit clear).
fn seed<R: RandomSource + ?Sized>(random: &mut R) -> Result<u128, GenerateError> {
    let mut buf = [0u8; 16];
    random.fill_random(&mut buf[6..])?;
    Ok(u128::from_be_bytes(buf) & SEED_MASK)
}
