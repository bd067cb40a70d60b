//! Codec benchmark: sortpath::codec against storekey, foundationdb-tuple and memcomparable,
//! in the same run. Prints encoded sizes first, then criterion timings.
//!
//! Run: `cargo bench -p sortpath-bench --bench codec`

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion};
use serde::Serialize;

use support::{key, Key, KeyRef};

/// foundationdb-tuple has no struct support: the key as a tuple (bytes field owned).
type FdbTuple = (String, Vec<u8>, String, u64, String, u64, String, u64);

fn fdb_pack_into(k: &Key, buf: &mut Vec<u8>) {
    let t = (
        k.user.as_str(),
        &k.id[..],
        k.post.as_str(),
        k.post_id,
        k.comment.as_str(),
        k.comment_id,
        k.react.as_str(),
        k.react_id,
    );
    foundationdb_tuple::pack_into(&t, buf);
}

fn fdb_unpack(bytes: &[u8]) -> Key {
    let t: FdbTuple = foundationdb_tuple::unpack(bytes).unwrap();
    Key {
        user: t.0,
        id: t.1.try_into().unwrap(),
        post: t.2,
        post_id: t.3,
        comment: t.4,
        comment_id: t.5,
        react: t.6,
        react_id: t.7,
    }
}

fn memcomparable_into<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
    let mut ser = memcomparable::Serializer::new(buf);
    v.serialize(&mut ser).unwrap();
}

/// An encoder appending one value to a reused buffer.
type Encoder<T> = fn(&T, &mut Vec<u8>);

