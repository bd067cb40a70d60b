//! `Ord` for key paths and IDs: the logical order, equal to the byte order of the encoding.

use std::cmp::Ordering;

use super::binary::{encode_components, id_type_code};
use super::id::Id;
use super::{Component, KeyPath};

/// Rank of ID types whose encodings occupy disjoint first-byte ranges:
/// integers `00..=0F`, strings `10..=F4`, byte strings `FF`.
fn rank(id: &Id) -> Option<u8> {
    match id {
        Id::Int(_) => Some(0),
        Id::Str(_) => Some(1),
        Id::Bytes(_) => Some(2),
        Id::Uuid(_) => None,
    }
}

/// Compares two IDs by the rules of their types, or `None` when one is a UUID and the other
/// is not: UUIDs keep their raw bytes, so such pairs are ordered by their encodings.
fn cmp_ids(a: &Id, b: &Id) -> Option<Ordering> {
    Some(match (a, b) {
        (Id::Int(x), Id::Int(y)) => x.cmp(y),
        (Id::Str(x), Id::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Id::Bytes(x), Id::Bytes(y)) => x.cmp(y),
        (Id::Uuid(x), Id::Uuid(y)) => x.cmp(y),
        _ => rank(a)?.cmp(&rank(b)?),
    })
}

impl Ord for KeyPath {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_components(&self.components, &other.components)
    }
}

/// The order of the paths made of components `x` and `y` (what [`KeyPath::cmp`] gives).
pub(crate) fn cmp_components(x: &[Component], y: &[Component]) -> Ordering {
    for (a, b) in x.iter().zip(y) {
        let by_namespace = a.namespace.as_bytes().cmp(b.namespace.as_bytes());
        if by_namespace != Ordering::Equal {
            return by_namespace;
        }
        let by_id = match (&a.id, &b.id) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(i), Some(j)) => match cmp_ids(i, j) {
                Some(order) => order,
                // No ID order agrees with the bytes here: the encodings decide.
                None => return encode_components(x).cmp(&encode_components(y)),
            },
        };
        if by_id != Ordering::Equal {
            return by_id;
        }
    }
    x.len().cmp(&y.len())
}

impl PartialOrd for KeyPath {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Id {
    /// Same-type IDs in their natural order; integers before strings before byte strings
    /// (this is the order of key paths that differ only in these IDs). A UUID against
    /// another type: by their encoded bytes, and for equal bytes by type (integer, string,
    /// bytes, UUID). Key paths order such a pair by the bytes that follow too (see
    /// `docs/FORMAT.md`, rule 6), so no ID order can agree with them there; this one is a
    /// total order, equal only for equal IDs.
    ///
    /// ```
    /// use keypath::Id;
    /// let text = Id::from("aaaaaaaaaaaaaaaa");
    /// let uuid = Id::Uuid(*b"aaaaaaaaaaaaaaaa"); // the same 16 bytes
    /// assert!(text < uuid);
    /// assert!(Id::from(1u64) < Id::from("a") && Id::from("a") < Id::Bytes(vec![]));
    /// ```
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_ids(self, other).unwrap_or_else(|| {
            let mut a = Vec::new();
            let mut b = Vec::new();
            super::binary::encode_id(self, &mut a);
            super::binary::encode_id(other, &mut b);
            a.cmp(&b)
                .then_with(|| id_type_code(self).cmp(&id_type_code(other)))
        })
    }
}

impl PartialOrd for Id {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
