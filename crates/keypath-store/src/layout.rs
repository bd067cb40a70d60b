//! Where the store keeps things in the backend's key space.
//!
//! | record            | group key                                         | sort key                  |
//! |-------------------|---------------------------------------------------|---------------------------|
//! | item `/g-1/a-2`   | encoding of `/g-1`                                | encoding of `/a-2` (`00` for the root item) |
//! | group counter     | `00 01` ++ encoding of `/g-1`                     | `00`                      |
//! | index entry       | `00 02` len name ++ encoding of the index group  | encoding of the index path's rest ++ encoding of the base item's path ++ that encoding's length (2 bytes) |
//!
//! Item group keys are key path encodings, which start with a namespace byte (an ASCII
//! letter or `_`), so every group starting with [`RESERVED_GROUP`] (`00`) is free for the
//! store's own records and never collides with items. Index entries and counters live in
//! the same backend as the items, so one atomic backend batch writes an item, its counter
//! and its index entries together (on DynamoDB: one `TransactWriteItems`).
//!
//! An index entry's sort key is two whole key path encodings one after the other, then the
//! length of the second as two big-endian bytes: the index path after its group (the
//! *rest*; the empty path, `00`, when the index path is just its group), then the base
//! item's path. The rest's encoding ends with its terminator and metadata, which sort below
//! any continuation of it into a longer rest, so entries sort by rest (a rest before the
//! rests that extend it), ties broken by base path; the entries of one rest are exactly the
//! keys that start with its encoding. The length makes the split part of the key: two
//! different (rest, base) pairs never share a key, even where UUID IDs, whose 16 raw bytes
//! may hold anything, make one encoding a prefix of another (without UUIDs no encoding is a
//! prefix of another, and the length never decides the order). The entry's value is the
//! single byte [`ENTRY_FORMAT`].

use keypath::KeyPath;

use crate::backend::Key;

/// First byte of every group key the store reserves for itself.
pub const RESERVED_GROUP: u8 = 0x00;
/// Second byte of a group counter's group key.
pub const TAG_GROUP_COUNTER: u8 = 0x01;
/// Second byte of an index entry's group key.
pub const TAG_INDEX: u8 = 0x02;
/// Sort key of a group counter record (the encoding of the empty path).
pub const COUNTER_SORT_KEY: [u8; 1] = [0x00];
/// Longest index name, in bytes (its length is stored in one byte).
pub const MAX_INDEX_NAME_LEN: usize = 64;

/// Bytes a counter's group key adds in front of its item group.
const COUNTER_GROUP_PREFIX: [u8; 2] = [RESERVED_GROUP, TAG_GROUP_COUNTER];

/// The key of the version counter of the item group `group`.
pub(crate) fn counter_key(group: &[u8]) -> Key {
    let mut g = Vec::with_capacity(counter_group_len(group));
    g.extend_from_slice(&COUNTER_GROUP_PREFIX);
    g.extend_from_slice(group);
    Key::new(g, COUNTER_SORT_KEY.to_vec())
}

/// The length of [`counter_key`]`(group)`'s group key: the longest group key a write to
/// `group` makes.
pub(crate) fn counter_group_len(group: &[u8]) -> usize {
    COUNTER_GROUP_PREFIX.len() + group.len()
}

