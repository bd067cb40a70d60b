//! The store's configuration: the secondary indexes it holds, kept inside the store.
//!
//! One record at [`layout::config_key`](crate::layout::config_key), written in the same
//! atomic step that creates a store (on redb: in the new file before it appears; see
//! `Store::create`, feature `redb`), so every writer, the library, the `keypath db`
//! command and clients in other languages, reads the same definitions. Its value is JSON:
//!
//! ```json
//! {"format": 1, "indexes": [
//!   {"name": "by_updated", "type": "ticket", "kind": "field", "field": "updated_at", "group": "/board-{board}"},
//!   {"name": "by_score", "type": "player", "kind": "program"}
//! ]}
//! ```
//!
//! An index is declared for one item type (`type`: the type name a Rust [`Item`] gives as
//! [`Item::TYPE`]; for items written as data, such as `keypath db`'s, the last namespace of
//! the item's key path):
//! - `"kind": "field"`: defined as data, so any writer can compute it: the item's field
//!   `field` under the group `group` (`keypath db init --index NAME=TYPE.FIELD@GROUP` states
//!   how the field's value becomes an ID).
//! - `"kind": "program"`: computed by a program's code (a Rust [`Item`]'s
//!   [`INDEXES`](Item::INDEXES)). The store declares these itself, in the same atomic
//!   write as the first item of that type it writes. A writer that cannot run that code (the `keypath db` command,
//!   another language) must not write items of that type: it would leave their entries
//!   stale.
//!
//! A store without the record (a backend the store did not create, such as a fresh
//! in-memory one) has no declared indexes.

use serde::{Deserialize, Serialize};

use crate::backend::{Backend, BackendError, Condition, Record, Write};
use crate::item::Item;
use crate::layout::{config_key, is_valid_index_name};
use crate::{Store, StoreError};

/// The configuration format this release reads and writes.
pub const CONFIG_FORMAT: u32 = 1;

/// The store's configuration: the secondary indexes it holds, kept inside the store.
///
/// One record at [`layout::config_key`](crate::layout::config_key), written in the same
/// atomic step that creates a store (on redb: in the new file before it appears; see
/// `Store::create`, feature `redb`), so every writer, the library, the `keypath db`
/// command and clients in other languages, reads the same definitions. Its value is JSON:
///
/// ```json
/// {"format": 1, "indexes": [
///   {"name": "by_updated", "type": "ticket", "kind": "field", "field": "updated_at", "group": "/board-{board}"},
///   {"name": "by_score", "type": "player", "kind": "program"}
/// ]}
/// ```
///
/// An index is declared for one item type (`type`: the type name a Rust [`Item`] gives as
/// [`Item::TYPE`]; for items written as data, such as `keypath db`'s, the last namespace of
/// the item's key path):
/// - `"kind": "field"`: defined as data, so any writer can compute it: the item's field
///   `field` under the group `group` (`keypath db init --index NAME=TYPE.FIELD@GROUP` states
///   how the field's value becomes an ID).
/// - `"kind": "program"`: computed by a program's code (a Rust [`Item`]'s
///   [`INDEXES`](Item::INDEXES)). The store declares these itself, in the same atomic
///   write as the first item of that type it writes. A writer that cannot run that code (the `keypath db` command,
///   another language) must not write items of that type: it would leave their entries
///   stale.
///
/// A store without the record (a backend the store did not create, such as a fresh
/// in-memory one) has no declared indexes.
///
/// ```
/// use keypath_store::{IndexDecl, StoreConfig};
/// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
/// let json = config.to_json();
/// assert_eq!(StoreConfig::from_json(&json).unwrap(), config);
/// assert!(String::from_utf8(json).unwrap().contains(r#""kind":"field""#));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoreConfig {
    /// The configuration format ([`CONFIG_FORMAT`]).
    pub format: u32,
    /// The declared indexes, in declaration order.
    pub indexes: Vec<IndexDecl>,
    /// Whether the store keeps a version counter per item group (`"group_versions": true`;
    /// absent means `false`). With it, every write also bumps its group's counter in the same
    /// atomic batch, an item's version is the counter's new value and
    /// `Store::group_version` reads it; without it (the default) a write stores no counter
    /// record, an update's version is the old version plus one and a new item's version is
    /// a fresh random number below 2^52 (exact in JavaScript), so that deleting and
    /// creating an item again never brings back a version that `PutMode::IfVersion` could
    /// mistake. Chosen when the store is created; it never changes afterwards (every
    /// process of a store must count the same way).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub group_versions: bool,
}

