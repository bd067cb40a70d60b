//! [`Builder`]: opening and creating the store with options, without a runtime.

use std::path::Path;

use super::Store;
use crate::backend::redb::{OpenError, Opening, RedbBackend};
use crate::{Limits, StoreConfig};

/// [`crate::Builder`]'s options, ending in calls that return when done: the same options
/// and the same opening calls, run on the calling thread.
///
/// ```
/// use sortpath_store::{blocking::Builder, Limits};
/// let dir = tempfile::tempdir().unwrap();
/// let store = Builder::new().limits(Limits::new(64, 64, 1024)).create(dir.path()).unwrap();
/// assert_eq!(store.limits(), Limits::new(64, 64, 1024));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Builder {
    options: crate::Builder,
}

impl Builder {
    /// No options, as [`crate::Builder::new`].
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Builder::new().create(dir.path()).unwrap();
    /// assert_eq!(store.limits(), sortpath_store::Limits::default());
    /// ```
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The configuration a store created here holds, as [`crate::Builder::config`].
    ///
    /// ```
    /// use sortpath_store::{blocking::Builder, StoreConfig};
    /// let dir = tempfile::tempdir().unwrap();
    /// let config = StoreConfig::new(vec![]).with_group_versions(true);
    /// let store = Builder::new().config(config.clone()).create(dir.path()).unwrap();
    /// assert_eq!(store.config().unwrap(), config);
    /// ```
    pub fn config(&mut self, config: StoreConfig) -> &mut Builder {
        self.options.config(config);
        self
    }

    /// The store's limits, as [`crate::Builder::limits`].
    ///
    /// ```
    /// use sortpath_store::{blocking::Builder, Limits};
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = Builder::new().limits(Limits::new(64, 64, 1024)).create(dir.path()).unwrap();
    /// assert_eq!(store.limits(), Limits::new(64, 64, 1024));
    /// ```
    pub fn limits(&mut self, limits: Limits) -> &mut Builder {
        self.options.limits(limits);
        self
    }

    /// How long index declarations are trusted, as [`crate::Builder::config_refresh`].
    ///
    /// ```
    /// use std::time::Duration;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = sortpath_store::blocking::Builder::new()
    ///     .config_refresh(Duration::from_secs(1))
    ///     .create(dir.path())
    ///     .unwrap();
    /// assert_eq!(store.config_refresh(), Duration::from_secs(1));
    /// ```
    pub fn config_refresh(&mut self, refresh: std::time::Duration) -> &mut Builder {
        self.options.config_refresh(refresh);
        self
    }

    /// Opens the store, creating it if there is none, as [`crate::Builder::create`].
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// assert!(sortpath_store::blocking::Builder::new().create(dir.path()).is_ok());
    /// ```
    pub fn create(&self, dir: impl AsRef<Path>) -> Result<Store, OpenError> {
        let opening = Opening::Create(self.options.first_records()?);
        self.finish(dir.as_ref(), opening)
    }

    /// Creates a new store; [`OpenError::Exists`] if there is one, as
    /// [`crate::Builder::create_new`].
    ///
    /// ```
    /// use sortpath_store::{backend::redb::OpenError, blocking::Builder};
    /// let dir = tempfile::tempdir().unwrap();
    /// Builder::new().create_new(dir.path()).unwrap();
    /// assert!(matches!(Builder::new().create_new(dir.path()), Err(OpenError::Exists(_))));
    /// ```
    pub fn create_new(&self, dir: impl AsRef<Path>) -> Result<Store, OpenError> {
        let opening = Opening::CreateNew(self.options.first_records()?);
        self.finish(dir.as_ref(), opening)
    }

    /// Opens the store; [`OpenError::Missing`] if there is none, as [`crate::Builder::open`].
    ///
    /// ```
    /// use sortpath_store::{backend::redb::OpenError, blocking::Builder};
    /// let dir = tempfile::tempdir().unwrap();
    /// assert!(matches!(Builder::new().open(dir.path()), Err(OpenError::Missing(_))));
    /// ```
    pub fn open(&self, dir: impl AsRef<Path>) -> Result<Store, OpenError> {
        self.finish(dir.as_ref(), Opening::Open)
    }

    /// Opens the store for reads only, as [`crate::Builder::open_read_only`].
    ///
    /// ```
    /// use sortpath_store::blocking::Builder;
    /// let dir = tempfile::tempdir().unwrap();
    /// drop(Builder::new().create(dir.path()).unwrap());
    /// let store = Builder::new().open_read_only(dir.path()).unwrap();
    /// assert!(store.backend().is_read_only());
    /// ```
    pub fn open_read_only(&self, dir: impl AsRef<Path>) -> Result<Store, OpenError> {
        self.finish(dir.as_ref(), Opening::ReadOnly)
    }

    fn finish(&self, dir: &Path, how: Opening) -> Result<Store, OpenError> {
        let backend = RedbBackend::open_on_caller(dir, how)?;
        Ok(Store {
            inner: self.options.finish(backend)?,
        })
    }
}
