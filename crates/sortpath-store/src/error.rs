//! The store's errors: one type per operation, as each can fail, and one umbrella.
//!
//! Reads ([`Store::get`](crate::Store::get) and its kin) fail with [`GetError`], lists and
//! index queries with [`ListError`], writes with [`WriteError`], a transaction's commit with
//! [`CommitError`]; [`StoreError`] holds every case (each of the others converts into it,
//! so `?` works in a function returning it). The failures they share are their own types:
//! [`InvalidKeyError`], [`ConfigError`], [`CorruptError`], [`NotAnItemError`],
//! [`DecodeError`], [`EncodeError`] and the backend's [`BackendError`].

use sortpath::path::PathError;
use sortpath::KeyPath;

use crate::backend::BackendError;
use crate::cursor::CursorError;
use crate::envelope::EnvelopeError;

/// A key path that cannot be stored or read where it was given: which one, and why.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, GetError, Store};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// let err = store.get_raw(&"/user".parse().unwrap()).await.unwrap_err();
/// let GetError::InvalidKey(e) = err else { panic!("{err:?}") };
/// assert_eq!(e.key, "/user");
/// # });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key path {key} cannot be used here: {reason}")]
#[non_exhaustive]
pub struct InvalidKeyError {
    /// The key path, in text form (with what it is, for an index's key path).
    pub key: String,
    /// What is wrong.
    pub reason: KeyReason,
}

impl InvalidKeyError {
    /// The key path `key` breaks the store's rule `rule`.
    ///
    /// ```
    /// let e = sortpath_store::InvalidKeyError::rule("/a", "an item's last component needs an ID");
    /// assert_eq!(e.to_string(), "key path /a cannot be used here: an item's last component needs an ID");
    /// ```
    pub fn rule(key: impl Into<String>, rule: impl Into<String>) -> InvalidKeyError {
        InvalidKeyError {
            key: key.into(),
            reason: KeyReason::Rule(rule.into()),
        }
    }

    /// The key path `key` failed with the key path error `e`.
    ///
    /// ```
    /// let e = sortpath::KeyPath::new().push("bad-name", 1u64).unwrap_err();
    /// let e = sortpath_store::InvalidKeyError::path("/x-1", e);
    /// assert!(matches!(e.reason, sortpath_store::KeyReason::Path(_)));
    /// ```
    pub fn path(key: impl Into<String>, e: PathError) -> InvalidKeyError {
        InvalidKeyError {
            key: key.into(),
            reason: KeyReason::Path(e),
        }
    }
}

/// Why a key path cannot be used: the key path error of the operation, or a rule of the store.
///
/// ```
/// let r = sortpath_store::KeyReason::Rule("no ID".into());
/// assert_eq!(r.to_string(), "no ID");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyReason {
    /// Building or splitting the key path failed (e.g. it has no group key).
    #[error(transparent)]
    Path(#[from] PathError),
    /// The key path breaks one of the store's rules (which, in words).
    #[error("{0}")]
    Rule(String),
}

/// The store's configuration record, or a change to it, cannot be used (see
/// [`StoreConfig`](crate::StoreConfig)).
///
/// ```
/// let e = sortpath_store::StoreConfig::from_json(b"{}").unwrap_err();
/// assert!(matches!(e, sortpath_store::ConfigError::Json(_)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The configuration breaks one of its rules (which, in words), or the store's state
    /// does not allow the change.
    #[error("store configuration: {0}")]
    Invalid(String),
    /// The JSON is not a sortpath store configuration.
    #[error("not a sortpath store configuration: {0}")]
    Json(#[from] serde_json::Error),
    /// The configuration record the store holds cannot be used: damaged, or written by
    /// another release.
    #[error(
        "the store's configuration record cannot be used (damaged, or written by another release): {0}"
    )]
    Stored(Box<ConfigError>),
    /// The store holds items but no configuration record, and a write would have given it
    /// one: its record may have been lost (damage), and a new one would silently drop the
    /// indexes and settings it declared. Nothing was written. A store an earlier release
    /// wrote without a record is taken over explicitly with
    /// [`Store::create_config_over_items`](crate::Store::create_config_over_items)
    /// (`sortpath db init --over-items`).
    ///
    /// ```
    /// let e = sortpath_store::ConfigError::Unrecorded;
    /// assert!(e.to_string().contains("holds items but no configuration record"));
    /// ```
    #[error(
        "store configuration: the store holds items but no configuration record, so nothing \
         was written: its record may have been lost to damage, and writing a new one would \
         drop the indexes and settings it declared. If the record was lost, restore the store \
         from a backup or an export (or take its items over as below, export them, and import \
         them into a new store created with its indexes); if an earlier release wrote the \
         store without a record, record a configuration for its items explicitly with \
         Store::create_config_over_items (`sortpath db init --over-items`)"
    )]
    Unrecorded,
    /// Other processes changed the configuration during each attempt to change it.
    #[error("store configuration: it changed under {attempts} attempts to change it")]
    Contended {
        /// How many times the change was tried.
        attempts: u32,
    },
}

