//! Runs one operation many times, for instruction counting under
//! `valgrind --tool=callgrind` (repeatable on a loaded machine, unlike wall time).
//!
//! `cargo build --release -p sortpath-bench --example icount`, then
//! `valgrind --tool=callgrind target/release/examples/icount sortpath-encode 100000`.
//! Run each operation for two counts and take the per-iteration difference, which
//! cancels the setup cost.
//!
//! Operations: `sortpath-encode`/`-decode`/`-cmp`/`-parse`/`-print` (key paths; `-cmp`
//! compares the example with the same path ending in `react-43`), `bytes-cmp` (the two
//! encodings compared as byte slices), `sortpath-view-decode` (validation into a `KeyPathRef`,
//! no copy) and `memcpy` (the example's 63 encoded bytes copied
//! into a reused buffer), the floors of `-cmp` and `-encode`; `path-from-group` (a two-segment
//! sort key decoded under its group, as a store list does for each item),
//! `storekey-encode`/`-decode` (the same fields as a storekey tuple), and for the codec
//! benchmark's key struct `codec-encode`, `codec-decode` (owned), `codec-decode-borrowed`,
//! `codec-encode-derive`, `codec-decode-derive` (the derived `Encode`/`Decode`),
//! `storekey-struct-encode`, `storekey-struct-decode`; for u64 keys (one iteration is a
//! block of 1,000 keys spread over `0..1_000_000`, as in the criterion batch)
//! `codec-u64-encode`, `codec-u64-decode`, `storekey-u64-encode`, `storekey-u64-decode`,
//! and `floor-u64-encode`, `floor-u64-decode`: the codec's bytes for a `u64` written and read
//! by hand with nothing else (unchecked stores, a panic for anything but a valid key), the
//! least an encoder and a validating decoder of that format can do, called the same way.
//!
//! The codec operations call each codec the way `benches/codec.rs` does: encoders and
//! the u64 decoders through a `fn` pointer (criterion runs every peer through one shared
//! routine, so the call is indirect there), the struct decoders directly. The pointer is
//! passed through `black_box` so the compiler cannot inline it here either.

use std::hint::black_box;

use sortpath::KeyPath;

#[path = "../benches/support/mod.rs"]
mod support;

use support::{key, Key, KeyRef};

const EXAMPLE: &str =
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";

#[derive(Debug, Clone, PartialEq, storekey::Encode, storekey::Decode, storekey::BorrowDecode)]
struct Tuple(String, [u8; 16], String, u64, String, u64, String, u64);

/// Keys per iteration of the u64 operations.
const BLOCK: u64 = 1_000;

/// The u64 keys of one block: spread over `0..1_000_000` like the criterion batch.
fn block() -> impl Iterator<Item = u64> {
    (0..BLOCK).map(|j| j * 997)
}

/// Encodes every key of the block back to back, returning the bytes and each key's end.
fn encode_block(encode: impl Fn(u64, &mut Vec<u8>)) -> (Vec<u8>, Vec<usize>) {
    let mut all = Vec::new();
    let mut ends = Vec::new();
    for k in block() {
        encode(k, &mut all);
        ends.push(all.len());
    }
    (all, ends)
}

/// A decoder as the criterion batch calls it.
type Decode = fn(&[u8]) -> u64;
/// An encoder as the criterion benchmarks call it: appends one value to a reused buffer.
type Encode<T> = fn(&T, &mut Vec<u8>);

fn decode_block(all: &[u8], ends: &[usize], decode: Decode) -> u64 {
    let mut start = 0;
    let mut sum = 0u64;
    for &end in ends {
        sum = sum.wrapping_add(decode(black_box(&all[start..end])));
        start = end;
    }
    sum
}

/// The format's floor for an encoder of a `u64`: the sort byte and the significant bytes
/// (zero is `07 FF`), stored without the checks a safe encoder makes.
fn floor_u64_encode(v: &u64, b: &mut Vec<u8>) {
    let v = *v;
    let lz = (v | 1).leading_zeros();
    let k = (8 - lz / 8) as usize;
    let zero = 0u64.wrapping_sub(u64::from(v == 0));
    let sort = (8 + k as u8 - 1).wrapping_add(zero as u8);
    let body = ((v | zero) << (lz & 0x38)).to_be_bytes();
    b.reserve(9);
    let len = b.len();
    // SAFETY: `reserve(9)` made room for the 9 bytes written after `len`,
    // and the first `1 + k` of them are initialized before `set_len`.
    unsafe {
        let p = b.as_mut_ptr().add(len);
        *p = sort;
        std::ptr::copy_nonoverlapping(body.as_ptr(), p.add(1), 8);
        b.set_len(len + 1 + k);
    }
}

/// The format's floor for a validating decoder of a `u64`: the length, sort byte and
/// minimality checks (a panic for anything else), the magnitude loaded in at most two
/// overlapping words.
fn floor_u64_decode(b: &[u8]) -> u64 {
    let [sort, rest @ ..] = b else { panic!() };
    let k = sort.wrapping_sub(8) as usize;
    if k > 7 || rest.len() != k + 1 {
        if b == [7, 0xFF] {
            return 0;
        }
        panic!()
    }
    let v = if rest.len() >= 4 {
        let hi = u32::from_be_bytes(rest[..4].try_into().unwrap()) as u64;
        let lo = u32::from_be_bytes(rest[rest.len() - 4..].try_into().unwrap()) as u64;
        (hi << (8 * (rest.len() - 4))) | lo
    } else {
        let (a, m, c) = (
            rest[0] as u64,
            rest[rest.len() / 2] as u64,
            rest[rest.len() - 1] as u64,
        );
        match rest.len() {
            1 => a,
            2 => (a << 8) | c,
            _ => (a << 16) | (m << 8) | c,
        }
    };
    if v >> (8 * k) == 0 {
        panic!()
    }
    v
}

