//! The conformance suite every [`Backend`] must pass.
//!
//! A backend's tests call [`run`] with a factory that makes a fresh, empty backend; each
//! check gets its own. Checks also keep to their own group keys, so a factory may hand out
//! the same shared backend (e.g. one DynamoDB table) every time. A failing check panics with
//! a message naming the check and what differed.
//!
//! ```
//! use sortpath_store::backend::memory::MemoryBackend;
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! sortpath_store::conformance::run(|| async { MemoryBackend::new() }).await;
//! # });
//! ```
//!
//! Beyond the backend contract, it holds the store-level checkers that any backend can be
//! pointed at: [`model`] (random operations against a store and an in-memory model),
//! [`faulty`] (a backend wrapper that fails on purpose) and [`check_consistency`] (every
//! index entry points at an item that has it, and every item has its entries).

mod concurrency;
pub mod faulty;
pub mod model;
mod reads;
mod support;
mod writes;

use std::future::Future;
use std::sync::Arc;

use crate::backend::Backend;

use concurrency::concurrency;
use reads::{binary_key_order, cursor_resumption, get_and_batch_get, scans_match_model};
use writes::{
    conditions, duplicate_keys_rejected, failed_batch_writes_nothing, large_values,
    read_then_write_applies_the_plan,
};

/// Runs every check against backends made by `new_backend`.
///
/// ```
/// # use sortpath_store::backend::memory::MemoryBackend;
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// sortpath_store::conformance::run(|| async { MemoryBackend::new() }).await;
/// # });
/// ```
pub async fn run<B, F, Fut>(mut new_backend: F)
where
    B: Backend,
    F: FnMut() -> Fut,
    Fut: Future<Output = B>,
{
    get_and_batch_get(&new_backend().await).await;
    binary_key_order(&new_backend().await).await;
    scans_match_model(&new_backend().await).await;
    cursor_resumption(&new_backend().await).await;
    conditions(&new_backend().await).await;
    failed_batch_writes_nothing(&new_backend().await).await;
    read_then_write_applies_the_plan(&new_backend().await).await;
    duplicate_keys_rejected(&new_backend().await).await;
    large_values(&new_backend().await).await;
    concurrency(Arc::new(new_backend().await)).await;
}

#[cfg(feature = "redb")]
pub use crate::check::dump_redb;
pub use crate::check::{check_consistency, dump_groups, Census};
