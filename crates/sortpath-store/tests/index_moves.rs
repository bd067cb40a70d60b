//! Index queries while another writer moves items to new keys of the index (issue 46 item
//! 6): a query reads entries, then their items, and an item may have moved in between. Every
//! item the query has read the entry of is returned once, at its current place, when that
//! place is in what the call has read; across pages a cursor is a position (`Query::after`,
//! docs/DYNAMODB_LAYOUT.md section 7.3).
//!
//! The writer here is scripted: a backend over the memory backend moves items before given
//! reads (scans and batch reads) of the query, so each case happens every run. The same on
//! DynamoDB Local with a writer in another process, for the Rust store and the TypeScript
//! and Python table clients: sortpath-cli's `tests/crosslang.rs::
//! index_queries_under_moves_return_every_item_once`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sortpath::KeyPath;
use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::backend::{Backend, BackendError, Entry, Key, Record, Scan, Write};
use sortpath_store::{PutMode, Query, RawItem, Store};

/// Moves (item, new `n`) to make before the read of that number (counting the query's scans
/// and batch reads from 0).
type Script = BTreeMap<usize, Vec<(u64, u64)>>;

/// A backend through which the query reads; before its scripted reads, another writer (a
/// store on the same memory map) moves items to new `by_n` keys.
#[derive(Clone, Debug)]
struct MovesBetweenReads {
    inner: MemoryBackend,
    other: Store<MemoryBackend>,
    script: Arc<Mutex<Script>>,
    reads: Arc<AtomicUsize>,
}

fn path(text: &str) -> KeyPath {
    text.parse().unwrap()
}

/// Item `/t-{i}` with payload `n` and the `by_n` key `/all-0/n-{n}`.
async fn put(store: &Store<MemoryBackend>, i: u64, n: u64) {
    let idx = vec![("by_n".to_owned(), path(&format!("/all-0/n-{n}")))];
    store
        .put_raw(&path(&format!("/t-{i}")), "t", &n, idx, PutMode::Upsert)
        .await
        .unwrap();
}

impl MovesBetweenReads {
    /// 20 items, `/t-i` at `n` = 10 i.
    async fn new() -> Self {
        let inner = MemoryBackend::new();
        let other = Store::new(inner.clone());
        for i in 0..20 {
            put(&other, i, 10 * i).await;
        }
        MovesBetweenReads {
            inner,
            other,
            script: Arc::default(),
            reads: Arc::default(),
        }
    }

    /// Scripts `moves` before read `read` of the queries from now on.
    fn before_read(&self, read: usize, moves: &[(u64, u64)]) {
        self.script.lock().unwrap().insert(read, moves.to_vec());
    }

    async fn read(&self) {
        let read = self.reads.fetch_add(1, Ordering::SeqCst);
        let moves = self.script.lock().unwrap().remove(&read);
        for (item, n) in moves.unwrap_or_default() {
            put(&self.other, item, n).await;
        }
    }

    fn script_done(&self) -> bool {
        self.script.lock().unwrap().is_empty()
    }
}

impl Backend for MovesBetweenReads {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        self.inner.groups(from).await
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        self.inner.get(key).await
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        self.read().await;
        self.inner.batch_get(keys).await
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.read().await;
        self.inner.scan(scan).await
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        self.inner.write(writes).await
    }
}

/// (n, id) of each item of a page, as the page holds them.
fn listed(items: &[RawItem]) -> Vec<(u64, u64)> {
    items
        .iter()
        .map(|i| {
            let id = i.key().to_string()["/t-".len()..].parse().unwrap();
            (i.decode::<u64>().unwrap(), id)
        })
        .collect()
}

/// Queries `by_n` over `/all-0` in pages of `limit` (none: one page), in `reverse` or not,
/// following the cursors; the pages' (n, id) lists.
async fn pages(
    store: &Store<MovesBetweenReads>,
    reverse: bool,
    limit: Option<usize>,
) -> Vec<Vec<(u64, u64)>> {
    let mut q = Query::prefix(&path("/all-0")).unwrap();
    if reverse {
        q = q.reverse();
    }
    if let Some(l) = limit {
        q = q.limit(l);
    }
    let mut out = Vec::new();
    let mut query = q.clone();
    loop {
        let page = store.query_index_raw("by_n", &query).await.unwrap();
        out.push(listed(&page.items));
        match page.cursor {
            Some(c) => query = q.clone().after(c),
            None => return out,
        }
    }
}

/// Each of `ids` exactly once over all pages, and each page in index order by the values it
/// returned (an item is where its returned value puts it).
fn assert_once_in_order(pages: &[Vec<(u64, u64)>], ids: impl Iterator<Item = u64>, reverse: bool) {
    let all: Vec<u64> = pages.iter().flatten().map(|&(_, id)| id).collect();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(sorted, ids.collect::<Vec<_>>(), "each item once: {pages:?}");
    for page in pages {
        let mut ordered = page.clone();
        ordered.sort();
        if reverse {
            ordered.reverse();
        }
        assert_eq!(&ordered, page, "a page out of index order: {pages:?}");
    }
}

