//! The embedded default [`Backend`]: one [redb](https://docs.rs/redb) file.
//!
//! Write batches are one redb write transaction each, committed with redb's default
//! immediate durability: when [`Backend::write`] returns `Ok`, the batch is on disk and
//! survives a crash. Reads (`get`, `batch_get`, scans) are redb read transactions (MVCC
//! snapshots), so they never wait for writers; the reads of [`Backend::read_then_write`] are
//! part of its write transaction, and wait for other writers like any write.
//!
//! # Which thread does redb's work
//! redb is synchronous. Where its work runs is the backend's [`Threads`] setting:
//!
//! | setting | reads (up to [`INLINE_READ_MAX`] records) | longer reads, writes | needs |
//! | --- | --- | --- | --- |
//! | [`Threads::ReadsInline`] (default) | the calling task's thread | Tokio's blocking pool | a Tokio runtime |
//! | [`Threads::Pool`] | Tokio's blocking pool | Tokio's blocking pool | a Tokio runtime |
//! | [`Threads::Caller`] | the calling thread | the calling thread | nothing |
//!
//! Which to use when:
//! - **`ReadsInline`**, for async programs: a read redb answers from its page cache costs
//!   a few microseconds, less than the trip to the blocking pool and back (about 15 µs on a
//!   loaded 2-core machine), so it runs where it is awaited, as a call into any in-memory
//!   structure would. A commit waits for `fsync` (hundreds of microseconds, milliseconds on
//!   slow disks): that must not stall a worker thread, so writes go to the pool, where the
//!   trip is a few percent of the commit.
//! - **`Pool`**, for async programs whose store is much larger than memory, or on slow or
//!   network disks, where a read may wait on the disk and would stall the worker thread
//!   (and every task queued on it).
//! - **`Caller`**, for synchronous programs ([`crate::blocking::Store`] uses it), or async
//!   ones that call the store from threads of their own (e.g. inside `spawn_blocking`): no
//!   runtime is involved at all, and a commit costs what redb's commit costs.
//!
//! Whatever the setting, a panic inside redb (it panics on some damaged files) is caught and
//! becomes a [`BackendError::Storage`] naming the store file, and a panic in the caller's
//! own code run inside a read (the `map` and `fold` closures, `read_then_write`'s `plan`)
//! goes on in the caller, as if that code had run there.

use sortpath::Order;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Database, ReadOnlyDatabase, ReadableDatabase, ReadableTable, TableDefinition};

use super::{duplicate_key, Backend, BackendError, Condition, Entry, Key, Record, Scan, Write};

mod compare;
use compare::{same_group, FarBound};

/// File name of the store inside the directory given to [`RedbBackend::open`].
pub const DATA_FILE_NAME: &str = "sortpath.redb";

/// The file name of stores created before the project was renamed from `keypath` to
/// `sortpath`. A directory that holds this file and no [`DATA_FILE_NAME`] is that store: it
/// is opened where it is ([`data_file`]), never shadowed by a new, empty one beside it.
pub const PRE_RENAME_DATA_FILE_NAME: &str = "keypath.redb";

/// The store file in directory `dir`: [`DATA_FILE_NAME`], or [`PRE_RENAME_DATA_FILE_NAME`]
/// where only that one exists (a store created before the rename, read and written in place).
///
/// ```
/// use sortpath_store::backend::redb::{data_file, DATA_FILE_NAME, PRE_RENAME_DATA_FILE_NAME};
///
/// let dir = tempfile::tempdir()?;
/// assert_eq!(data_file(dir.path()), dir.path().join(DATA_FILE_NAME));
/// std::fs::write(dir.path().join(PRE_RENAME_DATA_FILE_NAME), b"")?;
/// assert_eq!(data_file(dir.path()), dir.path().join(PRE_RENAME_DATA_FILE_NAME));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn data_file(dir: &Path) -> PathBuf {
    let file = dir.join(DATA_FILE_NAME);
    let old = dir.join(PRE_RENAME_DATA_FILE_NAME);
    // symlink_metadata: a link at either name counts as present (the open refuses links).
    if std::fs::symlink_metadata(&file).is_err() && std::fs::symlink_metadata(&old).is_ok() {
        return old;
    }
    file
}

/// Ends the name of a store file under construction (`sortpath.redb.<pid>.<nanos>.tmp`).
const TMP_SUFFIX: &str = ".tmp";

