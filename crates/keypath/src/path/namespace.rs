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
        let mut bytes = [0u8; INLINE];
        bytes[..ns.len()].copy_from_slice(ns);
        Namespace::Inline {
            len: ns.len() as u8,
            bytes,
        }
    }

    /// [`Namespace::inline_unchecked`] for a namespace shorter than 16 bytes (every one the
    /// fast decoding path meets), with the bytes gathered by a fixed number of loads into two
    /// words instead of a variable-length copy, which is a call to `memcpy` whose byte
    /// stores the next 16-byte read of the namespace then waits on.
    #[inline(always)]
    pub(crate) fn inline_short(ns: &[u8]) -> Namespace {
        debug_assert!(!ns.is_empty() && ns.len() < 16);
        let n = ns.len();
        // Little-endian words of bytes 0..8 and 8..16, zero beyond `n`. Overlapping loads
        // read some bytes twice; OR joins them, as both copies are the same byte.
        let (lo, hi) = match (ns.first_chunk::<8>(), ns.last_chunk::<8>()) {
            (Some(first), Some(last)) => (
                u64::from_le_bytes(*first),
                // `last` is bytes n-8..n; the ones from 8 on are its top n-8.
                u64::from_le_bytes(*last)
                    .checked_shr(8 * (16 - n) as u32)
                    .unwrap_or(0),
            ),
            _ => match (ns.first_chunk::<4>(), ns.last_chunk::<4>()) {
                (Some(first), Some(last)) => (
                    u64::from(u32::from_le_bytes(*first))
                        | u64::from(u32::from_le_bytes(*last)) << (8 * (n - 4)),
                    0,
                ),
                // 1..=3 bytes: the first, the middle and the last.
                _ => (
                    u64::from(ns[0])
                        | u64::from(ns[n / 2]) << (8 * (n / 2))
                        | u64::from(ns[n - 1]) << (8 * (n - 1)),
                    0,
                ),
            },
        };
        let mut bytes = [0u8; INLINE];
        bytes[..8].copy_from_slice(&lo.to_le_bytes());
        bytes[8..16].copy_from_slice(&hi.to_le_bytes());
        Namespace::Inline {
            len: n as u8,
            bytes,
        }
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

#[cfg(test)]
mod tests {
    use super::Namespace;

    /// The word-gathering copy stores exactly what the plain copy stores, padding included,
    /// for every length it takes.
    #[test]
    fn inline_short_is_inline_unchecked() {
        let source: Vec<u8> = (b'a'..=b'z').chain(b'A'..=b'Z').collect();
        for n in 1..16 {
            for start in 0..source.len() - n {
                let ns = &source[start..start + n];
                match (Namespace::inline_short(ns), Namespace::inline_unchecked(ns)) {
                    (
                        Namespace::Inline { len, bytes },
                        Namespace::Inline {
                            len: want_len,
                            bytes: want,
                        },
                    ) => assert_eq!((len, bytes), (want_len, want), "{n} bytes at {start}"),
                    other => panic!("not inline: {other:?}"),
                }
            }
        }
    }
}
