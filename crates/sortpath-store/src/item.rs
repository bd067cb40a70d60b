//! Items: user types that know their key path, and the raw form of stored items.

use serde::de::DeserializeOwned;
use serde::Serialize;
use sortpath::{path::PathError, KeyPath};

use crate::error::{DecodeError, EncodeError, InvalidKeyError, WriteError};

/// A secondary index of item type `T`: a name and a function from an item to its index key
/// path (`None` leaves the item out of the index: a sparse index).
///
/// The index key path's first component is the index's group (DynamoDB partition), so a
/// query of the index names it, as item queries name an item group. Entries with equal index
/// paths are ordered by the item's key path.
///
/// ```
/// use sortpath::KeyPath;
/// use sortpath_store::Index;
/// struct Ticket { id: u64, updated_at: u64 }
/// let by_updated: Index<Ticket> = Index::new(
///     "by_updated",
///     |t| Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?)),
/// );
/// let t = Ticket { id: 1, updated_at: 99 };
/// assert_eq!((by_updated.key)(&t).unwrap().unwrap().to_string(), "/tickets-0/updated-99");
/// ```
pub struct Index<T> {
    /// The index name: 1 to 64 ASCII letters, digits or `_`, unique per item type. Names are
    /// per store: item types that declare the same name write into one shared index (list
    /// it with `Store::query_index_raw`).
    pub name: &'static str,
    /// The item's index key path, or `None` to leave it out.
    pub key: fn(&T) -> Result<Option<KeyPath>, PathError>,
    /// What each entry holds besides its keys ([`Projection::KeysOnly`] unless set).
    pub projection: Projection,
    /// Who keeps the index ([`IndexMode::Exact`] unless set).
    pub mode: IndexMode,
}

impl<T> Index<T> {
    /// An index `name` with index key paths from `key`, entries holding keys only.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// use sortpath_store::{Index, Projection};
    /// struct Ticket { updated_at: u64 }
    /// const BY_UPDATED: Index<Ticket> =
    ///     Index::new("by_updated", |t| Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?)));
    /// assert_eq!(BY_UPDATED.projection, Projection::KeysOnly);
    /// ```
    pub const fn new(
        name: &'static str,
        key: fn(&T) -> Result<Option<KeyPath>, PathError>,
    ) -> Self {
        Index {
            name,
            key,
            projection: Projection::KeysOnly,
            mode: IndexMode::Exact,
        }
    }

    /// The same index with entries that hold `projection`.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// use sortpath_store::{Index, Projection};
    /// struct Ticket { updated_at: u64 }
    /// const BY_UPDATED: Index<Ticket> =
    ///     Index::new("by_updated", |t: &Ticket| Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?)))
    ///         .projecting(Projection::All);
    /// assert_eq!(BY_UPDATED.projection, Projection::All);
    /// ```
    pub const fn projecting(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }

    /// The same index kept by the table itself ([`IndexMode::Table`]): on DynamoDB a GSI,
    /// eventually consistent, with no entry written by the store; exact on backends that
    /// keep no indexes.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// use sortpath_store::{Index, IndexMode, Projection};
    /// struct Ticket { board: u64, updated_at: i64 }
    /// const BY_UPDATED: Index<Ticket> = Index::new("by_updated", |t: &Ticket| {
    ///     Ok(Some(KeyPath::new().push("board", t.board)?.push("updated", t.updated_at)?))
    /// })
    /// .projecting(Projection::All)
    /// .maintained_by_table();
    /// assert_eq!(BY_UPDATED.mode, IndexMode::Table);
    /// ```
    pub const fn maintained_by_table(mut self) -> Self {
        self.mode = IndexMode::Table;
        self
    }
}

/// Who keeps a secondary index.
///
/// - [`IndexMode::Exact`]: the store writes the index's entries in the same atomic batch as
///   their item, so an index query sees exactly the items as they are (strongly consistent
///   reads); a write that adds, moves or removes an index key is a transaction.
/// - [`IndexMode::Table`]: on a backend that keeps indexes itself
///   ([`Backend::maintained_indexes`](crate::backend::Backend::maintained_indexes): DynamoDB
///   with the index's GSI, see `DynamoDbBackend::create_table_with`), the item record
///   carries its index key and the table keeps the index: the store writes no entry, a
///   write of one item is one `PutItem`/`DeleteItem`, and an index query is one `Query` on
///   the GSI, eventually consistent (it may lag the last writes by a moment; asking it for
///   [`Consistency::Strong`](crate::backend::Consistency::Strong) is an error). Order is the
///   exact index's: the GSI's sort key is the exact entry's key. On backends that keep no
///   indexes (in-memory, redb, SlateDB) the index is exact.
///
/// A store on DynamoDB must agree with its table: writing an item whose type declares a
/// `Table` index the table has no GSI for, or an `Exact` index the table keeps as a GSI, is
/// an error ([`WriteError::Config`](crate::WriteError::Config)).
///
/// ```
/// assert_eq!(sortpath_store::IndexMode::default(), sortpath_store::IndexMode::Exact);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexMode {
    /// Entries written with their item, in one atomic batch.
    #[default]
    Exact,
    /// Kept by the table (a DynamoDB GSI), eventually consistent.
    Table,
}

