//! Where the store keeps things in the backend's key space.
//!
//! | record            | group key                                         | sort key                  |
//! |-------------------|---------------------------------------------------|---------------------------|
//! | item `/g-1/a-2`   | encoding of `/g-1`                                | encoding of `/a-2` (`00` for the root item) |
//! | group counter (only with `group_versions`) | `00 01` ++ encoding of `/g-1` | `00`            |
//! | index entry       | `00 02` len name ++ encoding of the index group  | escaped encoding of the index path's rest ++ `00 00` ++ encoding of the base item's path |
//! | configuration     | `00 03`                                           | `00`                      |
//! | application's own | `00 FF` ++ anything                               | anything                  |
//!
//! Item group keys are key path encodings, which start with a namespace byte (an ASCII
//! letter or `_`), so every group starting with [`RESERVED_GROUP`] (`00`) is free for the
//! store's own records and never collides with items. Index entries and counters live in
//! the same backend as the items, so one atomic backend batch writes an item, its counter
//! and its index entries together (on DynamoDB: one `TransactWriteItems`).
//!
//! An index entry's sort key holds two key path encodings: first the index path after its
//! group (the *rest*; the empty path, `00`, when the index path is just its group), with
//! every `00` byte in it written as `00 FF` and then [`REST_END`] (`00 00`) after it, then
//! the base item's path as it is. The escaping keeps the byte order of rests and makes the
//! end of a rest sort below any continuation of it (`00 00` < `00 FF` < any byte from `01`),
//! so entries sort exactly by the rest's encoding, then by the item path's encoding, as item
//! keys sort by theirs; the entries of one rest are exactly the keys that start with its
//! escaped encoding and `00 00`; and every key splits back into one (rest, item path) pair,
//! even where a UUID's raw bytes make one encoding a prefix of another. The entry's value is
//! the single byte [`ENTRY_FORMAT`], or, for an index that projects whole items, a copy of
//! the item ([`ENTRY_PROJECTED`]). A keys-only entry's version is the version of the write
//! that made it (a write that keeps an index key leaves its entry alone); a projected
//! entry's is its item's.
//!
//! Group counters exist only in a store created with
//! [`StoreConfig::group_versions`](crate::StoreConfig::group_versions). Stores written by
//! an earlier release (every write bumped a counter, entries were rewritten, values kept
//! their field names) are read as they are, and their counters are then left alone; to drop
//! them, export and import.

use serde::{Deserialize, Serialize};
use sortpath::KeyPath;

use crate::backend::Key;

/// First byte of every group key the store reserves for itself.
pub const RESERVED_GROUP: u8 = 0x00;
/// Second byte of a group counter's group key.
pub const TAG_GROUP_COUNTER: u8 = 0x01;
/// Second byte of an index entry's group key.
pub const TAG_INDEX: u8 = 0x02;
/// Second byte of the group key of the store's configuration record
/// ([`StoreConfig`](crate::StoreConfig)).
pub const TAG_CONFIG: u8 = 0x03;
/// Second byte of group keys an application may use for records of its own beside the
/// store's, never met by items, counters, index entries or the configuration (the rest of
/// the group key is the application's).
pub const TAG_APPLICATION: u8 = 0xFF;
/// Sort key of a group counter record (the encoding of the empty path).
pub const COUNTER_SORT_KEY: [u8; 1] = [0x00];
/// Longest index name, in bytes (its length is stored in one byte).
pub const MAX_INDEX_NAME_LEN: usize = 64;

/// Where a group's root item (the item whose key path is the group itself, such as
/// `/customer-7` in the group of `/customer-7/order-1`) sorts among the items of its group,
/// so that one ordered query with a limit reads it together with the children an access
/// pattern wants: "the customer and their newest orders" is one reverse list of the group
/// with the root placed [`Last`](RootPlace::Last). Lists and index queries return it where
/// it is placed; ranges include it where its place falls inside them.
///
/// In the configuration it is written `"first"`, `"last"` or `{"before": "user"}`; as text
/// (`sortpath db init --root org=before:user`), `first`, `last` or `before:NAMESPACE`.
///
/// ```
/// use sortpath_store::RootPlace;
/// let place: RootPlace = "before:user".parse()?;
/// assert_eq!(place, RootPlace::Before("user".into()));
/// assert_eq!(place.to_string(), "before:user");
/// assert_eq!("last".parse::<RootPlace>()?, RootPlace::Last);
/// assert!("before:".parse::<RootPlace>().is_err());
/// # Ok::<(), sortpath_store::ConfigError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RootPlace {
    /// Before every other item of the group (the default: the order of the key paths).
    First,
    /// After every other item of the group.
    Last,
    /// After the items whose first component after the group has a namespace below this
    /// one, and before those of this namespace (and every later one).
    Before(String),
}

