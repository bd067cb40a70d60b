//! What `benches/embedded.rs` and `examples/embedded_icount.rs` share: the item, the three
//! systems holding the same items (sortpath-store, native_db, raw redb), and each operation
//! of the comparison on each system.
//!
//! The item is `{id, board, title (40 B), updated_at}` with one index on
//! `(board, updated_at)`; every commit is durable (fsync) in all three. sortpath-store is
//! used only through its public API (`Item`, `Store`, `blocking::Store`, `Query`), so the
//! comparison keeps working when the store's layout changes.
//!
//! - sortpath-store: key path `/board-{board}/ticket-{id}`, index `by_updated` at
//!   `/board-{board}/updated-{updated_at}`.
//! - native_db 0.8 (on its own redb 2.x): primary key `id`, secondary key
//!   `(board, updated_at)`.
//! - raw redb (the store's redb version), the careful hand-made design: table
//!   `(board, id) -> MessagePack array of the fields` and index table
//!   `(board, updated_at, id) -> ()`, read back decoding each value into `Ticket`.

#![allow(dead_code)] // each user takes what it needs

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use native_db::{native_db, Builder, Models, ToKey};
use native_model::{native_model, Model};
use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::redb::{RedbBackend, DATA_FILE_NAME};
use sortpath_store::{Index, Item, Query};

/// The item, one type for all three systems.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[native_model(id = 1, version = 1)]
#[native_db(primary_key(primary -> u64), secondary_key(board_updated -> (u64, u64)))]
pub struct Ticket {
    pub id: u64,
    pub board: u64,
    pub title: String,
    pub updated_at: u64,
}

impl Ticket {
    fn primary(&self) -> u64 {
        self.id
    }