/// What an index entry holds besides its keys, as DynamoDB's secondary index projections.
///
/// With [`Projection::KeysOnly`] an index query reads the entries, then each item (on
/// DynamoDB: a `Query`, then a `BatchGetItem` that rounds every item up to 4 KB), and a
/// write that keeps an item's index key leaves its entry alone. With [`Projection::All`]
/// each entry holds a copy of the item (its type and value), so an index query reads the
/// entries only (one `Query`), and every write of the item writes its entries too. Both
/// are exact: entries are written in the same atomic batch as their item.
///
/// ```
/// assert_eq!(sortpath_store::Projection::default(), sortpath_store::Projection::KeysOnly);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Projection {
    /// The index key path and the item's key path.
    #[default]
    KeysOnly,
    /// A copy of the whole item besides.
    All,
}

/// A user type stored in a store. Its key path is its identity. Its value is stored as
/// MessagePack (which, like JSON, has one null: `Some(None)` in an `Option<Option<T>>`
/// field reads back as `None`), compact by default: a struct is the list of its field
/// values in declaration order, without field names. To keep reading values written
/// earlier, add new fields only at the end, with `#[serde(default)]`, and never remove or
/// reorder fields; or set [`Item::SELF_DESCRIBING`] to store the names (as any writer that
/// reads items by field name, such as `sortpath db` or another language, needs). A value whose
/// compact form does not read back as itself (fields skipped with
/// `skip_serializing_if`, flattened maps) is stored with its names, whatever the setting.
///
/// ```
/// use sortpath::{path::PathError, KeyPath};
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct User { id: u64, name: String }
/// impl sortpath_store::Item for User {
///     const TYPE: &'static str = "user";
///     fn key_path(&self) -> Result<KeyPath, PathError> {
///         KeyPath::new().push("user", self.id)
///     }
/// }
/// ```
pub trait Item: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The item type's name, stored with every item (1 to 255 bytes): lists of mixed types
    /// come back as [`RawItem`]s that tell their type.
    const TYPE: &'static str;

    /// The secondary indexes of this type. Every write keeps them exact.
    const INDEXES: &'static [Index<Self>] = &[];

    /// Whether values are stored with their field names (self-describing MessagePack, as
    /// JSON has them) instead of compact: `false` by default. Readers of either form decode
    /// both, so a type can change this setting at any time.
    ///
    /// ```
    /// use sortpath::{path::PathError, KeyPath};
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Shared { id: u64, name: String }
    /// impl sortpath_store::Item for Shared {
    ///     const TYPE: &'static str = "shared";
    ///     const SELF_DESCRIBING: bool = true; // read by field name elsewhere
    ///     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("shared", self.id) }
    /// }
    /// let raw = sortpath_store::RawItem::of(&Shared { id: 1, name: "a".into() }).unwrap();
    /// let json: serde_json::Value = raw.decode().unwrap();
    /// assert_eq!(json["name"], "a");
    /// ```
    const SELF_DESCRIBING: bool = false;

    /// The item's key path. Its first component must have an ID (the group key).
    fn key_path(&self) -> Result<KeyPath, PathError>;
}

/// An item read from the store, with its key path and version.
///
/// ```
/// let v = sortpath_store::Versioned { key: "/a-1".parse().unwrap(), version: 3, item: 7u8 };
/// assert_eq!(v.version, 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versioned<T> {
    /// The key path.
    pub key: KeyPath,
    /// The item's version: changed by every write of the item (see
    /// [`StoreConfig::group_versions`](crate::StoreConfig::group_versions) for how it is
    /// chosen); what `PutMode::IfVersion` compares.
    pub version: u64,
    /// The item.
    pub item: T,
}

/// An item of any type as stored: decode it with [`RawItem::decode`] once its type is known
/// (e.g. by [`RawItem::item_type`] or by its key path's namespaces).
///
/// ```
/// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "thing", 1, &serde_json::json!({"x": 1})).unwrap();
/// assert_eq!(raw.item_type(), "thing");
/// let back: serde_json::Value = raw.decode().unwrap();
/// assert_eq!(back["x"], 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawItem {
    pub(crate) key: KeyPath,
    pub(crate) item_type: String,
    pub(crate) version: u64,
    pub(crate) payload: Vec<u8>,
}

