//! Root items placed where an access pattern needs them (`StoreConfig::roots`): last, or
//! right before a child namespace. Every read and write path finds them there (get, batch
//! get, update, delete, conditional puts, transactions, lists in both directions with
//! limits and cursors, ranges, index queries) and the consistency check agrees. Each test
//! runs on the in-memory and the redb backend.

#![cfg(feature = "redb")]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::{memory::MemoryBackend, Backend, Key, Record};
use sortpath_store::check::{check_consistency, dump_groups};
use sortpath_store::{
    layout, CommitError, Index, Item, ListError, Page, PutMode, Query, RawItem, RootPlace, Store,
    StoreConfig, WriteError,
};

fn p(text: &str) -> KeyPath {
    text.parse().unwrap()
}

fn keys(page: &Page<RawItem>) -> Vec<String> {
    page.items.iter().map(|i| i.key().to_string()).collect()
}

async fn all_records<B: Backend>(store: &Store<B>) -> BTreeMap<Key, Record> {
    let groups = store.backend().groups(0).await.unwrap();
    dump_groups(store.backend(), groups).await.unwrap()
}

async fn put<B: Backend>(store: &Store<B>, path: &str) {
    store
        .put_raw(&p(path), "x", &path, vec![], PutMode::Upsert)
        .await
        .unwrap();
}

/// Lists `query` page by page with `limit`, checking that the pages join into `whole`.
async fn paged<B: Backend>(store: &Store<B>, query: Query, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut next = query.clone().limit(limit);
    loop {
        let page = store.list_raw(&next).await.unwrap();
        assert!(page.items.len() <= limit);
        out.extend(keys(&page));
        match page.cursor {
            Some(c) => next = query.clone().limit(limit).after(c),
            None => break,
        }
    }
    out
}

/// A customer placed last among its orders: "the customer and its newest N orders" is one
/// reverse list with a limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Customer {
    id: u64,
    name: String,
}

