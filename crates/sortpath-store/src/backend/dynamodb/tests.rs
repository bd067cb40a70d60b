//! Native attribute round trips (no server needed).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::attrs::{record_item, KeptIndex, ITEM, VAL};
use super::native::{from_native, to_native};
use super::readback::{read, ReadAs};
use crate::backend::{ItemParts, Key, Record};
use crate::envelope::{parts_of, Envelope};

/// The record an item stands for, as the backend reads it.
fn record(
    item: &std::collections::HashMap<String, AttributeValue>,
    kept: &[KeptIndex],
) -> Result<Record, crate::backend::BackendError> {
    read(item, kept, ReadAs::Record)
}

/// What the store hands the backend with a write of the envelope `value` at `key`.
fn parts(key: &Key, value: &[u8]) -> ItemParts {
    let path = crate::layout::item_path_at(&key.group, &key.sort).unwrap();
    parts_of(value, &path).unwrap()
}

fn envelope(payload: Vec<u8>) -> Vec<u8> {
    let env = Envelope {
        item_type: "post".into(),
        indexes: vec![("by_x".into(), "/x-1/y-2".parse().unwrap())],
        payload: Vec::new(),
    };
    let mut out = Vec::new();
    env.encode_into(&mut out);
    out.extend_from_slice(&payload);
    out
}

#[derive(serde::Serialize)]
struct Post {
    zeta: u64,
    alpha: i64,
    title: String,
    tags: Vec<String>,
    score: f64,
    ratio: f32,
    big: u64,
    neg: i64,
    nothing: Option<u8>,
    flag: bool,
    nested: BTreeMap<String, Vec<u8>>,
}

fn post() -> Post {
    Post {
        zeta: 300,
        alpha: -5,
        title: "héllo".into(),
        tags: vec!["a".into(), String::new()],
        score: 0.1,
        ratio: 1.5e-7,
        big: u64::MAX,
        neg: i64::MIN,
        nothing: None,
        flag: true,
        nested: BTreeMap::from([("k".into(), vec![0, 255])]),
    }
}

#[test]
fn struct_payload_is_native_and_exact() {
    let payload = rmp_serde::to_vec_named(&post()).unwrap();
    let (native, shape) = to_native(&payload).expect("native form");
    let AttributeValue::M(fields) = &native else {
        panic!("expected a map, got {native:?}")
    };
    assert_eq!(fields["zeta"], AttributeValue::N("300".into()));
    assert_eq!(fields["title"], AttributeValue::S("héllo".into()));
    assert_eq!(from_native(&native, &shape).unwrap(), payload);
}

/// A key of an item, for its index keys' entry sort keys.
fn item_key() -> Key {
    let (g, s) = "/g-1/s-2"
        .parse::<sortpath::KeyPath>()
        .unwrap()
        .split_group()
        .unwrap();
    Key::new(g, s)
}

#[test]
fn record_round_trip_native_and_bytes() {
    let key = item_key();
    let value = envelope(rmp_serde::to_vec_named(&post()).unwrap());
    let item = record_item(
        &key,
        &Record {
            value: value.clone(),
            version: 9,
        },
        Some(&parts(&key, &value)),
        &[],
    )
    .unwrap();
    assert!(item.contains_key(ITEM) && !item.contains_key(VAL));
    assert_eq!(
        record(&item, &[]).unwrap(),
        Record {
            value: value.clone(),
            version: 9
        }
    );
    // Values the store does not say are items (no parts) are opaque: stored as bytes,
    // even an envelope.
    for value in [vec![], vec![0, 3], b"not an envelope".to_vec(), value] {
        let item = record_item(
            &key,
            &Record {
                value: value.clone(),
                version: 1,
            },
            None,
            &[],
        )
        .unwrap();
        assert!(!item.contains_key(ITEM));
        assert_eq!(item.contains_key(VAL), !value.is_empty());
        assert_eq!(record(&item, &[]).unwrap().value, value);
    }
}

#[test]
fn values_without_exact_native_form_fall_back() {
    let cases: Vec<Vec<u8>> = vec![
        rmp_serde::to_vec(&f64::NAN).unwrap(),
        rmp_serde::to_vec(&f64::INFINITY).unwrap(),
        rmp_serde::to_vec(&1e300f64).unwrap(),
        rmp_serde::to_vec(&-0.0f64).unwrap(),
        rmp_serde::to_vec(&BTreeMap::from([(1u8, 2u8)])).unwrap(),
        rmp_serde::to_vec(&BTreeMap::from([(String::new(), 2u8)])).unwrap(),
        vec![0xd4, 0x01, 0x02],                         // fixext 1
        vec![0xcd, 0x00, 0x05],                         // 5 as uint16: not the shortest form
        vec![0x01, 0x02],                               // trailing bytes
        vec![0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x02], // duplicate key
    ];
    let key = item_key();
    for payload in cases {
        assert!(to_native(&payload).is_none(), "{payload:02x?}");
        let value = envelope(payload);
        let item = record_item(
            &key,
            &Record {
                value: value.clone(),
                version: 1,
            },
            Some(&parts(&key, &value)),
            &[],
        )
        .unwrap();
        assert!(item.contains_key(VAL));
        assert_eq!(record(&item, &[]).unwrap().value, value);
    }
}

#[test]
fn numbers_survive_normalised_text() {
    // DynamoDB may give numbers back in another decimal form; only the value counts.
    let payload = rmp_serde::to_vec(&(1.0e3f64, 0.5f32, 7u8)).unwrap();
    let (native, shape) = to_native(&payload).unwrap();
    let AttributeValue::L(mut items) = native else {
        panic!()
    };
    items[0] = AttributeValue::N("1000".into());
    items[1] = AttributeValue::N("0.50".into());
    assert_eq!(
        from_native(&AttributeValue::L(items), &shape).unwrap(),
        payload
    );
}

