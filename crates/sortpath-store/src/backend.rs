//! The one seam between the store and a storage engine: an ordered byte map.
//!
//! A [`Backend`] stores *records* under two-part keys. The **group** key picks a partition
//! (DynamoDB's partition key); the **sort** key orders records inside it (DynamoDB's sort key).
//! Scans never cross groups. Both parts are compared as unsigned bytes, shortest prefix first,
//! exactly as DynamoDB compares binary keys and `[u8]::cmp` does.
//!
//! Every record carries a caller-chosen `u64` version next to its value. Backends never
//! invent versions: they store the one given in [`Write::Put`] and compare it in
//! [`Condition::VersionEquals`]. This keeps conditions checkable on every engine, including
//! DynamoDB, where the version is an attribute in a condition expression.
//!
//! The store never sends empty group or sort keys (DynamoDB rejects them); backends may
//! accept them but portable callers must not rely on it.

use std::fmt;
use std::future::Future;
use std::ops::Bound;

use sortpath::Order;

#[cfg(feature = "dynamodb")]
pub mod dynamodb;
pub mod memory;
#[cfg(feature = "redb")]
pub mod redb;
#[cfg(feature = "slatedb")]
pub mod slatedb;

/// The full key of a record: the group (partition) key and the sort key inside that group.
///
/// ```
/// use sortpath_store::backend::Key;
/// let k = Key::new(b"user".to_vec(), vec![0x00]);
/// assert!(k < Key::new(b"user".to_vec(), vec![0x01]));
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// The group (partition) key. Scans stay within one group.
    pub group: Vec<u8>,
    /// The sort key: records of a group are ordered by it as unsigned bytes.
    pub sort: Vec<u8>,
}

impl Key {
    /// A key from its group and sort parts.
    ///
    /// ```
    /// let k = sortpath_store::backend::Key::new(vec![1], vec![2]);
    /// assert_eq!((k.group, k.sort), (vec![1], vec![2]));
    /// ```
    pub fn new(group: impl Into<Vec<u8>>, sort: impl Into<Vec<u8>>) -> Self {
        Key {
            group: group.into(),
            sort: sort.into(),
        }
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({} / {})", Hex(&self.group), Hex(&self.sort))
    }
}

/// Lower-case hex of a byte string, for debug output and error messages.
pub(crate) struct Hex<'a>(pub &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// A stored value with its version.
///
/// ```
/// let r = sortpath_store::backend::Record { value: b"v".to_vec(), version: 3 };
/// assert_eq!(r.version, 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The value bytes, opaque to the backend.
    pub value: Vec<u8>,
    /// The version the writer gave this record (see [`Condition::VersionEquals`]).
    pub version: u64,
}

/// One record returned by [`Backend::scan`].
///
/// ```
/// use sortpath_store::backend::{Entry, Record};
/// let e = Entry { sort: vec![1], record: Record { value: vec![], version: 1 } };
/// assert_eq!(e.sort, vec![1]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The sort key (the group is the one scanned).
    pub sort: Vec<u8>,
    /// The value and version.
    pub record: Record,
}

/// The key attributes a backend stores beside one record for one index it keeps itself
/// ([`Backend::maintained_indexes`]; on DynamoDB a GSI's two key attributes), exactly as
/// stored: what [`Backend::maintained_index_keys`] lists, so that a consistency check
/// ([`check`](crate::check)) can compare them with the item's own index keys. A read of the
/// record does not show them.
///
/// ```
/// use sortpath_store::backend::MaintainedKey;
/// let k = MaintainedKey {
///     index: "by_n".to_owned(),
///     attributes: ("gp1".to_owned(), "gs1".to_owned()),
///     partition: Some(vec![1]),
///     sort: None,
/// };
/// assert!(k.sort.is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaintainedKey {
    /// The index.
    pub index: String,
    /// The names under which the backend stores the index key's partition and sort parts
    /// (`gp1`, `gs1`), for messages.
    pub attributes: (String, String),
    /// The partition part as stored: the encoding of the index key path's group; `None`
    /// if the record lacks it.
    pub partition: Option<Vec<u8>>,
    /// The sort part as stored: the sort key the index's exact entry would have
    /// ([`layout`](crate::layout)); `None` if the record lacks it.
    pub sort: Option<Vec<u8>>,
}

/// What [`Backend::maintained_index_keys`] reads: per record key, the key attributes of
/// kept indexes the record carries.
///
/// ```
/// let keys = sortpath_store::backend::MaintainedKeys::new();
/// assert!(keys.is_empty());
/// ```
pub type MaintainedKeys = std::collections::BTreeMap<Key, Vec<MaintainedKey>>;

