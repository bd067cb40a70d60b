//! Item collections with secondary indexes over sorted key-value stores.
//!
//! A [`Store`] keeps user types ([`Item`]s) under typed key paths (`/user-1/post-42`), in a
//! [`Backend`](backend::Backend): an ordered byte map with atomic conditional batches. The
//! first key path component is the *group* (DynamoDB's partition key); lists run inside one
//! group, forwards or backwards, with limits and resumable [`Cursor`]s. Secondary
//! [`Index`]es are kept exact in the same atomic write as their items.
//!
//! Contents:
//! - [`Store`], [`Item`], [`Index`], [`Query`], [`Page`], [`Transaction`], [`Limits`].
//! - `blocking` (feature `redb`): the embedded store without an async runtime.
//! - [`backend`]: the [`Backend`](backend::Backend) trait and its implementations:
//!   in-memory, redb (feature `redb`, on by default) and DynamoDB (feature `dynamodb`:
//!   `backend::dynamodb`, one table, items as native attributes, indexes exact in the same
//!   `TransactWriteItems`) and SlateDB (feature `slatedb`: `backend::slatedb`, an LSM tree
//!   in an object store or a local directory; docs/slatedb.md).
//! - `conformance` (feature `conformance`): the test suite every backend must pass.
//! - The layout of items, counters and index entries in the backend: [`layout`].
//!
//! Errors are per operation, each holding only what its operation can fail with: reads
//! ([`Store::get`] and its kin) return [`GetError`], lists and index queries [`ListError`],
//! writes, configuration changes and index builds [`WriteError`], a transaction's commit
//! [`CommitError`] (a conflict, or a write's error). The failures they share are types of
//! their own, with their sources: [`InvalidKeyError`], [`ConfigError`], [`CorruptError`],
//! [`NotAnItemError`], [`DecodeError`], [`EncodeError`] and the backend's
//! [`BackendError`](backend::BackendError). [`StoreError`] holds any of them, so `?` works
//! in a function that returns it.
//!
//! The store's methods are `async` and run on Tokio: the redb backend answers short reads
//! where they are awaited and commits on Tokio's blocking pool (see
//! `backend::redb::Threads`). Any Tokio runtime will do for the in-memory and redb
//! backends, with or without its timer (writes that lose a race pause on the blocking pool);
//! the DynamoDB backend needs a runtime with the timer (`enable_all`): it pauses between
//! retries with Tokio's timer, as the AWS SDK does. The embedded store is also callable
//! without a runtime: `blocking::Store` (feature `redb`), the same operations as plain
//! functions running on the calling thread.
//!
// The example opens a redb store (`Store::open`): compiled and run only with `redb`.
#![cfg_attr(feature = "redb", doc = "```")]
#![cfg_attr(not(feature = "redb"), doc = "```ignore")]
//! use sortpath::{path::PathError, KeyPath};
//! use sortpath_store::{Index, Item, Query, Store};
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Ticket { id: u64, updated_at: u64 }
//! impl Item for Ticket {
//!     const TYPE: &'static str = "ticket";
//!     const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
//!         Ok(Some(KeyPath::new().push("tickets", 0u64)?.push("updated", t.updated_at)?))
//!     })];
//!     fn key_path(&self) -> Result<KeyPath, PathError> {
//!         KeyPath::new().push("ticket", self.id)
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir()?;
//! let store = Store::create(dir.path()).await?;
//! store.put(&Ticket { id: 1, updated_at: 50 }).await?;
//! store.put(&Ticket { id: 2, updated_at: 70 }).await?;
//! store.put(&Ticket { id: 1, updated_at: 90 }).await?; // moves ticket 1 in the index
//! let latest = Query::prefix(&"/tickets-0".parse()?)?.reverse();
//! let page = store.query_index::<Ticket>("by_updated", &latest).await?;
//! let order: Vec<(u64, u64)> = page.items.iter().map(|t| (t.item.id, t.item.updated_at)).collect();
//! assert_eq!(order, [(1, 90), (2, 70)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
mod backoff;
#[cfg(feature = "redb")]
pub mod blocking;
pub mod check;
mod config;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
mod cursor;
mod envelope;
mod error;
mod item;
pub mod layout;
mod limits;
mod msgpack;
mod query;
mod store;
mod txn;
mod value_check;

pub use config::{IndexDecl, IndexSource, StoreConfig, CONFIG_FORMAT};
pub use cursor::{Cursor, CursorError};
pub use envelope::EnvelopeError;
pub use error::{
    CommitError, ConfigError, CorruptError, DecodeError, EncodeError, ForeignRecord, GetError,
    InvalidKeyError, KeyReason, ListError, NotAnItemError, StoreError, ValueError, WriteError,
};
pub use item::{Index, IndexMode, Item, Projection, RawItem, Versioned};
pub use layout::RootPlace;
pub use limits::{Limits, MAX_VALUE_NESTING};
pub use query::{Page, Query};
#[cfg(feature = "redb")]
pub use store::Builder;
pub use store::{PutMode, Store, CONFIG_REFRESH};
pub use txn::Transaction;
pub use value_check::ValueProblem;

/// The data-modeling guide's Rust examples (docs/MODELING.md), compiled and run as
/// doctests: they use sortpath (with `collate`, enabled for this crate's tests) and the
/// embedded store.
#[cfg(all(doctest, feature = "redb"))]
#[doc = include_str!("../../../docs/MODELING.md")]
pub struct ModelingGuideDoctests;

/// Property-test case count: `SORTPATH_PROPTEST_CASES` if set; otherwise `release` in
/// optimized test builds and a twentieth of it in debug builds.
#[cfg(test)]
pub(crate) fn test_cases(release: u32) -> u32 {
    std::env::var("SORTPATH_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            (release / 20).max(64)
        } else {
            release
        })
}
