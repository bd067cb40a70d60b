//! The store's configuration: the secondary indexes it holds, kept inside the store.
//!
//! One record at [`layout::config_key`](crate::layout::config_key), written in the same
//! atomic step that creates a store (on redb: in the new file before it appears; see
//! `Store::create`, feature `redb`), so every writer, the library, the `sortpath db`
//! command and clients in other languages, reads the same definitions. Its value is JSON:
//!
//! ```json
//! {"format": 1, "indexes": [
//!   {"name": "by_updated", "type": "ticket", "kind": "field", "field": "updated_at", "group": "/board-{board}"},
//!   {"name": "by_score", "type": "player", "kind": "program"},
//!   {"name": "by_day", "type": "player", "kind": "program", "building": true}
//! ], "types": ["ticket", "player"]}
//! ```
//!
//! An index is declared for one item type (`type`: the type name a Rust [`Item`] gives as
//! [`Item::TYPE`]; for items written as data, such as `sortpath db`'s, the last namespace of
//! the item's key path):
//! - `"kind": "field"`: defined as data, so any writer can compute it: the item's field
//!   `field` under the group `group` (`sortpath db init --index NAME=TYPE.FIELD@GROUP` states
//!   how the field's value becomes an ID). A Rust program writes items of that type only
//!   if its [`Item`] computes an index of the same name (giving the same keys), or through
//!   [`Store::put_raw`] with the index keys; a typed write of a type that does not is
//!   refused, since the index would miss its items.
//! - `"kind": "program"`: computed by a program's code (a Rust [`Item`]'s
//!   [`INDEXES`](Item::INDEXES)). The store declares these itself, in the same atomic
//!   write as the first item of that type it writes. A writer that cannot run that code (the `sortpath db` command,
//!   another language) must not write items of that type: it would leave their entries
//!   stale; nor may a program whose type lacks one of them (each Rust type is checked on
//!   its own, so two versions of a type in one process are told apart).
//!
//! `types` lists every item type the store has held, each added in the same atomic write as
//! the first item of its type. A program index declared for a type the store may already
//! hold items of (a program that gained an index) is `"building": true` until
//! [`Store::build_indexes`] has given those items their entries: queries of it are refused
//! meanwhile, never answered without them. A record without `types` (written by an earlier
//! release) may hold any type.
//!
//! `roots` (format 2; absent in format 1) places the root items of the groups of some
//! namespaces other than first among their group's items ([`RootPlace`]); it is chosen
//! when the store is created and never changes.
//!
//! A store without the record (a backend the store did not create, such as a fresh
//! in-memory one) has no declared indexes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sortpath::KeyPath;

use crate::backend::{Condition, Record, Write};
use crate::error::ConfigError;
use crate::item::Item;
use crate::layout::{config_key, is_namespace, is_valid_index_name, RootPlace};

/// The newest configuration format this release reads and writes: 2 for a configuration
/// that places root items ([`StoreConfig::roots`]), which earlier releases must not read as
/// if its roots were first; 1, which every release reads, for any other.
pub const CONFIG_FORMAT: u32 = 2;