/// One declared index; see [`StoreConfig`].
///
/// ```
/// let decl = keypath_store::IndexDecl::program("by_score", "player");
/// assert_eq!(decl.name, "by_score");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IndexDecl {
    /// The index name (1 to 64 ASCII letters, digits or `_`).
    pub name: String,
    /// The item type whose items it indexes.
    #[serde(rename = "type")]
    pub item_type: String,
    /// How its entries are computed.
    #[serde(flatten)]
    pub source: IndexSource,
}

/// How an index's entries are computed.
///
/// ```
/// use keypath_store::IndexSource;
/// let source = IndexSource::Field { field: "n".into(), group: "/posts-0".into() };
/// assert!(source.is_data());
/// assert!(!IndexSource::Program.is_data());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum IndexSource {
    /// The item's field `field`, under the group `group` (`/board-1`, or `/board-{board}`
    /// for the item's field `board`).
    Field {
        /// The indexed field.
        field: String,
        /// The group of the index paths.
        group: String,
    },
    /// A program's code computes it.
    Program,
}

impl IndexSource {
    /// Whether any writer can compute the index from the definition alone.
    ///
    /// ```
    /// assert!(!keypath_store::IndexSource::Program.is_data());
    /// ```
    pub fn is_data(&self) -> bool {
        matches!(self, IndexSource::Field { .. })
    }
}

impl IndexDecl {
    /// An index on a field; see [`IndexSource::Field`].
    ///
    /// ```
    /// let decl = keypath_store::IndexDecl::field("by_updated", "ticket", "updated_at", "/board-{board}");
    /// assert!(decl.source.is_data());
    /// ```
    pub fn field(name: &str, item_type: &str, field: &str, group: &str) -> IndexDecl {
        IndexDecl {
            name: name.to_owned(),
            item_type: item_type.to_owned(),
            source: IndexSource::Field {
                field: field.to_owned(),
                group: group.to_owned(),
            },
        }
    }

    /// An index a program computes; see [`IndexSource::Program`].
    ///
    /// ```
    /// let decl = keypath_store::IndexDecl::program("by_score", "player");
    /// assert!(!decl.source.is_data());
    /// ```
    pub fn program(name: &str, item_type: &str) -> IndexDecl {
        IndexDecl {
            name: name.to_owned(),
            item_type: item_type.to_owned(),
            source: IndexSource::Program,
        }
    }
}

impl StoreConfig {
    /// A configuration declaring `indexes`.
    ///
    /// ```
    /// assert!(keypath_store::StoreConfig::new(vec![]).indexes.is_empty());
    /// ```
    pub fn new(indexes: Vec<IndexDecl>) -> StoreConfig {
        StoreConfig {
            format: CONFIG_FORMAT,
            indexes,
            group_versions: false,
        }
    }

    /// This configuration with group version counters kept or not (see
    /// [`StoreConfig::group_versions`]).
    ///
    /// ```
    /// let config = keypath_store::StoreConfig::new(vec![]).with_group_versions(true);
    /// assert_eq!(config.to_json(), br#"{"format":1,"indexes":[],"group_versions":true}"#);
    /// ```
    pub fn with_group_versions(mut self, on: bool) -> StoreConfig {
        self.group_versions = on;
        self
    }

