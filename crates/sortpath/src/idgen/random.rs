//! Sources of randomness for ID generators.

use super::GenerateError;

/// Fills buffers with random bytes for ID generators.
///
/// Generators take the source explicitly so tests can be deterministic. Any
/// `FnMut(&mut [u8])` closure is a source; [`OsRandom`] is the secure default the
/// `now()` helpers use.
///
/// ```
/// use sortpath::idgen::{RandomSource, OsRandom};
/// let mut counter = 0u8;
/// let mut fixed = |buf: &mut [u8]| { for b in buf { counter += 1; *b = counter; } };
/// let mut buf = [0u8; 3];
/// fixed.fill_random(&mut buf).unwrap();
/// assert_eq!(buf, [1, 2, 3]);
/// OsRandom.fill_random(&mut buf).unwrap();
/// ```
pub trait RandomSource {
    /// Fills `buf` completely with random bytes.
    fn fill_random(&mut self, buf: &mut [u8]) -> Result<(), GenerateError>;
}

impl<F: FnMut(&mut [u8])> RandomSource for F {
    fn fill_random(&mut self, buf: &mut [u8]) -> Result<(), GenerateError> {
        self(buf);
        Ok(())
    }
}

/// The operating system's secure random number generator (via `getrandom`).
///
/// ```
/// use sortpath::idgen::{RandomSource, OsRandom};
/// let mut a = [0u8; 16];
/// let mut b = [0u8; 16];
/// OsRandom.fill_random(&mut a).unwrap();
/// OsRandom.fill_random(&mut b).unwrap();
/// assert_ne!(a, b);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct OsRandom;

impl RandomSource for OsRandom {
    fn fill_random(&mut self, buf: &mut [u8]) -> Result<(), GenerateError> {
        getrandom::fill(buf).map_err(|e| GenerateError::Random(e.to_string()))
    }
}