/// A range scan inside one group.
///
/// `start` and `end` bound the sort keys (`start <= end` in byte order; an empty or inverted
/// range yields nothing). The direction only changes the order of the results, never which
/// records are in range: a reverse scan begins at `end` and walks down to `start`. To resume
/// after the last returned sort key `k`, scan again with `start = Excluded(k)` (forward) or
/// `end = Excluded(k)` (reverse).
///
/// ```
/// use sortpath::Order;
/// use sortpath_store::backend::Scan;
/// use std::ops::Bound;
/// let s = Scan::group(b"g".to_vec()).reverse().limit(10).start(Bound::Included(vec![5]));
/// assert_eq!(s.order, Order::Descending);
/// assert_eq!(s.limit, Some(10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scan {
    /// The group to scan.
    pub group: Vec<u8>,
    /// The lower bound on sort keys.
    pub start: Bound<Vec<u8>>,
    /// The upper bound on sort keys.
    pub end: Bound<Vec<u8>>,
    /// Ascending or descending results (by sort key).
    pub order: Order,
    /// The most entries to return; `None` returns all of them.
    pub limit: Option<usize>,
    /// How fresh the records must be (backends that only read their latest state ignore
    /// it).
    pub consistency: Consistency,
}

/// How fresh a read must be. DynamoDB reads either way (an eventually consistent read costs
/// half and may miss writes of the last second or so); the embedded backends always read
/// their latest committed state, which satisfies both.
///
/// ```
/// assert_eq!(sortpath_store::backend::Consistency::default(),
///            sortpath_store::backend::Consistency::Strong);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Consistency {
    /// Every write acknowledged before the read began is seen (the default: what a
    /// read-your-writes program expects).
    #[default]
    Strong,
    /// Possibly a moment behind: cheaper on DynamoDB.
    Eventual,
}

impl Scan {
    /// A forward scan of a whole group without limit.
    ///
    /// ```
    /// let s = sortpath_store::backend::Scan::group(vec![7]);
    /// assert_eq!(s.limit, None);
    /// ```
    pub fn group(group: Vec<u8>) -> Self {
        Scan {
            group,
            start: Bound::Unbounded,
            end: Bound::Unbounded,
            order: Order::Ascending,
            limit: None,
            consistency: Consistency::Strong,
        }
    }

    /// Sets the consistency.
    ///
    /// ```
    /// use sortpath_store::backend::{Consistency, Scan};
    /// let s = Scan::group(vec![7]).consistency(Consistency::Eventual);
    /// assert_eq!(s.consistency, Consistency::Eventual);
    /// ```
    pub fn consistency(mut self, consistency: Consistency) -> Self {
        self.consistency = consistency;
        self
    }

    /// Sets the lower bound.
    ///
    /// ```
    /// use std::ops::Bound;
    /// let s = sortpath_store::backend::Scan::group(vec![7]).start(Bound::Excluded(vec![1]));
    /// assert_eq!(s.start, Bound::Excluded(vec![1]));
    /// ```
    pub fn start(mut self, start: Bound<Vec<u8>>) -> Self {
        self.start = start;
        self
    }

    /// Sets the upper bound.
    ///
    /// ```
    /// use std::ops::Bound;
    /// let s = sortpath_store::backend::Scan::group(vec![7]).end(Bound::Included(vec![9]));
    /// assert_eq!(s.end, Bound::Included(vec![9]));
    /// ```
    pub fn end(mut self, end: Bound<Vec<u8>>) -> Self {
        self.end = end;
        self
    }

    /// Returns results in descending order.
    ///
    /// ```
    /// let s = sortpath_store::backend::Scan::group(vec![7]).reverse();
    /// assert_eq!(s.order, sortpath::Order::Descending);
    /// ```
    pub fn reverse(mut self) -> Self {
        self.order = Order::Descending;
        self
    }

    /// Sets the order of the results.
    ///
    /// ```
    /// use sortpath::Order;
    /// use sortpath_store::backend::Scan;
    /// assert_eq!(Scan::group(vec![]).order(Order::Descending).order, Order::Descending);
    /// ```
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Returns at most `limit` entries.
    ///
    /// ```
    /// assert_eq!(sortpath_store::backend::Scan::group(vec![]).limit(3).limit, Some(3));
    /// ```
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Whether `sort` lies within this scan's bounds.
    ///
    /// ```
    /// use std::ops::Bound;
    /// let s = sortpath_store::backend::Scan::group(vec![]).start(Bound::Excluded(vec![1]));
    /// assert!(!s.contains(&[1]));
    /// assert!(s.contains(&[1, 0]));
    /// ```
    pub fn contains(&self, sort: &[u8]) -> bool {
        let above = match &self.start {
            Bound::Included(s) => sort >= s.as_slice(),
            Bound::Excluded(s) => sort > s.as_slice(),
            Bound::Unbounded => true,
        };
        let below = match &self.end {
            Bound::Included(e) => sort <= e.as_slice(),
            Bound::Excluded(e) => sort < e.as_slice(),
            Bound::Unbounded => true,
        };
        above && below
    }