/// The store's configuration: the secondary indexes it holds, kept inside the store.
///
/// One record at [`layout::config_key`](crate::layout::config_key), written in the same
/// atomic step that creates a store (on redb: in the new file before it appears; see
/// `Store::create`, feature `redb`), so every writer, the library, the `sortpath db`
/// command and clients in other languages, reads the same definitions. Its value is JSON:
///
/// ```json
/// {"format": 1, "indexes": [
///   {"name": "by_updated", "type": "ticket", "kind": "field", "field": "updated_at", "group": "/board-{board}"},
///   {"name": "by_score", "type": "player", "kind": "program"},
///   {"name": "by_day", "type": "player", "kind": "program", "building": true}
/// ], "types": ["ticket", "player"]}
/// ```
///
/// An index is declared for one item type (`type`: the type name a Rust [`Item`] gives as
/// [`Item::TYPE`]; for items written as data, such as `sortpath db`'s, the last namespace of
/// the item's key path):
/// - `"kind": "field"`: defined as data, so any writer can compute it: the item's field
///   `field` under the group `group` (`sortpath db init --index NAME=TYPE.FIELD@GROUP` states
///   how the field's value becomes an ID).
/// - `"kind": "program"`: computed by a program's code (a Rust [`Item`]'s
///   [`INDEXES`](Item::INDEXES)). The store declares these itself, in the same atomic
///   write as the first item of that type it writes. A writer that cannot run that code (the `sortpath db` command,
///   another language) must not write items of that type: it would leave their entries
///   stale; nor may a program whose type lacks one of them.
///
/// `types` lists every item type the store has held, each added in the same atomic write as
/// the first item of its type. A program index declared for a type the store may already
/// hold items of (a program that gained an index) is `"building": true` until
/// [`Store::build_indexes`](crate::Store::build_indexes) has given those items their entries: queries of it are refused
/// meanwhile, never answered without them. A record without `types` (written by an earlier
/// release) may hold any type.
///
/// A store without the record (a backend the store did not create, such as a fresh
/// in-memory one) has no declared indexes.
///
/// ```
/// use sortpath_store::{IndexDecl, StoreConfig};
/// let config = StoreConfig::new(vec![IndexDecl::field("by_n", "post", "n", "/posts-0")]);
/// let json = config.to_json();
/// assert_eq!(StoreConfig::from_json(&json).unwrap(), config);
/// assert!(String::from_utf8(json).unwrap().contains(r#""kind":"field""#));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Every item type the store has held (`"types": [...]`), recorded in the same atomic
    /// write as the first item of each type. `None` (no `"types"` in the record: a store
    /// written before types were recorded) means any type may have items. A program index
    /// declared for a type the store may hold items of starts out
    /// [`building`](IndexDecl::building).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<String>>,
    /// Where the root item of each group whose first namespace is listed sorts among the
    /// group's items (`"roots": {"customer": "last", "org": {"before": "user"}}`; absent:
    /// every root item first, as its key path sorts). Chosen when the store is created,
    /// before it holds items, and never changed afterwards: every process of a store must
    /// look for a root item in the same place. See [`RootPlace`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub roots: BTreeMap<String, RootPlace>,
}

impl std::str::FromStr for RootPlace {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<RootPlace, ConfigError> {
        let place = match s {
            "first" => RootPlace::First,
            "last" => RootPlace::Last,
            _ => match s.strip_prefix("before:") {
                Some(namespace) => RootPlace::Before(namespace.to_owned()),
                None => {
                    return Err(ConfigError::invalid(format!(
                        "invalid root place {s:?}: expected first, last or before:NAMESPACE"
                    )))
                }
            },
        };
        place.validate()?;
        Ok(place)
    }
}

impl RootPlace {
    /// Checks a [`Before`](RootPlace::Before)'s namespace.
    fn validate(&self) -> Result<(), ConfigError> {
        match self {
            RootPlace::Before(namespace) if !is_namespace(namespace) => {
                Err(ConfigError::invalid(format!(
                    "invalid namespace {namespace:?} in root place before:{namespace}: expected \
                 one or more ASCII letters or '_'"
                )))
            }
            _ => Ok(()),
        }
    }
}

/// Where `roots` place the root item `group` (a one-component path): by the namespace of
/// its component, first where they say nothing.
pub(crate) fn place_of<'a>(
    roots: &'a BTreeMap<String, RootPlace>,
    group: &KeyPath,
) -> &'a RootPlace {
    group
        .segments()
        .next()
        .and_then(|first| roots.get(first.namespace()))
        .unwrap_or(&RootPlace::First)
}

impl Default for StoreConfig {
    /// An empty configuration: no indexes, no types held (what a store without a
    /// configuration record and without items has).
    ///
    /// ```
    /// let config = sortpath_store::StoreConfig::default();
    /// assert_eq!(config.types, Some(vec![]));
    /// ```
    fn default() -> Self {
        StoreConfig::new(Vec::new())
    }
}

/// One declared index; see [`StoreConfig`].
///
/// ```
/// let decl = sortpath_store::IndexDecl::program("by_score", "player");
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
    /// Whether the index is still being built (`"building": true`; absent means `false`):
    /// declared for a type the store already held items of, which the index does not have
    /// yet. Writes keep it up to date; queries of it are refused
    /// ([`ListError::IndexBuilding`](crate::ListError::IndexBuilding)) until
    /// [`Store::build_indexes`](crate::Store::build_indexes) has added the items written before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub building: bool,
}

