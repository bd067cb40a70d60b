//! Bad input gets a clear error, never a panic, and changes nothing.

mod common;

use common::{path, Counter, Ticket};
use sortpath::KeyPath;
use sortpath_store::backend::{memory::MemoryBackend, Backend, Condition, Key, Record, Write};
use sortpath_store::{
    Cursor, CursorError, GetError, Limits, ListError, NotAnItemError, PutMode, Query, Store,
    StoreError, WriteError,
};

fn ticket(id: i64) -> Ticket {
    Ticket {
        owner: 1,
        id,
        updated_at: id,
        status: Some("open".into()),
        title: String::new(),
    }
}

#[tokio::test]
async fn oversize_keys_and_values_write_nothing() {
    let store = Store::new(MemoryBackend::new()).with_limits(Limits::new(64, 48, 200));
    let long = "x".repeat(60);
    let t = Ticket {
        title: "y".repeat(300),
        ..ticket(1)
    };
    match store.put(&t).await {
        Err(WriteError::TooLarge {
            what,
            found,
            limit: 200,
            ..
        }) => {
            assert_eq!(what, "value");
            assert!(found > 200);
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    let deep = KeyPath::new()
        .push("user", 1u64)
        .unwrap()
        .push("ticket", long.as_str())
        .unwrap();
    let err = store
        .put_raw(&deep, "t", &1, vec![], PutMode::Upsert)
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with("sort key of /user-1/ticket-"),
        "{err}"
    );
    // The index entry's sort key (index path rest + item path) is over the limit too.
    let idx = vec![(
        "by_x".to_owned(),
        KeyPath::new()
            .push("x", 1u64)
            .unwrap()
            .push("y", &long[..30])
            .unwrap(),
    )];
    let err = store
        .put_raw(&path("/user-1/ticket-1"), "t", &1, idx, PutMode::Upsert)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("index by_x sort key"), "{err}");
    let wide = KeyPath::new().push("user", long.as_str()).unwrap();
    let err = store
        .put_raw(&wide, "t", &1, vec![], PutMode::Upsert)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("group key"), "{err}");
    assert!(store.backend().is_empty(), "nothing was written");
}

#[tokio::test]
async fn malformed_paths_and_names() {
    let store = Store::new(MemoryBackend::new());
    let no_group = path("/user");
    assert!(matches!(
        store.get_raw(&no_group).await,
        Err(GetError::InvalidKey(_))
    ));
    assert!(matches!(
        store.delete(&no_group).await,
        Err(WriteError::InvalidKey(_))
    ));
    let ns_only = path("/user-1/post");
    let err = store
        .put_raw(&ns_only, "t", &1, vec![], PutMode::Upsert)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("needs an ID"), "{err}");
    let err = store
        .put_raw(
            &path("/a-1"),
            "t",
            &1,
            vec![("bad name".into(), path("/x-1"))],
            PutMode::Upsert,
        )
        .await;
    assert!(matches!(err, Err(WriteError::InvalidIndexName { .. })));
    let err = store
        .put_raw(&path("/a-1"), "", &1, vec![], PutMode::Upsert)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("item type"), "{err}");
    let two = vec![("i".into(), path("/x-1")), ("i".into(), path("/x-2"))];
    let err = store
        .put_raw(&path("/a-1"), "t", &1, two, PutMode::Upsert)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("given twice"), "{err}");
    let q = Query::prefix(&path("/a-1")).unwrap();
    assert!(matches!(
        q.clone().gt(&path("/b-1/c-2")),
        Err(ListError::InvalidQuery(_))
    ));
    assert!(matches!(
        store.query_index_raw("", &q).await,
        Err(ListError::InvalidIndexName { .. })
    ));
    assert!(store.backend().is_empty());
}

