use std::sync::atomic::{AtomicUsize, Ordering};

use sortpath::{path::PathError, KeyPath};

use super::Store;
use crate::backend::redb::{OpenError, Threads, DATA_FILE_NAME};
use crate::{CommitError, GetError, Index, Item, ListError, PutMode, Query, WriteError};

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
struct Ticket {
    board: u64,
    id: u64,
    updated_at: u64,
    n: u64,
}

impl Item for Ticket {
    const TYPE: &'static str = "ticket";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
        Ok(Some(
            KeyPath::new()
                .push("board", t.board)?
                .push("updated", t.updated_at)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("ticket", self.id)
    }
}

fn ticket(board: u64, id: u64, updated_at: u64) -> Ticket {
    Ticket {
        board,
        id,
        updated_at,
        n: 0,
    }
}

fn path(text: &str) -> KeyPath {
    text.parse().unwrap()
}

#[test]
fn every_operation_runs_without_a_runtime() {
    assert!(tokio::runtime::Handle::try_current().is_err());
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    assert_eq!(store.backend().threads(), Threads::Caller);
    let mut versions = Vec::new();
    for id in 0..20 {
        versions.push(store.put(&ticket(1, id, 1000 - id)).unwrap());
    }
    // get, batch get, raw
    let got = store
        .get::<Ticket>(&path("/board-1/ticket-3"))
        .unwrap()
        .unwrap();
    assert_eq!((got.item.updated_at, got.version), (997, versions[3]));
    let both = store
        .batch_get::<Ticket>(&[path("/board-1/ticket-30"), path("/board-1/ticket-5")])
        .unwrap();
    assert!(both[0].is_none());
    assert_eq!(both[1].as_ref().unwrap().item.id, 5);
    assert_eq!(
        store
            .get_raw(&path("/board-1/ticket-5"))
            .unwrap()
            .unwrap()
            .item_type(),
        "ticket"
    );
    // lists, both ways, with cursors
    let q = Query::children(&path("/board-1"), "ticket")
        .unwrap()
        .limit(7);
    let mut seen = Vec::new();
    let mut page = store.list::<Ticket>(&q).unwrap();
    loop {
        seen.extend(page.items.iter().map(|t| t.item.id));
        match page.cursor {
            Some(c) => page = store.list::<Ticket>(&q.clone().after(c)).unwrap(),
            None => break,
        }
    }
    assert_eq!(seen, (0..20).collect::<Vec<_>>());
    let desc = store.list::<Ticket>(&q.clone().reverse()).unwrap();
    let ids: Vec<u64> = desc.items.iter().map(|t| t.item.id).collect();
    assert_eq!(ids, [19, 18, 17, 16, 15, 14, 13]);
    // the index: latest first is lowest id first here
    let latest = Query::prefix(&path("/board-1")).unwrap().reverse().limit(3);
    let page = store.query_index::<Ticket>("by_updated", &latest).unwrap();
    let ids: Vec<u64> = page.items.iter().map(|t| t.item.id).collect();
    assert_eq!(ids, [0, 1, 2]);
    // update moves the item in the index
    let updated = store
        .update(&path("/board-1/ticket-19"), |t: Option<Ticket>| {
            t.map(|t| Ticket {
                updated_at: 5000,
                ..t
            })
        })
        .unwrap()
        .unwrap();
    assert_eq!(updated.item.updated_at, 5000);
    let page = store.query_index::<Ticket>("by_updated", &latest).unwrap();
    assert_eq!(page.items[0].item.id, 19);
    // delete, with and without a version
    assert!(store.delete(&path("/board-1/ticket-0")).unwrap());
    assert!(!store.delete(&path("/board-1/ticket-0")).unwrap());
    let v = store
        .get::<Ticket>(&path("/board-1/ticket-1"))
        .unwrap()
        .unwrap()
        .version;
    store
        .delete_if_version(&path("/board-1/ticket-1"), v)
        .unwrap();
    let page = store.query_index::<Ticket>("by_updated", &latest).unwrap();
    let ids: Vec<u64> = page.items.iter().map(|t| t.item.id).collect();
    assert_eq!(ids, [19, 2, 3]);
    // a transaction
    let mut txn = store.transaction();
    let a = txn
        .get::<Ticket>(&path("/board-1/ticket-2"))
        .unwrap()
        .unwrap();
    txn.put(&Ticket { n: 9, ..a.item }).unwrap();
    txn.delete(&path("/board-1/ticket-3")).unwrap();
    let versions = txn.commit().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(
        store
            .get::<Ticket>(&path("/board-1/ticket-2"))
            .unwrap()
            .unwrap()
            .item
            .n,
        9
    );
    assert!(store
        .get::<Ticket>(&path("/board-1/ticket-3"))
        .unwrap()
        .is_none());
    // the program index was declared in the configuration, as by the async store
    let config = store.config().unwrap();
    assert!(config.indexes_of("ticket").any(|d| d.name == "by_updated"));
    assert!(tokio::runtime::Handle::try_current().is_err());
}

#[test]
fn errors_are_the_async_stores() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        Store::open(dir.path()),
        Err(OpenError::Missing(_))
    ));
    let store = Store::builder()
        .config(crate::StoreConfig::default())
        .create_new(dir.path())
        .unwrap();
    assert!(matches!(
        Store::builder()
            .config(crate::StoreConfig::default())
            .create_new(dir.path()),
        Err(OpenError::Exists(_))
    ));
    let t = ticket(1, 1, 10);
    let v = store.put_with(&t, PutMode::IfAbsent).unwrap();
    assert!(matches!(
        store.put_with(&t, PutMode::IfAbsent),
        Err(WriteError::AlreadyExists { key }) if key == path("/board-1/ticket-1")
    ));
    assert!(matches!(
        store.put_with(&t, PutMode::IfVersion(v + 5)),
        Err(WriteError::VersionMismatch { expected, found: Some(found), .. })
            if expected == v + 5 && found == v
    ));
    assert!(matches!(
        store.get::<Ticket>(&path("/board")),
        Err(GetError::InvalidKey(_))
    ));
    let q = Query::prefix(&path("/board-1")).unwrap();
    assert!(matches!(
        store.query_index::<Ticket>("by_nothing", &q),
        Err(ListError::UnknownIndex { .. })
    ));
    // A transaction whose read changed under it.
    let mut txn = store.transaction();
    txn.get::<Ticket>(&path("/board-1/ticket-1")).unwrap();
    store.put(&Ticket { n: 1, ..t.clone() }).unwrap();
    txn.put(&Ticket { n: 2, ..t.clone() }).unwrap();
    assert!(matches!(txn.commit(), Err(CommitError::Conflict { .. })));
    // A record that is not the store's where an item belongs.
    store
        .put_raw(
            &path("/board-1/ticket-2"),
            "other",
            &"x",
            vec![],
            PutMode::Upsert,
        )
        .unwrap();
    assert!(store.get::<Ticket>(&path("/board-1/ticket-2")).is_err());
    drop(store);
    // Read-only: reads work, writes fail with a storage error, nothing changes.
    let ro = Store::open_read_only(dir.path()).unwrap();
    assert_eq!(
        ro.get::<Ticket>(&path("/board-1/ticket-1"))
            .unwrap()
            .unwrap()
            .item
            .n,
        1
    );
    let err = ro.put(&t).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
    drop(ro);
    // A damaged file: an error naming it, never a panic.
    let file = dir.path().join(DATA_FILE_NAME);
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 3]).unwrap();
    let err = Store::open(dir.path()).unwrap_err();
    assert!(
        err.to_string().contains(&*file.to_string_lossy()),
        "names the file: {err}"
    );
}

