//! Key ranges from tuple prefixes.

use std::ops::{Bound, RangeBounds};

use serde::Serialize;

use super::{to_vec, Error};

/// The byte range holding exactly the keys that start with one encoded prefix.
///
/// `start` is the prefix itself (inclusive); `end` is the smallest byte string greater than
/// every extension of the prefix (exclusive), or `None` when no such string exists (the
/// prefix is empty or all `0xFF`). Usable directly with `BTreeMap<Vec<u8>, _>::range`.
///
/// ```
/// use std::collections::BTreeMap;
/// use keypath::codec::{prefix_range, to_vec};
/// let mut map = BTreeMap::new();
/// for key in [(6u64, "z"), (7, "a"), (7, "b"), (8, "a")] {
///     map.insert(to_vec(&key).unwrap(), key);
/// }
/// let range = prefix_range(&(7u64,)).unwrap();
/// let hits: Vec<_> = map.range(range).map(|(_, v)| *v).collect();
/// assert_eq!(hits, [(7, "a"), (7, "b")]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyRange {
    start: Vec<u8>,
    end: Option<Vec<u8>>,
}

impl KeyRange {
    /// The range of all keys starting with the bytes `prefix`.
    ///
    /// ```
    /// let r = keypath::codec::KeyRange::from_prefix(vec![0x61, 0xFF]);
    /// assert_eq!(r.start(), [0x61, 0xFF]);
    /// assert_eq!(r.end(), Some(&[0x62][..]));
    /// ```
    pub fn from_prefix(prefix: Vec<u8>) -> KeyRange {
        let end = prefix.iter().rposition(|&b| b != 0xFF).map(|i| {
            let mut end = prefix[..=i].to_vec();
            end[i] += 1;
            end
        });
        KeyRange { start: prefix, end }
    }

    /// The inclusive lower bound: the encoded prefix.
    ///
    /// ```
    /// let r = keypath::codec::prefix_range(&(7u64,)).unwrap();
    /// assert_eq!(r.start(), [0x08, 0x07]);
    /// ```
    pub fn start(&self) -> &[u8] {
        &self.start
    }

    /// The exclusive upper bound, `None` when the range is unbounded above.
    ///
    /// ```
    /// let r = keypath::codec::prefix_range(&(7u64,)).unwrap();
    /// assert_eq!(r.end(), Some(&[0x08, 0x08][..]));
    /// ```
    pub fn end(&self) -> Option<&[u8]> {
        self.end.as_deref()
    }

    /// Whether `key` starts with the prefix (equivalently: lies in the range).
    ///
    /// ```
    /// use keypath::codec::{prefix_range, to_vec};
    /// let r = prefix_range(&("ab",)).unwrap();
    /// assert!(r.contains(&to_vec(&("ab", 1u64)).unwrap()));
    /// assert!(!r.contains(&to_vec(&("abc", 1u64)).unwrap()));
    /// ```
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && self.end.as_deref().is_none_or(|end| key < end)
    }
}

impl RangeBounds<[u8]> for KeyRange {
    fn start_bound(&self) -> Bound<&[u8]> {
        Bound::Included(&self.start)
    }
    fn end_bound(&self) -> Bound<&[u8]> {
        self.end
            .as_deref()
            .map_or(Bound::Unbounded, Bound::Excluded)
    }
}

/// The exact byte range of all keys whose leading fields equal `prefix`.
///
/// Pass the leading fields as a tuple (e.g. `&(tenant_id,)` or `&(tenant_id, Desc(day))`),
/// with the same types (and `Desc` wrapping) as the full key. Because every encoded value
/// is prefix-free, a key lies in the range exactly when its leading fields decode to
/// `prefix`: `("ab",)` does not match keys starting with `"abc"`.
///
/// ```
/// use keypath::codec::{prefix_range, to_vec};
/// let range = prefix_range(&(7u64,)).unwrap();
/// assert!(range.contains(&to_vec(&(7u64, "anything", 1.5f64)).unwrap()));
/// assert!(!range.contains(&to_vec(&(8u64, "")).unwrap()));
/// ```
pub fn prefix_range<T: ?Sized + Serialize>(prefix: &T) -> Result<KeyRange, Error> {
    Ok(KeyRange::from_prefix(to_vec(prefix)?))
}
