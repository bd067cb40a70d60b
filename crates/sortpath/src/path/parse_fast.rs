//! The common text forms parsed in one pass into stack buffers: components whose IDs are
//! integers, UUIDs, or strings that need no escape in either form. Anything else (byte IDs,
//! `%` escapes, empty or escaped string IDs, namespace-only components before the last,
//! integers of 20 or more digits, errors, long texts) is left to the full parser in
//! `text.rs`, which gives the same result for everything this accepts (a property test
//! compares them) and reports errors.
//!
//! The text is read eight bytes at a time (a namespace, an integer's digits), as
//! little-endian words that are zero past the end of the text. Every store into the
//! buffers is checked: a text whose encoding does not fit them is left to the full parser.

use super::binary::{meta, SEPARATOR, TERMINATOR, TYPE_INT, TYPE_NAMESPACE, TYPE_STRING};
use super::escape::BYTES_PREFIX;
use super::escape::ESCAPE_MAX_RAW;
use super::namespace;
use super::KeyPath;
use crate::int::SORT_BYTE_ZERO;

/// Longest text this parser takes.
const MAX_TEXT: usize = 128;
/// The segments, the terminator and the metadata. The segments of a text of up to 128 bytes
/// take at most 160 bytes (`/a-1` is 4 bytes of text and 5 of segments with the separator
/// after it), the metadata at most 80 (one byte per segment, two for a segment of 16 bytes
/// or more), and the fixed-size stores below write at most 16 bytes past what they keep;
/// 256 bytes are zeroed with a few stores, without a call.
const BUF: usize = 256;
/// Room for the metadata varints.
const METAS: usize = 80;

/// Each byte of a word: `ONES * b` is `b` in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const HIGH: u64 = ONES * 0x80;

/// Metadata of a UUID segment (16 bytes, type 4): `0x84 0x01`.
const UUID_META: [u8; 2] = [0x84, 0x01];

/// Parses `text` (which starts with `/` and is not `/` alone) if it has one of the common
/// shapes; `None` for anything else, which the full parser then parses or reports.
#[inline]
pub(super) fn parse(text: &str) -> Option<KeyPath> {
    parse_with(text, |bytes| {
        if bytes.len() > super::INLINE {
            KeyPath::from_valid(bytes.to_vec())
        } else {
            KeyPath::from_valid_slice(bytes)
        }
    })
}