    /// Whether no sort key can lie within the bounds (e.g. `start > end`).
    ///
    /// ```
    /// use std::ops::Bound;
    /// let s = sortpath_store::backend::Scan::group(vec![])
    ///     .start(Bound::Included(vec![2])).end(Bound::Excluded(vec![2]));
    /// assert!(s.is_empty_range());
    /// ```
    pub fn is_empty_range(&self) -> bool {
        match (&self.start, &self.end) {
            // Nothing sorts before the empty string.
            (_, Bound::Excluded(e)) if e.is_empty() => true,
            (Bound::Included(s), Bound::Included(e)) => s > e,
            (Bound::Included(s), Bound::Excluded(e)) | (Bound::Excluded(s), Bound::Included(e)) => {
                s >= e
            }
            // (s, e) is empty when no byte string lies strictly between: e == s or e == s ++ [0].
            (Bound::Excluded(s), Bound::Excluded(e)) => {
                s >= e || (e.len() == s.len() + 1 && e.starts_with(s) && e[s.len()] == 0)
            }
            _ => false,
        }
    }
}

/// What an item value the store writes ([`Write::PutItem`]) is made of: its envelope's
/// header fields and, for each index key it carries, where its key path sits in the value
/// and the keys that index gives the item. The store computes it where it builds the
/// envelope (the format is in `docs/FORMAT.md` and [`layout`](crate::layout)), so a backend
/// that stores the parts apart needs no knowledge of the envelope.
///
/// ```
/// use sortpath_store::backend::ItemParts;
/// let parts = ItemParts { item_type: "t".to_owned(), payload_start: 4, index_keys: vec![] };
/// assert_eq!(parts.payload_start, 4);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemParts {
    /// The item type name.
    pub item_type: String,
    /// Where the payload (MessagePack) starts in the value: every byte before it is the
    /// envelope's header.
    pub payload_start: usize,
    /// The item's index keys, in the order the header lists them (by name).
    pub index_keys: Vec<IndexKeyParts>,
}

/// One index key of an item value ([`ItemParts`]).
///
/// ```
/// use sortpath_store::backend::IndexKeyParts;
/// let k = IndexKeyParts {
///     index: "by_n".to_owned(),
///     path: 10..20,
///     partition: vec![1],
///     sort: vec![2],
/// };
/// assert_eq!(k.path.len(), 10);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexKeyParts {
    /// The index name.
    pub index: String,
    /// Where the index key path's encoding sits in the value; the two bytes before it
    /// are its length (u16, big endian).
    pub path: std::ops::Range<usize>,
    /// The encoding of the index key path's group (its first component): the partition
    /// of the index's entries, and of a DynamoDB GSI that keeps the index.
    pub partition: Vec<u8>,
    /// The sort key the index's exact entry of the item has ([`layout`](crate::layout)):
    /// the sort key of a GSI that keeps the index.
    pub sort: Vec<u8>,
}

/// A per-key condition of a [`Write`], checked atomically with the whole batch.
///
/// ```
/// use sortpath_store::backend::Condition;
/// assert!(Condition::NotExists.holds(None));
/// assert!(Condition::VersionEquals(2).holds(Some(2)));
/// assert!(!Condition::Exists.holds(None));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Condition {
    /// No condition.
    #[default]
    None,
    /// A record must exist under the key.
    Exists,
    /// No record may exist under the key.
    NotExists,
    /// A record must exist under the key with exactly this version.
    VersionEquals(u64),
}

impl Condition {
    /// Whether the condition holds given the current version of the key (`None` if absent).
    ///
    /// ```
    /// assert!(sortpath_store::backend::Condition::None.holds(None));
    /// ```
    pub fn holds(self, current: Option<u64>) -> bool {
        match self {
            Condition::None => true,
            Condition::Exists => current.is_some(),
            Condition::NotExists => current.is_none(),
            Condition::VersionEquals(v) => current == Some(v),
        }
    }
}

