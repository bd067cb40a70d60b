//! Native attribute round trips (no server needed).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::attrs::{record, record_item, ITEM, VAL};
use super::native::{from_native, to_native};
use crate::backend::{Key, Record};
use crate::envelope::Envelope;

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

#[test]
fn record_round_trip_native_and_bytes() {
    let key = Key::new(b"g".to_vec(), b"s".to_vec());
    let value = envelope(rmp_serde::to_vec_named(&post()).unwrap());
    let item = record_item(
        &key,
        &Record {
            value: value.clone(),
            version: 9,
        },
        &[],
    )
    .unwrap();
    assert!(item.contains_key(ITEM) && !item.contains_key(VAL));
    assert_eq!(record(&item).unwrap(), Record { value, version: 9 });
    for value in [vec![], vec![0, 3], b"not an envelope".to_vec()] {
        let item = record_item(
            &key,
            &Record {
                value: value.clone(),
                version: 1,
            },
            &[],
        )
        .unwrap();
        assert!(!item.contains_key(ITEM));
        assert_eq!(record(&item).unwrap().value, value);
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
    let key = Key::new(b"g".to_vec(), b"s".to_vec());
    for payload in cases {
        assert!(to_native(&payload).is_none(), "{payload:02x?}");
        let value = envelope(payload);
        let item = record_item(
            &key,
            &Record {
                value: value.clone(),
                version: 1,
            },
            &[],
        )
        .unwrap();
        assert!(item.contains_key(VAL));
        assert_eq!(record(&item).unwrap().value, value);
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
