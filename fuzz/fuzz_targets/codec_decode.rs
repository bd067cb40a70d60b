//! Decodes arbitrary bytes as several types with `sortpath::codec`.
//!
//! Invariants checked: decoding never panics, loops or exhausts memory/stack, and any
//! bytes that decode completely are canonical: encoding the value again gives them back.
//! Types holding a `BTreeMap` are the exception (the map drops repeated keys and sorts the
//! rest), so for them the re-encoding must decode and re-encode to itself.

#![no_main]

use std::collections::BTreeMap;

use sortpath::codec::{from_slice, to_vec, Desc};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
enum Kind {
    Unit,
    Newtype(Desc<Option<u16>>),
    Tuple(i8, char),
    Struct { name: String, score: f32 },
}

#[derive(Serialize, Deserialize)]
struct Key {
    tenant: u64,
    name: Desc<String>,
    kind: Kind,
    tags: Vec<(String, Desc<i64>)>,
    id: [u8; 4],
}

/// A recursive type: nesting depth is driven by the input.
#[derive(Serialize, Deserialize)]
enum Tree {
    Leaf(u8),
    Node(Vec<Tree>),
    Down(Desc<Box<Tree>>),
}

type Mixed = (
    u128,
    i128,
    bool,
    Option<f64>,
    BTreeMap<u16, Desc<String>>,
    (),
);

/// The typed helpers: instants of the three time crates and a raw UUID.
#[derive(Serialize, Deserialize)]
struct Typed(
    #[serde(with = "sortpath::codec::jiff_timestamp")] jiff::Timestamp,
    #[serde(with = "sortpath::codec::time_utc")] time::OffsetDateTime,
    #[serde(with = "sortpath::codec::chrono_utc")] chrono::DateTime<chrono::Utc>,
    Option<sortpath::codec::raw_uuid::RawUuid>,
);

/// Decodes `data` as `T`; if that succeeds, re-encoding must reproduce `data`.
fn check<'de, T: Deserialize<'de> + Serialize>(data: &'de [u8]) {
    if let Ok(value) = from_slice::<T>(data) {
        let again = to_vec(&value).expect("a decoded value encodes");
        assert_eq!(again, data, "non-canonical bytes were accepted");
    }
}

/// For types whose decoding normalises the input (maps): re-encoding is a fixed point.
fn check_stable<T: Serialize + for<'a> Deserialize<'a>>(data: &[u8]) {
    if let Ok(value) = from_slice::<T>(data) {
        let once = to_vec(&value).expect("a decoded value encodes");
        let again: T = from_slice(&once).expect("an encoding decodes");
        assert_eq!(to_vec(&again).expect("a decoded value encodes"), once);
    }
}

fuzz_target!(|data: &[u8]| {
    check::<(u64, String, Option<Vec<i32>>, Desc<(String, f64)>)>(data);
    check::<Key>(data);
    check::<Tree>(data);
    check_stable::<Mixed>(data);
    check::<(&str, Desc<Vec<u8>>, u32)>(data);
    check::<Typed>(data);
    check::<Desc<(u128, Typed)>>(data);
});
