//! Writes: every put, delete, update and transaction goes through [`Store::commit`], which
//! reads the group counters and the old items, then writes counters, items and index
//! entries in one conditional backend batch, retrying when a concurrent writer won.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use sortpath::KeyPath;

use super::{backend_key, Store};
use crate::backend::{
    Backend, BackendError, Condition, IndexKeyParts, ItemParts, Key, Record, Write,
};
use crate::backoff::Backoff;
use crate::config::{StoreConfig, TypeIndexes};
use crate::envelope::{decode_index_path, encode_header_into, Header};
use crate::error::{CommitError, ConfigError, Fault, InvalidKeyError, WriteError};
use crate::item::{encode_item, encode_value, IndexMode, Item, Projection, RawItem, Versioned};
use crate::layout::RootPlace;
use crate::layout::{
    config_key, counter_group_len, counter_key, entry_sort_key, index_group, is_valid_index_name,
    ENTRY_FORMAT, ROOT_FIRST,
};
use crate::value_check;

/// How a put treats an existing item.
///
/// ```
/// assert_eq!(sortpath_store::PutMode::default(), sortpath_store::PutMode::Upsert);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PutMode {
    /// Insert or replace.
    #[default]
    Upsert,
    /// Insert only if no item exists ([`WriteError::AlreadyExists`] otherwise).
    IfAbsent,
    /// Replace only the item at exactly this version ([`WriteError::VersionMismatch`]
    /// otherwise).
    IfVersion(u64),
    /// Insert or replace, and if no item exists, give the new one this version (1 to
    /// 2^52 - 1) instead of a fresh one: how an import restores an export's versions. An
    /// existing item's version steps on as with [`PutMode::Upsert`]; a store with
    /// [`group_versions`](crate::StoreConfig::group_versions) numbers items from its group
    /// counters and ignores it.
    Restore(u64),
}

/// Attempts before a write gives up with [`WriteError::Contention`].
pub(super) const MAX_ATTEMPTS: u32 = 1000;
/// Pauses between attempts: 20 µs doubling up to 8 times, at most 5 ms.
const BACKOFF: Backoff = Backoff {
    first: Duration::from_micros(20),
    doublings: 8,
    max: Duration::from_millis(5),
};

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
    fn raw(
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

/// A transaction's read of an item it does not write: fails the commit if it changed.
#[derive(Clone, Debug)]
pub(crate) struct ReadCheck {
    pub path: KeyPath,
    pub key: Key,
    pub version: Option<u64>,
}

/// The effect of one item write of a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// An item was there before.
    pub existed: bool,
    /// The new item's version (`None` for a delete).
    pub version: Option<u64>,
}

/// What each write of a backend batch stands for, to explain a failed condition.
#[derive(PartialEq)]
enum Origin {
    Counter,
    Config,
    Item,
    Index,
    Check(usize),
}

/// A commit's backend batch, with the outcome of each item write, what each write of the
/// batch stands for, and whether the configuration record was read and found.
type Planned = (Vec<Write>, (Vec<Outcome>, Vec<Origin>, bool));

/// What a write stores, made once per commit.
struct Encoded {
    /// The encoded item (`None`: a delete).
    envelope: Option<Vec<u8>>,
    /// What the envelope is made of, for the backend (`None`: a delete).
    parts: Option<ItemParts>,
    /// The backend keys of its new index entries, in the order of its indexes.
    entries: Vec<Key>,
}

/// A commit's writes, read checks, encoded items and groups, shared with its planning.
struct Commit {
    /// Whether root items are written or checked at the first place because the store had
    /// no configuration record: the configuration is read with the records, and a record
    /// that places them elsewhere fails the commit.
    roots_unrecorded: bool,
    /// Whether a write is raw (checked against the configuration).
    raw: bool,
    /// Whether the store keeps group counters: read and bumped with the writes.
    group_versions: bool,
    /// Item types whose program indexes the configuration may not declare yet (or that it
    /// may not list as held): declared in the same atomic batch as the writes, if missing.
    declare: Vec<TypeIndexes>,
    /// Whether the store held items when it had no configuration record (read only if it
    /// has none, before the commit).
    unrecorded_items: bool,
    writes: Vec<ItemWrite>,
    checks: Vec<ReadCheck>,
    /// Per write, what it stores.
    encoded: Vec<Encoded>,
    /// The groups written, each once.
    groups: Vec<Vec<u8>>,
    /// The indexes the backend keeps itself: no entries are written or deleted for them.
    maintained: Vec<String>,
}

