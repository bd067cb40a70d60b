//! `check_backend` while other writers change the store: a write that lands between the
//! check's group scans is not reported as damage, damage planted in the store still is, and
//! a finding whose records keep changing is reported as undecided, not as damage.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sortpath::KeyPath;
use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::backend::{Backend, BackendError, Condition, Entry, Key, Record, Scan, Write};
use sortpath_store::check::{check_backend, UNDECIDED};
use sortpath_store::{PutMode, Store};

/// When the other writer writes: before every scan (the check's reads of whole groups),
/// or before every read at all (scans and the check's re-reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum When {
    Scans,
    EveryRead,
}

/// A backend through which the check reads; before its reads, another writer (a store on
/// the same memory map) moves an item to a new index key, as a process writing next to
/// the check would.
#[derive(Clone, Debug)]
struct WritesBetweenReads {
    inner: MemoryBackend,
    other: Store<MemoryBackend>,
    when: When,
    writes: Arc<AtomicU64>,
}

fn path(text: &str) -> KeyPath {
    text.parse().unwrap()
}

/// Item `/t-{i}` with the `by_n` key `/all-0/n-{n}`.
async fn put(store: &Store<MemoryBackend>, i: u64, n: u64) {
    let idx = vec![("by_n".to_owned(), path(&format!("/all-0/n-{n}")))];
    store
        .put_raw(&path(&format!("/t-{i}")), "t", &n, idx, PutMode::Upsert)
        .await
        .unwrap();
}

impl WritesBetweenReads {
    async fn other_writes(&self) {
        let w = self.writes.fetch_add(1, Ordering::SeqCst);
        // Items 0..8 in turn (only item 0 when it writes before every read), each to a key
        // it never had.
        let item = match self.when {
            When::Scans => w % 8,
            When::EveryRead => 0,
        };
        put(&self.other, item, 1_000 + w).await;
    }
}

impl Backend for WritesBetweenReads {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        self.inner.groups(from).await
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        if self.when == When::EveryRead {
            self.other_writes().await;
        }
        self.inner.get(key).await
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        if self.when == When::EveryRead {
            self.other_writes().await;
        }
        self.inner.batch_get(keys).await
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.other_writes().await;
        self.inner.scan(scan).await
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        self.inner.write(writes).await
    }
}

/// A store of 16 indexed items, and the backend through which the check reads it.
async fn setup(when: When) -> WritesBetweenReads {
    let inner = MemoryBackend::new();
    let other = Store::new(inner.clone());
    for i in 0..16 {
        put(&other, i, i).await;
    }
    WritesBetweenReads {
        inner,
        other,
        when,
        writes: Arc::new(AtomicU64::new(0)),
    }
}

/// Before the check read findings again, this gave "index entry ... points at /t-0, whose
/// by_n key is not /all-0/n-1000" and "... missing" for a store with nothing wrong.
#[tokio::test]
async fn writes_between_the_scans_are_not_reported() {
    let backend = setup(When::Scans).await;
    let census = check_backend(&backend, |_, _, _| None)
        .await
        .unwrap()
        .unwrap_or_else(|problems| panic!("a sound store was reported:\n{problems}"));
    assert!(
        backend.writes.load(Ordering::SeqCst) >= 2,
        "no write between scans"
    );
    assert_eq!((census.items, census.index_entries), (16, 16));
}

/// Damage planted in the store is reported, exactly, though writes land between the scans.
#[tokio::test]
async fn damage_is_reported_under_writes() {
    let backend = setup(When::Scans).await;
    // The by_n entry of /t-12 (never moved by the other writer) deleted behind the store's
    // back, and a record the store never writes.
    let before = backend.inner.snapshot().into_iter().collect();
    let entry = entry_of(&before, "/all-0/n-12");
    let junk = Key::new(vec![sortpath_store::layout::RESERVED_GROUP, 0x7f], vec![1]);
    backend
        .inner
        .write(vec![
            Write::Delete {
                key: entry.clone(),
                condition: Condition::Exists,
            },
            Write::Put {
                key: junk,
                record: Record {
                    value: vec![1],
                    version: 1,
                },
                condition: Condition::NotExists,
            },
        ])
        .await
        .unwrap();
    let problems = check_backend(&backend, |_, _, _| None)
        .await
        .unwrap()
        .expect_err("damage went unreported");
    let lines: Vec<&str> = problems.lines().collect();
    assert_eq!(lines.len(), 2, "{problems}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("/all-0/n-12") && l.contains("missing")),
        "{problems}"
    );
    assert!(
        lines.iter().any(|l| l.contains("unknown reserved record")),
        "{problems}"
    );
    assert!(!problems.contains(UNDECIDED), "{problems}");
}

/// The key of the by_n entry `/all-0/n-{i}` (given as `index_key`): the one record whose
/// removal makes the check report that entry missing.
fn entry_of(records: &std::collections::BTreeMap<Key, Record>, index_key: &str) -> Key {
    for key in records.keys() {
        if key.group.first() != Some(&sortpath_store::layout::RESERVED_GROUP) {
            continue;
        }
        let mut without = records.clone();
        without.remove(key);
        if let Err(e) = sortpath_store::check::check_consistency(&without) {
            if e.contains(index_key) && e.contains("missing") {
                return key.clone();
            }
        }
    }
    panic!("no entry {index_key}");
}

/// A finding whose records change at every re-read is neither confirmed nor dropped: it
/// is reported as undecided.
#[tokio::test]
async fn a_finding_whose_records_keep_changing_is_undecided() {
    let backend = setup(When::EveryRead).await;
    let problems = check_backend(&backend, |_, _, _| None)
        .await
        .unwrap()
        .expect_err("a check that could not read a stable state said ok");
    for line in problems.lines() {
        assert!(line.starts_with(UNDECIDED), "reported as damage: {line}");
    }
}
