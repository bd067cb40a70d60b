//! Key ranges from tuple prefixes.

use serde::Serialize;

use super::{to_vec, Error};
use crate::KeyRange;

/// The exact byte range of all keys whose leading fields equal `prefix`.
///
/// Pass the leading fields as a tuple (e.g. `&(tenant_id,)` or `&(tenant_id, Desc(day))`),
/// with the same types (and `Desc` wrapping) as the full key. Because every encoded value
/// is prefix-free, a key lies in the range exactly when its leading fields decode to
/// `prefix`: `("ab",)` does not match keys starting with `"abc"`. The result is the crate's
/// one byte-range type, [`KeyRange`] ([`KeyRange::from_prefix`] of the encoded prefix), which
/// `BTreeMap<Vec<u8>, _>::range` takes directly:
///
/// ```
/// use std::collections::BTreeMap;
/// use sortpath::codec::{prefix_range, to_vec};
/// let mut map = BTreeMap::new();
/// for key in [(6u64, "z"), (7, "a"), (7, "b"), (8, "a")] {
///     map.insert(to_vec(&key).unwrap(), key);
/// }
/// let range = prefix_range(&(7u64,)).unwrap();
/// let hits: Vec<_> = map.range::<[u8], _>(range).map(|(_, v)| *v).collect();
/// assert_eq!(hits, [(7, "a"), (7, "b")]);
/// ```
///
/// ```
/// use sortpath::codec::{prefix_range, to_vec};
/// let range = prefix_range(&(7u64,)).unwrap();
/// assert!(range.contains(&to_vec(&(7u64, "anything", 1.5f64)).unwrap()));
/// assert!(!range.contains(&to_vec(&(8u64, "")).unwrap()));
/// ```
pub fn prefix_range<T: ?Sized + Serialize>(prefix: &T) -> Result<KeyRange, Error> {
    Ok(KeyRange::from_prefix(to_vec(prefix)?))
}