mod elided_index_paths {
    use proptest::prelude::*;
    use sortpath::KeyPath;

    use super::super::attrs::{gsi_keys, record_item, KeptIndex, HDR, VAL};
    use super::{parts, record};
    use crate::backend::{Key, Record};
    use crate::envelope::Envelope;
    use crate::query::tests::any_rest;

    fn kept(name: &str, n: usize) -> KeptIndex {
        let (pk, sk) = super::super::gsi_key_attributes(n);
        KeptIndex {
            name: name.into(),
            pk,
            sk,
            keys_only: false,
        }
    }

    fn value(indexes: Vec<(String, KeyPath)>, payload: &[u8]) -> Vec<u8> {
        let env = Envelope {
            item_type: "ticket".into(),
            indexes,
            payload: Vec::new(),
        };
        let mut out = Vec::new();
        env.encode_into(&mut out);
        out.extend_from_slice(payload);
        out
    }

    fn stored_header(
        item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
    ) -> Vec<u8> {
        let bytes = |a: &str| match item.get(a) {
            Some(aws_sdk_dynamodb::types::AttributeValue::B(b)) => Some(b.as_ref().to_vec()),
            _ => None,
        };
        bytes(HDR).or_else(|| bytes(VAL)).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::test_cases(2_000)))]

        /// An item with GSI-kept indexes stores their key paths only in its GSI key
        /// attributes, and reads back as the exact bytes written; indexes the table does
        /// not keep stay in the header.
        #[test]
        fn kept_index_paths_are_stored_once_and_read_back_exactly(
            item_rest in any_rest(),
            a_rest in any_rest(),
            b_rest in any_rest(),
            c_rest in any_rest(),
            named in any::<bool>(),
            keep_b in any::<bool>(),
        ) {
            let group = KeyPath::new().push("board", 7u64).unwrap();
            let item_path = group.join(&item_rest).unwrap();
            let (g, s) = item_path.split_group().unwrap();
            let key = Key::new(g, s);
            let at = |rest: &KeyPath| KeyPath::new().push("board", "x\0y").unwrap().join(rest).unwrap();
            let indexes = vec![
                ("a".to_owned(), at(&a_rest)),
                ("b".to_owned(), at(&b_rest)),
                ("c".to_owned(), at(&c_rest)),
            ];
            let payload = if named {
                rmp_serde::to_vec_named(&super::post()).unwrap()
            } else {
                rmp_serde::to_vec(&super::post()).unwrap()
            };
            let written = value(indexes.clone(), &payload);
            let mut keep = vec![kept("a", 1), kept("c", 2)];
            if keep_b {
                keep.push(kept("b", 3));
            }
            let record_in = Record { value: written.clone(), version: 3 };
            let item_parts = parts(&key, &written);
            let item = record_item(&key, &record_in, Some(&item_parts), &keep).unwrap();
            // The kept paths are gone from the stored header; the exact one is there.
            let header = stored_header(&item);
            let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
            prop_assert!(contains(&header, &indexes[1].1.encode()) != keep_b);
            let elided = indexes.iter().filter(|(n, _)| keep.iter().any(|k| &k.name == n));
            let saved: usize = elided.map(|(_, p)| p.encoded_len()).sum();
            // A native item stores the header alone in `hdr`; a compact one header and payload in `val`.
            let whole = if item.contains_key(HDR) { written.len() - payload.len() } else { written.len() };
            prop_assert_eq!(item.contains_key(HDR), named);
            prop_assert_eq!(header.len() + saved, whole);
            for k in &keep {
                prop_assert!(item.contains_key(&k.pk) && item.contains_key(&k.sk));
            }
            prop_assert_eq!(gsi_keys(&item_parts, &keep).len(), keep.len());
            prop_assert_eq!(record(&item, &keep).unwrap(), record_in);
        }
    }

    #[test]
    fn an_elided_path_without_its_gsi_keys_is_an_error_that_names_them() {
        let path = KeyPath::new()
            .push("board", 7u64)
            .unwrap()
            .push("ticket", 1u64)
            .unwrap();
        let (g, s) = path.split_group().unwrap();
        let key = Key::new(g, s);
        let index = KeyPath::new()
            .push("board", 7u64)
            .unwrap()
            .push("updated", -5i64)
            .unwrap();
        let written = value(vec![("by_updated".into(), index)], &[0x90]);
        let keep = [kept("by_updated", 1)];
        let item = record_item(
            &key,
            &Record {
                value: written.clone(),
                version: 1,
            },
            Some(&parts(&key, &written)),
            &keep,
        )
        .unwrap();
        assert_eq!(record(&item, &keep).unwrap().value, written);

        let mut without = item.clone();
        without.remove("gs1");
        let err = record(&without, &keep).unwrap_err().to_string();
        assert!(
            err.contains("by_updated") && err.contains("gp1") && err.contains("gs1"),
            "{err}"
        );
        let err = record(&item, &[]).unwrap_err().to_string();
        assert!(err.contains("keeps no GSI for it"), "{err}");
        for bad in [vec![], vec![0x61], vec![0x00, 0x07], vec![0x61, 0x00, 0x00]] {
            let mut damaged = item.clone();
            damaged.insert("gs1".into(), super::super::attrs::bytes(&bad));
            let err = record(&damaged, &keep).unwrap_err().to_string();
            assert!(
                err.contains("index by_updated's key path from the GSI keys"),
                "{bad:02x?}: {err}"
            );
        }
    }
}
