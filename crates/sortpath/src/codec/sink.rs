//! Where the encoder writes: the [`Sink`] interface, implemented by the two output buffers
//! of `write.rs`. Apart from them so that the string escaper (`escape.rs`), which writes
//! through a sink, and the sinks, which call the escaper for long strings, do not import
//! each other.

pub(super) mod sealed {
    /// Keeps [`super::Sink`] implemented by the codec's own sinks only (`write.rs`).
    pub trait Sealed {}
}

/// Where the encoder writes: the output buffers of [`super::encode_into`] and
/// [`super::to_vec_into`]. Sealed: a manual [`super::Encode`] impl names it as a bound and
/// never calls it.
///
/// ```
/// use sortpath::codec::{Encode, Encoder, Error, Sink};
/// struct Celsius(i32);
/// impl Encode for Celsius {
///     fn encode<S: Sink>(&self, e: &mut Encoder<S>) -> Result<(), Error> {
///         self.0.encode(e)
///     }
/// }
/// assert_eq!(sortpath::codec::encode(&Celsius(-3)).unwrap(), sortpath::codec::to_vec(&-3i32).unwrap());
/// ```
// `len` is the write position of a hidden, internal interface; no caller asks for emptiness.
#[allow(clippy::len_without_is_empty)]
pub trait Sink: sealed::Sealed {
    /// Bytes written so far, counting the ones that did not fit.
    #[doc(hidden)]
    fn len(&self) -> usize;
    #[doc(hidden)]
    fn byte(&mut self, b: u8);
    #[doc(hidden)]
    fn bytes(&mut self, bytes: &[u8]);
    /// Writes the first `used` (at most 8) bytes of `word`, storing all 8 at once where
    /// there is room (the excess is overwritten by later writes or cut off). The bytes past
    /// `used` must be zero (see [`super::write::Window`]).
    #[doc(hidden)]
    fn word(&mut self, word: [u8; 8], used: usize);
    /// A sort byte and the first `used` (at most 8) bytes of `word` after it; the bytes
    /// past `used` must be zero, as for [`Sink::word`].
    #[doc(hidden)]
    fn tagged_word(&mut self, tag: u8, word: [u8; 8], used: usize);
    /// A string of 4..=7 bytes that needs no escaping, and its terminator: `lo` is its
    /// first 4 bytes and `hi` its last 4 (little-endian), which overlap (and are the same
    /// bytes when there are 4).
    #[doc(hidden)]
    fn short_string(&mut self, lo: u32, hi: u32, n: usize);
    /// Inverts every byte written since `start` (a descending field), if all of them fit.
    #[doc(hidden)]
    fn invert_from(&mut self, start: usize, mask: u8);
    /// Writes an escaped string the short-string path does not take (see
    /// [`super::escape::encode_into`]), out of line. The call passes the output and the position by
    /// value and returns the new position, so the caller keeps both in registers: a call
    /// given the sink itself would need the position stored before it and reloaded after.
    #[doc(hidden)]
    fn long_string(&mut self, bytes: &[u8]);
}