/// How an index's entries are computed.
///
/// ```
/// use sortpath_store::IndexSource;
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
    /// assert!(!sortpath_store::IndexSource::Program.is_data());
    /// ```
    pub fn is_data(&self) -> bool {
        matches!(self, IndexSource::Field { .. })
    }
}

impl IndexDecl {
    /// An index on a field; see [`IndexSource::Field`].
    ///
    /// ```
    /// let decl = sortpath_store::IndexDecl::field("by_updated", "ticket", "updated_at", "/board-{board}");
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
            building: false,
        }
    }

    /// An index a program computes; see [`IndexSource::Program`].
    ///
    /// ```
    /// let decl = sortpath_store::IndexDecl::program("by_score", "player");
    /// assert!(!decl.source.is_data());
    /// ```
    pub fn program(name: &str, item_type: &str) -> IndexDecl {
        IndexDecl {
            name: name.to_owned(),
            item_type: item_type.to_owned(),
            source: IndexSource::Program,
            building: false,
        }
    }
}

impl StoreConfig {
    /// A configuration declaring `indexes`.
    ///
    /// ```
    /// assert!(sortpath_store::StoreConfig::new(vec![]).indexes.is_empty());
    /// ```
    pub fn new(indexes: Vec<IndexDecl>) -> StoreConfig {
        StoreConfig {
            format: CONFIG_FORMAT,
            indexes,
            group_versions: false,
            types: Some(Vec::new()),
            roots: BTreeMap::new(),
        }
        .with_format()
    }

    /// This configuration with the root items of the groups of namespace `namespace`
    /// placed at `place` (see [`StoreConfig::roots`]).
    ///
    /// ```
    /// use sortpath_store::{RootPlace, StoreConfig};
    /// let config = StoreConfig::new(vec![]).with_root("customer", RootPlace::Last);
    /// assert_eq!(config.to_json(), br#"{"format":2,"indexes":[],"types":[],"roots":{"customer":"last"}}"#);
    /// assert_eq!(StoreConfig::from_json(&config.to_json()).unwrap(), config);
    /// ```
    pub fn with_root(mut self, namespace: &str, place: RootPlace) -> StoreConfig {
        self.roots.insert(namespace.to_owned(), place);
        self.with_format()
    }

    /// Where the root items of groups of namespace `namespace` sort.
    ///
    /// ```
    /// use sortpath_store::{RootPlace, StoreConfig};
    /// let config = StoreConfig::new(vec![]).with_root("customer", RootPlace::Last);
    /// assert_eq!(config.root_place("customer"), &RootPlace::Last);
    /// assert_eq!(config.root_place("order"), &RootPlace::First);
    /// ```
    pub fn root_place(&self, namespace: &str) -> &RootPlace {
        self.roots.get(namespace).unwrap_or(&RootPlace::First)
    }

    /// The oldest format that holds this configuration (see [`CONFIG_FORMAT`]).
    fn format_needed(&self) -> u32 {
        if self.roots.is_empty() {
            1
        } else {
            2
        }
    }

    fn with_format(mut self) -> StoreConfig {
        self.format = self.format_needed();
        self
    }

    /// This configuration with group version counters kept or not (see
    /// [`StoreConfig::group_versions`]).
    ///
    /// ```
    /// let config = sortpath_store::StoreConfig::new(vec![]).with_group_versions(true);
    /// assert_eq!(config.to_json(), br#"{"format":1,"indexes":[],"group_versions":true,"types":[]}"#);
    /// ```
    pub fn with_group_versions(mut self, on: bool) -> StoreConfig {
        self.group_versions = on;
        self
    }

    /// The record's value: JSON.
    ///
    /// ```
    /// let json = sortpath_store::StoreConfig::default().to_json();
    /// assert_eq!(json, br#"{"format":1,"indexes":[],"types":[]}"#);
    /// ```
    pub fn to_json(&self) -> Vec<u8> {
        let config = self.clone().with_format();
        serde_json::to_vec(&config).expect("a configuration serializes")
    }

