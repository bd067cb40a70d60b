//! The comparisons a scan makes on every record it reads, against its group and its far
//! bound: each prepared once per scan, so that a record's check is a few word compares
//! rather than calls to `bcmp` and `memcmp` (key paths are short: a group of one component
//! is mostly under 17 bytes, a bound's first eight bytes mostly decide).

use std::cmp::Ordering;

/// `bytes == group`, with short groups compared as two overlapping words.
#[inline(always)]
pub(super) fn same_group(bytes: &[u8], group: &[u8]) -> bool {
    if bytes.len() != group.len() {
        return false;
    }
    match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(b0), Some(b1)) if bytes.len() <= 16 => {
            group.first_chunk::<8>() == Some(b0) && group.last_chunk::<8>() == Some(b1)
        }
        _ => bytes == group,
    }
}

/// A scan's far bound, for [`FarBound::cmp`]: its first (up to) eight bytes as a
/// big-endian word, zero-padded, and the mask of the bytes that are its own.
#[derive(Clone, Copy)]
pub(super) struct FarBound<'a> {
    bytes: &'a [u8],
    word: u64,
    mask: u64,
}

impl<'a> FarBound<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        let n = bytes.len().min(8);
        let mut word = [0u8; 8];
        word[..n].copy_from_slice(&bytes[..n]);
        FarBound {
            bytes,
            word: u64::from_be_bytes(word),
            mask: u64::MAX.checked_shl(8 * (8 - n) as u32).unwrap_or(0),
        }
    }

    /// `key.cmp(bound)`. A key of at least eight bytes is decided by its first eight when
    /// they differ from the bound's in the bound's own bytes (the big-endian order of the
    /// masked words is the byte order of those bytes), and is greater when it extends a
    /// bound shorter than eight bytes; any other is compared byte by byte.
    #[inline(always)]
    pub(super) fn cmp(&self, key: &[u8]) -> Ordering {
        if let Some(first) = key.first_chunk::<8>() {
            let first = u64::from_be_bytes(*first) & self.mask;
            if first != self.word {
                return first.cmp(&self.word);
            }
            if self.bytes.len() < 8 {
                return Ordering::Greater;
            }
        }
        key.cmp(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()],
            0..20,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::test_cases(50_000)))]

        /// Both agree with the slices' own comparisons, also on keys that share a prefix
        /// with the bound or the group (the second key is the first one's prefix, cut).
        #[test]
        fn agree_with_slices(a in bytes(), b in bytes(), cut in 0usize..20, share in any::<bool>()) {
            let b = if share { [&a[..cut.min(a.len())], &b[..]].concat() } else { b };
            prop_assert_eq!(FarBound::new(&b).cmp(&a), a.cmp(&b));
            prop_assert_eq!(FarBound::new(&a).cmp(&b), b.cmp(&a));
            prop_assert_eq!(same_group(&a, &b), a == b);
            let same = a.clone();
            prop_assert!(same_group(&a, &same));
            prop_assert_eq!(FarBound::new(&a).cmp(&same), Ordering::Equal);
        }
    }
}
