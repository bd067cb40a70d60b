//! Size limits, checked before anything is written.

/// Size limits on what the store writes, checked before anything is written.
///
/// The defaults are DynamoDB's, so a store stays portable between backends: partition keys
/// up to 2048 bytes, sort keys up to 1024 bytes, items up to 400 KB. Limits apply to the
/// backend keys the store writes, including its counter and index entry keys. One gap:
/// DynamoDB counts an item's keys and attribute names in its 400 KB, and `max_value` counts
/// the value alone, so a value within a few dozen bytes (plus its key lengths) of
/// `max_value` passes these limits and is refused by the DynamoDB backend, with
/// [`crate::backend::BackendError::LimitExceeded`] and before anything is sent.
///
/// ```
/// let mut limits = sortpath_store::Limits::default();
/// limits.max_value = 1 << 20;
/// assert_eq!(limits.max_sort_key, 1024);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Longest group (partition) key, in bytes.
    pub max_group_key: usize,
    /// Longest sort key, in bytes.
    pub max_sort_key: usize,
    /// Largest stored value (the item with its type and index list), in bytes.
    pub max_value: usize,
}

/// How deep arrays and maps may nest in an item's value: the store refuses a deeper value
/// ([`WriteError::BadValue`](crate::WriteError::BadValue)), since some reader of a store
/// would not read it back (this crate's decoder follows 1,024 levels, the TypeScript and
/// Python table clients 512). Not a [`Limits`] field: a store's readers, not its writer,
/// set it.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store, WriteError, MAX_VALUE_NESTING};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// let deep = (0..=MAX_VALUE_NESTING).fold(serde_json::json!(1), |v, _| serde_json::json!([v]));
/// let path = "/doc-1".parse().unwrap();
/// let err = store.put_raw(&path, "doc", &deep, vec![], PutMode::Upsert).await.unwrap_err();
/// assert!(matches!(err, WriteError::BadValue { .. }));
/// assert!(store.get_raw(&path).await.unwrap().is_none());
/// # });
/// ```
pub const MAX_VALUE_NESTING: usize = 512;

/// DynamoDB's partition key limit.
pub const DYNAMODB_MAX_PARTITION_KEY: usize = 2048;
/// DynamoDB's sort key limit.
pub const DYNAMODB_MAX_SORT_KEY: usize = 1024;
/// DynamoDB's item size limit (400 KB).
pub const DYNAMODB_MAX_ITEM: usize = 400 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_group_key: DYNAMODB_MAX_PARTITION_KEY,
            max_sort_key: DYNAMODB_MAX_SORT_KEY,
            max_value: DYNAMODB_MAX_ITEM,
        }
    }
}

impl Limits {
    /// Limits with every field given.
    ///
    /// ```
    /// let l = sortpath_store::Limits::new(100, 50, 1000);
    /// assert_eq!((l.max_group_key, l.max_sort_key, l.max_value), (100, 50, 1000));
    /// ```
    pub fn new(max_group_key: usize, max_sort_key: usize, max_value: usize) -> Self {
        Limits {
            max_group_key,
            max_sort_key,
            max_value,
        }
    }
}
