//! The store: typed items with secondary indexes over a [`Backend`].

use std::sync::Arc;

use sortpath::KeyPath;

use crate::backend::{Backend, Key};
use crate::envelope::{Field, Header};
use crate::error::{CorruptError, Fault, GetError, InvalidKeyError, NotAnItemError};
use crate::item::{versioned_from_parts, Item, RawItem, Versioned};
use crate::layout::counter_key;
use crate::Limits;

mod build;
#[cfg(feature = "redb")]
mod builder;
pub(crate) mod commit;
mod config;
pub(crate) mod encode;
mod list;
mod state;
pub(crate) mod write;

#[cfg(feature = "redb")]
pub use builder::Builder;
pub(crate) use state::State;
pub use write::PutMode;

/// Item collections with secondary indexes over a backend. Cloning shares the backend.
///
/// Every write puts the item and its index entries in one atomic backend batch. A store
/// created with [`StoreConfig::group_versions`](crate::StoreConfig::group_versions) also bumps
/// the group's version counter in that batch (the item's version is then the counter's new
/// value); by default it keeps no counter and an item's version is its own.
///
/// ```
/// use sortpath::{path::PathError, KeyPath};
/// use sortpath_store::{backend::memory::MemoryBackend, Item, Query, Store};
///
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Post { user: u64, id: u64, title: String }
/// impl Item for Post {
///     const TYPE: &'static str = "post";
///     fn key_path(&self) -> Result<KeyPath, PathError> {
///         KeyPath::new().push("user", self.user)?.push("post", self.id)
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// for id in [9, 10, 100] {
///     store.put(&Post { user: 1, id, title: format!("post {id}") }).await?;
/// }
/// let page = store.list::<Post>(&Query::children(&"/user-1".parse()?, "post")?.reverse()).await?;
/// let ids: Vec<u64> = page.items.iter().map(|p| p.item.id).collect();
/// assert_eq!(ids, [100, 10, 9]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct Store<B: Backend> {
    backend: Arc<B>,
    limits: Limits,
    /// How long a check of [`State::declared`] is trusted before a write reads the
    /// configuration again.
    pub(crate) config_refresh: std::time::Duration,
    /// What this store and its clones know of the configuration, shared.
    pub(crate) state: Arc<State>,
}

/// How long a store trusts the index declarations it read, by default: see
/// [`Store::with_config_refresh`].
pub const CONFIG_REFRESH: std::time::Duration = std::time::Duration::from_secs(10);

impl<B: Backend> Clone for Store<B> {
    fn clone(&self) -> Self {
        Store {
            backend: self.backend.clone(),
            limits: self.limits,
            config_refresh: self.config_refresh,
            state: self.state.clone(),
        }
    }
}

#[cfg(feature = "redb")]
impl Store<crate::backend::redb::RedbBackend> {
    /// Opens the embedded store in directory `dir`, creating it if there is none (as redb's
    /// `Database::create`). A new store is created whole or not at all, without a
    /// configuration record (no declared indexes; [`Store::builder`] with
    /// [`config`](Builder::config) declares some from the start).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::Store::create(dir.path()).await.unwrap();
    /// assert!(store.get_raw(&"/a-1".parse().unwrap()).await.unwrap().is_none());
    /// # });
    /// ```
    pub async fn create(
        dir: impl AsRef<std::path::Path>,
    ) -> Result<Self, crate::backend::redb::OpenError> {
        Builder::new().create(dir).await
    }

    /// Opens the embedded store in directory `dir`; fails with
    /// [`OpenError::Missing`](crate::backend::redb::OpenError::Missing) if there is none
    /// (as redb's `Database::open`).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::redb::OpenError, Store};
    /// let dir = tempfile::tempdir().unwrap();
    /// assert!(matches!(Store::open(dir.path()).await, Err(OpenError::Missing(_))));
    /// drop(Store::create(dir.path()).await.unwrap());
    /// assert!(Store::open(dir.path()).await.is_ok());
    /// # });
    /// ```
    pub async fn open(
        dir: impl AsRef<std::path::Path>,
    ) -> Result<Self, crate::backend::redb::OpenError> {
        Builder::new().open(dir).await
    }

    /// Opens the embedded store in directory `dir` for reads only (see
    /// [`RedbBackend::open_read_only`](crate::backend::redb::RedbBackend::open_read_only)):
    /// gets, lists and index queries work on a read-only file system; writes fail.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// drop(sortpath_store::Store::create(dir.path()).await.unwrap());
    /// let store = sortpath_store::Store::open_read_only(dir.path()).await.unwrap();
    /// assert_eq!(store.config().await.unwrap(), sortpath_store::StoreConfig::default());
    /// # });
    /// ```
    pub async fn open_read_only(
        dir: impl AsRef<std::path::Path>,
    ) -> Result<Self, crate::backend::redb::OpenError> {
        Builder::new().open_read_only(dir).await
    }