impl RawItem {
    /// Encodes `value` as a raw item (version is informational; the store assigns versions).
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.decode::<u32>().unwrap(), 5);
    /// ```
    pub fn new<T: Serialize + ?Sized>(
        key: KeyPath,
        item_type: &str,
        version: u64,
        value: &T,
    ) -> Result<RawItem, EncodeError> {
        let payload = encode_value(&key, value)?;
        Ok(RawItem {
            key,
            item_type: item_type.to_owned(),
            version,
            payload,
        })
    }

    /// The raw item an item of type `T` is stored as (version 0: the store assigns
    /// versions), encoded as the store encodes it.
    ///
    /// ```
    /// use sortpath::{path::PathError, KeyPath};
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct User { id: u64, name: String }
    /// impl sortpath_store::Item for User {
    ///     const TYPE: &'static str = "user";
    ///     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// }
    /// let raw = sortpath_store::RawItem::of(&User { id: 7, name: "Ann".into() }).unwrap();
    /// assert_eq!(raw.key().to_string(), "/user-7");
    /// // Compact: the field values in order, no names.
    /// assert_eq!(raw.decode::<serde_json::Value>().unwrap(), serde_json::json!([7, "Ann"]));
    /// assert_eq!(raw.decode_item::<User>().unwrap().item.name, "Ann");
    /// ```
    pub fn of<T: Item>(item: &T) -> Result<RawItem, WriteError> {
        let key = item
            .key_path()
            .map_err(|e| InvalidKeyError::path(format!("(key path of a {})", T::TYPE), e))?;
        let payload = encode_item(&key, item)?;
        Ok(RawItem {
            key,
            item_type: T::TYPE.to_owned(),
            version: 0,
            payload,
        })
    }

    /// A raw item from an encoded payload as stored (what [`RawItem::payload`] returns and
    /// [`check_store`](crate::check::check_store) hands over), not checked until decoded.
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// let again = sortpath_store::RawItem::from_payload(raw.key().clone(), "n", 0, raw.payload().to_vec());
    /// assert_eq!(again.decode::<u32>().unwrap(), 5);
    /// ```
    pub fn from_payload(key: KeyPath, item_type: &str, version: u64, payload: Vec<u8>) -> RawItem {
        RawItem {
            key,
            item_type: item_type.to_owned(),
            version,
            payload,
        }
    }

    /// The key path.
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.key().to_string(), "/a-1");
    /// ```
    pub fn key(&self) -> &KeyPath {
        &self.key
    }

    /// The stored item type name.
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.item_type(), "n");
    /// ```
    pub fn item_type(&self) -> &str {
        &self.item_type
    }

    /// The version.
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 4, &5u32).unwrap();
    /// assert_eq!(raw.version(), 4);
    /// ```
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The encoded value (MessagePack: compact or with field names, see [`Item`]).
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.payload(), [5]);
    /// ```
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// Decodes the value as `T` (any self-describing target works, e.g. `serde_json::Value`).
    ///
    /// ```
    /// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &"hi").unwrap();
    /// assert!(raw.decode::<u64>().is_err());
    /// ```
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, DecodeError> {
        decode_payload(&self.key, self.item_type.as_bytes(), &self.payload)
    }

    /// Decodes as item type `T`, checking the stored type name first.
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// let raw = sortpath_store::RawItem::new("/user-1".parse().unwrap(), "post", 0, &User { id: 1 }).unwrap();
    /// assert!(raw.decode_item::<User>().is_err()); // stored as a "post"
    /// ```
    pub fn decode_item<T: Item>(&self) -> Result<Versioned<T>, DecodeError> {
        versioned_from_parts(
            self.key.clone(),
            self.version,
            self.item_type.as_bytes(),
            &self.payload,
        )
    }

    /// Like [`RawItem::decode_item`], consuming the raw item (no copy of the key).
    pub(crate) fn into_item<T: Item>(self) -> Result<Versioned<T>, DecodeError> {
        versioned_from_parts(
            self.key,
            self.version,
            self.item_type.as_bytes(),
            &self.payload,
        )
    }
}

/// The payload of the item at `key`, stored as `item_type`, decoded as `T`: by the lean
/// reader, which gives what rmp-serde gives where it answers, else by rmp-serde.
#[inline]
fn decode_payload<T: DeserializeOwned>(
    key: &KeyPath,
    item_type: &[u8],
    payload: &[u8],
) -> Result<T, DecodeError> {
    match crate::msgpack::from_slice(payload) {
        Ok(item) => Ok(item),
        Err(crate::msgpack::Declined) => decode_payload_rmp(key, item_type, payload),
    }
}

