//! Opening and creating the embedded (redb) store in a directory, and the open store the
//! commands run on ([`Db`]).

use std::path::{Path, PathBuf};

use sortpath_store::backend::redb::{OpenError, RedbBackend};
use sortpath_store::backend::Backend;
use sortpath_store::{Store, StoreConfig};

use super::config::Config;
use super::failure::{bad, store_failure};
use crate::Failure;

/// Refuses a `--path` that names something other than a directory, and a store file that
/// is a symbolic link to nothing (the store would be said to exist by one command and to be
/// missing by the next).
pub(super) fn check_dir(dir: &Path) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(bad(format!(
            "{} is not a directory: give a store directory",
            dir.display()
        )));
    }
    let file = data_file(dir);
    if let Ok(link) = std::fs::read_link(&file) {
        if !file.exists() {
            return Err(bad(format!(
                "the store file {} is a symbolic link to {}, which does not exist",
                file.display(),
                link.display()
            )));
        }
    }
    Ok(())
}

/// The failure for a store that could not be opened: a missing store or a store in use is
/// the caller's to fix (2), the rest is storage (1).
pub(super) fn open_failure(dir: &Path, e: OpenError) -> Failure {
    match e {
        OpenError::Missing(_) => bad(format!(
            "no store at {} (create one with `sortpath db --path {} init`, or put an item)",
            dir.display(),
            dir.display()
        )),
        OpenError::InUse(_)
        | OpenError::Exists(_)
        | OpenError::NotAStore(_)
        | OpenError::OldFormat { .. }
        | OpenError::InvalidConfig(_)
        | OpenError::Io { .. } => bad(e.to_string()),
        other => Failure::Store(format!("opening the store in {}: {other}", dir.display())),
    }
}

/// Creates a store in `dir` with `config`, atomically; a store already there (whoever made
/// it) is an error that changes nothing.
pub(crate) async fn create_store(dir: &Path, config: &Config) -> Result<Db<RedbBackend>, Failure> {
    check_dir(dir)?;
    let store = Store::builder()
        .config(config.store.clone())
        .create_new(dir)
        .await
        .map_err(|e| match e {
            OpenError::Exists(_) => bad(format!(
                "a store already exists at {}; its indexes are fixed",
                dir.display()
            )),
            other => open_failure(dir, other),
        })?;
    Ok(Db {
        store,
        config: config.clone(),
    })
}

/// Opens the store in `dir` that has the configuration `config`, creating it with that
/// configuration if there is none; a store with another configuration is an error. For
/// stores written by a program whose indexes the CLI can express, such as `sortpath demo
/// --path DIR`.
pub(crate) async fn open_or_create_as(
    dir: &Path,
    config: &Config,
) -> Result<Db<RedbBackend>, Failure> {
    let db = match create_store(dir, config).await {
        Ok(db) => db,
        Err(_) if sortpath_store::backend::redb::data_file(dir).exists() => {
            Db::open_existing(dir).await?
        }
        Err(e) => return Err(e),
    };
    if db.config.store.indexes != config.store.indexes {
        return Err(bad(format!(
            "{} holds a store with other indexes than {:?}: {:?}",
            dir.display(),
            config.describe(),
            db.config.describe()
        )));
    }
    if db.config.store.group_versions != config.store.group_versions {
        return Err(bad(format!(
            "{} holds a store {} group version counters",
            dir.display(),
            if db.config.store.group_versions {
                "with"
            } else {
                "without"
            }
        )));
    }
    if db.config.store.roots != config.store.roots {
        return Err(bad(format!(
            "{} holds a store that places root items as {:?}, not as {:?}",
            dir.display(),
            db.config.store.roots,
            config.store.roots
        )));
    }
    Ok(db)
}

/// An open store with its index definitions.
pub(crate) struct Db<B: Backend> {
    pub(crate) store: Store<B>,
    pub(crate) config: Config,
}

impl Db<RedbBackend> {
    /// Opens the store in `dir` for reads and writes.
    pub(crate) async fn open_existing(dir: &Path) -> Result<Self, Failure> {
        check_dir(dir)?;
        let store = Store::open(dir).await.map_err(|e| open_failure(dir, e))?;
        Db::with_store(store).await
    }

    /// Opens the store in `dir` for reads only (a read-only file system will do).
    pub(super) async fn open_read_only(dir: &Path) -> Result<Self, Failure> {
        check_dir(dir)?;
        let store = Store::open_read_only(dir)
            .await
            .map_err(|e| open_failure(dir, e))?;
        Db::with_store(store).await
    }
}

impl<B: Backend> Db<B> {
    /// The store with its configuration read.
    pub(crate) async fn with_store(store: Store<B>) -> Result<Self, Failure> {
        let config = store.config().await.map_err(store_failure)?;
        Db::with_config(store, config)
    }

    /// A `Db` on `store`, whose configuration record `config` was just read.
    pub(crate) fn with_config(store: Store<B>, config: StoreConfig) -> Result<Self, Failure> {
        Ok(Db {
            store,
            config: Config::from_store(config)?,
        })
    }
}

pub(super) fn data_file(dir: &Path) -> PathBuf {
    sortpath_store::backend::redb::data_file(dir)
}