/// Writers on several threads, without a runtime, each incrementing one shared counter:
/// the losers of each race sleep their backoff on their own thread and try again, and
/// every increment lands.
#[test]
fn contended_updates_pause_on_the_calling_thread() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    let at = path("/board-1/ticket-1");
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for _ in 0..40 {
                    store
                        .update(&at, |t: Option<Ticket>| {
                            let mut t = t.unwrap_or(ticket(1, 1, 0));
                            t.n += 1;
                            t.updated_at = t.n;
                            Some(t)
                        })
                        .unwrap();
                }
            });
        }
    });
    let got = store.get::<Ticket>(&at).unwrap().unwrap();
    assert_eq!(got.item.n, 120);
    let q = Query::prefix(&path("/board-1")).unwrap();
    let indexed = store.query_index::<Ticket>("by_updated", &q).unwrap();
    assert_eq!(indexed.items.len(), 1, "one index entry, the current one");
}

/// The blocking store also works on a runtime's blocking thread (where a write's backoff
/// pauses on the runtime's pool), and beside the async store over the same file.
#[test]
fn works_inside_a_runtime_and_beside_the_async_store() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    let r#async = store.to_async();
    assert_eq!(r#async.backend().threads(), Threads::ReadsInline);
    let at = path("/board-2/ticket-1");
    rt.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..2 {
            let store = store.clone();
            let at = at.clone();
            tasks.push(tokio::task::spawn_blocking(move || {
                for _ in 0..30 {
                    store
                        .update(&at, |t: Option<Ticket>| {
                            let mut t = t.unwrap_or(ticket(2, 1, 0));
                            t.n += 1;
                            Some(t)
                        })
                        .unwrap();
                }
            }));
        }
        for _ in 0..30 {
            r#async
                .update(&at, |t: Option<Ticket>| {
                    let mut t = t.unwrap_or(ticket(2, 1, 0));
                    t.n += 1;
                    Some(t)
                })
                .await
                .unwrap();
        }
        for t in tasks {
            t.await.unwrap();
        }
        let got = r#async.get::<Ticket>(&at).await.unwrap().unwrap();
        assert_eq!(got.item.n, 90);
    });
    let back = Store::from_async(&r#async);
    assert_eq!(back.get::<Ticket>(&at).unwrap().unwrap().item.n, 90);
}