/// The backend batch of commit `c` from the records read (each group's counter, then each
/// written item), with the outcome of each write and what each write of the batch stands
/// for. An unmet expectation (an item present or absent, another version) is an error.
impl Commit {
    /// Whether the configuration record is read with the records (last).
    fn reads_config(&self) -> bool {
        self.raw || !self.declare.is_empty() || self.roots_unrecorded
    }

    /// Whether the configuration record is needed only to check raw writes against it:
    /// then a fresh reading of it will do (see [`Store::fresh_config_record`]), as it does
    /// for typed writes ([`Store::is_declared`]).
    fn checks_raw_only(&self) -> bool {
        self.raw && self.declare.is_empty() && !self.roots_unrecorded
    }
}

/// A new item's version when the store keeps no group counters: a fresh random number in
/// `1..2^52` (exact as a JavaScript number). An item deleted and created again gets a new
/// one, so a version read before the delete does not match the new item (but for a chance
/// of one in 2^52).
pub(crate) fn fresh_version() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    // Each `RandomState` has its own keys (random per thread, then stepped), so the hash
    // of the time is an unpredictable, unrepeated number.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.finish() % ((1 << 52) - 1) + 1
}

fn plan_commit(c: &Commit, got: &[Option<Record>]) -> Result<Planned, CommitError> {
    let counted = if c.group_versions { c.groups.len() } else { 0 };
    let (counters, olds) = got.split_at(counted);
    let (olds, config) = match c.reads_config() {
        true => {
            let (olds, config) = olds.split_at(c.writes.len());
            (olds, Some(config[0].as_ref()))
        }
        false => (olds, None),
    };
    let mut declared = None;
    let config_found = config.is_some_and(|r| r.is_some());
    if let Some(record) = config {
        let config = match record {
            Some(r) => StoreConfig::from_record(&r.value)?,
            None => StoreConfig::unrecorded(c.unrecorded_items),
        };
        if c.roots_unrecorded && record.is_some() {
            let placed = c
                .writes
                .iter()
                .map(|w| &w.path)
                .chain(c.checks.iter().map(|c| &c.path));
            for path in placed.filter(|p| p.len() == 1) {
                let place = crate::config::place_of(&config.roots, path);
                if *place != RootPlace::First {
                    return Err(ConfigError::invalid(format!(
                        "the store's configuration, created while this write was prepared, \
                         places the root item {path} {place}; nothing was written: write again"
                    ))
                    .into());
                }
            }
        }
        if c.raw {
            for (w, old) in c.writes.iter().zip(olds) {
                check_raw_write(&config, w, old.as_ref())?;
            }
        }
        let written: Vec<&str> = c
            .writes
            .iter()
            .filter_map(|w| w.new.as_ref().map(|n| n.item_type.as_str()))
            .collect();
        if let Some(more) = config.declaring(&c.declare, &written, true)? {
            if record.is_none() && c.unrecorded_items {
                // Items without a record: it may have been lost, and a new one would drop
                // what it declared. Only an explicit take-over writes one.
                return Err(ConfigError::Unrecorded.into());
            }
            declared = Some(crate::config::config_put(&more, record));
        }
    }
    let new_counter: BTreeMap<&[u8], u64> = c
        .groups
        .iter()
        .zip(counters)
        .map(|(g, c)| (g.as_slice(), c.as_ref().map_or(0, |r| r.version) + 1))
        .collect();

    let mut batch = Vec::new();
    let mut origin = Vec::new();
    let mut versions = Vec::with_capacity(c.writes.len());
    let mut touched = BTreeSet::new();
    for ((w, encoded), old) in c.writes.iter().zip(&c.encoded).zip(olds) {
        let Encoded {
            envelope,
            parts,
            entries,
        } = encoded;
        let found = old.as_ref().map(|r| r.version);
        match w.expect {
            Expect::Any => {}
            Expect::Absent if found.is_none() => {}
            Expect::Absent => {
                return Err(WriteError::AlreadyExists {
                    key: w.path.clone(),
                }
                .into())
            }
            Expect::Version(v) if found == Some(v) => {}
            Expect::Version(v) => {
                return Err(WriteError::VersionMismatch {
                    key: w.path.clone(),
                    expected: v,
                    found,
                }
                .into())
            }
            Expect::Read(v) if v == found => {}
            Expect::Read(_) => {
                return Err(CommitError::Conflict {
                    key: w.path.clone(),
                })
            }
        }
        if old.is_none() && envelope.is_none() {
            versions.push(Outcome {
                existed: false,
                version: None,
            }); // deleting nothing writes nothing
            continue;
        }
        let rebuild = w.new.as_ref().is_some_and(|n| n.rebuild);
        let version = match (c.group_versions, found) {
            // A rebuild adds index entries to an item it leaves as it is.
            (_, Some(v)) if rebuild => v,
            (true, _) => new_counter[w.key.group.as_slice()],
            (false, Some(v)) => v.wrapping_add(1).max(1),
            (false, None) => w
                .new
                .as_ref()
                .and_then(|n| n.restore)
                .unwrap_or_else(fresh_version),
        };
        if !rebuild {
            touched.insert(w.key.group.as_slice());
        }
        let condition = found.map_or(Condition::NotExists, Condition::VersionEquals);
        // Per new index entry: whether the old item has it already (then it is not written
        // again: its key says all an entry says).
        let mut kept = Vec::new();
        if let Some(r) = old {
            let new_indexes = w.new.as_ref().map_or(&[][..], |n| n.indexes.as_slice());
            let stale = match stale_entries(&r.value, new_indexes, &w.path) {
                Ok((stale, same)) => {
                    kept = same;
                    stale
                }
                // A record the store did not write has no entries: a delete removes just
                // it; a put does not replace it.
                Err(Fault::Corrupt(_)) if w.new.is_none() => Vec::new(),
                Err(Fault::Corrupt(reason)) => {
                    return Err(crate::store::not_an_item(&w.path, reason).into())
                }
                Err(e) => return Err(e.into()),
            };
            for (name, key) in stale {
                if c.maintained.contains(&name) {
                    continue;
                }
                batch.push(Write::Delete {
                    key,
                    condition: Condition::None,
                });
                origin.push(Origin::Index);
            }
        }
        for (i, key) in entries.iter().enumerate() {
            let new = w.new.as_ref().expect("only a put has new entries");
            if c.maintained.contains(&new.indexes[i].0) {
                continue; // the backend keeps it from the item's record
            }
            let projected = new.projected.contains(&new.indexes[i].0.as_str());
            // A keys-only entry whose key the old item has already is left as it is; a
            // projected entry holds the item, so it is written with it.
            if !projected && kept.get(i).copied().unwrap_or(false) {
                continue;
            }
            let value = match projected {
                true => projected_entry(&new.item_type, &new.payload),
                false => vec![ENTRY_FORMAT],
            };
            let record = Record { value, version };
            batch.push(Write::Put {
                key: key.clone(),
                record,
                condition: Condition::None,
            });
            origin.push(Origin::Index);
        }
        batch.push(match (envelope, parts) {
            (Some(value), Some(parts)) => Write::PutItem {
                key: w.key.clone(),
                record: Record {
                    value: value.clone(),
                    version,
                },
                condition,
                parts: parts.clone(),
            },
            (Some(value), None) => Write::Put {
                key: w.key.clone(),
                record: Record {
                    value: value.clone(),
                    version,
                },
                condition,
            },
            (None, _) => Write::Delete {
                key: w.key.clone(),
                condition,
            },
        });
        origin.push(Origin::Item);
        versions.push(Outcome {
            existed: old.is_some(),
            version: envelope.as_ref().map(|_| version),
        });
    }
    for (g, counter) in c.groups.iter().zip(counters) {
        if touched.contains(g.as_slice()) {
            let condition = counter.as_ref().map_or(Condition::NotExists, |r| {
                Condition::VersionEquals(r.version)
            });
            let record = Record {
                value: Vec::new(),
                version: new_counter[g.as_slice()],
            };
            batch.push(Write::Put {
                key: counter_key(g),
                record,
                condition,
            });
            origin.push(Origin::Counter);
        }
    }
    if let Some(put) = declared {
        if batch.is_empty() {
            // Nothing else is written (a delete of nothing): declare nothing either.
        } else {
            batch.push(put);
            origin.push(Origin::Config);
        }
    }
    for (i, check) in c.checks.iter().enumerate() {
        let condition = check
            .version
            .map_or(Condition::NotExists, Condition::VersionEquals);
        batch.push(Write::Check {
            key: check.key.clone(),
            condition,
        });
        origin.push(Origin::Check(i));
    }
    Ok((batch, (versions, origin, config_found)))
}