    /// The record's value: JSON.
    ///
    /// ```
    /// let json = keypath_store::StoreConfig::default().to_json();
    /// assert_eq!(json, br#"{"format":1,"indexes":[]}"#);
    /// ```
    pub fn to_json(&self) -> Vec<u8> {
        let mut config = self.clone();
        config.format = CONFIG_FORMAT;
        serde_json::to_vec(&config).expect("a configuration serializes")
    }

    /// Reads a record's value; says what is wrong with one this release cannot use.
    ///
    /// ```
    /// use keypath_store::StoreConfig;
    /// assert!(StoreConfig::from_json(br#"{"format":1,"indexes":[]}"#).is_ok());
    /// let newer = StoreConfig::from_json(br#"{"format":2,"indexes":[]}"#).unwrap_err();
    /// assert!(newer.contains("format 2"), "{newer}");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<StoreConfig, String> {
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let format = serde_json::from_slice::<Format>(bytes)
            .map_err(|e| format!("not a keypath store configuration: {e}"))?
            .format;
        if format != CONFIG_FORMAT {
            return Err(format!(
                "configuration format {format}, this release reads format {CONFIG_FORMAT} \
                 (written by another release of keypath-store)"
            ));
        }
        let config: StoreConfig = serde_json::from_slice(bytes)
            .map_err(|e| format!("not a keypath store configuration: {e}"))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks names: valid, and each declared once per item type.
    ///
    /// ```
    /// use keypath_store::{IndexDecl, StoreConfig};
    /// let twice = StoreConfig::new(vec![IndexDecl::program("a", "t"), IndexDecl::program("a", "t")]);
    /// assert!(twice.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), String> {
        for (i, decl) in self.indexes.iter().enumerate() {
            if !is_valid_index_name(&decl.name) {
                return Err(format!(
                    "invalid index name {:?}: expected 1 to 64 ASCII letters, digits or '_'",
                    decl.name
                ));
            }
            if self.indexes[..i]
                .iter()
                .any(|d| d.name == decl.name && d.item_type == decl.item_type)
            {
                return Err(format!(
                    "index {} of type {} is declared twice",
                    decl.name, decl.item_type
                ));
            }
        }
        Ok(())
    }

    /// The indexes declared for items of type `item_type`.
    ///
    /// ```
    /// use keypath_store::{IndexDecl, StoreConfig};
    /// let config = StoreConfig::new(vec![IndexDecl::program("a", "t"), IndexDecl::program("b", "u")]);
    /// assert_eq!(config.indexes_of("t").count(), 1);
    /// ```
    pub fn indexes_of<'a>(&'a self, item_type: &'a str) -> impl Iterator<Item = &'a IndexDecl> {
        self.indexes
            .iter()
            .filter(move |d| d.item_type == item_type)
    }

    /// The record that holds this configuration, as `Store::create` (feature `redb`)
    /// writes it into a new store.
    ///
    /// ```
    /// let (key, record) = keypath_store::StoreConfig::default().record();
    /// assert_eq!(key, keypath_store::layout::config_key());
    /// assert_eq!(record.version, 1);
    /// ```
    pub fn record(&self) -> (crate::backend::Key, Record) {
        (
            config_key(),
            Record {
                value: self.to_json(),
                version: 1,
            },
        )
    }
}

/// The declarations a typed write needs: its type's program indexes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TypeIndexes {
    pub item_type: &'static str,
    pub names: fn() -> Vec<&'static str>,
}

impl TypeIndexes {
    /// For items of `T`; `None` if `T` has no indexes.
    pub(crate) fn of<T: Item>() -> Option<TypeIndexes> {
        (!T::INDEXES.is_empty()).then_some(TypeIndexes {
            item_type: T::TYPE,
            names: || T::INDEXES.iter().map(|i| i.name).collect(),
        })
    }
}

impl<B: Backend> Store<B> {
    /// The store's configuration (an empty one if the store has no configuration record).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use keypath_store::{backend::memory::MemoryBackend, IndexDecl, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// assert_eq!(store.config().await.unwrap(), StoreConfig::default());
    /// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
    /// assert!(store.create_config(&config).await.unwrap());
    /// assert_eq!(store.config().await.unwrap(), config);
    /// # });
    /// ```
    pub async fn config(&self) -> Result<StoreConfig, StoreError> {
        Ok(self.read_config().await?.0)
    }