/// Two item types that declare one index name share the index; a typed query of an index
/// the type does not declare is an error naming it, not an empty page; a bad index key names
/// the index and the item.
#[tokio::test]
async fn index_names_typos_and_bad_index_keys() {
    use serde::{Deserialize, Serialize};
    use sortpath::path::PathError;
    use sortpath_store::{Index, Item};

    #[derive(Serialize, Deserialize, Debug)]
    struct A {
        id: u64,
        x: u64,
    }
    #[derive(Serialize, Deserialize, Debug)]
    struct B {
        id: u64,
        x: u64,
    }
    impl Item for A {
        const TYPE: &'static str = "a";
        const INDEXES: &'static [Index<Self>] = &[Index::new("by_x", |v| {
            Ok(Some(KeyPath::new().push("xs", 0u64)?.push("x", v.x)?))
        })];
        fn key_path(&self) -> Result<KeyPath, PathError> {
            KeyPath::new().push("a", self.id)
        }
    }
    impl Item for B {
        const TYPE: &'static str = "b";
        const INDEXES: &'static [Index<Self>] = &[
            Index::new("by_x", |v| {
                Ok(Some(KeyPath::new().push("xs", 0u64)?.push("x", v.x)?))
            }),
            Index::new("ns_only", |v| {
                if v.x == 99 {
                    KeyPath::new().push_namespace("tags").map(Some)
                } else {
                    Ok(None)
                }
            }),
        ];
        fn key_path(&self) -> Result<KeyPath, PathError> {
            KeyPath::new().push("b", self.id)
        }
    }

    let store = Store::new(MemoryBackend::new());
    store.put(&A { id: 1, x: 5 }).await.unwrap();
    store.put(&B { id: 1, x: 6 }).await.unwrap();
    let q = Query::prefix(&path("/xs-0")).unwrap();
    let shared = store.query_index_raw("by_x", &q).await.unwrap();
    let keys: Vec<String> = shared.items.iter().map(|i| i.key().to_string()).collect();
    assert_eq!(keys, ["/a-1", "/b-1"]);
    // The typed query meets the other type's item and says so.
    let err = store.query_index::<A>("by_x", &q).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot decode item /b-1 (type b) as a"),
        "{err}"
    );
    // A name the type does not declare, even one another type writes.
    for name in ["by_y", "ns_only"] {
        match store.query_index::<A>(name, &q).await {
            Err(e @ ListError::UnknownIndex { .. }) => assert_eq!(
                e.to_string(),
                format!("item type a declares no index {name:?} (its indexes: [\"by_x\"])")
            ),
            other => panic!("expected UnknownIndex, got {other:?}"),
        }
    }
    let err = store.put(&B { id: 2, x: 99 }).await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("key path /tags (index ns_only of item /b-2) cannot be used here: "),
        "{err}"
    );
    assert!(store.get::<B>(&path("/b-2")).await.unwrap().is_none());
}

#[tokio::test]
async fn cursors_from_elsewhere_are_rejected() {
    let store = Store::new(MemoryBackend::new());
    for id in 0..5 {
        store.put(&ticket(id)).await.unwrap();
    }
    let q = Query::prefix(&path("/user-1")).unwrap().limit(2);
    let cursor = store.list_raw(&q).await.unwrap().cursor.unwrap();
    let text = cursor.to_string();
    // Another query (other direction, other range, an index) rejects it.
    for other in [
        q.clone().reverse(),
        Query::children(&path("/user-1"), "ticket")
            .unwrap()
            .limit(2),
        Query::prefix(&path("/user-2")).unwrap(),
    ] {
        let err = store
            .list_raw(&other.after(cursor.clone()))
            .await
            .unwrap_err();
        assert!(
            matches!(err, ListError::Cursor(CursorError::OtherQuery)),
            "{err}"
        );
    }
    let idx_q = Query::prefix(&path("/tickets-0")).unwrap();
    let err = store
        .query_index_raw("by_updated", &idx_q.after(cursor.clone()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ListError::Cursor(CursorError::OtherQuery)),
        "{err}"
    );
    // Truncated, altered, or not base64.
    assert!(matches!(
        text[..text.len() - 3].parse::<Cursor>(),
        Err(CursorError::Corrupt(_))
    ));
    let mut bytes = text.clone().into_bytes();
    bytes[4] = if bytes[4] == b'A' { b'B' } else { b'A' };
    assert!(String::from_utf8(bytes).unwrap().parse::<Cursor>().is_err());
    assert!(matches!(
        "not a cursor!".parse::<Cursor>(),
        Err(CursorError::NotBase64(_))
    ));
    // The real one still works.
    let rest = store
        .list_raw(&q.clone().after(text.parse().unwrap()))
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 2);
}