impl Item for Customer {
    const TYPE: &'static str = "customer";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_name", |c| {
        Ok(Some(
            KeyPath::new()
                .push("names", 0u64)?
                .push("name", c.name.as_str())?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("customer", self.id)
    }
}

async fn customer_last<B: Backend>(store: Store<B>) {
    let created = store
        .create_config(&StoreConfig::default().with_root("customer", RootPlace::Last))
        .await;
    // The redb store here was made by `Store::create` with the configuration already.
    assert!(created.is_ok(), "{created:?}");
    for id in 1..=5u64 {
        put(&store, &format!("/customer-7/order-{id}")).await;
    }
    let v1 = store
        .put(&Customer {
            id: 7,
            name: "Ann".into(),
        })
        .await
        .unwrap();
    put(&store, "/customer-8/order-1").await;

    // Stored at `FF`, not at `00`.
    let (group, _) = p("/customer-7").split_group().unwrap();
    let records = all_records(&store).await;
    assert!(records.contains_key(&Key::new(group.clone(), layout::ROOT_LAST.to_vec())));
    assert!(!records.contains_key(&Key::new(group, layout::ROOT_FIRST.to_vec())));
    check_consistency(&records).unwrap();

    // The customer and its two newest orders: one reverse list with a limit.
    let group = Query::prefix(&p("/customer-7")).unwrap();
    let newest = store
        .list_raw(&group.clone().reverse().limit(3))
        .await
        .unwrap();
    assert_eq!(
        keys(&newest),
        ["/customer-7", "/customer-7/order-5", "/customer-7/order-4"]
    );
    let forward = [
        "/customer-7/order-1",
        "/customer-7/order-2",
        "/customer-7/order-3",
        "/customer-7/order-4",
        "/customer-7/order-5",
        "/customer-7",
    ];
    assert_eq!(keys(&store.list_raw(&group).await.unwrap()), forward);
    // Cursors resume across the placed root in both directions, page size by page size.
    for limit in 1..=7 {
        assert_eq!(paged(&store, group.clone(), limit).await, forward);
        let mut backward: Vec<String> = forward.iter().map(|s| s.to_string()).collect();
        backward.reverse();
        assert_eq!(
            paged(&store, group.clone().reverse(), limit).await,
            backward
        );
    }
    // Ranges take the root where it is placed: after every order, not inside `/order`.
    let orders = Query::prefix(&p("/customer-7/order")).unwrap();
    assert_eq!(store.list_raw(&orders).await.unwrap().items.len(), 5);
    let after_3 = group.clone().gt(&p("/customer-7/order-3")).unwrap();
    assert_eq!(
        keys(&store.list_raw(&after_3).await.unwrap()),
        ["/customer-7/order-4", "/customer-7/order-5", "/customer-7"]
    );
    let up_to_3 = group.clone().lte(&p("/customer-7/order-3")).unwrap();
    assert_eq!(store.list_raw(&up_to_3).await.unwrap().items.len(), 3);
    assert_eq!(
        keys(&store.list_raw(&group.clone().from_root()).await.unwrap()),
        ["/customer-7"]
    );
    assert_eq!(
        store
            .list_raw(&group.clone().to_root())
            .await
            .unwrap()
            .items
            .len(),
        6
    );
    // Typed lists decode the root with the rest (`/order` items are not customers).
    let only = store
        .list::<Customer>(&group.clone().from_root())
        .await
        .unwrap();
    assert_eq!(only.items[0].item.name, "Ann");

    // Every read and write path finds it.
    let got = store.get::<Customer>(&p("/customer-7")).await.unwrap();
    assert_eq!(got.as_ref().map(|g| g.version), Some(v1));
    let batch = store
        .batch_get_raw(&[p("/customer-8"), p("/customer-7"), p("/customer-7/order-1")])
        .await
        .unwrap();
    assert!(batch[0].is_none() && batch[1].is_some() && batch[2].is_some());
    let again = store
        .put_with(
            &Customer {
                id: 7,
                name: "Ann".into(),
            },
            PutMode::IfAbsent,
        )
        .await;
    assert!(
        matches!(again, Err(WriteError::AlreadyExists { .. })),
        "{again:?}"
    );
    let v2 = store
        .put_with(
            &Customer {
                id: 7,
                name: "Anna".into(),
            },
            PutMode::IfVersion(v1),
        )
        .await
        .unwrap();
    let updated = store
        .update(&p("/customer-7"), |c: Option<Customer>| {
            let mut c = c.expect("the customer is found");
            c.name = "Anne".into();
            Some(c)
        })
        .await
        .unwrap()
        .unwrap();
    assert_ne!(updated.version, v2);
    let by_name = store
        .query_index::<Customer>("by_name", &Query::prefix(&p("/names-0")).unwrap())
        .await
        .unwrap();
    assert_eq!(by_name.items.len(), 1);
    assert_eq!(by_name.items[0].item.name, "Anne");

    let mut txn = store.transaction();
    let read = txn.get::<Customer>(&p("/customer-7")).await.unwrap();
    assert_eq!(read.unwrap().version, updated.version);
    txn.put(&Customer {
        id: 7,
        name: "Bo".into(),
    })
    .unwrap();
    txn.commit().await.unwrap();
    // A transaction that read the root fails if it changed meanwhile.
    let mut txn = store.transaction();
    txn.get_raw(&p("/customer-7")).await.unwrap();
    txn.put(&Customer {
        id: 7,
        name: "Cy".into(),
    })
    .unwrap();
    store
        .put(&Customer {
            id: 7,
            name: "Di".into(),
        })
        .await
        .unwrap();
    assert!(matches!(
        txn.commit().await,
        Err(CommitError::Conflict { .. })
    ));
    check_consistency(&all_records(&store).await).unwrap();

    assert!(store.delete(&p("/customer-7")).await.unwrap());
    assert!(store.get_raw(&p("/customer-7")).await.unwrap().is_none());
    assert_eq!(store.list_raw(&group).await.unwrap().items.len(), 5);
    let records = all_records(&store).await;
    check_consistency(&records).unwrap();
    assert!(records.keys().all(|k| k.sort != layout::ROOT_LAST));
}

#[tokio::test]
async fn a_root_placed_last_is_read_first_in_reverse() {
    customer_last(Store::new(MemoryBackend::new())).await;
    let dir = tempfile::tempdir().unwrap();
    let config = StoreConfig::default().with_root("customer", RootPlace::Last);
    let store = Store::builder()
        .config(config.clone())
        .create_new(dir.path())
        .await
        .unwrap();
    // The configuration is there already: creating it again changes nothing.
    assert!(!store.create_config(&config).await.unwrap());
    customer_last(store).await;
}

/// Teams before the org, users after it: "the org and its users alphabetically" and "the
/// org and its teams" are each one list from the root.
async fn org_between<B: Backend>(store: Store<B>) {
    for path in [
        "/org-1/team-2",
        "/org-1/team-9",
        "/org-1/user-ann",
        "/org-1/user-bob",
        "/org-1/user-cy",
        "/org-1",
        "/org-1/zone-1",
    ] {
        put(&store, path).await;
    }
    let (group, _) = p("/org-1").split_group().unwrap();
    let records = all_records(&store).await;
    assert!(records.contains_key(&Key::new(group, b"user".to_vec())));
    check_consistency(&records).unwrap();

    let org = Query::prefix(&p("/org-1")).unwrap();
    let whole = [
        "/org-1/team-2",
        "/org-1/team-9",
        "/org-1",
        "/org-1/user-ann",
        "/org-1/user-bob",
        "/org-1/user-cy",
        "/org-1/zone-1",
    ];
    assert_eq!(keys(&store.list_raw(&org).await.unwrap()), whole);
    let users = store
        .list_raw(&org.clone().from_root().limit(3))
        .await
        .unwrap();
    assert_eq!(
        keys(&users),
        ["/org-1", "/org-1/user-ann", "/org-1/user-bob"]
    );
    let teams = store
        .list_raw(&org.clone().to_root().reverse())
        .await
        .unwrap();
    assert_eq!(keys(&teams), ["/org-1", "/org-1/team-9", "/org-1/team-2"]);
    for limit in 1..=4 {
        assert_eq!(
            paged(&store, org.clone().to_root().reverse(), limit).await,
            ["/org-1", "/org-1/team-9", "/org-1/team-2"]
        );
        assert_eq!(paged(&store, org.clone(), limit).await, whole);
    }
    // The namespace's own lists leave the root out.
    for q in [
        Query::children(&p("/org-1"), "user").unwrap(),
        Query::prefix(&p("/org-1/user")).unwrap(),
    ] {
        assert_eq!(store.list_raw(&q).await.unwrap().items.len(), 3);
    }
    // Bounds around it.
    let before_ann = org.clone().lt(&p("/org-1/user-ann")).unwrap();
    assert_eq!(
        keys(&store.list_raw(&before_ann).await.unwrap()),
        ["/org-1/team-2", "/org-1/team-9", "/org-1"]
    );
    let after_teams = org.clone().gt(&p("/org-1/team-9")).unwrap();
    assert_eq!(
        store.list_raw(&after_teams).await.unwrap().items[0].key(),
        &p("/org-1")
    );
    // Index queries have no root to bound them by.
    let refused = store
        .query_index_raw("by_any", &Query::prefix(&p("/x-1")).unwrap().from_root())
        .await;
    assert!(
        matches!(refused, Err(ListError::InvalidQuery(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_root_placed_before_a_namespace_reads_both_ways() {
    let config = StoreConfig::default().with_root("org", RootPlace::Before("user".into()));
    let mem = Store::new(MemoryBackend::new());
    assert!(mem.create_config(&config).await.unwrap());
    org_between(mem).await;
    let dir = tempfile::tempdir().unwrap();
    org_between(
        Store::builder()
            .config(config.clone())
            .create_new(dir.path())
            .await
            .unwrap(),
    )
    .await;
    // Another process (a new handle) finds the root where it is.
    let store = Store::open(dir.path()).await.unwrap();
    assert!(store.get_raw(&p("/org-1")).await.unwrap().is_some());
    let (batch, missing) = (
        store.batch_get_raw(&[p("/org-1")]).await.unwrap(),
        store.get_raw(&p("/org-2")).await.unwrap(),
    );
    assert!(batch[0].is_some() && missing.is_none());
}

#[tokio::test]
async fn root_places_are_chosen_before_items_exist() {
    // A store that holds a root item without a configuration record cannot place roots:
    // the item would be lost from view.
    let store = Store::new(MemoryBackend::new());
    store
        .backend()
        .write(vec![sortpath_store::backend::Write::Put {
            key: Key::new(p("/customer-1").encode(), layout::ROOT_FIRST.to_vec()),
            record: Record {
                value: b"not even an item".to_vec(),
                version: 1,
            },
            condition: sortpath_store::backend::Condition::None,
        }])
        .await
        .unwrap();
    let placed = StoreConfig::default().with_root("customer", RootPlace::Last);
    let refused = store.create_config_over_items(&placed).await;
    assert!(
        matches!(&refused, Err(WriteError::Config(m)) if m.to_string().contains("holds")),
        "{refused:?}"
    );
    assert_eq!(store.config().await.unwrap(), StoreConfig::default());
    // Without places, taken over explicitly, it is fine.
    assert!(store.create_config(&StoreConfig::default()).await.is_err());
    assert!(store
        .create_config_over_items(&StoreConfig::default())
        .await
        .unwrap());

    // A store whose first write made the configuration record keeps its roots first.
    let store = Store::new(MemoryBackend::new());
    put(&store, "/customer-1").await;
    assert!(!store.create_config(&placed).await.unwrap());
    assert!(store.get_raw(&p("/customer-1")).await.unwrap().is_some());

    // Invalid places are refused before anything is written.
    let dir = tempfile::tempdir().unwrap();
    let bad = StoreConfig::default().with_root("customer", RootPlace::Before("us er".into()));
    assert!(Store::builder()
        .config(bad.clone())
        .create_new(dir.path())
        .await
        .is_err());
    assert!(!dir
        .path()
        .join(sortpath_store::backend::redb::DATA_FILE_NAME)
        .exists());
    assert!(Store::new(MemoryBackend::new())
        .create_config(&bad)
        .await
        .is_err());
}

#[test]
fn root_places_need_configuration_format_2() {
    let placed = StoreConfig::default().with_root("org", RootPlace::Before("user".into()));
    let json = String::from_utf8(placed.to_json()).unwrap();
    assert_eq!(
        json,
        r#"{"format":2,"indexes":[],"types":[],"roots":{"org":{"before":"user"}}}"#
    );
    assert_eq!(StoreConfig::from_json(json.as_bytes()).unwrap(), placed);
    // An earlier release reads format 1 only, so it cannot take these roots for first ones;
    // and a format 1 record with roots is not one this release wrote.
    let as_1 = json.replace(r#""format":2"#, r#""format":1"#);
    let err = StoreConfig::from_json(as_1.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("need format 2"), "{err}");
    // Without roots, format 1, as before.
    assert!(StoreConfig::default()
        .to_json()
        .starts_with(br#"{"format":1,"#));
    for (text, place) in [
        ("first", RootPlace::First),
        ("last", RootPlace::Last),
        ("before:user", RootPlace::Before("user".into())),
    ] {
        assert_eq!(text.parse::<RootPlace>().unwrap(), place);
        assert_eq!(place.to_string(), text);
    }
    for bad in ["", "before:", "before:1", "middle", "Last"] {
        assert!(bad.parse::<RootPlace>().is_err(), "{bad}");
    }
}

/// The placed sort keys sort where they must among every key path encoding: `FF` above all,
/// a namespace's bytes right below that namespace's keys and above every lower one's.
#[test]
fn placed_sort_keys_sort_between_the_right_keys() {
    use proptest::prelude::*;
    let namespace = "[a-zA-Z_]{1,6}";
    let rest = (namespace, 0u64..1000, proptest::option::of(namespace));
    proptest!(|(root_ns in namespace, (ns, id, deeper) in rest)| {
        let mut path = KeyPath::new().push("g", 1u64).unwrap().push(&ns, id).unwrap();
        if let Some(d) = &deeper {
            path = path.push(d, 1u64).unwrap();
        }
        let (_, sort) = path.split_group().unwrap();
        let before = layout::root_sort_key(&RootPlace::Before(root_ns.clone()));
        prop_assert!(sort.as_slice() < layout::ROOT_LAST.as_slice());
        prop_assert!(sort.as_slice() > layout::ROOT_FIRST.as_slice());
        // Before the namespace's keys, after every lower namespace's.
        prop_assert_eq!(before < sort, root_ns.as_str() <= ns.as_str(), "{} vs {}", root_ns, ns);
        prop_assert_eq!(layout::placed_root(&sort), None);
        prop_assert_eq!(
            layout::placed_root(&before),
            Some(RootPlace::Before(root_ns.clone()))
        );
    });
}

/// A backend on which another process creates the configuration, placing customers last,
/// while a write of a root item is between reading the configuration (none yet) and
/// committing: at the commit's read of its records.
#[derive(Debug, Clone, Default)]
struct CreatedMeanwhile {
    inner: MemoryBackend,
    armed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Backend for CreatedMeanwhile {
    async fn get(&self, key: Key) -> Result<Option<Record>, sortpath_store::backend::BackendError> {
        self.inner.get(key).await
    }
    async fn batch_get(
        &self,
        keys: Vec<Key>,
    ) -> Result<Vec<Option<Record>>, sortpath_store::backend::BackendError> {
        if keys.contains(&layout::config_key())
            && self.armed.swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            let placed = StoreConfig::default().with_root("customer", RootPlace::Last);
            assert!(Store::new(self.inner.clone())
                .create_config(&placed)
                .await
                .unwrap());
        }
        self.inner.batch_get(keys).await
    }
    async fn scan(
        &self,
        scan: sortpath_store::backend::Scan,
    ) -> Result<Vec<sortpath_store::backend::Entry>, sortpath_store::backend::BackendError> {
        self.inner.scan(scan).await
    }
    async fn groups(
        &self,
        from: u8,
    ) -> Result<Vec<Vec<u8>>, sortpath_store::backend::BackendError> {
        self.inner.groups(from).await
    }
    async fn write(
        &self,
        writes: Vec<sortpath_store::backend::Write>,
    ) -> Result<(), sortpath_store::backend::BackendError> {
        self.inner.write(writes).await
    }
}

#[tokio::test]
async fn a_configuration_created_during_a_root_write_fails_it_whole() {
    let backend = CreatedMeanwhile::default();
    let store = Store::new(backend.clone());
    backend
        .armed
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let raced = store
        .put_raw(&p("/customer-1"), "x", &1, vec![], PutMode::Upsert)
        .await;
    assert!(
        matches!(&raced, Err(WriteError::Config(m)) if m.to_string().contains("write again")),
        "{raced:?}"
    );
    // Nothing was written: the root is not at the first place, and there is no item.
    let records = all_records(&store).await;
    assert!(
        records
            .keys()
            .all(|k| k.group == layout::config_key().group),
        "{records:?}"
    );
    // Written again, it goes where the configuration now places it.
    store
        .put_raw(&p("/customer-1"), "x", &1, vec![], PutMode::Upsert)
        .await
        .unwrap();
    let (group, _) = p("/customer-1").split_group().unwrap();
    assert!(all_records(&store)
        .await
        .contains_key(&Key::new(group, layout::ROOT_LAST.to_vec())));
    assert!(store.get_raw(&p("/customer-1")).await.unwrap().is_some());
}