/// Checks an index name: 1 to [`MAX_INDEX_NAME_LEN`] ASCII letters, digits or `_`.
pub(crate) fn is_valid_index_name(name: &str) -> bool {
    (1..=MAX_INDEX_NAME_LEN).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The backend group of index `name` for the index group key `index_group` (an encoding).
/// The caller has checked the name.
pub(crate) fn index_group(name: &str, index_group: &[u8]) -> Vec<u8> {
    let mut g = Vec::with_capacity(3 + name.len() + index_group.len());
    g.extend_from_slice(&[RESERVED_GROUP, TAG_INDEX, name.len() as u8]);
    g.extend_from_slice(name.as_bytes());
    g.extend_from_slice(index_group);
    g
}

/// An index entry's value: the layout of entries described above. (Entries of an earlier
/// layout held two bytes.)
pub const ENTRY_FORMAT: u8 = 0x01;

/// Bytes of the base path length at the end of an index entry's sort key.
const BASE_LEN_BYTES: usize = 2;

/// Longest base item path encoding an index entry can hold.
pub(crate) const MAX_ENTRY_BASE_LEN: usize = u16::MAX as usize;

/// An index entry's sort key: the encoding of `rest` (the index path after its group), then
/// that of `base` (the item's path), then the latter's length. `None` if `base`'s encoding
/// is longer than [`MAX_ENTRY_BASE_LEN`].
pub(crate) fn entry_sort_key(rest: &KeyPath, base: &KeyPath) -> Option<Vec<u8>> {
    let base_len = u16::try_from(base.encoded_len()).ok()?;
    let mut sort = Vec::with_capacity(rest.encoded_len() + usize::from(base_len) + BASE_LEN_BYTES);
    rest.encode_into(&mut sort);
    base.encode_into(&mut sort);
    sort.extend_from_slice(&base_len.to_be_bytes());
    Some(sort)
}

/// Splits an index entry's sort key into the rest and the base path, checking its value;
/// says what is wrong otherwise.
pub(crate) fn split_entry(sort: &[u8], value: &[u8]) -> Result<(KeyPath, KeyPath), String> {
    match value {
        [ENTRY_FORMAT] => {}
        [a, b] => {
            return Err(format!(
                "value {a:02x} {b:02x} is an index entry of an earlier store layout (put the \
                 items again to write their entries anew)"
            ))
        }
        other => return Err(format!("value of {} bytes, expected 1", other.len())),
    }
    let Some((paths, len)) = sort.split_last_chunk::<BASE_LEN_BYTES>() else {
        return Err(format!("sort key of {} bytes", sort.len()));
    };
    let base_len = usize::from(u16::from_be_bytes(*len));
    let Some(rest_len) = paths.len().checked_sub(base_len) else {
        return Err(format!(
            "item path of {base_len} bytes in a sort key of {}",
            sort.len()
        ));
    };
    let (rest, base) = paths.split_at(rest_len);
    let rest = KeyPath::decode(rest).map_err(|e| format!("index path: {e}"))?;
    let base = KeyPath::decode(base).map_err(|e| format!("item path: {e}"))?;
    Ok((rest, base))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::query::tests::any_rest;

    fn key(rest: &KeyPath, base: &KeyPath) -> Vec<u8> {
        entry_sort_key(rest, base).unwrap()
    }

    #[test]
    fn entries_split_back() {
        let rest: KeyPath = "/updated-7".parse().unwrap();
        let base: KeyPath = "/user-1/post-2".parse().unwrap();
        let sort = key(&rest, &base);
        let value = [ENTRY_FORMAT];
        assert_eq!(split_entry(&sort, &value), Ok((rest, base.clone())));
        // The empty rest (an index path that is only its group).
        let sort = key(&KeyPath::new(), &base);
        assert_eq!(sort[0], 0x00);
        assert_eq!(split_entry(&sort, &value), Ok((KeyPath::new(), base)));
        // Corrupt values and lengths are errors, not panics.
        let mut long = sort.clone();
        *long.last_mut().unwrap() = u8::try_from(sort.len()).unwrap();
        assert!(split_entry(&long, &value)
            .unwrap_err()
            .contains("item path of"));
        let mut short = sort.clone();
        *short.last_mut().unwrap() -= 1;
        assert!(split_entry(&short, &value).is_err());
        assert!(split_entry(&[0x00], &value)
            .unwrap_err()
            .contains("sort key of 1 bytes"));
        assert!(split_entry(&sort, &[0x02]).is_err());
        assert!(split_entry(&sort, &[ENTRY_FORMAT, 0]).is_err());
        let old = split_entry(&sort, &[0, 2]).unwrap_err();
        assert!(old.contains("earlier store layout"), "{old}");
    }

    #[test]
    fn a_base_path_beyond_the_length_field_has_no_entry() {
        let long = KeyPath::new()
            .push("a", "x".repeat(MAX_ENTRY_BASE_LEN))
            .unwrap();
        assert!(long.encoded_len() > MAX_ENTRY_BASE_LEN);
        assert_eq!(entry_sort_key(&KeyPath::new(), &long), None);
    }

    /// The bytes of (rest, base) pairs sort as the pairs do, and different pairs never make
    /// the same bytes: a rest and a base path that a layout joining them into one path
    /// could not tell apart (`/a-1` + `/b-2` and the empty rest + `/a-1/b-2`).
    #[test]
    fn entries_sort_by_rest_then_base_and_never_collide() {
        let p = |s: &str| s.parse::<KeyPath>().unwrap();
        let pairs = [
            (KeyPath::new(), p("/a-1/b-2")),
            (KeyPath::new(), p("/z-1")),
            (p("/a-1"), p("/b-2")),
            (p("/a-1"), p("/c-0")),
            (p("/a-1/b-2"), p("/a-0")),
            (p("/a-2"), p("/a-0")),
        ];
        for (i, x) in pairs.iter().enumerate() {
            for y in &pairs[i + 1..] {
                let (kx, ky) = (key(&x.0, &x.1), key(&y.0, &y.1));
                assert!(kx < ky, "{x:?} {y:?}");
                assert!(!ky.starts_with(&x.0.encode()) || x.0 == y.0, "{x:?} {y:?}");
            }
        }
    }

    /// A UUID's raw bytes can make one key path encoding a prefix of another's (here `/a-U`
    /// of `/a-5/b-W`), so two encodings one after the other do not say where the first
    /// ends: the key must.
    #[test]
    fn uuids_make_one_encoding_a_prefix_of_another() {
        let uuid = |bytes: &[u8]| keypath::Id::Uuid(bytes.try_into().unwrap());
        // `/a-U` is `a 01`, U, then `00` and its metadata (4 bytes in all).
        let end_of_a_uuid =
            KeyPath::new().push("a", uuid(&[0; 16])).unwrap().encode()[18..].to_vec();
        // `/a-5/b-W` is `a 01 08 05 01 b 01`, then W from byte 7: put that end in W so that
        // it lands at byte 18.
        let mut w = [0x11; 16];
        w[11..15].copy_from_slice(&end_of_a_uuid);
        let longer = KeyPath::new()
            .push("a", 5u64)
            .unwrap()
            .push("b", uuid(&w))
            .unwrap();
        let enc = longer.encode();
        let shorter = KeyPath::new().push("a", uuid(&enc[2..18])).unwrap();
        assert!(enc.starts_with(&shorter.encode()), "{shorter} {longer}");
        // As rests, both keep keys of their own that split back.
        let base: KeyPath = "/z-1".parse().unwrap();
        assert_ne!(key(&shorter, &base), key(&longer, &base));
        for rest in [shorter, longer] {
            assert_eq!(
                split_entry(&key(&rest, &base), &[ENTRY_FORMAT]),
                Ok((rest, base.clone()))
            );
        }
    }

    proptest! {
        /// Every key splits back into its pair, so no two pairs share a key; keys of
        /// different rests sort as their rests' encodings where neither is a prefix of the
        /// other, and keys of one rest as their base paths' encodings likewise.
        #[test]
        fn entry_keys_split_back_and_sort(
            pairs in prop::collection::vec((any_rest(), any_rest()), 2..4),
        ) {
            let keys: Vec<Vec<u8>> = pairs.iter().map(|(r, b)| key(r, b)).collect();
            for ((rest, base), k) in pairs.iter().zip(&keys) {
                prop_assert_eq!(split_entry(k, &[ENTRY_FORMAT]), Ok((rest.clone(), base.clone())));
            }
            let (x, y) = (&pairs[0], &pairs[1]);
            let (rx, ry) = (x.0.encode(), y.0.encode());
            if !rx.starts_with(&ry) && !ry.starts_with(&rx) {
                prop_assert_eq!(keys[0].cmp(&keys[1]), rx.cmp(&ry));
            } else if x.0 == y.0 {
                let (bx, by) = (x.1.encode(), y.1.encode());
                if !bx.starts_with(&by) && !by.starts_with(&bx) {
                    prop_assert_eq!(keys[0].cmp(&keys[1]), bx.cmp(&by));
                }
            }
        }
    }
}
