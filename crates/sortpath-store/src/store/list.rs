//! Lists and index queries: one range scan per page (plus one batch read of the base items
//! for index queries), resumable by cursor in either direction.

use sortpath::Order;
use std::collections::HashSet;
use std::ops::Bound;
use std::sync::{Arc, OnceLock};

use sortpath::KeyPath;

use super::Store;
use crate::backend::{Backend, Consistency, Entry, Scan};
use crate::cursor::Cursor;
use crate::envelope::{Field, Header};
use crate::error::{CorruptError, Fault, ListError, NotAnItemError};
use crate::item::{Item, RawItem, Versioned};
use crate::layout::{index_group, is_valid_index_name, split_entry, EntryError};
use crate::query::{ListPlan, Page, Plan, Query};

/// Most records read by one backend scan of a list.
const SCAN_BATCH: usize = 1000;

/// Where [`Store::list_raw_skipping`] collects what it skips.
type Skips = std::sync::Arc<std::sync::Mutex<Vec<NotAnItemError>>>;

fn corrupt(e: EntryError) -> CorruptError {
    CorruptError::Entry(e)
}

impl<B: Backend> Store<B> {
    /// Lists items of type `T` (every listed item must be a `T`; use [`Store::list_raw`] for
    /// collections of mixed types).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = sortpath_store::Store::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// let q = sortpath_store::Query::prefix(&"/user-1".parse().unwrap()).unwrap();
    /// let page = store.list_raw(&q).await.unwrap();
    /// assert!(page.items.is_empty() && page.cursor.is_none());
    /// # });
    /// ```
    pub async fn list<T: Item>(&self, query: &Query) -> Result<Page<Versioned<T>>, ListError> {
        self.list_with(query, super::typed_from_parts::<T>).await
    }

    /// Lists items of any type, undecoded.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{PutMode, Query, Store, backend::memory::MemoryBackend};
    /// let store = Store::new(MemoryBackend::new());
    /// for p in ["/user-1", "/user-1/post-2", "/user-1/post-10", "/user-2"] {
    ///     store.put_raw(&p.parse().unwrap(), "any", &p, vec![], PutMode::Upsert).await.unwrap();
    /// }
    /// let page = store.list_raw(&Query::prefix(&"/user-1".parse().unwrap()).unwrap().limit(2)).await.unwrap();
    /// let keys: Vec<String> = page.items.iter().map(|i| i.key().to_string()).collect();
    /// assert_eq!(keys, ["/user-1", "/user-1/post-2"]);
    /// let q = Query::prefix(&"/user-1".parse().unwrap()).unwrap().after(page.cursor.unwrap());
    /// let rest = store.list_raw(&q).await.unwrap();
    /// assert_eq!(rest.items[0].key().to_string(), "/user-1/post-10");
    /// # });
    /// ```
    pub async fn list_raw(&self, query: &Query) -> Result<Page<RawItem>, ListError> {
        self.list_with(query, super::raw_from_parts).await
    }