/// A type whose decoding panics: the panic is the caller's code, so it goes on in the
/// caller (not reported as a damaged file), and the store works on.
#[derive(serde::Serialize, Debug)]
struct Explodes {
    id: u64,
}

static DECODED: AtomicUsize = AtomicUsize::new(0);

impl<'de> serde::Deserialize<'de> for Explodes {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        DECODED.fetch_add(1, Ordering::SeqCst);
        panic!("Explodes does not decode")
    }
}

impl Item for Explodes {
    const TYPE: &'static str = "explodes";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("boom", self.id)
    }
}

#[test]
fn a_panic_in_the_callers_code_is_the_callers() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    store.put(&Explodes { id: 1 }).unwrap();
    // (The put's check that the compact form reads back decoded it once, caught.)
    let decoded_before = DECODED.load(Ordering::SeqCst);
    let q = Query::prefix(&path("/boom-1")).unwrap();
    for read in 0..2 {
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match read {
            0 => drop(store.get::<Explodes>(&path("/boom-1"))),
            _ => drop(store.list::<Explodes>(&q)),
        }));
        let panic = caught.expect_err("the decoding panic reaches the caller");
        assert_eq!(
            panic.downcast_ref::<&str>(),
            Some(&"Explodes does not decode")
        );
    }
    assert_eq!(DECODED.load(Ordering::SeqCst) - decoded_before, 2);
    // The file is fine and takes writes.
    store.put(&Explodes { id: 2 }).unwrap();
    assert!(store.get_raw(&path("/boom-2")).unwrap().is_some());
}