/// The backend keys of the index entries that the stored item `old` (an envelope) has and
/// its replacement, with index keys `new`, does not: the entries to delete. An old entry is
/// kept when the new item has an index of the same name whose key path encodes to the same
/// bytes (key path encodings are canonical, so that is the same key path); only the old
/// index key paths that are dropped are decoded.
/// Refuses a raw write whose item type, or the type of the item it replaces, has indexes a
/// program computes: the write's caller cannot compute them.
fn check_raw_write(
    config: &StoreConfig,
    w: &ItemWrite,
    old: Option<&Record>,
) -> Result<(), WriteError> {
    let Some(new) = w.new.as_ref().filter(|n| n.raw) else {
        return Ok(());
    };
    let old_type = match old {
        Some(r) => Some(
            Header::parse(&r.value)
                .map_err(|e| crate::store::not_an_item(&w.path, e))?
                .item_type,
        ),
        None => None,
    };
    for item_type in std::iter::once(new.item_type.as_str()).chain(old_type) {
        let indexes: Vec<String> = config
            .indexes_of(item_type)
            .filter(|d| !d.source.is_data())
            .map(|d| d.name.clone())
            .collect();
        if !indexes.is_empty() {
            return Err(WriteError::IndexedByProgram {
                key: w.path.clone(),
                item_type: item_type.to_owned(),
                indexes,
            });
        }
    }
    Ok(())
}

