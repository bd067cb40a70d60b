//! Runs one operation many times, for instruction counting under
//! `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike wall time).
//!
//! `cargo build --release -p keypath-bench --example icount`, then
//! `valgrind --tool=callgrind target/release/examples/icount keypath-encode 100000`.

use std::hint::black_box;

use keypath::KeyPath;

const EXAMPLE: &str =
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";

#[derive(Debug, Clone, PartialEq, storekey::Encode, storekey::Decode, storekey::BorrowDecode)]
struct Tuple(String, [u8; 16], String, u64, String, u64, String, u64);

fn main() {
    let mut args = std::env::args().skip(1);
    let op = args.next().unwrap_or_default();
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let path: KeyPath = EXAMPLE.parse().unwrap();
    let t = Tuple(
        "user".into(),
        0x4c9d36e5_6b19_4e6a_828c_226ed667458au128.to_be_bytes(),
        "post".into(),
        1234,
        "comment".into(),
        1_678_901_234,
        "react".into(),
        42,
    );
    let encoded = path.encode();
    let mut sk = Vec::new();
    storekey::encode(&mut sk, &t).unwrap();
    let mut buf = Vec::with_capacity(256);
    for _ in 0..n {
        match op.as_str() {
            "keypath-encode" => {
                buf.clear();
                black_box(&path).encode_into(&mut buf);
            }
            "storekey-encode" => {
                buf.clear();
                storekey::encode(&mut buf, black_box(&t)).unwrap();
            }
            "keypath-decode" => {
                black_box(KeyPath::decode(black_box(&encoded)).unwrap());
            }
            "storekey-decode" => {
                black_box(storekey::decode_borrow::<Tuple>(black_box(&sk)).unwrap());
            }
            _ => panic!("unknown operation {op}"),
        }
    }
    black_box(&buf);
}