/// One page of the whole index: between the scan of the entries and the batch read of their
/// items, `/t-15` moves behind its entry (to n 5, in scan order), `/t-3` ahead of its entry
/// to a place the scan read before the move (n 185). Both are returned, once, at their new
/// places. Before, both were dropped: 18 of the 20 items.
#[tokio::test]
async fn items_moved_between_the_scan_and_the_item_read_are_returned_once() {
    for reverse in [false, true] {
        let backend = MovesBetweenReads::new().await;
        let store = Store::new(backend.clone());
        // Read 0 is the scan, read 1 the batch read of the items.
        let (behind, ahead) = match reverse {
            false => ((15, 5), (3, 185)),
            true => ((3, 185), (15, 5)),
        };
        backend.before_read(1, &[behind, ahead]);
        let got = pages(&store, reverse, None).await;
        assert!(backend.script_done());
        assert_eq!(got.len(), 1);
        assert_once_in_order(&got, 0..20, reverse);
        assert!(
            got[0].contains(&(5, 15)) && got[0].contains(&(185, 3)),
            "{got:?}"
        );
    }
}

/// Pages of 5. The first scan reads 6 entries; before its batch read two of those items
/// move ahead past what it read (so the page needs a second scan); the second scan reads 2
/// entries, and before their batch read one of those items moves into the part the first
/// scan read. That item is returned in the first page, in order; the others on later pages;
/// every item once. Before, the item moved behind the scans was never returned.
#[tokio::test]
async fn an_item_moved_into_an_earlier_scans_part_is_returned_in_order() {
    for reverse in [false, true] {
        let backend = MovesBetweenReads::new().await;
        let store = Store::new(backend.clone());
        // Forward the first scan reads n 0..=50, the second 60 and 70; in reverse 190..=140,
        // then 130 and 120.
        let (ahead, back, back_to) = match reverse {
            false => ([(2, 200), (3, 210)], 7, 5),
            true => ([(17, 1), (16, 2)], 12, 195),
        };
        backend.before_read(1, &ahead);
        backend.before_read(3, &[(back, back_to)]);
        let got = pages(&store, reverse, Some(5)).await;
        assert!(backend.script_done());
        assert_once_in_order(&got, 0..20, reverse);
        assert!(got[0].contains(&(back_to, back)), "{got:?}");
        assert_eq!(got[0].len(), 5, "{got:?}");
    }
}

/// Pages of 5. An item returned by the page's first scan moves ahead, into what its second
/// scan reads: the page does not return it twice. Before, the first page held `/t-0` twice.
#[tokio::test]
async fn an_item_returned_then_moved_ahead_is_not_returned_twice_in_a_page() {
    for reverse in [false, true] {
        let backend = MovesBetweenReads::new().await;
        let store = Store::new(backend.clone());
        let (ahead, first, to) = match reverse {
            false => ([(2, 200), (3, 210)], 0, 55),
            true => ([(17, 1), (16, 2)], 19, 135),
        };
        backend.before_read(1, &ahead);
        backend.before_read(2, &[(first, to)]);
        let got = pages(&store, reverse, Some(5)).await;
        assert!(backend.script_done());
        let page: Vec<u64> = got[0].iter().map(|&(_, id)| id).collect();
        let mut distinct = page.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            page.len(),
            "an item twice in a page: {got:?}"
        );
        assert_eq!(got[0].len(), 5, "{got:?}");
        // Its new place is before the page's cursor: later pages do not return it either.
        assert_once_in_order(&got, 0..20, reverse);
    }
}

/// A cursor is a position: an item returned on the first page that moves ahead of the
/// cursor (read there by the second page's scan) and back behind it before the second page
/// reads the items is not returned again. An item not yet returned that moves behind the
/// cursor between pages is not returned by later pages (`Query::after` says so): without a
/// snapshot no page can see it. (A guard of the rule: it passed before the fix too, which
/// dropped both items' entries.)
#[tokio::test]
async fn items_moved_behind_the_cursor_between_pages_are_not_returned_twice() {
    for reverse in [false, true] {
        let backend = MovesBetweenReads::new().await;
        let store = Store::new(backend.clone());
        // The first page is reads 0 (scan) and 1 (items); the second page's scan is read 2
        // (n 50..=100 forward, 140..=90 in reverse), its batch read read 3.
        let (returned, via, back, unseen, behind) = match reverse {
            false => (1, 65, 15, 6, 25),
            true => (18, 125, 185, 13, 175),
        };
        backend.before_read(2, &[(returned, via)]);
        backend.before_read(3, &[(returned, back), (unseen, behind)]);
        let got = pages(&store, reverse, Some(5)).await;
        assert!(backend.script_done());
        let ids: Vec<u64> = (0..20).filter(|&i| i != unseen).collect();
        assert_once_in_order(&got, ids.into_iter(), reverse);
    }
}
