//! Strings and byte strings: escaping plus a one-byte terminator.
//!
//! Invariant: the body of an encoded byte string never contains [`TERMINATOR`], so the
//! first `TERMINATOR` ends it. [`ESCAPE`] followed by [`ESCAPED_NUL`] stands for a `0x00`
//! byte, [`ESCAPE`] followed by [`ESCAPED_ESCAPE`] for a `0x01` byte; every other byte is
//! itself. The units `01 01 < 01 02 < 02 < ... < FF` are prefix-free and ordered like the
//! bytes they stand for, and the terminator sorts below all of them, so a string sorts
//! before its extensions and encoded strings compare like the strings.

/// Ends every encoded string or byte string.
pub const TERMINATOR: u8 = 0x00;
/// Starts a two-byte escape inside an encoded string.
pub const ESCAPE: u8 = 0x01;
/// After [`ESCAPE`]: the content byte `0x00`.
pub const ESCAPED_NUL: u8 = 0x01;
/// After [`ESCAPE`]: the content byte `0x01`.
pub const ESCAPED_ESCAPE: u8 = 0x02;

use super::sink::Sink;

/// Writes the escaped `bytes` and the terminator.
#[inline(always)]
pub(crate) fn encode_into(out: &mut impl Sink, bytes: &[u8]) {
    let n = bytes.len();
    if n < 8 {
        // Short content (most key components): no loop, a fixed number of loads and stores.
        if n >= 4 {
            // Two overlapping 4-byte halves; the sink writes them at their places, so
            // nothing joins them in a register.
            let (lo, hi) = load_halves(bytes);
            if !has_escape_byte(u64::from(lo) | u64::from(hi) << 32) {
                out.short_string(lo, hi, n);
                return;
            }
        } else if n > 0 {
            let (word, probe) = load_tiny(bytes);
            if !has_escape_byte(probe) {
                // The word's bytes past the content are zero: the terminator comes with it.
                out.word(word.to_le_bytes(), n + 1);
                return;
            }
        }
    }
    // Also the empty string: a third short case here makes serde's `String::serialize` too
    // large to be inlined into a derived encoder (279 instead of 250 instructions for the
    // benchmark struct, whose strings all take the 4..=7 path).
    out.long_string(bytes);
}

/// [`encode_into`] for content of 8 bytes or more, or that needs escaping; called out of
/// line through [`Sink::long_string`].
#[inline]
pub(crate) fn encode_long(out: &mut impl Sink, bytes: &[u8]) {
    if bytes.len() >= 8 && !needs_escape_long(bytes) {
        // Nothing to escape, so the content is copied as is.
        out.bytes(bytes);
        out.byte(TERMINATOR);
    } else {
        encode_escaped(out, bytes);
    }
}

/// The `0x0101..01` word: one in every byte.
const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
/// The `0x8080..80` word: the high bit of every byte.
pub(crate) const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Whether any byte of `word` is `0x00` or `0x01` (below `0x02`), without a loop: the
/// classic "has a byte less than n" test. Subtracting 2 from every byte sets a byte's high
/// bit when the byte was below 2 or at least 0x82; `& !word` drops the latter. A borrow
/// into a higher byte can only start at a byte below 2, so with none there are no false
/// positives, and with one the answer is true anyway.
#[inline]
pub(crate) fn has_escape_byte(word: u64) -> bool {
    escape_flags(word) != 0
}

/// The first and the last 4 bytes of `bytes` (4..=7 of them, so the two overlap or meet),
/// each as a little-endian `u32`.
#[inline(always)]
fn load_halves(bytes: &[u8]) -> (u32, u32) {
    let n = bytes.len();
    debug_assert!((4..8).contains(&n));
    let lo = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let hi = u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]);
    (lo, hi)
}

/// `bytes` (1..=3 of them) as a little-endian word, zero above them, with three single-byte
/// loads; and a word holding every byte of `bytes` and `0xFF` bytes, for
/// [`has_escape_byte`].
#[inline(always)]
fn load_tiny(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    debug_assert!((1..4).contains(&n));
    let (first, mid, last) = (bytes[0], bytes[n / 2], bytes[n - 1]);
    let word =
        u64::from(first) | u64::from(mid) << (8 * (n / 2)) | u64::from(last) << (8 * (n - 1));
    let probe = u32::from_le_bytes([first, mid, last, 0xFF]);
    (word, u64::from(probe) | 0xFFFF_FFFF << 32)
}

/// Whether `bytes` (at least 8) hold a `0x00` or `0x01`, a word at a time; the last word
/// overlaps the one before it.
#[inline]
fn needs_escape_long(bytes: &[u8]) -> bool {
    let (words, _) = bytes.as_chunks::<8>();
    let last = &bytes[bytes.len() - 8..];
    words
        .iter()
        .chain(std::iter::once(
            <&[u8; 8]>::try_from(last).unwrap_or(&[0xFF; 8]),
        ))
        .any(|w| has_escape_byte(u64::from_le_bytes(*w)))
}

/// The slow path of [`encode_into`], for content holding `0x00` or `0x01` bytes.
fn encode_escaped(out: &mut impl Sink, bytes: &[u8]) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b <= ESCAPE {
            out.bytes(&bytes[start..i]);
            // 0x00 -> 01 01, 0x01 -> 01 02: the second byte is the content byte plus one.
            out.bytes(&[ESCAPE, b + ESCAPED_NUL]);
            start = i + 1;
        }
    }
    out.bytes(&bytes[start..]);
    out.byte(TERMINATOR);
}

