//! The embedded default [`Backend`]: one [redb](https://docs.rs/redb) file.
//!
//! redb is synchronous, so every operation runs on tokio's blocking pool
//! (`spawn_blocking`) and the runtime's worker threads never wait on disk. Write batches are
//! one redb write transaction each, committed with redb's default immediate durability: when
//! [`Backend::write`] returns `Ok`, the batch is on disk and survives a crash. Reads
//! (`get`, `batch_get`, scans) are redb read transactions (MVCC snapshots), so they never
//! wait for writers; the reads of [`Backend::read_then_write`] are part of its write
//! transaction, and wait for other writers like any write.

use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Database, ReadableTable, TableDefinition};

use super::{
    duplicate_key, Backend, BackendError, Condition, Direction, Entry, Key, Record, Scan, Write,
};

/// File name of the store inside the directory given to [`RedbBackend::open`].
pub const DATA_FILE_NAME: &str = "keypath.redb";

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
/// use keypath_store::backend::{redb::RedbBackend, Backend, Key};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let db = RedbBackend::open(dir.path()).await.unwrap();
/// assert_eq!(db.get(Key::new(vec![1], vec![0])).await.unwrap(), None);
/// assert!(dir.path().join(keypath_store::backend::redb::DATA_FILE_NAME).exists());
/// # });
/// ```
#[derive(Clone)]
pub struct RedbBackend {
    db: Arc<Database>,
    path: Arc<PathBuf>,
}

impl std::fmt::Debug for RedbBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbBackend")
            .field("path", &self.path)
            .finish()
    }
}

/// Why a store file could not be opened.
///
/// ```
/// use keypath_store::backend::redb::{OpenError, RedbBackend};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let err = RedbBackend::open_existing(dir.path().join("none")).await.unwrap_err();
/// assert!(matches!(err, OpenError::Missing(_)));
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// `open_existing` found no store file.
    #[error("no store at {}: expected the file {DATA_FILE_NAME} there", .0.display())]
    Missing(PathBuf),
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
    /// redb could not open the file (corrupt, locked by another process, ...).
    #[error("cannot open the store file {}: {source}", path.display())]
    Database {
        /// The store file.
        path: PathBuf,
        /// redb's error.
        source: Box<redb::Error>,
    },
}

impl RedbBackend {
    /// Opens the store in directory `dir`, creating the directory and the store file
    /// ([`DATA_FILE_NAME`]) if they do not exist.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = keypath_store::backend::redb::RedbBackend::open(dir.path().join("a/b")).await;
    /// assert!(db.is_ok());
    /// # });
    /// ```
    pub async fn open(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), true).await
    }

    /// Opens the store in directory `dir`, failing with [`OpenError::Missing`] if there is none.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// use keypath_store::backend::redb::RedbBackend;
    /// assert!(RedbBackend::open_existing(dir.path()).await.is_err());
    /// RedbBackend::open(dir.path()).await.unwrap();
    /// assert!(RedbBackend::open_existing(dir.path()).await.is_ok());
    /// # });
    /// ```
    pub async fn open_existing(dir: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::open_in(dir.as_ref().to_owned(), false).await
    }

    /// The store file's path.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = keypath_store::backend::redb::RedbBackend::open(dir.path()).await.unwrap();
    /// assert!(db.path().ends_with("keypath.redb"));
    /// # });
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn open_in(dir: PathBuf, create: bool) -> Result<Self, OpenError> {
        let file = dir.join(DATA_FILE_NAME);
        let opened = {
            let file = file.clone();
            tokio::task::spawn_blocking(move || Self::open_blocking(dir, file, create)).await
        };
        opened.unwrap_or_else(|join| {
            Err(OpenError::Damaged {
                path: file,
                message: format!("redb failed on it: {}", panic_message(join)),
            })
        })
    }

    fn open_blocking(dir: PathBuf, file: PathBuf, create: bool) -> Result<Self, OpenError> {
        let db_err = |path: &Path, e: redb::Error| OpenError::Database {
            path: path.to_owned(),
            source: Box::new(e),
        };
        let io_err = |path: &Path, source| OpenError::Io {
            path: path.to_owned(),
            source,
        };
        match std::fs::metadata(&file) {
            Ok(m) if m.len() == 0 => {
                // redb would initialize an empty file as a new database, hiding the loss.
                // A store file is never empty: it is created whole (below).
                return Err(OpenError::Damaged {
                    path: file,
                    message: "the file is empty".to_owned(),
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !create {
                    return Err(OpenError::Missing(dir));
                }
                std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
                Self::create_file(&dir, &file)?;
            }
            Err(e) => return Err(io_err(&file, e)),
        }
        let db = Database::open(&file).map_err(|e| db_err(&file, e.into()))?;
        // Make sure the table exists, so readers can always open it.
        let txn = db.begin_write().map_err(|e| db_err(&file, e.into()))?;
        txn.open_table(RECORDS)
            .map_err(|e| db_err(&file, e.into()))?;
        txn.commit().map_err(|e| db_err(&file, e.into()))?;
        Ok(RedbBackend {
            db: Arc::new(db),
            path: Arc::new(file),
        })
    }

    /// Creates the store file whole: a new database with its table is written to a temporary
    /// file, then linked into place only if no store file appeared meanwhile. A crash leaves
    /// either no store file or a complete one (never an empty file, which redb would take
    /// for a new database).
    fn create_file(dir: &Path, file: &Path) -> Result<(), OpenError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(
            "{DATA_FILE_NAME}.{}.{nanos}.tmp",
            std::process::id()
        ));
        let made = (|| -> Result<(), Box<redb::Error>> {
            let db = Database::create(&tmp).map_err(|e| Box::new(e.into()))?;
            let txn = db.begin_write().map_err(|e| Box::new(e.into()))?;
            txn.open_table(RECORDS).map_err(|e| Box::new(e.into()))?;
            txn.commit().map_err(|e| Box::new(e.into()))?;
            Ok(())
        })();
        let linked = made
            .map_err(|source| OpenError::Database {
                path: tmp.clone(),
                source,
            })
            .and_then(|()| match std::fs::hard_link(&tmp, file) {
                Ok(()) => Ok(()),
                // Another process created it first: use theirs.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(source) => Err(OpenError::Io {
                    path: file.to_owned(),
                    source,
                }),
            });
        let _ = std::fs::remove_file(&tmp);
        linked?;
        // Make the new directory entry durable.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Every group key in the file whose first byte is at least `from`, in byte order (one
    /// seek per group). The store's own records live in groups starting with `00`, so
    /// `groups(1)` lists exactly the item groups; `keypath db export` uses it.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use keypath_store::backend::{redb::RedbBackend, Backend, Condition, Key, Record, Write};
    /// let dir = tempfile::tempdir().unwrap();
    /// let backend = RedbBackend::open(dir.path()).await.unwrap();
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
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(storage)?;
            let table = txn.open_table(RECORDS).map_err(storage)?;
            let mut groups = Vec::new();
            let mut start = vec![from];
            loop {
                let lower: (&[u8], &[u8]) = (start.as_slice(), &[]);
                let mut range = table.range(lower..).map_err(storage)?;
                let Some(entry) = range.next() else { break };
                let group = entry.map_err(storage)?.0.value().0.to_vec();
                // `group ++ [0x00]` is the next possible group in byte order.
                start = [group.as_slice(), &[0u8]].concat();
                groups.push(group);
            }
            Ok(groups)
        })
        .await
    }

    /// Runs `work` on the blocking pool with the database.
    async fn blocking<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(&Database) -> Result<T, E> + Send + 'static,
    {
        let db = self.db.clone();
        match tokio::task::spawn_blocking(move || work(&db)).await {
            Ok(result) => result,
            Err(join) => Err(BackendError::storage(format!(
                "redb failed (the store file {} may be damaged): {}",
                self.path.display(),
                panic_message(join)
            ))
            .into()),
        }
    }

    /// [`RedbBackend::blocking`] for work that runs the caller's code (through
    /// [`CallerCode::run`]): a panic there is resumed in the calling task, as if the code had
    /// run there, rather than reported as a failure of the store file.
    async fn blocking_calling<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(&Database, &mut CallerCode) -> Result<T, E> + Send + 'static,
    {
        let outcome = self
            .blocking(move |db| guard_caller_panics(|caller| work(db, caller)))
            .await?;
        Ok(outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    }
}

