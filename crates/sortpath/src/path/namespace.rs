//! The namespace rule: one or more ASCII letters or `_`.

/// `NAMESPACE_BYTE[b]` is whether byte `b` may appear in a namespace (ASCII letter or `_`).
pub(crate) const NAMESPACE_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphabetic() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether `ns` is a namespace: one or more ASCII letters or `_`.
#[inline]
pub(crate) fn is_valid(ns: &[u8]) -> bool {
    !ns.is_empty() && ns.iter().all(|&b| NAMESPACE_BYTE[usize::from(b)])
}

/// Length of the namespace at the start of `text`: how many bytes from the start are ASCII
/// letters or `_`.
#[inline]
pub(crate) fn prefix_len(text: &[u8]) -> usize {
    text.iter()
        .position(|&b| !NAMESPACE_BYTE[usize::from(b)])
        .unwrap_or(text.len())
}

/// Each byte of a word: `ONES * b` is `b` in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const HIGH: u64 = ONES * 0x80;

/// Whether the bytes of `word` (little-endian: byte 0 is the first) whose high bit is set in
/// `lanes` are all namespace bytes. Eight bytes at a time, with the same answer as
/// [`NAMESPACE_BYTE`] (a test compares them for every byte at every position): a letter is a
/// byte below `0x80` that is `a..=z` once bit 5 is set, or it is `_`.
#[inline(always)]
fn word_is_namespace(word: u64, lanes: u64) -> bool {
    word_mask(word) & lanes == lanes
}

/// The high bit of each byte of `word` that is a namespace byte (see [`word_is_namespace`]).
#[inline(always)]
fn word_mask(word: u64) -> u64 {
    const LOW7: u64 = ONES * 0x7F;
    // Per byte, below 0x80 so no carry leaves it: its high bit after adding 0x1F is
    // `x >= 0x61`, after adding 0x05 it is `x >= 0x7B`.
    let x = (word | (ONES * 0x20)) & LOW7;
    let letter = (x + ONES * 0x1F) & !(x + ONES * 0x05);
    // The high bit of a byte of `nonzero` is whether that byte of `t` is not zero.
    let t = word ^ (ONES * u64::from(b'_'));
    let nonzero = ((t & LOW7) + LOW7) | t;
    (letter | !nonzero) & !word & HIGH
}

/// How many of the bytes of `word` (little-endian: byte 0 is the first), from the first,
/// are namespace bytes: 0 to 8.
#[inline(always)]
pub(crate) fn word_prefix_len(word: u64) -> usize {
    let bad = !word_mask(word) & HIGH;
    (bad.trailing_zeros() / 8) as usize
}

/// Whether the first `n` bytes of `word` (8 bytes, `1 <= n <= 8`) are a namespace: the
/// answer of [`is_valid`] for `&word[..n]`.
#[inline(always)]
pub(crate) fn word_prefix_is_namespace(word: &[u8], n: usize) -> bool {
    match word.first_chunk::<8>() {
        Some(w) => word_is_namespace(u64::from_le_bytes(*w), HIGH >> (8 * (8 - n))),
        None => is_valid(word.get(..n).unwrap_or_default()),
    }
}

/// [`is_valid`] of `bytes[start..end]` (which the caller keeps in bounds, `start <= end`),
/// a word at a time: a namespace shorter than 8 bytes is read as the 8 bytes from `start`
/// when `bytes` has them (the bytes after it are masked out), else byte by byte.
#[inline(always)]
pub(crate) fn is_valid_at(bytes: &[u8], start: usize, end: usize) -> bool {
    let n = end.wrapping_sub(start);
    let word_at = |at: usize| {
        bytes
            .get(at..)
            .and_then(|rest| rest.first_chunk::<8>())
            .map(|w| u64::from_le_bytes(*w))
    };
    match n {
        1..=8 => match word_at(start) {
            Some(w) => word_is_namespace(w, HIGH >> (8 * (8 - n))),
            None => is_valid(bytes.get(start..end).unwrap_or_default()),
        },
        0 => false,
        _ => {
            // Whole words, then the last 8 bytes (overlapping the previous word).
            let mut at = start;
            while at + 8 < end {
                match word_at(at) {
                    Some(w) if word_is_namespace(w, HIGH) => at += 8,
                    _ => return false,
                }
            }
            matches!(word_at(end - 8), Some(w) if word_is_namespace(w, HIGH))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time check agrees with the table for every byte value at every
    /// position of namespaces of 1 to 20 bytes, with and without bytes after them.
    #[test]
    fn word_check_matches_table() {
        for n in 1..=20usize {
            for at in 0..n {
                for b in 0..=255u8 {
                    for tail in [0usize, 3, 8] {
                        let mut bytes = vec![b'a'; n + tail];
                        bytes[n..].fill(b'!');
                        bytes[at] = b;
                        let want = is_valid(&bytes[..n]);
                        assert_eq!(is_valid_at(&bytes, 0, n), want, "{bytes:?} {n}");
                        if let (Some(word), true) = (bytes.get(..8), n <= 8) {
                            assert_eq!(word_prefix_is_namespace(word, n), want, "{bytes:?} {n}");
                        }
                        let mut shifted = vec![b'Z'];
                        shifted.extend_from_slice(&bytes);
                        assert_eq!(is_valid_at(&shifted, 1, n + 1), want, "{shifted:?} {n}");
                    }
                }
            }
        }
        assert!(!is_valid_at(b"abc", 1, 1));
        for at in 0..8 {
            for b in 0..=255u8 {
                let mut word = *b"abcdefgh";
                word[at] = b;
                let want = prefix_len(&word);
                assert_eq!(word_prefix_len(u64::from_le_bytes(word)), want, "{word:?}");
            }
        }
        assert!(is_valid_at(b"_", 0, 1));
    }
}