#[tokio::test]
async fn corrupt_records_are_errors_not_panics() {
    let store = Store::new(MemoryBackend::new());
    store.put(&ticket(1)).await.unwrap();
    let p = path("/user-1/ticket-2");
    let (group, sort) = p.split_group().unwrap();
    for garbage in [
        vec![],
        vec![0x01],
        vec![0x01, 200, b'x'],
        vec![0x09, 0, 0],
        vec![0x01, 1, b't', 1, 1, b'i', 0, 9, 1],
    ] {
        let put = Write::Put {
            key: Key::new(group.clone(), sort.clone()),
            record: Record {
                value: garbage.clone(),
                version: 1,
            },
            condition: Condition::None,
        };
        store.backend().write(vec![put]).await.unwrap();
        // Named by its key: a record where an item belongs that is not one of the store's.
        let err = store.get_raw(&p).await.unwrap_err();
        assert!(
            matches!(&err, GetError::NotAnItem(NotAnItemError { record, .. }) if record.key.as_ref() == Some(&p)),
            "{garbage:?}: {err}"
        );
        let err = store
            .list_raw(&Query::prefix(&path("/user-1")).unwrap())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("corrupt"), "{err}");
        assert!(matches!(
            store.put(&Ticket { id: 2, ..ticket(1) }).await,
            Err(WriteError::NotAnItem(NotAnItemError { record, .. })) if record.key.as_ref() == Some(&p)
        ));
    }
    // A garbage key in an item group (`FF` alone would be a root item placed last).
    let put = Write::Put {
        key: Key::new(group, vec![0xFE]),
        record: Record {
            value: vec![],
            version: 1,
        },
        condition: Condition::None,
    };
    store.backend().write(vec![put]).await.unwrap();
    let err = store
        .list_raw(&Query::prefix(&path("/user-1")).unwrap().reverse())
        .await
        .unwrap_err();
    // Named by its raw keys: they form no key path.
    assert!(
        matches!(&err, ListError::NotAnItem(NotAnItemError { record, .. }) if record.key.is_none() && record.sort == [0xFE]),
        "{err}"
    );
    assert!(
        err.to_string().contains("its key is not a key path"),
        "{err}"
    );
}

#[tokio::test]
async fn wrong_types_versions_and_keys() {
    let store = Store::new(MemoryBackend::new());
    let v = store.put(&ticket(1)).await.unwrap();
    let p = path("/user-1/ticket-1");
    assert!(matches!(
        store.get::<Counter>(&p).await,
        Err(GetError::Decode(_))
    ));
    assert!(matches!(
        store.put_with(&ticket(1), PutMode::IfVersion(v + 1)).await,
        Err(WriteError::VersionMismatch { expected, found: Some(f), .. }) if expected == v + 1 && f == v
    ));
    assert!(matches!(
        store.put_with(&ticket(1), PutMode::IfAbsent).await,
        Err(WriteError::AlreadyExists { .. })
    ));
    assert!(matches!(
        store.delete_if_version(&p, v + 5).await,
        Err(WriteError::VersionMismatch { .. })
    ));
    let moved = store
        .update(&p, |t: Option<Ticket>| t.map(|t| Ticket { id: 9, ..t }))
        .await;
    assert!(matches!(moved, Err(WriteError::KeyChanged { .. })));
    assert_eq!(
        store.get::<Ticket>(&p).await.unwrap().unwrap().version,
        v,
        "unchanged"
    );
    store.delete_if_version(&p, v).await.unwrap();
    assert!(store.get_raw(&p).await.unwrap().is_none());
}

/// A typed list decodes only its page's items: an item of another type just after the
/// page's end is not read as a `T` (it only shows there is more), but one inside is an error.
#[tokio::test]
async fn typed_lists_decode_only_their_page() {
    let store = Store::new(MemoryBackend::new());
    store.put(&ticket(1)).await.unwrap();
    store.put(&ticket(2)).await.unwrap();
    let other = path("/user-1/ticket-3");
    store
        .put_raw(&other, "note", &"not a ticket", vec![], PutMode::Upsert)
        .await
        .unwrap();
    let tickets = Query::children(&path("/user-1"), "ticket").unwrap();
    let page = store
        .list::<Ticket>(&tickets.clone().limit(2))
        .await
        .unwrap();
    let ids: Vec<i64> = page.items.iter().map(|v| v.item.id).collect();
    assert_eq!(ids, [1, 2]);
    let rest = tickets.clone().limit(2).after(page.cursor.expect("more"));
    assert!(matches!(
        store.list::<Ticket>(&rest).await,
        Err(ListError::Decode(_))
    ));
    assert!(matches!(
        store.list::<Ticket>(&tickets.limit(3)).await,
        Err(ListError::Decode(_))
    ));
}

