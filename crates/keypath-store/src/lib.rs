//! Item collections with secondary indexes over sorted key-value stores.
//!
//! Contents:
//! - [`backend`]: the [`Backend`](backend::Backend) trait (an ordered byte map with atomic,
//!   conditional write batches) and its implementations: in-memory and redb (feature `redb`,
//!   on by default).
//! - [`conformance`] (feature `conformance`): the test suite every backend must pass.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;

/// Property-test case count: `KEYPATH_PROPTEST_CASES` if set; otherwise `release` in
/// optimized test builds and a twentieth of it in debug builds.
#[cfg(test)]
pub(crate) fn test_cases(release: u32) -> u32 {
    std::env::var("KEYPATH_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            (release / 20).max(64)
        } else {
            release
        })
}