/// The encoders, each appending to a reused buffer: sortpath through serde and through its
/// derived `Encode` (the same bytes), then the peers.
fn encoders<T: Serialize + sortpath::codec::Encode + storekey::Encode + FdbPack>(
) -> [(&'static str, Encoder<T>); 5] {
    [
        ("sortpath", |v, b| {
            sortpath::codec::to_vec_into(v, b).unwrap()
        }),
        ("sortpath (derive)", |v, b| {
            sortpath::codec::encode_into(v, b).unwrap()
        }),
        ("storekey", |v, b| storekey::encode(&mut *b, v).unwrap()),
        ("foundationdb-tuple", |v, b| v.fdb_pack(b)),
        ("memcomparable", |v, b| memcomparable_into(v, b)),
    ]
}

/// Values foundationdb-tuple can pack (it has no serde support).
trait FdbPack {
    fn fdb_pack(&self, buf: &mut Vec<u8>);
}
impl FdbPack for Key {
    fn fdb_pack(&self, buf: &mut Vec<u8>) {
        fdb_pack_into(self, buf)
    }
}
impl FdbPack for u64 {
    fn fdb_pack(&self, buf: &mut Vec<u8>) {
        foundationdb_tuple::pack_into(&(*self,), buf);
    }
}

fn encoded<T: Serialize + sortpath::codec::Encode + storekey::Encode + FdbPack>(
    v: &T,
) -> [(&'static str, Vec<u8>); 5] {
    encoders::<T>().map(|(name, f)| {
        let mut buf = Vec::new();
        f(v, &mut buf);
        (name, buf)
    })
}

/// Number of keys in the batch benchmark.
const BATCH: u64 = 1_000_000;

fn print_sizes() {
    let k = key();
    println!("\nEncoded size of the issue's key struct:");
    for (name, bytes) in encoded(&k) {
        println!("  {name:<20} {:>3} bytes", bytes.len());
    }
    println!("\nTotal encoded size of the u64 keys 0..{BATCH}:");
    for (name, f) in encoders::<u64>() {
        let mut buf = Vec::new();
        let mut total = 0usize;
        for n in 0..BATCH {
            buf.clear();
            f(&n, &mut buf);
            total += buf.len();
        }
        println!(
            "  {name:<20} {total:>9} bytes ({:.2} per key)",
            total as f64 / BATCH as f64
        );
    }
    println!();
}

fn struct_benches(c: &mut Criterion) {
    let k = key();
    let mut group = c.benchmark_group("struct_encode");
    for (name, f) in encoders::<Key>() {
        let mut buf = Vec::with_capacity(128);
        group.bench_function(name, |b| {
            b.iter(|| {
                buf.clear();
                f(black_box(&k), &mut buf);
                black_box(buf.len())
            })
        });
    }
    group.finish();

    let bytes = encoded(&k);
    for (_, b) in &bytes[..] {
        assert!(!b.is_empty());
    }
    let mut group = c.benchmark_group("struct_decode");
    group.bench_function("sortpath", |b| {
        b.iter(|| sortpath::codec::from_slice::<Key>(black_box(&bytes[0].1)).unwrap())
    });
    group.bench_function("sortpath (derive)", |b| {
        b.iter(|| sortpath::codec::decode::<Key>(black_box(&bytes[1].1)).unwrap())
    });
    group.bench_function("sortpath (borrowed &str)", |b| {
        b.iter(|| {
            sortpath::codec::from_slice::<KeyRef>(black_box(&bytes[0].1))
                .unwrap()
                .react_id
        })
    });
    // Not a decoder: the same key built from its parts (four `String`s allocated and copied,
    // then freed with the key), the work every owned decoder does besides decoding. The
    // parts pass through `black_box`, so none of it is folded away.
    group.bench_function("floor: build the key from its parts", |b| {
        let k = key();
        let parts = (
            k.user.as_str(),
            k.post.as_str(),
            k.comment.as_str(),
            k.react.as_str(),
        );
        b.iter(|| {
            let (user, post, comment, react) = black_box(parts);
            Key {
                user: user.to_owned(),
                id: black_box(k.id),
                post: post.to_owned(),
                post_id: black_box(k.post_id),
                comment: comment.to_owned(),
                comment_id: black_box(k.comment_id),
                react: react.to_owned(),
                react_id: black_box(k.react_id),
            }
        })
    });
    group.bench_function("storekey", |b| {
        b.iter(|| storekey::decode_borrow::<Key>(black_box(&bytes[2].1)).unwrap())
    });
    group.bench_function("foundationdb-tuple", |b| {
        b.iter(|| fdb_unpack(black_box(&bytes[3].1)))
    });
    group.bench_function("memcomparable", |b| {
        b.iter(|| memcomparable::from_slice::<Key>(black_box(&bytes[4].1)).unwrap())
    });
    group.finish();
    // Every codec decodes what it encoded.
    assert_eq!(sortpath::codec::from_slice::<Key>(&bytes[0].1).unwrap(), k);
    assert_eq!(bytes[1].1, bytes[0].1);
    assert_eq!(sortpath::codec::decode::<Key>(&bytes[1].1).unwrap(), k);
    assert_eq!(storekey::decode_borrow::<Key>(&bytes[2].1).unwrap(), k);
    assert_eq!(fdb_unpack(&bytes[3].1), k);
    assert_eq!(memcomparable::from_slice::<Key>(&bytes[4].1).unwrap(), k);
}

fn batch_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("batch_1M_u64_encode");
    for (name, f) in encoders::<u64>() {
        // Room for sortpath's 72-byte window (see `sortpath::codec::to_vec_into`).
        let mut buf = Vec::with_capacity(128);
        group.bench_with_input(BenchmarkId::from_parameter(name), &BATCH, |b, &n| {
            b.iter(|| {
                let mut total = 0usize;
                for i in 0..n {
                    buf.clear();
                    f(black_box(&i), &mut buf);
                    total += buf.len();
                }
                total
            })
        });
    }
    group.finish();

    // Decoding: each codec's 1M keys laid out back to back with their lengths.
    let mut group = c.benchmark_group("batch_1M_u64_decode");
    type Decode = fn(&[u8]) -> u64;
    let decoders: [(&str, Decode); 5] = [
        ("sortpath", |b| {
            sortpath::codec::from_slice::<u64>(b).unwrap()
        }),
        ("sortpath (derive)", |b| {
            sortpath::codec::decode::<u64>(b).unwrap()
        }),
        ("storekey", |b| storekey::decode_borrow::<u64>(b).unwrap()),
        ("foundationdb-tuple", |b| {
            foundationdb_tuple::unpack::<(u64,)>(b).unwrap().0
        }),
        ("memcomparable", |b| {
            memcomparable::from_slice::<u64>(b).unwrap()
        }),
    ];
    for ((name, encode), (_, decode)) in encoders::<u64>().into_iter().zip(decoders) {
        let mut all = Vec::new();
        let mut ends = Vec::with_capacity(BATCH as usize);
        for i in 0..BATCH {
            encode(&i, &mut all);
            ends.push(all.len());
        }
        assert_eq!(decode(&all[ends[998]..ends[999]]), 999);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut start = 0;
                let mut sum = 0u64;
                for &end in &ends {
                    sum = sum.wrapping_add(decode(black_box(&all[start..end])));
                    start = end;
                }
                sum
            })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = struct_benches, batch_benches
}

fn main() {
    print_sizes();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