    /// Writes `config` if the store has no configuration yet (atomically: of several
    /// writers, one wins); `false`, changing nothing, if it has one. For backends that
    /// cannot create a store and its configuration in one step (DynamoDB tables): call it
    /// before the first write, since [`StoreConfig::group_versions`] is read once.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use keypath_store::{backend::memory::MemoryBackend, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// assert!(store.create_config(&StoreConfig::default()).await.unwrap());
    /// assert!(!store.create_config(&StoreConfig::default()).await.unwrap());
    /// # });
    /// ```
    pub async fn create_config(&self, config: &StoreConfig) -> Result<bool, StoreError> {
        config.validate().map_err(StoreError::Config)?;
        let (key, record) = config.record();
        let put = Write::Put {
            key,
            record,
            condition: Condition::NotExists,
        };
        match self.backend().write(vec![put]).await {
            Ok(()) => {
                self.set_group_versions(config.group_versions);
                Ok(true)
            }
            Err(BackendError::ConditionFailed { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// The configuration and the version of its record (`None`: no record).
    async fn read_config(&self) -> Result<(StoreConfig, Option<u64>), StoreError> {
        match self.backend().get(config_key()).await? {
            None => Ok((StoreConfig::default(), None)),
            Some(record) => Ok((
                StoreConfig::from_json(&record.value).map_err(StoreError::Config)?,
                Some(record.version),
            )),
        }
    }

    /// Whether this store has seen `item_type`'s program indexes declared.
    pub(crate) fn is_declared(&self, item_type: &str) -> bool {
        self.declared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(item_type)
    }

    /// Records that `types`' program indexes are declared (after a commit that wrote or
    /// found the declarations).
    pub(crate) fn mark_declared(&self, types: impl Iterator<Item = &'static str>) {
        let mut done = self.declared.lock().unwrap_or_else(|p| p.into_inner());
        done.extend(types);
    }
}

impl StoreConfig {
    /// This configuration with the program indexes of `types` that it lacks declared, or
    /// `None` if it declares them all. An index declared as data for the type already
    /// counts: the program claims to compute the same.
    pub(crate) fn declaring(&self, types: &[TypeIndexes]) -> Option<StoreConfig> {
        let mut config = self.clone();
        for t in types {
            for name in (t.names)() {
                if !config.indexes_of(t.item_type).any(|d| d.name == name) {
                    config.indexes.push(IndexDecl::program(name, t.item_type));
                }
            }
        }
        (config.indexes.len() > self.indexes.len()).then_some(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_is_the_documented_one() {
        let config = StoreConfig::new(vec![
            IndexDecl::field("by_updated", "ticket", "updated_at", "/board-{board}"),
            IndexDecl::program("by_score", "player"),
        ]);
        let json = String::from_utf8(config.to_json()).unwrap();
        assert_eq!(
            json,
            r#"{"format":1,"indexes":[{"name":"by_updated","type":"ticket","kind":"field","field":"updated_at","group":"/board-{board}"},{"name":"by_score","type":"player","kind":"program"}]}"#
        );
        assert_eq!(StoreConfig::from_json(json.as_bytes()), Ok(config));
    }

    #[test]
    fn bad_records_say_what_is_wrong() {
        let err = |json: &str| StoreConfig::from_json(json.as_bytes()).unwrap_err();
        assert!(err("[]").contains("not a keypath store configuration"));
        assert!(
            err(r#"{"format":1,"indexes":[{"name":"a","type":"t","kind":"sql"}]}"#)
                .contains("not a keypath store configuration")
        );
        assert!(
            err(r#"{"format":1,"indexes":[{"name":"a b","type":"t","kind":"program"}]}"#)
                .contains("invalid index name")
        );
        assert!(err(r#"{"format":7,"indexes":[]}"#).contains("format 7"));
    }
}
