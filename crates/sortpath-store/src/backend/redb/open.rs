//! Opening and creating the store file: [`OpenError`], the open calls, stale temporary files.

use super::*;

/// Why a store file could not be opened.
///
/// ```
/// use sortpath_store::backend::redb::{OpenError, RedbBackend};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let err = RedbBackend::open(dir.path().join("none")).await.unwrap_err();
/// assert!(matches!(err, OpenError::Missing(_)));
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// `open` or `open_read_only` found no store file.
    #[error("no store at {}: expected the file {DATA_FILE_NAME} there", .0.display())]
    Missing(PathBuf),
    /// `create_new` found a store file already there (made by another process, perhaps at the
    /// same moment); nothing was changed.
    #[error("a store already exists at {}", .0.display())]
    Exists(PathBuf),
    /// The directory could not be created or read.
    #[error("cannot use the store directory {}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The store file is damaged: empty, cut short, or redb failed on its contents.
    #[error("the store file {} is damaged: {message}", path.display())]
    Damaged {
        /// The store file.
        path: PathBuf,
        /// What was found.
        message: String,
    },
    /// The file is a redb database without the store's records table: another program's
    /// file where the store file belongs, or a store file damaged where redb keeps its
    /// table names. It is refused before it is opened for writing (which would change it),
    /// and left as it was.
    #[error("the file {} is a redb database without a sortpath store's records table: another program's file, or a damaged store file; it was left as it was", .0.display())]
    NotAStore(PathBuf),
    /// Another process has the store open (a writer excludes every other opener; read-only
    /// openers exclude writers).
    #[error("the store file {} is open in another process; a store is used by one process at a time (or read by several)", .0.display())]
    InUse(PathBuf),
    /// The file was written by an earlier sortpath-store, in a file format this version's redb
    /// no longer reads. Its data is intact: copy it with the release that wrote it.
    #[error(
        "the store file {} was written by an earlier sortpath release (redb file format {format}), \
         which this release cannot open; nothing was changed. Copy it: with the release that \
         wrote it, `sortpath db --path DIR export > items.jsonl`, then with this one \
         `sortpath db --path NEW import items.jsonl`",
        path.display()
    )]
    OldFormat {
        /// The store file.
        path: PathBuf,
        /// The redb file format version found.
        format: u8,
    },
    /// A store was to be created with a configuration that breaks its rules (which, in
    /// words); nothing was written.
    #[error("refused to create a store with an invalid configuration: {0}")]
    InvalidConfig(String),
    /// redb could not open the file (corrupt, unreadable, ...).
    #[error("cannot open the store file {}: {source}", path.display())]
    Database {
        /// The store file.
        path: PathBuf,
        /// redb's error.
        source: Box<redb::Error>,
    },
}

/// How [`RedbBackend`] opens a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Open the store, creating it (with the given first records) if there is none.
    OpenOrCreate,
    /// Open the store; fail if there is none.
    Existing,
    /// Create the store; fail if there is one.
    Create,
    /// Open the store for reads only.
    ReadOnly,
}

/// A temporary store file left by a creator that died is removed once it is unlocked and at
/// least this old (a live creator holds its lock from the moment redb opens the file).
const STALE_TMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

