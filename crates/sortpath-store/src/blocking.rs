//! The embedded store without an async runtime: [`Store`], the same operations as
//! [`crate::Store`] with the same errors, as plain functions that return when done.
//!
//! redb is synchronous, and so is this API: every call runs redb's work on the calling
//! thread (a [`RedbBackend`] with [`Threads::Caller`]), so a get costs what redb's lookup
//! and the item's decoding cost, and a put what redb's commit costs. There is one store
//! logic, the async one: each call here drives the matching [`crate::Store`] call to its end
//! on the calling thread. With the backend on the calling thread nothing in it waits for
//! anything else, except a write that lost a race to another writer, which sleeps the
//! calling thread for its backoff before it tries again.
//!
//! Which to use when:
//! - this API in synchronous programs, command-line tools, and threads of one's own;
//! - [`crate::Store`] in async programs: its reads run where they are awaited as well (see
//!   [`Threads::ReadsInline`]), while its commits wait for `fsync` on Tokio's blocking pool,
//!   not on a worker thread. A call here blocks its thread for the whole commit; inside an
//!   async task use it only within `spawn_blocking` (it is safe there, and anywhere else).
//!
//! Both may be open on one file in one process: [`Store::to_async`] and [`Store::from_async`]
//! share the open file.
//!
//! ```
//! use sortpath::{path::PathError, KeyPath};
//! use sortpath_store::{blocking::Store, Index, Item, Query};
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Ticket { id: u64, updated_at: u64 }
//! impl Item for Ticket {
//!     const TYPE: &'static str = "ticket";
//!     const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
//!         Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?))
//!     })];
//!     fn key_path(&self) -> Result<KeyPath, PathError> {
//!         KeyPath::new().push("ticket", self.id)
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let store = Store::create(dir.path())?;
//! store.put(&Ticket { id: 1, updated_at: 50 })?;
//! store.put(&Ticket { id: 2, updated_at: 70 })?;
//! store.put(&Ticket { id: 1, updated_at: 90 })?; // moves ticket 1 in the index
//! let latest = Query::prefix(&"/tickets-0".parse()?)?.reverse();
//! let page = store.query_index::<Ticket>("by_updated", &latest)?;
//! let order: Vec<(u64, u64)> = page.items.iter().map(|t| (t.item.id, t.item.updated_at)).collect();
//! assert_eq!(order, [(1, 90), (2, 70)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use serde::Serialize;
use sortpath::KeyPath;

mod builder;
mod transaction;

pub use builder::Builder;
pub use transaction::Transaction;

use crate::backend::redb::{OpenError, RedbBackend, Threads};
use crate::{
    GetError, Item, Limits, ListError, Page, PutMode, Query, RawItem, StoreConfig, Versioned,
    WriteError,
};

/// The embedded store, called without a runtime. Cloning shares the open file.
///
/// ```
/// # use sortpath::{path::PathError, KeyPath};
/// # #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)] struct User { id: u64, name: String }
/// # impl sortpath_store::Item for User {
/// #     const TYPE: &'static str = "user";
/// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
/// # }
/// let dir = tempfile::tempdir().unwrap();
/// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
/// let version = store.put(&User { id: 7, name: "Ada".into() }).unwrap();
/// let got = store.get::<User>(&"/user-7".parse().unwrap()).unwrap().unwrap();
/// assert_eq!((got.version, got.item.name.as_str()), (version, "Ada"));
/// ```
#[derive(Clone, Debug)]
pub struct Store {
    pub(super) inner: crate::Store<RedbBackend>,
}

/// Runs `future` to its end on the calling thread, parking the thread while it waits.
///
/// The store's futures over a [`Threads::Caller`] backend are ready at their first poll,
/// except a write's backoff when there is a Tokio runtime around the caller (then it pauses
/// on that runtime's blocking pool, which wakes this thread).
fn drive<F: Future>(future: F) -> F::Output {
    thread_local! {
        static WAKER: Waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    }
    WAKER.with(|waker| {
        let mut cx = Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        loop {
            match future.as_mut().poll(&mut cx) {
                Poll::Ready(out) => return out,
                // A wake before this park makes it return at once.
                Poll::Pending => std::thread::park(),
            }
        }
    })
}

/// Wakes the thread that [`drive`]s a future.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