    /// Options for opening or creating the embedded store (as redb's `Builder`): the
    /// configuration a new store starts with, limits, how long index declarations are
    /// trusted.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{IndexDecl, Store, StoreConfig};
    /// let dir = tempfile::tempdir().unwrap();
    /// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
    /// let store = Store::builder().config(config.clone()).create(dir.path()).await.unwrap();
    /// assert_eq!(store.config().await.unwrap(), config);
    /// # });
    /// ```
    pub fn builder() -> Builder {
        Builder::new()
    }
}

/// Splits a key path into its backend key.
pub(crate) fn backend_key(path: &KeyPath) -> Result<Key, InvalidKeyError> {
    let (group, sort) = path
        .split_group()
        .map_err(|e| InvalidKeyError::path(path.to_string(), e))?;
    if ends_with_namespace(path.as_bytes()) {
        return Err(InvalidKeyError::rule(
            path.to_string(),
            "an item's last component needs an ID",
        ));
    }
    Ok(Key { group, sort })
}

/// Whether the valid key path encoding `bytes` ends with a namespace segment (its last
/// component has no ID), read from its metadata alone: the last segment's metadata is the
/// last varint, whose first byte carries the segment's type in its low bits, and every
/// byte of a varint but its last has the high bit set (docs/FORMAT.md). The byte before
/// the last varint (the varint before it, or the terminator) has it clear. Walking the
/// segments instead checks each namespace as UTF-8.
#[inline]
pub(crate) fn ends_with_namespace(bytes: &[u8]) -> bool {
    use sortpath::consts::path::{TYPE_BITS, TYPE_NAMESPACE};
    let Some((&last, before)) = bytes.split_last() else {
        return false;
    };
    let first = before
        .iter()
        .rev()
        .take_while(|&&b| b & 0x80 != 0)
        .last()
        .copied()
        .unwrap_or(last);
    first & ((1 << TYPE_BITS) - 1) == TYPE_NAMESPACE
}

/// What `make` makes of the stored `value` of the item at `key`: the envelope's framing is
/// checked (nothing decoded) and its type name and payload handed over.
#[inline(always)]
pub(crate) fn item_from_value<I>(
    key: KeyPath,
    version: u64,
    value: &[u8],
    make: impl Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault>,
) -> Result<I, Fault> {
    let (item_type, payload_start) = match Header::frame_item(value) {
        Ok(framed) => framed,
        Err(e) => return Err(not_an_item(&key, e).into()),
    };
    make(key, version, item_type, &value[payload_start..])
}

/// The error for a record at `key` whose value is not an item's envelope.
pub(crate) fn not_an_item(key: &KeyPath, reason: impl Into<CorruptError>) -> NotAnItemError {
    let (group, sort) = key.split_group().unwrap_or_default();
    NotAnItemError {
        record: Box::new(crate::ForeignRecord::new(group, sort)),
        reason: reason.into(),
    }
}

/// An item of type `T` from its stored parts (the type name must be `T::TYPE`).
#[inline(always)]
pub(crate) fn typed_from_parts<T: Item>(
    key: KeyPath,
    version: u64,
    item_type: Field<'_>,
    payload: &[u8],
) -> Result<Versioned<T>, Fault> {
    Ok(versioned_from_parts::<T>(
        key,
        version,
        item_type.bytes,
        payload,
    )?)
}

/// An undecoded item from its stored parts (the type name is checked as UTF-8 here).
pub(crate) fn raw_from_parts(
    key: KeyPath,
    version: u64,
    item_type: Field<'_>,
    payload: &[u8],
) -> Result<RawItem, Fault> {
    Ok(RawItem {
        key,
        item_type: item_type.utf8("item type name")?.to_owned(),
        version,
        payload: payload.to_vec(),
    })
}

impl<B: Backend> Store<B> {
    /// A store over `backend` with the default [`Limits`].
    ///
    /// ```
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert_eq!(store.limits(), sortpath_store::Limits::default());
    /// ```
    pub fn new(backend: B) -> Self {
        Store {
            backend: Arc::new(backend),
            limits: Limits::default(),
            config_refresh: CONFIG_REFRESH,
            state: Arc::default(),
        }
    }

    /// This store (its limits, what it knows is declared) over another handle of its backend.
    #[cfg(feature = "redb")]
    pub(crate) fn with_backend(&self, backend: B) -> Self {
        Store {
            backend: Arc::new(backend),
            limits: self.limits,
            config_refresh: self.config_refresh,
            state: self.state.clone(),
        }
    }