impl RedbBackend {
    /// Opens the store in directory `dir`, creating the directory and the store file
    /// ([`DATA_FILE_NAME`]) if they do not exist (as redb's `Database::create`).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = sortpath_store::backend::redb::RedbBackend::create(dir.path().join("a/b")).await;
    /// assert!(db.is_ok());
    /// # });
    /// ```
    pub async fn create(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), Mode::OpenOrCreate, Vec::new()).await
    }

    /// [`create`](Self::create), and if it creates the store, the new file holds `records` from
    /// the start: the file appears whole, with them, or not at all.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::backend::{redb::RedbBackend, Backend, Key, Record};
    /// let dir = tempfile::tempdir().unwrap();
    /// let first = vec![(Key::new(vec![0, 9], vec![0]), Record { value: b"x".to_vec(), version: 1 })];
    /// let db = RedbBackend::create_with(dir.path(), first.clone()).await.unwrap();
    /// assert_eq!(db.get(first[0].0.clone()).await.unwrap(), Some(first[0].1.clone()));
    /// # });
    /// ```
    pub async fn create_with(
        dir: impl AsRef<Path>,
        records: Vec<(Key, Record)>,
    ) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), Mode::OpenOrCreate, records).await
    }

    /// Creates a new store in `dir` holding `records`, atomically: the store file appears
    /// whole or not at all. Fails with [`OpenError::Exists`] if there is a store already
    /// (whoever made it), changing nothing.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::backend::redb::{OpenError, RedbBackend};
    /// let dir = tempfile::tempdir().unwrap();
    /// RedbBackend::create_new(dir.path(), Vec::new()).await.unwrap();
    /// let again = RedbBackend::create_new(dir.path(), Vec::new()).await;
    /// assert!(matches!(again, Err(OpenError::Exists(_))));
    /// # });
    /// ```
    pub async fn create_new(
        dir: impl AsRef<Path>,
        records: Vec<(Key, Record)>,
    ) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), Mode::Create, records).await
    }

    /// Opens the store in directory `dir`, failing with [`OpenError::Missing`] if there is
    /// none (as redb's `Database::open`).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// use sortpath_store::backend::redb::RedbBackend;
    /// assert!(RedbBackend::open(dir.path()).await.is_err());
    /// RedbBackend::create(dir.path()).await.unwrap();
    /// assert!(RedbBackend::open(dir.path()).await.is_ok());
    /// # });
    /// ```
    pub async fn open(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), Mode::Existing, Vec::new()).await
    }

    /// Opens the store in directory `dir` for reads only: nothing is written to the file or
    /// the directory, so a store on a read-only mount or owned by another user can be read.
    /// Several processes may read at once, but not while one has it open for writing
    /// ([`OpenError::InUse`]). Writes fail with a storage error.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::backend::{redb::RedbBackend, Backend, Key};
    /// let dir = tempfile::tempdir().unwrap();
    /// drop(RedbBackend::create(dir.path()).await.unwrap());
    /// let db = RedbBackend::open_read_only(dir.path()).await.unwrap();
    /// assert_eq!(db.get(Key::new(vec![1], vec![0])).await.unwrap(), None);
    /// assert!(db.write(vec![]).await.is_ok()); // an empty batch writes nothing
    /// # });
    /// ```
    pub async fn open_read_only(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), Mode::ReadOnly, Vec::new()).await
    }

    /// Opens the store in directory `dir` (as [`create`](Self::create), [`open`](Self::open)
    /// and their variants do, by `how`) on the calling thread, without a runtime. The handle runs everything on the
    /// calling thread ([`Threads::Caller`]); [`with_threads`](Self::with_threads) changes that.
    pub(crate) fn open_on_caller(dir: &Path, how: Opening) -> Result<Self, OpenError> {
        let file = data_file(dir);
        let (mode, records) = how.parts();
        let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Self::open_blocking(dir.to_owned(), file.clone(), mode, records)
        }));
        let opened = opened.unwrap_or_else(|panic| {
            Err(OpenError::Damaged {
                path: file,
                message: format!("redb failed on it: {}", panic_message(&panic)),
            })
        });
        opened.map(|db| db.with_threads(Threads::Caller))
    }

    /// Opens the store in directory `dir` as `how` says (the public open calls, and
    /// [`Builder`](crate::Builder)'s).
    pub(crate) async fn open_as(dir: &Path, how: Opening) -> Result<Self, OpenError> {
        let (mode, records) = how.parts();
        Self::open_in(dir.to_owned(), mode, records).await
    }

    async fn open_in(
        dir: PathBuf,
        mode: Mode,
        records: Vec<(Key, Record)>,
    ) -> Result<Self, OpenError> {
        let file = data_file(&dir);
        let opened = {
            let file = file.clone();
            tokio::task::spawn_blocking(move || Self::open_blocking(dir, file, mode, records)).await
        };
        opened.unwrap_or_else(|join| {
            Err(OpenError::Damaged {
                path: file,
                message: format!("redb failed on it: {}", join_message(join)),
            })
        })
    }

    fn open_blocking(
        dir: PathBuf,
        file: PathBuf,
        mode: Mode,
        records: Vec<(Key, Record)>,
    ) -> Result<Self, OpenError> {
        let io_err = |path: &Path, source| OpenError::Io {
            path: path.to_owned(),
            source,
        };
        match std::fs::metadata(&file) {
            Ok(_) if mode == Mode::Create => return Err(OpenError::Exists(dir)),
            Ok(m) if m.len() == 0 => {
                // redb would initialize an empty file as a new database, hiding the loss.
                // A store file is never empty: it is created whole (below).
                return Err(OpenError::Damaged {
                    path: file,
                    message: "the file is empty".to_owned(),
                });
            }
            Ok(_) => {
                if mode == Mode::OpenOrCreate || mode == Mode::Existing {
                    // A creator killed between linking its file and removing its temporary
                    // name leaves that name behind (a second link to the store).
                    remove_stale_tmp_files(&dir);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match mode {
                Mode::Existing | Mode::ReadOnly => return Err(OpenError::Missing(dir)),
                Mode::Create | Mode::OpenOrCreate => {
                    std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
                    let created = Self::create_file(&dir, &file, &records)?;
                    if !created && mode == Mode::Create {
                        return Err(OpenError::Exists(dir));
                    }
                }
            },
            Err(e) => return Err(io_err(&file, e)),
        }
        let db = if mode == Mode::ReadOnly {
            DbKind::ReadOnly(Self::open_read_only_file(&file)?)
        } else {
            // Opening for writing changes a file: another program's is refused before.
            if let Some(read_only) = Self::try_read_only(&file)? {
                holds_records(&read_only, &file)?;
            }
            DbKind::Writable(Database::open(&file).map_err(|e| open_err(&file, e))?)
        };
        // Every store file has the table from its creation (below), so readers can open it;
        // a file without it is not a store (checked again here for a file only the writable
        // open could repair, and for a read-only open).
        match &db {
            DbKind::Writable(d) => holds_records(d, &file)?,
            DbKind::ReadOnly(d) => holds_records(d, &file)?,
        }
        Ok(RedbBackend {
            db: Arc::new(Db::new(db)),
            path: Arc::new(file),
            threads: Threads::default(),
        })
    }

    /// `file` opened read-only, or `None` if only a writable open can repair it (its last
    /// writer did not close it).
    fn try_read_only(file: &Path) -> Result<Option<ReadOnlyDatabase>, OpenError> {
        match ReadOnlyDatabase::open(file) {
            Ok(db) => Ok(Some(db)),
            Err(redb::DatabaseError::RepairAborted) => Ok(None),
            Err(e) => Err(open_err(file, e)),
        }
    }

    /// Opens `file` read-only. A file its last writer did not close (a crash) must be
    /// repaired first, which redb does only when opening for writing: that is done once,
    /// then the file is opened read-only again.
    fn open_read_only_file(file: &Path) -> Result<ReadOnlyDatabase, OpenError> {
        match ReadOnlyDatabase::open(file) {
            Err(redb::DatabaseError::RepairAborted) => {
                let repaired = Database::open(file).map_err(|e| match open_err(file, e) {
                    OpenError::Database { path, source } => OpenError::Damaged {
                        path,
                        message: format!(
                            "its last writer did not close it (a crash); repairing it needs \
                             write access, which failed: {source}"
                        ),
                    },
                    other => other,
                })?;
                drop(repaired);
                ReadOnlyDatabase::open(file).map_err(|e| open_err(file, e))
            }
            other => other.map_err(|e| open_err(file, e)),
        }
    }

    /// Creates the store file `file` holding `records`: built under a temporary name, then
    /// linked into place, which fails if `file` exists. `false` if another process created
    /// it first (theirs is kept). The temporary file is always this call's own; temporary
    /// files of creators that died are removed when unlocked and old ([`STALE_TMP_AGE`]).
    fn create_file(dir: &Path, file: &Path, records: &[(Key, Record)]) -> Result<bool, OpenError> {
        remove_stale_tmp_files(dir);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(
            "{DATA_FILE_NAME}.{}.{nanos}{TMP_SUFFIX}",
            std::process::id()
        ));
        let made = (|| -> Result<Database, redb::Error> {
            let db = Database::create(&tmp)?;
            let txn = db.begin_write()?;
            {
                let mut table = txn.open_table(RECORDS)?;
                for (key, record) in records {
                    table.insert(record_key(key), (record.version, record.value.as_slice()))?;
                }
            }
            txn.commit()?;
            Ok(db)
        })();
        let linked = match made {
            Err(source) => Err(OpenError::Database {
                path: tmp.clone(),
                source: Box::new(source),
            }),
            // Linked while this process still holds the file's lock; released right after.
            Ok(db) => {
                let linked = match std::fs::hard_link(&tmp, file) {
                    Ok(()) => Ok(true),
                    // Another process created it first: use theirs.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                    Err(source) => Err(OpenError::Io {
                        path: file.to_owned(),
                        source,
                    }),
                };
                drop(db);
                linked
            }
        };
        // The temporary name is this call's own (its process ID and time): never a store.
        let _ = std::fs::remove_file(&tmp);
        let linked = linked?;
        // Make the new directory entry durable.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(linked)
    }
}