impl std::fmt::Display for RootPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RootPlace::First => f.write_str("first"),
            RootPlace::Last => f.write_str("last"),
            RootPlace::Before(namespace) => write!(f, "before:{namespace}"),
        }
    }
}

/// Whether `s` is a key path namespace: one or more ASCII letters or `_`.
pub(crate) fn is_namespace(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_')
}

/// Sort key of a group's root item placed [`Last`](RootPlace::Last): above every
/// key path encoding, whose first byte is `00` (the empty path) or a namespace's (an ASCII
/// letter or `_`).
pub const ROOT_LAST: [u8; 1] = [0xFF];
/// Sort key of a group's root item placed [`First`](RootPlace::First): the encoding
/// of the empty path.
pub const ROOT_FIRST: [u8; 1] = [0x00];

/// The sort key of a group's root item placed at `place`: `00` first, `FF` last, and the
/// namespace's bytes alone before a namespace (below every key whose first namespace is
/// that one, whose encodings go on with `00` or `01`, and above every key of a namespace
/// below it). Only the `00` form is a key path encoding: the others have no terminator, so
/// no item's sort key is ever one of them.
///
/// ```
/// use sortpath_store::{layout::root_sort_key, RootPlace};
/// assert_eq!(root_sort_key(&RootPlace::First), [0x00]);
/// assert_eq!(root_sort_key(&RootPlace::Last), [0xFF]);
/// assert_eq!(root_sort_key(&RootPlace::Before("user".into())), *b"user");
/// ```
pub fn root_sort_key(place: &RootPlace) -> Vec<u8> {
    match place {
        RootPlace::First => ROOT_FIRST.to_vec(),
        RootPlace::Last => ROOT_LAST.to_vec(),
        RootPlace::Before(namespace) => namespace.as_bytes().to_vec(),
    }
}

/// The place a placed root item's sort key stands for (see [`root_sort_key`]); `None` for
/// any other sort key, `00` (the root placed first, an ordinary key path encoding) included.
///
/// ```
/// use sortpath_store::{layout::placed_root, RootPlace};
/// assert_eq!(placed_root(b"user"), Some(RootPlace::Before("user".into())));
/// assert_eq!(placed_root(&[0xFF]), Some(RootPlace::Last));
/// assert_eq!(placed_root(&[0x00]), None);
/// assert_eq!(placed_root(b"user\x01\x08\x01\x00\x20\x11"), None); // /user-1
/// ```
pub fn placed_root(sort: &[u8]) -> Option<RootPlace> {
    if sort == ROOT_LAST {
        return Some(RootPlace::Last);
    }
    let namespace = std::str::from_utf8(sort).ok()?;
    is_namespace(namespace).then(|| RootPlace::Before(namespace.to_owned()))
}

/// The key path of the item stored in the group encoded as `group` at sort key `sort`: the
/// group joined with the sort key's path, or the group itself for a placed root item.
///
/// ```
/// use sortpath_store::layout::item_path_at;
/// let group = "/org-1".parse::<sortpath::KeyPath>().unwrap().encode();
/// assert_eq!(item_path_at(&group, b"user").unwrap().to_string(), "/org-1");
/// assert!(item_path_at(&group, b"user\x01").is_err());
/// ```
pub fn item_path_at(group: &[u8], sort: &[u8]) -> Result<KeyPath, sortpath::path::DecodeError> {
    match KeyPath::from_group(group, sort) {
        Ok(path) => Ok(path),
        Err(e) => match placed_root(sort) {
            Some(_) => KeyPath::from_group(group, &ROOT_FIRST),
            None => Err(e),
        },
    }
}

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

