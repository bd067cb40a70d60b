//! Key path benchmark: encode (into a reused buffer), decode, compare, parse and print the
//! published example path, in the same run as storekey and foundationdb-tuple encoding the
//! same 8 values as a tuple, and against the floors: a copy of the 63 encoded bytes (encode)
//! and comparing two encodings as byte slices (compare). Prints encoded sizes first, then
//! criterion timings.
//!
//! Run: `cargo bench -p sortpath-bench --bench path`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, Criterion};
use sortpath::{KeyPath, KeyPathRef};

const EXAMPLE: &str =
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";
const UUID: [u8; 16] = 0x4c9d36e5_6b19_4e6a_828c_226ed667458au128.to_be_bytes();

/// The same 8 values for storekey (its tuples stop short of 8 fields): namespace, UUID,
/// namespace, int, ...
#[derive(Debug, Clone, PartialEq, storekey::Encode, storekey::Decode, storekey::BorrowDecode)]
struct Tuple(String, [u8; 16], String, u64, String, u64, String, u64);
/// foundationdb-tuple packs byte strings as `Vec<u8>`.
type FdbTuple = (String, Vec<u8>, String, u64, String, u64, String, u64);

fn tuple() -> Tuple {
    Tuple(
        "user".into(),
        UUID,
        "post".into(),
        1234,
        "comment".into(),
        1_678_901_234,
        "react".into(),
        42,
    )
}

fn fdb_tuple() -> FdbTuple {
    let t = tuple();
    (t.0, t.1.to_vec(), t.2, t.3, t.4, t.5, t.6, t.7)
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

fn sizes() {
    let path: KeyPath = EXAMPLE.parse().unwrap();
    let mut sk = Vec::new();
    storekey::encode(&mut sk, &tuple()).unwrap();
    let fdb = foundationdb_tuple::pack(&fdb_tuple());
    println!("encoded sizes of the example path (8 values):");
    println!("  sortpath path        {:>3} bytes", path.encode().len());
    println!("  storekey            {:>3} bytes", sk.len());
    println!("  foundationdb-tuple  {:>3} bytes", fdb.len());
}

fn bench(c: &mut Criterion) {
    sizes();
    let path: KeyPath = EXAMPLE.parse().unwrap();
    let encoded = path.encode();
    let t = tuple();
    let ft = fdb_tuple();
    let mut sk_bytes = Vec::new();
    storekey::encode(&mut sk_bytes, &t).unwrap();
    let fdb_bytes = foundationdb_tuple::pack(&ft);

    let mut g = c.benchmark_group("path/encode");
    let mut buf = Vec::with_capacity(256);
    g.bench_function("sortpath", |b| {
        b.iter(|| {
            buf.clear();
            black_box(&path).encode_into(&mut buf);
            black_box(buf.len())
        })
    });
    g.bench_function("memcpy of the encoding (floor)", |b| {
        b.iter(|| {
            buf.clear();
            buf.extend_from_slice(black_box(&encoded[..]));
            black_box(buf.len())
        })
    });
    g.bench_function("storekey", |b| {
        b.iter(|| {
            buf.clear();
            storekey::encode(&mut buf, black_box(&t)).unwrap();
            black_box(buf.len())
        })
    });
    g.bench_function("foundationdb-tuple", |b| {
        b.iter(|| {
            buf.clear();
            foundationdb_tuple::pack_into(black_box(&ft), &mut buf);
            black_box(buf.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("path/decode");
    g.bench_function("sortpath", |b| {
        b.iter(|| KeyPath::decode(black_box(&encoded)).unwrap())
    });
    g.bench_function("sortpath KeyPathRef (no copy)", |b| {
        b.iter(|| KeyPathRef::decode(black_box(&encoded)).unwrap())
    });
    g.bench_function("storekey", |b| {
        b.iter(|| storekey::decode_borrow::<Tuple>(black_box(&sk_bytes)).unwrap())
    });
    g.bench_function("foundationdb-tuple", |b| {
        b.iter(|| foundationdb_tuple::unpack::<FdbTuple>(black_box(&fdb_bytes)).unwrap())
    });
    g.finish();

    // What a store list does for each item: a sort key decoded under its group, against
    // copying the key's bytes, which is what a program on raw keys does instead.
    let group: KeyPath = "/user-1".parse().unwrap();
    let (group_key, sort_key) = "/user-1/post-500"
        .parse::<KeyPath>()
        .unwrap()
        .split_group()
        .unwrap();
    let mut g = c.benchmark_group("path/from_group_path");
    g.bench_function("sortpath", |b| {
        b.iter(|| KeyPath::from_group_path(black_box(&group), black_box(&sort_key)).unwrap())
    });
    g.bench_function("copy of the key bytes", |b| {
        b.iter(|| [black_box(&group_key[..]), black_box(&sort_key[..])].concat())
    });
    g.finish();

    // Two example paths that differ only in their last ID (the usual case in a sorted scan).
    let other: KeyPath = EXAMPLE.replace("react-42", "react-43").parse().unwrap();
    let other_bytes = other.encode();
    let mut g = c.benchmark_group("path/compare");
    g.bench_function("sortpath encoded bytes", |b| {
        b.iter(|| black_box(&encoded[..]).cmp(black_box(&other_bytes[..])))
    });
    g.bench_function("sortpath KeyPath::cmp", |b| {
        b.iter(|| black_box(&path).cmp(black_box(&other)))
    });
    g.finish();

    let mut g = c.benchmark_group("path/text");
    g.bench_function("parse", |b| {
        b.iter(|| black_box(EXAMPLE).parse::<KeyPath>().unwrap())
    });
    let mut text = String::with_capacity(256);
    g.bench_function("print", |b| {
        b.iter(|| {
            use std::fmt::Write;
            text.clear();
            write!(text, "{}", black_box(&path)).unwrap();
            black_box(text.len())
        })
    });
    g.finish();

    assert_eq!(KeyPath::decode(&encoded).unwrap(), path);
    assert_eq!(storekey::decode_borrow::<Tuple>(&sk_bytes).unwrap(), t);
    assert_eq!(
        foundationdb_tuple::unpack::<FdbTuple>(&fdb_bytes).unwrap(),
        ft
    );
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
