//! Errors of ID parsing and generation.

/// Why text or bytes are not a valid ID.
///
/// ```
/// let err = "0ujtsYcgvSTl8PAuAdqWYSMnLO".parse::<sortpath::idgen::Ksuid>().unwrap_err();
/// assert_eq!(err.to_string(), "expected KSUID text of 27 ASCII characters, found 26 bytes");
/// // Non-ASCII text is never an ID; its length is given in bytes too.
/// let err = "01ARZ3NDEKTSV4RRFFQ69G5FAé".parse::<sortpath::idgen::Ulid>().unwrap_err();
/// assert_eq!(err.to_string(), "expected ULID text of 26 ASCII characters, found 27 bytes");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdParseError {
    /// The text has the wrong number of bytes.
    #[error("expected {kind} text of {expected} ASCII characters, found {found} bytes")]
    TextLength {
        /// Which ID type.
        kind: &'static str,
        /// Required length.
        expected: usize,
        /// Length given.
        found: usize,
    },
    /// A byte of the text is not a digit of the ID's alphabet.
    #[error("expected a {alphabet} digit at byte offset {position} of {kind} text, found byte 0x{found:02X}")]
    Digit {
        /// Which ID type.
        kind: &'static str,
        /// The alphabet's name.
        alphabet: &'static str,
        /// Byte offset in the text.
        position: usize,
        /// The offending byte.
        found: u8,
    },
    /// The text spells a number above the largest ID.
    #[error("{kind} text is above the largest {kind}, {max}")]
    Overflow {
        /// Which ID type.
        kind: &'static str,
        /// The largest ID's text.
        max: &'static str,
    },
    /// A key path ID has the wrong type for this ID.
    #[error("expected a {expected} key path ID for a {kind}, found a {found} ID")]
    IdType {
        /// Which ID type.
        kind: &'static str,
        /// The key path ID type that holds it.
        expected: &'static str,
        /// The key path ID type found.
        found: String,
    },
    /// A binary ID has the wrong number of bytes.
    #[error("expected {expected} bytes of {kind}, found {found}")]
    ByteLength {
        /// Which ID type.
        kind: &'static str,
        /// Required length.
        expected: usize,
        /// Length given.
        found: usize,
    },
}

/// Why an ID could not be generated.
///
/// ```
/// use sortpath::idgen::{GenerateError, UlidGenerator};
/// let mut generator = UlidGenerator::new();
/// let err = generator.generate(1 << 48, &mut |buf: &mut [u8]| buf.fill(0)).unwrap_err();
/// assert!(matches!(err, GenerateError::TimeOutOfRange { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The time cannot be stored in the ID's timestamp field.
    #[error("expected a {kind} time in {range}, found {found}")]
    TimeOutOfRange {
        /// Which ID type.
        kind: &'static str,
        /// The representable range, in words.
        range: &'static str,
        /// The time given, in the generator's unit.
        found: i128,
    },
    /// Every ID after the last one in this time unit is used up: the monotonic
    /// increment carried out of the random part.
    #[error("{kind} generator overflow: no {kind} above the last one is left in its {unit}")]
    Overflow {
        /// Which ID type.
        kind: &'static str,
        /// The time unit (second or millisecond).
        unit: &'static str,
    },
    /// Random bits given to build an ID do not fit in its random field.
    #[error("expected {kind} random bits within {bits} bits, found {found}")]
    RandomTooWide {
        /// Which ID type.
        kind: &'static str,
        /// Width of the random field.
        bits: u32,
        /// The value given.
        found: u128,
    },
    /// The random source failed.
    #[error("expected random bytes from the operating system, found an error: {0}")]
    Random(String),
}