    /// The same store with other limits.
    ///
    /// ```
    /// use sortpath_store::{backend::memory::MemoryBackend, Limits, Store};
    /// let store = Store::new(MemoryBackend::new()).with_limits(Limits::new(64, 64, 1024));
    /// assert_eq!(store.limits().max_value, 1024);
    /// ```
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The same store, trusting the index declarations it has read for `refresh` (by default
    /// [`CONFIG_REFRESH`], 10 s): a write of an item type whose declarations were read longer
    /// ago reads the configuration again in the same step, and is refused if the store now
    /// declares an index its type does not compute (another process's newer program
    /// declared it). On a backend other processes write (DynamoDB,
    /// [`Backend::shared_by_processes`]), [`Store::build_indexes`] waits twice `refresh`
    /// before it gives items their entries, so that every other process has read the new
    /// declaration by then: every process of a store must use the same `refresh`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use sortpath_store::{backend::memory::MemoryBackend, Store, CONFIG_REFRESH};
    /// let store = Store::new(MemoryBackend::new());
    /// assert_eq!(store.config_refresh(), CONFIG_REFRESH);
    /// let store = store.with_config_refresh(Duration::from_secs(2));
    /// assert_eq!(store.config_refresh(), Duration::from_secs(2));
    /// ```
    pub fn with_config_refresh(mut self, refresh: std::time::Duration) -> Self {
        self.config_refresh = refresh;
        self
    }

    /// How long this store trusts the index declarations it has read; see
    /// [`Store::with_config_refresh`].
    ///
    /// ```
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert_eq!(store.config_refresh(), sortpath_store::CONFIG_REFRESH);
    /// ```
    pub fn config_refresh(&self) -> std::time::Duration {
        self.config_refresh
    }

    /// The limits in force.
    ///
    /// ```
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert_eq!(store.limits().max_sort_key, 1024);
    /// ```
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The backend.
    ///
    /// ```
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(store.backend().is_empty());
    /// ```
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// Reads the item at `path` as type `T`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let got = store.get_raw(&"/user-1".parse().unwrap()).await.unwrap();
    /// assert!(got.is_none());
    /// # });
    /// ```
    pub async fn get<T: Item>(&self, path: &KeyPath) -> Result<Option<Versioned<T>>, GetError> {
        self.get_with(path, crate::backend::Consistency::Strong)
            .await
    }

    /// [`Store::get`] at a chosen consistency: on DynamoDB an eventually consistent read
    /// costs half and may miss the last second's writes; the embedded backends read their
    /// latest state either way.
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::{memory::MemoryBackend, Consistency}, Store};
    /// let store = Store::new(MemoryBackend::new());
    /// store.put(&User { id: 1 }).await.unwrap();
    /// let got = store.get_with::<User>(&"/user-1".parse().unwrap(), Consistency::Eventual).await.unwrap();
    /// assert_eq!(got.unwrap().item.id, 1);
    /// # });
    /// ```
    pub async fn get_with<T: Item>(
        &self,
        path: &KeyPath,
        consistency: crate::backend::Consistency,
    ) -> Result<Option<Versioned<T>>, GetError> {
        Ok(self
            .get_one_with(path, consistency, typed_from_parts::<T>)
            .await?)
    }

    /// [`Store::get`] for the store's own reads (an update's), failing as they do.
    pub(crate) async fn get_item<T: Item>(
        &self,
        path: &KeyPath,
    ) -> Result<Option<Versioned<T>>, Fault> {
        self.get_one_with(
            path,
            crate::backend::Consistency::Strong,
            typed_from_parts::<T>,
        )
        .await
    }

    /// Reads the item at `path` without decoding its value.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(store.get_raw(&"/user".parse().unwrap()).await.is_err()); // no group ID
    /// # });
    /// ```
    pub async fn get_raw(&self, path: &KeyPath) -> Result<Option<RawItem>, GetError> {
        Ok(self
            .get_one_with(path, crate::backend::Consistency::Strong, raw_from_parts)
            .await?)
    }

    /// Reads several items as type `T`, one slot per path in order.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let got = store.batch_get_raw(&["/a-1".parse().unwrap(), "/b-2/c-3".parse().unwrap()]).await.unwrap();
    /// assert_eq!(got, [None, None]);
    /// # });
    /// ```
    pub async fn batch_get<T: Item>(
        &self,
        paths: &[KeyPath],
    ) -> Result<Vec<Option<Versioned<T>>>, GetError> {
        Ok(self
            .batch_get_with(
                paths,
                crate::backend::Consistency::Strong,
                typed_from_parts::<T>,
            )
            .await?)
    }

