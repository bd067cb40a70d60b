//! The encoder's output: zeroed bytes with a write position.
//!
//! Writing into a slice instead of pushing to a `Vec<u8>` keeps the hot path free of calls
//! (a push may reallocate), so the compiler keeps the position in a register, writes an
//! array of bytes as consecutive stores, and stores a whole word where the bytes to write
//! fit in one. A write that does not fit is skipped but still counted, so after encoding,
//! [`Sink::len`] is the full encoded length: the caller then knows the output was too
//! small and by how much (see [`super::to_vec_into`]).
//!
//! Two sinks: [`Window`], a fixed array whose writes need no bounds checks (a position past
//! [`WINDOW`] wraps around, and such an encoding is discarded), and [`Writer`], a slice of
//! any length with checked writes.

use super::escape;
use super::sink::{sealed::Sealed, Sink};

impl Sealed for Window<'_> {}
impl Sealed for Writer<'_> {}

/// Longest encoding a [`Window`] holds; a power of two, so that a position is brought into
/// the window with one mask.
pub(crate) const WINDOW: usize = 64;
/// Size of a [`Window`]'s array: room for a fixed-size write (at most 9 bytes) that starts at
/// the window's last position.
pub(crate) const WINDOW_BYTES: usize = WINDOW + 8;

/// A fixed-size output. Every write lands at `pos % WINDOW`, which the compiler sees leaves
/// room in the array for any fixed-size write, so writes need no checks. If the final length
/// is at most [`WINDOW`], every write started below it (each writes at least one byte), so
/// none wrapped and the first `len` bytes are the encoding; otherwise the caller discards them.
///
/// The bytes from the position on are zero: the array starts zeroed, and a write that stores
/// more bytes than it uses (a whole word) stores zeros past them. [`Sink::short_string`]
/// relies on this for the string's terminator.
pub(crate) struct Window<'a> {
    buf: &'a mut [u8; WINDOW_BYTES],
    pos: usize,
}

impl<'a> Window<'a> {
    pub(crate) fn new(buf: &'a mut [u8; WINDOW_BYTES]) -> Self {
        Window { buf, pos: 0 }
    }

    #[inline(always)]
    fn at(&self) -> usize {
        // One mask, where clamping to a limit took a compare and a move.
        self.pos % WINDOW
    }

    /// The `N` bytes at `at`, which the caller keeps within the window's array.
    #[inline(always)]
    fn array<const N: usize>(&mut self, at: usize) -> &mut [u8; N] {
        (&mut self.buf[at..at + N])
            .try_into()
            .unwrap_or_else(|_| unreachable!())
    }
}

impl Sink for Window<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.pos
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.buf[self.at()] = b;
        self.pos += 1;
    }

    #[inline(always)]
    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.pos + bytes.len();
        if let Some(dst) = self.buf.get_mut(self.pos..end) {
            dst.copy_from_slice(bytes);
        }
        self.pos = end;
    }

    #[inline(always)]
    fn word(&mut self, word: [u8; 8], used: usize) {
        debug_assert!(used <= 8 && word[used..].iter().all(|&b| b == 0));
        let at = self.at();
        *self.array::<8>(at) = word;
        self.pos += used;
    }

    #[inline(always)]
    fn tagged_word(&mut self, tag: u8, word: [u8; 8], used: usize) {
        debug_assert!(used <= 8 && word[used..].iter().all(|&b| b == 0));
        let at = self.at();
        self.buf[at] = tag;
        *self.array::<8>(at + 1) = word;
        self.pos += 1 + used;
    }

    /// Two 4-byte stores, the second overlapping the first, and none for the terminator:
    /// every write leaves the bytes from the new position on zero (a word's unused bytes are
    /// zero, and the window starts zeroed), so the byte after the string is zero already.
    #[inline(always)]
    fn short_string(&mut self, lo: u32, hi: u32, n: usize) {
        debug_assert!((4..8).contains(&n));
        let at = self.at();
        // At most 63 + 7 = 70, within the window's 72 bytes.
        let end = at + n % 8;
        *self.array::<4>(at) = lo.to_le_bytes();
        *self.array::<4>(end - 4) = hi.to_le_bytes();
        debug_assert!(self.pos >= WINDOW || self.buf[end] == 0);
        self.pos += n + 1;
    }

    #[inline]
    fn invert_from(&mut self, start: usize, mask: u8) {
        if let Some(field) = self.buf.get_mut(start..self.pos) {
            invert(field, mask);
        }
    }

    #[inline(always)]
    fn long_string(&mut self, bytes: &[u8]) {
        self.pos = window_long_string(self.buf, self.pos, bytes);
    }
}

/// [`Sink::long_string`] for a [`Window`].
#[inline(never)]
fn window_long_string(buf: &mut [u8; WINDOW_BYTES], pos: usize, bytes: &[u8]) -> usize {
    let mut out = Window { buf, pos };
    escape::encode_long(&mut out, bytes);
    out.pos
}

/// An output of any length, with checked writes.
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, pos: 0 }
    }
}

impl Sink for Writer<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.pos
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.pos) {
            *slot = b;
        }
        self.pos += 1;
    }

    #[inline]
    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.pos + bytes.len();
        if let Some(dst) = self.buf.get_mut(self.pos..end) {
            dst.copy_from_slice(bytes);
        }
        self.pos = end;
    }

    #[inline]
    fn word(&mut self, word: [u8; 8], used: usize) {
        debug_assert!(used <= 8);
        match self.buf.get_mut(self.pos..self.pos + 8) {
            Some(dst) => dst.copy_from_slice(&word),
            None => partial(self.buf, self.pos, &word[..used]),
        }
        self.pos += used;
    }

    #[inline]
    fn tagged_word(&mut self, tag: u8, word: [u8; 8], used: usize) {
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

    /// The halves joined into one word (the overlapping bytes are the same in both), zero
    /// above the content: a slice written before may hold other bytes after the position.
    #[inline]
    fn short_string(&mut self, lo: u32, hi: u32, n: usize) {
        debug_assert!((4..8).contains(&n));
        let word = u64::from(lo) | u64::from(hi) << (8 * (n % 8 - 4));
        self.word(word.to_le_bytes(), n + 1);
    }

    #[inline]
    fn invert_from(&mut self, start: usize, mask: u8) {
        if let Some(field) = self.buf.get_mut(start..self.pos) {
            invert(field, mask);
        }
    }

    #[inline]
    fn long_string(&mut self, bytes: &[u8]) {
        self.pos = writer_long_string(self.buf, self.pos, bytes);
    }
}

/// [`Sink::long_string`] for a [`Writer`].
#[inline(never)]
fn writer_long_string(buf: &mut [u8], pos: usize, bytes: &[u8]) -> usize {
    let mut out = Writer { buf, pos };
    escape::encode_long(&mut out, bytes);
    out.pos
}

/// XORs every byte of `field` with `mask`; out of line and given only the bytes, like
/// [`Sink::long_string`], so that the sink's position stays in a register around it.
#[inline(never)]
fn invert(field: &mut [u8], mask: u8) {
    field.iter_mut().for_each(|b| *b ^= mask);
}

/// Writes `bytes` at `at` in `buf` if they fit (the slow path near the end of the output).
/// A free function, so that the writer itself need not live in memory for the call.
#[cold]
fn partial(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}
