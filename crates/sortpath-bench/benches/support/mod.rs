//! The codec benchmark's key, shared by `benches/codec.rs` and `examples/icount.rs` so that
//! the instruction counts are of exactly the value criterion times.

use serde::{Deserialize, Serialize};

/// The key: (String "user", [u8;16], String "post", u64 1234, String "comment",
/// u64 1678901234, String "react", u64 42).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    sortpath::codec::Encode,
    sortpath::codec::Decode,
    storekey::Encode,
    storekey::Decode,
    storekey::BorrowDecode,
)]
pub struct Key {
    pub user: String,
    pub id: [u8; 16],
    pub post: String,
    pub post_id: u64,
    pub comment: String,
    pub comment_id: u64,
    pub react: String,
    pub react_id: u64,
}

/// The same key borrowing its strings, for zero-copy decoding.
#[derive(Debug, PartialEq, Deserialize)]
pub struct KeyRef<'a> {
    pub user: &'a str,
    pub id: [u8; 16],
    pub post: &'a str,
    pub post_id: u64,
    pub comment: &'a str,
    pub comment_id: u64,
    pub react: &'a str,
    pub react_id: u64,
}

/// The key every codec encodes and decodes in the benchmarks.
pub fn key() -> Key {
    Key {
        user: "user".into(),
        // A UUID (v4) with no zero bytes, as typical IDs are.
        id: 0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8u128.to_be_bytes(),
        post: "post".into(),
        post_id: 1234,
        comment: "comment".into(),
        comment_id: 1_678_901_234,
        react: "react".into(),
        react_id: 42,
    }
}