/// A decoded byte string: borrowed from the input when it needed no unescaping.
pub(crate) enum Decoded<'de> {
    Borrowed(&'de [u8]),
    Owned(Vec<u8>),
}

/// Why an escaped string could not be decoded: the offset (relative to the start of the
/// string) of the byte that is wrong (or of the end, if the input ended).
pub(crate) struct Malformed {
    pub offset: usize,
}

/// A decoded string, borrowed or unescaped, and whether its content is all ASCII (known
/// for free from the scan for the terminator; `false` when not known).
pub(crate) struct Scanned<'de> {
    pub content: Decoded<'de>,
    pub used: usize,
    pub ascii: bool,
}

/// Decodes one escaped string from the start of `input`, whose bytes are XORed with
/// `mask` (`0xFF` inside a descending field). Returns the content and the bytes used.
#[inline]
pub(crate) fn decode(input: &[u8], mask: u8) -> Result<Scanned<'_>, Malformed> {
    match scan(input, mask) {
        Some((i, ascii)) if mask == 0 && input[i] == TERMINATOR => Ok(Scanned {
            content: Decoded::Borrowed(&input[..i]),
            used: i + 1,
            ascii,
        }),
        Some((i, _)) => decode_slow(input, mask, i).map(|(content, used)| Scanned {
            content,
            used,
            ascii: false,
        }),
        None => Err(Malformed {
            offset: input.len(),
        }),
    }
}

/// The index of the first byte of `input` that XORed with `mask` is `0x00` or `0x01` (the
/// terminator or an escape), and whether the bytes before it are ASCII; a word at a time.
#[inline]
fn scan(input: &[u8], mask: u8) -> Option<(usize, bool)> {
    let mask_word = u64::from_ne_bytes([mask; 8]);
    // The OR of the (unmasked) bytes before the stop: their high bits say if any is not ASCII.
    let mut seen = 0u64;
    let (words, tail) = input.as_chunks::<8>();
    for (j, w) in words.iter().enumerate() {
        let word = u64::from_le_bytes(*w) ^ mask_word;
        if let Some(i) = first_escape_byte(word) {
            seen |= word & ((1u64 << (8 * i)) - 1);
            return Some((8 * j + i, seen & HIGHS == 0));
        }
        seen |= word;
    }
    if tail.is_empty() {
        return None;
    }
    if let Some(last) = input.last_chunk::<8>() {
        // The last 8 bytes overlap bytes already scanned, which hold no stop byte, so the
        // first stop in them is in the tail. Their bytes before it are all content.
        let word = u64::from_le_bytes(*last) ^ mask_word;
        let i = first_escape_byte(word)?;
        seen |= word & ((1u64 << (8 * i)) - 1);
        return Some((input.len() - 8 + i, seen & HIGHS == 0));
    }
    for (i, &b) in tail.iter().enumerate() {
        let b = b ^ mask;
        if b <= ESCAPE {
            return Some((i, seen & HIGHS == 0));
        }
        seen |= u64::from(b);
    }
    None
}

/// The index (0..8, in memory order) of the first byte of `word` (read little-endian)
/// below `0x02`. The lowest flag of the [`has_escape_byte`] test is always a true one:
/// no borrow reaches a byte from below before the first byte below 2.
#[inline(always)]
pub(crate) fn first_escape_byte(word: u64) -> Option<usize> {
    let flags = escape_flags(word);
    (flags != 0).then(|| flags.trailing_zeros() as usize / 8)
}

/// Unescapes into a new buffer; `plain` bytes at the start need no unescaping. A first
/// pass checks the escapes and measures the content, so the buffer is allocated once with
/// exactly its length (never more than the input length).
fn decode_slow(input: &[u8], mask: u8, plain: usize) -> Result<(Decoded<'_>, usize), Malformed> {
    let mut i = plain;
    let mut len = plain;
    loop {
        let Some(&b) = input.get(i) else {
            return Err(Malformed { offset: i });
        };
        match b ^ mask {
            TERMINATOR => break,
            ESCAPE => {
                let next = input.get(i + 1).map(|n| n ^ mask);
                if !matches!(next, Some(ESCAPED_NUL | ESCAPED_ESCAPE)) {
                    return Err(Malformed { offset: i + 1 });
                }
                i += 2;
            }
            _ => i += 1,
        }
        len += 1;
    }
    let end = i;
    let mut out = Vec::with_capacity(len);
    out.extend(input[..plain].iter().map(|b| b ^ mask));
    let mut i = plain;
    while i < end {
        match input[i] ^ mask {
            // 01 01 -> 0x00, 01 02 -> 0x01: the content byte is the second byte minus one.
            ESCAPE => {
                out.push((input[i + 1] ^ mask) - ESCAPED_NUL);
                i += 2;
            }
            plain => {
                out.push(plain);
                i += 1;
            }
        }
    }
    debug_assert_eq!(out.len(), len);
    Ok((Decoded::Owned(out), end + 1))
}

/// The [`has_escape_byte`] flags of `word`: the high bit of bytes below `0x02`, and possibly
/// of bytes after the first of them (see [`first_escape_byte`]).
#[inline(always)]
pub(crate) fn escape_flags(word: u64) -> u64 {
    word.wrapping_sub(2 * ONES) & !word & HIGHS
}