    /// Reads several items without decoding them, one slot per path in order.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(store.batch_get_raw(&[]).await.unwrap().is_empty());
    /// # });
    /// ```
    pub async fn batch_get_raw(&self, paths: &[KeyPath]) -> Result<Vec<Option<RawItem>>, GetError> {
        Ok(self
            .batch_get_with(paths, crate::backend::Consistency::Strong, raw_from_parts)
            .await?)
    }

    /// [`Store::batch_get_with`] of one path ([`Backend::get_map_with`]), without the vector
    /// of paths around it.
    async fn get_one_with<I, M>(
        &self,
        path: &KeyPath,
        consistency: crate::backend::Consistency,
        make: M,
    ) -> Result<Option<I>, Fault>
    where
        I: Send + 'static,
        M: Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault> + Send + 'static,
    {
        let key = self.item_key(path).await?;
        // The path moves into the item (`make` is called at most once).
        let mut owned = path.clone();
        self.backend
            .get_map_with(key, consistency, move |version, value| {
                item_from_value(std::mem::take(&mut owned), version, value, &make)
            })
            .await
    }

    /// Reads the items at `paths`, each made by `make` from its key path, version, type
    /// name and payload inside the backend's read ([`Backend::batch_get_map`]): on the
    /// embedded backend, on the blocking thread over borrowed bytes.
    async fn batch_get_with<I, M>(
        &self,
        paths: &[KeyPath],
        consistency: crate::backend::Consistency,
        make: M,
    ) -> Result<Vec<Option<I>>, Fault>
    where
        I: Send + 'static,
        M: Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault> + Send + 'static,
    {
        let mut keys = Vec::with_capacity(paths.len());
        for path in paths {
            keys.push(self.item_key(path).await?);
        }
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        // Each slot's path moves into its item (a slot is handed to `make` at most once).
        let mut owned = paths.to_vec();
        self.backend
            .batch_get_map_with(keys, consistency, move |slot, version, value| {
                item_from_value(std::mem::take(&mut owned[slot]), version, value, &make)
            })
            .await
    }

    /// The version counter of `path`'s group: how many writes the group has had (0 if none).
    /// Only a store created with
    /// [`StoreConfig::group_versions`](crate::StoreConfig::group_versions) keeps one; on any
    /// other this is [`GetError::GroupVersionsOff`].
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::memory::MemoryBackend, GetError, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// let path = "/a-1/b-2".parse().unwrap();
    /// assert!(matches!(store.group_version(&path).await, Err(GetError::GroupVersionsOff)));
    /// let counted = Store::new(MemoryBackend::new());
    /// counted.create_config(&StoreConfig::new(vec![]).with_group_versions(true)).await.unwrap();
    /// assert_eq!(counted.group_version(&path).await.unwrap(), 0);
    /// # });
    /// ```
    pub async fn group_version(&self, path: &KeyPath) -> Result<u64, GetError> {
        let group = path
            .split_group()
            .map_err(|e| InvalidKeyError::path(path.to_string(), e))?
            .0;
        if !self.keeps_group_versions().await? {
            return Err(GetError::GroupVersionsOff);
        }
        Ok(self
            .backend
            .get(counter_key(&group))
            .await?
            .map_or(0, |r| r.version))
    }

    /// The backend key of the item at `path`: [`backend_key`], with a root item's sort key
    /// where the configuration places it (read once, when a root item is first met).
    pub(crate) async fn item_key(&self, path: &KeyPath) -> Result<Key, Fault> {
        let mut key = backend_key(path)?;
        if key.sort == crate::layout::ROOT_FIRST {
            key.sort = self.root_sort(path).await?.0;
        }
        Ok(key)
    }

    /// The sort key of the root item of group `group` (a one-component path), and whether
    /// it was read from a configuration record (without one, every root item is first).
    pub(crate) async fn root_sort(&self, group: &KeyPath) -> Result<(Vec<u8>, bool), Fault> {
        let (roots, recorded) = match self.state.roots.get() {
            Some(roots) => (roots.clone(), true),
            None => {
                let (config, version) = self.read_config().await?;
                (Arc::new(config.roots), version.is_some())
            }
        };
        let place = crate::config::place_of(&roots, group);
        Ok((crate::layout::root_sort_key(place), recorded))
    }

    /// Whether this store keeps group counters: read from its configuration once.
    pub(crate) async fn keeps_group_versions(&self) -> Result<bool, Fault> {
        if let Some(&on) = self.state.group_versions.get() {
            return Ok(on);
        }
        let on = self.read_config().await?.0.group_versions;
        self.set_group_versions(on);
        Ok(on)
    }

    /// Records whether the store keeps group counters (as its configuration says).
    pub(crate) fn set_group_versions(&self, on: bool) {
        // The setting never changes once the store exists: the first reading stands.
        let _ = self.state.group_versions.set(on);
    }
}