    fn board_updated(&self) -> (u64, u64) {
        (self.board, self.updated_at)
    }
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

/// Items of the large fixture.
pub const ITEMS: u64 = 100_000;
/// Boards 0..9 hold 10,000 items each (ids `board * 10_000 ..`), boards 9..109 hold 100
/// each: the latest-10 query runs on a board of each size.
pub const BIG_BOARDS: u64 = 9;
pub const PER_BIG_BOARD: u64 = 10_000;
pub const PER_SMALL_BOARD: u64 = 100;
/// A board of 10,000 and one of 100.
pub const BIG_BOARD: u64 = 5;
pub const SMALL_BOARD: u64 = 50;
/// Items of the small fixture (all in board 0), where puts and updates run too.
pub const SMALL_ITEMS: u64 = 1_000;
/// Items per load transaction.
const LOAD_BATCH: usize = 1_000;

/// The board of item `id` of the large fixture.
pub fn board_of(id: u64) -> u64 {
    let big = BIG_BOARDS * PER_BIG_BOARD;
    if id < big {
        id / PER_BIG_BOARD
    } else {
        BIG_BOARDS + (id - big) / PER_SMALL_BOARD
    }
}

/// Item `id` of board `board`: a 40-byte title, and an update time in no order of its id.
pub fn ticket(board: u64, id: u64) -> Ticket {
    Ticket {
        id,
        board,
        title: format!("ticket {id:08} - check the nightly build"),
        updated_at: 1_700_000_000_000 + (id.wrapping_mul(7919) % 1_000_000_007),
    }
}

/// The `i`-th probe of `n` items: a fixed walk over ids in no order.
pub fn probe(i: u64, n: u64) -> u64 {
    (i.wrapping_mul(7919).wrapping_add(13)) % n
}

pub fn key_path(board: u64, id: u64) -> KeyPath {
    KeyPath::new()
        .push("board", board)
        .unwrap()
        .push("ticket", id)
        .unwrap()
}

pub fn board_path(board: u64) -> KeyPath {
    KeyPath::new().push("board", board).unwrap()
}

/// Where `list 100` starts (ascending) or ends (descending): the middle of [`BIG_BOARD`].
pub const LIST_AT: u64 = BIG_BOARD * PER_BIG_BOARD + PER_BIG_BOARD / 2;
pub const LIST_LEN: usize = 100;

/// Ascending: the 100 items from [`LIST_AT`] on. Descending: the 100 before it.
pub fn list_query(reverse: bool) -> Query {
    let q = Query::children(&board_path(BIG_BOARD), "ticket").unwrap();
    let at = key_path(BIG_BOARD, LIST_AT);
    let q = match reverse {
        false => q.gte(&at).unwrap(),
        true => q.lt(&at).unwrap().reverse(),
    };
    q.limit(LIST_LEN)
}

/// The latest 10 items of `board` by `updated_at`.
pub fn latest_query(board: u64) -> Query {
    Query::prefix(&board_path(board))
        .unwrap()
        .reverse()
        .limit(10)
}

// ---- raw redb ----

pub const RAW_ITEMS: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("items");
pub const RAW_BY_UPDATED: TableDefinition<(u64, u64, u64), ()> = TableDefinition::new("by_updated");

pub fn raw_encode(t: &Ticket) -> Vec<u8> {
    rmp_serde::to_vec(t).expect("encodes")
}

pub fn raw_decode(v: &[u8]) -> Ticket {
    rmp_serde::from_slice(v).expect("decodes")
}

pub fn raw_insert(txn: &redb::WriteTransaction, tickets: &[Ticket]) {
    let mut items = txn.open_table(RAW_ITEMS).unwrap();
    let mut index = txn.open_table(RAW_BY_UPDATED).unwrap();
    for t in tickets {
        items
            .insert((t.board, t.id), raw_encode(t).as_slice())
            .unwrap();
        index.insert((t.board, t.updated_at, t.id), ()).unwrap();
    }
}

/// Puts a new item: the item and its index entry, one durable transaction.
pub fn raw_put(db: &redb::Database, t: &Ticket) {
    let txn = db.begin_write().unwrap();
    raw_insert(&txn, std::slice::from_ref(t));
    txn.commit().unwrap();
}

/// Read-modify-write of the indexed field: reads and decodes the item, moves its index
/// entry, writes it back, one durable transaction.
pub fn raw_update(db: &redb::Database, board: u64, id: u64) {
    let txn = db.begin_write().unwrap();
    {
        let mut items = txn.open_table(RAW_ITEMS).unwrap();
        let mut index = txn.open_table(RAW_BY_UPDATED).unwrap();
        let mut t = raw_decode(items.get((board, id)).unwrap().unwrap().value());
        index.remove((t.board, t.updated_at, t.id)).unwrap();
        t.updated_at += 1;
        index.insert((t.board, t.updated_at, t.id), ()).unwrap();
        items
            .insert((t.board, t.id), raw_encode(&t).as_slice())
            .unwrap();
    }
    txn.commit().unwrap();
}

pub fn raw_get(db: &redb::Database, board: u64, id: u64) -> Ticket {
    let txn = db.begin_read().unwrap();
    let items = txn.open_table(RAW_ITEMS).unwrap();
    let t = raw_decode(items.get((board, id)).unwrap().unwrap().value());
    t
}

pub fn raw_batch_get(db: &redb::Database, keys: &[(u64, u64)]) -> Vec<Ticket> {
    let txn = db.begin_read().unwrap();
    let items = txn.open_table(RAW_ITEMS).unwrap();
    let got = keys
        .iter()
        .map(|&k| raw_decode(items.get(k).unwrap().unwrap().value()))
        .collect();
    got
}

/// One record of a raw range scan of the item table.
type RawEntry<'a> = (
    redb::AccessGuard<'a, (u64, u64)>,
    redb::AccessGuard<'a, &'static [u8]>,
);

fn raw_decode_entry(r: Result<RawEntry<'_>, redb::StorageError>) -> Ticket {
    raw_decode(r.unwrap().1.value())
}

pub fn raw_list(db: &redb::Database, reverse: bool) -> Vec<Ticket> {
    let txn = db.begin_read().unwrap();
    let items = txn.open_table(RAW_ITEMS).unwrap();
    match reverse {
        false => items
            .range((BIG_BOARD, LIST_AT)..(BIG_BOARD + 1, 0))
            .unwrap()
            .take(LIST_LEN)
            .map(raw_decode_entry)
            .collect(),
        true => items
            .range((BIG_BOARD, 0)..(BIG_BOARD, LIST_AT))
            .unwrap()
            .rev()
            .take(LIST_LEN)
            .map(raw_decode_entry)
            .collect(),
    }
}