    /// Lists the items the query selects, each made by `make` from its key path, version,
    /// type name and payload. Runs inside the backend's scan ([`Backend::scan_fold`]), so on
    /// the embedded backend everything from key decoding to the finished item happens on
    /// the blocking thread that reads the records, over borrowed bytes.
    /// [`Store::list_raw`], skipping the records in the query's range that are not items
    /// this store wrote (see [`ListError::NotAnItem`]) instead of failing on them: each is
    /// added to `skipped`, and the page and its cursor go on past it.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, Condition, Key, Record, Write};
    /// use sortpath_store::{PutMode, Query, Store};
    /// let store = Store::new(MemoryBackend::new());
    /// let a1: sortpath::KeyPath = "/a-1/b-1".parse().unwrap();
    /// store.put_raw(&a1, "b", &1, vec![], PutMode::Upsert).await.unwrap();
    /// let (g, s) = "/a-1/b-2".parse::<sortpath::KeyPath>().unwrap().split_group().unwrap();
    /// let record = Record { value: b"someone else's".to_vec(), version: 1 };
    /// let put = Write::Put { key: Key::new(g, s), record, condition: Condition::None };
    /// store.backend().write(vec![put]).await.unwrap();
    /// let query = Query::prefix(&"/a-1".parse().unwrap()).unwrap();
    /// assert!(store.list_raw(&query).await.is_err());
    /// let mut skipped = Vec::new();
    /// let page = store.list_raw_skipping(&query, &mut skipped).await.unwrap();
    /// assert_eq!(page.items.len(), 1);
    /// assert_eq!(skipped[0].record.key.as_ref().unwrap().to_string(), "/a-1/b-2");
    /// # });
    /// ```
    pub async fn list_raw_skipping(
        &self,
        query: &Query,
        skipped: &mut Vec<NotAnItemError>,
    ) -> Result<Page<RawItem>, ListError> {
        let sink = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let page = self
            .list_with_skips(query, super::raw_from_parts, Some(sink.clone()))
            .await?;
        skipped.append(&mut sink.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(page)
    }

    async fn list_with<I, M>(&self, query: &Query, make: M) -> Result<Page<I>, ListError>
    where
        I: Keyed + Send + 'static,
        M: Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault> + Copy + Send + 'static,
    {
        self.list_with_skips(query, make, None).await
    }

    async fn list_with_skips<I, M>(
        &self,
        query: &Query,
        make: M,
        skips: Option<Skips>,
    ) -> Result<Page<I>, ListError>
    where
        I: Keyed + Send + 'static,
        M: Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault> + Copy + Send + 'static,
    {
        // The group's root item sort key, read from the configuration only when the query
        // is bounded by it; a root item placed elsewhere than first that the scan meets
        // records its sort key in `root_at`, where a cursor after it finds it.
        let bounded_by = match query.bounded_by_root() {
            true => Some(self.root_sort(&query.group).await?.0),
            false => None,
        };
        let shared = query.list_plan(bounded_by.as_deref().unwrap_or(&crate::layout::ROOT_FIRST));
        let root_at: Arc<OnceLock<Vec<u8>>> = Arc::new(OnceLock::new());
        let fingerprint = query.fingerprint(None, &shared.group_bytes, &shared.plan);
        let mut first_scan = true;
        let resolve = |scan, needed: usize| {
            let shared = shared.clone();
            // Room for every item the scan may make, when that is at most one scan's worth
            // (as for any page with a limit up to `SCAN_BATCH`): each item is then written
            // once, where it stays, where a vector grown as read copied a page of 100 five
            // times over (store_alternate: 39.1-40.0 against 42.0 µs per list of 100). A
            // page that turns out far shorter gives the room back (`paged`). Only the first
            // scan of a page reserves: a page scans again only when the range was sparse or
            // the page is longer than a scan, and then a vector grown as read is the better bet.
            let room = if std::mem::take(&mut first_scan) && needed <= SCAN_BATCH {
                needed
            } else {
                0
            };
            let scanned = Scanned::new(Vec::with_capacity(room));
            let skips = skips.clone();
            let root_at = root_at.clone();
            self.backend
                .scan_fold(scan, scanned, move |scanned, sort, version, value| {
                    scanned.records += 1;
                    // A record after the page's last item only shows that there is more.
                    if scanned.items.len() == needed {
                        scanned.more = true;
                        return Ok(());
                    }
                    let ListPlan { group, plan, .. } = &*shared;
                    // The item goes straight into the page: each move of it on the way (a
                    // step of a scan, then a page) was one more copy, which stalls when it
                    // reads the item in wider pieces than it was just written in.
                    match list_step(group, plan, sort, version, value, make, &root_at, scanned) {
                        Err(Fault::NotAnItem(e)) if skips.is_some() => {
                            if let Some(skips) = &skips {
                                let mut skips = skips.lock().unwrap_or_else(|p| p.into_inner());
                                skips.push(e);
                            }
                            scanned.pass(sort);
                            Ok(())
                        }
                        other => other,
                    }
                })
        };
        // The position of an item is its sort key, encoded again from its key path only
        // when a cursor or the next scan needs it: decoding is canonical (a decoded path
        // encodes to exactly the bytes it came from), so this is the scanned sort key.
        // It is cut out of the path's bytes (`sort_key_under`); the group's root item is
        // where the scan found it.
        let position_of = |item: &I| -> Result<Vec<u8>, Fault> {
            let path = item.key_path();
            if let Some(sort) = sort_key_under(path.as_bytes(), &shared.group_bytes) {
                return Ok(sort);
            }
            let key = super::backend_key(path)?;
            Ok(match key.sort == crate::layout::ROOT_FIRST {
                true => root_at.get().cloned().unwrap_or(key.sort),
                false => key.sort,
            })
        };
        self.paged(
            query,
            &shared.plan,
            fingerprint,
            &shared.group_bytes,
            resolve,
            position_of,
        )
        .await
    }

    /// Queries index `index`, which `T` declares: lists the items whose index key paths the
    /// query selects, in index order (ties by item key path), as items of type `T`. An index
    /// `T` does not declare is [`ListError::UnknownIndex`]. Index names are per store: item
    /// types that declare the same name share one index, which
    /// [`Store::query_index_raw`] lists with every type in it (this call fails on an item of
    /// another type, as [`Store::list`] does).
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # use sortpath_store::{Index, Item, ListError, Query, Store, backend::memory::MemoryBackend};
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Ticket { id: u64, updated_at: u64 }
    /// impl Item for Ticket {
    ///     const TYPE: &'static str = "ticket";
    ///     const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
    ///         Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?))
    ///     })];
    ///     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("ticket", self.id) }
    /// }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// store.put(&Ticket { id: 1, updated_at: 20 }).await.unwrap();
    /// store.put(&Ticket { id: 2, updated_at: 10 }).await.unwrap();
    /// let q = Query::prefix(&"/tickets-0".parse().unwrap()).unwrap();
    /// let page = store.query_index::<Ticket>("by_updated", &q).await.unwrap();
    /// let ids: Vec<u64> = page.items.iter().map(|t| t.item.id).collect();
    /// assert_eq!(ids, [2, 1]);
    /// let typo = store.query_index::<Ticket>("by_update", &q).await;
    /// assert!(matches!(typo, Err(ListError::UnknownIndex { .. })));
    /// # });
    /// ```
    pub async fn query_index<T: Item>(
        &self,
        index: &str,
        query: &Query,
    ) -> Result<Page<Versioned<T>>, ListError> {
        if !T::INDEXES.iter().any(|i| i.name == index) {
            return Err(ListError::UnknownIndex {
                name: index.to_owned(),
                item_type: T::TYPE.to_owned(),
                declared: T::INDEXES.iter().map(|i| i.name.to_owned()).collect(),
            });
        }
        if !is_valid_index_name(index) {
            return Err(ListError::InvalidIndexName {
                name: index.to_owned(),
            });
        }
        // Checks every declaration of the index, as `query_index_raw` does, with the one
        // configuration read.
        self.check_typed_index(index, T::TYPE).await?;
        let page = self.query_index_checked(index, query).await?;
        let items = page
            .items
            .into_iter()
            .map(RawItem::into_item)
            .collect::<Result<_, _>>()?;
        Ok(Page {
            items,
            cursor: page.cursor,
        })
    }

    /// Queries index `index`, returning the items undecoded. An entry is returned as its
    /// item only where the item, read after the entry, has that index key, so a concurrent
    /// update never yields a stale match.
    ///
    /// An item that moves to another key of the index while the query runs (a writer
    /// changes its indexed field between the query's read of the entries and its read of
    /// the items) is returned at its new key when that key is in the query's range and in
    /// the part of the range the query has read by then (the query may have read that part
    /// before the move, seeing the item's old entry only); a new key further on is where
    /// the query's next scan, or the next page, finds it. Each item is returned at most
    /// once per page, and each page is in index order of the items it returns. So an item
    /// that exists throughout a one-page query and stays in range is returned exactly once
    /// if a scan of the query reads an entry of it; a scan that is not one point in time
    /// (DynamoDB reads a `Query` as it goes, read-committed) can miss an entry that a write
    /// moves from ahead of the scan to behind it while the scan reads. Across pages, a
    /// cursor is a position (see [`Query::after`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{PutMode, Query, Store, backend::memory::MemoryBackend};
    /// let store = Store::new(MemoryBackend::new());
    /// let idx = |s: &str| vec![("by_status".to_owned(), s.parse().unwrap())];
    /// store.put_raw(&"/ticket-1".parse().unwrap(), "t", &1, idx("/status-1/open-1"), PutMode::Upsert).await.unwrap();
    /// store.put_raw(&"/ticket-2".parse().unwrap(), "t", &2, idx("/status-1/open-0"), PutMode::Upsert).await.unwrap();
    /// let page = store.query_index_raw("by_status", &Query::prefix(&"/status-1".parse().unwrap()).unwrap()).await.unwrap();
    /// let keys: Vec<String> = page.items.iter().map(|i| i.key().to_string()).collect();
    /// assert_eq!(keys, ["/ticket-2", "/ticket-1"]);
    /// # });
    /// ```
    pub async fn query_index_raw(
        &self,
        index: &str,
        query: &Query,
    ) -> Result<Page<RawItem>, ListError> {
        if !is_valid_index_name(index) {
            return Err(ListError::InvalidIndexName {
                name: index.to_owned(),
            });
        }
        self.check_index(index).await?;
        self.query_index_checked(index, query).await
    }

    /// [`Store::query_index_raw`] of an index whose name is valid and that is not building.
    async fn query_index_checked(
        &self,
        index: &str,
        query: &Query,
    ) -> Result<Page<RawItem>, ListError> {
        if query.bounded_by_root() {
            return Err(ListError::InvalidQuery(format!(
                "index {index}'s entries have no root item to bound them by (from_root and \
                 to_root are for item lists)"
            )));
        }
        let plan = query.plan(true, &crate::layout::ROOT_FIRST);
        let query_group = query.group.encode();
        let fingerprint = query.fingerprint(Some(index), &query_group, &plan);
        // An index the backend keeps is scanned by its own group, eventually consistent.
        let kept = self
            .backend
            .maintained_indexes()
            .is_some_and(|m| m.iter().any(|n| n == index));
        let consistency = match (kept, query.consistency) {
            (true, Some(Consistency::Strong)) => {
                return Err(ListError::InvalidQuery(format!(
                    "index {index} is kept by the table (a DynamoDB GSI), which reads only \
                     eventually consistent: expected Consistency::Eventual or none, found \
                     Consistency::Strong"
                )))
            }
            (true, _) => Consistency::Eventual,
            (false, c) => c.unwrap_or_default(),
        };
        let group = match kept {
            true => query_group.clone(),
            false => index_group(index, &query_group),
        };
        // Every entry is resolved: which ones still match their items shows only then. What
        // the call has read so far is shared by its scans: where it started, and the items
        // its page holds, so that an item whose entry moved while the call ran is returned
        // once, at its current place (`Reading`).
        let plan_ref = &plan;
        let moves = std::sync::Mutex::new(CallMoves::default());
        let moves_ref = &moves;
        let resolve = |scan: Scan, needed| async move {
            let limit = scan.limit;
            let (order, start, end) = (scan.order, scan.start.clone(), scan.end.clone());
            let entries = match kept {
                true => {
                    let scan = scan.consistency(consistency);
                    self.backend.scan_index(index, scan).await?
                }
                false => self.backend.scan(scan).await?,
            };
            let records = entries.len();
            let reading = {
                let mut moves = moves_ref.lock().unwrap_or_else(|p| p.into_inner());
                // The call starts where its first scan does.
                let from = moves
                    .from
                    .get_or_insert_with(|| match order {
                        Order::Ascending => start.clone(),
                        Order::Descending => end.clone(),
                    })
                    .clone();
                Reading {
                    order,
                    from,
                    start,
                    end,
                    last: entries.last().map(|e| e.sort.clone()),
                    exhausted: limit.is_none_or(|l| records < l),
                    returned: std::mem::take(&mut moves.returned),
                }
            };
            let (earlier, steps, returned) = self
                .resolve_index(index, query, plan_ref, entries, consistency, reading)
                .await?;
            moves_ref.lock().unwrap_or_else(|p| p.into_inner()).returned = returned;
            let scanned = Scanned::from_steps(earlier, steps, needed, records);
            Ok::<_, Fault>(scanned)
        };
        // An index item's position is its entry's sort key, kept beside it.
        let position_of = |(sort, _): &(Vec<u8>, RawItem)| Ok::<_, Fault>(sort.clone());
        let page = self
            .paged(query, &plan, fingerprint, &group, resolve, position_of)
            .await?;
        Ok(Page {
            items: page.items.into_iter().map(|(_, item)| item).collect(),
            cursor: page.cursor,
        })
    }

    /// Turns one scan's index entries into their current base items, each with its sort key
    /// in the index. The base items are read with one batch read, checked where the backend
    /// reads them: only the type name and payload of a current one are copied.
    ///
    /// An entry is the item where the item still has that index key (a projected entry is
    /// the item). An entry whose item has moved to another key of this index since it was
    /// read gives the item at its new place when that place is in the query's range and in
    /// what this call has read ([`Reading::covers`]): the scan read that part of the range
    /// before the item's batch read, so it may have seen the item's old entry only. A new
    /// place still ahead is left to the scan that reads it. An item the page already holds,
    /// or that the steps already give, is not given again.
    ///
    /// Returns the items whose place is in an earlier scan of this call (in scan order),
    /// then one step per entry in scan order (with the moved items at their new places), and
    /// the items returned so far with those given here.
    async fn resolve_index(
        &self,
        index: &str,
        query: &Query,
        plan: &Plan,
        entries: Vec<Entry>,
        consistency: Consistency,
        reading: Reading,
    ) -> Result<IndexSteps, Fault> {
        let mut wanted = Vec::new(); // (position in entries, base path)
        let mut keys = Vec::new(); // the base items' backend keys
        let mut full_paths = Vec::new(); // the index key each base item must still have
        let mut projected = Vec::new(); // (position, item) of entries that hold their item
        for (i, e) in entries.iter().enumerate() {
            let (rest, base) = split_entry(&e.sort, &e.record.value).map_err(corrupt)?;
            if !plan.matches(&rest) {
                continue;
            }
            // An entry that holds its item is written with it: it is the item.
            if let Some((item_type, payload)) =
                crate::layout::entry_item(&e.record.value).map_err(corrupt)?
            {
                let item_type =
                    std::str::from_utf8(item_type).map_err(|_| corrupt(EntryError::ItemType))?;
                projected.push((
                    i,
                    RawItem {
                        key: base,
                        item_type: item_type.to_owned(),
                        version: e.record.version,
                        payload: payload.to_vec(),
                    },
                ));
                continue;
            }
            let full = query
                .group
                .join(&rest)
                .map_err(|err| corrupt(EntryError::IndexKey(err)))?;
            keys.push(self.item_key(&base).await?);
            full_paths.push(full.encode());
            wanted.push((i, base));
        }
        let mut out: Vec<Step<(Vec<u8>, RawItem)>> =
            entries.into_iter().map(|e| Step::Skipped(e.sort)).collect();
        for (i, item) in projected {
            if let Step::Skipped(sort) = &mut out[i] {
                out[i] = Step::Item((std::mem::take(sort), item));
            }
        }
        let mut moved = Vec::new(); // (new sort key, item) of items whose entry moved
        if !keys.is_empty() {
            let index = index.to_owned();
            let current = move |slot: usize, version: u64, value: &[u8]| {
                let mut key_now: Option<&[u8]> = None;
                let (item_type, payload_start) = Header::frame(value, |name, _, key| {
                    if name.bytes == index.as_bytes() {
                        key_now = Some(key);
                    }
                })?;
                let Some(key_now) = key_now else {
                    return Ok::<_, Fault>(None);
                };
                // `None` where the entry is still the item's; else the item's key now.
                let moved_to = (key_now != full_paths[slot]).then(|| key_now.to_vec());
                let item_type = item_type.utf8("item type name")?.to_owned();
                let payload = value[payload_start..].to_vec();
                Ok(Some((moved_to, item_type, version, payload)))
            };
            let found = self
                .backend
                .batch_get_map_with(keys, consistency, current)
                .await?;
            let query_group = query.group.encode();
            for ((i, key), got) in wanted.into_iter().zip(found) {
                let Some(Some((moved_to, item_type, version, payload))) = got else {
                    continue;
                };
                let item = RawItem {
                    key,
                    item_type,
                    version,
                    payload,
                };
                match moved_to {
                    None => {
                        if let Step::Skipped(sort) = &mut out[i] {
                            out[i] = Step::Item((std::mem::take(sort), item));
                        }
                    }
                    Some(key_now) => {
                        // The item's header is checked where it was written: a key that does
                        // not decode, or is in another group, is simply not in this range.
                        let Ok(path_now) = KeyPath::decode(&key_now) else {
                            continue;
                        };
                        let Ok((group_now, rest_now)) = path_now.split_group_paths() else {
                            continue;
                        };
                        if group_now.encode() != query_group || !plan.matches(&rest_now) {
                            continue;
                        }
                        let sort_now = crate::layout::entry_sort_key(&rest_now, &item.key);
                        if reading.covers(&sort_now) {
                            moved.push((sort_now, item));
                        }
                    }
                }
            }
        }
        Ok(reading.place(out, moved))
    }

    /// Scans `group` over the plan's range from the cursor on, resolving each scan's
    /// records with `resolve` (given the scan and how many items the page still needs)
    /// until the page is full or the range is exhausted.
    /// `position_of` gives an item's sort key, asked only for the last item consumed when
    /// a cursor or a further scan needs it.
    async fn paged<I, R, Fut>(
        &self,
        query: &Query,
        plan: &Plan,
        fingerprint: u64,
        group: &[u8],
        mut resolve: R,
        position_of: impl Fn(&I) -> Result<Vec<u8>, Fault>,
    ) -> Result<Page<I>, ListError>
    where
        R: FnMut(Scan, usize) -> Fut,
        Fut: std::future::Future<Output = Result<Scanned<I>, Fault>>,
    {
        // An empty page says the listing is complete only when it ends without a cursor, and
        // a page of at most 0 items could say nothing else.
        if query.limit == Some(0) {
            return Err(ListError::InvalidQuery(
                "limit 0: a page lists at least 1 item (a page of none could not say whether \
                 items follow)"
                    .into(),
            ));
        }
        let limit = query.limit.unwrap_or(usize::MAX);
        let mut position: Option<Vec<u8>> = match &query.cursor {
            Some(c) => Some(c.position_for(fingerprint)?.to_vec()),
            None => None,
        };
        // Whether the last record consumed is `items`' last item (whose position is then
        // not yet in `position`).
        let mut at_last_item = false;
        let last_item_position = |items: &[I]| -> Result<Option<Vec<u8>>, Fault> {
            items.last().map(&position_of).transpose()
        };
        let mut items = Vec::new();
        if limit == 0 {
            return Ok(Page {
                items,
                cursor: None,
            });
        }
        let more = loop {
            if std::mem::take(&mut at_last_item) {
                position = last_item_position(&items)?;
            }
            let batch = limit
                .saturating_sub(items.len())
                .saturating_add(1)
                .min(SCAN_BATCH);
            let mut start = Bound::Included(plan.start.clone());
            let mut end = plan.end.clone().map_or(Bound::Unbounded, Bound::Excluded);
            // Resume strictly after the position, never outside the query's own range.
            if let Some(p) = &position {
                match query.direction {
                    Order::Ascending if p.as_slice() >= plan.start.as_slice() => {
                        start = Bound::Excluded(p.clone())
                    }
                    Order::Descending if plan.end.as_ref().is_none_or(|e| p < e) => {
                        end = Bound::Excluded(p.clone())
                    }
                    _ => {}
                }
            }
            let scan = Scan {
                group: group.to_vec(),
                start,
                end,
                order: query.direction,
                limit: Some(batch),
                consistency: query.consistency.unwrap_or_default(),
            };
            let scanned = resolve(scan, limit - items.len()).await?;
            let exhausted = scanned.records < batch;
            let mut more = scanned.more;
            if scanned.passed_after_last {
                position = Some(scanned.passed);
            } else {
                at_last_item = !scanned.items.is_empty();
            }
            // Items now placed in what an earlier scan of this page read (an index entry
            // that moved behind the scans) go where they are now, keeping the page in order.
            for late in scanned.earlier {
                let at = place_of(&items, &late, query.direction, &position_of)?;
                items.insert(at, late);
            }
            if items.is_empty() {
                // A one-scan page is the scan's vector.
                items = scanned.items;
            } else {
                items.extend(scanned.items);
            }
            if items.len() > limit {
                // Only those late items can overfill the page: it ends at its limit, the
                // cursor at its last item; the items cut are after it, for the next page.
                items.truncate(limit);
                at_last_item = true;
                more = true;
            }
            if more || exhausted {
                break more;
            }
        };
        // Room reserved for a full page and mostly unused (a short last page, a sparse
        // range) is given back rather than kept alive with the page.
        if items.capacity() > 2 * items.len() + 16 {
            items.shrink_to_fit();
        }
        if !more {
            return Ok(Page {
                items,
                cursor: None,
            });
        }
        if at_last_item {
            position = last_item_position(&items)?;
        }
        let cursor = position.map(|position| Cursor {
            query: fingerprint,
            position,
        });
        Ok(Page { items, cursor })
    }
}

/// One scanned record of an index, resolved against a query.
enum Step<I> {
    /// An item the query selects.
    Item(I),
    /// A record the query passes over, at this sort key.
    Skipped(Vec<u8>),
}

/// Where `late` goes among `items` (in scan order by `position_of`): after every item not
/// after it. Searched from the end, where a late item mostly goes.
fn place_of<I>(
    items: &[I],
    late: &I,
    order: Order,
    position_of: impl Fn(&I) -> Result<Vec<u8>, Fault>,
) -> Result<usize, Fault> {
    let at = position_of(late)?;
    let mut i = items.len();
    while i > 0 {
        let p = position_of(&items[i - 1])?;
        let after = match order {
            Order::Ascending => p > at,
            Order::Descending => p < at,
        };
        if !after {
            break;
        }
        i -= 1;
    }
    Ok(i)
}

/// What an index query call has read so far, shared by its scans.
#[derive(Default)]
struct CallMoves {
    /// Where the call's first scan started, in scan order (its start bound going forward,
    /// its end bound in reverse).
    from: Option<Bound<Vec<u8>>>,
    /// The key path encodings of the base items the page holds.
    returned: HashSet<Vec<u8>>,
}

/// One scan of an index query, as [`Store::resolve_index`] needs it to place an item whose
/// entry moved while the call ran.
struct Reading {
    order: Order,
    /// Where the call started ([`CallMoves::from`]).
    from: Bound<Vec<u8>>,
    /// The scan's bounds.
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
    /// The sort key of the last entry the scan read.
    last: Option<Vec<u8>>,
    /// Whether the scan read its range to the end (fewer entries than its limit).
    exhausted: bool,
    /// The base items the page holds so far.
    returned: HashSet<Vec<u8>>,
}

/// [`Store::resolve_index`]'s answer: the items placed in an earlier scan's part of the
/// range, the scan's steps, and the base items returned so far.
type IndexSteps = (
    Vec<(Vec<u8>, RawItem)>,
    Vec<Step<(Vec<u8>, RawItem)>>,
    HashSet<Vec<u8>>,
);

/// Whether `sort` is inside lower bound `b`.
fn above(b: &Bound<Vec<u8>>, sort: &[u8]) -> bool {
    match b {
        Bound::Included(s) => sort >= s.as_slice(),
        Bound::Excluded(s) => sort > s.as_slice(),
        Bound::Unbounded => true,
    }
}

/// Whether `sort` is inside upper bound `b`.
fn below(b: &Bound<Vec<u8>>, sort: &[u8]) -> bool {
    match b {
        Bound::Included(e) => sort <= e.as_slice(),
        Bound::Excluded(e) => sort < e.as_slice(),
        Bound::Unbounded => true,
    }
}

impl Reading {
    /// Whether the call has read the part of the range where `sort` is: after where it
    /// started, up to the last entry this scan read (to the end of the range if the scan
    /// read it all). The scans read that part before this scan's batch read of the items.
    fn covers(&self, sort: &[u8]) -> bool {
        match self.order {
            Order::Ascending => {
                above(&self.from, sort)
                    && match self.exhausted {
                        true => below(&self.end, sort),
                        false => self.last.as_deref().is_some_and(|l| sort <= l),
                    }
            }
            Order::Descending => {
                below(&self.from, sort)
                    && match self.exhausted {
                        true => above(&self.start, sort),
                        false => self.last.as_deref().is_some_and(|l| sort >= l),
                    }
            }
        }
    }

