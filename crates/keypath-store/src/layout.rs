//! Where the store keeps things in the backend's key space.
//!
//! | record            | group key                                         | sort key                  |
//! |-------------------|---------------------------------------------------|---------------------------|
//! | item `/g-1/a-2`   | encoding of `/g-1`                                | encoding of `/a-2` (`00` for the root item) |
//! | group counter     | `00 01` ++ encoding of `/g-1`                     | `00`                      |
//! | index entry       | `00 02` len name ++ encoding of the index group  | encoding of the index path's rest ++ the base item's path |
//!
//! Item group keys are key path encodings, which start with a namespace byte (an ASCII
//! letter or `_`), so every group starting with [`RESERVED_GROUP`] (`00`) is free for the
//! store's own records and never collides with items. Index entries and counters live in
//! the same backend as the items, so one atomic backend batch writes an item, its counter
//! and its index entries together (on DynamoDB: one `TransactWriteItems`).
//!
//! An index entry's sort key is the encoding of one key path: the components of the index
//! path after its group, then every component of the base item's path. Entries therefore
//! sort by index path, ties broken by base path, and key path ranges over the index path
//! select whole subtrees of entries. The entry's value is the number of base components.

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

/// The key path whose encoding is an index entry's sort key: the index path's components
/// after the group, then the base path's components. `None` if the result is not a valid
/// path (a namespace-only component in the middle).
pub(crate) fn entry_path(index_rest: &KeyPath, base: &KeyPath) -> Option<KeyPath> {
    index_rest.join(base).ok()
}

/// Splits an entry path into the index path's rest and the base path (its last `base_len`
/// components, at least one: the base item's group).
pub(crate) fn split_entry_path(entry: &KeyPath, base_len: usize) -> Option<(KeyPath, KeyPath)> {
    if base_len == 0 {
        return None;
    }
    entry.split_at(entry.len().checked_sub(base_len)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_paths_split_back() {
        let rest: KeyPath = "/updated-7".parse().unwrap();
        let base: KeyPath = "/user-1/post-2".parse().unwrap();
        let entry = entry_path(&rest, &base).unwrap();
        assert_eq!(entry.to_string(), "/updated-7/user-1/post-2");
        assert_eq!(split_entry_path(&entry, 2), Some((rest, base)));
        // A stored base length of 0 or beyond the path is corrupt data.
        assert_eq!(split_entry_path(&entry, 0), None);
        assert_eq!(split_entry_path(&entry, 4), None);
    }
}