pub fn raw_latest(db: &redb::Database, board: u64) -> Vec<Ticket> {
    let txn = db.begin_read().unwrap();
    let items = txn.open_table(RAW_ITEMS).unwrap();
    let index = txn.open_table(RAW_BY_UPDATED).unwrap();
    let got = index
        .range((board, 0, 0)..=(board, u64::MAX, u64::MAX))
        .unwrap()
        .rev()
        .take(10)
        .map(|e| {
            let (_, _, id) = e.unwrap().0.value();
            raw_decode(items.get((board, id)).unwrap().unwrap().value())
        })
        .collect();
    got
}

// ---- native_db ----

pub type NativeDb = native_db::Database<'static>;

fn models() -> &'static Models {
    static MODELS: OnceLock<Models> = OnceLock::new();
    MODELS.get_or_init(|| {
        let mut models = Models::new();
        models.define::<Ticket>().unwrap();
        models
    })
}

pub fn ndb_put(db: &NativeDb, t: Ticket) {
    let rw = db.rw_transaction().unwrap();
    rw.insert(t).unwrap();
    rw.commit().unwrap();
}

pub fn ndb_update(db: &NativeDb, id: u64) {
    let rw = db.rw_transaction().unwrap();
    let old: Ticket = rw.get().primary(id).unwrap().unwrap();
    let mut new = old.clone();
    new.updated_at += 1;
    rw.update(old, new).unwrap();
    rw.commit().unwrap();
}

pub fn ndb_get(db: &NativeDb, id: u64) -> Ticket {
    let r = db.r_transaction().unwrap();
    let t: Ticket = r.get().primary(id).unwrap().unwrap();
    t
}

pub fn ndb_batch_get(db: &NativeDb, ids: &[u64]) -> Vec<Ticket> {
    let r = db.r_transaction().unwrap();
    ids.iter()
        .map(|&id| r.get().primary::<Ticket>(id).unwrap().unwrap())
        .collect()
}

pub fn ndb_list(db: &NativeDb, reverse: bool) -> Vec<Ticket> {
    let r = db.r_transaction().unwrap();
    let scan = r.scan().primary::<Ticket>().unwrap();
    let board_start = BIG_BOARD * PER_BIG_BOARD;
    let got = match reverse {
        false => scan
            .range(LIST_AT..board_start + PER_BIG_BOARD)
            .unwrap()
            .take(LIST_LEN)
            .map(|t| t.unwrap())
            .collect(),
        true => scan
            .range(board_start..LIST_AT)
            .unwrap()
            .rev()
            .take(LIST_LEN)
            .map(|t| t.unwrap())
            .collect(),
    };
    got
}

pub fn ndb_latest(db: &NativeDb, board: u64) -> Vec<Ticket> {
    let r = db.r_transaction().unwrap();
    let scan = r
        .scan()
        .secondary::<Ticket>(TicketKey::board_updated)
        .unwrap();
    let got = scan
        .range((board, 0u64)..=(board, u64::MAX))
        .unwrap()
        .rev()
        .take(10)
        .map(|t| t.unwrap())
        .collect();
    got
}

// ---- the fixture ----

/// Bytes on disk after loading: the file's size, and redb's count of stored key and value
/// bytes (`DatabaseStats::stored_bytes`: the data, without redb's own pages and free space).
#[derive(Clone, Copy, Debug)]
pub struct Footprint {
    pub file: u64,
    pub stored: u64,
}

/// One fixture: the same items in each system, each in its own file.
pub struct Systems {
    pub sortpath: sortpath_store::blocking::Store,
    pub native: NativeDb,
    pub raw: Arc<redb::Database>,
    pub items: u64,
    /// Bytes after loading, per system: sortpath, native_db, raw redb.
    pub footprint: [Footprint; 3],
    pub dir: tempfile::TempDir,
}

/// Loads `tickets` into sortpath-store in `dir`, `LOAD_BATCH` per durable transaction.
pub fn load_sortpath(
    dir: &Path,
    tickets: &[Ticket],
) -> (sortpath_store::blocking::Store, Footprint) {
    let kp_dir = dir.join("sortpath");
    {
        let store = sortpath_store::blocking::Store::create(&kp_dir).unwrap();
        for chunk in tickets.chunks(LOAD_BATCH) {
            let mut txn = store.transaction();
            for t in chunk {
                txn.put(t).unwrap();
            }
            txn.commit().unwrap();
        }
    }
    let kp_file = kp_dir.join(DATA_FILE_NAME);
    let bytes = Footprint {
        file: file_size(&kp_file),
        stored: stored_bytes(&kp_file),
    };
    let store = sortpath_store::blocking::Store::open(&kp_dir).unwrap();
    (store, bytes)
}

