//! An item payload of arbitrary bytes decodes through the store (`RawItem::decode`, the
//! reads' lean MessagePack reader with rmp-serde behind it) to exactly what rmp-serde
//! decodes it to, value or error, for types that read MessagePack in different ways; and
//! never panics.
#![no_main]

use std::collections::BTreeMap;

use sortpath_store::RawItem;
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Deserialize;

#[derive(Debug, PartialEq, Deserialize)]
struct Post {
    id: u64,
    title: Option<String>,
    tags: Vec<i64>,
    scores: BTreeMap<String, u8>,
    pair: (u8, bool),
    marker: Marker,
    kind: Kind,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Marker;

#[derive(Debug, PartialEq, Deserialize)]
enum Kind {
    A,
    B(u16),
}

fn same<T: DeserializeOwned + PartialEq + std::fmt::Debug>(data: &[u8]) {
    let raw = RawItem::from_payload("/a-1".parse().unwrap(), "a", 1, data.to_vec());
    let store = raw.decode::<T>().ok();
    let rmp = rmp_serde::from_slice::<T>(data).ok();
    assert_eq!(store, rmp, "{data:02x?}");
}

fuzz_target!(|data: &[u8]| {
    same::<serde_json::Value>(data);
    same::<Post>(data);
    same::<Vec<Option<String>>>(data);
    same::<BTreeMap<String, serde_json::Value>>(data);
    same::<(i32, char, Marker)>(data);
    same::<u64>(data);
    same::<i8>(data);
});
