//! A write as the store describes it ([`ItemWrite`]: the item, what it expects of the one it
//! replaces) and its encoding: the envelope, the index entries and the parts a backend
//! keeps, checked against the limits. The commit engine (`commit.rs`) takes these.

use sortpath::KeyPath;

use super::Store;
use crate::backend::{Backend, IndexKeyParts, ItemParts, Key};
use crate::config::TypeIndexes;
use crate::envelope::encode_header_into;
use crate::error::{ConfigError, InvalidKeyError, WriteError};
use crate::item::{IndexMode, Item, Projection};
use crate::layout::{counter_group_len, entry_sort_key, index_group, is_valid_index_name};
use crate::value_check;

/// What a write requires of the item it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    Any,
    Absent,
    Version(u64),
    /// A transaction read the item at this version (`None`: absent); otherwise a conflict.
    Read(Option<u64>),
}

/// A new item value, encoded, with its index keys.
#[derive(Clone, Debug)]
pub(crate) struct NewItem {
    pub item_type: String,
    pub payload: Vec<u8>,
    /// `(index name, index key path)` in the order given; the commit rejects a repeated
    /// name and stores them sorted by name.
    pub indexes: Vec<(String, KeyPath)>,
    /// For an item of a Rust type: the declarations its write needs (its type, its program
    /// indexes).
    pub program: Option<TypeIndexes>,
    /// Written as data (`put_raw`), with index keys the caller computed: refused for item
    /// types whose indexes a program computes (checked in the commit, against the
    /// configuration it reads).
    pub raw: bool,
    /// The version to give it if it is new ([`PutMode::Restore`]).
    pub restore: Option<u64>,
    /// The indexes whose entries hold a copy of the item ([`Projection::All`]).
    pub projected: Vec<&'static str>,
    /// The indexes the item's type asks the table to keep ([`IndexMode::Table`]).
    pub table_kept: Vec<&'static str>,
    /// Whether the write only adds the index entries the stored item lacks (an index
    /// build, [`Store::build_indexes`]): the item keeps its version and its value.
    pub rebuild: bool,
}

impl NewItem {
    /// An item of the Rust type `T`, encoded as `payload`, with its index keys.
    pub(crate) fn typed<T: Item>(payload: Vec<u8>, indexes: Vec<(String, KeyPath)>) -> NewItem {
        NewItem {
            item_type: T::TYPE.to_owned(),
            payload,
            indexes,
            program: Some(TypeIndexes::of::<T>()),
            raw: false,
            restore: None,
            projected: projected_indexes::<T>(),
            table_kept: table_kept_indexes::<T>(),
            rebuild: false,
        }
    }

    /// An item given as data ([`Store::put_raw`], [`Store::put_raw_item`]): its type, its
    /// encoded value and its index keys, whose names are checked.
    pub(super) fn raw(
        item_type: &str,
        payload: Vec<u8>,
        indexes: Vec<(String, KeyPath)>,
    ) -> Result<NewItem, WriteError> {
        if let Some((name, _)) = indexes.iter().find(|(name, _)| !is_valid_index_name(name)) {
            return Err(WriteError::InvalidIndexName { name: name.clone() });
        }
        Ok(NewItem {
            item_type: item_type.to_owned(),
            payload,
            indexes,
            program: None,
            raw: true,
            restore: None,
            projected: Vec::new(),
            table_kept: Vec::new(),
            rebuild: false,
        })
    }
}

/// One item write of a commit: `new: None` deletes.
#[derive(Clone, Debug)]
pub(crate) struct ItemWrite {
    pub path: KeyPath,
    pub key: Key,
    pub new: Option<NewItem>,
    pub expect: Expect,
}

/// What a write stores, made once per commit.
pub(super) struct Encoded {
    /// The encoded item (`None`: a delete).
    pub(super) envelope: Option<Vec<u8>>,
    /// What the envelope is made of, for the backend (`None`: a delete).
    pub(super) parts: Option<ItemParts>,
    /// The backend keys of its new index entries, in the order of its indexes.
    pub(super) entries: Vec<Key>,
}

/// The value of an entry that holds its item ([`Projection::All`]): see
/// [`ENTRY_PROJECTED`](crate::layout::ENTRY_PROJECTED).
pub(super) fn projected_entry(item_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(2 + item_type.len() + payload.len());
    v.push(crate::layout::ENTRY_PROJECTED);
    v.push(item_type.len() as u8);
    v.extend_from_slice(item_type.as_bytes());
    v.extend_from_slice(payload);
    v
}

