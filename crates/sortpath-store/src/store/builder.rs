//! Opening and creating the embedded store, with options: [`Builder`], as redb's.

use std::path::Path;
use std::time::Duration;

use crate::backend::redb::{OpenError, Opening, RedbBackend};
use crate::{Limits, Store, StoreConfig};

/// Options for opening or creating the embedded store, then one of its opening calls, as
/// redb's `Builder`: [`create`](Builder::create) opens a store or creates it where there is
/// none, [`create_new`](Builder::create_new) only creates, [`open`](Builder::open) and
/// [`open_read_only`](Builder::open_read_only) only open. [`Store::create`],
/// [`Store::open`] and [`Store::open_read_only`] are these calls with no options;
/// [`blocking::Store::builder`](crate::blocking::Store::builder) ends in the same calls
/// without a runtime.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use sortpath_store::{Builder, IndexDecl, Limits, StoreConfig};
/// let dir = tempfile::tempdir().unwrap();
/// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
/// let store = Builder::new()
///     .config(config.clone())
///     .limits(Limits::new(64, 64, 1024))
///     .config_refresh(Duration::from_secs(2))
///     .create_new(dir.path())
///     .await
///     .unwrap();
/// assert_eq!(store.config().await.unwrap(), config);
/// assert_eq!(store.limits(), Limits::new(64, 64, 1024));
/// // A store is there now: create_new refuses it, create and open open it.
/// assert!(Builder::new().create_new(dir.path()).await.is_err());
/// # });
/// ```
#[derive(Clone, Debug, Default)]
pub struct Builder {
    config: Option<StoreConfig>,
    limits: Option<Limits>,
    config_refresh: Option<Duration>,
}

impl Builder {
    /// No options: a new store has no configuration record, the default [`Limits`] and
    /// [`CONFIG_REFRESH`](crate::CONFIG_REFRESH).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::Builder::new().create(dir.path()).await.unwrap();
    /// assert_eq!(store.limits(), sortpath_store::Limits::default());
    /// # });
    /// ```
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The configuration a store created by [`create`](Builder::create) or
    /// [`create_new`](Builder::create_new) holds from its first moment (its indexes,
    /// root places, group versions). A store that already exists is opened with the
    /// configuration it holds (compare [`Store::config`]; change it with
    /// [`Store::create_config`] and the index calls). An invalid configuration fails the
    /// create with [`OpenError::InvalidConfig`], before anything is written.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::redb::OpenError, Builder, IndexDecl, StoreConfig};
    /// let dir = tempfile::tempdir().unwrap();
    /// let bad = StoreConfig::new(vec![IndexDecl::field("by n", "post", "n", "/posts-0")]);
    /// let err = Builder::new().config(bad).create(dir.path()).await.unwrap_err();
    /// assert!(matches!(err, OpenError::InvalidConfig(_)));
    /// # });
    /// ```
    pub fn config(&mut self, config: StoreConfig) -> &mut Builder {
        self.config = Some(config);
        self
    }

    /// The store's [`Limits`] (as [`Store::with_limits`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::{Builder, Limits};
    /// let dir = tempfile::tempdir().unwrap();
    /// let limits = Limits::new(64, 64, 1024);
    /// let store = Builder::new().limits(limits).create(dir.path()).await.unwrap();
    /// assert_eq!(store.limits(), limits);
    /// # });
    /// ```
    pub fn limits(&mut self, limits: Limits) -> &mut Builder {
        self.limits = Some(limits);
        self
    }

    /// How long the store trusts the index declarations it read (as
    /// [`Store::with_config_refresh`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::time::Duration;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::Builder::new()
    ///     .config_refresh(Duration::from_secs(1))
    ///     .create(dir.path())
    ///     .await
    ///     .unwrap();
    /// assert_eq!(store.config_refresh(), Duration::from_secs(1));
    /// # });
    /// ```
    pub fn config_refresh(&mut self, refresh: Duration) -> &mut Builder {
        self.config_refresh = Some(refresh);
        self
    }