/// How [`RedbBackend::open_on_caller`] opens a directory: the public open calls, one each.
#[derive(Debug)]
pub(crate) enum Opening {
    /// [`RedbBackend::create_with`] these first records (none: [`RedbBackend::create`]).
    Create(Vec<(Key, Record)>),
    /// [`RedbBackend::create_new`] with these first records.
    CreateNew(Vec<(Key, Record)>),
    /// [`RedbBackend::open`].
    Open,
    /// [`RedbBackend::open_read_only`].
    ReadOnly,
}

impl Opening {
    fn parts(self) -> (Mode, Vec<(Key, Record)>) {
        match self {
            Opening::Create(records) => (Mode::OpenOrCreate, records),
            Opening::CreateNew(records) => (Mode::Create, records),
            Opening::Open => (Mode::Existing, Vec::new()),
            Opening::ReadOnly => (Mode::ReadOnly, Vec::new()),
        }
    }
}

/// Maps redb's open errors to what they mean for a store file.
/// Whether the database `db` of `file` holds the store's records table (every store file
/// does from its creation); `OpenError::NotAStore` if not.
fn holds_records(db: &impl ReadableDatabase, file: &Path) -> Result<(), OpenError> {
    let failed = |e: redb::Error| OpenError::Database {
        path: file.to_owned(),
        source: Box::new(e),
    };
    let txn = db.begin_read().map_err(|e| failed(e.into()))?;
    match txn.open_table(RECORDS) {
        Ok(_) => Ok(()),
        Err(
            redb::TableError::TableDoesNotExist(_) | redb::TableError::TableTypeMismatch { .. },
        ) => Err(OpenError::NotAStore(file.to_owned())),
        Err(e) => Err(failed(e.into())),
    }
}