/// [`parse`], handing the encoding to `take` (which the caller copies where it keeps it)
/// instead of making a path of it.
#[inline(always)]
pub(super) fn parse_with<R>(text: &str, take: impl FnOnce(&[u8]) -> R) -> Option<R> {
    let t = text.as_bytes();
    if t.len() > MAX_TEXT {
        return None;
    }
    // The segments, then the terminator and the metadata (copied there at the end).
    let mut seg = [0u8; BUF];
    let mut metas = [0u8; METAS];
    let (mut pos, mut meta_len) = (0usize, 0usize);
    let mut i = 1; // after the leading '/'
    loop {
        // The namespace: ASCII letters or '_', copied as it is, a word at a time (the bytes
        // past it are overwritten next or cut off).
        let mut word = word_at(t, i);
        let mut ns_len = namespace::word_prefix_len(word);
        seg.get_mut(pos..pos + 8)?
            .copy_from_slice(&word.to_le_bytes());
        if ns_len == 8 {
            loop {
                word = word_at(t, i + ns_len);
                let run = namespace::word_prefix_len(word);
                seg.get_mut(pos + ns_len..pos + ns_len + 8)?
                    .copy_from_slice(&word.to_le_bytes());
                ns_len += run;
                if run < 8 {
                    break;
                }
            }
        } else if ns_len == 0 {
            return None;
        }
        pos += ns_len;
        push_meta(&mut metas, &mut meta_len, meta(ns_len, TYPE_NAMESPACE))?;
        i += ns_len;
        match t.get(i) {
            None => break, // a namespace-only last component
            Some(b'-') => i += 1,
            Some(_) => return None,
        }
        *seg.get_mut(pos)? = SEPARATOR;
        pos += 1;
        // The ID, up to the next '/' or the end: `next` is the index after it.
        let next;
        // A UUID first when the byte of its first dash is a '-' (never so in an integer ID
        // that reaches it); if the ID is not one, an integer or else a string.
        let uuid = match t.get(i + 8) {
            Some(b'-') => t
                .get(i..)
                .and_then(|rest| rest.first_chunk::<36>())
                .filter(|_| matches!(t.get(i + 36), None | Some(b'/')))
                .and_then(uuid_bytes),
            _ => None,
        };
        if let Some(uuid) = uuid {
            seg.get_mut(pos..pos + 16)?.copy_from_slice(&uuid);
            pos += 16;
            let m = metas.get_mut(meta_len..meta_len + 2)?;
            m.copy_from_slice(&UUID_META);
            meta_len += 2;
            next = i + 36;
        } else {
            // An integer: an optional '-', then "0" or up to 19 digits not starting with
            // '0', then '/' or the end; anything else is a string.
            let negative = t.get(i) == Some(&b'-');
            let at = i + usize::from(negative);
            let digits = word_at(t, at) ^ (ONES * u64::from(b'0'));
            let n = digit_run(digits);
            let (n, magnitude) = if n < 8 {
                (n, digits_value(digits, n))
            } else {
                let digits2 = word_at(t, at + 8) ^ (ONES * u64::from(b'0'));
                let n2 = digit_run(digits2);
                let high = digits_value(digits, 8);
                if n2 < 8 {
                    (8 + n2, high * POW10[n2] + digits_value(digits2, n2))
                } else {
                    let digits3 = word_at(t, at + 16) ^ (ONES * u64::from(b'0'));
                    let n3 = digit_run(digits3);
                    if n3 > 3 {
                        // 20 digits or more, which may be out of range: the full parser
                        // reads and checks them.
                        return None;
                    }
                    let high = high * POW10[8] + digits_value(digits2, 8);
                    (16 + n3, high * POW10[n3] + digits_value(digits3, n3))
                }
            };
            // "0" alone, or digits not starting with '0'.
            let shape_ok = n > 0 && (digits & 0xFF != 0 || (n == 1 && !negative));
            match t.get(at + n) {
                None | Some(b'/') if shape_ok => {
                    let k = write_int(&mut seg, pos, negative, magnitude)?;
                    pos += k;
                    // `meta(k, TYPE_INT)` is one byte: `k <= 9`.
                    *metas.get_mut(meta_len)? = meta(k, TYPE_INT) as u8;
                    meta_len += 1;
                    next = at + n;
                }
                _ => {
                    let len;
                    (len, meta_len) = string_id(t, i, &mut seg, pos, &mut metas, meta_len)?;
                    pos += len;
                    next = i + len;
                }
            }
        }
        if next >= t.len() {
            break;
        }
        // '/' and at least a namespace after it (a trailing '/' is an error).
        *seg.get_mut(pos)? = SEPARATOR;
        pos += 1;
        i = next + 1;
    }
    // The terminator and the metadata after the segments: one fixed-size copy of 16 bytes
    // when the metadata fits it (the bytes past it are cut off), so the encoding is one
    // slice, copied once where it is kept.
    let after = seg.get_mut(pos..pos + 1 + 16)?;
    after[0] = TERMINATOR;
    match metas.first_chunk::<16>() {
        Some(first) if meta_len <= 16 => after[1..].copy_from_slice(first),
        _ => seg
            .get_mut(pos + 1..pos + 1 + meta_len)?
            .copy_from_slice(metas.get(..meta_len)?),
    }
    Some(take(seg.get(..pos + 1 + meta_len)?))
}

/// The 8 bytes of `t` from `at` as a little-endian word (byte 0 is `t[at]`), zero past the
/// end of `t`.
#[inline(always)]
fn word_at(t: &[u8], at: usize) -> u64 {
    // `at` is at most a few bytes past the text, which is short: no overflow.
    match t.get(at..at + 8) {
        Some(word) => u64::from_le_bytes(word.try_into().unwrap_or_default()),
        None => tail_word(t, at),
    }
}

/// [`word_at`] where fewer than 8 bytes are left: the last 8 bytes of the text shifted
/// down, or byte by byte in a text shorter than that.
#[inline]
fn tail_word(t: &[u8], at: usize) -> u64 {
    let left = t.len().saturating_sub(at);
    match t.last_chunk::<8>() {
        Some(last) if left > 0 => u64::from_le_bytes(*last) >> (8 * (8 - left)),
        _ => t
            .get(at..)
            .unwrap_or_default()
            .iter()
            .rev()
            .fold(0, |word, &b| word << 8 | u64::from(b)),
    }
}

