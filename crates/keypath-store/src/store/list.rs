//! Lists and index queries: one range scan per page (plus one batch read of the base items
//! for index queries), resumable by cursor in either direction.

use std::ops::Bound;

use keypath::KeyPath;

use super::Store;
use crate::backend::{Backend, Direction, Entry, Key, Scan};
use crate::cursor::Cursor;
use crate::envelope::{Envelope, Header};
use crate::item::{Item, RawItem, Versioned};
use crate::layout::{entry_path, index_group, is_valid_index_name, split_entry_path};
use crate::query::{Page, Plan, Query};
use crate::StoreError;

/// Most records read by one backend scan of a list.
const SCAN_BATCH: usize = 1000;

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("stored {what} is corrupt: {e}"))
}

impl<B: Backend> Store<B> {
    /// Lists items of type `T` (every listed item must be a `T`; use [`Store::list_raw`] for
    /// collections of mixed types).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = keypath_store::Store::new(keypath_store::backend::memory::MemoryBackend::new());
    /// let q = keypath_store::Query::prefix(&"/user-1".parse().unwrap()).unwrap();
    /// let page = store.list_raw(&q).await.unwrap();
    /// assert!(page.items.is_empty() && page.cursor.is_none());
    /// # });
    /// ```
    pub async fn list<T: Item>(&self, query: &Query) -> Result<Page<Versioned<T>>, StoreError> {
        let page = self.list_raw(query).await?;
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

    /// Lists items of any type, undecoded.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use keypath_store::{PutMode, Query, Store, backend::memory::MemoryBackend};
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
    pub async fn list_raw(&self, query: &Query) -> Result<Page<RawItem>, StoreError> {
        let plan = query.plan(false);
        let fingerprint = query.fingerprint(None, &plan);
        let group = query.group.encode();
        self.paged(query, &plan, fingerprint, group, |entries| {
            let group = &query.group;
            let plan = &plan;
            async move {
                entries
                    .into_iter()
                    .map(|e| {
                        let rest = KeyPath::decode(&e.sort).map_err(|err| corrupt("key", err))?;
                        if !plan.matches(&rest) {
                            return Ok((e.sort, None));
                        }
                        // Join with the decoded group rather than decoding it again.
                        let key =
                            entry_path(group, &rest).ok_or_else(|| corrupt("key", "bad path"))?;
                        let (item_type, payload) = Envelope::into_item_parts(e.record.value)?;
                        let item = RawItem {
                            key,
                            item_type,
                            version: e.record.version,
                            payload,
                        };
                        Ok((e.sort, Some(item)))
                    })
                    .collect()
            }
        })
        .await
    }

    /// Queries index `index`: lists the items whose index key paths the query selects, in
    /// index order (ties by item key path), as items of type `T`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = keypath_store::Store::new(keypath_store::backend::memory::MemoryBackend::new());
    /// let q = keypath_store::Query::prefix(&"/status-1".parse().unwrap()).unwrap();
    /// assert!(store.query_index_raw("by_status", &q).await.unwrap().items.is_empty());
    /// assert!(store.query_index_raw("bad name", &q).await.is_err());
    /// # });
    /// ```
    pub async fn query_index<T: Item>(
        &self,
        index: &str,
        query: &Query,
    ) -> Result<Page<Versioned<T>>, StoreError> {
        let page = self.query_index_raw(index, query).await?;
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
    /// use keypath_store::{PutMode, Query, Store, backend::memory::MemoryBackend};
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
    ) -> Result<Page<RawItem>, StoreError> {
        if !is_valid_index_name(index) {
            return Err(StoreError::InvalidIndexName {
                name: index.to_owned(),
            });
        }
        let plan = query.plan(true);
        let fingerprint = query.fingerprint(Some(index), &plan);
        let group = index_group(index, &query.group.encode());
        self.paged(query, &plan, fingerprint, group, |entries| {
            self.resolve_index(index, query, &plan, entries)
        })
        .await
    }

    /// Turns index entries into their current base items (`None` where the entry does not
    /// match the query or its item no longer has this index key).
    async fn resolve_index(
        &self,
        index: &str,
        query: &Query,
        plan: &Plan,
        entries: Vec<Entry>,
    ) -> Result<Vec<(Vec<u8>, Option<RawItem>)>, StoreError> {
        let mut wanted = Vec::new(); // (position in entries, base path, full index path)
        for (i, e) in entries.iter().enumerate() {
            let path = KeyPath::decode(&e.sort).map_err(|err| corrupt("index entry", err))?;
            let base_len = match e.record.value.as_slice() {
                [a, b] => usize::from(u16::from_be_bytes([*a, *b])),
                other => {
                    return Err(corrupt(
                        "index entry",
                        format!("value of {} bytes", other.len()),
                    ))
                }
            };
            let (rest, base) = split_entry_path(&path, base_len)
                .ok_or_else(|| corrupt("index entry", "bad base length"))?;
            if !plan.matches(&path) {
                continue;
            }
            let full = entry_path(&query.group, &rest)
                .ok_or_else(|| corrupt("index entry", "bad index path"))?;
            wanted.push((i, base, full));
        }
        let keys = wanted
            .iter()
            .map(|(_, base, _)| super::backend_key(base))
            .collect::<Result<Vec<Key>, _>>()?;
        let records = if keys.is_empty() {
            Vec::new()
        } else {
            self.backend.batch_get(keys).await?
        };
        let mut out: Vec<(Vec<u8>, Option<RawItem>)> =
            entries.into_iter().map(|e| (e.sort, None)).collect();
        for ((i, base, full), rec) in wanted.into_iter().zip(records) {
            let Some(rec) = rec else { continue };
            let full = full.encode();
            let current = Header::parse(&rec.value)?
                .indexes
                .iter()
                .any(|&(n, _, p)| n == index && p == full);
            if current {
                let (item_type, payload) = Envelope::into_item_parts(rec.value)?;
                out[i].1 = Some(RawItem {
                    key: base,
                    item_type,
                    version: rec.version,
                    payload,
                });
            }
        }
        Ok(out)
    }

    /// Scans `group` over the plan's range from the cursor on, resolving records to items
    /// with `resolve` until the page is full or the range is exhausted.
    async fn paged<F, Fut>(
        &self,
        query: &Query,
        plan: &Plan,
        fingerprint: u64,
        group: Vec<u8>,
        mut resolve: F,
    ) -> Result<Page<RawItem>, StoreError>
    where
        F: FnMut(Vec<Entry>) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<(Vec<u8>, Option<RawItem>)>, StoreError>>,
    {
        let limit = query.limit.unwrap_or(usize::MAX);
        let mut position: Option<Vec<u8>> = match &query.cursor {
            Some(c) => Some(c.position_for(fingerprint)?.to_vec()),
            None => None,
        };
        let mut items = Vec::new();
        let mut more = false;
        if limit == 0 {
            return Ok(Page {
                items,
                cursor: None,
            });
        }
        'scan: loop {
            let batch = limit
                .saturating_sub(items.len())
                .saturating_add(1)
                .min(SCAN_BATCH);
            let mut start = Bound::Included(plan.start.clone());
            let mut end = plan.end.clone().map_or(Bound::Unbounded, Bound::Excluded);
            // Resume strictly after the position, never outside the query's own range.
            if let Some(p) = &position {
                match query.direction {
                    Direction::Forward if p.as_slice() >= plan.start.as_slice() => {
                        start = Bound::Excluded(p.clone())
                    }
                    Direction::Reverse if plan.end.as_ref().is_none_or(|e| p < e) => {
                        end = Bound::Excluded(p.clone())
                    }
                    _ => {}
                }
            }
            let scan = Scan {
                group: group.clone(),
                start,
                end,
                direction: query.direction,
                limit: Some(batch),
            };
            let entries = self.backend.scan(scan).await?;
            let exhausted = entries.len() < batch;
            for (sort, item) in resolve(entries).await? {
                if items.len() == limit {
                    more = true;
                    break 'scan;
                }
                position = Some(sort);
                items.extend(item);
            }
            if exhausted {
                break;
            }
        }
        let cursor = match (more, position) {
            (true, Some(position)) => Some(Cursor {
                query: fingerprint,
                position,
            }),
            _ => None,
        };
        Ok(Page { items, cursor })
    }
}
