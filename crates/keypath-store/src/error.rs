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
    /// The item's key path changed in an update closure.
    #[error("update of {key} returned an item with another key path, {found}")]
    KeyChanged {
        /// The key path updated.
        key: KeyPath,
        /// The key path of the returned item.
        found: KeyPath,
    },
}

impl From<EnvelopeError> for StoreError {
    fn from(e: EnvelopeError) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}
