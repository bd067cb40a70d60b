//! Transactions: read several items, then write several, atomically, failing (and writing
//! nothing) if anything read changed before the commit.

use std::collections::BTreeMap;

use sortpath::KeyPath;

use crate::backend::{Backend, Key};
use crate::error::{CommitError, GetError, InvalidKeyError, WriteError};
use crate::item::{encode_item, Item, RawItem, Versioned};
use crate::store::commit::ReadCheck;
use crate::store::encode::{index_keys, Expect, ItemWrite, NewItem};
use crate::store::{backend_key, Store};

/// An optimistic transaction: reads go to the store and are remembered with their versions;
/// writes are buffered until [`Transaction::commit`], which applies them in one atomic
/// backend batch on the condition that every item read is still at the version read
/// (or still absent). On [`CommitError::Conflict`] nothing was written; run it again.
///
/// ```
/// # use sortpath::{path::PathError, KeyPath};
/// # #[derive(serde::Serialize, serde::Deserialize, Clone)] struct Account { id: u64, balance: i64 }
/// # impl sortpath_store::Item for Account {
/// #     const TYPE: &'static str = "account";
/// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("account", self.id) }
/// # }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
/// store.put(&Account { id: 1, balance: 10 }).await.unwrap();
/// store.put(&Account { id: 2, balance: 0 }).await.unwrap();
/// let mut txn = store.transaction();
/// let mut a = txn.get::<Account>(&"/account-1".parse().unwrap()).await.unwrap().unwrap().item;
/// let mut b = txn.get::<Account>(&"/account-2".parse().unwrap()).await.unwrap().unwrap().item;
/// a.balance -= 5;
/// b.balance += 5;
/// txn.put(&a).unwrap();
/// txn.put(&b).unwrap();
/// txn.commit().await.unwrap();
/// # });
/// ```
#[derive(Debug)]
pub struct Transaction<'s, B: Backend> {
    store: &'s Store<B>,
    reads: BTreeMap<KeyPath, (Key, Option<u64>)>,
    writes: BTreeMap<KeyPath, ItemWrite>,
}

impl<B: Backend> Store<B> {
    /// Starts a transaction.
    ///
    /// ```
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let txn = store.transaction();
    /// ```
    pub fn transaction(&self) -> Transaction<'_, B> {
        Transaction {
            store: self,
            reads: BTreeMap::new(),
            writes: BTreeMap::new(),
        }
    }
}

impl<B: Backend> Transaction<'_, B> {
    /// Reads an item (or this transaction's own pending write of it) as type `T`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let mut txn = store.transaction();
    /// assert!(txn.get_raw(&"/a-1".parse().unwrap()).await.unwrap().is_none());
    /// # });
    /// ```
    pub async fn get<T: Item>(&mut self, path: &KeyPath) -> Result<Option<Versioned<T>>, GetError> {
        Ok(self
            .get_raw(path)
            .await?
            .map(RawItem::into_item)
            .transpose()?)
    }

    /// Reads an item undecoded; a pending write of this transaction is returned as written
    /// (version 0 until committed).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let mut txn = store.transaction();
    /// txn.delete(&"/a-1".parse().unwrap()).unwrap();
    /// assert!(txn.get_raw(&"/a-1".parse().unwrap()).await.unwrap().is_none());
    /// # });
    /// ```
    pub async fn get_raw(&mut self, path: &KeyPath) -> Result<Option<RawItem>, GetError> {
        if let Some(w) = self.writes.get(path) {
            return Ok(w.new.as_ref().map(|n| RawItem {
                key: path.clone(),
                item_type: n.item_type.clone(),
                version: 0,
                payload: n.payload.clone(),
            }));
        }
        let key = backend_key(path)?;
        let got = self.store.get_raw(path).await?;
        // The first read decides what the commit requires.
        self.reads
            .entry(path.clone())
            .or_insert((key, got.as_ref().map(RawItem::version)));
        Ok(got)
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
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let mut txn = store.transaction();
    /// txn.put(&User { id: 1 }).unwrap();
    /// ```
    pub fn put<T: Item>(&mut self, item: &T) -> Result<(), WriteError> {
        let path = item
            .key_path()
            .map_err(|e| InvalidKeyError::path(format!("(key path of a {})", T::TYPE), e))?;
        let new = NewItem::typed::<T>(encode_item(&path, item)?, index_keys(item)?);
        self.buffer(path, Some(new))
    }

    /// Buffers a delete.
    ///
    /// ```
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let mut txn = store.transaction();
    /// assert!(txn.delete(&"/user".parse().unwrap()).is_err()); // no group ID
    /// ```
    pub fn delete(&mut self, path: &KeyPath) -> Result<(), WriteError> {
        self.buffer(path.clone(), None)
    }

    fn buffer(&mut self, path: KeyPath, new: Option<NewItem>) -> Result<(), WriteError> {
        let key = backend_key(&path)?;
        self.writes.insert(
            path.clone(),
            ItemWrite {
                path,
                key,
                new,
                expect: Expect::Any,
            },
        );
        Ok(())
    }

    /// Commits: writes everything or nothing. Fails with [`CommitError::Conflict`] if an item
    /// read changed since. Returns the new version of each written item, by key path
    /// (`None` for deletes).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(store.transaction().commit().await.unwrap().is_empty());
    /// # });
    /// ```
    pub async fn commit(self) -> Result<BTreeMap<KeyPath, Option<u64>>, CommitError> {
        let mut reads = self.reads;
        let writes: Vec<ItemWrite> = self
            .writes
            .into_values()
            .map(|mut w| {
                if let Some((_, version)) = reads.remove(&w.path) {
                    w.expect = Expect::Read(version);
                }
                w
            })
            .collect();
        let checks = reads
            .into_iter()
            .map(|(path, (key, version))| ReadCheck { path, key, version })
            .collect();
        let paths: Vec<KeyPath> = writes.iter().map(|w| w.path.clone()).collect();
        let versions = self.store.commit(writes, checks).await?;
        Ok(paths
            .into_iter()
            .zip(versions.into_iter().map(|o| o.version))
            .collect())
    }
}
