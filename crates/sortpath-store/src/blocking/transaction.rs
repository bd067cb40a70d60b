//! [`Transaction`]: the async store's transactions, called without a runtime.

use std::collections::BTreeMap;

use sortpath::KeyPath;

use super::drive;
use crate::backend::redb::RedbBackend;
use crate::{CommitError, GetError, Item, RawItem, Versioned, WriteError};

/// An optimistic transaction of a blocking [`Store`](super::Store), as [`crate::Transaction`]: reads are
/// remembered with their versions, writes buffered until [`Transaction::commit`], which
/// fails with [`CommitError::Conflict`] (writing nothing) if anything read changed.
///
/// ```
/// use sortpath_store::CommitError;
/// # use sortpath::{path::PathError, KeyPath};
/// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64, n: u64 }
/// # impl sortpath_store::Item for User {
/// #     const TYPE: &'static str = "user";
/// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
/// # }
/// let dir = tempfile::tempdir().unwrap();
/// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
/// let mut txn = store.transaction();
/// assert!(txn.get::<User>(&"/user-1".parse().unwrap()).unwrap().is_none());
/// store.put(&User { id: 1, n: 1 }).unwrap(); // changes what the transaction read
/// txn.put(&User { id: 1, n: 2 }).unwrap();
/// assert!(matches!(txn.commit(), Err(CommitError::Conflict { .. })));
/// ```
#[derive(Debug)]
pub struct Transaction<'s> {
    pub(super) inner: crate::Transaction<'s, RedbBackend>,
}

impl Transaction<'_> {
    /// Reads an item (or this transaction's own pending write of it) as type `T`.
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let mut txn = store.transaction();
    /// txn.put(&User { id: 3 }).unwrap();
    /// let pending = txn.get::<User>(&"/user-3".parse().unwrap()).unwrap().unwrap();
    /// assert_eq!((pending.item.id, pending.version), (3, 0)); // version 0 until committed
    /// ```
    pub fn get<T: Item>(&mut self, path: &KeyPath) -> Result<Option<Versioned<T>>, GetError> {
        drive(self.inner.get(path))
    }

    /// Reads an item undecoded; a pending write of this transaction is returned as written.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let mut txn = store.transaction();
    /// assert!(txn.get_raw(&"/a-1".parse().unwrap()).unwrap().is_none());
    /// ```
    pub fn get_raw(&mut self, path: &KeyPath) -> Result<Option<RawItem>, GetError> {
        drive(self.inner.get_raw(path))
    }

    /// Buffers a put of `item` (insert or replace).
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let mut txn = store.transaction();
    /// txn.put(&User { id: 1 }).unwrap();
    /// assert!(store.get::<User>(&"/user-1".parse().unwrap()).unwrap().is_none()); // not yet
    /// ```
    pub fn put<T: Item>(&mut self, item: &T) -> Result<(), WriteError> {
        self.inner.put(item)
    }

    /// Buffers a delete.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let mut txn = store.transaction();
    /// assert!(txn.delete(&"/user".parse().unwrap()).is_err()); // no group ID
    /// ```
    pub fn delete(&mut self, path: &KeyPath) -> Result<(), WriteError> {
        self.inner.delete(path)
    }

    /// Commits: writes everything or nothing, durably. Returns the new version of each
    /// written item by key path (`None` for deletes).
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let mut txn = store.transaction();
    /// txn.put(&User { id: 1 }).unwrap();
    /// txn.delete(&"/user-2".parse().unwrap()).unwrap();
    /// let versions = txn.commit().unwrap();
    /// assert_eq!(versions.len(), 2);
    /// assert_eq!(versions[&"/user-2".parse().unwrap()], None);
    /// ```
    pub fn commit(self) -> Result<BTreeMap<KeyPath, Option<u64>>, CommitError> {
        drive(self.inner.commit())
    }
}
