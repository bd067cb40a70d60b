//! The codec's one error type.

use std::fmt;

/// Why a value could not be encoded or bytes could not be decoded.
///
/// The message says what was expected, what was found and, when decoding, at which byte
/// offset of the input.
///
/// ```
/// use sortpath::codec::{from_slice, Error};
/// let err: Error = from_slice::<bool>(&[0x07]).unwrap_err();
/// assert_eq!(err.to_string(), "expected a bool (0x00 or 0x01), found byte 0x07 at byte offset 0");
/// assert_eq!(err.offset(), Some(0));
/// ```
// Boxed so that `Result<T, Error>` stays small on the hot (successful) path.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(Box<Inner>);

#[derive(Debug, thiserror::Error)]
#[error("{kind}{}", At(*offset))]
struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
}

/// Appends " at byte offset N" when the offset is known.
struct At(Option<usize>);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(offset) => write!(f, " at byte offset {offset}"),
            None => Ok(()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum ErrorKind {
    #[error("expected {expected}, found {found}")]
    Unexpected {
        expected: &'static str,
        found: Found,
    },
    #[error("{0}")]
    Custom(String),
    #[error("could not write the encoded key: {0}")]
    Io(#[from] std::io::Error),
}

/// What the decoder found instead of what it expected.
#[derive(Debug)]
pub(crate) enum Found {
    /// A single byte (shown in hex).
    Byte(u8),
    /// A byte of a descending field: as stored, and inverted back (the value `expected`
    /// speaks of).
    DescByte {
        /// The byte in the input.
        stored: u8,
    },
    /// The input ended.
    End,
    /// Bytes that do not form valid UTF-8.
    InvalidUtf8,
    /// A described value (e.g. "3 trailing bytes").
    Text(String),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Byte(b) => write!(f, "byte 0x{b:02X}"),
            Found::DescByte { stored } => write!(
                f,
                "byte 0x{stored:02X} (0x{:02X} inverted, in a descending field)",
                !stored
            ),
            Found::End => f.write_str("the end of input"),
            Found::InvalidUtf8 => f.write_str("invalid UTF-8"),
            Found::Text(t) => f.write_str(t),
        }
    }
}

impl Error {
    fn new(kind: ErrorKind, offset: Option<usize>) -> Error {
        Error(Box::new(Inner { kind, offset }))
    }

    /// Something other than `expected` was found at byte `offset`.
    #[cold]
    pub(crate) fn unexpected(expected: &'static str, found: Found, offset: usize) -> Error {
        Error::new(ErrorKind::Unexpected { expected, found }, Some(offset))
    }

    #[cold]
    pub(crate) fn io(err: std::io::Error) -> Error {
        Error::new(ErrorKind::Io(err), None)
    }

    /// Records where the decoder was when an error without a position (a custom error
    /// raised by a `Deserialize` impl) happened.
    pub(crate) fn or_at(mut self, offset: usize) -> Error {
        self.fill_offset(offset);
        self
    }

    /// [`Self::or_at`] in place.
    pub(crate) fn fill_offset(&mut self, offset: usize) {
        if self.0.offset.is_none() && !matches!(self.0.kind, ErrorKind::Io(_)) {
            self.0.offset = Some(offset);
        }
    }

    /// The byte offset of the input where decoding failed, if the error came from decoding.
    ///
    /// ```
    /// // The second integer announces 2 magnitude bytes, but the input ends.
    /// let err = sortpath::codec::from_slice::<(u64, u64)>(&[0x08, 0x01, 0x09]).unwrap_err();
    /// assert_eq!(err.offset(), Some(3));
    /// assert_eq!(err.to_string(), "expected a sort-byte integer, found the end of input at byte offset 3");
    /// ```
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }
}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::new(ErrorKind::Custom(msg.to_string()), None)
    }
}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::new(ErrorKind::Custom(msg.to_string()), None)
    }
}
