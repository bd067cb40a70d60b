//! sortpath: typed key paths and order-preserving encodings for sorted key-value stores.
//!
//! Sorted stores (DynamoDB, RocksDB, redb, fjall, FoundationDB, SlateDB) compare keys as raw
//! bytes. sortpath turns typed, hierarchical keys into bytes whose order *is* the logical
//! order: integers numerically (negatives first), strings by UTF-8, parents before children.
//!
//! Contents:
//! - [`path`]: typed key paths (`/user-1/post-42`). A [`KeyPath`] holds its binary form,
//!   whose byte order is its logical order, and has a text form; [`KeyPathRef`] views encoded
//!   bytes without allocating; [`KeyRange`] gives prefix and range queries. The format is
//!   specified in [`spec`] (`docs/FORMAT.md`).
//! - [`I65`]: the sort-byte integer encoding every format shares.
#![cfg_attr(
    feature = "serde",
    doc = " - [`codec`]: order-preserving serde codec for any value, with [`codec::Desc`] fields."
)]
#![cfg_attr(
    not(feature = "serde"),
    doc = " - `codec` (feature `serde`): order-preserving serde codec for any value, with `codec::Desc` fields."
)]
//! - [`idgen`]: sortable unique IDs (KSUID, ULID, UUIDv7) with monotonic generators.
//! - [`time`]: timestamps as key fields, oldest or latest first, at a declared precision.
//! - [`spatial`]: Z-order and Hilbert keys; bounding boxes as a few key ranges.
//! - [`strkey`]: string-safe sortable forms for stores whose keys must stay strings.
//! - `collate` (feature `collate`): locale-aware collation sort keys (ICU4X).
//!
//! The data-modeling guide, `docs/MODELING.md`, says when to use which.
//!
//! # One name per job
//!
//! Every byte encoding in the crate uses the same four names, and every direction the same
//! word:
//!
//! | job | name | returns |
//! | --- | --- | --- |
//! | encode into a new vector | `encode` | `Vec<u8>` |
//! | append the encoding to a buffer | `encode_into(.., &mut Vec<u8>)` | nothing (or `Result<()>`) |
//! | decode all of the input | `decode` | the value; bytes after it are an error |
//! | decode from the start of the input | `decode_prefix` | the value and the bytes it took |
//! | key order | [`Order`]`::{Ascending, Descending}` | |
//!
//! They are [`KeyPath::encode`] / [`KeyPath::encode_into`] / [`KeyPath::decode`] (and the
//! borrowed [`KeyPathRef::decode`]), [`I65::encode`] / [`I65::encode_into`] / [`I65::decode`] /
//! [`I65::decode_prefix`], [`time::Timestamp::encode`] / `encode_into` / `decode` /
//! `decode_prefix` (with a [`time::Precision`] and an [`Order`]), and the codec's
//! derive path `codec::{encode, encode_into, decode, decode_prefix}`. The codec's serde path
//! keeps serde's own names for the same four jobs: `codec::{to_vec, to_vec_into, from_slice,
//! from_slice_prefix}` (and `to_vec_ordered` / `from_slice_ordered` with an [`Order`]);
//! `codec::Desc<T>` makes one field descending, and `time::LatestFirst` is a timestamp that
//! sorts newest first (as a key path ID or a codec field; its key is
//! `Timestamp::encode(Precision::Nanos, Order::Descending)`). sortpath-store scans and lists
//! take the same [`Order`]. Text forms are `Display` and `FromStr`;
//! string keys for stores whose keys must stay strings ([`strkey`]) are written by a function
//! named for the form (`strkey::int_key`) and read by `parse_` and that name.

// One `unsafe` block, in `codec::native` (a `String` from bytes made ASCII by a mask);
// everything else is safe code.
#![deny(unsafe_code)]
#![warn(missing_docs)]

// The derive macros name the crate `::sortpath`, also in its own tests.
#[cfg(all(test, feature = "derive"))]
extern crate self as sortpath;

mod int;
mod order;
pub mod path;

#[cfg(feature = "serde")]
pub mod codec;

#[cfg(feature = "collate")]
pub mod collate;
pub mod idgen;
pub mod spatial;
pub mod strkey;
pub mod time;

pub use int::{IntDecodeError, IntRangeError, I65};
pub use order::Order;
pub use path::{Id, KeyPath, KeyPathRef, KeyRange};

/// Named byte constants of the formats, each defined once, one module per format.
pub mod consts {
    /// The sort-byte integer encoding ([`crate::I65`]).
    pub mod int {
        pub use crate::int::{MAX_ENCODED_LEN, SORT_BYTE_MAX, SORT_BYTE_MIN, SORT_BYTE_ZERO};
    }
    /// The key path binary and text forms ([`crate::KeyPath`]).
    pub mod path {
        pub use crate::path::consts::*;
    }
}

/// Property-test case count: `SORTPATH_PROPTEST_CASES` if set; otherwise `release` in
/// optimized test builds (the README's test command) and a twentieth of it in debug builds.
#[cfg(test)]
pub(crate) fn test_cases(release: u32) -> u32 {
    std::env::var("SORTPATH_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            (release / 20).max(256)
        } else {
            release
        })
}

/// The key path format, byte by byte: the specification other implementations follow
/// (`docs/FORMAT.md` in the repository; this module holds nothing else).
#[doc = ""]
#[doc = include_str!("../FORMAT.md")]
pub mod spec {}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

// The data-modeling guide's examples (docs/MODELING.md) use the store too: they are
// doctests of sortpath-store.