    /// Reads a record's value; says what is wrong with one this release cannot use.
    ///
    /// ```
    /// use sortpath_store::StoreConfig;
    /// assert!(StoreConfig::from_json(br#"{"format":1,"indexes":[]}"#).is_ok());
    /// let newer = StoreConfig::from_json(br#"{"format":3,"indexes":[]}"#).unwrap_err();
    /// assert!(newer.to_string().contains("format 3"), "{newer}");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<StoreConfig, ConfigError> {
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let format = serde_json::from_slice::<Format>(bytes)?.format;
        if !(1..=CONFIG_FORMAT).contains(&format) {
            return Err(ConfigError::invalid(format!(
                "configuration format {format}, this release reads formats 1 to {CONFIG_FORMAT} \
                 (written by another release of sortpath-store)"
            )));
        }
        let config: StoreConfig = serde_json::from_slice(bytes)?;
        if format < config.format_needed() {
            return Err(ConfigError::invalid(format!(
                "configuration format {format} with root placements, which need format {}",
                config.format_needed()
            )));
        }
        config.validate()?;
        Ok(config.with_format())
    }

    /// Checks names: valid, and each declared once per item type.
    ///
    /// ```
    /// use sortpath_store::{IndexDecl, StoreConfig};
    /// let twice = StoreConfig::new(vec![IndexDecl::program("a", "t"), IndexDecl::program("a", "t")]);
    /// assert!(twice.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (namespace, place) in &self.roots {
            if !is_namespace(namespace) {
                return Err(ConfigError::invalid(format!(
                    "invalid namespace {namespace:?} for a root place: expected one or more \
                     ASCII letters or '_'"
                )));
            }
            place.validate()?;
        }
        for (i, decl) in self.indexes.iter().enumerate() {
            if !is_valid_index_name(&decl.name) {
                return Err(ConfigError::invalid(format!(
                    "invalid index name {:?}: expected 1 to 64 ASCII letters, digits or '_'",
                    decl.name
                )));
            }
            if self.indexes[..i]
                .iter()
                .any(|d| d.name == decl.name && d.item_type == decl.item_type)
            {
                return Err(ConfigError::invalid(format!(
                    "index {} of type {} is declared twice",
                    decl.name, decl.item_type
                )));
            }
        }
        Ok(())
    }

    /// The indexes declared for items of type `item_type`.
    ///
    /// ```
    /// use sortpath_store::{IndexDecl, StoreConfig};
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
    /// let (key, record) = sortpath_store::StoreConfig::default().record();
    /// assert_eq!(key, sortpath_store::layout::config_key());
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

/// The write that puts `config` in place of the configuration record `old` (read just
/// before), at the next version and only if the record is still `old` (or still absent):
/// of two writers that read the same record, one wins.
pub(crate) fn config_put(config: &StoreConfig, old: Option<&Record>) -> Write {
    Write::Put {
        key: config_key(),
        record: Record {
            value: config.to_json(),
            version: old.map_or(1, |r| r.version + 1),
        },
        condition: old.map_or(Condition::NotExists, |r| {
            Condition::VersionEquals(r.version)
        }),
    }
}

/// The declarations a typed write needs: its type's program indexes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TypeIndexes {
    pub item_type: &'static str,
    /// The Rust type: two types may share an item type name and compute different indexes
    /// (two versions of a program's type in one process), so each is checked on its own.
    pub id: std::any::TypeId,
    pub names: fn() -> Vec<&'static str>,
}

impl TypeIndexes {
    /// For items of `T` (whose program may compute no index at all).
    pub(crate) fn of<T: Item>() -> TypeIndexes {
        TypeIndexes {
            item_type: T::TYPE,
            id: std::any::TypeId::of::<T>(),
            names: || T::INDEXES.iter().map(|i| i.name).collect(),
        }
    }
}

impl StoreConfig {
    /// The configuration of a store without a configuration record: an empty one, whose
    /// held types are unknown if the store `has_items` (written by a release that kept no
    /// record for stores without indexes).
    pub(crate) fn unrecorded(has_items: bool) -> StoreConfig {
        let mut config = StoreConfig::default();
        if has_items {
            config.types = None;
        }
        config
    }