    /// Whether `sort` is before this scan's range, in an earlier scan's part.
    fn before_scan(&self, sort: &[u8]) -> bool {
        match self.order {
            Order::Ascending => !above(&self.start, sort),
            Order::Descending => !below(&self.end, sort),
        }
    }

    /// Whether `a` comes before `b` in scan order.
    fn precedes(&self, a: &[u8], b: &[u8]) -> bool {
        match self.order {
            Order::Ascending => a < b,
            Order::Descending => a > b,
        }
    }

    /// The scan's steps (one per entry) with the moved items (each at its new sort key, one
    /// that [`Reading::covers`]) put in place: those before the scan's range apart, the
    /// others among the steps in scan order. Each base item is given once in the call: one
    /// already returned, or given earlier in scan order, is not given again (an entry of it
    /// becomes a step passed over).
    fn place(
        mut self,
        steps: Vec<Step<(Vec<u8>, RawItem)>>,
        mut moved: Vec<(Vec<u8>, RawItem)>,
    ) -> IndexSteps {
        let mut returned = std::mem::take(&mut self.returned);
        let order = self.order;
        moved.sort_by(|(a, _), (b, _)| match order {
            Order::Ascending => a.cmp(b),
            Order::Descending => b.cmp(a),
        });
        let mut earlier = Vec::new();
        let mut moved = moved.into_iter().peekable();
        while let Some((sort, item)) = moved.next_if(|(sort, _)| self.before_scan(sort)) {
            if returned.insert(item.key.as_bytes().to_vec()) {
                earlier.push((sort, item));
            }
        }
        let mut out = Vec::with_capacity(steps.len());
        let mut give = |out: &mut Vec<Step<_>>, sort: Vec<u8>, item: RawItem, entry: bool| {
            if returned.insert(item.key.as_bytes().to_vec()) {
                out.push(Step::Item((sort, item)));
            } else if entry {
                out.push(Step::Skipped(sort));
            }
        };
        for step in steps {
            let at = match &step {
                Step::Item((sort, _)) | Step::Skipped(sort) => sort.clone(),
            };
            while let Some((sort, item)) = moved.next_if(|(sort, _)| self.precedes(sort, &at)) {
                give(&mut out, sort, item, false);
            }
            match step {
                Step::Item((sort, item)) => give(&mut out, sort, item, true),
                skipped => out.push(skipped),
            }
        }
        for (sort, item) in moved {
            give(&mut out, sort, item, false);
        }
        (earlier, out, returned)
    }
}

/// What one scan gave a page: the items it selected (at most as many as the page still
/// needed), and what the page's cursor and the next scan need of the records it read.
struct Scanned<I> {
    /// Items whose place is in the part of the range an earlier scan of the page read (an
    /// index item whose entry moved there while the page was read), in scan order. They
    /// count against the page's room before `items`.
    earlier: Vec<I>,
    /// The items, in scan order.
    items: Vec<I>,
    /// Records read, selected or not.
    records: usize,
    /// Whether a record was read after the page was full: there may be more.
    more: bool,
    /// Whether the last record consumed (before the page was full) was passed over rather
    /// than selected; then `passed` is its sort key, where the next scan resumes.
    passed_after_last: bool,
    passed: Vec<u8>,
}

impl<I> Scanned<I> {
    fn new(items: Vec<I>) -> Self {
        Scanned {
            earlier: Vec::new(),
            items,
            records: 0,
            more: false,
            passed_after_last: false,
            passed: Vec::new(),
        }
    }

