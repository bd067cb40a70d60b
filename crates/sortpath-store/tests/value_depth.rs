//! Values the store keeps are values every reader reads back: a value nested deeper than
//! `MAX_VALUE_NESTING` is refused when written (it used to be acknowledged and then fail
//! every read), and encoded values are written byte for byte or refused.

use serde_json::{json, Value};
use sortpath::KeyPath;
use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::{PutMode, RawItem, Store, ValueProblem, WriteError, MAX_VALUE_NESTING};

#[derive(serde::Serialize, serde::Deserialize)]
struct Doc {
    id: u64,
    // One level inside the struct's own array.
    body: Value,
}

impl sortpath_store::Item for Doc {
    const TYPE: &'static str = "doc";
    fn key_path(&self) -> Result<KeyPath, sortpath::path::PathError> {
        KeyPath::new().push("doc", self.id)
    }
}

fn nested(levels: usize) -> Value {
    (0..levels).fold(json!(1), |v, _| Value::Array(vec![v]))
}

fn too_deep(r: Result<u64, WriteError>, key: &KeyPath) {
    match r {
        Err(WriteError::BadValue {
            key: k,
            problem: ValueProblem::TooDeep { limit },
        }) => {
            assert_eq!((&k, limit), (key, MAX_VALUE_NESTING));
        }
        other => panic!("expected BadValue TooDeep, got {other:?}"),
    }
}

#[tokio::test]
async fn a_value_too_deep_to_read_back_is_refused_and_nothing_is_written() {
    let store = Store::new(MemoryBackend::new());
    let key: KeyPath = "/doc-1".parse().unwrap();
    // The deepest accepted value reads back; one level more is refused, far more too.
    store
        .put_raw(
            &key,
            "doc",
            &nested(MAX_VALUE_NESTING),
            vec![],
            PutMode::Upsert,
        )
        .await
        .unwrap();
    let got = store.get_raw(&key).await.unwrap().unwrap();
    assert_eq!(got.decode::<Value>().unwrap(), nested(MAX_VALUE_NESTING));
    let other: KeyPath = "/doc-2".parse().unwrap();
    for levels in [MAX_VALUE_NESTING + 1, 1100, 5000] {
        let put = store
            .put_raw(&other, "doc", &nested(levels), vec![], PutMode::Upsert)
            .await;
        too_deep(put, &other);
        assert!(store.get_raw(&other).await.unwrap().is_none());
    }
    // Replacing a readable item with a too-deep one keeps the readable one.
    too_deep(
        store
            .put_raw(
                &key,
                "doc",
                &nested(MAX_VALUE_NESTING + 1),
                vec![],
                PutMode::Upsert,
            )
            .await,
        &key,
    );
    let kept = store.get_raw(&key).await.unwrap().unwrap();
    assert_eq!(kept.version(), got.version());
    // A typed item, and in a transaction too.
    let doc = Doc {
        id: 2,
        body: nested(MAX_VALUE_NESTING),
    };
    too_deep(store.put(&doc).await, &other);
    let mut t = store.transaction();
    t.put(&doc).unwrap();
    match t.commit().await {
        Err(sortpath_store::CommitError::Write(WriteError::BadValue { .. })) => {}
        other => panic!("expected BadValue, got {other:?}"),
    }
    assert!(store.get_raw(&other).await.unwrap().is_none());
}

#[tokio::test]
async fn encoded_values_are_kept_byte_for_byte_or_refused() {
    let store = Store::new(MemoryBackend::new());
    let key: KeyPath = "/reading-1".parse().unwrap();
    // f32, a byte string, an ext value, a non-string map key: what JSON would change.
    let payload = vec![
        0x94, 0xca, 0x3f, 0xc0, 0x00, 0x00, 0xc4, 0x02, 0x00, 0xff, 0xd4, 0x05, 0x09, 0x81, 0x07,
        0xa1, b'x',
    ];
    let raw = RawItem::from_payload(key.clone(), "Reading", 0, payload.clone());
    let v = store
        .put_raw_item(&raw, vec![], PutMode::Restore(41))
        .await
        .unwrap();
    assert_eq!(v, 41);
    let got = store.get_raw(&key).await.unwrap().unwrap();
    assert_eq!(
        (got.payload(), got.item_type(), got.version()),
        (&payload[..], "Reading", 41)
    );
    for (bad, problem) in [
        (vec![], ValueProblem::Malformed { offset: 0 }),
        (vec![0x92, 0x01], ValueProblem::Malformed { offset: 2 }),
        (vec![0xc1], ValueProblem::Malformed { offset: 0 }),
        (vec![0x01, 0x02], ValueProblem::Trailing { offset: 1 }),
    ] {
        let raw = RawItem::from_payload(key.clone(), "Reading", 0, bad);
        match store.put_raw_item(&raw, vec![], PutMode::Upsert).await {
            Err(WriteError::BadValue { problem: p, .. }) => assert_eq!(p, problem),
            other => panic!("expected BadValue, got {other:?}"),
        }
    }
    // Nothing changed.
    let still = store.get_raw(&key).await.unwrap().unwrap();
    assert_eq!((still.payload(), still.version()), (&payload[..], 41));
}