/// Every kind of bad input against a populated store: each is an error (never a panic) and
/// the backend holds exactly the same records afterwards.
#[tokio::test]
async fn bad_input_campaign_changes_nothing() {
    let store = Store::new(MemoryBackend::new()).with_limits(Limits::new(64, 48, 400));
    for id in 0..6 {
        store.put(&ticket(id)).await.unwrap();
    }
    store.put(&Counter { id: 1, n: 1 }).await.unwrap();
    let before = store.backend().snapshot();

    // Malformed key path text never becomes a path.
    for text in [
        "",
        "user-1",
        "/-1",
        "/user-%zz",
        "/user-%4",
        "/user-1/",
        "//a-1",
        "/a b-1",
        "/\u{fc}-1",
        "/9-1",
        "/user-~!!",
        "/user-99999999999999999999999",
        "/a-1/b/c-2",
    ] {
        assert!(text.parse::<KeyPath>().is_err(), "{text:?} parsed");
    }
    // Oversize keys and values, bad paths and names, wrong versions: errors.
    let long = "k".repeat(100);
    let results: [Option<StoreError>; 14] = [
        store
            .put(&Ticket {
                title: "x".repeat(1000),
                ..ticket(1)
            })
            .await
            .err()
            .map(StoreError::from),
        store
            .put(&Ticket {
                owner: 1,
                id: 1,
                status: Some(long.clone()),
                ..ticket(1)
            })
            .await
            .err()
            .map(StoreError::from),
        store
            .put_raw(
                &KeyPath::new().push("user", long.as_str()).unwrap(),
                "t",
                &1,
                vec![],
                PutMode::Upsert,
            )
            .await
            .err()
            .map(StoreError::from),
        store
            .put_raw(&path("/user-1/post"), "t", &1, vec![], PutMode::Upsert)
            .await
            .err()
            .map(StoreError::from),
        store
            .put_raw(&path("/user-1"), "", &1, vec![], PutMode::Upsert)
            .await
            .err()
            .map(StoreError::from),
        store
            .put_raw(
                &path("/user-1"),
                "t",
                &1,
                vec![("no spaces".into(), path("/x-1"))],
                PutMode::Upsert,
            )
            .await
            .err()
            .map(StoreError::from),
        store
            .put_with(&ticket(1), PutMode::IfAbsent)
            .await
            .err()
            .map(StoreError::from),
        store
            .put_with(&ticket(1), PutMode::IfVersion(999))
            .await
            .err()
            .map(StoreError::from),
        store
            .put_with(&ticket(77), PutMode::IfVersion(1))
            .await
            .err()
            .map(StoreError::from),
        store
            .delete_if_version(&path("/user-1/ticket-1"), 999)
            .await
            .err()
            .map(StoreError::from),
        store
            .delete(&path("/user"))
            .await
            .err()
            .map(StoreError::from),
        store
            .get::<Counter>(&path("/user-1/ticket-1"))
            .await
            .err()
            .map(StoreError::from),
        store
            .query_index_raw("", &Query::prefix(&path("/tickets-0")).unwrap())
            .await
            .err()
            .map(StoreError::from),
        store
            .update(&path("/user-1/ticket-1"), |t: Option<Ticket>| {
                t.map(|t| Ticket { id: 5, ..t })
            })
            .await
            .err()
            .map(StoreError::from),
    ];
    for (i, r) in results.iter().enumerate() {
        assert!(r.is_some(), "bad input {i} was accepted");
    }

    // Cursors: every single-character change and every truncation is rejected.
    let q = Query::prefix(&path("/user-1")).unwrap().limit(2);
    let cursor = store.list_raw(&q).await.unwrap().cursor.unwrap();
    let text = cursor.to_string();
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for i in 0..text.len() {
        for &c in &ALPHABET[..8] {
            let mut t = text.clone().into_bytes();
            if t[i] == c {
                continue;
            }
            t[i] = c;
            let t = String::from_utf8(t).unwrap();
            assert!(
                t.parse::<Cursor>().is_err(),
                "cursor changed at {i} accepted: {t}"
            );
        }
    }
    for n in 0..text.len() {
        assert!(
            text[..n].parse::<Cursor>().is_err(),
            "cursor cut to {n} accepted"
        );
    }
    // Another query's cursor (other group, direction, range, or an index) is rejected.
    for other in [
        q.clone().reverse(),
        Query::prefix(&path("/user-2")).unwrap().limit(2),
        Query::children(&path("/user-1"), "ticket")
            .unwrap()
            .limit(2),
    ] {
        assert!(matches!(
            store.list_raw(&other.after(cursor.clone())).await,
            Err(ListError::Cursor(CursorError::OtherQuery))
        ));
    }
    assert!(matches!(
        store
            .query_index_raw(
                "by_updated",
                &Query::prefix(&path("/tickets-0"))
                    .unwrap()
                    .after(cursor.clone())
            )
            .await,
        Err(ListError::Cursor(CursorError::OtherQuery))
    ));
    // A cursor carries a query and a position, not a store: another store's cursor for the
    // same query resumes at the same position there (after /user-1/ticket-0), staying
    // inside the query's range.
    let other = Store::new(MemoryBackend::new());
    for id in [-5, 0, 3, 9] {
        other.put(&ticket(id)).await.unwrap();
    }
    let foreign = other.list_raw(&q).await.unwrap().cursor.unwrap();
    let resumed = store
        .list_raw(&q.clone().limit(10).after(foreign))
        .await
        .unwrap();
    let keys: Vec<String> = resumed.items.iter().map(|i| i.key().to_string()).collect();
    assert_eq!(
        keys,
        (1..6)
            .map(|i| format!("/user-1/ticket-{i}"))
            .collect::<Vec<_>>()
    );

    assert_eq!(
        store.backend().snapshot(),
        before,
        "bad input changed the store"
    );
}