/// Loads `tickets` into native_db in `dir`, `LOAD_BATCH` per durable transaction.
pub fn load_native(dir: &Path, tickets: &[Ticket]) -> (NativeDb, Footprint) {
    let ndb_file = dir.join("native_db.redb");
    {
        let db = Builder::new().create(models(), &ndb_file).unwrap();
        for chunk in tickets.chunks(LOAD_BATCH) {
            let rw = db.rw_transaction().unwrap();
            for t in chunk {
                rw.insert(t.clone()).unwrap();
            }
            rw.commit().unwrap();
        }
    }
    let bytes = Footprint {
        file: file_size(&ndb_file),
        stored: {
            let db = redb2::Database::open(&ndb_file).unwrap();
            let stats = db.begin_write().unwrap().stats().unwrap();
            stats.stored_bytes()
        },
    };
    (Builder::new().open(models(), &ndb_file).unwrap(), bytes)
}

/// Loads `tickets` into raw redb in `dir`, `LOAD_BATCH` per durable transaction.
pub fn load_raw(dir: &Path, tickets: &[Ticket]) -> (Arc<redb::Database>, Footprint) {
    let raw_file = dir.join("raw.redb");
    {
        let db = redb::Database::create(&raw_file).unwrap();
        for chunk in tickets.chunks(LOAD_BATCH) {
            let txn = db.begin_write().unwrap();
            raw_insert(&txn, chunk);
            txn.commit().unwrap();
        }
    }
    let bytes = Footprint {
        file: file_size(&raw_file),
        stored: stored_bytes(&raw_file),
    };
    (Arc::new(redb::Database::open(&raw_file).unwrap()), bytes)
}

/// Loads `tickets` into each system, each in its own file.
pub fn load(tickets: &[Ticket]) -> Systems {
    let dir = tempfile::tempdir().unwrap();
    let (sortpath, kp_bytes) = load_sortpath(dir.path(), tickets);
    let (native, ndb_bytes) = load_native(dir.path(), tickets);
    let (raw, raw_bytes) = load_raw(dir.path(), tickets);
    Systems {
        sortpath,
        native,
        raw,
        items: tickets.len() as u64,
        footprint: [kp_bytes, ndb_bytes, raw_bytes],
        dir,
    }
}

/// The items of the large fixture: [`ITEMS`] over boards of 10,000 and of 100.
pub fn large_items() -> Vec<Ticket> {
    (0..ITEMS).map(|id| ticket(board_of(id), id)).collect()
}

/// The large fixture: [`ITEMS`] items over boards of 10,000 and of 100.
pub fn large() -> Systems {
    load(&large_items())
}

/// The small fixture: [`SMALL_ITEMS`] items in board 0.
pub fn small() -> Systems {
    let tickets: Vec<Ticket> = (0..SMALL_ITEMS).map(|id| ticket(0, id)).collect();
    load(&tickets)
}

fn file_size(file: &Path) -> u64 {
    std::fs::metadata(file).unwrap().len()
}

/// redb's stored bytes of the (closed) redb 4 file `file`.
fn stored_bytes(file: &PathBuf) -> u64 {
    let db = redb::Database::open(file).unwrap();
    let stats = db.begin_write().unwrap().stats().unwrap();
    stats.stored_bytes()
}