/// The key of the store's configuration record: group `00 03`, sort key `00`.
///
/// ```
/// let key = sortpath_store::layout::config_key();
/// assert_eq!((key.group.as_slice(), key.sort.as_slice()), (&[0x00, 0x03][..], &[0x00][..]));
/// ```
pub fn config_key() -> Key {
    Key::new(vec![RESERVED_GROUP, TAG_CONFIG], vec![0x00])
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
/// layout held two bytes, the item path's number of components.)
pub const ENTRY_FORMAT: u8 = 0x01;

/// First byte of the value of an entry of an index that projects whole items
/// ([`Projection::All`](crate::Projection::All)): `02`, the item type's length (one byte)
/// and name, then the item's payload as the item holds it. Its version is the item's.
pub const ENTRY_PROJECTED: u8 = 0x02;

/// An item type name and payload, as bytes.
pub(crate) type TypeAndPayload<'a> = (&'a [u8], &'a [u8]);

/// What is wrong with an index entry record: its value, its sort key, or the key paths in
/// them.
///
/// ```
/// let e = sortpath_store::layout::EntryError::Zero { at: 1 };
/// assert!(e.to_string().contains("byte 00 at 1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// A value `00 second` (`second` > 0): an entry of an earlier store layout.
    #[error(
        "value 00 {second:02x} is an index entry of an earlier store layout (copy the items \
         into a new store; with sortpath db: export, then import)"
    )]
    EarlierLayout {
        /// The value's second byte.
        second: u8,
    },
    /// A value that is neither [`ENTRY_FORMAT`] nor a projected entry.
    #[error(
        "value of {len} bytes, expected the one byte {ENTRY_FORMAT:02x} or \
         {ENTRY_PROJECTED:02x}, a type and an item"
    )]
    Value {
        /// The value's length.
        len: usize,
    },
    /// The sort key has no [`REST_END`].
    #[error("no end of the index path (00 00)")]
    NoRestEnd,
    /// A `00` byte of the sort key that is neither [`REST_END`] nor an escaped `00`.
    #[error(
        "byte 00 at {at} of the sort key is neither the end of the index path (00 00) nor an \
         escaped 00 (00 ff)"
    )]
    Zero {
        /// Its offset in the sort key.
        at: usize,
    },
    /// The index path's rest does not decode.
    #[error("index path: {0}")]
    IndexPath(sortpath::path::DecodeError),
    /// The item path does not decode.
    #[error("item path: {0}")]
    ItemPath(sortpath::path::DecodeError),
    /// A projected entry's item type is not UTF-8.
    #[error("item type is not UTF-8")]
    ItemType,
    /// The index group and the rest do not form a key path.
    #[error("index key path: {0}")]
    IndexKey(sortpath::path::PathError),
}

/// The item type and payload a projected entry's value holds, `None` for a keys-only
/// entry; an error for a value that is neither.
pub(crate) fn entry_item(value: &[u8]) -> Result<Option<TypeAndPayload<'_>>, EntryError> {
    match value {
        [ENTRY_FORMAT] => Ok(None),
        [ENTRY_PROJECTED, len, rest @ ..] if rest.len() >= usize::from(*len) && *len > 0 => {
            let (item_type, payload) = rest.split_at(usize::from(*len));
            Ok(Some((item_type, payload)))
        }
        [0x00, n] if *n > 0 => Err(EntryError::EarlierLayout { second: *n }),
        other => Err(EntryError::Value { len: other.len() }),
    }
}

/// Ends the escaped rest in an index entry's sort key.
pub const REST_END: [u8; 2] = [0x00, 0x00];
/// Follows each `00` byte of the rest in an index entry's sort key.
pub const ESCAPED_ZERO: u8 = 0xFF;
/// Sorts after every entry key of a rest (after its [`REST_END`]) and before the keys of any
/// longer rest that extends its encoding: an exclusive end or start for one rest's entries.
pub(crate) const AFTER_REST_END: [u8; 2] = [0x00, 0x01];