/// An item type whose `Deserialize` panics: the caller's bug, not the store's.
#[cfg(feature = "redb")]
#[derive(Debug, serde::Serialize)]
struct Explodes {
    id: u64,
}

#[cfg(feature = "redb")]
impl<'de> serde::Deserialize<'de> for Explodes {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        panic!("Explodes cannot be read back");
    }
}

#[cfg(feature = "redb")]
impl sortpath_store::Item for Explodes {
    const TYPE: &'static str = "explodes";
    fn key_path(&self) -> Result<KeyPath, sortpath::path::PathError> {
        KeyPath::new().push("explodes", self.id)
    }
}

/// On the embedded store, lists and gets decode items on the blocking pool; a panic there
/// is resumed in the calling task with its own message (not reported as a damaged store
/// file), and the store goes on working.
#[cfg(feature = "redb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_deserialize_panics_in_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(Store::create(dir.path()).await.unwrap());
    store.put(&Explodes { id: 1 }).await.unwrap();
    let q = Query::prefix(&path("/explodes-1")).unwrap();
    let listing = {
        let (store, q) = (store.clone(), q.clone());
        tokio::spawn(async move { store.list::<Explodes>(&q).await.map(|p| p.items.len()) })
    };
    assert_panicked_reading_back(listing.await.unwrap_err());
    let getting = {
        let store = store.clone();
        tokio::spawn(async move { store.get::<Explodes>(&path("/explodes-1")).await.map(|_| 1) })
    };
    assert_panicked_reading_back(getting.await.unwrap_err());
    let raw = store.list_raw(&q).await.unwrap();
    assert_eq!(raw.items.len(), 1);
    assert_eq!(raw.items[0].item_type(), "explodes");
    let raw = store.get_raw(&path("/explodes-1")).await.unwrap().unwrap();
    assert_eq!(raw.item_type(), "explodes");
}

/// The task failed with the panic of `Explodes`' `Deserialize`.
#[cfg(feature = "redb")]
fn assert_panicked_reading_back(failed: tokio::task::JoinError) {
    let panic = failed.into_panic();
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    assert_eq!(message.as_deref(), Some("Explodes cannot be read back"));
}

/// An item written under raised limits can be read and deleted (by `delete`, a
/// transaction, or an `update` that returns `None`) through a store with lower limits: a
/// delete writes no new key or value.
#[tokio::test]
async fn items_over_the_limits_can_still_be_deleted() {
    let backend = MemoryBackend::new();
    let roomy = Store::new(backend.clone()).with_limits(Limits::new(4096, 4096, 1 << 20));
    let strict = Store::new(backend.clone()).with_limits(Limits::new(64, 48, 200));
    let long = |n: u64| {
        KeyPath::new()
            .push("user", n)
            .unwrap()
            .push("ticket", "k".repeat(100).as_str())
            .unwrap()
    };
    for n in 1..=3 {
        roomy
            .put_raw(
                &long(n),
                "counter",
                &Counter { id: n, n },
                vec![],
                PutMode::Upsert,
            )
            .await
            .unwrap();
    }
    // Writing such a key is refused by the strict store...
    let err = strict
        .put_raw(
            &long(4),
            "counter",
            &Counter { id: 4, n: 4 },
            vec![],
            PutMode::Upsert,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, WriteError::TooLarge { .. }), "{err}");
    // ...but reading and deleting what is there works.
    assert!(strict.get_raw(&long(1)).await.unwrap().is_some());
    assert!(strict.delete(&long(1)).await.unwrap());
    let mut txn = strict.transaction();
    txn.delete(&long(2)).unwrap();
    txn.commit().await.unwrap();
    let gone = strict
        .update(&long(3), |_: Option<Counter>| None)
        .await
        .unwrap();
    assert!(gone.is_none());
    for n in 1..=3 {
        assert!(strict.get_raw(&long(n)).await.unwrap().is_none(), "{n}");
    }
    // Deleting an absent item with an oversize key is no error either.
    assert!(!strict.delete(&long(9)).await.unwrap());
}
