//! An in-memory [`Backend`]: a `BTreeMap` behind a lock. For tests and examples; nothing is
//! persisted.

use sortpath::Order;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, RwLock};

use super::{duplicate_key, Backend, BackendError, Entry, Key, Record, Scan, Write};

/// An in-memory ordered byte map. Cloning shares the same map.
///
/// ```
/// use sortpath_store::backend::{memory::MemoryBackend, Backend, Key};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let db = MemoryBackend::new();
/// assert_eq!(db.get(Key::new(vec![1], vec![1])).await.unwrap(), None);
/// # });
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemoryBackend {
    map: Arc<RwLock<BTreeMap<Key, Record>>>,
}

impl MemoryBackend {
    /// An empty map.
    ///
    /// ```
    /// let db = sortpath_store::backend::memory::MemoryBackend::new();
    /// assert_eq!(db.len(), 0);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of records.
    ///
    /// ```
    /// assert!(sortpath_store::backend::memory::MemoryBackend::new().is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether there are no records.
    ///
    /// ```
    /// assert!(sortpath_store::backend::memory::MemoryBackend::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// A copy of every record, in key order (for model checks in tests).
    ///
    /// ```
    /// assert!(sortpath_store::backend::memory::MemoryBackend::new().snapshot().is_empty());
    /// ```
    pub fn snapshot(&self) -> Vec<(Key, Record)> {
        self.read()
            .iter()
            .map(|(k, r)| (k.clone(), r.clone()))
            .collect()
    }

    // A panic while holding the lock cannot leave the map half-updated (every update is
    // checked before the first mutation), so a poisoned lock is safe to keep using.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<Key, Record>> {
        self.map.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write_lock(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<Key, Record>> {
        self.map.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// The map bounds of a scan: the first and last possible keys of `scan.group` within the
/// sort-key bounds. `group ++ [0x00]` is the next group after `group` in byte order, so
/// excluding it (with an empty sort key) ends the group.
pub(crate) fn key_bounds(scan: &Scan) -> (Bound<Key>, Bound<Key>) {
    let g = || scan.group.clone();
    let lower = match &scan.start {
        Bound::Included(s) => Bound::Included(Key::new(g(), s.clone())),
        Bound::Excluded(s) => Bound::Excluded(Key::new(g(), s.clone())),
        Bound::Unbounded => Bound::Included(Key::new(g(), Vec::new())),
    };
    let upper = match &scan.end {
        Bound::Included(e) => Bound::Included(Key::new(g(), e.clone())),
        Bound::Excluded(e) => Bound::Excluded(Key::new(g(), e.clone())),
        Bound::Unbounded => {
            let mut next = g();
            next.push(0);
            Bound::Excluded(Key::new(next, Vec::new()))
        }
    };
    (lower, upper)
}

impl Backend for MemoryBackend {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut groups: Vec<Vec<u8>> = self
            .read()
            .keys()
            .filter(|k| k.group.first().is_some_and(|b| *b >= from))
            .map(|k| k.group.clone())
            .collect();
        groups.dedup();
        Ok(groups)
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        Ok(self.read().get(&key).cloned())
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        let map = self.read();
        Ok(keys.iter().map(|k| map.get(k).cloned()).collect())
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        let limit = scan.limit.unwrap_or(usize::MAX);
        if limit == 0 || scan.is_empty_range() {
            return Ok(Vec::new());
        }
        let map = self.read();
        let range = map.range(key_bounds(&scan));
        let entry = |(k, r): (&Key, &Record)| Entry {
            sort: k.sort.clone(),
            record: r.clone(),
        };
        Ok(match scan.order {
            Order::Ascending => range.take(limit).map(entry).collect(),
            Order::Descending => range.rev().take(limit).map(entry).collect(),
        })
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        if let Some((first, second)) = duplicate_key(&writes) {
            return Err(BackendError::DuplicateKey { first, second });
        }
        let mut map = self.write_lock();
        for (index, w) in writes.iter().enumerate() {
            let current = map.get(w.key()).map(|r| r.version);
            if !w.condition().holds(current) {
                return Err(BackendError::ConditionFailed { index, current });
            }
        }
        for w in writes {
            match w {
                Write::Put { key, record, .. } | Write::PutItem { key, record, .. } => {
                    map.insert(key, record);
                }
                Write::Delete { key, .. } => {
                    map.remove(&key);
                }
                Write::Check { .. } => {}
            }
        }
        Ok(())
    }
}