/// Appends `encoding` with each `00` byte followed by [`ESCAPED_ZERO`]: an order-preserving
/// image of rests' encodings, and of byte bounds over them.
pub(crate) fn escape_rest_into(encoding: &[u8], out: &mut Vec<u8>) {
    for &b in encoding {
        out.push(b);
        if b == 0x00 {
            out.push(ESCAPED_ZERO);
        }
    }
}

/// [`escape_rest_into`] a new vector.
pub(crate) fn escape_rest(encoding: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoding.len() + 4);
    escape_rest_into(encoding, &mut out);
    out
}

/// An index entry's sort key: the escaped encoding of `rest` (the index path after its
/// group), [`REST_END`], then the encoding of `base` (the item's path).
pub(crate) fn entry_sort_key(rest: &KeyPath, base: &KeyPath) -> Vec<u8> {
    let rest = rest.encode();
    let mut sort = Vec::with_capacity(rest.len() + 4 + REST_END.len() + base.encoded_len());
    escape_rest_into(&rest, &mut sort);
    sort.extend_from_slice(&REST_END);
    base.encode_into(&mut sort);
    sort
}

/// Splits an index entry's sort key into the rest and the base path, checking its value;
/// says what is wrong otherwise.
pub(crate) fn split_entry(sort: &[u8], value: &[u8]) -> Result<(KeyPath, KeyPath), EntryError> {
    entry_item(value)?;
    let (rest, base) = split_sort(sort)?;
    let rest = KeyPath::decode(&rest).map_err(EntryError::IndexPath)?;
    let base = KeyPath::decode(base).map_err(EntryError::ItemPath)?;
    Ok((rest, base))
}

/// The rest of the index path an index entry's sort key starts with (the key path after
/// its group); says what is wrong otherwise.
#[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
pub(crate) fn entry_rest(sort: &[u8]) -> Result<KeyPath, EntryError> {
    let (rest, _) = split_sort(sort)?;
    KeyPath::decode(&rest).map_err(EntryError::IndexPath)
}