impl Store {
    /// Opens the embedded store in directory `dir`, creating it if there is none, as
    /// [`crate::Store::create`] (and redb's `Database::create`).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path().join("a/b")).unwrap();
    /// assert!(store.get_raw(&"/a-1".parse().unwrap()).unwrap().is_none());
    /// ```
    pub fn create(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Builder::new().create(dir)
    }

    /// Opens the embedded store in directory `dir`; fails with [`OpenError::Missing`] if
    /// there is none, as [`crate::Store::open`] (and redb's `Database::open`).
    ///
    /// ```
    /// use sortpath_store::backend::redb::OpenError;
    /// let dir = tempfile::tempdir().unwrap();
    /// let missing = sortpath_store::blocking::Store::open(dir.path());
    /// assert!(matches!(missing, Err(OpenError::Missing(_))));
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Builder::new().open(dir)
    }

    /// Opens the embedded store in directory `dir` for reads only (see
    /// [`RedbBackend::open_read_only`]): gets, lists and index queries work; writes fail.
    ///
    /// ```
    /// use sortpath_store::blocking::Store;
    /// let dir = tempfile::tempdir().unwrap();
    /// drop(Store::create(dir.path()).unwrap());
    /// let store = Store::open_read_only(dir.path()).unwrap();
    /// assert!(store.delete(&"/a-1".parse().unwrap()).is_err());
    /// ```
    pub fn open_read_only(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Builder::new().open_read_only(dir)
    }

    /// Options for opening or creating the store, as [`crate::Store::builder`], ending in
    /// calls that return when done.
    ///
    /// ```
    /// use sortpath_store::{blocking::Store, IndexDecl, StoreConfig};
    /// let dir = tempfile::tempdir().unwrap();
    /// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
    /// let store = Store::builder().config(config.clone()).create_new(dir.path()).unwrap();
    /// assert_eq!(store.config().unwrap(), config);
    /// assert!(Store::builder().config(config).create_new(dir.path()).is_err());
    /// ```
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// This API over an async store's open file (its limits kept): the calls here run on
    /// the calling thread, the async store's calls where its [`Threads`] say.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::Store::create(dir.path()).await.unwrap();
    /// let blocking = sortpath_store::blocking::Store::from_async(&store);
    /// assert!(blocking.get_raw(&"/a-1".parse().unwrap()).unwrap().is_none());
    /// # });
    /// ```
    pub fn from_async(store: &crate::Store<RedbBackend>) -> Self {
        let backend = store.backend().clone().with_threads(Threads::Caller);
        Store {
            inner: store.with_backend(backend),
        }
    }

    /// The async store over the same open file, with the default [`Threads`]
    /// ([`Threads::ReadsInline`]) and these limits.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let r#async = store.to_async();
    /// assert!(r#async.get_raw(&"/a-1".parse().unwrap()).await.unwrap().is_none());
    /// # });
    /// ```
    pub fn to_async(&self) -> crate::Store<RedbBackend> {
        let backend = self
            .inner
            .backend()
            .clone()
            .with_threads(Threads::default());
        self.inner.with_backend(backend)
    }

    /// The same store with other limits.
    ///
    /// ```
    /// use sortpath_store::Limits;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let store = store.with_limits(Limits::new(64, 64, 1024));
    /// assert_eq!(store.limits().max_value, 1024);
    /// ```
    pub fn with_limits(self, limits: Limits) -> Self {
        Store {
            inner: self.inner.with_limits(limits),
        }
    }

    /// The limits in force.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert_eq!(store.limits(), sortpath_store::Limits::default());
    /// ```
    pub fn limits(&self) -> Limits {
        self.inner.limits()
    }

    /// The store over an embedded backend opened another way (its redb work then runs on
    /// the calling thread, [`Threads::Caller`]), as [`crate::Store::new`].
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::backend::redb::{RedbBackend, Threads};
    /// let dir = tempfile::tempdir().unwrap();
    /// let backend = RedbBackend::create(dir.path()).await.unwrap();
    /// let store = sortpath_store::blocking::Store::new(backend);
    /// assert_eq!(store.backend().threads(), Threads::Caller);
    /// # });
    /// ```
    pub fn new(backend: RedbBackend) -> Store {
        Store {
            inner: crate::Store::new(backend.with_threads(Threads::Caller)),
        }
    }

    /// The same store, trusting the index declarations it read for `refresh`, as
    /// [`crate::Store::with_config_refresh`].
    ///
    /// ```
    /// use std::time::Duration;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let store = store.with_config_refresh(Duration::from_secs(2));
    /// assert_eq!(store.config_refresh(), Duration::from_secs(2));
    /// ```
    pub fn with_config_refresh(self, refresh: std::time::Duration) -> Self {
        Store {
            inner: self.inner.with_config_refresh(refresh),
        }
    }

    /// How long the store trusts the index declarations it read, as
    /// [`crate::Store::config_refresh`].
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert_eq!(store.config_refresh(), sortpath_store::CONFIG_REFRESH);
    /// ```
    pub fn config_refresh(&self) -> std::time::Duration {
        self.inner.config_refresh()
    }

    /// The backend (running on the calling thread: [`Threads::Caller`]).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert!(store.backend().path().ends_with("sortpath.redb"));
    /// ```
    pub fn backend(&self) -> &RedbBackend {
        self.inner.backend()
    }

    /// Reads the item at `path` as type `T`, as [`crate::Store::get`].
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
    /// assert!(store.get::<User>(&"/user-1".parse().unwrap()).unwrap().is_none());
    /// ```
    pub fn get<T: Item>(&self, path: &KeyPath) -> Result<Option<Versioned<T>>, GetError> {
        drive(self.inner.get(path))
    }

    /// Reads the item at `path` with the read `consistency` given, as
    /// [`crate::Store::get_with`] (the embedded store's reads are always current).
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// use sortpath_store::backend::Consistency;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// store.put(&User { id: 1 }).unwrap();
    /// let path = "/user-1".parse().unwrap();
    /// assert!(store.get_with::<User>(&path, Consistency::Eventual).unwrap().is_some());
    /// ```
    pub fn get_with<T: Item>(
        &self,
        path: &KeyPath,
        consistency: crate::backend::Consistency,
    ) -> Result<Option<Versioned<T>>, GetError> {
        drive(self.inner.get_with(path, consistency))
    }

    /// Reads the item at `path` without decoding its value.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert!(store.get_raw(&"/user".parse().unwrap()).is_err()); // no group ID
    /// ```
    pub fn get_raw(&self, path: &KeyPath) -> Result<Option<RawItem>, GetError> {
        drive(self.inner.get_raw(path))
    }

    /// Reads several items as type `T`, one slot per path in order (one read transaction).
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
    /// store.put(&User { id: 2 }).unwrap();
    /// let got = store.batch_get::<User>(&["/user-1".parse().unwrap(), "/user-2".parse().unwrap()]).unwrap();
    /// assert!(got[0].is_none() && got[1].as_ref().unwrap().item.id == 2);
    /// ```
    pub fn batch_get<T: Item>(
        &self,
        paths: &[KeyPath],
    ) -> Result<Vec<Option<Versioned<T>>>, GetError> {
        drive(self.inner.batch_get(paths))
    }

    /// Reads several items without decoding them, one slot per path in order.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert_eq!(store.batch_get_raw(&["/a-1".parse().unwrap()]).unwrap(), [None]);
    /// ```
    pub fn batch_get_raw(&self, paths: &[KeyPath]) -> Result<Vec<Option<RawItem>>, GetError> {
        drive(self.inner.batch_get_raw(paths))
    }

    /// The version counter of `path`'s group, as [`crate::Store::group_version`] (a store
    /// created with `group_versions` only).
    ///
    /// ```
    /// use sortpath_store::{blocking::Store, StoreConfig};
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = Store::builder().config(StoreConfig::new(vec![]).with_group_versions(true)).create_new(dir.path()).unwrap();
    /// assert_eq!(store.group_version(&"/a-1/b-2".parse().unwrap()).unwrap(), 0);
    /// ```
    pub fn group_version(&self, path: &KeyPath) -> Result<u64, GetError> {
        drive(self.inner.group_version(path))
    }

    /// Inserts or replaces an item; returns its new version. Durable on return.
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
    /// let first = store.put(&User { id: 1 }).unwrap();
    /// assert!(store.put(&User { id: 1 }).unwrap() > first);
    /// ```
    pub fn put<T: Item>(&self, item: &T) -> Result<u64, WriteError> {
        drive(self.inner.put(item))
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
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let v = store.put_with(&User { id: 1 }, PutMode::IfAbsent).unwrap();
    /// let again = store.put_with(&User { id: 1 }, PutMode::IfAbsent);
    /// assert!(matches!(again, Err(WriteError::AlreadyExists { .. })));
    /// assert!(store.put_with(&User { id: 1 }, PutMode::IfVersion(v)).is_ok());
    /// ```
    pub fn put_with<T: Item>(&self, item: &T, mode: PutMode) -> Result<u64, WriteError> {
        drive(self.inner.put_with(item, mode))
    }

    /// Puts a value of any serializable type at `path` with an explicit item type and index
    /// keys, as [`crate::Store::put_raw`]. Returns the new version.
    ///
    /// ```
    /// use sortpath_store::PutMode;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let path = "/ticket-7".parse().unwrap();
    /// store.put_raw(&path, "ticket", &serde_json::json!({"status": "open"}), vec![], PutMode::Upsert).unwrap();
    /// let raw = store.get_raw(&path).unwrap().unwrap();
    /// assert_eq!(raw.decode::<serde_json::Value>().unwrap()["status"], "open");
    /// ```
    pub fn put_raw<V: Serialize + ?Sized>(
        &self,
        path: &KeyPath,
        item_type: &str,
        value: &V,
        indexes: Vec<(String, KeyPath)>,
        mode: PutMode,
    ) -> Result<u64, WriteError> {
        drive(self.inner.put_raw(path, item_type, value, indexes, mode))
    }

    /// Puts an item's encoded value exactly as given, as [`crate::Store::put_raw_item`].
    /// Returns the new version.
    ///
    /// ```
    /// use sortpath_store::{PutMode, RawItem};
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let raw = RawItem::new("/reading-1".parse().unwrap(), "reading", 0, &1.5f32).unwrap();
    /// store.put_raw_item(&raw, vec![], PutMode::Upsert).unwrap();
    /// assert_eq!(store.get_raw(raw.key()).unwrap().unwrap().payload(), raw.payload());
    /// ```
    pub fn put_raw_item(
        &self,
        item: &RawItem,
        indexes: Vec<(String, KeyPath)>,
        mode: PutMode,
    ) -> Result<u64, WriteError> {
        drive(self.inner.put_raw_item(item, indexes, mode))
    }

    /// Deletes the item at `path` and its index entries; returns whether it existed.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert!(!store.delete(&"/user-1".parse().unwrap()).unwrap());
    /// ```
    pub fn delete(&self, path: &KeyPath) -> Result<bool, WriteError> {
        drive(self.inner.delete(path))
    }

    /// Deletes the item at `path` only if it is at `version`.
    ///
    /// ```
    /// use sortpath_store::WriteError;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let gone = store.delete_if_version(&"/user-1".parse().unwrap(), 3);
    /// assert!(matches!(gone, Err(WriteError::VersionMismatch { expected: 3, found: None, .. })));
    /// ```
    pub fn delete_if_version(&self, path: &KeyPath, version: u64) -> Result<(), WriteError> {
        drive(self.inner.delete_if_version(path, version))
    }

    /// Reads the item at `path`, passes it to `f` and writes what `f` returns (`None`
    /// deletes), atomically, as [`crate::Store::update`].
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Counter { id: u64, n: u64 }
    /// # impl sortpath_store::Item for Counter {
    /// #     const TYPE: &'static str = "counter";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("counter", self.id) }
    /// # }
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let path = "/counter-1".parse().unwrap();
    /// for _ in 0..3 {
    ///     store.update(&path, |c: Option<Counter>| {
    ///         let mut c = c.unwrap_or(Counter { id: 1, n: 0 });
    ///         c.n += 1;
    ///         Some(c)
    ///     }).unwrap();
    /// }
    /// assert_eq!(store.get::<Counter>(&path).unwrap().unwrap().item.n, 3);
    /// ```
    pub fn update<T, F>(&self, path: &KeyPath, f: F) -> Result<Option<Versioned<T>>, WriteError>
    where
        T: Item,
        F: FnMut(Option<T>) -> Option<T>,
    {
        drive(self.inner.update(path, f))
    }

    /// Lists items of type `T`, as [`crate::Store::list`].
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Post { user: u64, id: u64 }
    /// # impl sortpath_store::Item for Post {
    /// #     const TYPE: &'static str = "post";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.user)?.push("post", self.id) }
    /// # }
    /// use sortpath_store::Query;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// for id in [9, 10, 100] {
    ///     store.put(&Post { user: 1, id }).unwrap();
    /// }
    /// let q = Query::children(&"/user-1".parse().unwrap(), "post").unwrap().reverse().limit(2);
    /// let page = store.list::<Post>(&q).unwrap();
    /// let ids: Vec<u64> = page.items.iter().map(|p| p.item.id).collect();
    /// assert_eq!(ids, [100, 10]);
    /// let rest = store.list::<Post>(&q.after(page.cursor.unwrap())).unwrap();
    /// assert_eq!(rest.items[0].item.id, 9);
    /// ```
    pub fn list<T: Item>(&self, query: &Query) -> Result<Page<Versioned<T>>, ListError> {
        drive(self.inner.list(query))
    }

    /// Lists items of any type, undecoded.
    ///
    /// ```
    /// use sortpath_store::{PutMode, Query};
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// for p in ["/user-1", "/user-1/post-2", "/user-2"] {
    ///     store.put_raw(&p.parse().unwrap(), "any", &p, vec![], PutMode::Upsert).unwrap();
    /// }
    /// let page = store.list_raw(&Query::prefix(&"/user-1".parse().unwrap()).unwrap()).unwrap();
    /// let keys: Vec<String> = page.items.iter().map(|i| i.key().to_string()).collect();
    /// assert_eq!(keys, ["/user-1", "/user-1/post-2"]);
    /// ```
    pub fn list_raw(&self, query: &Query) -> Result<Page<RawItem>, ListError> {
        drive(self.inner.list_raw(query))
    }

    /// [`Store::list_raw`], skipping the records that are not items this store wrote, as
    /// [`crate::Store::list_raw_skipping`].
    ///
    /// ```
    /// use sortpath_store::{PutMode, Query};
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// store.put_raw(&"/a-1/b-1".parse().unwrap(), "b", &1, vec![], PutMode::Upsert).unwrap();
    /// let mut skipped = Vec::new();
    /// let page = store.list_raw_skipping(&Query::prefix(&"/a-1".parse().unwrap()).unwrap(), &mut skipped).unwrap();
    /// assert_eq!((page.items.len(), skipped.len()), (1, 0));
    /// ```
    pub fn list_raw_skipping(
        &self,
        query: &Query,
        skipped: &mut Vec<crate::NotAnItemError>,
    ) -> Result<Page<RawItem>, ListError> {
        drive(self.inner.list_raw_skipping(query, skipped))
    }

    /// Queries index `index`, which `T` declares, as [`crate::Store::query_index`].
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # use sortpath_store::{Index, Item, ListError, Query};
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Ticket { id: u64, updated_at: u64 }
    /// impl Item for Ticket {
    ///     const TYPE: &'static str = "ticket";
    ///     const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
    ///         Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?))
    ///     })];
    ///     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("ticket", self.id) }
    /// }
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// store.put(&Ticket { id: 1, updated_at: 20 }).unwrap();
    /// store.put(&Ticket { id: 2, updated_at: 10 }).unwrap();
    /// let q = Query::prefix(&"/tickets-0".parse().unwrap()).unwrap();
    /// let ids: Vec<u64> = store.query_index::<Ticket>("by_updated", &q).unwrap()
    ///     .items.iter().map(|t| t.item.id).collect();
    /// assert_eq!(ids, [2, 1]);
    /// let typo = store.query_index::<Ticket>("by_update", &q);
    /// assert!(matches!(typo, Err(ListError::UnknownIndex { .. })));
    /// ```
    pub fn query_index<T: Item>(
        &self,
        index: &str,
        query: &Query,
    ) -> Result<Page<Versioned<T>>, ListError> {
        drive(self.inner.query_index(index, query))
    }

    /// Queries index `index`, returning the items undecoded.
    ///
    /// ```
    /// use sortpath_store::{PutMode, Query};
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// let idx = vec![("by_status".to_owned(), "/status-1/open-1".parse().unwrap())];
    /// store.put_raw(&"/ticket-1".parse().unwrap(), "t", &1, idx, PutMode::Upsert).unwrap();
    /// let q = Query::prefix(&"/status-1".parse().unwrap()).unwrap();
    /// let page = store.query_index_raw("by_status", &q).unwrap();
    /// assert_eq!(page.items[0].key().to_string(), "/ticket-1");
    /// ```
    pub fn query_index_raw(&self, index: &str, query: &Query) -> Result<Page<RawItem>, ListError> {
        drive(self.inner.query_index_raw(index, query))
    }

    /// The store's configuration (an empty one if the store has no configuration record).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert_eq!(store.config().unwrap(), sortpath_store::StoreConfig::default());
    /// ```
    pub fn config(&self) -> Result<StoreConfig, GetError> {
        drive(self.inner.config())
    }

    /// The configuration record as stored, or `None` if the store has none, as
    /// [`crate::Store::recorded_config`].
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert_eq!(store.recorded_config().unwrap(), None);
    /// ```
    pub fn recorded_config(&self) -> Result<Option<StoreConfig>, GetError> {
        drive(self.inner.recorded_config())
    }

    /// Writes `config` if the store has no configuration yet; `false`, changing nothing, if
    /// it has one.
    ///
    /// ```
    /// use sortpath_store::StoreConfig;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert!(store.create_config(&StoreConfig::default()).unwrap());
    /// assert!(!store.create_config(&StoreConfig::default()).unwrap());
    /// ```
    pub fn create_config(&self, config: &StoreConfig) -> Result<bool, WriteError> {
        drive(self.inner.create_config(config))
    }

    /// Writes `config` if the store has no configuration yet, also over items written
    /// without one, as [`crate::Store::create_config_over_items`] (which
    /// [`Store::create_config`] refuses: the record may have been lost).
    ///
    /// ```
    /// use sortpath_store::StoreConfig;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert!(store.create_config_over_items(&StoreConfig::default()).unwrap());
    /// assert!(!store.create_config_over_items(&StoreConfig::default()).unwrap());
    /// ```
    pub fn create_config_over_items(&self, config: &StoreConfig) -> Result<bool, WriteError> {
        drive(self.inner.create_config_over_items(config))
    }

    /// Gives the items of `T` the entries of its indexes still being built, as
    /// [`crate::Store::build_indexes`]; returns how many items it gave entries.
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
    /// store.put(&User { id: 1 }).unwrap();
    /// assert_eq!(store.build_indexes::<User>().unwrap(), 0); // no index is being built
    /// ```
    pub fn build_indexes<T: Item>(&self) -> Result<u64, WriteError> {
        drive(self.inner.build_indexes::<T>())
    }

    /// Removes an index declaration, as [`crate::Store::drop_index`].
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// assert!(!store.drop_index("user", "by_name").unwrap());
    /// ```
    pub fn drop_index(&self, item_type: &str, name: &str) -> Result<bool, WriteError> {
        drive(self.inner.drop_index(item_type, name))
    }

    /// Starts an optimistic transaction, as [`crate::Store::transaction`].
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize, Clone)] struct Account { id: u64, balance: i64 }
    /// # impl sortpath_store::Item for Account {
    /// #     const TYPE: &'static str = "account";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("account", self.id) }
    /// # }
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Store::create(dir.path()).unwrap();
    /// store.put(&Account { id: 1, balance: 10 }).unwrap();
    /// store.put(&Account { id: 2, balance: 0 }).unwrap();
    /// let mut txn = store.transaction();
    /// let mut a = txn.get::<Account>(&"/account-1".parse().unwrap()).unwrap().unwrap().item;
    /// let mut b = txn.get::<Account>(&"/account-2".parse().unwrap()).unwrap().unwrap().item;
    /// a.balance -= 5;
    /// b.balance += 5;
    /// txn.put(&a).unwrap();
    /// txn.put(&b).unwrap();
    /// txn.commit().unwrap();
    /// assert_eq!(store.get::<Account>(&"/account-2".parse().unwrap()).unwrap().unwrap().item.balance, 5);
    /// ```
    pub fn transaction(&self) -> Transaction<'_> {
        Transaction {
            inner: self.inner.transaction(),
        }
    }
}

#[cfg(test)]
mod tests;
