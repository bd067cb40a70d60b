//! `Ord` for IDs. (A key path's order is the byte order of its encoding, derived.)

use std::cmp::Ordering;

use super::binary::id_type_code;
use super::id::Id;

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

impl Ord for Id {
    /// Same-type IDs in their natural order; integers before strings before byte strings
    /// (this is the order of key paths that differ only in these IDs). A UUID against
    /// another type: by their encoded bytes, and for equal bytes by type (integer, string,
    /// bytes, UUID). Key paths order such a pair by the bytes that follow too (see
    /// `docs/FORMAT.md`, rule 6), so no ID order can agree with them there; this one is a
    /// total order, equal only for equal IDs.
    ///
    /// ```
    /// use sortpath::Id;
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
