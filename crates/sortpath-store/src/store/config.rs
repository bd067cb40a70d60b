//! The store's configuration record: reading it, creating it, changing it, and what the store
//! remembers of it ([`State`](super::State)).

use std::sync::Arc;

use crate::backend::{Backend, BackendError};
use crate::config::{config_put, StoreConfig, TypeIndexes};
use crate::error::{ConfigError, Fault, GetError, WriteError};
use crate::layout::config_key;
use crate::Store;

impl<B: Backend> Store<B> {
    /// The store's configuration (an empty one if the store has no configuration record).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::memory::MemoryBackend, IndexDecl, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// assert_eq!(store.config().await.unwrap(), StoreConfig::default());
    /// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
    /// assert!(store.create_config(&config).await.unwrap());
    /// assert_eq!(store.config().await.unwrap(), config);
    /// # });
    /// ```
    pub async fn config(&self) -> Result<StoreConfig, GetError> {
        Ok(self.read_config().await?.0)
    }

    /// The store's configuration record, `None` if it has none (where [`Store::config`]
    /// answers with an empty configuration): one read, which the store's first writes use
    /// too (whether it keeps group counters, its root places).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::memory::MemoryBackend, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// assert_eq!(store.recorded_config().await.unwrap(), None);
    /// assert!(store.create_config(&StoreConfig::default()).await.unwrap());
    /// assert_eq!(store.recorded_config().await.unwrap(), Some(StoreConfig::default()));
    /// # });
    /// ```
    pub async fn recorded_config(&self) -> Result<Option<StoreConfig>, GetError> {
        let (config, version) = self.read_config().await?;
        Ok(version.map(|_| config))
    }

    /// Writes `config` if the store has no configuration yet (atomically: of several
    /// writers, one wins); `false`, changing nothing, if it has one. For backends that
    /// cannot create a store and its configuration in one step (DynamoDB tables): call it
    /// before the first write, since [`StoreConfig::group_versions`] is read once.
    ///
    /// A store that holds items but no configuration record is refused
    /// ([`ConfigError::Unrecorded`]), writing nothing: its record may have been lost to
    /// damage, and a new one would drop the indexes it declared. An earlier release's store
    /// written without a record is taken over with [`Store::create_config_over_items`].
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::memory::MemoryBackend, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// assert!(store.create_config(&StoreConfig::default()).await.unwrap());
    /// assert!(!store.create_config(&StoreConfig::default()).await.unwrap());
    /// # });
    /// ```
    pub async fn create_config(&self, config: &StoreConfig) -> Result<bool, WriteError> {
        self.write_first_config(config, false).await
    }