/// An index entry's sort key as the unescaped encoding of the rest and the bytes after
/// [`REST_END`].
fn split_sort(sort: &[u8]) -> Result<(Vec<u8>, &[u8]), EntryError> {
    let mut rest = Vec::with_capacity(sort.len());
    let mut at = 0;
    loop {
        match sort[at..] {
            [] => return Err(EntryError::NoRestEnd),
            [0x00, ESCAPED_ZERO, ..] => {
                rest.push(0x00);
                at += 2;
            }
            [0x00, 0x00, ..] => return Ok((rest, &sort[at + REST_END.len()..])),
            [0x00, ..] => return Err(EntryError::Zero { at }),
            [b, ..] => {
                rest.push(b);
                at += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::query::tests::{any_rest, prefix_encoded_pair};

    fn p(s: &str) -> KeyPath {
        s.parse().unwrap()
    }

    #[test]
    fn entries_split_back() {
        let rest = p("/updated-7");
        let base = p("/user-1/post-2");
        let sort = entry_sort_key(&rest, &base);
        let value = [ENTRY_FORMAT];
        assert_eq!(split_entry(&sort, &value), Ok((rest.clone(), base.clone())));
        // The encoding of `/updated-7` has two `00` bytes (the terminator and, in its
        // metadata, none), each escaped; then the end, then the item path as it is.
        let mut expected = escape_rest(&rest.encode());
        assert_eq!(expected.len(), rest.encoded_len() + 1);
        expected.extend_from_slice(&[0x00, 0x00]);
        expected.extend_from_slice(&base.encode());
        assert_eq!(sort, expected);
        // The empty rest (an index path that is only its group).
        let sort = entry_sort_key(&KeyPath::new(), &base);
        assert_eq!(sort[..4], [0x00, ESCAPED_ZERO, 0x00, 0x00]);
        assert_eq!(split_entry(&sort, &value), Ok((KeyPath::new(), base)));
    }

    #[test]
    fn corrupt_entries_are_errors() {
        let sort = entry_sort_key(&p("/a-0"), &p("/u-1"));
        let value = [ENTRY_FORMAT];
        let err = |sort: &[u8], value: &[u8]| split_entry(sort, value).unwrap_err().to_string();
        assert!(err(&sort[..3], &value).contains("no end of the index path"));
        assert!(err(&[0x61, 0x00, 0x07], &value).contains("byte 00 at 1"));
        assert!(err(&[0x61, 0x00], &value).contains("byte 00 at 1"));
        assert!(err(&[0x00, 0x00], &value).starts_with("index path:"));
        let no_base = [&sort[..sort.len() - p("/u-1").encoded_len()], &[0x75][..]].concat();
        assert!(err(&no_base, &value).starts_with("item path:"));
        assert!(err(&sort, &[0x02]).contains("expected the one byte 01"));
        assert!(err(&sort, &[ENTRY_FORMAT, 0]).contains("value of 2 bytes"));
        assert!(err(&sort, &[]).contains("value of 0 bytes"));
        let old = err(&sort, &[0, 2]);
        assert!(old.contains("earlier store layout"), "{old}");
    }

    /// Pairs whose joined paths are equal (`/a-1` + `/b-2` and the empty rest +
    /// `/a-1/b-2`) have different keys, and keys sort by rest, then item path.
    #[test]
    fn entries_sort_by_rest_then_base_and_never_collide() {
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
                assert!(
                    entry_sort_key(&x.0, &x.1) < entry_sort_key(&y.0, &y.1),
                    "{x:?} {y:?}"
                );
            }
        }
    }

    /// `/a-U` and `/a-5/b-W` with UUIDs chosen so that the first's encoding is a prefix of
    /// the second's: a rest encoding followed directly by the item path would compare the
    /// item path with the longer rest. Escaped and ended, the first rest's entries come
    /// first whatever the item paths.
    #[test]
    fn a_rest_whose_encoding_is_a_prefix_of_another_sorts_first() {
        let (shorter, longer) = prefix_encoded_pair();
        for (b1, b2) in [("/u-1", "/u-2"), ("/u-2", "/u-1"), ("/_-0", "/z-9")] {
            let first = entry_sort_key(&shorter, &p(b1));
            let second = entry_sort_key(&longer, &p(b2));
            assert!(first < second, "{b1} {b2}");
            assert_eq!(
                split_entry(&first, &[ENTRY_FORMAT]),
                Ok((shorter.clone(), p(b1)))
            );
            assert_eq!(
                split_entry(&second, &[ENTRY_FORMAT]),
                Ok((longer.clone(), p(b2)))
            );
        }
    }

    proptest! {
        /// Every key splits back into its pair (so no two pairs share a key), and keys sort
        /// as the pairs of encodings (rest, item path) do, also where UUIDs make one
        /// encoding a prefix of another.
        #[test]
        fn entry_keys_split_back_and_sort(
            x in (any_rest(), any_rest()),
            y in (any_rest(), any_rest()),
        ) {
            let (kx, ky) = (entry_sort_key(&x.0, &x.1), entry_sort_key(&y.0, &y.1));
            prop_assert_eq!(split_entry(&kx, &[ENTRY_FORMAT]), Ok(x.clone()));
            prop_assert_eq!(split_entry(&ky, &[ENTRY_FORMAT]), Ok(y.clone()));
            let encodings = |(r, b): &(KeyPath, KeyPath)| (r.encode(), b.encode());
            prop_assert_eq!(kx.cmp(&ky), encodings(&x).cmp(&encodings(&y)));
        }

        /// Escaping keeps the byte order of any two byte strings, and a string ended with
        /// `REST_END` sorts before every continuation of it: bounds escaped the same way
        /// select the same rests.
        #[test]
        fn escaping_keeps_byte_order(
            a in prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, 0xfe, 0xff]), 0..6),
            b in prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, 0xfe, 0xff]), 0..6),
        ) {
            prop_assert_eq!(escape_rest(&a).cmp(&escape_rest(&b)), a.cmp(&b));
            let ended = [escape_rest(&a), REST_END.to_vec()].concat();
            let after = [escape_rest(&a), AFTER_REST_END.to_vec()].concat();
            if b.starts_with(&a) && b.len() > a.len() {
                prop_assert!(ended < escape_rest(&b));
                prop_assert!(after <= escape_rest(&b));
            }
            prop_assert!(ended < after);
        }
    }
}