impl ConfigError {
    pub(crate) fn invalid(reason: impl Into<String>) -> ConfigError {
        ConfigError::Invalid(reason.into())
    }
}

/// Stored bytes that the store cannot read: an envelope or an index entry that is not what
/// the store writes (the store file is damaged, or something else wrote it).
///
/// ```
/// let e = sortpath_store::CorruptError::Envelope(sortpath_store::EnvelopeError {
///     offset: 0, expected: "envelope format 01", found: "07".into() });
/// assert!(e.to_string().contains("envelope format 01"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CorruptError {
    /// An item's envelope.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
    /// A record's key is not a key path (nor one of the store's own keys).
    #[error("its key is not a key path: {0}")]
    Key(sortpath::path::DecodeError),
    /// An index entry (its value, its sort key or the key paths in them).
    #[error("stored index entry is corrupt: {0}")]
    Entry(#[from] crate::layout::EntryError),
}

/// A record where an item belongs that is not an item this store wrote (another tool's
/// record in a shared DynamoDB table, or damage): named by its key, as key path text when
/// it reads as one, and as the base64 of its group and sort keys.
///
/// ```
/// let e = sortpath_store::NotAnItemError {
///     record: Box::new(sortpath_store::ForeignRecord::new(vec![1], vec![2])),
///     reason: sortpath_store::CorruptError::Entry(sortpath_store::layout::EntryError::ItemType),
/// };
/// assert!(e.to_string().contains("is not an item this store wrote"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the record at {} is not an item this store wrote: {reason}", .record.describe())]
pub struct NotAnItemError {
    /// Where the record is.
    pub record: Box<ForeignRecord>,
    /// What is wrong with it.
    pub reason: CorruptError,
}

/// An item's value could not be encoded.
///
/// ```
/// struct Unwritable;
/// impl serde::Serialize for Unwritable {
///     fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
///         Err(serde::ser::Error::custom("not today"))
///     }
/// }
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store, WriteError};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// let path: sortpath::KeyPath = "/odd-1".parse().unwrap();
/// let err = store.put_raw(&path, "odd", &Unwritable, vec![], PutMode::Upsert).await.unwrap_err();
/// let WriteError::Encode(e) = err else { panic!("{err:?}") };
/// assert_eq!(e.key, path);
/// assert!(e.to_string().contains("not today"));
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[error("cannot encode item {key}: {source}")]
#[non_exhaustive]
pub struct EncodeError {
    /// The item's key path.
    pub key: KeyPath,
    /// The encoder's error.
    pub source: ValueError,
}

/// A stored item could not be decoded as the requested type.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, Store};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// let path: sortpath::KeyPath = "/note-1".parse().unwrap();
/// store.put_raw(&path, "note", "hello", vec![], sortpath_store::PutMode::Upsert).await.unwrap();
/// let raw = store.get_raw(&path).await.unwrap().unwrap();
/// let err = raw.decode::<u64>().unwrap_err();
/// assert_eq!(err.key, path);
/// assert!(err.source.is_some());
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[error("cannot decode item {key} (type {item_type}) as {expected}: {}",
    .source.as_ref().map_or_else(|| "the item types differ".to_owned(), |e| e.to_string()))]
#[non_exhaustive]
pub struct DecodeError {
    /// The item's key path.
    pub key: KeyPath,
    /// The stored item type.
    pub item_type: String,
    /// The requested type.
    pub expected: String,
    /// The decoder's error; `None` when the stored item type is not the requested one.
    pub source: Option<ValueError>,
}