    /// [`Store::create_config`], also on a store that holds items but no configuration
    /// record: the explicit step that takes over a store an earlier release wrote without
    /// one (and the first step of recovering a store whose record was lost: take its items
    /// over, export them, import them into a new store created with its indexes). The
    /// record keeps no [`StoreConfig::types`] (unknown), so an index declared later is
    /// built before it is queried; program indexes given here are building until
    /// [`build_indexes`](Store::build_indexes) builds them; indexes declared as data and
    /// root places are refused (nothing would give the items already there their entries
    /// or places). On a store without items it is [`Store::create_config`].
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::backend::{memory::MemoryBackend, Backend, Condition, Write};
    /// use sortpath_store::{layout, ConfigError, Store, StoreConfig, WriteError};
    /// let store = Store::new(MemoryBackend::new());
    /// store.put_raw(&"/note-1".parse()?, "note", &serde_json::json!({}), vec![],
    ///     sortpath_store::PutMode::Upsert).await?;
    /// // The record is lost (or an earlier release never wrote one).
    /// let key = layout::config_key();
    /// store.backend().write(vec![Write::Delete { key, condition: Condition::None }]).await?;
    /// let store = Store::new(store.backend().clone());
    /// assert!(matches!(store.create_config(&StoreConfig::default()).await,
    ///     Err(WriteError::Config(ConfigError::Unrecorded))));
    /// assert!(store.create_config_over_items(&StoreConfig::default()).await?);
    /// assert_eq!(store.config().await?.types, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn create_config_over_items(&self, config: &StoreConfig) -> Result<bool, WriteError> {
        self.write_first_config(config, true).await
    }

    /// [`Store::create_config`] (`over_items`: or [`Store::create_config_over_items`]).
    async fn write_first_config(
        &self,
        config: &StoreConfig,
        over_items: bool,
    ) -> Result<bool, WriteError> {
        config.validate()?;
        if self.is_configured() {
            // This store saw its record: it has one (a record lost since is refused by the
            // writes that read it, never replaced here).
            return Ok(false);
        }
        // Items without a record: a record lost to damage, or an earlier release's store.
        // Only an explicit take-over writes one; their types are unknown, so the record says
        // so, and an index declared later for any type is built first.
        let unrecorded_items = !self.is_configured() && self.holds_items().await?;
        if unrecorded_items && !over_items {
            return Err(ConfigError::Unrecorded.into());
        }
        if !config.roots.is_empty() && unrecorded_items {
            // Root items already written are first: placing them elsewhere now would hide them.
            return Err(ConfigError::invalid(
                "root places are chosen before a store holds items, and this one holds some \
                 (written without a configuration record); export its items and import them \
                 into a new store created with the root places",
            )
            .into());
        }
        if let Some(d) = config.indexes.iter().find(|d| d.source.is_data()) {
            if unrecorded_items {
                // Its entries would be missing for the items already there, and nothing
                // here computes them: the index would answer without them.
                return Err(ConfigError::invalid(format!(
                    "index {} (declared as data) is declared before a store holds items, and \
                     this one holds some (written without a configuration record); export \
                     its items and import them into a new store created with the index",
                    d.name
                ))
                .into());
            }
        }
        let adjusted;
        let config = match unrecorded_items {
            true => {
                // The items' types are unknown, and a program index may have items to be
                // given entries: it is building until `build_indexes` builds it.
                let mut c = StoreConfig {
                    types: None,
                    ..config.clone()
                };
                for d in c.indexes.iter_mut() {
                    d.building = true;
                }
                adjusted = c;
                &adjusted
            }
            false => config,
        };
        self.forget_config_read();
        match self.backend().write(vec![config_put(config, None)]).await {
            Ok(()) => {
                self.set_group_versions(config.group_versions);
                Ok(true)
            }
            Err(BackendError::ConditionFailed { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// The configuration and the version of its record (`None`: no record).
    pub(crate) async fn read_config(&self) -> Result<(StoreConfig, Option<u64>), Fault> {
        let read_at = std::time::Instant::now();
        match self.backend().get(config_key()).await? {
            None => Ok((StoreConfig::default(), None)),
            Some(record) => {
                self.set_configured();
                let config = StoreConfig::from_record(&record.value)?;
                // Root places and group counters never change once recorded.
                let _ = self
                    .state
                    .roots
                    .get_or_init(|| Arc::new(config.roots.clone()));
                self.set_group_versions(config.group_versions);
                let version = record.version;
                *self
                    .state
                    .config_read
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some((record, read_at));
                Ok((config, Some(version)))
            }
        }
    }

    /// The configuration record read last by [`Store::read_config`], if that reading is
    /// fresh ([`Store::config_refresh`]) and the backend is shared by processes (on the
    /// others, a commit reads the record with its items at no cost).
    pub(crate) fn fresh_config_record(&self) -> Option<crate::backend::Record> {
        if !self.backend().shared_by_processes() {
            return None;
        }
        let read = self
            .state
            .config_read
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        read.as_ref()
            .filter(|(_, at)| self.is_fresh(*at))
            .map(|(record, _)| record.clone())
    }

    /// Whether this store has checked `t`'s indexes against the configuration (and declared
    /// what it lacked) for writes of `t`'s Rust type.
    pub(crate) fn is_declared(&self, t: &TypeIndexes) -> bool {
        self.state
            .declared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(t.item_type, t.id))
            .is_some_and(|&at| self.is_fresh(at))
    }

    /// Whether a reading of the configuration made at `at` is still trusted: within
    /// [`Store::config_refresh`].
    pub(crate) fn is_fresh(&self, at: std::time::Instant) -> bool {
        at.elapsed() < self.config_refresh
    }

    /// Records that `types`' indexes are declared (after a commit that wrote or found the
    /// declarations, with a read of the configuration made no earlier than `read_at`). If
    /// the commit wrote the configuration (`changed`), the other Rust types of the same item
    /// types are checked again at their next write: the commit may have declared an index
    /// they do not compute.
    pub(crate) fn mark_declared(
        &self,
        types: &[TypeIndexes],
        changed: bool,
        read_at: std::time::Instant,
    ) {
        if changed {
            for t in types {
                self.forget_declared(t.item_type);
            }
        }
        let mut done = self
            .state
            .declared
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        done.extend(types.iter().map(|t| ((t.item_type, t.id), read_at)));
    }

    /// Forgets that any Rust type of `item_type` was checked against the configuration.
    pub(crate) fn forget_declared(&self, item_type: &str) {
        self.state
            .declared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(t, _), _| *t != item_type);
    }
}