/// One operation of an atomic write batch.
///
/// ```
/// use sortpath_store::backend::{Condition, Key, Record, Write};
/// let w = Write::Put {
///     key: Key::new(vec![1], vec![0]),
///     record: Record { value: vec![42], version: 1 },
///     condition: Condition::NotExists,
/// };
/// assert_eq!(w.key(), &Key::new(vec![1], vec![0]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// Insert or replace the record under `key`.
    Put {
        /// Where to write.
        key: Key,
        /// The value and the version to store with it.
        record: Record,
        /// Must hold before the write, or the whole batch fails.
        condition: Condition,
    },
    /// Remove the record under `key` (removing an absent key is not an error).
    Delete {
        /// What to remove.
        key: Key,
        /// Must hold before the write, or the whole batch fails.
        condition: Condition,
    },
    /// [`Write::Put`] of an item the store wrote: `record.value` is the item's envelope, and
    /// `parts` says what it is made of, as the store computed it where it built the
    /// envelope. A backend that keeps an item's parts apart (DynamoDB: the payload as
    /// native attributes, the index keys of the indexes it keeps as GSI key attributes)
    /// takes them from `parts` and never reads the value; every other backend stores it as
    /// a [`Write::Put`]. The store sends it only to a backend that
    /// [wants the parts](Backend::wants_item_parts), and a [`Write::Put`] to the others.
    PutItem {
        /// Where to write.
        key: Key,
        /// The value (an item envelope) and the version to store with it.
        record: Record,
        /// Must hold before the write, or the whole batch fails.
        condition: Condition,
        /// What the value is made of.
        parts: ItemParts,
    },
    /// Write nothing, only check `condition` (DynamoDB's `ConditionCheck`): used by
    /// transactions to make a batch depend on records they read but do not change.
    Check {
        /// What to check.
        key: Key,
        /// Must hold, or the whole batch fails.
        condition: Condition,
    },
}

impl Write {
    /// The key this operation touches.
    ///
    /// ```
    /// use sortpath_store::backend::{Condition, Key, Write};
    /// let w = Write::Delete { key: Key::new(vec![1], vec![2]), condition: Condition::None };
    /// assert_eq!(w.key().sort, vec![2]);
    /// ```
    pub fn key(&self) -> &Key {
        match self {
            Write::Put { key, .. }
            | Write::PutItem { key, .. }
            | Write::Delete { key, .. }
            | Write::Check { key, .. } => key,
        }
    }

    /// The condition of this operation.
    ///
    /// ```
    /// use sortpath_store::backend::{Condition, Key, Write};
    /// let w = Write::Check { key: Key::new(vec![1], vec![2]), condition: Condition::Exists };
    /// assert_eq!(w.condition(), Condition::Exists);
    /// ```
    pub fn condition(&self) -> Condition {
        match self {
            Write::Put { condition, .. }
            | Write::PutItem { condition, .. }
            | Write::Delete { condition, .. }
            | Write::Check { condition, .. } => *condition,
        }
    }
}

/// The error of every backend operation.
///
/// ```
/// use sortpath_store::backend::BackendError;
/// let e = BackendError::ConditionFailed { index: 2, current: None };
/// assert!(e.to_string().contains("write 2"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// The condition of write number `index` of the batch did not hold; nothing was written.
    #[error(
        "condition of write {index} of the batch did not hold (record is {}); nothing was written",
        match current { Some(v) => format!("at version {v}"), None => "absent".to_owned() }
    )]
    ConditionFailed {
        /// Position of the failed write in the batch.
        index: usize,
        /// The version found under that key, `None` if absent. Backends that cannot tell
        /// (DynamoDB reports only which item failed unless asked for it) may report `None`.
        current: Option<u64>,
    },
    /// Two writes of one batch name the same key; nothing was written.
    #[error("writes {first} and {second} of the batch touch the same key; nothing was written")]
    DuplicateKey {
        /// Position of the first write on the key.
        first: usize,
        /// Position of the second write on the key.
        second: usize,
    },
    /// A request exceeds a limit of the backend (e.g. DynamoDB's 100 writes per transaction).
    #[error("{what}: limit is {limit}, found {found}")]
    LimitExceeded {
        /// What was too large.
        what: &'static str,
        /// The backend's limit.
        limit: usize,
        /// The size of the request.
        found: usize,
    },
    /// The storage engine failed (I/O, corruption, network, service errors).
    #[error("storage error: {0}")]
    Storage(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A write was sent and its answer never came (lost, late past the time allowed, or an
    /// error the service documents as possibly applied), so it may have been applied, or
    /// not: read the records before writing them again. The source is the last failure.
    ///
    /// ```
    /// let e = sortpath_store::backend::BackendError::MaybeApplied(
    ///     std::io::Error::other("request has timed out").into(),
    /// );
    /// assert!(e.may_have_been_applied());
    /// assert!(e.to_string().starts_with("the write may have been applied"));
    /// ```
    #[error(
        "the write may have been applied (its answer was lost): read before writing again ({0})"
    )]
    MaybeApplied(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl BackendError {
    /// Wraps an engine error.
    ///
    /// ```
    /// let e = sortpath_store::backend::BackendError::storage(std::io::Error::other("disk"));
    /// assert_eq!(e.to_string(), "storage error: disk");
    /// ```
    pub fn storage(err: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>) -> Self {
        BackendError::Storage(err.into())
    }

    /// Whether the failed write may have been applied all the same
    /// ([`BackendError::MaybeApplied`]): its outcome is unknown, so read before writing again.
    ///
    /// ```
    /// use sortpath_store::backend::BackendError;
    /// assert!(!BackendError::storage("disk").may_have_been_applied());
    /// assert!(BackendError::MaybeApplied("no answer".into()).may_have_been_applied());
    /// ```
    pub fn may_have_been_applied(&self) -> bool {
        matches!(self, BackendError::MaybeApplied(_))
    }
}

/// Finds the first pair of writes on the same key, for backends to reject such batches.
///
/// ```
/// use sortpath_store::backend::{duplicate_key, Condition, Key, Write};
/// let w = |s: u8| Write::Check { key: Key::new(vec![1], vec![s]), condition: Condition::None };
/// assert_eq!(duplicate_key(&[w(1), w(2), w(1)]), Some((0, 2)));
/// assert_eq!(duplicate_key(&[w(1), w(2)]), None);
/// ```
pub fn duplicate_key(writes: &[Write]) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::with_capacity(writes.len());
    writes
        .iter()
        .enumerate()
        .find_map(|(i, w)| seen.insert(w.key(), i).map(|first| (first, i)))
}

