//! Indexes declared after items: their build, the refusal to query them before it, and
//! their removal.
//!
//! A program index declared for an item type the store already holds items of (a program
//! that gained an index) starts out [`building`](crate::IndexDecl::building): the writes
//! from then on keep it, the items written before are not in it. A query of it is refused
//! ([`ListError::IndexBuilding`](crate::ListError::IndexBuilding)) until [`Store::build_indexes`] has given every item of
//! the type its entries; nothing answers from an index that misses items.

use std::ops::Bound;
use std::sync::atomic::Ordering;

use super::commit::{pause, sleep, MAX_ATTEMPTS};
use super::encode::{index_keys, Expect, ItemWrite, NewItem};
use super::Store;
use crate::backend::{Backend, BackendError, Key, Record, Scan};
use crate::config::{StoreConfig, TypeIndexes};
use crate::envelope::Header;
use crate::error::{ConfigError, CorruptError, Fault, ListError, NotAnItemError, WriteError};
use crate::item::{versioned_from_parts, Item};
use crate::layout::config_key;

/// Records read per scan while building.
const BUILD_PAGE: usize = 256;

impl<B: Backend> Store<B> {
    /// Gives every stored item of type `T` the entries of `T`'s indexes that the store
    /// declares as [`building`](crate::IndexDecl::building) (declaring `T`'s indexes first if
    /// the store lacks them), then declares them built, so they can be queried. Returns the
    /// number of items given entries. Running it again, or on a store whose indexes of `T`
    /// are all built, changes nothing.
    ///
    /// The items keep their values and versions; writes of other processes may go on
    /// meanwhile (each item is given its entries only if it has not changed since it was
    /// read). A process whose program does not compute these indexes is refused from its
    /// first write of `T` after the declaration, or, if it wrote `T` before, once the
    /// declarations it read are older than its [`Store::with_config_refresh`] (10 s by
    /// default). On a backend other processes write (DynamoDB) the build therefore waits
    /// twice the refresh before it scans, so that no such process writes `T` after the
    /// scan passed its item.
    ///
    /// Scans every item group (on DynamoDB: a scan of the whole table).
    ///
    /// ```
    /// use sortpath::{path::PathError, KeyPath};
    /// use sortpath_store::{backend::memory::MemoryBackend, Index, Item, ListError, Query, Store};
    ///
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Post { id: u64, day: u64 }
    /// impl Item for Post {
    ///     const TYPE: &'static str = "post";
    ///     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("post", self.id) }
    /// }
    /// // The next version of the program indexes posts by day.
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct PostV2 { id: u64, day: u64 }
    /// impl Item for PostV2 {
    ///     const TYPE: &'static str = "post";
    ///     const INDEXES: &'static [Index<Self>] = &[Index::new("by_day", |p| {
    ///         Ok(Some(KeyPath::new().push("days", 0u64)?.push("day", p.day)?))
    ///     })];
    ///     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("post", self.id) }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// store.put(&Post { id: 1, day: 20 }).await?;
    /// let by_day = Query::prefix(&"/days-0".parse()?)?;
    /// // Post 1 is not in the new index yet: the query is refused rather than missing it.
    /// let early = store.query_index::<PostV2>("by_day", &by_day).await;
    /// assert!(matches!(early, Err(ListError::IndexBuilding { .. })));
    /// assert_eq!(store.build_indexes::<PostV2>().await?, 1);
    /// let page = store.query_index::<PostV2>("by_day", &by_day).await?;
    /// assert_eq!(page.items.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn build_indexes<T: Item>(&self) -> Result<u64, WriteError> {
        let program = TypeIndexes::of::<T>();
        self.declare(program).await?;
        let names = (program.names)();
        let building: Vec<String> = self
            .read_config()
            .await?
            .0
            .indexes_of(T::TYPE)
            .filter(|d| d.building && names.contains(&d.name.as_str()))
            .map(|d| d.name.clone())
            .collect();
        if building.is_empty() {
            return Ok(0);
        }
        if self.backend.shared_by_processes() {
            // Every other process's writes of the type read the configuration again within
            // the refresh of their last read: after twice that, none writes the type without
            // these indexes (it is refused), so the scan below misses none of its writes.
            sleep(self.config_refresh * 2).await;
        }
        let mut given = 0;
        for group in self.backend.groups(1).await? {
            let mut start = Bound::Unbounded;
            loop {
                let mut scan = Scan::group(group.clone()).start(start);
                scan.limit = Some(BUILD_PAGE);
                let page = self.backend.scan(scan).await?;
                for entry in &page {
                    let key = Key::new(group.clone(), entry.sort.clone());
                    if self.give_entries::<T>(key, entry.record.clone()).await? {
                        given += 1;
                    }
                }
                match page.last() {
                    Some(last) if page.len() == BUILD_PAGE => {
                        start = Bound::Excluded(last.sort.clone())
                    }
                    _ => break,
                }
            }
        }
        self.update_config(move |config| {
            let mut changed = false;
            for d in config.indexes.iter_mut() {
                if d.item_type == T::TYPE && d.building && building.contains(&d.name) {
                    d.building = false;
                    changed = true;
                }
            }
            Ok(changed)
        })
        .await?;
        Ok(given)
    }

    /// Removes the declaration of index `name` of item type `item_type` from the store's
    /// configuration; returns whether it was declared. Programs whose type no longer
    /// computes the index can write the type again (they are refused while the store
    /// declares it); each item's entries of it go when the item is next written or deleted.
    ///
    /// ```
    /// use sortpath_store::{backend::memory::MemoryBackend, IndexDecl, Store, StoreConfig};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// store.create_config(&StoreConfig::new(vec![IndexDecl::program("by_day", "post")])).await?;
    /// assert!(store.drop_index("post", "by_day").await?);
    /// assert!(!store.drop_index("post", "by_day").await?);
    /// assert!(store.config().await?.indexes.is_empty());
    /// # Ok::<(), sortpath_store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn drop_index(&self, item_type: &str, name: &str) -> Result<bool, WriteError> {
        let (t, n) = (item_type.to_owned(), name.to_owned());
        let dropped = self
            .update_config(move |config| {
                let before = config.indexes.len();
                config
                    .indexes
                    .retain(|d| !(d.item_type == t && d.name == n));
                Ok(config.indexes.len() < before)
            })
            .await?;
        self.state
            .ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
        self.forget_declared(item_type);
        Ok(dropped)
    }

    /// Fails with [`ListError::IndexBuilding`] if index `index` of `T` may miss items of
    /// `T`: declared as building, or not declared while the store may hold items of `T`.
    pub(crate) async fn check_typed_index(
        &self,
        index: &str,
        item_type: &str,
    ) -> Result<(), ListError> {
        if self.is_ready(index) {
            return Ok(());
        }
        let read_at = std::time::Instant::now();
        let config = match self.read_config().await? {
            (config, Some(_)) => config,
            (_, None) => StoreConfig::unrecorded(self.holds_items().await?),
        };
        // The index is shared by every type that declares it: one building fails them all.
        if let Some(d) = config
            .indexes
            .iter()
            .find(|d| d.name == index && d.building)
        {
            return Err(building(index, &d.item_type));
        }
        let found = config
            .indexes_of(item_type)
            .find(|d| d.name == index)
            .map(|d| d.building);
        match found {
            Some(true) => Err(building(index, item_type)),
            Some(false) => {
                self.set_ready(index, read_at);
                Ok(())
            }
            // Undeclared: complete only while the store holds no item of the type (the first
            // write of one declares it).
            None if config.may_hold(item_type) => Err(building(index, item_type)),
            None => Ok(()),
        }
    }

    /// Fails with [`ListError::IndexBuilding`] if the configuration declares index `index`
    /// (for any item type) as building.
    pub(crate) async fn check_index(&self, index: &str) -> Result<(), ListError> {
        if self.is_ready(index) {
            return Ok(());
        }
        let read_at = std::time::Instant::now();
        let config = self.read_config().await?.0;
        let mut declared = config.indexes.iter().filter(|d| d.name == index).peekable();
        if declared.peek().is_none() {
            return Ok(()); // written with put_raw under a name the configuration leaves free
        }
        match declared.find(|d| d.building) {
            Some(d) => Err(building(index, &d.item_type)),
            None => {
                self.set_ready(index, read_at);
                Ok(())
            }
        }
    }

    /// Declares `program`'s indexes if the configuration lacks them (building if the store
    /// may hold items of its type).
    async fn declare(&self, program: TypeIndexes) -> Result<(), WriteError> {
        let changed = self
            .update_config(move |config| {
                Ok(match config.declaring(&[program], &[], false)? {
                    Some(more) => {
                        *config = more;
                        true
                    }
                    None => false,
                })
            })
            .await?;
        if changed {
            // Other Rust types of the item type may not compute what was declared.
            self.forget_declared(program.item_type);
        }
        Ok(())
    }

    /// Changes the configuration with `change` (which says whether it changed anything)
    /// in one conditional write, read again and retried if another writer changed it
    /// meanwhile; returns whether it changed anything. A store without a configuration
    /// record gets one.
    async fn update_config(
        &self,
        change: impl Fn(&mut StoreConfig) -> Result<bool, ConfigError> + Clone + Send + 'static,
    ) -> Result<bool, WriteError> {
        // This change makes the last reading of the record stale (written or not: it may
        // be sent and its answer lost).
        self.forget_config_read();
        for attempt in 0..MAX_ATTEMPTS {
            let known_configured = self.is_configured();
            let unrecorded_items = match known_configured {
                true => false,
                false => self.holds_items().await?,
            };
            let change = change.clone();
            let (changed, written) = self
                .backend
                .read_then_write(vec![config_key()], move |got| {
                    let record = got.into_iter().next().flatten();
                    let mut config = match &record {
                        Some(r) => StoreConfig::from_record(&r.value)?,
                        None => StoreConfig::unrecorded(unrecorded_items),
                    };
                    let roots = config.roots.clone();
                    if !change(&mut config)? {
                        return Ok::<_, WriteError>((Vec::new(), false));
                    }
                    // A record this store saw and now misses was lost: as for items
                    // without one, a new record would drop what it declared.
                    if record.is_none() && (unrecorded_items || known_configured) {
                        // Items without a record: it may have been lost, and a new one
                        // would drop what it declared. Only an explicit take-over writes one.
                        return Err(ConfigError::Unrecorded.into());
                    }
                    // Root places never change: readers keep them once read.
                    if config.roots != roots {
                        return Err(ConfigError::invalid(
                            "root places are chosen when a store is created and never change",
                        )
                        .into());
                    }
                    config.validate()?;
                    Ok((
                        vec![crate::config::config_put(&config, record.as_ref())],
                        true,
                    ))
                })
                .await?;
            match written {
                Ok(()) => {
                    if changed {
                        self.set_configured();
                    }
                    return Ok(changed);
                }
                Err(BackendError::ConditionFailed { .. }) => pause(attempt).await,
                Err(e) => return Err(e.into()),
            }
        }
        Err(ConfigError::Contended {
            attempts: MAX_ATTEMPTS,
        }
        .into())
    }

    /// Gives the item stored at `key` (record `record`, if it is an item of `T`) the index
    /// entries `T` computes for it that it lacks; returns whether it had to.
    async fn give_entries<T: Item>(
        &self,
        key: Key,
        mut record: Record,
    ) -> Result<bool, WriteError> {
        let path =
            crate::layout::item_path_at(&key.group, &key.sort).map_err(|e| NotAnItemError {
                record: Box::new(crate::ForeignRecord::new(
                    key.group.clone(),
                    key.sort.clone(),
                )),
                reason: CorruptError::Key(e),
            })?;
        for attempt in 0..MAX_ATTEMPTS {
            let header = Header::parse(&record.value).map_err(|e| super::not_an_item(&path, e))?;
            if header.item_type != T::TYPE {
                return Ok(false);
            }
            let payload = &record.value[header.payload_start..];
            let item = versioned_from_parts::<T>(
                path.clone(),
                record.version,
                T::TYPE.as_bytes(),
                payload,
            )?
            .item;
            let mut indexes = index_keys(&item)?;
            indexes.sort_by(|a, b| a.0.cmp(&b.0));
            let same = indexes.len() == header.indexes.len()
                && indexes
                    .iter()
                    .zip(&header.indexes)
                    .all(|((name, p), (stored, _, enc))| name == stored && p.as_bytes() == *enc);
            if same {
                return Ok(false);
            }
            let write = ItemWrite {
                path: path.clone(),
                key: key.clone(),
                new: Some(NewItem {
                    rebuild: true,
                    ..NewItem::typed::<T>(payload.to_vec(), indexes)
                }),
                expect: Expect::Version(record.version),
            };
            match self.commit_writes(vec![write]).await {
                Ok(_) => return Ok(true),
                // Changed meanwhile: read it again (a write from now on gave it its entries,
                // unless its program lacks the index).
                Err(WriteError::VersionMismatch { .. }) => {
                    match self.backend.get(key.clone()).await? {
                        Some(now) => record = now,
                        None => return Ok(false),
                    }
                    pause(attempt).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(WriteError::Contention {
            key: path,
            attempts: MAX_ATTEMPTS,
        })
    }

    /// Whether the store holds any item (a walk of the item groups: a seek per group on the
    /// embedded backends, a scan of the table on DynamoDB; one request for an empty table).
    /// Asked only while the store has no configuration record, to tell a new store from one
    /// an earlier release wrote without a record.
    pub(crate) async fn holds_items(&self) -> Result<bool, Fault> {
        Ok(!self.backend.groups(1).await?.is_empty())
    }

    /// Whether the store is known to have a configuration record.
    pub(crate) fn is_configured(&self) -> bool {
        self.state.configured.load(Ordering::Acquire)
    }

    /// Forgets the last reading of the configuration record (this store changes it).
    pub(crate) fn forget_config_read(&self) {
        *self
            .state
            .config_read
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Records that the store has a configuration record.
    pub(crate) fn set_configured(&self) {
        self.state.configured.store(true, Ordering::Release);
    }

    /// Whether index `index` was found declared and built within the last
    /// [`Store::config_refresh`] (another process may drop it: then it is read again).
    fn is_ready(&self, index: &str) -> bool {
        self.state
            .ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(index)
            .is_some_and(|&at| self.is_fresh(at))
    }

    /// Records that index `index` was found declared and built by a read of the
    /// configuration made no earlier than `read_at`.
    fn set_ready(&self, index: &str, read_at: std::time::Instant) {
        self.state
            .ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(index.to_owned(), read_at);
    }
}

fn building(name: &str, item_type: &str) -> ListError {
    ListError::IndexBuilding {
        name: name.to_owned(),
        item_type: item_type.to_owned(),
    }
}