    /// Opens the store in directory `dir`, creating the directory and the store if there is
    /// none (as redb's `Builder::create`). A store it creates appears whole, with its
    /// [`config`](Builder::config), or not at all.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::Builder::new().create(dir.path().join("a/b")).await.unwrap();
    /// assert!(store.get_raw(&"/a-1".parse().unwrap()).await.unwrap().is_none());
    /// # });
    /// ```
    pub async fn create(&self, dir: impl AsRef<Path>) -> Result<Store<RedbBackend>, OpenError> {
        let opening = Opening::Create(self.first_records()?);
        self.finish(RedbBackend::open_as(dir.as_ref(), opening).await?)
    }

    /// Creates a new store in directory `dir`, atomically: it appears whole, with its
    /// [`config`](Builder::config), or not at all. Fails with [`OpenError::Exists`] if
    /// there is a store already (whoever made it, perhaps at the same moment), changing
    /// nothing.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::redb::OpenError, Builder};
    /// let dir = tempfile::tempdir().unwrap();
    /// Builder::new().create_new(dir.path()).await.unwrap();
    /// let again = Builder::new().create_new(dir.path()).await;
    /// assert!(matches!(again, Err(OpenError::Exists(_))));
    /// # });
    /// ```
    pub async fn create_new(&self, dir: impl AsRef<Path>) -> Result<Store<RedbBackend>, OpenError> {
        let opening = Opening::CreateNew(self.first_records()?);
        self.finish(RedbBackend::open_as(dir.as_ref(), opening).await?)
    }

    /// Opens the store in directory `dir`; fails with [`OpenError::Missing`] if there is
    /// none (as redb's `Builder::open`).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::redb::OpenError, Builder};
    /// let dir = tempfile::tempdir().unwrap();
    /// let missing = Builder::new().open(dir.path()).await;
    /// assert!(matches!(missing, Err(OpenError::Missing(_))));
    /// # });
    /// ```
    pub async fn open(&self, dir: impl AsRef<Path>) -> Result<Store<RedbBackend>, OpenError> {
        self.finish(RedbBackend::open_as(dir.as_ref(), Opening::Open).await?)
    }

    /// Opens the store in directory `dir` for reads only (see
    /// [`RedbBackend::open_read_only`]); fails with [`OpenError::Missing`] if there is none.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::Builder;
    /// let dir = tempfile::tempdir().unwrap();
    /// drop(Builder::new().create(dir.path()).await.unwrap());
    /// let store = Builder::new().open_read_only(dir.path()).await.unwrap();
    /// assert!(store.backend().is_read_only());
    /// # });
    /// ```
    pub async fn open_read_only(
        &self,
        dir: impl AsRef<Path>,
    ) -> Result<Store<RedbBackend>, OpenError> {
        self.finish(RedbBackend::open_as(dir.as_ref(), Opening::ReadOnly).await?)
    }

    /// The records a store created now starts with: its configuration, checked.
    pub(crate) fn first_records(
        &self,
    ) -> Result<Vec<(crate::backend::Key, crate::backend::Record)>, OpenError> {
        match &self.config {
            None => Ok(Vec::new()),
            Some(config) => {
                config
                    .validate()
                    .map_err(|e| OpenError::InvalidConfig(e.to_string()))?;
                Ok(vec![config.record()])
            }
        }
    }

    /// The store over `backend`, with these options.
    pub(crate) fn finish(&self, backend: RedbBackend) -> Result<Store<RedbBackend>, OpenError> {
        let mut store = Store::new(backend);
        if let Some(limits) = self.limits {
            store = store.with_limits(limits);
        }
        if let Some(refresh) = self.config_refresh {
            store = store.with_config_refresh(refresh);
        }
        Ok(store)
    }
}
