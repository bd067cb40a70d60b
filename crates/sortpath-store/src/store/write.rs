//! The public writes: put (typed and raw, with its modes), delete, update. Each encodes its
//! items (`encode.rs`) and hands them to the commit engine (`commit.rs`), which writes them
//! with their index entries in one conditional backend batch.

use serde::Serialize;
use sortpath::KeyPath;

use super::commit::{pause, MAX_ATTEMPTS};
use super::encode::{index_keys, Expect, ItemWrite, NewItem};
use super::{backend_key, Store};
use crate::backend::Backend;
use crate::error::{CommitError, InvalidKeyError, WriteError};
use crate::item::{encode_item, encode_value, Item, RawItem, Versioned};
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
}

#[cfg(test)]
mod tests;
