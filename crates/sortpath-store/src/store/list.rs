//! Lists and index queries: one range scan per page (plus one batch read of the base items
//! for index queries), resumable by cursor in either direction.

use sortpath::Order;
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

    /// Queries index `index`, returning the items undecoded. Only entries whose item still
    /// has that index key are returned, so a concurrent update never yields a stale match.
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
        // Every entry is resolved: which ones still match their items shows only then.
        let plan_ref = &plan;
        let resolve = |scan: Scan, needed| async move {
            let entries = match kept {
                true => {
                    let scan = scan.consistency(consistency);
                    self.backend.scan_index(index, scan).await?
                }
                false => self.backend.scan(scan).await?,
            };
            let steps = self
                .resolve_index(index, query, plan_ref, entries, consistency)
                .await?;
            Ok::<_, Fault>(Scanned::from_steps(steps, needed))
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

    /// Turns index entries into their current base items, each with its entry's sort key
    /// (skipped where the entry does not match the query or its item no longer has this
    /// index key). The base items are read with one batch read, checked where the backend
    /// reads them: only the type name and payload of a current one are copied.
    async fn resolve_index(
        &self,
        index: &str,
        query: &Query,
        plan: &Plan,
        entries: Vec<Entry>,
        consistency: Consistency,
    ) -> Result<Vec<Step<(Vec<u8>, RawItem)>>, Fault> {
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
        if keys.is_empty() {
            return Ok(out);
        }
        let index = index.to_owned();
        let current = move |slot: usize, version: u64, value: &[u8]| {
            let mut has_entry = false;
            let (item_type, payload_start) = Header::frame(value, |name, _, key| {
                has_entry |= name.bytes == index.as_bytes() && key == full_paths[slot];
            })?;
            if !has_entry {
                return Ok::<_, Fault>(None);
            }
            let item_type = item_type.utf8("item type name")?.to_owned();
            Ok(Some((item_type, version, value[payload_start..].to_vec())))
        };
        let found = self
            .backend
            .batch_get_map_with(keys, consistency, current)
            .await?;
        for ((i, key), got) in wanted.into_iter().zip(found) {
            let Some(Some((item_type, version, payload))) = got else {
                continue;
            };
            if let Step::Skipped(sort) = &mut out[i] {
                let item = RawItem {
                    key,
                    item_type,
                    version,
                    payload,
                };
                out[i] = Step::Item((std::mem::take(sort), item));
            }
        }
        Ok(out)
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
            let more = scanned.more;
            if scanned.passed_after_last {
                position = Some(scanned.passed);
            } else {
                at_last_item = !scanned.items.is_empty();
            }
            if items.is_empty() {
                // A one-scan page is the scan's vector.
                items = scanned.items;
            } else {
                items.extend(scanned.items);
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

/// What one scan gave a page: the items it selected (at most as many as the page still
/// needed), and what the page's cursor and the next scan need of the records it read.
struct Scanned<I> {
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

    /// The steps of a scan, taken up to `room` items: a step after the page is full shows
    /// that there is more.
    fn from_steps(steps: Vec<Step<I>>, room: usize) -> Self {
        let mut scanned = Scanned::new(Vec::new());
        scanned.records = steps.len();
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
