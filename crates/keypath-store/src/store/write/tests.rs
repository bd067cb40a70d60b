use keypath::KeyPath;

use super::super::backend_key;
use crate::backend::memory::MemoryBackend;
use crate::backend::Backend;
use crate::envelope::Header;
use crate::{PutMode, Store};

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