    /// The configuration in the store's record `value`; an error that says the record
    /// cannot be used if it does not read.
    pub(crate) fn from_record(value: &[u8]) -> Result<StoreConfig, ConfigError> {
        StoreConfig::from_json(value).map_err(|e| ConfigError::Stored(Box::new(e)))
    }

    /// Whether the store may hold items of `item_type`.
    pub(crate) fn may_hold(&self, item_type: &str) -> bool {
        self.types
            .as_ref()
            .is_none_or(|types| types.iter().any(|t| t == item_type))
    }

    /// This configuration with what a commit adds to it, or `None` if it adds nothing:
    /// the program indexes of `programs` that it lacks (building if the store may hold items
    /// of their type already) and the item types `written` that it does not list. An index
    /// declared as data for the type already counts: the program claims to compute the same.
    ///
    /// A write (`for_write`) of a program that does not compute an index the configuration
    /// declares for its type (a program index, or one declared as data, whose entries the
    /// CLI and the table clients compute from field values) is refused: it would leave that
    /// index without the item.
    pub(crate) fn declaring(
        &self,
        programs: &[TypeIndexes],
        written: &[&str],
        for_write: bool,
    ) -> Result<Option<StoreConfig>, ConfigError> {
        let mut config = self.clone();
        for t in programs {
            let held = self.may_hold(t.item_type);
            for name in (t.names)() {
                if !config.indexes_of(t.item_type).any(|d| d.name == name) {
                    let mut decl = IndexDecl::program(name, t.item_type);
                    decl.building = held;
                    config.indexes.push(decl);
                }
            }
        }
        // Each program is checked against what the commit declares, others' additions
        // included (two versions of a type written together).
        for t in programs.iter().filter(|_| for_write) {
            let names = (t.names)();
            let (data, program): (Vec<&IndexDecl>, Vec<&IndexDecl>) = config
                .indexes_of(t.item_type)
                .filter(|d| !names.contains(&d.name.as_str()))
                .partition(|d| d.source.is_data());
            if !program.is_empty() {
                let missing: Vec<&str> = program.iter().map(|d| d.name.as_str()).collect();
                return Err(ConfigError::invalid(format!(
                    "the store declares the program indexes {missing:?} for items of type {}, \
                     which this program's type does not compute (it computes {names:?}): its \
                     writes would leave them without their items; write with a program that \
                     computes them, or drop them first (Store::drop_index)",
                    t.item_type
                )));
            }
            if !data.is_empty() {
                let missing: Vec<&str> = data.iter().map(|d| d.name.as_str()).collect();
                return Err(ConfigError::invalid(format!(
                    "the store declares the indexes {missing:?} for items of type {} from their \
                     field values (as data, for `sortpath db` and the table clients), and this \
                     program's type does not compute them (it computes {names:?}): its writes \
                     would leave them without their items; give the type indexes of these names \
                     (Item::INDEXES) that compute the same keys, or write the items with their \
                     index keys (Store::put_raw)",
                    t.item_type
                )));
            }
        }
        if let Some(types) = &mut config.types {
            for &t in written {
                if !types.iter().any(|held| held == t) {
                    types.push(t.to_owned());
                }
            }
        }
        Ok((config != *self).then_some(config))
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
            r#"{"format":1,"indexes":[{"name":"by_updated","type":"ticket","kind":"field","field":"updated_at","group":"/board-{board}"},{"name":"by_score","type":"player","kind":"program"}],"types":[]}"#
        );
        assert_eq!(StoreConfig::from_json(json.as_bytes()).unwrap(), config);
    }

    #[test]
    fn bad_records_say_what_is_wrong() {
        let err = |json: &str| {
            StoreConfig::from_json(json.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert!(err("[]").contains("not a sortpath store configuration"));
        assert!(
            err(r#"{"format":1,"indexes":[{"name":"a","type":"t","kind":"sql"}]}"#)
                .contains("not a sortpath store configuration")
        );
        assert!(
            err(r#"{"format":1,"indexes":[{"name":"a b","type":"t","kind":"program"}]}"#)
                .contains("invalid index name")
        );
        assert!(err(r#"{"format":7,"indexes":[]}"#).contains("format 7"));
    }
}
