//! Model-based checking of a [`Store`]: random operation sequences run against the store and
//! against [`Model`], a plain in-memory model, and must agree after every step, down to the
//! exact records in the backend (items, group counters and every index entry, byte for byte).
//!
//! The operations ([`Op`]) cover plain and conditional puts (only-if-absent, only-if-version
//! with the right and a wrong version), deletes (plain and only-if-version), read-modify-write
//! [`Store::update`]s that move items in both indexes, transactions over several groups (with
//! an interfering writer that must make them conflict), lists resumed by cursor in both
//! directions, and queries of both secondary indexes of [`Ticket`].
//!
//! Nothing here is specific to a backend: [`run_ops`] takes a [`Store`] over any
//! [`Backend`], so a new backend is checked by pointing it at a fresh store. A [`Model`] made
//! with [`Model::new`] and a *space* other than 0 keeps to its own groups, so many runs can
//! share one backend (e.g. one DynamoDB table).
//!
//! [`ops_from_bytes`] turns arbitrary bytes into operations (the `store_model` fuzz target
//! uses it); [`random_ops`] makes a seeded sequence.
//!
//! ```
//! use sortpath_store::backend::memory::MemoryBackend;
//! use sortpath_store::conformance::model::{random_ops, run_ops};
//! use sortpath_store::Store;
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let store = Store::new(MemoryBackend::new());
//! let model = run_ops(&store, &random_ops(7, 30)).await;
//! // The backend holds exactly what the model implies, nothing else.
//! assert_eq!(store.backend().snapshot().into_iter().collect::<std::collections::BTreeMap<_, _>>(),
//!            model.records());
//! # });
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::ops::Bound;

use sortpath::path::{IdRef, PathError};
use sortpath::{Id, KeyPath};

use crate::backend::{Backend, BackendError, Key, Record};
use crate::{
    CommitError, GetError, InvalidKeyError, Item, PutMode, Query, Store, StoreError, WriteError,
};

mod ops;
mod plan;
mod run;

pub use run::run_ops;

use ops::status_id;
pub use ops::{
    by_status, by_updated, ops_from_bytes, random_ops, Op, PutKind, Ticket, IDS, MAX_OPS, OWNERS,
    STATUSES, UPDATED,
};

/// What an operation returned, in a form both the store and the model produce.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// A put: its version, or why it was refused.
    Put(Result<u64, Refused>),
    /// A delete: whether the ticket existed.
    Deleted(bool),
    /// A conditional delete: whether it was done.
    DeletedIf(bool),
    /// An update: the ticket written and its version (`None`: absent).
    Updated(Option<(Ticket, u64)>),
    /// A transaction: what each read saw, then the new versions or the conflicting key.
    Txn(
        Vec<Option<(Ticket, u64)>>,
        Result<BTreeMap<KeyPath, Option<u64>>, KeyPath>,
    ),
    /// A list or index query: every item of every page, in order.
    Listed(Vec<(KeyPath, Ticket, u64)>),
}

