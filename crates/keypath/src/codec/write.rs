//! The encoder's output: a window of zeroed bytes with a write position.
//!
//! Writing into a slice instead of pushing to a `Vec<u8>` keeps the hot path free of calls
//! (a push may reallocate), so the compiler keeps the position in a register, writes an
//! array of bytes as consecutive stores, and stores a whole word where the bytes to write
//! fit in one. When a write does not fit it is skipped but still counted, so after
//! encoding, [`Writer::len`] is the full encoded length: the caller then knows the window
//! was too small and by how much (see [`super::encode_into`]).

pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, pos: 0 }
    }

    /// Bytes written so far, counting the ones that did not fit.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.pos
    }

    #[inline]
    pub(crate) fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.pos) {
            *slot = b;
        }
        self.pos += 1;
    }

    #[inline]
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        let end = self.pos + bytes.len();
        if let Some(dst) = self.buf.get_mut(self.pos..end) {
            dst.copy_from_slice(bytes);
        }
        self.pos = end;
    }

    /// Writes the first `used` (at most 8) bytes of `word`, storing all 8 at once when the
    /// window has room for them (the excess is overwritten by later writes or cut off).
    #[inline]
    pub(crate) fn word(&mut self, word: [u8; 8], used: usize) {
        debug_assert!(used <= 8);
        match self.buf.get_mut(self.pos..self.pos + 8) {
            Some(dst) => dst.copy_from_slice(&word),
            None => partial(self.buf, self.pos, &word[..used]),
        }
        self.pos += used;
    }

    /// A sort byte and the first `used` (at most 8) bytes of `word` after it.
    #[inline]
    pub(crate) fn tagged_word(&mut self, tag: u8, word: [u8; 8], used: usize) {
        debug_assert!(used <= 8);
        match self.buf.get_mut(self.pos..self.pos + 9) {
            Some(dst) => {
                dst[0] = tag;
                dst[1..].copy_from_slice(&word);
            }
            None => {
                partial(self.buf, self.pos, &[tag]);
                partial(self.buf, self.pos + 1, &word[..used]);
            }
        }
        self.pos += 1 + used;
    }

    /// Inverts every byte written since `start` (a descending field), if all of them fit.
    pub(crate) fn invert_from(&mut self, start: usize, mask: u8) {
        if let Some(field) = self.buf.get_mut(start..self.pos) {
            field.iter_mut().for_each(|b| *b ^= mask);
        }
    }
}

/// Writes `bytes` at `at` in `buf` if they fit (the slow path near the end of the window).
/// A free function, so that the writer itself need not live in memory for the call.
#[cold]
fn partial(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}
