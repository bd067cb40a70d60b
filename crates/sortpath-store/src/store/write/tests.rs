use sortpath::KeyPath;

use super::super::backend_key;
use crate::backend::memory::MemoryBackend;
use crate::backend::Backend;
use crate::envelope::Header;
use crate::{Limits, PutMode, Store};

fn path(s: &str) -> KeyPath {
    s.parse().unwrap()
}

/// The stored bytes of the item at `at`.
async fn stored(store: &Store<MemoryBackend>, at: &KeyPath) -> Vec<u8> {
    let key = backend_key(at).unwrap();
    store.backend.get(key).await.unwrap().unwrap().value
}

/// An item's envelope lists its index keys by name, whatever order they were given in, so
/// the same item is stored as the same bytes.
#[tokio::test]
async fn envelopes_list_index_keys_by_name() {
    let store = Store::new(MemoryBackend::new());
    let index = |name: &str, id: u64| (name.to_owned(), path(&format!("/{name}-{id}/t-1")));
    let given = [index("zeta", 1), index("alpha", 2), index("mid", 3)];
    let value = serde_json::json!({"n": 1});
    let (a, b) = (path("/t-1"), path("/t-2"));
    store
        .put_raw(&a, "t", &value, given.to_vec(), PutMode::Upsert)
        .await
        .unwrap();
    let reversed = given.iter().rev().cloned().collect();
    store
        .put_raw(&b, "t", &value, reversed, PutMode::Upsert)
        .await
        .unwrap();
    let bytes = stored(&store, &a).await;
    let header = Header::parse(&bytes).unwrap();
    let names: Vec<&str> = header.indexes.iter().map(|(n, _, _)| *n).collect();
    assert_eq!(names, ["alpha", "mid", "zeta"]);
    let paths: Vec<KeyPath> = header
        .indexes
        .iter()
        .map(|(_, _, enc)| KeyPath::decode(enc).unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            path("/alpha-2/t-1"),
            path("/mid-3/t-1"),
            path("/zeta-1/t-1")
        ]
    );
    assert_eq!(bytes, stored(&store, &b).await);
}

/// With several problems, a write reports the first in a fixed order: the envelope's shape
/// (index names in the order given), then the item's key and value sizes, then each index
/// entry in the order given.
#[tokio::test]
async fn the_first_problem_is_reported() {
    let store = Store::new(MemoryBackend::new()).with_limits(Limits::new(64, 48, 200));
    let at = path("/t-1");
    let put = |value: serde_json::Value, indexes: Vec<(String, KeyPath)>| {
        let (store, at) = (&store, &at);
        async move {
            let err = store.put_raw(at, "t", &value, indexes, PutMode::Upsert);
            err.await.unwrap_err().to_string()
        }
    };
    let index = |name: &str, p: &str| (name.to_owned(), path(p));
    // Repeated names: the first repeated in the order given.
    let twice = ["z", "z", "a", "a"].map(|n| index(n, "/x-1/t-1")).to_vec();
    let err = put(serde_json::json!(1), twice).await;
    assert!(err.contains("index z is given twice"), "{err}");
    // A value over its limit comes before an index key path that cannot make an entry.
    let big = serde_json::json!("v".repeat(300));
    let err = put(big, vec![index("a", "/x-1/y")]).await;
    assert!(err.starts_with("value of /t-1"), "{err}");
    // Index entries in the order given: "b" cannot make an entry, "a" is too long.
    let long = format!("/x-{}/t-1", "w".repeat(60));
    let both = vec![index("b", "/x-1/y"), index("a", &long)];
    let err = put(serde_json::json!(1), both).await;
    assert!(err.contains("(index b of item /t-1)"), "{err}");
}