fn open_err(file: &Path, e: redb::DatabaseError) -> OpenError {
    match e {
        redb::DatabaseError::DatabaseAlreadyOpen => OpenError::InUse(file.to_owned()),
        redb::DatabaseError::UpgradeRequired(format) => OpenError::OldFormat {
            path: file.to_owned(),
            format,
        },
        other => OpenError::Database {
            path: file.to_owned(),
            source: Box::new(other.into()),
        },
    }
}

/// Removes the temporary store files in `dir` that no live creator holds: unlocked (a
/// creator holds redb's lock on its file from the moment it opens it until it has linked
/// it) and older than [`STALE_TMP_AGE`]. Best effort: anything unreadable is left alone.
fn remove_stale_tmp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{DATA_FILE_NAME}.");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(middle) = name
            .strip_prefix(&prefix)
            .and_then(|n| n.strip_suffix(TMP_SUFFIX))
        else {
            continue;
        };
        // Only names this module makes: `<pid>.<nanos>`.
        let is_ours = middle
            .split_once('.')
            .is_some_and(|(p, n)| is_digits(p) && is_digits(n));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE_TMP_AGE);
        if !is_ours || !old {
            continue;
        }
        let path = entry.path();
        let Ok(handle) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
        else {
            continue;
        };
        // Held while removing, so no creator can take it up in between.
        if handle.try_lock().is_ok() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}