    /// Adds an item the query selects: the last record consumed is no longer a passed one.
    fn select(&mut self, item: I) {
        self.items.push(item);
        self.passed_after_last = false;
    }

    /// Notes a record passed over, at sort key `sort`.
    fn pass(&mut self, sort: &[u8]) {
        self.passed.clear();
        self.passed.extend_from_slice(sort);
        self.passed_after_last = true;
    }

    /// The steps of a scan of `records` records, taken up to `room` items with `earlier`
    /// counted first: a step after the page is full shows that there is more. (`earlier`
    /// is kept whole: the page cuts itself at its limit, [`Store::paged`].)
    fn from_steps(earlier: Vec<I>, steps: Vec<Step<I>>, room: usize, records: usize) -> Self {
        let mut scanned = Scanned::new(Vec::new());
        scanned.records = records;
        let room = room.saturating_sub(earlier.len());
        scanned.earlier = earlier;
        for step in steps {
            match step {
                Step::Item(item) if scanned.items.len() < room => scanned.select(item),
                Step::Skipped(sort) if scanned.items.len() < room => scanned.pass(&sort),
                _ => {
                    scanned.more = true;
                    break;
                }
            }
        }
        scanned
    }
}

/// A listed item that knows its key path.
trait Keyed {
    fn key_path(&self) -> &KeyPath;
}

impl<T> Keyed for Versioned<T> {
    fn key_path(&self) -> &KeyPath {
        &self.key
    }
}

impl Keyed for RawItem {
    fn key_path(&self) -> &KeyPath {
        &self.key
    }
}

/// Resolves one record of an item group into `scanned`: decodes its key path, passes over
/// it if outside the plan's filters, else adds the item `make` makes from the borrowed
/// envelope.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn list_step<I>(
    group: &KeyPath,
    plan: &Plan,
    sort: &[u8],
    version: u64,
    value: &[u8],
    make: impl Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault>,
    root_at: &OnceLock<Vec<u8>>,
    scanned: &mut Scanned<I>,
) -> Result<(), Fault> {
    let key = match KeyPath::from_group_path(group, sort) {
        Ok(key) => key,
        Err(err) => {
            let item = placed_root_step(group, sort, version, value, make, root_at, err)?;
            scanned.select(item);
            return Ok(());
        }
    };
    // The plan's filters are over the part after the group, which is the sort key: inside
    // the plan's byte range, a key fails a filter only where UUIDs are involved (see
    // `Plan::filters_have_uuid`), so the filters are checked only then.
    if (plan.filters_have_uuid || sort_has_uuid(sort)) && !plan.matches_after(&key, group.len()) {
        scanned.pass(sort);
        return Ok(());
    }
    scanned.select(super::item_from_value(key, version, value, make)?);
    Ok(())
}