/// The one table: `(group, sort) -> (version, value)`. redb orders tuple keys element by
/// element and byte slices as unsigned bytes, which is exactly the backend order.
const RECORDS: TableDefinition<RecordKey, RecordValue> = TableDefinition::new("records");

/// `(group, sort)`.
type RecordKey = (&'static [u8], &'static [u8]);
/// `(version, value)`.
type RecordValue = (u64, &'static [u8]);

/// The table key of `k`.
fn record_key(k: &Key) -> (&[u8], &[u8]) {
    (k.group.as_slice(), k.sort.as_slice())
}

/// A store file on disk. Cloning shares the open database.
///
/// ```
/// use sortpath_store::backend::{redb::RedbBackend, Backend, Key};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let db = RedbBackend::create(dir.path()).await.unwrap();
/// assert_eq!(db.get(Key::new(vec![1], vec![0])).await.unwrap(), None);
/// assert!(dir.path().join(sortpath_store::backend::redb::DATA_FILE_NAME).exists());
/// # });
/// ```
#[derive(Clone)]
pub struct RedbBackend {
    db: Arc<Db>,
    path: Arc<PathBuf>,
    threads: Threads,
}

/// Which thread runs redb's work for a [`RedbBackend`] (see the [module docs](self) for which
/// to use when).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use sortpath_store::backend::redb::{RedbBackend, Threads};
/// let dir = tempfile::tempdir().unwrap();
/// let db = RedbBackend::create(dir.path()).await.unwrap();
/// assert_eq!(db.threads(), Threads::ReadsInline);
/// assert_eq!(db.with_threads(Threads::Pool).threads(), Threads::Pool);
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Threads {
    /// Reads of at most [`INLINE_READ_MAX`] records on the thread that awaits them; longer
    /// reads and every write on Tokio's blocking pool.
    #[default]
    ReadsInline,
    /// Everything on Tokio's blocking pool: no redb work on the runtime's worker threads.
    Pool,
    /// Everything on the calling thread, no runtime needed: every future the backend returns
    /// is ready at its first poll.
    Caller,
}

/// The most records a read may touch (keys of a batch read, the limit of a scan) to run on
/// the calling thread under [`Threads::ReadsInline`]: a scan of this many records from
/// redb's page cache, decoded, takes about a millisecond (a list of 100 items is about
/// 240,000 instructions), a few durable commits' worth, the longest a worker thread should
/// be held. Every page of a list or index query (at most 1,000 records) is within it.
pub const INLINE_READ_MAX: usize = 1024;

/// What a piece of redb work is, for [`RedbBackend::runs_inline`].
#[derive(Clone, Copy)]
enum Work {
    /// A read transaction touching at most this many records.
    Read(usize),
    /// A write transaction (or opening the file).
    Write,
}

/// The open file: for reads and writes, or (from [`RedbBackend::open_read_only`]) for reads
/// only, which needs no write access to the file or its directory.
enum DbKind {
    Writable(Database),
    ReadOnly(ReadOnlyDatabase),
}

/// The open file, closed on a thread of its own: redb finishes its bookkeeping when a
/// database is dropped and can panic there on a damaged file; the panic ends that thread,
/// not the caller's.
///
/// Reads share one snapshot of the records table ([`Db::snapshot`]) until the next commit:
/// opening a read transaction and its table costs more than a read from redb's page cache
/// (about 6,000 instructions, most of them redb checking the table's stored key and value
/// types, formatted anew on every open, against the program's), so a read that finds a
/// snapshot from after the last commit uses it. This is exact because no other writer can
/// come in: redb's default `ExclusiveWriter` mode locks the file against every other
/// process while it is open for writing (and against every writer while it is open
/// read-only), and in this process every commit goes through [`Db::commit`], which drops
/// the snapshot once the commit is done.
struct Db {
    kind: Option<DbKind>,
    /// The records table of the latest read transaction, if none was committed since.
    snapshot: std::sync::Mutex<Option<Arc<Snapshot>>>,
}

/// The records table as one read transaction sees it (redb keeps the transaction alive with
/// the table).
type Snapshot = redb::ReadOnlyTable<RecordKey, RecordValue>;

impl Db {
    fn new(kind: DbKind) -> Self {
        Db {
            kind: Some(kind),
            snapshot: std::sync::Mutex::new(None),
        }
    }

    fn kind(&self) -> &DbKind {
        self.kind.as_ref().expect("set until dropped")
    }

    fn begin_read(&self) -> Result<redb::ReadTransaction, redb::TransactionError> {
        match self.kind() {
            DbKind::Writable(db) => db.begin_read(),
            DbKind::ReadOnly(db) => db.begin_read(),
        }
    }

    /// The records table as of the last commit: the snapshot of an earlier read when no
    /// commit came after it, else a new read transaction's (kept for the reads that follow).
    ///
    /// The new snapshot is opened with the lock held, so a commit's [`Db::forget_snapshot`]
    /// either comes before it (the snapshot then holds the commit) or after it (and drops
    /// it): a snapshot from before a commit is never kept past the commit's end.
    fn snapshot(&self) -> Result<Arc<Snapshot>, BackendError> {
        let mut kept = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(table) = &*kept {
            return Ok(table.clone());
        }
        let txn = self.begin_read().map_err(storage)?;
        let table = Arc::new(txn.open_table(RECORDS).map_err(storage)?);
        *kept = Some(table.clone());
        Ok(table)
    }

    /// Drops the kept snapshot: after every commit (and after a panic inside redb, which may
    /// have left it half-read). Reads then running keep theirs until they end; the old
    /// snapshot's pages are freed for reuse once the last of them has.
    fn forget_snapshot(&self) {
        let old = self
            .snapshot
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        drop(old);
    }

    /// Commits `txn` and drops the snapshot kept from before it (whether or not the commit
    /// succeeded: a failed one may still have changed the file).
    fn commit(&self, txn: redb::WriteTransaction) -> Result<(), BackendError> {
        let committed = txn.commit().map_err(storage);
        self.forget_snapshot();
        committed
    }

    fn begin_write(&self) -> Result<redb::WriteTransaction, BackendError> {
        match self.kind() {
            DbKind::Writable(db) => db.begin_write().map_err(storage),
            DbKind::ReadOnly(_) => Err(BackendError::storage(
                "the store was opened read-only: it takes no writes".to_owned(),
            )),
        }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        self.forget_snapshot();
        if let Some(db) = self.kind.take() {
            let closing = std::thread::Builder::new()
                .name("sortpath-redb-close".to_owned())
                .spawn(move || drop(db));
            // Waited for, so the file is closed (and its lock released) when the last
            // handle is gone; a panic there is redb's on a damaged file, already reported
            // by the operation that met the damage.
            if let Ok(handle) = closing {
                let _ = handle.join();
            }
        }
    }
}

impl std::fmt::Debug for RedbBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbBackend")
            .field("path", &self.path)
            .field("threads", &self.threads)
            .finish()
    }
}

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

    /// The store file's path.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = sortpath_store::backend::redb::RedbBackend::create(dir.path()).await.unwrap();
    /// assert!(db.path().ends_with("sortpath.redb"));
    /// # });
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the store was opened with [`open_read_only`](Self::open_read_only).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = sortpath_store::backend::redb::RedbBackend::create(dir.path()).await.unwrap();
    /// assert!(!db.is_read_only());
    /// # });
    /// ```
    pub fn is_read_only(&self) -> bool {
        matches!(self.db.kind(), DbKind::ReadOnly(_))
    }

    /// The same open file, its redb work run where `threads` says.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::backend::{redb::{RedbBackend, Threads}, Backend, Key};
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = RedbBackend::create(dir.path()).await.unwrap().with_threads(Threads::Pool);
    /// assert_eq!(db.get(Key::new(vec![1], vec![0])).await.unwrap(), None);
    /// # });
    /// ```
    pub fn with_threads(mut self, threads: Threads) -> Self {
        self.threads = threads;
        self
    }

    /// Where this handle runs redb's work.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use sortpath_store::backend::redb::{RedbBackend, Threads};
    /// let dir = tempfile::tempdir().unwrap();
    /// assert_eq!(RedbBackend::create(dir.path()).await.unwrap().threads(), Threads::ReadsInline);
    /// # });
    /// ```
    pub fn threads(&self) -> Threads {
        self.threads
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

    /// Every group key in the file whose first byte is at least `from`, in byte order (one
    /// seek per group). The store's own records live in groups starting with `00`, so
    /// `groups(1)` lists exactly the item groups; `sortpath db export` uses it.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::backend::{redb::RedbBackend, Backend, Condition, Key, Record, Write};
    /// let dir = tempfile::tempdir().unwrap();
    /// let backend = RedbBackend::create(dir.path()).await.unwrap();
    /// let put = |g: &[u8], s: &[u8]| Write::Put {
    ///     key: Key::new(g, s),
    ///     record: Record { value: vec![1], version: 1 },
    ///     condition: Condition::None,
    /// };
    /// backend.write(vec![put(b"b", b"1"), put(b"a", b"1"), put(b"a", b"2")]).await.unwrap();
    /// assert_eq!(backend.groups(0).await.unwrap(), [b"a".to_vec(), b"b".to_vec()]);
    /// # });
    /// ```
    pub async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        // As many seeks as groups: a long read.
        let path = self.path.clone();
        self.blocking(Work::Read(usize::MAX), move |db| {
            let table = db.snapshot()?;
            let mut groups = Vec::new();
            let mut start = vec![from];
            loop {
                let lower: (&[u8], &[u8]) = (start.as_slice(), &[]);
                let mut range = table.range(lower..).map_err(storage)?;
                let Some(entry) = range.next() else { break };
                let group = entry.map_err(storage)?.0.value().0.to_vec();
                // A damaged file can give a key before the one sought: stop there rather
                // than seek the same groups again without end.
                if group < start {
                    return Err(BackendError::storage(format!(
                        "the store file {} is damaged: a seek from group {} found group {}, \
                         before it",
                        path.display(),
                        hex(&start),
                        hex(&group)
                    )));
                }
                // `group ++ [0x00]` is the next possible group in byte order.
                start = [group.as_slice(), &[0u8]].concat();
                groups.push(group);
            }
            Ok(groups)
        })
        .await
    }

    /// Whether `work` runs on the calling thread rather than on the blocking pool.
    fn runs_inline(&self, work: Work) -> bool {
        match (self.threads, work) {
            (Threads::Caller, _) => true,
            (Threads::ReadsInline, Work::Read(records)) => records <= INLINE_READ_MAX,
            (Threads::ReadsInline | Threads::Pool, _) => false,
        }
    }

    /// The error for a panic inside redb: the store file may be damaged.
    fn redb_failed(&self, message: &str) -> BackendError {
        BackendError::storage(format!(
            "redb failed (the store file {} may be damaged): {message}",
            self.path.display()
        ))
    }

    /// Runs `work` with the database where [`Threads`] says: on the calling thread, with any
    /// panic caught, or on the blocking pool, where tokio catches it. Either way a panic
    /// becomes [`RedbBackend::redb_failed`].
    async fn blocking<T, E, F>(&self, kind: Work, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(&Db) -> Result<T, E> + Send + 'static,
    {
        if self.runs_inline(kind) {
            let db = &*self.db;
            return match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(db))) {
                Ok(result) => result,
                Err(panic) => {
                    db.forget_snapshot();
                    Err(self.redb_failed(&panic_message(&panic)).into())
                }
            };
        }
        let db = self.db.clone();
        match tokio::task::spawn_blocking(move || work(&db)).await {
            Ok(result) => result,
            Err(join) => {
                self.db.forget_snapshot();
                Err(self.redb_failed(&join_message(join)).into())
            }
        }
    }

    /// [`RedbBackend::blocking`] for work that runs the caller's code (through
    /// [`CallerCode::run`]): a panic there is resumed in the calling task, as if the code had
    /// run there, rather than reported as a failure of the store file.
    async fn blocking_calling<T, E, F>(&self, kind: Work, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(&Db, &mut CallerCode) -> Result<T, E> + Send + 'static,
    {
        let outcome = self
            .blocking(kind, move |db| {
                guard_caller_panics(|caller| work(db, caller))
            })
            .await?;
        Ok(outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
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

/// What a failed blocking task says: its panic message (redb panics on some damaged files;
/// tokio catches the panic on the blocking pool and it becomes an error here).
fn join_message(join: tokio::task::JoinError) -> String {
    if !join.is_panic() {
        return join.to_string();
    }
    panic_message(&join.into_panic())
}

/// The message of a panic: its payload when that is text.
fn panic_message(payload: &Panic) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

fn storage(e: impl Into<redb::Error>) -> BackendError {
    BackendError::storage(e.into())
}

/// A panic payload, carried from where redb's work ran back to the calling task.
type Panic = Box<dyn std::any::Any + Send>;

/// Folds `records` into `acc` with `fold`, each run as the caller's code, up to the first
/// record whose `(group, sort key)` is not `within` the scan.
fn fold_records<'a, A, E, F>(
    records: impl Iterator<
        Item = Result<
            (
                redb::AccessGuard<'a, RecordKey>,
                redb::AccessGuard<'a, RecordValue>,
            ),
            redb::StorageError,
        >,
    >,
    within: impl Fn(&[u8], &[u8]) -> bool,
    caller: &mut CallerCode,
    acc: &mut A,
    fold: &mut F,
) -> Result<(), E>
where
    E: From<BackendError>,
    F: FnMut(&mut A, &[u8], u64, &[u8]) -> Result<(), E>,
{
    let mut records = records;
    loop {
        // Read where the iterator put it: moving the guards out copies them whole.
        let record = records.next();
        let (k, v) = match &record {
            None => break,
            Some(Ok(guards)) => guards,
            Some(Err(_)) => return Err(record_error(record).into()),
        };
        let (group, sort) = k.value();
        if !within(group, sort) {
            break;
        }
        let (version, value) = v.value();
        caller.run(|| fold(acc, sort, version, value))?;
    }
    Ok(())
}

/// The storage error of a record a scan could not read.
#[cold]
fn record_error<T>(record: Option<Result<T, redb::StorageError>>) -> BackendError {
    match record {
        Some(Err(e)) => storage(e),
        _ => unreachable!("called with a record that is an error"),
    }
}

/// Marks where the caller's code (the `fold` of [`Backend::scan_fold`], the `map` of
/// [`Backend::batch_get_map`], the `plan` of [`Backend::read_then_write`]) runs, for
/// [`guard_caller_panics`].
struct CallerCode {
    running: bool,
}

impl CallerCode {
    #[inline]
    fn run<R>(&mut self, code: impl FnOnce() -> R) -> R {
        self.running = true;
        let made = code();
        self.running = false;
        made
    }
}

/// Runs `walk`, which calls the caller's code only through [`CallerCode::run`], with one
/// unwind guard around the whole walk (not one per record, which would keep the caller's
/// code from being inlined into the loop). A panic in the caller's code is returned as the
/// inner `Err`, for the calling task to resume: unwinding out of it leaves nothing of ours
/// half-done (a read transaction is dropped; the one write transaction with caller's code
/// in it, [`Backend::read_then_write`]'s, is aborted before the panic goes on). Any other
/// panic (redb's, on a damaged file) unwinds on, is caught where the work ran, and is
/// reported as a damaged store file (by [`RedbBackend::blocking`]).
fn guard_caller_panics<T, E>(
    walk: impl FnOnce(&mut CallerCode) -> Result<T, E>,
) -> Result<Result<T, Panic>, E> {
    let mut caller = CallerCode { running: false };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| walk(&mut caller))) {
        Ok(made) => made.map(Ok),
        Err(panic) if caller.running => Ok(Err(panic)),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Checks every condition of `writes` against `table`'s state, then applies them all, or
/// none if a condition fails ([`BackendError::ConditionFailed`] names the first).
///
/// `read` holds versions read earlier in the same write transaction, sorted by key; a key
/// found there is not read again: no other writer can come into the transaction, and every
/// condition is checked before the first write of the batch (keep the two loops apart). A
/// write with [`Condition::None`] reads nothing.
fn apply_writes(
    table: &mut redb::Table<RecordKey, RecordValue>,
    writes: &[Write],
    read: &[(&Key, Option<u64>)],
) -> Result<(), BackendError> {
    for (index, w) in writes.iter().enumerate() {
        let condition = w.condition();
        if condition == Condition::None {
            continue;
        }
        let k = w.key();
        let current = match read.binary_search_by(|(r, _)| (*r).cmp(k)) {
            Ok(at) => read[at].1,
            Err(_) => table
                .get(record_key(k))
                .map_err(storage)?
                .map(|g| g.value().0),
        };
        if !condition.holds(current) {
            return Err(BackendError::ConditionFailed { index, current });
        }
    }
    for w in writes {
        match w {
            Write::Put { key, record, .. } | Write::PutItem { key, record, .. } => {
                table
                    .insert(record_key(key), (record.version, record.value.as_slice()))
                    .map_err(storage)?;
            }
            Write::Delete { key, .. } => {
                table.remove(record_key(key)).map_err(storage)?;
            }
            Write::Check { .. } => {}
        }
    }
    Ok(())
}

/// A scan's bound, prepared for the comparison with every record's sort key.
fn as_far_bound(b: &Bound<Vec<u8>>) -> Bound<FarBound<'_>> {
    as_slices(b).map(FarBound::new)
}

fn as_slices(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Backend for RedbBackend {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        RedbBackend::groups(self, from).await
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        Ok(self.batch_get(vec![key]).await?.pop().flatten())
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        self.batch_get_map(keys, |_, version, value| {
            Ok::<_, BackendError>(Record {
                value: value.to_vec(),
                version,
            })
        })
        .await
    }

    /// Runs `map` inside the read transaction (where [`Threads`] says), over the bytes redb
    /// lends, like [`RedbBackend::scan_fold`]; a panic in `map` is resumed in the calling task.
    async fn batch_get_map<T, E, F>(&self, keys: Vec<Key>, mut map: F) -> Result<Vec<Option<T>>, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(usize, u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.blocking_calling(Work::Read(keys.len()), move |db, caller| {
            let table = db.snapshot()?;
            let mut out = Vec::with_capacity(keys.len());
            for (slot, k) in keys.iter().enumerate() {
                let got = table.get(record_key(k)).map_err(storage)?;
                out.push(match got {
                    Some(got) => {
                        let (version, value) = got.value();
                        Some(caller.run(|| map(slot, version, value))?)
                    }
                    None => None,
                });
            }
            Ok(out)
        })
        .await
    }

    /// One key's read, without the vectors of a batch around it.
    async fn get_map_with<T, E, F>(
        &self,
        key: Key,
        _consistency: super::Consistency,
        mut map: F,
    ) -> Result<Option<T>, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        self.blocking_calling(Work::Read(1), move |db, caller| {
            let table = db.snapshot()?;
            match table.get(record_key(&key)).map_err(storage)? {
                Some(got) => {
                    let (version, value) = got.value();
                    Ok(Some(caller.run(|| map(version, value))?))
                }
                None => Ok(None),
            }
        })
        .await
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.scan_map(scan, |sort, version, value| {
            Ok::<_, BackendError>(Entry {
                sort: sort.to_vec(),
                record: Record {
                    value: value.to_vec(),
                    version,
                },
            })
        })
        .await
    }

    /// Runs `fold` inside the read transaction (where [`Threads`] says), over the bytes redb
    /// lends: records are not copied unless `fold` copies them. A panic in `fold` (the
    /// caller's code, e.g. a `Deserialize` impl) is resumed in the calling task, as if `fold`
    /// had run there, rather than reported as a failure of the store file.
    async fn scan_fold<A, E, F>(&self, scan: Scan, mut acc: A, mut fold: F) -> Result<A, E>
    where
        A: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(&mut A, &[u8], u64, &[u8]) -> Result<(), E> + Send + 'static,
    {
        let limit = scan.limit.unwrap_or(usize::MAX);
        if limit == 0 || scan.is_empty_range() {
            return Ok(acc);
        }
        self.blocking_calling(Work::Read(limit), move |db, caller| {
            let table = db.snapshot()?;
            let g = scan.group.as_slice();
            // `group ++ [0x00]` is the next group in byte order: excluding it ends `group`.
            let next_group: Vec<u8>;
            let lower: Bound<(&[u8], &[u8])> = match as_slices(&scan.start) {
                Bound::Included(s) => Bound::Included((g, s)),
                Bound::Excluded(s) => Bound::Excluded((g, s)),
                Bound::Unbounded => Bound::Included((g, &[])),
            };
            let upper: Bound<(&[u8], &[u8])> = match as_slices(&scan.end) {
                Bound::Included(e) => Bound::Included((g, e)),
                Bound::Excluded(e) => Bound::Excluded((g, e)),
                Bound::Unbounded => {
                    next_group = [g, &[0u8]].concat();
                    Bound::Excluded((next_group.as_slice(), &[]))
                }
            };
            // redb checks every record it returns against the range's far bound by comparing
            // tuple keys (both elements' lengths read again): the range is left open on that
            // side instead, and the fold stops at the first record past the bound, checked
            // on the group and sort key it reads anyway.
            match scan.order {
                Order::Ascending => {
                    let range = table
                        .range::<(&[u8], &[u8])>((lower, Bound::Unbounded))
                        .map_err(storage)?;
                    let end = as_far_bound(&scan.end);
                    let within = |group: &[u8], sort: &[u8]| {
                        same_group(group, g)
                            && match end {
                                Bound::Included(e) => e.cmp(sort).is_le(),
                                Bound::Excluded(e) => e.cmp(sort).is_lt(),
                                Bound::Unbounded => true,
                            }
                    };
                    fold_records(range.take(limit), within, caller, &mut acc, &mut fold)?
                }
                Order::Descending => {
                    let range = table
                        .range::<(&[u8], &[u8])>((Bound::Unbounded, upper))
                        .map_err(storage)?;
                    let start = as_far_bound(&scan.start);
                    let within = |group: &[u8], sort: &[u8]| {
                        same_group(group, g)
                            && match start {
                                Bound::Included(s) => s.cmp(sort).is_ge(),
                                Bound::Excluded(s) => s.cmp(sort).is_gt(),
                                Bound::Unbounded => true,
                            }
                    };
                    fold_records(range.rev().take(limit), within, caller, &mut acc, &mut fold)?
                }
            }
            Ok(acc)
        })
        .await
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        if let Some((first, second)) = duplicate_key(&writes) {
            return Err(BackendError::DuplicateKey { first, second });
        }
        if writes.is_empty() {
            return Ok(());
        }
        self.blocking(Work::Write, move |db| {
            let txn = db.begin_write()?;
            {
                let mut table = txn.open_table(RECORDS).map_err(storage)?;
                apply_writes(&mut table, &writes, &[])?;
            }
            db.commit(txn)
        })
        .await
    }

    /// Reads, plans and writes in one write transaction (on the blocking pool unless
    /// [`Threads::Caller`]): one trip to the pool, and no other write can come between the
    /// reads and the writes. A panic in
    /// `plan` is resumed in the calling task.
    async fn read_then_write<T, E, F>(
        &self,
        keys: Vec<Key>,
        plan: F,
    ) -> Result<(T, Result<(), BackendError>), E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(Vec<Option<Record>>) -> Result<(Vec<Write>, T), E> + Send + 'static,
    {
        self.blocking_calling(Work::Write, move |db, caller| {
            let txn = db.begin_write()?;
            // One table for the reads and the writes.
            let mut table = txn.open_table(RECORDS).map_err(storage)?;
            let mut got = Vec::with_capacity(keys.len());
            for k in &keys {
                let record = table.get(record_key(k)).map_err(storage)?.map(|g| {
                    let (version, value) = g.value();
                    Record {
                        value: value.to_vec(),
                        version,
                    }
                });
                got.push(record);
            }
            let versions: Vec<Option<u64>> =
                got.iter().map(|r| r.as_ref().map(|r| r.version)).collect();
            let planned =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| caller.run(|| plan(got))));
            let (writes, made) = match planned {
                Ok(planned) => planned?,
                Err(panic) => {
                    // redb does not abort a write transaction dropped while its thread
                    // unwinds: end it here (nothing was written yet), then let the panic go
                    // on to the caller.
                    drop(table);
                    let _ = txn.abort();
                    std::panic::resume_unwind(panic)
                }
            };
            if writes.is_empty() {
                // Dropping the transaction unused ends it; nothing was written.
                return Ok((made, Ok(())));
            }
            if let Some((first, second)) = duplicate_key(&writes) {
                return Ok((made, Err(BackendError::DuplicateKey { first, second })));
            }
            // What was read, for the writes' conditions: the same transaction, so still true.
            let mut read: Vec<(&Key, Option<u64>)> = keys.iter().zip(versions).collect();
            read.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let applied = apply_writes(&mut table, &writes, &read);
            drop(table);
            let written = match applied {
                Ok(()) => db.commit(txn),
                // Dropping the uncommitted transaction discards it: nothing is written.
                Err(e) => Err(e),
            };
            Ok((made, written))
        })
        .await
    }
}

/// Bytes as lowercase hex, for messages.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