/// Hands each record read (slot, version, value) to `map`, keeping absent slots absent:
/// how a `batch_get_map` is made from a `batch_get`. The first error `map` returns is the
/// result.
pub(crate) fn map_records<T, E>(
    records: &[Option<Record>],
    mut map: impl FnMut(usize, u64, &[u8]) -> Result<T, E>,
) -> Result<Vec<Option<T>>, E> {
    records
        .iter()
        .enumerate()
        .map(|(slot, r)| {
            r.as_ref()
                .map(|r| map(slot, r.version, &r.value))
                .transpose()
        })
        .collect()
}

/// An ordered byte map: the storage engine under a store.
///
/// # Contract
/// - **Order**: within a group, sort keys are ordered as unsigned byte strings (`[u8]::cmp`:
///   a proper prefix sorts first). All of `0x00..=0xFF` may appear anywhere in both key parts.
/// - **Consistency**: every call sees every write batch that completed before it was made
///   (read-your-writes, strongly consistent reads).
/// - **Atomicity**: [`Backend::write`] applies all of its operations or none.
/// - **Versions**: a record's version is the one its last `Put` gave; backends never change it.
/// - **Concurrency**: all methods may be called from many tasks at once. A backend must never
///   block the async runtime's worker threads on I/O that may take long (synchronous engines
///   run such work on the blocking pool; the embedded backend answers short reads from its
///   page cache where they are awaited, see `backend::redb::Threads`, feature `redb`).
/// - Errors other than the ones named per method are [`BackendError::Storage`].
///
/// ```
/// use sortpath_store::backend::{memory::MemoryBackend, Backend, Condition, Key, Record, Write};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let db = MemoryBackend::new();
/// let key = Key::new(b"g".to_vec(), b"s".to_vec());
/// let put = Write::Put {
///     key: key.clone(),
///     record: Record { value: b"v".to_vec(), version: 1 },
///     condition: Condition::NotExists,
/// };
/// db.write(vec![put]).await.unwrap();
/// assert_eq!(db.get(key).await.unwrap().unwrap().version, 1);
/// # });
/// ```
pub trait Backend: Send + Sync + fmt::Debug + 'static {
    /// Reads one record; `Ok(None)` if the key is absent.
    fn get(&self, key: Key) -> impl Future<Output = Result<Option<Record>, BackendError>> + Send;

    /// Reads several records, possibly from different groups. The result has one slot per
    /// requested key, in request order (`None` where absent); a key may be requested twice.
    /// Every record read is at least as new as the last batch completed before the call;
    /// the batch as a whole need not be one snapshot.
    fn batch_get(
        &self,
        keys: Vec<Key>,
    ) -> impl Future<Output = Result<Vec<Option<Record>>, BackendError>> + Send;

    /// Scans one group over a sort-key range (see [`Scan`]), in the requested direction,
    /// returning exactly `min(limit, records in range)` entries (a backend that reads in pages
    /// keeps reading until it has them). Entries are committed data and include every batch
    /// completed before the call; a scan that runs concurrently with a batch may see part of
    /// it (DynamoDB's read-committed isolation for queries). A limit of `Some(0)` returns
    /// nothing.
    fn scan(&self, scan: Scan) -> impl Future<Output = Result<Vec<Entry>, BackendError>> + Send;

    /// [`Backend::batch_get_map`] at a chosen [`Consistency`]. The default reads as
    /// `batch_get_map` does (its latest state, which satisfies either).
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError, Consistency, Key};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let got = db
    ///     .batch_get_map_with(vec![Key::new(vec![1], vec![2])], Consistency::Eventual, |_, v, _| Ok::<_, BackendError>(v))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(got, [None]);
    /// # });
    /// ```
    fn batch_get_map_with<T, E, F>(
        &self,
        keys: Vec<Key>,
        consistency: Consistency,
        map: F,
    ) -> impl Future<Output = Result<Vec<Option<T>>, E>> + Send
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(usize, u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        let _ = consistency;
        self.batch_get_map(keys, map)
    }

    /// [`Backend::batch_get_map_with`] of one key: the record found handed to `map` as
    /// `(version, value)`, `None` if the key is absent. The default reads a batch of one;
    /// the SlateDB backend reads the key on its own, without the vectors around it. `map`
    /// must not call the backend.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError, Condition, Consistency, Key, Record, Write};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let key = Key::new(b"g".to_vec(), b"s".to_vec());
    /// let put = Write::Put { key: key.clone(), record: Record { value: b"xyz".to_vec(), version: 4 }, condition: Condition::None };
    /// db.write(vec![put]).await.unwrap();
    /// let got = db
    ///     .get_map_with(key, Consistency::Strong, |version, value| Ok::<_, BackendError>((version, value.len())))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(got, Some((4, 3)));
    /// # });
    /// ```
    fn get_map_with<T, E, F>(
        &self,
        key: Key,
        consistency: Consistency,
        mut map: F,
    ) -> impl Future<Output = Result<Option<T>, E>> + Send
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        async move {
            let mut got = self
                .batch_get_map_with(vec![key], consistency, move |_, version, value| {
                    map(version, value)
                })
                .await?;
            Ok(got.pop().flatten())
        }
    }

    /// [`Backend::batch_get`], with each record found handed to `map` as `(slot, version,
    /// value)`, where `slot` is the key's position in `keys`; the result has one slot per
    /// key, `None` where absent. The first error `map` returns ends the read and is the
    /// result.
    ///
    /// The default calls [`Backend::batch_get`] and maps its records. The embedded backend
    /// overrides it to run `map` inside its read, over borrowed bytes, as
    /// [`Backend::scan_map`] does. `map` must not call the backend.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError, Condition, Key, Record, Write};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let key = Key::new(b"g".to_vec(), b"s".to_vec());
    /// let put = Write::Put { key: key.clone(), record: Record { value: b"xyz".to_vec(), version: 4 }, condition: Condition::None };
    /// db.write(vec![put]).await.unwrap();
    /// let missing = Key::new(b"g".to_vec(), b"t".to_vec());
    /// let got = db
    ///     .batch_get_map(vec![missing, key], |slot, version, value| {
    ///         Ok::<_, BackendError>((slot, version, value.len()))
    ///     })
    ///     .await
    ///     .unwrap();
    /// assert_eq!(got, [None, Some((1, 4, 3))]);
    /// # });
    /// ```
    fn batch_get_map<T, E, F>(
        &self,
        keys: Vec<Key>,
        map: F,
    ) -> impl Future<Output = Result<Vec<Option<T>>, E>> + Send
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(usize, u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        async move { map_records(&self.batch_get(keys).await?, map) }
    }

    /// [`Backend::scan`], with each record handed to `map` as `(sort key, version, value)`
    /// in scan order, returning what `map` made of them. The first error `map` returns ends
    /// the scan and is the result.
    ///
    /// The default is [`Backend::scan_fold`] into a vector, so it reads where `scan_fold`
    /// reads: on the embedded backend, inside its read over borrowed bytes. `map` must
    /// not call the backend.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError, Condition, Key, Record, Scan, Write};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let put = |s: &[u8], v: &[u8]| Write::Put {
    ///     key: Key::new(b"g".to_vec(), s.to_vec()),
    ///     record: Record { value: v.to_vec(), version: 1 },
    ///     condition: Condition::None,
    /// };
    /// db.write(vec![put(b"a", b"xy"), put(b"b", b"z")]).await.unwrap();
    /// let lens = db
    ///     .scan_map(Scan::group(b"g".to_vec()).reverse(), |sort, _version, value| {
    ///         Ok::<_, BackendError>((sort[0], value.len()))
    ///     })
    ///     .await
    ///     .unwrap();
    /// assert_eq!(lens, [(b'b', 1), (b'a', 2)]);
    /// # });
    /// ```
    fn scan_map<T, E, F>(
        &self,
        scan: Scan,
        mut map: F,
    ) -> impl Future<Output = Result<Vec<T>, E>> + Send
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(&[u8], u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        self.scan_fold(scan, Vec::new(), move |out, sort, version, value| {
            out.push(map(sort, version, value)?);
            Ok(())
        })
    }

    /// [`Backend::scan`], with each record folded into the accumulator `acc` by
    /// `fold(&mut acc, sort key, version, value)` in scan order; the result is the
    /// accumulator after the last record. The first error `fold` returns ends the scan and
    /// is the result. What the accumulator keeps, and how, is the caller's: e.g. only the
    /// records it wants, or what it learned about the others.
    ///
    /// The default calls [`Backend::scan`] and folds its entries. A backend that can lend
    /// its records (the embedded one) overrides it to run `fold` where it reads them, over
    /// borrowed bytes: no record is copied, and what `fold` allocates and
    /// frees stays on one thread. `fold` must not call the backend.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError, Condition, Key, Record, Scan, Write};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let put = |s: &[u8], v: &[u8]| Write::Put {
    ///     key: Key::new(b"g".to_vec(), s.to_vec()),
    ///     record: Record { value: v.to_vec(), version: 1 },
    ///     condition: Condition::None,
    /// };
    /// db.write(vec![put(b"a", b"xy"), put(b"b", b"z"), put(b"c", b"")]).await.unwrap();
    /// // How many records, and the keys of the non-empty ones.
    /// let (count, keys) = db
    ///     .scan_fold(Scan::group(b"g".to_vec()), (0, Vec::new()), |(count, keys), sort, _, value| {
    ///         *count += 1;
    ///         if !value.is_empty() {
    ///             keys.push(sort[0]);
    ///         }
    ///         Ok::<_, BackendError>(())
    ///     })
    ///     .await
    ///     .unwrap();
    /// assert_eq!((count, keys), (3, vec![b'a', b'b']));
    /// # });
    /// ```
    fn scan_fold<A, E, F>(
        &self,
        scan: Scan,
        mut acc: A,
        mut fold: F,
    ) -> impl Future<Output = Result<A, E>> + Send
    where
        A: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(&mut A, &[u8], u64, &[u8]) -> Result<(), E> + Send + 'static,
    {
        async move {
            for e in self.scan(scan).await? {
                fold(&mut acc, &e.sort, e.record.version, &e.record.value)?;
            }
            Ok(acc)
        }
    }

    /// Applies a batch of writes atomically, in any order (a batch touches each key at most
    /// once; otherwise [`BackendError::DuplicateKey`] and nothing is written).
    ///
    /// Every condition is checked against the state before the batch. If any fails, the
    /// result is [`BackendError::ConditionFailed`] naming the first failing write (lowest
    /// index) and **nothing** is written. When `Ok` is returned, the batch is durable to the
    /// degree the backend documents (the embedded backend: on disk). An empty batch succeeds.
    fn write(&self, writes: Vec<Write>) -> impl Future<Output = Result<(), BackendError>> + Send;

    /// Reads `keys` (as [`Backend::batch_get`]), hands the records to `plan`, and applies
    /// the batch of writes `plan` returns (as [`Backend::write`]; an empty batch writes
    /// nothing). The result is what `plan` returned beside the batch, with the write's
    /// outcome: a caller learns which of its writes a failed condition names. A read error,
    /// or an error `plan` returns, is the result instead, and nothing is written.
    ///
    /// The default reads, plans and writes in three steps; the batch's conditions are what
    /// keep it right against writes that come in between. The embedded backend overrides it
    /// to do all three in one write transaction (one trip to its blocking pool instead of
    /// two, and nothing can come in between). `plan` must not call the backend.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError, Condition, Key, Record, Write};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let key = Key::new(b"g".to_vec(), b"counter".to_vec());
    /// // Increments a counter kept in the record's version, if it is still what was read.
    /// let bump = |key: Key| {
    ///     move |got: Vec<Option<Record>>| {
    ///         let current = got[0].as_ref().map(|r| r.version);
    ///         let record = Record { value: vec![], version: current.unwrap_or(0) + 1 };
    ///         let condition = current.map_or(Condition::NotExists, Condition::VersionEquals);
    ///         Ok::<_, BackendError>((vec![Write::Put { key, record, condition }], current))
    ///     }
    /// };
    /// let (before, written) = db.read_then_write(vec![key.clone()], bump(key.clone())).await.unwrap();
    /// assert!(before.is_none() && written.is_ok());
    /// let (before, written) = db.read_then_write(vec![key.clone()], bump(key.clone())).await.unwrap();
    /// assert!(before == Some(1) && written.is_ok());
    /// assert_eq!(db.get(key).await.unwrap().unwrap().version, 2);
    /// # });
    /// ```
    fn read_then_write<T, E, F>(
        &self,
        keys: Vec<Key>,
        plan: F,
    ) -> impl Future<Output = Result<(T, Result<(), BackendError>), E>> + Send
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(Vec<Option<Record>>) -> Result<(Vec<Write>, T), E> + Send + 'static,
    {
        async move {
            let got = self.batch_get(keys).await?;
            let (writes, made) = plan(got)?;
            if writes.is_empty() {
                return Ok((made, Ok(())));
            }
            Ok((made, self.write(writes).await))
        }
    }

    /// Every group key holding a record whose first byte is at least `from`, in byte
    /// order: what an export or a check of the whole store walks (a full table scan on
    /// DynamoDB, one seek per group on redb and SlateDB). The store's own records live in
    /// groups starting with `00`, so `groups(1)` lists exactly the item groups.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, Condition, Key, Record, Write};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = MemoryBackend::new();
    /// let put = |g: &[u8]| Write::Put {
    ///     key: Key::new(g, b"s"),
    ///     record: Record { value: vec![1], version: 1 },
    ///     condition: Condition::None,
    /// };
    /// db.write(vec![put(b"b"), put(b"a"), put(b"\x00x")]).await.unwrap();
    /// assert_eq!(db.groups(1).await.unwrap(), [b"a".to_vec(), b"b".to_vec()]);
    /// assert_eq!(db.groups(0).await.unwrap().len(), 3);
    /// # });
    /// ```
    fn groups(&self, from: u8) -> impl Future<Output = Result<Vec<Vec<u8>>, BackendError>> + Send;

    /// The secondary indexes this backend keeps itself from the items' own records (on
    /// DynamoDB: the table's sortpath GSIs), or `None` if it keeps none and every index is
    /// the store's exact entries (the default, and the embedded and in-memory backends).
    ///
    /// The store writes no entries for an index named here: the backend derives the index
    /// key from each item record it stores (the index key paths an item's envelope carries)
    /// and answers [`Backend::scan_index`] for it, eventually consistent.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend};
    /// assert_eq!(MemoryBackend::new().maintained_indexes(), None);
    /// ```
    fn maintained_indexes(&self) -> Option<&[String]> {
        None
    }

    /// Whether processes other than this one may write the backend while this one uses it
    /// (a DynamoDB table: `true`). The embedded backends are written by one process at a
    /// time (a redb file is locked while open, a SlateDB writer fences the one before it),
    /// the in-memory one by this process only: `false`, the default. A store on a backend
    /// other processes write waits, before it builds an index, until every other process
    /// has read the declaration again (see [`Store::with_config_refresh`](crate::Store::with_config_refresh)).
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend};
    /// assert!(!MemoryBackend::new().shared_by_processes());
    /// ```
    fn shared_by_processes(&self) -> bool {
        false
    }

    /// Whether the backend stores items by their parts: `true` makes the store send each
    /// item write as [`Write::PutItem`] with its [`ItemParts`] (DynamoDB's native
    /// attributes and GSI keys come from them); `false` (the default: the embedded and
    /// in-memory backends, which store the value as it is) sends [`Write::Put`] and saves
    /// making the parts.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend};
    /// assert!(!MemoryBackend::new().wants_item_parts());
    /// ```
    fn wants_item_parts(&self) -> bool {
        false
    }

    /// For every record that carries key attributes of an index the backend keeps itself
    /// ([`Backend::maintained_indexes`]), those attributes as stored, read from the whole
    /// backend; records that carry none are not listed. `None` if the backend keeps no
    /// index, or cannot tell (the default). For a consistency check
    /// ([`check::check_backend`](crate::check::check_backend)): an item whose index key
    /// has no such attributes is missing from the index, a record that has some without
    /// the index key is listed by it wrongly, and neither shows in a read of the record.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(MemoryBackend::new().maintained_index_keys().await.unwrap(), None);
    /// # });
    /// ```
    fn maintained_index_keys(
        &self,
    ) -> impl Future<Output = Result<Option<MaintainedKeys>, BackendError>> + Send {
        async { Ok(None) }
    }

    /// Scans index `index`, one of [`Backend::maintained_indexes`], as [`Backend::scan`]
    /// scans a group: `scan.group` is the encoding of the index key paths' group (their
    /// first component), the sort keys are the ones exact entries have
    /// ([`layout`](crate::layout): the escaped rest, `00 00`, the item's path), so results
    /// come in the order the exact index gives. Each entry's value is what an exact entry
    /// holds: the item ([`ENTRY_PROJECTED`](crate::layout::ENTRY_PROJECTED), with the
    /// item's version) where the index projects it, [`ENTRY_FORMAT`](crate::layout::ENTRY_FORMAT)
    /// otherwise. Results may lag the last writes (eventual consistency); a scan asking for
    /// [`Consistency::Strong`] is an error. The default: an error, as the backend keeps no
    /// index.
    ///
    /// ```
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, Scan};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let err = MemoryBackend::new().scan_index("by_n", Scan::group(vec![1])).await.unwrap_err();
    /// assert!(err.to_string().contains("keeps no index by_n"));
    /// # });
    /// ```
    fn scan_index(
        &self,
        index: &str,
        scan: Scan,
    ) -> impl Future<Output = Result<Vec<Entry>, BackendError>> + Send {
        let _ = scan;
        let err = BackendError::storage(format!(
            "this backend keeps no index {index} itself (see Backend::maintained_indexes)"
        ));
        async move { Err(err) }
    }
}

#[cfg(test)]
mod tests;