/// Runs `f` `n` times.
fn run(n: usize, mut f: impl FnMut()) {
    for _ in 0..n {
        f();
    }
}

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
    let key = key();
    let encoded = path.encode();
    let mut sk = Vec::new();
    storekey::encode(&mut sk, &t).unwrap();
    let codec_key = sortpath::codec::to_vec(&key).unwrap();
    let mut sk_key = Vec::new();
    storekey::encode(&mut sk_key, &key).unwrap();
    let (codec_u64, codec_ends) = encode_block(|k, b| sortpath::codec::to_vec_into(&k, b).unwrap());
    let (sk_u64, sk_ends) = encode_block(|k, b| storekey::encode(&mut *b, &k).unwrap());
    let mut buf = Vec::with_capacity(256);
    // The operation is chosen once, outside its loop.
    {
        match op.as_str() {
            "sortpath-encode" => run(n, || {
                buf.clear();
                black_box(&path).encode_into(&mut buf);
            }),
            "memcpy" => run(n, || {
                buf.clear();
                buf.extend_from_slice(black_box(&encoded[..]));
            }),
            "sortpath-cmp" | "bytes-cmp" => {
                let other: KeyPath = EXAMPLE.replace("react-42", "react-43").parse().unwrap();
                let other_bytes = other.encode();
                if op == "sortpath-cmp" {
                    run(n, || {
                        black_box(black_box(&path).cmp(black_box(&other)));
                    })
                } else {
                    run(n, || {
                        black_box(black_box(&encoded[..]).cmp(black_box(&other_bytes[..])));
                    })
                }
            }
            "sortpath-parse" => run(n, || {
                black_box(black_box(EXAMPLE).parse::<KeyPath>().unwrap());
            }),
            "sortpath-print" => {
                use std::fmt::Write;
                let mut text = String::with_capacity(256);
                run(n, || {
                    text.clear();
                    write!(text, "{}", black_box(&path)).unwrap();
                    black_box(text.len());
                })
            }
            "storekey-encode" => run(n, || {
                buf.clear();
                storekey::encode(&mut buf, black_box(&t)).unwrap();
            }),
            "sortpath-decode" => run(n, || {
                black_box(KeyPath::decode(black_box(&encoded)).unwrap());
            }),
            "sortpath-view-decode" => run(n, || {
                black_box(sortpath::KeyPathRef::decode(black_box(&encoded)).unwrap());
            }),
            "path-from-group" => {
                // What a store list does per item: a sort key decoded under its group.
                let group: KeyPath = "/user-1".parse().unwrap();
                let sort: KeyPath = "/post-500".parse().unwrap();
                let sort = sort.encode();
                run(n, || {
                    black_box(KeyPath::from_group_path(&group, black_box(&sort)).unwrap());
                })
            }
            "storekey-decode" => run(n, || {
                black_box(storekey::decode_borrow::<Tuple>(black_box(&sk)).unwrap());
            }),
            "codec-encode" | "codec-encode-derive" | "storekey-struct-encode" => {
                let encode: Encode<Key> = match op.as_str() {
                    "codec-encode" => |v, b| sortpath::codec::to_vec_into(v, b).unwrap(),
                    "codec-encode-derive" => |v, b| sortpath::codec::encode_into(v, b).unwrap(),
                    _ => |v, b| storekey::encode(&mut *b, v).unwrap(),
                };
                let encode = black_box(encode);
                run(n, || {
                    buf.clear();
                    encode(black_box(&key), &mut buf);
                    black_box(buf.len());
                })
            }
            "codec-decode" => run(n, || {
                black_box(sortpath::codec::from_slice::<Key>(black_box(&codec_key)).unwrap());
            }),
            "codec-decode-derive" => run(n, || {
                black_box(sortpath::codec::decode::<Key>(black_box(&codec_key)).unwrap());
            }),
            "codec-decode-borrowed" => run(n, || {
                black_box(sortpath::codec::from_slice::<KeyRef>(black_box(&codec_key)).unwrap());
            }),
            "storekey-struct-decode" => run(n, || {
                black_box(storekey::decode_borrow::<Key>(black_box(&sk_key)).unwrap());
            }),
            "codec-u64-encode" | "storekey-u64-encode" | "floor-u64-encode" => {
                let encode: Encode<u64> = match op.as_str() {
                    "codec-u64-encode" => |v, b| sortpath::codec::to_vec_into(v, b).unwrap(),
                    "storekey-u64-encode" => |v, b| storekey::encode(&mut *b, v).unwrap(),
                    _ => floor_u64_encode,
                };
                let encode = black_box(encode);
                run(n, || {
                    for k in block() {
                        buf.clear();
                        encode(black_box(&k), &mut buf);
                        black_box(buf.len());
                    }
                })
            }
            "codec-u64-decode" | "floor-u64-decode" => {
                let decode: Decode = match op.as_str() {
                    "codec-u64-decode" => |b| sortpath::codec::from_slice::<u64>(b).unwrap(),
                    _ => floor_u64_decode,
                };
                let decode = black_box(decode);
                run(n, || {
                    black_box(decode_block(&codec_u64, &codec_ends, decode));
                })
            }
            "storekey-u64-decode" => {
                let decode: Decode = black_box(|b| storekey::decode_borrow::<u64>(b).unwrap());
                run(n, || {
                    black_box(decode_block(&sk_u64, &sk_ends, decode));
                })
            }
            _ => panic!("unknown operation {op}"),
        }
    }
    black_box(&buf);
}