impl Outcome {
    /// The outcome with placeholder versions replaced by those `learnt` says they stand for.
    fn learn(self, learnt: &BTreeMap<u64, u64>) -> Outcome {
        let real = |v: u64| match unknown_parts(v) {
            Some((j, plus)) => learnt.get(&j).map_or(v, |base| base.wrapping_add(plus)),
            None => v,
        };
        match self {
            Outcome::Put(Ok(v)) => Outcome::Put(Ok(real(v))),
            Outcome::Updated(Some((t, v))) => Outcome::Updated(Some((t, real(v)))),
            Outcome::Txn(seen, Ok(versions)) => Outcome::Txn(
                seen,
                Ok(versions
                    .into_iter()
                    .map(|(k, v)| (k, v.map(real)))
                    .collect()),
            ),
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    AlreadyExists,
    VersionMismatch,
}

/// The in-memory model of a store holding [`Ticket`]s: items with their versions, the
/// versions of their index entries and the group counters, for one *space* (a disjoint set
/// of groups).
///
/// A store without group counters (the default; [`Model::new`]) gives a new item a random
/// version. The model cannot know it in advance: it stands for it with a placeholder
/// (unknown number `j`, plus the updates since) and learns the number from the store's
/// answer ([`Model::run_op`]) or from the records ([`Model::settled`]), checking that an
/// item created again never gets a version its key had before. [`Model::counted`] models a
/// store with [`group_versions`](crate::StoreConfig::group_versions), where every version
/// is known in advance.
///
/// ```
/// use sortpath_store::conformance::model::{Model, Op, PutKind, Ticket};
/// use sortpath_store::{backend::memory::MemoryBackend, Store};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// let mut model = Model::new(0);
/// let ticket = Ticket { owner: 1, id: 2, updated_at: 0, status: None, title: "t".into() };
/// model.run_op(&store, &Op::Put { ticket, kind: PutKind::IfAbsent }, 0).await.unwrap();
/// assert_eq!(model.len(), 1);
/// model.check(store.backend(), "after one put").await;
/// # });
/// ```
#[derive(Clone, Debug, Default)]
pub struct Model {
    space: u64,
    items: BTreeMap<KeyPath, (Ticket, u64)>,
    /// The version of each item's index entries, by item and index name: the version of
    /// the write that made the entry (a write that keeps an index key keeps its entry).
    entries: BTreeMap<(KeyPath, &'static str), u64>,
    /// Group counters by absolute owner (only with `group_versions`).
    counters: BTreeMap<u64, u64>,
    /// Whether a ticket was ever written: the store's configuration then declares the
    /// ticket type's program indexes (in the same atomic write as that first ticket).
    declared: bool,
    /// Whether the store keeps group counters.
    group_versions: bool,
    /// The next placeholder number for an unknown version.
    next_unknown: u64,
    /// Every version each key has had, to check that none comes back.
    history: BTreeMap<KeyPath, BTreeSet<u64>>,
}

impl PartialEq for Model {
    /// The same space, items, entries, counters and configuration (placeholders and
    /// history aside).
    fn eq(&self, other: &Model) -> bool {
        (
            self.space,
            &self.items,
            &self.entries,
            &self.counters,
            self.declared,
        ) == (
            other.space,
            &other.items,
            &other.entries,
            &other.counters,
            other.declared,
        ) && self.group_versions == other.group_versions
    }
}

impl Eq for Model {}

/// Placeholder versions: `UNKNOWN + (j << UNKNOWN_SHIFT) + n` stands for "the random
/// version `j` drawn, plus `n` updates" (real versions are below 2^52).
const UNKNOWN: u64 = 1 << 62;
const UNKNOWN_SHIFT: u32 = 24;

/// The placeholder number and the updates since, of a placeholder version.
fn unknown_parts(v: u64) -> Option<(u64, u64)> {
    (v >= UNKNOWN).then(|| {
        let off = v - UNKNOWN;
        (off >> UNKNOWN_SHIFT, off & ((1 << UNKNOWN_SHIFT) - 1))
    })
}

impl Model {
    /// An empty model of `space` (groups `/user-<3*space>` to `/user-<3*space+2>`, index
    /// groups `/tickets-<space>` and the statuses of `space`).
    ///
    /// ```
    /// assert!(sortpath_store::conformance::model::Model::new(3).is_empty());
    /// ```
    pub fn new(space: u64) -> Self {
        Model {
            space,
            ..Model::default()
        }
    }

    /// An empty model of `space` in a store with
    /// [`group_versions`](crate::StoreConfig::group_versions): every write bumps its group's
    /// counter and an item's version is the counter's new value.
    ///
    /// ```
    /// assert!(sortpath_store::conformance::model::Model::counted(0).is_empty());
    /// ```
    pub fn counted(space: u64) -> Self {
        Model {
            space,
            group_versions: true,
            ..Model::default()
        }
    }

    /// Whether the model has a version it does not know yet (an item written where the
    /// store's answer did not say its version, as by [`Model::after`]).
    fn has_unknowns(&self) -> bool {
        self.items.values().any(|(_, v)| *v >= UNKNOWN)
    }

    /// The model with every unknown version learnt from `got` (the records of
    /// [`Model::groups`], as [`Model::dump`] reads them): where an item with an unknown
    /// version is stored, its stored version tells the number. Panics if that version is one
    /// its key had before (a version that comes back could make an only-if-version write
    /// succeed against another item). Items that are not stored keep their placeholders (and
    /// so differ from `got`).
    ///
    /// ```
    /// use sortpath_store::conformance::model::{Model, Op, PutKind, Ticket};
    /// use sortpath_store::{backend::memory::MemoryBackend, Store};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// let ticket = Ticket { owner: 0, id: 1, updated_at: 0, status: None, title: "t".into() };
    /// let op = Op::Put { ticket, kind: PutKind::Upsert };
    /// let after = Model::new(0).after(&op); // the version is the store's to draw
    /// model_put(&store, &op).await;
    /// let got = after.dump(store.backend()).await.unwrap();
    /// assert_eq!(after.settled(&got).records(), got);
    /// # async fn model_put(store: &Store<MemoryBackend>, op: &Op) {
    /// #     Model::new(0).run_op(store, op, 0).await.unwrap();
    /// # }
    /// # });
    /// ```
    pub fn settled(&self, got: &BTreeMap<Key, Record>) -> Model {
        let mut learnt = BTreeMap::new();
        for (t, v) in self.items.values() {
            let Some((j, plus)) = unknown_parts(*v) else {
                continue;
            };
            let key = Key::new(
                user_group(t.owner),
                KeyPath::new().push("ticket", t.id).expect("valid").encode(),
            );
            if let Some(r) = got.get(&key) {
                learnt.entry(j).or_insert(r.version.wrapping_sub(plus));
            }
        }
        self.learn(&learnt)
    }

    /// The model with placeholder numbers replaced by the versions `learnt` says they
    /// stand for (checked against each key's history).
    fn learn(&self, learnt: &BTreeMap<u64, u64>) -> Model {
        if learnt.is_empty() {
            return self.clone();
        }
        let real = |v: u64| match unknown_parts(v) {
            Some((j, plus)) => learnt.get(&j).map_or(v, |base| base.wrapping_add(plus)),
            None => v,
        };
        let mut m = self.clone();
        for (k, (_, v)) in m.items.iter_mut() {
            let was_unknown = *v >= UNKNOWN;
            *v = real(*v);
            if was_unknown && *v < UNKNOWN {
                let old = m.history.entry(k.clone()).or_default();
                assert!(
                    !old.contains(v),
                    "model: {k} was given version {v} again (its versions so far: {old:?})"
                );
            }
        }
        for v in m.entries.values_mut() {
            *v = real(*v);
        }
        m.record_history();
        m
    }

    /// Adds every known item version to the history of its key.
    fn record_history(&mut self) {
        for (k, (_, v)) in &self.items {
            if *v < UNKNOWN {
                self.history.entry(k.clone()).or_default().insert(*v);
            }
        }
    }

    /// Reads the model back from a store (for a store written by a previous run of the same
    /// space, e.g. before a crash).
    ///
    /// ```
    /// use sortpath_store::conformance::model::{random_ops, run_ops, Model};
    /// use sortpath_store::{backend::memory::MemoryBackend, Store};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// let model = run_ops(&store, &random_ops(3, 20)).await;
    /// assert_eq!(Model::read_from(&store, 0).await.unwrap(), model);
    /// # });
    /// ```
    pub async fn read_from<B: Backend>(store: &Store<B>, space: u64) -> Result<Model, StoreError> {
        let config = store.config().await?;
        let mut model = match config.group_versions {
            true => Model::counted(space),
            false => Model::new(space),
        };
        for o in 0..OWNERS {
            let owner = space * OWNERS + o;
            let parent = KeyPath::new().push("user", owner).map_err(invalid)?;
            let page = store.list::<Ticket>(&Query::prefix(&parent)?).await?;
            for v in page.items {
                for (name, path) in index_paths(&v.item) {
                    let key = entry_record_key(name, &path, &v.item);
                    let found = store.backend().get(key).await.map_err(GetError::from)?;
                    // A missing entry is the model's to report (its version cannot be one).
                    let version = found.map_or(0, |r| r.version);
                    model.entries.insert((v.key.clone(), name), version);
                }
                model.items.insert(v.key, (v.item, v.version));
            }
            if model.group_versions {
                let counter = store.group_version(&parent).await?;
                if counter > 0 {
                    model.counters.insert(owner, counter);
                }
            }
        }
        model.declared = config == model.expected_config();
        model.record_history();
        Ok(model)
    }

    /// The number of tickets.
    ///
    /// ```
    /// assert_eq!(sortpath_store::conformance::model::Model::new(0).len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no tickets.
    ///
    /// ```
    /// assert!(sortpath_store::conformance::model::Model::new(0).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The tickets with their versions, by key path.
    ///
    /// ```
    /// assert_eq!(sortpath_store::conformance::model::Model::new(0).items().count(), 0);
    /// ```
    pub fn items(&self) -> impl Iterator<Item = (&KeyPath, &Ticket, u64)> {
        self.items.iter().map(|(k, (t, v))| (k, t, *v))
    }

    /// The key path of ticket `id` of relative owner `owner`.
    ///
    /// ```
    /// let m = sortpath_store::conformance::model::Model::new(2);
    /// assert_eq!(m.key(1, 5).to_string(), "/user-7/ticket-5");
    /// ```
    pub fn key(&self, owner: u64, id: i64) -> KeyPath {
        KeyPath::new()
            .push("user", self.owner(owner))
            .and_then(|p| p.push("ticket", id))
            .expect("model key paths are valid")
    }

    fn owner(&self, relative: u64) -> u64 {
        self.space * OWNERS + relative % OWNERS
    }

    fn place(&self, t: &Ticket) -> Ticket {
        Ticket {
            owner: self.owner(t.owner),
            ..t.clone()
        }
    }

    fn owner_of(k: &KeyPath) -> u64 {
        match k.segments().next().and_then(|c| c.id()) {
            Some(IdRef::Int(i)) => i.to_i128() as u64,
            other => panic!("model: unexpected group ID {other:?}"),
        }
    }

    fn version(&self, k: &KeyPath) -> Option<u64> {
        self.items.get(k).map(|(_, v)| *v)
    }

    /// Applies the writes of one commit: with group counters, one counter bump per group
    /// with an effect, the item's version the counter's; without, an update's version is
    /// the old one plus one and a new item's is unknown (a placeholder).
    fn commit(&mut self, writes: BTreeMap<KeyPath, Option<Ticket>>) {
        let mut bumped: BTreeMap<u64, u64> = BTreeMap::new();
        for (k, new) in writes {
            let old = self.items.get(&k).cloned();
            if new.is_none() && old.is_none() {
                continue; // deleting nothing writes nothing
            }
            let owner = Self::owner_of(&k);
            let v = if self.group_versions {
                *bumped
                    .entry(owner)
                    .or_insert_with(|| self.counters.get(&owner).copied().unwrap_or(0) + 1)
            } else if let Some((_, v)) = &old {
                v + 1
            } else {
                self.next_unknown += 1;
                UNKNOWN + (self.next_unknown << UNKNOWN_SHIFT)
            };
            let old_indexes = old
                .as_ref()
                .map(|(t, _)| index_paths(t))
                .unwrap_or_default();
            let old_entries: BTreeMap<&'static str, u64> = self
                .entries
                .iter()
                .filter(|((item, _), _)| *item == k)
                .map(|((_, name), v)| (*name, *v))
                .collect();
            self.entries.retain(|(item, _), _| *item != k);
            match new {
                Some(t) => {
                    self.declared = true;
                    for (name, path) in index_paths(&t) {
                        let kept = old_indexes.iter().any(|(n, p)| *n == name && *p == path);
                        let ev = match old_entries.get(name) {
                            Some(&before) if kept => before,
                            _ => v,
                        };
                        self.entries.insert((k.clone(), name), ev);
                    }
                    self.items.insert(k, (t, v))
                }
                None => self.items.remove(&k),
            };
        }
        self.counters.extend(bumped);
    }

    /// The model after `op` succeeds (for a failed write: the model unchanged).
    ///
    /// ```
    /// use sortpath_store::conformance::model::{Model, Op};
    /// let m = Model::new(0);
    /// assert_eq!(m.after(&Op::Delete { owner: 0, id: 0 }), m);
    /// ```
    pub fn after(&self, op: &Op) -> Model {
        self.plan(op).next
    }

    /// Every group the model's items, counters and index entries can live in.
    ///
    /// ```
    /// assert_eq!(sortpath_store::conformance::model::Model::new(0).groups().len(), 3 * 2 + 1 + 3);
    /// ```
    pub fn groups(&self) -> Vec<Vec<u8>> {
        let mut groups = Vec::new();
        for o in 0..OWNERS {
            let g = user_group(self.space * OWNERS + o);
            groups.push([&[0x00, 0x01][..], &g].concat());
            groups.push(g);
        }
        groups.push(index_group(
            "by_updated",
            &KeyPath::new().push("tickets", self.space).expect("valid"),
        ));
        for s in STATUSES.iter().flatten() {
            let g = KeyPath::new()
                .push("status", status_id(self.space, s).as_str())
                .expect("valid");
            groups.push(index_group("by_status", &g));
        }
        if self.declared || self.group_versions {
            // The configuration, shared by every space: checked once it must be there.
            groups.push(crate::layout::config_key().group);
        }
        groups
    }

    /// Exactly the records the backend must hold in [`Model::groups`], derived from the
    /// layout documented in [`crate::layout`] and in `src/envelope.rs` (not from the store's
    /// code): each item's envelope, each group counter, each index entry, and the store's
    /// configuration once a ticket was written.
    ///
    /// ```
    /// assert!(sortpath_store::conformance::model::Model::new(0).records().is_empty());
    /// ```
    pub fn records(&self) -> BTreeMap<Key, Record> {
        let mut out = BTreeMap::new();
        if self.declared {
            let (key, mut record) = self.expected_config().record();
            // Created with the store (version 1), then the indexes declared (version 2).
            record.version += u64::from(self.group_versions);
            out.insert(key, record);
        } else if self.group_versions {
            // Created with the store, before any index was declared.
            let config = crate::StoreConfig::new(vec![]).with_group_versions(true);
            let (key, record) = config.record();
            out.insert(key, record);
        }
        for (&owner, &version) in &self.counters {
            let group = [&[0x00, 0x01][..], &user_group(owner)].concat();
            out.insert(
                Key::new(group, vec![0x00]),
                Record {
                    value: Vec::new(),
                    version,
                },
            );
        }
        for (t, version) in self.items.values() {
            let indexes = index_paths(t);
            let mut value = vec![0x01, Ticket::TYPE.len() as u8];
            value.extend_from_slice(Ticket::TYPE.as_bytes());
            value.push(indexes.len() as u8);
            for (name, path) in &indexes {
                value.push(name.len() as u8);
                value.extend_from_slice(name.as_bytes());
                let enc = path.encode();
                value.extend_from_slice(&(enc.len() as u16).to_be_bytes());
                value.extend_from_slice(&enc);
            }
            // Compact MessagePack: the fields' values in declaration order.
            value.extend(rmp_serde::to_vec(t).expect("tickets encode"));
            let k = t.key_path().expect("valid");
            let sort = KeyPath::new().push("ticket", t.id).expect("valid").encode();
            out.insert(
                Key::new(user_group(t.owner), sort),
                Record {
                    value,
                    version: *version,
                },
            );
            for (name, path) in indexes {
                let version = self.entries.get(&(k.clone(), name)).copied().unwrap_or(0);
                out.insert(
                    entry_record_key(name, &path, t),
                    Record {
                        value: vec![0x01],
                        version,
                    },
                );
            }
        }
        out
    }
    /// Reads every record of [`Model::groups`] from `backend`.
    ///
    /// ```
    /// use sortpath_store::backend::memory::MemoryBackend;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let m = sortpath_store::conformance::model::Model::new(0);
    /// assert!(m.dump(&MemoryBackend::new()).await.unwrap().is_empty());
    /// # });
    /// ```
    pub async fn dump<B: Backend>(
        &self,
        backend: &B,
    ) -> Result<BTreeMap<Key, Record>, BackendError> {
        super::dump_groups(backend, self.groups()).await
    }

    /// Panics (naming `context` and every record that differs) unless `backend` holds
    /// exactly [`Model::records`] in the model's groups.
    ///
    /// ```
    /// use sortpath_store::backend::memory::MemoryBackend;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// sortpath_store::conformance::model::Model::new(0).check(&MemoryBackend::new(), "empty").await;
    /// # });
    /// ```
    pub async fn check<B: Backend>(&self, backend: &B, context: &str) {
        let got = match self.dump(backend).await {
            Ok(got) => got,
            Err(e) => panic!("model: {context}: reading the backend: {e}"),
        };
        assert!(
            !self.has_unknowns(),
            "model: {context}: the model has versions it has not learnt (settle it first)"
        );
        if let Some(diff) = diff(&got, &self.records()) {
            panic!("model: {context}: the backend differs from the model:\n{diff}");
        }
    }
}

impl Model {
    /// The configuration the store holds once a ticket was written: [`expected_config`],
    /// with group counters if the model's store keeps them.
    ///
    /// ```
    /// let m = sortpath_store::conformance::model::Model::counted(0);
    /// assert!(m.expected_config().group_versions);
    /// ```
    pub fn expected_config(&self) -> crate::StoreConfig {
        expected_config().with_group_versions(self.group_versions)
    }
}

/// The configuration a store holds once a ticket was written: the ticket type's program
/// indexes, in their declaration order, and the ticket type as held.
///
/// ```
/// let config = sortpath_store::conformance::model::expected_config();
/// assert_eq!(config.indexes.len(), 2);
/// ```
pub fn expected_config() -> crate::StoreConfig {
    let mut config = crate::StoreConfig::new(
        Ticket::INDEXES
            .iter()
            .map(|i| crate::IndexDecl::program(i.name, Ticket::TYPE))
            .collect(),
    );
    config.types = Some(vec![Ticket::TYPE.to_owned()]);
    config
}

/// Describes how `got` differs from `expected` (`None` if equal).
///
/// ```
/// use std::collections::BTreeMap;
/// use sortpath_store::backend::{Key, Record};
/// let a = BTreeMap::from([(Key::new(vec![1], vec![2]), Record { value: vec![], version: 1 })]);
/// assert!(sortpath_store::conformance::model::diff(&a, &a).is_none());
/// assert!(sortpath_store::conformance::model::diff(&a, &BTreeMap::new()).is_some());
/// ```
pub fn diff(got: &BTreeMap<Key, Record>, expected: &BTreeMap<Key, Record>) -> Option<String> {
    let mut out = String::new();
    for (k, r) in got {
        match expected.get(k) {
            None => writeln!(out, "  extra   {k:?}: {r:?}"),
            Some(e) if e != r => writeln!(out, "  differs {k:?}: {r:?}, expected {e:?}"),
            Some(_) => Ok(()),
        }
        .expect("writing to a string");
    }
    for (k, e) in expected {
        if !got.contains_key(k) {
            writeln!(out, "  missing {k:?}: {e:?}").expect("writing to a string");
        }
    }
    (!out.is_empty()).then_some(out)
}

fn invalid(e: PathError) -> StoreError {
    WriteError::from(InvalidKeyError::path("(model)", e)).into()
}

/// The group key of owner `owner`'s items: the encoding of `/user-<owner>`.
fn user_group(owner: u64) -> Vec<u8> {
    KeyPath::new().push("user", owner).expect("valid").encode()
}

/// `00 02 len name ++ encoding of the index group`.
fn index_group(name: &str, group: &KeyPath) -> Vec<u8> {
    let mut g = vec![0x00, 0x02, name.len() as u8];
    g.extend_from_slice(name.as_bytes());
    g.extend_from_slice(&group.encode());
    g
}

/// A ticket's index keys, sorted by index name (as the envelope stores them).
fn index_paths(t: &Ticket) -> Vec<(&'static str, KeyPath)> {
    let mut out: Vec<(&'static str, KeyPath)> = Ticket::INDEXES
        .iter()
        .filter_map(|i| (i.key)(t).expect("valid").map(|p| (i.name, p)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

/// The backend key of ticket `t`'s entry in index `name` at index path `path`, as the
/// layout documents it: group `00 02`, the name's length and bytes, the index group's
/// encoding; sort key the encoding of the index path after its group with each 00 byte
/// followed by ff, then 00 00, then the item path's encoding.
fn entry_record_key(name: &str, path: &KeyPath, t: &Ticket) -> Key {
    let comps: Vec<_> = path.segments().collect();
    let mut rest = KeyPath::new();
    for c in &comps[1..] {
        let id = c.id().expect("index components have IDs").to_id();
        rest = rest.push(c.namespace(), id).expect("valid");
    }
    let mut sort = Vec::new();
    for b in rest.encode() {
        sort.push(b);
        if b == 0 {
            sort.push(0xff);
        }
    }
    sort.extend_from_slice(&[0x00, 0x00]);
    let base = KeyPath::new()
        .push("user", t.owner)
        .and_then(|p| p.push("ticket", t.id))
        .expect("valid");
    sort.extend_from_slice(&base.encode());
    let group = KeyPath::new()
        .push(
            comps[0].namespace(),
            comps[0].id().expect("group ID").to_id(),
        )
        .expect("valid");
    Key::new(index_group(name, &group), sort)
}
