//! Namespace storage: short namespaces (almost all of them) live inline, so building and
//! decoding key paths does not allocate per component.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// `NAMESPACE_BYTE[b]` is whether byte `b` may appear in a namespace (ASCII letter or `_`).
const NAMESPACE_BYTE: [bool; 256] = {
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

/// Longest namespace stored inline.
const INLINE: usize = 22;

/// A validated namespace (ASCII letters and `_`), inline when short.
#[derive(Clone)]
pub(crate) enum Namespace {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl Namespace {
    /// Stores `ns`, which the caller has validated.
    pub(crate) fn new(ns: &str) -> Namespace {
        if ns.len() <= INLINE {
            Namespace::inline_unchecked(ns.as_bytes())
        } else {
            Namespace::Heap(ns.into())
        }
    }
}

impl Namespace {
    /// Whether `ns` is a valid namespace (ASCII letters and `_`, not empty) short enough to
    /// be stored inline.
    #[inline]
    pub(crate) fn fits_inline(ns: &[u8]) -> bool {
        ns.len() <= INLINE && is_valid(ns)
    }

    /// Stores `ns`, which [`Namespace::fits_inline`] accepted. Meant to be built where it is
    /// stored (e.g. inside a `push`), so the bytes are written once, in place.
    #[inline(always)]
    pub(crate) fn inline_unchecked(ns: &[u8]) -> Namespace {
        debug_assert!(ns.len() <= INLINE);
        Namespace::from_words(ns.len(), inline_words(ns))
    }

    /// Stores the first `len` bytes of `bytes`, which [`Namespace::fits_inline`] accepted.
    /// When `bytes` goes on far enough past them (a namespace read out of an encoding, which
    /// always has bytes after it), it is loaded in whole words and the bytes past `len`
    /// masked off, without the overlapping loads of [`Namespace::inline_unchecked`].
    #[inline(always)]
    pub(crate) fn inline_prefix(bytes: &[u8], len: usize) -> Namespace {
        debug_assert!(len <= INLINE && len <= bytes.len());
        // The low `n` bytes of `w` (0 <= n <= 8).
        let keep = |w: u64, n: usize| w & u64::MAX.checked_shr(8 * (8 - n) as u32).unwrap_or(0);
        let words = match (bytes.first_chunk::<16>(), bytes.first_chunk::<8>()) {
            (Some(b), _) if len <= 16 => {
                let (lo, hi) = (word_ending_at(b, 8), word_ending_at(b, 16));
                [keep(lo, len.min(8)), keep(hi, len.saturating_sub(8)), 0]
            }
            (_, Some(b)) if len <= 8 => [keep(u64::from_le_bytes(*b), len), 0, 0],
            _ => inline_words(&bytes[..len]),
        };
        Namespace::from_words(len, words)
    }

    /// The inline namespace of `len` bytes held in `words` (zero past `len`).
    #[inline(always)]
    fn from_words(len: usize, [w0, w1, w2]: [u64; 3]) -> Namespace {
        let mut bytes = [0u8; INLINE];
        bytes[..8].copy_from_slice(&w0.to_le_bytes());
        bytes[8..16].copy_from_slice(&w1.to_le_bytes());
        bytes[16..].copy_from_slice(&w2.to_le_bytes()[..INLINE - 16]);
        Namespace::Inline {
            len: len as u8,
            bytes,
        }
    }

    /// A copy of the inline namespace `len`, `bytes`, moved in three word-sized pieces at
    /// fixed offsets (the last two overlap). A plain copy moves the variant's 23 bytes after
    /// the tag as pieces of 7 and 16 bytes, and where the compiler keeps the 7 in a
    /// temporary, it writes them as two overlapping 4-byte stores and reads them back across
    /// both: a store-forwarding stall.
    #[inline(always)]
    pub(crate) fn inline_copy(len: u8, bytes: &[u8; INLINE]) -> Namespace {
        let word = |at: usize| word_ending_at(bytes, at + 8);
        let (w0, w1, w2) = (word(0), word(8), word(INLINE - 8));
        let mut copy = [0u8; INLINE];
        copy[..8].copy_from_slice(&w0.to_le_bytes());
        copy[8..16].copy_from_slice(&w1.to_le_bytes());
        copy[INLINE - 8..].copy_from_slice(&w2.to_le_bytes());
        Namespace::Inline { len, bytes: copy }
    }

    /// Validates and stores namespace bytes (ASCII letters and `_`), or `None` if invalid.
    pub(crate) fn from_bytes(ns: &[u8]) -> Option<Namespace> {
        if !is_valid(ns) {
            return None;
        }
        if ns.len() <= INLINE {
            Some(Namespace::inline_unchecked(ns))
        } else {
            std::str::from_utf8(ns)
                .ok()
                .map(|s| Namespace::Heap(s.into()))
        }
    }

    /// The bytes, without a UTF-8 check (the hot paths of encoding and comparing use this).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Namespace::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Namespace::Heap(s) => s.as_bytes(),
        }
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.as_bytes().len()
    }
}

/// `ns` (at most [`INLINE`] bytes) as three little-endian words, zero past its end, read
/// with loads of fixed size: overlapping ones where the length is not a multiple of the
/// load, the overlap shifted out.
#[inline(always)]
fn inline_words(ns: &[u8]) -> [u64; 3] {
    let n = ns.len();
    let word_to = |end: usize| word_ending_at(ns, end);
    match n {
        17.. => [word_to(8), word_to(16), word_to(n) >> (8 * (24 - n))],
        9..=16 => [word_to(8), word_to(n) >> (8 * (16 - n)), 0],
        8 => [word_to(8), 0, 0],
        4..=7 => {
            let half = |at: usize| {
                u64::from(u32::from_le_bytes([
                    ns[at],
                    ns[at + 1],
                    ns[at + 2],
                    ns[at + 3],
                ]))
            };
            // The overlapping bytes are the same in both halves, so OR joins them.
            [half(0) | half(n - 4) << (8 * (n - 4)), 0, 0]
        }
        1..=3 => {
            let (first, mid, last) = (u64::from(ns[0]), u64::from(ns[n / 2]), u64::from(ns[n - 1]));
            [first | mid << (8 * (n / 2)) | last << (8 * (n - 1)), 0, 0]
        }
        0 => [0, 0, 0],
    }
}

/// The 8 bytes of `bytes` that end at `end`, as a little-endian word.
#[inline(always)]
fn word_ending_at(bytes: &[u8], end: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[end - 8..end]);
    u64::from_le_bytes(w)
}

impl Deref for Namespace {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            // Only ASCII is ever stored, so the slice is valid UTF-8.
            Namespace::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Namespace::Heap(s) => s,
        }
    }
}

impl PartialEq for Namespace {
    fn eq(&self, other: &Namespace) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Namespace {}

impl Hash for Namespace {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl fmt::Debug for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