/// The names of `T`'s indexes whose entries hold the item.
pub(crate) fn projected_indexes<T: Item>() -> Vec<&'static str> {
    T::INDEXES
        .iter()
        .filter(|i| i.projection == Projection::All)
        .map(|i| i.name)
        .collect()
}

/// The names of `T`'s indexes kept by the table ([`IndexMode::Table`]).
pub(crate) fn table_kept_indexes<T: Item>() -> Vec<&'static str> {
    T::INDEXES
        .iter()
        .filter(|i| i.mode == IndexMode::Table)
        .map(|i| i.name)
        .collect()
}

/// Checks that the item types of `writes` ask the backend to keep exactly the indexes it
/// keeps (`maintained`, `None` for a backend that keeps none: then every index is exact).
pub(super) fn check_index_modes(
    writes: &[ItemWrite],
    maintained: Option<&[String]>,
) -> Result<(), ConfigError> {
    let Some(maintained) = maintained else {
        return Ok(());
    };
    for new in writes.iter().filter_map(|w| w.new.as_ref()) {
        let Some(program) = new.program else {
            continue;
        };
        for (name, _) in &new.indexes {
            let asked = new.table_kept.contains(&name.as_str());
            let kept = maintained.contains(name);
            if asked != kept {
                let (expected, found) = match asked {
                    true => (
                        "kept by the table (IndexMode::Table)",
                        "no GSI for it in the table",
                    ),
                    false => ("exact (IndexMode::Exact)", "a GSI for it in the table"),
                };
                return Err(ConfigError::invalid(format!(
                    "index {name} of item type {}: the type declares it {expected}, found {found} \
                     (the table's sortpath GSIs: {maintained:?}; create the table with the \
                     index's GSI, or change the declaration)",
                    program.item_type
                )));
            }
        }
    }
    Ok(())
}

/// What the envelope of `new` is made of ([`ItemParts`]): its header ends at
/// `payload_start`; the index key paths of the indexes `names` (the header's order) sit at
/// `paths`; `entries` are the keys of their exact entries, in the order of `new.indexes`,
/// whose partition (after the index tag and name) and sort key are the index keys' parts.
pub(super) fn item_parts(
    new: &NewItem,
    payload_start: usize,
    names: &[&str],
    paths: Vec<std::ops::Range<usize>>,
    entries: &[Key],
) -> ItemParts {
    let index_keys = names
        .iter()
        .zip(paths)
        .map(|(name, path)| {
            let at = new
                .indexes
                .iter()
                .position(|(n, _)| n == name)
                .expect("the header lists the item's indexes");
            let entry = &entries[at];
            IndexKeyParts {
                index: (*name).to_owned(),
                path,
                // The entry's partition: TAG_INDEX's two bytes, the name's length and the
                // name, then the group's encoding.
                partition: entry.group[3 + name.len()..].to_vec(),
                sort: entry.sort.clone(),
            }
        })
        .collect();
    ItemParts {
        item_type: new.item_type.clone(),
        payload_start,
        index_keys,
    }
}

/// The backend key of an index entry.
pub(crate) fn entry_key(
    name: &str,
    index_path: &KeyPath,
    base: &KeyPath,
) -> Result<Key, InvalidKeyError> {
    let key = || format!("{index_path} (index {name} of item {base})");
    let (group, rest) = index_path
        .split_group_paths()
        .map_err(|e| InvalidKeyError::path(key(), e))?;
    if rest.segments().any(|c| c.id_type().is_none()) {
        return Err(InvalidKeyError::rule(
            key(),
            "every component of an index key path needs an ID",
        ));
    }
    Ok(Key {
        group: index_group(name, &group.encode()),
        sort: entry_sort_key(&rest, base),
    })
}

/// Computes a typed item's index keys.
pub(crate) fn index_keys<T: Item>(item: &T) -> Result<Vec<(String, KeyPath)>, WriteError> {
    let mut out = Vec::new();
    for index in T::INDEXES {
        if !is_valid_index_name(index.name) {
            return Err(WriteError::InvalidIndexName {
                name: index.name.to_owned(),
            });
        }
        let key = (index.key)(item).map_err(|e| {
            InvalidKeyError::path(format!("(index {} of a {})", index.name, T::TYPE), e)
        })?;
        if let Some(k) = key {
            out.push((index.name.to_owned(), k));
        }
    }
    Ok(out)
}