/// Checks that every system answers each read with the same items, so the benchmark
/// compares equal work.
pub fn check_same_answers(s: &Systems, rt: &tokio::runtime::Runtime) {
    let kp = &s.sortpath;
    let kp_async = kp.to_async();
    for i in 0..20 {
        let id = probe(i, s.items);
        let board = if s.items == ITEMS { board_of(id) } else { 0 };
        let want = raw_get(&s.raw, board, id);
        assert_eq!(ndb_get(&s.native, id), want);
        let path = key_path(board, id);
        assert_eq!(kp.get::<Ticket>(&path).unwrap().unwrap().item, want);
        let got = rt.block_on(kp_async.get::<Ticket>(&path)).unwrap().unwrap();
        assert_eq!(got.item, want);
    }
    if s.items != ITEMS {
        return;
    }
    let items = |page: sortpath_store::Page<sortpath_store::Versioned<Ticket>>| -> Vec<Ticket> {
        page.items.into_iter().map(|v| v.item).collect()
    };
    for reverse in [false, true] {
        let want = raw_list(&s.raw, reverse);
        assert_eq!(want.len(), LIST_LEN);
        assert_eq!(ndb_list(&s.native, reverse), want);
        assert_eq!(items(kp.list(&list_query(reverse)).unwrap()), want);
    }
    for board in [BIG_BOARD, SMALL_BOARD] {
        let want = raw_latest(&s.raw, board);
        assert_eq!(want.len(), 10);
        assert_eq!(ndb_latest(&s.native, board), want);
        let page = kp
            .query_index::<Ticket>("by_updated", &latest_query(board))
            .unwrap();
        assert_eq!(items(page), want);
    }
    let ids: Vec<u64> = (0..10).map(|i| probe(i, s.items)).collect();
    let keys: Vec<(u64, u64)> = ids.iter().map(|&id| (board_of(id), id)).collect();
    let want = raw_batch_get(&s.raw, &keys);
    assert_eq!(ndb_batch_get(&s.native, &ids), want);
    let paths: Vec<KeyPath> = keys.iter().map(|&(b, id)| key_path(b, id)).collect();
    let got: Vec<Ticket> = kp
        .batch_get::<Ticket>(&paths)
        .unwrap()
        .into_iter()
        .map(|v| v.unwrap().item)
        .collect();
    assert_eq!(got, want);
}

/// Checks that every system's writes leave the same items, on the small fixture (every
/// item in board 0): two new items put and two items' `updated_at` bumped in each system
/// (sortpath's two APIs one of each, as they share one file), then each of them read back
/// and the index's latest 10 of board 0 queried, and the answers compared.
pub fn check_same_writes(s: &Systems, rt: &tokio::runtime::Runtime) {
    assert_eq!(
        s.items, SMALL_ITEMS,
        "the small fixture: every item in board 0"
    );
    let kp = &s.sortpath;
    let kp_async = kp.to_async();
    // New ids below those the put benchmark writes; two items of the fixture updated.
    let new = [ticket(0, 9_000_001), ticket(0, 9_000_002)];
    let updated = [probe(1, s.items), probe(2, s.items)];
    let bump = |t: Option<Ticket>| {
        t.map(|mut t| {
            t.updated_at += 1;
            t
        })
    };
    kp.put(&new[0]).unwrap();
    rt.block_on(kp_async.put(&new[1])).unwrap();
    kp.update(&key_path(0, updated[0]), bump).unwrap().unwrap();
    let path = key_path(0, updated[1]);
    rt.block_on(kp_async.update(&path, bump)).unwrap().unwrap();
    for t in &new {
        ndb_put(&s.native, t.clone());
        raw_put(&s.raw, t);
    }
    for id in updated {
        ndb_update(&s.native, id);
        raw_update(&s.raw, 0, id);
    }
    for id in new.iter().map(|t| t.id).chain(updated) {
        let want = raw_get(&s.raw, 0, id);
        let mut expected = ticket(0, id);
        if updated.contains(&id) {
            expected.updated_at += 1;
        }
        assert_eq!(want, expected);
        assert_eq!(ndb_get(&s.native, id), want);
        assert_eq!(
            kp.get::<Ticket>(&key_path(0, id)).unwrap().unwrap().item,
            want
        );
    }
    let want = raw_latest(&s.raw, 0);
    assert_eq!(want.len(), 10);
    assert_eq!(ndb_latest(&s.native, 0), want);
    let page = kp
        .query_index::<Ticket>("by_updated", &latest_query(0))
        .unwrap();
    let got: Vec<Ticket> = page.items.into_iter().map(|v| v.item).collect();
    assert_eq!(got, want);
}

/// The sortpath-store async API over the fixture's file (reads on the calling thread,
/// commits on the blocking pool).
pub fn sortpath_async(s: &Systems) -> sortpath_store::Store<RedbBackend> {
    s.sortpath.to_async()
}

/// Ensures `ToKey` stays used (native_db's macros need it in scope).
fn _to_key(k: u64) -> native_db::Key {
    k.to_key()
}
