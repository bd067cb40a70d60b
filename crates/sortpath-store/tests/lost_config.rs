//! A store that holds items but lost its configuration record (issue #46 item 8: a SlateDB
//! log file emptied by damage held it) is never given a fresh configuration by a write:
//! that would drop the indexes it declared. Only the explicit take-over
//! (`Store::create_config_over_items`) records one. On redb, SlateDB and DynamoDB Local
//! (started by the test itself: `tests/dynamodb_server`; with the `dynamodb` feature).

mod common;
#[cfg(feature = "dynamodb")]
mod dynamodb_server;

use common::Ticket;
use sortpath_store::backend::slatedb::SlateDbBackend;
use sortpath_store::backend::{Backend, Condition, Write};
use sortpath_store::{layout, ConfigError, IndexDecl, PutMode, Store, StoreConfig, WriteError};

/// Writes items into a store with a declared index, then deletes its configuration record
/// (as damage would lose it); returns a new `Store` on the same backend.
async fn lost_config<B: Backend + Clone>(store: Store<B>) -> Store<B> {
    let config = StoreConfig::new(vec![IndexDecl::field("by_n", "note", "n", "/all-0")]);
    assert!(store.create_config(&config).await.unwrap());
    for n in 0..3u64 {
        let path = format!("/note-{n}").parse().unwrap();
        store
            .put_raw(
                &path,
                "note",
                &serde_json::json!({ "n": n }),
                vec![],
                PutMode::Upsert,
            )
            .await
            .unwrap_or_else(|e| panic!("put {n}: {e}"));
    }
    store
        .backend()
        .write(vec![Write::Delete {
            key: layout::config_key(),
            condition: Condition::None,
        }])
        .await
        .unwrap();
    Store::new(store.backend().clone())
}

fn is_unrecorded(e: &WriteError) -> bool {
    matches!(e, WriteError::Config(ConfigError::Unrecorded))
}

/// Every way a write records a configuration is refused, leaving no record; the explicit
/// take-over records one (with the items' types unknown).
async fn writes_never_record_a_configuration_over_items<B: Backend + Clone>(store: Store<B>) {
    let store = lost_config(store).await;
    let refused = store
        .create_config(&StoreConfig::default())
        .await
        .unwrap_err();
    assert!(is_unrecorded(&refused), "{refused:?}");
    let text = refused.to_string();
    assert!(
        text.contains("holds items but no configuration record"),
        "{text}"
    );
    assert!(text.contains("create_config_over_items"), "{text}");
    // A typed write would declare its program indexes in a new record.
    let ticket = Ticket {
        owner: 1,
        id: 1,
        updated_at: 5,
        status: None,
        title: "t".into(),
    };
    let refused = store.put(&ticket).await.unwrap_err();
    assert!(is_unrecorded(&refused), "{refused:?}");
    assert_eq!(store.recorded_config().await.unwrap(), None);
    assert!(store
        .get_raw(&"/user-1/ticket-1".parse().unwrap())
        .await
        .unwrap()
        .is_none());

    // The explicit take-over: the old path for an earlier release's store.
    assert!(store
        .create_config_over_items(&StoreConfig::default())
        .await
        .unwrap());
    assert_eq!(store.config().await.unwrap().types, None);
    store.put(&ticket).await.unwrap();
}

#[tokio::test]
async fn redb_writes_never_record_a_configuration_over_items() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).await.unwrap();
    writes_never_record_a_configuration_over_items(store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slatedb_writes_never_record_a_configuration_over_items() {
    let dir = tempfile::tempdir().unwrap();
    let backend = SlateDbBackend::open(dir.path().to_str().unwrap())
        .await
        .unwrap();
    writes_never_record_a_configuration_over_items(Store::new(backend.clone())).await;
    backend.close().await.unwrap();
}

#[cfg(feature = "dynamodb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamodb_writes_never_record_a_configuration_over_items() {
    use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    let server = dynamodb_server::server().await;
    let table = dynamodb_server::table_name("lostconfig");
    let backend = DynamoDbBackend::create_table(client(Some(&server.endpoint), None).await, &table)
        .await
        .unwrap_or_else(|e| panic!("create table {table} on {}: {e}", server.kind));
    writes_never_record_a_configuration_over_items(Store::new(backend)).await;
}

/// A handle that saw the configuration record, then finds it gone (lost to damage while the
/// process runs), writes no new one: the typed write that would declare its indexes, a raw
/// write and `create_config` are refused or change nothing, and the store is left as it was.
async fn a_handle_that_saw_the_record_writes_no_new_one<B: Backend + Clone>(store: Store<B>) {
    let config = StoreConfig::new(vec![IndexDecl::field("by_n", "note", "n", "/all-0")]);
    assert!(store.create_config(&config).await.unwrap());
    let note = |n: u64| serde_json::json!({ "n": n });
    store
        .put_raw(
            &"/note-1".parse().unwrap(),
            "note",
            &note(1),
            vec![],
            PutMode::Upsert,
        )
        .await
        .unwrap();
    // This handle now knows the store has a record; the record is then lost.
    assert!(store.recorded_config().await.unwrap().is_some());
    store
        .backend()
        .write(vec![Write::Delete {
            key: layout::config_key(),
            condition: Condition::None,
        }])
        .await
        .unwrap();
    let ticket = Ticket {
        owner: 1,
        id: 1,
        updated_at: 5,
        status: None,
        title: "t".into(),
    };
    let refused = store.put(&ticket).await.unwrap_err();
    assert!(is_unrecorded(&refused), "{refused:?}");
    let refused = store
        .put_raw(
            &"/note-2".parse().unwrap(),
            "note",
            &note(2),
            vec![],
            PutMode::Upsert,
        )
        .await
        .unwrap_err();
    assert!(is_unrecorded(&refused), "{refused:?}");
    assert!(!store.create_config(&StoreConfig::default()).await.unwrap());
    assert_eq!(store.recorded_config().await.unwrap(), None);
    for path in ["/user-1/ticket-1", "/note-2"] {
        assert!(
            store
                .get_raw(&path.parse().unwrap())
                .await
                .unwrap()
                .is_none(),
            "{path} was written"
        );
    }
}

#[tokio::test]
async fn a_memory_handle_that_saw_the_record_writes_no_new_one() {
    let backend = sortpath_store::backend::memory::MemoryBackend::new();
    a_handle_that_saw_the_record_writes_no_new_one(Store::new(backend)).await;
}

#[tokio::test]
async fn a_redb_handle_that_saw_the_record_writes_no_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).await.unwrap();
    a_handle_that_saw_the_record_writes_no_new_one(store).await;
}