/// [`decode_payload`] by rmp-serde, whose value or error is the answer for every payload
/// the lean reader leaves to it.
#[inline(never)]
fn decode_payload_rmp<T: DeserializeOwned>(
    key: &KeyPath,
    item_type: &[u8],
    payload: &[u8],
) -> Result<T, DecodeError> {
    rmp_serde::from_slice(payload).map_err(|e| DecodeError {
        key: key.clone(),
        item_type: String::from_utf8_lossy(item_type).into_owned(),
        expected: std::any::type_name::<T>().to_owned(),
        source: Some(e.into()),
    })
}

/// The item at `key` as a `T`, from its stored parts: the type name (compared as bytes,
/// so it need not have been checked as UTF-8) must be `T::TYPE`.
#[inline(always)]
pub(crate) fn versioned_from_parts<T: Item>(
    key: KeyPath,
    version: u64,
    item_type: &[u8],
    payload: &[u8],
) -> Result<Versioned<T>, DecodeError> {
    if item_type != T::TYPE.as_bytes() {
        return Err(DecodeError {
            key,
            item_type: String::from_utf8_lossy(item_type).into_owned(),
            expected: T::TYPE.to_owned(),
            source: None,
        });
    }
    let item = decode_payload(&key, item_type, payload)?;
    Ok(Versioned { key, version, item })
}

/// Encodes an item as the store keeps it: compact MessagePack (structs as lists of field
/// values), unless the type asks for field names or its compact form does not read back
/// as the same value (checked by decoding it and encoding the result again: a field
/// skipped by `skip_serializing_if` shifts the ones after it, and the names then keep them
/// apart).
pub(crate) fn encode_item<T: Item>(key: &KeyPath, item: &T) -> Result<Vec<u8>, EncodeError> {
    if T::SELF_DESCRIBING {
        return encode_value(key, item);
    }
    let compact = rmp_serde::to_vec(item).map_err(|e| EncodeError {
        key: key.clone(),
        source: e.into(),
    })?;
    // The check runs the type's own `Deserialize`: if that panics, the value is stored with
    // its names and the panic is the reader's to meet, as without the check.
    let reads_back = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rmp_serde::from_slice::<T>(&compact)
            .ok()
            .and_then(|back| rmp_serde::to_vec(&back).ok())
            .is_some_and(|again| again == compact)
    }))
    .unwrap_or(false);
    if reads_back {
        Ok(compact)
    } else {
        encode_value(key, item)
    }
}

/// Encodes a value as MessagePack with field names (self-describing).
pub(crate) fn encode_value<T: Serialize + ?Sized>(
    key: &KeyPath,
    value: &T,
) -> Result<Vec<u8>, EncodeError> {
    rmp_serde::to_vec_named(value).map_err(|e| EncodeError {
        key: key.clone(),
        source: e.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Plain {
        id: u64,
        name: String,
        tags: Vec<String>,
    }
    impl Item for Plain {
        const TYPE: &'static str = "plain";
        fn key_path(&self) -> Result<KeyPath, PathError> {
            KeyPath::new().push("plain", self.id)
        }
    }

    /// A field skipped when empty would shift the compact list: stored with names.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Skips {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<u64>,
        #[serde(default)]
        n: u64,
    }
    impl Item for Skips {
        const TYPE: &'static str = "skips";
        fn key_path(&self) -> Result<KeyPath, PathError> {
            KeyPath::new().push("skips", self.id)
        }
    }

    #[test]
    fn plain_structs_are_stored_compact_and_read_back() {
        let p = Plain {
            id: 3,
            name: "Ann".into(),
            tags: vec!["a".into()],
        };
        let raw = RawItem::of(&p).unwrap();
        // fixarray of 3: no field names anywhere.
        assert_eq!(raw.payload()[0], 0x93);
        assert!(!raw.payload().windows(4).any(|w| w == b"name"));
        assert_eq!(raw.decode_item::<Plain>().unwrap().item, p);
        let named = RawItem::new(raw.key().clone(), "plain", 0, &p).unwrap();
        assert!(named.payload().len() > raw.payload().len());
        // Either form reads as the type.
        assert_eq!(named.decode_item::<Plain>().unwrap().item, p);
    }

    #[test]
    fn values_whose_compact_form_misreads_keep_their_names() {
        let s = Skips {
            id: 1,
            note: None,
            n: 7,
        };
        let raw = RawItem::of(&s).unwrap();
        // Compact would be [1, 7], read back as note = Some(7), n = 0: stored as a map.
        assert_eq!(raw.payload()[0] & 0xF0, 0x80, "{:02x?}", raw.payload());
        assert_eq!(raw.decode_item::<Skips>().unwrap().item, s);
        let full = Skips {
            id: 1,
            note: Some(2),
            n: 7,
        };
        let raw = RawItem::of(&full).unwrap();
        assert_eq!(raw.payload()[0], 0x93);
        assert_eq!(raw.decode_item::<Skips>().unwrap().item, full);
    }
}