/// How many bytes of `x` (a word of text with `'0'` subtracted from each byte as an
/// exclusive or, byte 0 first), from the first, are digits (`0..=9`): 0 to 8.
#[inline(always)]
fn digit_run(x: u64) -> usize {
    // Per byte, its low 7 bits plus 0x76 reach the high bit exactly when they are 10 or
    // more (no carry leaves the byte); a byte with its own high bit set is no digit either.
    let not_digit = (((x & (ONES * 0x7F)) + ONES * 0x76) | x) & HIGH;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `n` digits of `x` (as for [`digit_run`], `n <= 8`; 0 for
/// `n == 0`): the digits moved to the top of the word, then added up in pairs, fours and
/// eights.
#[inline(always)]
fn digits_value(x: u64, n: usize) -> u64 {
    // Two shifts, each at most 32 bits, so that `n == 0` leaves nothing.
    let shift = 4 * (8 - n) as u32;
    let v = (x << shift) << shift;
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10_000) + (v >> 32)) & 0xFFFF_FFFF
}

/// `10^n` for the digit counts of a word.
const POW10: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The 16 bytes of the UUID whose text is `u` (8-4-4-4-12 hex digits, any case), or `None`:
/// [`super::text::parse_uuid_text`] in line, its four words of 8 digits checked together.
#[inline(always)]
pub(super) fn uuid_bytes(u: &[u8; 36]) -> Option<[u8; 16]> {
    if (u[8] ^ b'-') | (u[13] ^ b'-') | (u[18] ^ b'-') | (u[23] ^ b'-') != 0 {
        return None;
    }
    let be = |at: usize| u64::from(u32::from_be_bytes([u[at], u[at + 1], u[at + 2], u[at + 3]]));
    // The 32 digits as four words of 8 (the groups of 4 joined in pairs), the first digit
    // in the top byte.
    let words = [
        be(0) << 32 | be(4),
        be(9) << 32 | be(14),
        be(19) << 32 | be(24),
        be(28) << 32 | be(32),
    ];
    if words.iter().fold(0, |bad, &w| bad | not_hex(w)) != 0 {
        return None;
    }
    let [a, b, c, d] = hex_values(words);
    let high = u64::from(a) << 32 | u64::from(b);
    let low = u64::from(c) << 32 | u64::from(d);
    Some((u128::from(high) << 64 | u128::from(low)).to_be_bytes())
}

/// The high bit of each byte of `w` that is not a hex digit (either case); zero when all
/// eight are. Per byte below 0x80 (no carry leaves it), adding `0x80 - lo` sets the high bit
/// exactly for bytes `>= lo`; a byte of 0x80 or more is flagged by its own high bit (what
/// its carry does to the byte above does not matter then).
#[inline(always)]
fn not_hex(w: u64) -> u64 {
    let digit = w.wrapping_add(ONES * (0x80 - 0x30)) & !w.wrapping_add(ONES * (0x80 - 0x3A));
    let lower = w | (ONES * 0x20);
    let letter =
        lower.wrapping_add(ONES * (0x80 - 0x61)) & !lower.wrapping_add(ONES * (0x80 - 0x67));
    (!(digit | letter) | w) & HIGH
}

/// [`hex_value`] of each word, out of line: the compiler does the four words two at a time
/// in vector registers there.
#[inline(never)]
fn hex_values(words: [u64; 4]) -> [u32; 4] {
    words.map(hex_value)
}

/// The 4 bytes that the 8 hex digits of `w` spell (the first digit in the top byte; every
/// byte a hex digit).
#[inline(always)]
fn hex_value(w: u64) -> u32 {
    // Digits are their low nibble; letters (bit 6 set) their low nibble plus 9.
    let nibbles = (w & (ONES * 0x0F)) + ((w >> 6) & ONES) * 9;
    // Pairs of nibbles into bytes, then the bytes together.
    let bytes = (nibbles | (nibbles >> 4)) & 0x00FF_00FF_00FF_00FF;
    let pairs = (bytes | (bytes >> 8)) & 0x0000_FFFF_0000_FFFF;
    (pairs | (pairs >> 16)) as u32
}

