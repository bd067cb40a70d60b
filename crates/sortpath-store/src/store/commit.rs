//! The commit engine: every put, delete, update and transaction goes through
//! [`Store::commit`], which reads the group counters and the old items, then writes
//! counters, items and index entries in one conditional backend batch, retrying when a
//! concurrent writer won.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use sortpath::KeyPath;

use super::encode::{check_index_modes, entry_key, projected_entry, Encoded, Expect, ItemWrite};
use super::Store;
use crate::backend::{Backend, BackendError, Condition, Key, Record, Write};
use crate::backoff::Backoff;
use crate::config::{StoreConfig, TypeIndexes};
use crate::envelope::{decode_index_path, Header};
use crate::error::{CommitError, ConfigError, Fault, WriteError};
use crate::layout::RootPlace;
use crate::layout::{config_key, counter_key, ENTRY_FORMAT, ROOT_FIRST};

/// Attempts before a write gives up with [`WriteError::Contention`].
pub(super) const MAX_ATTEMPTS: u32 = 1000;
/// Pauses between attempts: 20 µs doubling up to 8 times, at most 5 ms.
pub(super) const BACKOFF: Backoff = Backoff {
    first: Duration::from_micros(20),
    doublings: 8,
    max: Duration::from_millis(5),
};

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
pub(super) enum Origin {
    Counter,
    Config,
    Item,
    Index,
    Check(usize),
}

/// A commit's backend batch, with the outcome of each item write, what each write of the
/// batch stands for, and whether the configuration record was read and found.
pub(super) type Planned = (Vec<Write>, (Vec<Outcome>, Vec<Origin>, bool));

/// A commit's writes, read checks, encoded items and groups, shared with its planning.
pub(super) struct Commit {
    /// Whether root items are written or checked at the first place because the store had
    /// no configuration record: the configuration is read with the records, and a record
    /// that places them elsewhere fails the commit.
    pub(super) roots_unrecorded: bool,
    /// Whether a write is raw (checked against the configuration).
    pub(super) raw: bool,
    /// Whether the store keeps group counters: read and bumped with the writes.
    pub(super) group_versions: bool,
    /// Item types whose program indexes the configuration may not declare yet (or that it
    /// may not list as held): declared in the same atomic batch as the writes, if missing.
    pub(super) declare: Vec<TypeIndexes>,
    /// Whether the store held items when it had no configuration record (read only if it
    /// has none, before the commit).
    pub(super) unrecorded_items: bool,
    /// Whether this store had seen its configuration record when it planned the commit: a
    /// record missing then was lost (the store never removes it).
    pub(super) known_configured: bool,
    pub(super) writes: Vec<ItemWrite>,
    pub(super) checks: Vec<ReadCheck>,
    /// Per write, what it stores.
    pub(super) encoded: Vec<Encoded>,
    /// The groups written, each once.
    pub(super) groups: Vec<Vec<u8>>,
    /// The indexes the backend keeps itself: no entries are written or deleted for them.
    pub(super) maintained: Vec<String>,
}

impl Commit {
    /// Whether the configuration record is read with the records (last).
    pub(super) fn reads_config(&self) -> bool {
        self.raw || !self.declare.is_empty() || self.roots_unrecorded
    }

    /// Whether the configuration record is needed only to check raw writes against it:
    /// then a fresh reading of it will do (see [`Store::fresh_config_record`]), as it does
    /// for typed writes ([`Store::is_declared`]).
    pub(super) fn checks_raw_only(&self) -> bool {
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

/// The backend batch of commit `c` from the records read (each group's counter, then each
/// written item), with the outcome of each write and what each write of the batch stands
/// for. An unmet expectation (an item present or absent, another version) is an error.
pub(super) fn plan_commit(c: &Commit, got: &[Option<Record>]) -> Result<Planned, CommitError> {
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
        if record.is_none() && c.known_configured {
            // The record this store saw is gone (damage, or a hand-made delete): a write
            // now would be checked against no declaration, and one that declares would
            // record a configuration without the indexes the lost one declared.
            return Err(ConfigError::Unrecorded.into());
        }
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

/// Refuses a raw write whose item type, or the type of the item it replaces, has indexes a
/// program computes: the write's caller cannot compute them.
pub(super) fn check_raw_write(
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
pub(super) type Stale = (Vec<(String, Key)>, Vec<bool>);

/// The backend keys of the index entries that the stored item `old` (an envelope) has and
/// its replacement, with index keys `new`, does not: the entries to delete. An old entry is
/// kept when the new item has an index of the same name whose key path encodes to the same
/// bytes (key path encodings are canonical, so that is the same key path); only the old
/// index key paths that are dropped are decoded.
pub(super) fn stale_entries(
    old: &[u8],
    new: &[(String, KeyPath)],
    base: &KeyPath,
) -> Result<Stale, Fault> {
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
            known_configured: self.is_configured(),
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
