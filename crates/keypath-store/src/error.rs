//! The store's error type.

use keypath::KeyPath;

use crate::backend::BackendError;
use crate::cursor::CursorError;
use crate::envelope::EnvelopeError;

/// Everything a store operation can fail with.
///
/// ```
/// use keypath_store::StoreError;
/// let e = StoreError::AlreadyExists { key: "/user-1".parse().unwrap() };
/// assert_eq!(e.to_string(), "an item already exists at /user-1");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The backend failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// An only-if-absent put found an item.
    #[error("an item already exists at {key}")]
    AlreadyExists {
        /// The key path.
        key: KeyPath,
    },
    /// An only-if-version put or delete found another version (or no item: `found` is `None`).
    #[error("item {key} is {}, expected version {expected}",
        found.map_or_else(|| "absent".to_owned(), |v| format!("at version {v}")))]
    VersionMismatch {
        /// The key path.
        key: KeyPath,
        /// The version required.
        expected: u64,
        /// The version found, `None` if absent.
        found: Option<u64>,
    },
    /// A transaction read something that changed before it committed; nothing was written.
    #[error("transaction conflict: {key} changed after it was read; nothing was written")]
    Conflict {
        /// The key path that changed.
        key: KeyPath,
    },
    /// A write kept losing races with other writers of its group.
    #[error(
        "gave up after {attempts} attempts: the group of {key} is written too often concurrently"
    )]
    Contention {
        /// A key path of the write.
        key: KeyPath,
        /// How many times it was tried.
        attempts: u32,
    },
    /// A key path cannot be stored (e.g. its first component has no ID, so it has no group).
    #[error("key path {key} cannot be used here: {reason}")]
    InvalidKey {
        /// The key path, in text form.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A key or value exceeds a configured [`crate::Limits`] value; nothing was written.
    #[error("{what} of {key} is {found} bytes, the limit is {limit}; nothing was written")]
    TooLarge {
        /// Which part (`"group key"`, `"sort key"`, `"value"`, or an index entry's).
        what: String,
        /// The item's key path.
        key: KeyPath,
        /// The size.
        found: usize,
        /// The limit.
        limit: usize,
    },
    /// An index name that is not well-formed.
    #[error("invalid index name {name:?}: expected 1 to 64 ASCII letters, digits or '_'")]
    InvalidIndexName {
        /// The name.
        name: String,
    },
    /// A typed index query ([`crate::Store::query_index`]) of an index the item type does not
    /// declare: a misspelt name, or an index written with `put_raw`, which
    /// [`crate::Store::query_index_raw`] reads.
    #[error("item type {item_type} declares no index {name:?} (its indexes: {declared:?})")]
    UnknownIndex {
        /// The name queried.
        name: String,
        /// The item type.
        item_type: String,
        /// The indexes the type declares.
        declared: Vec<String>,
    },
    /// An index query of an index that does not hold every item of its type yet: declared
    /// for a type the store already held items of ([`IndexDecl::building`](crate::IndexDecl::building)),
    /// or computed by the querying program but not declared in a store that holds items of
    /// its type. [`Store::build_indexes`](crate::Store::build_indexes) adds the items.
    #[error(
        "index {name} of item type {item_type} is not built: items of that type written \
         before it was declared are not in it yet; build it (Store::build_indexes for that \
         type) before querying it"
    )]
    IndexBuilding {
        /// The index queried.
        name: String,
        /// The item type it is declared for.
        item_type: String,
    },
    /// The store's configuration record cannot be used (see [`StoreConfig`](crate::StoreConfig)),
    /// or a change to it is invalid.
    #[error("store configuration: {0}")]
    Config(String),
    /// The configuration declares indexes of this item type that a program computes, and
    /// this write cannot compute them: writing it would leave their entries stale.
    #[error("items of type {item_type} are indexed by a program (indexes {indexes:?}); write {key} with that program")]
    IndexedByProgram {
        /// The item's key path.
        key: KeyPath,
        /// The item type.
        item_type: String,
        /// The indexes the program computes.
        indexes: Vec<String>,
    },
    /// A query whose bounds are not under its group, or other malformed query.
    #[error("invalid query: {0}")]
    InvalidQuery(String),
    /// A cursor that does not fit the query.
    #[error(transparent)]
    Cursor(#[from] CursorError),
    /// The item could not be encoded.
    #[error("cannot encode item {key}: {message}")]
    Encode {
        /// The item's key path.
        key: KeyPath,
        /// The encoder's message.
        message: String,
    },
    /// A stored item could not be decoded as the requested type.
    #[error("cannot decode item {key} (type {item_type}) as {expected}: {message}")]
    Decode {
        /// The item's key path.
        key: KeyPath,
        /// The stored item type.
        item_type: String,
        /// The requested type.
        expected: String,
        /// The decoder's message.
        message: String,
    },
    /// Stored bytes are not a valid item (the store file is damaged or was written by
    /// something else).
    #[error("{0}")]
    Corrupt(String),
    /// A record where an item belongs that is not an item this store wrote (another tool's
    /// record in a shared DynamoDB table, or damage): named by its key, as key path text
    /// when it reads as one, and as the base64 of its group and sort keys.
    #[error("the record at {} is not an item this store wrote: {reason}", .record.describe())]
    NotAnItem {
        /// Where the record is.
        record: ForeignRecord,
        /// What is wrong with it.
        reason: String,
    },
    /// A group version was asked of a store that keeps none (created without
    /// [`StoreConfig::group_versions`](crate::StoreConfig::group_versions)).
    #[error("this store keeps no group versions (it was created without group_versions)")]
    GroupVersionsOff,
    /// The item's key path changed in an update closure.
    #[error("update of {key} returned an item with another key path, {found}")]
    KeyChanged {
        /// The key path updated.
        key: KeyPath,
        /// The key path of the returned item.
        found: KeyPath,
    },
}

/// Where a record that is not an item is: its backend keys, and its key path if they read
/// as one.
///
/// ```
/// let r = keypath_store::ForeignRecord::new(b"a\x01\x08\x01".to_vec(), vec![0x00]);
/// assert!(r.describe().contains("base64"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ForeignRecord {
    /// The group (partition) key.
    pub group: Vec<u8>,
    /// The sort key.
    pub sort: Vec<u8>,
    /// The key path the keys form, if they form one.
    pub key: Option<KeyPath>,
}

impl ForeignRecord {
    /// The record at `group`/`sort`.
    ///
    /// ```
    /// let r = keypath_store::ForeignRecord::new(vec![1], vec![2]);
    /// assert_eq!(r.key, None);
    /// ```
    pub fn new(group: Vec<u8>, sort: Vec<u8>) -> ForeignRecord {
        let key = crate::layout::item_path_at(&group, &sort).ok();
        ForeignRecord { group, sort, key }
    }

    /// `KEY (group G, sort key S, base64)`, or without the key path where there is none.
    ///
    /// ```
    /// let path: keypath::KeyPath = "/a-1".parse().unwrap();
    /// let (g, s) = path.split_group().unwrap();
    /// let text = keypath_store::ForeignRecord::new(g, s).describe();
    /// assert_eq!(text, "/a-1 (group YQEIAQAIEQ==, sort key AA==, base64)");
    /// ```
    pub fn describe(&self) -> String {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD;
        let keys = format!(
            "group {}, sort key {}, base64",
            b64.encode(&self.group),
            b64.encode(&self.sort)
        );
        match &self.key {
            Some(key) => format!("{key} ({keys})"),
            None => format!("a key that is not a key path ({keys})"),
        }
    }
}

impl From<EnvelopeError> for StoreError {
    fn from(e: EnvelopeError) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}