impl<B: Backend> Store<B> {
    /// Checks the sizes of a write of a new value against the limits before anything is
    /// written, and returns the backend keys of its index entries (in the order of
    /// `indexes`), each made once.
    pub(super) fn check_limits(
        &self,
        w: &ItemWrite,
        indexes: &[(String, KeyPath)],
        envelope_len: usize,
    ) -> Result<Vec<Key>, WriteError> {
        let l = self.limits;
        // `what` is spelled out only for the error.
        let too_large = |what: &dyn Fn() -> String, found: usize, limit: usize| {
            if found > limit {
                Err(WriteError::TooLarge {
                    what: what(),
                    key: w.path.clone(),
                    found,
                    limit,
                })
            } else {
                Ok(())
            }
        };
        too_large(
            &|| "group key".into(),
            counter_group_len(&w.key.group),
            l.max_group_key,
        )?;
        too_large(&|| "sort key".into(), w.key.sort.len(), l.max_sort_key)?;
        too_large(&|| "value".into(), envelope_len, l.max_value)?;
        let mut entries = Vec::with_capacity(indexes.len());
        for (name, path) in indexes {
            let k = entry_key(name, path, &w.path)?;
            too_large(
                &|| format!("index {name} group key"),
                k.group.len(),
                l.max_group_key,
            )?;
            too_large(
                &|| format!("index {name} sort key"),
                k.sort.len(),
                l.max_sort_key,
            )?;
            entries.push(k);
        }
        Ok(entries)
    }

    /// Encodes the new envelope of a write and makes the backend keys of its new index
    /// entries, checking its shape and the limits.
    pub(super) fn encode(&self, w: &ItemWrite) -> Result<Encoded, WriteError> {
        let Some(new) = &w.new else {
            // A delete writes no new key or value, so the limits do not apply: an item
            // written under raised limits can still be deleted under the defaults.
            return Ok(Encoded {
                envelope: None,
                parts: None,
                entries: Vec::new(),
            });
        };
        if let Err(problem) = value_check::check_encoded(&new.payload) {
            return Err(WriteError::BadValue {
                key: w.path.clone(),
                problem,
            });
        }
        let invalid =
            |reason: String| WriteError::from(InvalidKeyError::rule(w.path.to_string(), reason));
        if new.item_type.is_empty() || new.item_type.len() > 255 {
            return Err(invalid(format!(
                "item type {:?} must be 1 to 255 bytes",
                new.item_type
            )));
        }
        if new.indexes.len() > 255 {
            return Err(invalid(format!(
                "{} index keys; at most 255 per item",
                new.indexes.len()
            )));
        }
        for (i, (name, path)) in new.indexes.iter().enumerate() {
            if new.indexes[..i].iter().any(|(earlier, _)| earlier == name) {
                return Err(invalid(format!("index {name} is given twice")));
            }
            if path.encoded_len() > usize::from(u16::MAX) {
                return Err(invalid(format!(
                    "index {name}'s key path is over 65535 bytes"
                )));
            }
        }
        // The envelope lists the index keys by name, whatever order they came in.
        let mut sorted: Vec<(&str, &KeyPath)> =
            new.indexes.iter().map(|(n, p)| (n.as_str(), p)).collect();
        sorted.sort_unstable_by_key(|&(name, _)| name);
        let mut out = Vec::with_capacity(new.payload.len() + 64);
        let names: Vec<&str> = match self.backend.wants_item_parts() {
            true => sorted.iter().map(|&(name, _)| name).collect(),
            false => Vec::new(),
        };
        let paths = encode_header_into(&new.item_type, sorted.into_iter(), &mut out);
        let payload_start = out.len();
        out.extend_from_slice(&new.payload);
        let entries = self.check_limits(w, &new.indexes, out.len())?;
        // Made only for a backend that stores items by their parts.
        let parts = self
            .backend
            .wants_item_parts()
            .then(|| item_parts(new, payload_start, &names, paths, &entries));
        Ok(Encoded {
            envelope: Some(out),
            parts,
            entries,
        })
    }
}
