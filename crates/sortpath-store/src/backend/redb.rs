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
mod open;
mod records;

use compare::{same_group, FarBound};
pub use open::OpenError;
pub(crate) use open::Opening;

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

impl RedbBackend {
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

/// Bytes as lowercase hex, for messages.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