/// The MessagePack encoder's or decoder's error for an item's value.
///
/// ```
/// let raw = sortpath_store::RawItem::new("/a-1".parse().unwrap(), "a", 1, "text").unwrap();
/// let e = raw.decode::<u64>().unwrap_err().source.unwrap();
/// assert!(!e.to_string().is_empty());
/// ```
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ValueError(Box<ValueErrorKind>);

#[derive(Debug, thiserror::Error)]
enum ValueErrorKind {
    #[error(transparent)]
    Encode(#[from] rmp_serde::encode::Error),
    #[error(transparent)]
    Decode(#[from] rmp_serde::decode::Error),
}

impl From<rmp_serde::encode::Error> for ValueError {
    fn from(e: rmp_serde::encode::Error) -> Self {
        ValueError(Box::new(e.into()))
    }
}

impl From<rmp_serde::decode::Error> for ValueError {
    fn from(e: rmp_serde::decode::Error) -> Self {
        ValueError(Box::new(e.into()))
    }
}

/// Defines an operation's error enum: the shared failures as tuple variants, then its own.
macro_rules! operation_error {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $shared:ident($leaf:ty), )*
        }
        own {
            $($own:tt)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, thiserror::Error)]
        #[non_exhaustive]
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[error(transparent)]
                $shared(#[from] $leaf),
            )*
            $($own)*
        }

        impl From<EnvelopeError> for $name {
            fn from(e: EnvelopeError) -> Self {
                $name::from(CorruptError::Envelope(e))
            }
        }
    };
}

operation_error! {
    /// What reading items can fail with: [`Store::get`](crate::Store::get),
    /// [`Store::get_raw`](crate::Store::get_raw), [`Store::batch_get`](crate::Store::batch_get),
    /// [`Store::group_version`](crate::Store::group_version), [`Store::config`](crate::Store::config),
    /// [`Transaction::get`](crate::Transaction::get).
    ///
    /// ```
    /// use sortpath_store::{backend::memory::MemoryBackend, GetError, Store};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// let err = store.group_version(&"/a-1".parse().unwrap()).await.unwrap_err();
    /// assert!(matches!(err, GetError::GroupVersionsOff));
    /// # });
    /// ```
    GetError {
        /// The backend failed.
        Backend(BackendError),
        /// A key path that cannot be an item's.
        InvalidKey(InvalidKeyError),
        /// The store's configuration record cannot be used.
        Config(ConfigError),
        /// Stored bytes the store cannot read.
        Corrupt(CorruptError),
        /// A record where the item belongs that is not an item this store wrote.
        NotAnItem(NotAnItemError),
        /// The item is not of the requested type, or its value does not decode as it.
        Decode(DecodeError),
    }
    own {
        /// A group version was asked of a store that keeps none (created without
        /// [`StoreConfig::group_versions`](crate::StoreConfig::group_versions)).
        #[error("this store keeps no group versions (it was created without group_versions)")]
        GroupVersionsOff,
    }
}

operation_error! {
    /// What listing items and querying indexes can fail with: [`Store::list`](crate::Store::list),
    /// [`Store::list_raw`](crate::Store::list_raw), [`Store::query_index`](crate::Store::query_index),
    /// [`Store::query_index_raw`](crate::Store::query_index_raw), and the
    /// [`Query`](crate::Query) constructors.
    ///
    /// ```
    /// use sortpath_store::{ListError, Query};
    /// let q = Query::prefix(&"/a-1".parse().unwrap()).unwrap();
    /// let err = q.gte(&"/b-2".parse().unwrap()).unwrap_err();
    /// assert!(matches!(err, ListError::InvalidQuery(_)));
    /// ```
    ListError {
        /// The backend failed.
        Backend(BackendError),
        /// A key path the query cannot use.
        InvalidKey(InvalidKeyError),
        /// The store's configuration record cannot be used.
        Config(ConfigError),
        /// Stored bytes the store cannot read.
        Corrupt(CorruptError),
        /// A record among the listed ones that is not an item this store wrote.
        NotAnItem(NotAnItemError),
        /// A listed item is not of the requested type, or its value does not decode as it.
        Decode(DecodeError),
        /// A cursor that does not fit the query.
        Cursor(CursorError),
    }
    own {
        /// A query whose bounds are not under its group, or other malformed query (what, in
        /// words).
        #[error("invalid query: {0}")]
        InvalidQuery(String),
        /// An index name that is not well-formed.
        #[error("invalid index name {name:?}: expected 1 to 64 ASCII letters, digits or '_'")]
        InvalidIndexName {
            /// The name.
            name: String,
        },
        /// A typed index query ([`crate::Store::query_index`]) of an index the item type does
        /// not declare: a misspelt name, or an index written with `put_raw`, which
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
        /// for a type the store already held items of
        /// ([`IndexDecl::building`](crate::IndexDecl::building)), or computed by the querying
        /// program but not declared in a store that holds items of its type.
        /// [`Store::build_indexes`](crate::Store::build_indexes) adds the items.
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
    }
}