/// [`list_step`] of a record whose sort key is not a key path encoding: a root item placed
/// elsewhere than first is where its sort key puts it (inside the plan's byte range, it is
/// in the list: it has no path after the group that the filters could check, and its sort
/// key is kept in `root_at` for a cursor after it); any other is not an item. Out of the
/// way of the records that are key paths.
#[cold]
#[inline(never)]
fn placed_root_step<I>(
    group: &KeyPath,
    sort: &[u8],
    version: u64,
    value: &[u8],
    make: impl Fn(KeyPath, u64, Field<'_>, &[u8]) -> Result<I, Fault>,
    root_at: &OnceLock<Vec<u8>>,
    err: sortpath::path::DecodeError,
) -> Result<I, Fault> {
    if crate::layout::placed_root(sort).is_none() {
        return Err(NotAnItemError {
            record: Box::new(crate::ForeignRecord::new(group.encode(), sort.to_vec())),
            reason: CorruptError::Key(err),
        }
        .into());
    }
    let _ = root_at.set(sort.to_vec());
    super::item_from_value(group.clone(), version, value, make)
}

/// The sort key of the valid key path encoding `path` under the valid group key `group`
/// (a one-component path that `path` extends by at least one segment), as
/// [`KeyPath::split_group`] makes it, without walking the segments: `path` is the group's
/// segments, the separator, the rest's segments, the terminator, the group's metadata and
/// the rest's; the sort key is the rest's segments, the terminator and the rest's metadata.
/// The terminators are the last `00` bytes (no metadata byte is `00`). `None` where `path`
/// is not longer than `group` (the group's root item).
fn sort_key_under(path: &[u8], group: &[u8]) -> Option<Vec<u8>> {
    use sortpath::consts::path::TERMINATOR;
    if path.len() <= group.len() {
        return None;
    }
    let group_terminator = group.iter().rposition(|&b| b == TERMINATOR)?;
    let group_metadata = group.len() - group_terminator - 1;
    let terminator = path.iter().rposition(|&b| b == TERMINATOR)?;
    let segments = path.get(group_terminator + 1..terminator)?;
    let metadata = path.get(terminator + 1 + group_metadata..)?;
    let mut sort = Vec::with_capacity(segments.len() + 1 + metadata.len());
    sort.extend_from_slice(segments);
    sort.push(TERMINATOR);
    sort.extend_from_slice(metadata);
    Some(sort)
}

/// Whether the valid key path encoding `sort` has a UUID ID, read from its metadata alone:
/// the metadata follows the terminator, which is the encoding's last `00` byte (no metadata
/// byte is `00`), and holds one varint per segment whose first byte carries the segment's
/// type in its low bits (docs/FORMAT.md). Reading the segments instead costs a walk over
/// them, with a UTF-8 check of each namespace.
#[inline(always)]
fn sort_has_uuid(sort: &[u8]) -> bool {
    use sortpath::consts::path::{TERMINATOR, TYPE_BITS, TYPE_UUID};
    let is_uuid = |b: u8| b & ((1 << TYPE_BITS) - 1) == TYPE_UUID;
    // The commonest sort key, one component whose segments are shorter than 16 bytes,
    // ends `00 m n` with two one-byte varints (neither is `00`, so that `00` is the
    // terminator): its whole metadata.
    if let [.., TERMINATOR, m, n] = *sort {
        if (m | n) & 0x80 == 0 {
            return is_uuid(m) || is_uuid(n);
        }
    }
    sort_has_uuid_walk(sort)
}

/// [`sort_has_uuid`] of any valid key path encoding, its metadata walked.
#[inline(never)]
fn sort_has_uuid_walk(sort: &[u8]) -> bool {
    use sortpath::consts::path::{TERMINATOR, TYPE_BITS, TYPE_UUID};
    let Some(terminator) = sort.iter().rposition(|&b| b == TERMINATOR) else {
        return false;
    };
    let mut starts_varint = true;
    for &b in &sort[terminator + 1..] {
        if starts_varint && b & ((1 << TYPE_BITS) - 1) == TYPE_UUID {
            return true;
        }
        // A varint's last byte has its high bit clear; the next byte starts the next one.
        starts_varint = b & 0x80 == 0;
    }
    false
}

#[cfg(test)]
mod tests;