/// A string ID from `t[i..]` to the next '/' or the end, whose text is its content and whose
/// segment is that content (see [`is_plain_string`]): written at `seg[pos..]`, its metadata
/// at `metas[meta_len..]`; returns its length and the metadata's new length, or `None` for
/// anything else.
#[inline(always)]
fn string_id(
    t: &[u8],
    i: usize,
    seg: &mut [u8],
    pos: usize,
    metas: &mut [u8],
    mut meta_len: usize,
) -> Option<(usize, usize)> {
    let rest = t.get(i..)?;
    let len = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
    let id = &rest[..len];
    if !is_plain_string(id) {
        return None;
    }
    seg.get_mut(pos..pos + len)?.copy_from_slice(id);
    push_meta(metas, &mut meta_len, meta(len, TYPE_STRING))?;
    Some((len, meta_len))
}

/// Writes the sort-byte integer (the layout of [`crate::I65`]) at `seg[pos..]`: the sort
/// byte and the magnitude bytes, inverted for a negative number or zero, stored as one word;
/// returns its length.
#[inline(always)]
fn write_int(seg: &mut [u8], pos: usize, negative: bool, magnitude: u64) -> Option<usize> {
    // Magnitude bytes: 1..=8 (zero takes one, as 1 does).
    let k = 8 - (magnitude | 1).leading_zeros() as usize / 8;
    let (sort, stored) = if negative || magnitude == 0 {
        (SORT_BYTE_ZERO + 1 - k as u8, !magnitude)
    } else {
        (SORT_BYTE_ZERO + k as u8, magnitude)
    };
    let out = seg.get_mut(pos..pos + 9)?;
    out[0] = sort;
    out[1..].copy_from_slice(&(stored << (8 * (8 - k))).to_be_bytes());
    Some(1 + k)
}

/// Whether `id` is a string ID whose text is its content and whose segment is that content:
/// not empty, no `%` escape, no byte the binary form escapes, and not read as another ID
/// type (integers and UUIDs were tried first; a leading `~` is a byte ID).
#[inline(always)]
fn is_plain_string(id: &[u8]) -> bool {
    id.first().is_some_and(|&b| b != BYTES_PREFIX as u8)
        && id.iter().all(|&b| b > ESCAPE_MAX_RAW && b != b'%')
}

/// Appends the metadata varint `m`.
#[inline(always)]
fn push_meta(metas: &mut [u8], len: &mut usize, mut m: u64) -> Option<()> {
    while m >= 0x80 {
        *metas.get_mut(*len)? = (m as u8) | 0x80;
        *len += 1;
        m >>= 7;
    }
    *metas.get_mut(*len)? = m as u8;
    *len += 1;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word reader gives the bytes of the text from `at`, zero past its end, for texts
    /// shorter and longer than a word, at every position.
    #[test]
    fn word_at_is_the_bytes_then_zero() {
        let text: Vec<u8> = (1..=20).collect();
        for len in 0..=text.len() {
            let t = &text[..len];
            for at in 0..=len + 9 {
                let mut expected = [0u8; 8];
                for (k, e) in expected.iter_mut().enumerate() {
                    *e = t.get(at + k).copied().unwrap_or(0);
                }
                assert_eq!(word_at(t, at), u64::from_le_bytes(expected), "{len} {at}");
            }
        }
    }

    /// The digit run and value agree with reading the bytes one at a time, for every byte
    /// value at every position after runs of every length.
    #[test]
    fn digit_words_match_bytes() {
        let reference = |w: &[u8; 8]| {
            let n = w.iter().take_while(|b| b.is_ascii_digit()).count();
            let v = w[..n]
                .iter()
                .fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
            (n, v)
        };
        for base in [*b"12345678", *b"90817263", *b"00000000", *b"99999999"] {
            for at in 0..8 {
                for b in 0..=255u8 {
                    let mut w = base;
                    w[at] = b;
                    let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b'0'));
                    let n = digit_run(x);
                    assert_eq!((n, digits_value(x, n)), reference(&w), "{w:?}");
                }
            }
        }
        assert_eq!(digits_value(ONES * 0x09, 0), 0);
    }

    #[test]
    fn uuid_meta_is_the_varint() {
        let m = meta(16, super::super::binary::TYPE_UUID);
        assert_eq!(UUID_META, [(m as u8) | 0x80, (m >> 7) as u8]);
    }
}