operation_error! {
    /// What writing items can fail with: [`Store::put`](crate::Store::put),
    /// [`Store::put_with`](crate::Store::put_with), [`Store::put_raw`](crate::Store::put_raw),
    /// [`Store::update`](crate::Store::update), [`Store::delete`](crate::Store::delete),
    /// [`Store::delete_if_version`](crate::Store::delete_if_version), and staging a write in a
    /// [`Transaction`](crate::Transaction).
    ///
    /// ```
    /// # use sortpath::{path::PathError, KeyPath};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: u64 }
    /// # impl sortpath_store::Item for User {
    /// #     const TYPE: &'static str = "user";
    /// #     fn key_path(&self) -> Result<KeyPath, PathError> { KeyPath::new().push("user", self.id) }
    /// # }
    /// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store, WriteError};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// store.put(&User { id: 1 }).await.unwrap();
    /// let err = store.put_with(&User { id: 1 }, PutMode::IfAbsent).await.unwrap_err();
    /// assert!(matches!(err, WriteError::AlreadyExists { .. }));
    /// # });
    /// ```
    WriteError {
        /// The backend failed.
        Backend(BackendError),
        /// A key path (the item's or an index's) that cannot be stored.
        InvalidKey(InvalidKeyError),
        /// The store's configuration record cannot be used, or forbids the write.
        Config(ConfigError),
        /// Stored bytes the store cannot read (the item replaced, its entries).
        Corrupt(CorruptError),
        /// The record the write would replace is not an item this store wrote.
        NotAnItem(NotAnItemError),
        /// The item an update reads is not of its type, or does not decode as it.
        Decode(DecodeError),
        /// The item could not be encoded.
        Encode(EncodeError),
    }
    own {
        /// An only-if-absent put found an item.
        #[error("an item already exists at {key}")]
        AlreadyExists {
            /// The key path.
            key: KeyPath,
        },
        /// An only-if-version put or delete found another version (or no item: `found` is
        /// `None`).
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
        /// A value the store does not keep, nested deeper than
        /// [`MAX_VALUE_NESTING`](crate::MAX_VALUE_NESTING) or (given as encoded bytes) not
        /// one MessagePack value; nothing was written.
        #[error("the value of {key} {problem}; nothing was written")]
        BadValue {
            /// The item's key path.
            key: KeyPath,
            /// What is wrong with it.
            problem: crate::ValueProblem,
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
        /// The item's key path changed in an update closure.
        #[error("update of {key} returned an item with another key path, {found}")]
        KeyChanged {
            /// The key path updated.
            key: KeyPath,
            /// The key path of the returned item.
            found: KeyPath,
        },
    }
}

/// What committing a [`Transaction`](crate::Transaction) can fail with: everything a write
/// can, and a conflict with a write made since the transaction read.
///
/// ```
/// use sortpath_store::{CommitError, WriteError};
/// let e = CommitError::from(WriteError::AlreadyExists { key: "/a-1".parse().unwrap() });
/// assert!(matches!(e, CommitError::Write(WriteError::AlreadyExists { .. })));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommitError {
    /// A read of the transaction changed before it committed; nothing was written.
    #[error("transaction conflict: {key} changed after it was read; nothing was written")]
    Conflict {
        /// The key path that changed.
        key: KeyPath,
    },
    /// A write of the transaction failed as [`WriteError`] says; nothing was written.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The failures every operation that reads stored records shares: what the helpers shared
/// by reads and writes return, flattened into each operation's error by `?`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Fault {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error(transparent)]
    InvalidKey(#[from] InvalidKeyError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Corrupt(#[from] CorruptError),
    #[error(transparent)]
    NotAnItem(#[from] NotAnItemError),
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl From<EnvelopeError> for Fault {
    fn from(e: EnvelopeError) -> Self {
        Fault::Corrupt(CorruptError::Envelope(e))
    }
}

macro_rules! from_fault {
    ($($name:ident),*) => {$(
        impl From<Fault> for $name {
            fn from(f: Fault) -> Self {
                match f {
                    Fault::Backend(e) => $name::Backend(e),
                    Fault::InvalidKey(e) => $name::InvalidKey(e),
                    Fault::Config(e) => $name::Config(e),
                    Fault::Corrupt(e) => $name::Corrupt(e),
                    Fault::NotAnItem(e) => $name::NotAnItem(e),
                    Fault::Decode(e) => $name::Decode(e),
                }
            }
        }
    )*};
}
from_fault!(GetError, ListError, WriteError);

impl From<Fault> for CommitError {
    fn from(f: Fault) -> Self {
        CommitError::Write(f.into())
    }
}

macro_rules! commit_from {
    ($($leaf:ty),*) => {$(
        impl From<$leaf> for CommitError {
            fn from(e: $leaf) -> Self {
                CommitError::Write(e.into())
            }
        }
    )*};
}
commit_from!(
    BackendError,
    InvalidKeyError,
    ConfigError,
    CorruptError,
    NotAnItemError,
    DecodeError,
    EncodeError,
    EnvelopeError
);

/// Every failure of every store operation: what [`GetError`], [`ListError`], [`WriteError`]
/// and [`CommitError`] hold, and what the operations on the whole store (configuration,
/// index builds) can fail with. Each operation's error converts into it, so `?` works in a
/// function returning it.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, Store, StoreError};
/// async fn first(store: &Store<MemoryBackend>) -> Result<bool, StoreError> {
///     let got = store.get_raw(&"/user-1".parse().unwrap()).await?; // a GetError
///     store.delete(&"/user-1".parse().unwrap()).await?; // a WriteError
///     Ok(got.is_some())
/// }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert!(!first(&Store::new(MemoryBackend::new())).await.unwrap());
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A read failed.
    #[error(transparent)]
    Get(#[from] GetError),
    /// A list or index query failed.
    #[error(transparent)]
    List(#[from] ListError),
    /// A write failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A transaction's commit failed.
    #[error(transparent)]
    Commit(#[from] CommitError),
    /// Decoding an item read earlier failed ([`RawItem::decode`](crate::RawItem::decode)).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Encoding a value failed ([`RawItem::new`](crate::RawItem::new)).
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// A configuration is invalid ([`StoreConfig::from_json`](crate::StoreConfig::from_json),
    /// [`StoreConfig::validate`](crate::StoreConfig::validate), a [`RootPlace`](crate::RootPlace) parsed).
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// Where a record that is not an item is: its backend keys, and its key path if they read
/// as one.
///
/// ```
/// let r = sortpath_store::ForeignRecord::new(b"a\x01\x08\x01".to_vec(), vec![0x00]);
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
    /// let r = sortpath_store::ForeignRecord::new(vec![1], vec![2]);
    /// assert_eq!(r.key, None);
    /// ```
    pub fn new(group: Vec<u8>, sort: Vec<u8>) -> ForeignRecord {
        let key = crate::layout::item_path_at(&group, &sort).ok();
        ForeignRecord { group, sort, key }
    }

    /// `KEY (group G, sort key S, base64)`, or without the key path where there is none.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1".parse().unwrap();
    /// let (g, s) = path.split_group().unwrap();
    /// let text = sortpath_store::ForeignRecord::new(g, s).describe();
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

impl StoreError {
    /// The backend's error, if the backend failed (the store itself did not refuse): the
    /// failures worth retrying or reporting as the storage engine's.
    ///
    /// ```
    /// use sortpath_store::{backend::BackendError, GetError, StoreError};
    /// let e = StoreError::from(GetError::from(BackendError::storage(std::io::Error::other("disk"))));
    /// assert!(e.backend().is_some());
    /// ```
    pub fn backend(&self) -> Option<&BackendError> {
        match self {
            StoreError::Get(GetError::Backend(e))
            | StoreError::List(ListError::Backend(e))
            | StoreError::Write(WriteError::Backend(e))
            | StoreError::Commit(CommitError::Write(WriteError::Backend(e))) => Some(e),
            _ => None,
        }
    }
}