/// What a failed blocking task says: its panic message (redb panics on some damaged files;
/// tokio catches the panic on the blocking pool and it becomes an error here).
fn panic_message(join: tokio::task::JoinError) -> String {
    if !join.is_panic() {
        return join.to_string();
    }
    let payload = join.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

fn storage(e: impl Into<redb::Error>) -> BackendError {
    BackendError::storage(e.into())
}

/// A panic payload, carried from the blocking pool back to the calling task.
type Panic = Box<dyn std::any::Any + Send>;

/// Folds `records` into `acc` with `fold`, each run as the caller's code.
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
    caller: &mut CallerCode,
    acc: &mut A,
    fold: &mut F,
) -> Result<(), E>
where
    E: From<BackendError>,
    F: FnMut(&mut A, &[u8], u64, &[u8]) -> Result<(), E>,
{
    for record in records {
        let (k, v) = record.map_err(storage)?;
        let (version, value) = v.value();
        let sort = k.value().1;
        caller.run(|| fold(acc, sort, version, value))?;
    }
    Ok(())
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
/// panic (redb's, on a damaged file) unwinds on, and becomes the blocking task's failure,
/// reported as a damaged store file.
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
            Write::Put { key, record, .. } => {
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

fn as_slices(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Backend for RedbBackend {
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

    /// Runs `map` on the blocking pool inside the read transaction, over the bytes redb
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
        self.blocking_calling(move |db, caller| {
            let txn = db.begin_read().map_err(storage)?;
            let table = txn.open_table(RECORDS).map_err(storage)?;
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

    /// Runs `fold` on the blocking pool inside the read transaction, over the bytes redb
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
        self.blocking_calling(move |db, caller| {
            let txn = db.begin_read().map_err(storage)?;
            let table = txn.open_table(RECORDS).map_err(storage)?;
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
            let range = table
                .range::<(&[u8], &[u8])>((lower, upper))
                .map_err(storage)?;
            match scan.direction {
                Direction::Forward => fold_records(range.take(limit), caller, &mut acc, &mut fold)?,
                Direction::Reverse => {
                    fold_records(range.rev().take(limit), caller, &mut acc, &mut fold)?
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
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(storage)?;
            {
                let mut table = txn.open_table(RECORDS).map_err(storage)?;
                apply_writes(&mut table, &writes, &[])?;
            }
            txn.commit().map_err(storage)
        })
        .await
    }

    /// Reads, plans and writes in one write transaction on the blocking pool: one trip to
    /// the pool, and no other write can come between the reads and the writes. A panic in
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
        self.blocking_calling(move |db, caller| {
            let txn = db.begin_write().map_err(storage)?;
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
                Ok(()) => txn.commit().map_err(storage),
                // Dropping the uncommitted transaction discards it: nothing is written.
                Err(e) => Err(e),
            };
            Ok((made, written))
        })
        .await
    }
}
