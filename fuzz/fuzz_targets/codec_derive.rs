//! Decodes arbitrary bytes with the derived `Decode` impls of `sortpath::codec`, with serde's
//! derives through the same codec as the oracle.
//!
//! Invariants checked: the derived decoder never panics, loops or exhausts memory/stack; it
//! accepts exactly the bytes serde's decoder accepts and gives the same value (compared by
//! re-encoding, which must reproduce the input), and where both fail they fail at the same
//! byte offset.

#![no_main]

use sortpath::codec::{decode, encode, from_slice, to_vec, Decode, Desc, Encode};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

#[derive(Encode, Decode, Serialize, Deserialize)]
enum Kind {
    Unit,
    Newtype(Desc<Option<u16>>),
    Tuple(i8, char),
    Struct { name: String, score: f32 },
}

#[derive(Encode, Decode, Serialize, Deserialize)]
struct Key {
    tenant: u64,
    name: Desc<String>,
    kind: Kind,
    tags: Vec<(String, Desc<i64>)>,
    id: [u8; 4],
    pair: [u16; 2],
    flag: bool,
    wide: (u128, i128),
}

/// A recursive type: nesting depth is driven by the input.
#[derive(Encode, Decode, Serialize, Deserialize)]
enum Tree {
    Leaf(u8),
    Node(Vec<Tree>),
    Down(Desc<Box<Tree>>),
}

#[derive(Encode, Decode, Serialize, Deserialize)]
struct Borrowing<'a> {
    name: &'a str,
    rest: Option<(String, usize, isize)>,
}

fn check<'de, T>(data: &'de [u8])
where
    T: Decode<'de> + Deserialize<'de> + Encode + Serialize,
{
    match (decode::<T>(data), from_slice::<T>(data)) {
        (Ok(native), Ok(serde)) => {
            assert_eq!(encode(&native).expect("encodes"), data, "non-canonical bytes were accepted");
            assert_eq!(to_vec(&serde).expect("encodes"), data);
        }
        (Err(native), Err(serde)) => assert_eq!(native.offset(), serde.offset(), "{native} / {serde}"),
        (native, serde) => panic!("derived: {:?}, serde: {:?}", native.err(), serde.err()),
    }
}

fuzz_target!(|data: &[u8]| {
    check::<Key>(data);
    check::<Tree>(data);
    check::<Borrowing>(data);
    check::<(Desc<Key>, Option<Tree>)>(data);
});