/// The entries of an old item that a write removes, `(index name, entry key)`, and for each
/// new index key whether the old item has it already.
type Stale = (Vec<(String, Key)>, Vec<bool>);

fn stale_entries(old: &[u8], new: &[(String, KeyPath)], base: &KeyPath) -> Result<Stale, Fault> {
    let mut stale = Vec::new();
    let mut kept = vec![false; new.len()];
    let mut encoded = Vec::new();
    for (name, at, old_path) in Header::parse(old)?.indexes {
        let same = new.iter().position(|(n, path)| {
            n == name && path.encoded_len() == old_path.len() && {
                encoded.clear();
                path.encode_into(&mut encoded);
                encoded == old_path
            }
        });
        match same {
            Some(i) => kept[i] = true,
            None => stale.push((
                name.to_owned(),
                entry_key(name, &decode_index_path(at, old_path)?, base)?,
            )),
        }
    }
    Ok((stale, kept))
}

/// The value of an entry that holds its item ([`Projection::All`]): see
/// [`ENTRY_PROJECTED`](crate::layout::ENTRY_PROJECTED).
fn projected_entry(item_type: &str, payload: &[u8]) -> Vec<u8> {
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
fn check_index_modes(
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
fn item_parts(
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

/// Waits before the next attempt of a write that lost a race. On the blocking pool rather
/// than with `tokio::time::sleep`: the pool comes with every Tokio runtime, the timer only
/// with runtimes built with `enable_time` (or `enable_all`), and a write must not panic
/// under contention on a runtime without one.
pub(super) async fn pause(attempt: u32) {
    sleep(BACKOFF.pause(attempt)).await
}

/// Waits `d` on the blocking pool, or on the calling thread without a runtime (see
/// [`pause`]).
pub(super) async fn sleep(d: std::time::Duration) {
    match tokio::runtime::Handle::try_current() {
        // A failed join (the runtime shutting down) only ends the pause early.
        Ok(rt) => drop(rt.spawn_blocking(move || std::thread::sleep(d)).await),
        // No runtime: the blocking API runs the store on its caller's thread, which waits.
        Err(_) => std::thread::sleep(d),
    }
}

impl<B: Backend> Store<B> {
    /// Inserts or replaces an item; returns its new version.
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let first = store.put(&User { id: 1 }).await.unwrap(); // a new item: a fresh version
    /// assert_eq!(store.put(&User { id: 1 }).await.unwrap(), first + 1);
    /// # });
    /// ```
    pub async fn put<T: Item>(&self, item: &T) -> Result<u64, WriteError> {
        self.put_with(item, PutMode::Upsert).await
    }

    /// Puts an item with a [`PutMode`]; returns its new version.
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// use sortpath_store::{PutMode, WriteError};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let v = store.put_with(&User { id: 1 }, PutMode::IfAbsent).await.unwrap();
    /// let again = store.put_with(&User { id: 1 }, PutMode::IfAbsent).await;
    /// assert!(matches!(again, Err(WriteError::AlreadyExists { .. })));
    /// assert!(store.put_with(&User { id: 1 }, PutMode::IfVersion(v)).await.is_ok());
    /// # });
    /// ```
    pub async fn put_with<T: Item>(&self, item: &T, mode: PutMode) -> Result<u64, WriteError> {
        let path = item
            .key_path()
            .map_err(|e| InvalidKeyError::path(format!("(key path of a {})", T::TYPE), e))?;
        let indexes = index_keys(item)?;
        let new = NewItem::typed::<T>(encode_item(&path, item)?, indexes);
        self.put_encoded(&path, new, mode).await
    }

    /// Puts a value of any serializable type at `path` with an explicit item type and index
    /// keys (`(index name, index key path)`), e.g. items that arrive as JSON. Returns the new
    /// version.
    ///
    /// ```
    /// use sortpath_store::{PutMode, Store, backend::memory::MemoryBackend};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// let path = "/ticket-7".parse().unwrap();
    /// let index = vec![("by_status".to_owned(), "/status-open/ticket-7".parse().unwrap())];
    /// store.put_raw(&path, "ticket", &serde_json::json!({"status": "open"}), index, PutMode::Upsert).await.unwrap();
    /// let raw = store.get_raw(&path).await.unwrap().unwrap();
    /// assert_eq!(raw.decode::<serde_json::Value>().unwrap()["status"], "open");
    /// # });
    /// ```
    pub async fn put_raw<V: Serialize + ?Sized>(
        &self,
        path: &KeyPath,
        item_type: &str,
        value: &V,
        indexes: Vec<(String, KeyPath)>,
        mode: PutMode,
    ) -> Result<u64, WriteError> {
        let new = NewItem::raw(item_type, encode_value(path, value)?, indexes)?;
        self.put_encoded(path, new, mode).await
    }

    /// Puts an item's encoded value exactly as given ([`RawItem::payload`], e.g. as read from
    /// another store or an export), at [`RawItem::key`] with its [`RawItem::item_type`] and
    /// the given index keys; the raw item's version is not used (`mode` says what to expect
    /// and [`PutMode::Restore`] which version to keep). The bytes must be one MessagePack
    /// value nested at most [`MAX_VALUE_NESTING`](crate::MAX_VALUE_NESTING) deep, else
    /// [`WriteError::BadValue`] and nothing is written. Returns the new version.
    ///
    /// ```
    /// use sortpath_store::{PutMode, RawItem, Store, backend::memory::MemoryBackend};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (from, to) = (Store::new(MemoryBackend::new()), Store::new(MemoryBackend::new()));
    /// let path = "/reading-1".parse().unwrap();
    /// // An f32 and an integer map key: JSON would make them an f64 and a string key.
    /// let value = (1.5f32, std::collections::BTreeMap::from([(7u8, "seven")]));
    /// from.put_raw(&path, "reading", &value, vec![], PutMode::Upsert).await.unwrap();
    /// let raw = from.get_raw(&path).await.unwrap().unwrap();
    /// to.put_raw_item(&raw, vec![], PutMode::Restore(raw.version())).await.unwrap();
    /// let copy = to.get_raw(&path).await.unwrap().unwrap();
    /// assert_eq!((copy.payload(), copy.version()), (raw.payload(), raw.version()));
    /// # });
    /// ```
    pub async fn put_raw_item(
        &self,
        item: &RawItem,
        indexes: Vec<(String, KeyPath)>,
        mode: PutMode,
    ) -> Result<u64, WriteError> {
        let new = NewItem::raw(&item.item_type, item.payload.clone(), indexes)?;
        if let Err(problem) = value_check::check(&item.payload) {
            return Err(WriteError::BadValue {
                key: item.key.clone(),
                problem,
            });
        }
        self.put_encoded(&item.key, new, mode).await
    }

    async fn put_encoded(
        &self,
        path: &KeyPath,
        mut new: NewItem,
        mode: PutMode,
    ) -> Result<u64, WriteError> {
        let (expect, restore) = match mode {
            PutMode::Upsert => (Expect::Any, None),
            PutMode::IfAbsent => (Expect::Absent, None),
            PutMode::IfVersion(v) => (Expect::Version(v), None),
            PutMode::Restore(v) if (1..1 << 52).contains(&v) => (Expect::Any, Some(v)),
            PutMode::Restore(v) => {
                return Err(InvalidKeyError::rule(
                    path.to_string(),
                    format!("version {v} to restore is not in 1 to 2^52 - 1"),
                )
                .into())
            }
        };
        new.restore = restore;
        let write = ItemWrite {
            path: path.clone(),
            key: backend_key(path)?,
            new: Some(new),
            expect,
        };
        let outcomes = self.commit_writes(vec![write]).await?;
        Ok(outcomes[0].version.unwrap_or(0))
    }

    /// Deletes the item at `path` and its index entries; returns whether it existed.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(!store.delete(&"/user-1".parse().unwrap()).await.unwrap());
    /// # });
    /// ```
    pub async fn delete(&self, path: &KeyPath) -> Result<bool, WriteError> {
        let write = ItemWrite {
            path: path.clone(),
            key: backend_key(path)?,
            new: None,
            expect: Expect::Any,
        };
        Ok(self.commit_writes(vec![write]).await?[0].existed)
    }

    /// Deletes the item at `path` only if it is at `version`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(store.delete_if_version(&"/user-1".parse().unwrap(), 3).await.is_err());
    /// # });
    /// ```
    pub async fn delete_if_version(&self, path: &KeyPath, version: u64) -> Result<(), WriteError> {
        let write = ItemWrite {
            path: path.clone(),
            key: backend_key(path)?,
            new: None,
            expect: Expect::Version(version),
        };
        self.commit_writes(vec![write]).await.map(drop)
    }

    /// Reads the item at `path`, passes it to `f` and writes what `f` returns (`None`
    /// deletes), atomically: if the item changed in between, it is read again and `f` runs
    /// again. Returns the written item, or `None` if it was deleted or stayed absent.
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize, Default)] struct Counter { id: u64, n: u64 }
    /// # impl sortpath_store::Item for Counter {
    /// #     const TYPE: &'static str = "counter";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("counter", self.id) }
    /// # }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let path = "/counter-1".parse().unwrap();
    /// for _ in 0..3 {
    ///     store.update(&path, |c: Option<Counter>| {
    ///         let mut c = c.unwrap_or(Counter { id: 1, n: 0 });
    ///         c.n += 1;
    ///         Some(c)
    ///     }).await.unwrap();
    /// }
    /// assert_eq!(store.get::<Counter>(&path).await.unwrap().unwrap().item.n, 3);
    /// # });
    /// ```
    pub async fn update<T, F>(
        &self,
        path: &KeyPath,
        mut f: F,
    ) -> Result<Option<Versioned<T>>, WriteError>
    where
        T: Item,
        F: FnMut(Option<T>) -> Option<T>,
    {
        let key = backend_key(path)?;
        for attempt in 0..MAX_ATTEMPTS {
            let current = self.get_item::<T>(path).await?;
            let expect = current
                .as_ref()
                .map_or(Expect::Read(None), |c| Expect::Read(Some(c.version)));
            let next = f(current.map(|c| c.item));
            let new = match &next {
                Some(item) => {
                    let found = item.key_path().map_err(|e| {
                        InvalidKeyError::path(format!("(key path of a {})", T::TYPE), e)
                    })?;
                    if found != *path {
                        return Err(WriteError::KeyChanged {
                            key: path.clone(),
                            found,
                        });
                    }
                    Some(NewItem::typed::<T>(
                        encode_item(path, item)?,
                        index_keys(item)?,
                    ))
                }
                None => None,
            };
            let write = ItemWrite {
                path: path.clone(),
                key: key.clone(),
                new,
                expect,
            };
            match self.commit(vec![write], Vec::new()).await {
                Ok(outcomes) => {
                    return Ok(match (next, outcomes[0].version) {
                        (Some(item), Some(version)) => Some(Versioned {
                            key: path.clone(),
                            version,
                            item,
                        }),
                        _ => None,
                    })
                }
                Err(CommitError::Conflict { .. }) => pause(attempt).await,
                Err(CommitError::Write(e)) => return Err(e),
            }
        }
        Err(WriteError::Contention {
            key: path.clone(),
            attempts: MAX_ATTEMPTS,
        })
    }

    /// Checks the sizes of a write of a new value against the limits before anything is
    /// written, and returns the backend keys of its index entries (in the order of
    /// `indexes`), each made once.
    fn check_limits(
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
    fn encode(&self, w: &ItemWrite) -> Result<Encoded, WriteError> {
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

    /// Writes items atomically with the group counters and index entries. Returns, per
    /// write, whether an item existed and the new version.
    pub(crate) async fn commit(
        &self,
        mut writes: Vec<ItemWrite>,
        mut checks: Vec<ReadCheck>,
    ) -> Result<Vec<Outcome>, CommitError> {
        // Root items go where the configuration places them. Without a configuration record
        // they are first, and the commit reads the configuration to be sure that none was
        // created meanwhile with other places.
        let mut roots_unrecorded = false;
        let root_keys = writes
            .iter_mut()
            .map(|w| (&w.path, &mut w.key))
            .chain(checks.iter_mut().map(|c| (&c.path, &mut c.key)));
        for (path, key) in root_keys {
            if key.sort == ROOT_FIRST {
                let (sort, recorded) = self.root_sort(path).await?;
                key.sort = sort;
                roots_unrecorded |= !recorded;
            }
        }
        let mut declare: Vec<TypeIndexes> = Vec::new();
        for t in writes
            .iter()
            .filter_map(|w| w.new.as_ref().and_then(|n| n.program))
        {
            if !self.is_declared(&t) && !declare.iter().any(|d| d.id == t.id) {
                declare.push(t);
            }
        }
        let maintained = self.backend.maintained_indexes();
        check_index_modes(&writes, maintained).map_err(WriteError::from)?;
        let maintained = maintained.map(<[String]>::to_vec).unwrap_or_default();
        let encoded = writes
            .iter()
            .map(|w| self.encode(w))
            .collect::<Result<Vec<_>, _>>()?;
        let groups: BTreeSet<&[u8]> = writes.iter().map(|w| w.key.group.as_slice()).collect();
        let groups: Vec<Vec<u8>> = groups.into_iter().map(<[u8]>::to_vec).collect();
        let raw = writes.iter().any(|w| w.new.as_ref().is_some_and(|n| n.raw));
        let group_versions = self.keeps_group_versions().await?;
        // Only used if the configuration record is still missing when the commit reads it.
        let unrecorded_items = match (raw || !declare.is_empty()) && !self.is_configured() {
            true => self.holds_items().await?,
            false => false,
        };
        let commit = Arc::new(Commit {
            roots_unrecorded,
            raw,
            group_versions,
            declare,
            unrecorded_items,
            writes,
            checks,
            encoded,
            groups,
            maintained,
        });
        for attempt in 0..MAX_ATTEMPTS {
            let mut keys: Vec<Key> = match commit.group_versions {
                true => commit.groups.iter().map(|g| counter_key(g)).collect(),
                false => Vec::new(),
            };
            keys.extend(commit.writes.iter().map(|w| w.key.clone()));
            // A raw write checks itself against the configuration as read within the
            // refresh time, as a typed write does; else it is read with the records.
            let known = match commit.checks_raw_only() {
                true => self.fresh_config_record(),
                false => None,
            };
            if commit.reads_config() && known.is_none() {
                keys.push(config_key());
            }
            // Planned where the backend reads (on the embedded backend, inside its write
            // transaction: one trip to the blocking pool for the whole commit).
            let planning = commit.clone();
            let read_at = std::time::Instant::now();
            if commit.reads_config() && known.is_none() {
                // The commit may change the record: the last reading is then stale.
                self.forget_config_read();
            }
            let ((versions, origin, config_found), written) = self
                .backend
                .read_then_write(keys, move |mut got| {
                    if let Some(record) = known {
                        got.push(Some(record));
                    }
                    plan_commit(&planning, &got)
                })
                .await?;
            if origin.contains(&Origin::Config) {
                // It wrote the record, or tried to: the reading it used is stale either way.
                self.forget_config_read();
            }
            match written {
                Ok(()) => {
                    if config_found || origin.contains(&Origin::Config) {
                        self.set_configured();
                    }
                    self.mark_declared(&commit.declare, origin.contains(&Origin::Config), read_at);
                    return Ok(versions);
                }
                Err(BackendError::ConditionFailed { index, .. }) => match origin.get(index) {
                    Some(Origin::Check(i)) => {
                        return Err(CommitError::Conflict {
                            key: commit.checks[*i].path.clone(),
                        })
                    }
                    // A concurrent writer of the group won: read again and retry.
                    Some(Origin::Counter | Origin::Item | Origin::Index | Origin::Config)
                    | None => pause(attempt).await,
                },
                Err(e) => return Err(e.into()),
            }
        }
        let key = commit
            .writes
            .first()
            .map(|w| w.path.clone())
            .unwrap_or_default();
        Err(WriteError::Contention {
            key,
            attempts: MAX_ATTEMPTS,
        }
        .into())
    }

    /// [`Store::commit`] of writes that read nothing first (no `Expect::Read`, no checks),
    /// which only a read can make conflict.
    pub(crate) async fn commit_writes(
        &self,
        writes: Vec<ItemWrite>,
    ) -> Result<Vec<Outcome>, WriteError> {
        debug_assert!(writes.iter().all(|w| !matches!(w.expect, Expect::Read(_))));
        match self.commit(writes, Vec::new()).await {
            Ok(outcomes) => Ok(outcomes),
            Err(CommitError::Write(e)) => Err(e),
            // Unreachable without reads; reported as what it would mean, another writer won.
            Err(CommitError::Conflict { key }) => Err(WriteError::Contention { key, attempts: 1 }),
        }
    }
}

#[cfg(test)]
mod tests;
