//! Items: user types that know their key path, and the raw form of stored items.

use keypath::{path::PathError, KeyPath};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::StoreError;

/// A secondary index of item type `T`: a name and a function from an item to its index key
/// path (`None` leaves the item out of the index: a sparse index).
///
/// The index key path's first component is the index's group (DynamoDB partition), so a
/// query of the index names it, as item queries name an item group. Entries with equal index
/// paths are ordered by the item's key path.
///
/// ```
/// use keypath::KeyPath;
/// use keypath_store::Index;
/// struct Ticket { id: u64, updated_at: u64 }
/// let by_updated: Index<Ticket> = Index {
///     name: "by_updated",
///     key: |t| Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?)),
/// };
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
}

/// A user type stored in a store. Its key path is its identity. Its value is stored as
/// MessagePack with field names, which, like JSON, has one null: `Some(None)` in an
/// `Option<Option<T>>` field reads back as `None`.
///
/// ```
/// use keypath::{path::PathError, KeyPath};
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct User { id: u64, name: String }
/// impl keypath_store::Item for User {
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

    /// The item's key path. Its first component must have an ID (the group key).
    fn key_path(&self) -> Result<KeyPath, PathError>;
}

/// An item read from the store, with its key path and version.
///
/// ```
/// let v = keypath_store::Versioned { key: "/a-1".parse().unwrap(), version: 3, item: 7u8 };
/// assert_eq!(v.version, 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versioned<T> {
    /// The key path.
    pub key: KeyPath,
    /// The item's version: the value of its group's counter when it was last written.
    pub version: u64,
    /// The item.
    pub item: T,
}

/// An item of any type as stored: decode it with [`RawItem::decode`] once its type is known
/// (e.g. by [`RawItem::item_type`] or by its key path's namespaces).
///
/// ```
/// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "thing", 1, &serde_json::json!({"x": 1})).unwrap();
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
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.decode::<u32>().unwrap(), 5);
    /// ```
    pub fn new<T: Serialize + ?Sized>(
        key: KeyPath,
        item_type: &str,
        version: u64,
        value: &T,
    ) -> Result<RawItem, StoreError> {
        let payload = encode_value(&key, value)?;
        Ok(RawItem {
            key,
            item_type: item_type.to_owned(),
            version,
            payload,
        })
    }

    /// A raw item from an encoded payload as stored (what [`RawItem::payload`] returns and
    /// [`check_store`](crate::check::check_store) hands over), not checked until decoded.
    ///
    /// ```
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// let again = keypath_store::RawItem::from_payload(raw.key().clone(), "n", 0, raw.payload().to_vec());
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
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.key().to_string(), "/a-1");
    /// ```
    pub fn key(&self) -> &KeyPath {
        &self.key
    }

    /// The stored item type name.
    ///
    /// ```
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.item_type(), "n");
    /// ```
    pub fn item_type(&self) -> &str {
        &self.item_type
    }

    /// The version.
    ///
    /// ```
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 4, &5u32).unwrap();
    /// assert_eq!(raw.version(), 4);
    /// ```
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The encoded value (MessagePack with field names).
    ///
    /// ```
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &5u32).unwrap();
    /// assert_eq!(raw.payload(), [5]);
    /// ```
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// Decodes the value as `T` (any self-describing target works, e.g. `serde_json::Value`).
    ///
    /// ```
    /// let raw = keypath_store::RawItem::new("/a-1".parse().unwrap(), "n", 0, &"hi").unwrap();
    /// assert!(raw.decode::<u64>().is_err());
    /// ```
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, StoreError> {
        decode_payload(&self.key, self.item_type.as_bytes(), &self.payload)
    }

    /// Decodes as item type `T`, checking the stored type name first.
    ///
    /// ```
    /// # use keypath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl keypath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// let raw = keypath_store::RawItem::new("/user-1".parse().unwrap(), "post", 0, &User { id: 1 }).unwrap();
    /// assert!(raw.decode_item::<User>().is_err()); // stored as a "post"
    /// ```
    pub fn decode_item<T: Item>(&self) -> Result<Versioned<T>, StoreError> {
        versioned_from_parts(
            self.key.clone(),
            self.version,
            self.item_type.as_bytes(),
            &self.payload,
        )
    }

    /// Like [`RawItem::decode_item`], consuming the raw item (no copy of the key).
    pub(crate) fn into_item<T: Item>(self) -> Result<Versioned<T>, StoreError> {
        versioned_from_parts(
            self.key,
            self.version,
            self.item_type.as_bytes(),
            &self.payload,
        )
    }
}

/// The payload of the item at `key`, stored as `item_type`, decoded as `T`.
fn decode_payload<T: DeserializeOwned>(
    key: &KeyPath,
    item_type: &[u8],
    payload: &[u8],
) -> Result<T, StoreError> {
    rmp_serde::from_slice(payload).map_err(|e| StoreError::Decode {
        key: key.clone(),
        item_type: String::from_utf8_lossy(item_type).into_owned(),
        expected: std::any::type_name::<T>().to_owned(),
        message: e.to_string(),
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
) -> Result<Versioned<T>, StoreError> {
    if item_type != T::TYPE.as_bytes() {
        return Err(StoreError::Decode {
            key,
            item_type: String::from_utf8_lossy(item_type).into_owned(),
            expected: T::TYPE.to_owned(),
            message: "the item types differ".to_owned(),
        });
    }
    let item = decode_payload(&key, item_type, payload)?;
    Ok(Versioned { key, version, item })
}

/// Encodes a value as MessagePack with field names (self-describing).
pub(crate) fn encode_value<T: Serialize + ?Sized>(
    key: &KeyPath,
    value: &T,
) -> Result<Vec<u8>, StoreError> {
    rmp_serde::to_vec_named(value).map_err(|e| StoreError::Encode {
        key: key.clone(),
        message: e.to_string(),
    })
}
