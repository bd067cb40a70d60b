//! The DynamoDB backend against a real local server (DynamoDB Local, or moto without Java),
//! started by the tests themselves: see `dynamodb_server/mod.rs`.

mod common;
mod dynamodb_server;
mod strategy_checks;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use common::{path, Ticket};
use sortpath_store::backend::dynamodb::{client, DynamoDbBackend, OpenError, RequestCounter};
use sortpath_store::backend::{Backend, BackendError, Condition, Key, Record, Scan, Write};
use sortpath_store::{CommitError, ListError, Query, Store, WriteError};

/// A fresh table on the shared server, with a request counter.
async fn fresh(prefix: &str) -> (DynamoDbBackend, RequestCounter) {
    let server = dynamodb_server::server().await;
    let counter = RequestCounter::default();
    let sdk = client(Some(&server.endpoint), Some(&counter)).await;
    let table = dynamodb_server::table_name(prefix);
    let backend = DynamoDbBackend::create_table(sdk, &table)
        .await
        .unwrap_or_else(|e| panic!("create table {table} on {}: {e}", server.kind));
    counter.take();
    (backend, counter)
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn ticket(owner: u64, id: i64, updated_at: i64, title: &str) -> Ticket {
    Ticket {
        owner,
        id,
        updated_at,
        status: Some("open".into()),
        title: title.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_suite() {
    let (backend, _) = fresh("conformance").await;
    sortpath_store::conformance::run(|| {
        let b = backend.clone();
        async move { b }
    })
    .await;
}

#[tokio::test]
async fn round_trips_per_store_operation() {
    let (backend, counter) = fresh("requests").await;
    let store = Store::new(backend);
    // The first write of a store reads its configuration once (whether it keeps group
    // counters); a table without the record is scanned once (one request, as it is empty:
    // a table an earlier release filled would make the new type's indexes building); a put
    // of an item with indexes then reads the old item and writes in one atomic request
    // (which also creates the configuration record, declaring the type).
    store.put(&ticket(1, 1, 10, "first")).await.unwrap();
    assert_eq!(
        counter.take(),
        counts(&[
            ("BatchGetItem", 1),
            ("GetItem", 1),
            ("Scan", 1),
            ("TransactWriteItems", 1)
        ])
    );
    store.put(&ticket(1, 1, 11, "again")).await.unwrap();
    assert_eq!(
        counter.take(),
        counts(&[("BatchGetItem", 1), ("TransactWriteItems", 1)])
    );
    let got = store
        .get::<Ticket>(&path("/user-1/ticket-1"))
        .await
        .unwrap();
    assert_eq!(got.unwrap().item.title, "again");
    assert_eq!(counter.take(), counts(&[("BatchGetItem", 1)]));
    for id in 2..=100 {
        store.put(&ticket(1, id, 10 + id, "t")).await.unwrap();
    }
    counter.take();
    let page = store
        .list::<Ticket>(&Query::prefix(&path("/user-1")).unwrap().limit(100))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 100);
    let list_requests = counter.take();
    assert_eq!(list_requests, counts(&[("Query", 1)]), "list of 100");
    // A transaction of 10 puts in one group: one read, one TransactWriteItems.
    let mut txn = store.transaction();
    for id in 200..210 {
        txn.put(&ticket(2, id, id, "txn")).unwrap();
    }
    txn.commit().await.unwrap();
    assert_eq!(
        counter.take(),
        counts(&[("BatchGetItem", 1), ("TransactWriteItems", 1)]),
        "transaction of 10"
    );
}

#[tokio::test]
async fn index_stays_exact_when_the_indexed_field_changes() {
    let (backend, counter) = fresh("index").await;
    let store = Store::new(backend);
    store.put(&ticket(1, 1, 50, "a")).await.unwrap();
    store.put(&ticket(1, 2, 70, "b")).await.unwrap();
    store.put(&ticket(1, 1, 90, "a2")).await.unwrap();
    let q = Query::prefix(&path("/tickets-0")).unwrap().reverse();
    let page = store.query_index::<Ticket>("by_updated", &q).await.unwrap();
    let order: Vec<(i64, i64)> = page
        .items
        .iter()
        .map(|t| (t.item.id, t.item.updated_at))
        .collect();
    assert_eq!(order, [(1, 90), (2, 70)]);
    // Entries of the old value are gone from the table itself, not just filtered.
    let raw = store
        .backend()
        .client()
        .scan()
        .table_name(store.backend().table())
        .send()
        .await
        .unwrap();
    let index_entries = raw
        .items()
        .iter()
        .filter(|i| matches!(i.get("pk"), Some(AttributeValue::B(b)) if b.as_ref().starts_with(&[0, 2])))
        .count();
    assert_eq!(index_entries, 4, "2 tickets x 2 indexes, no stale entry");
    store.delete(&path("/user-1/ticket-1")).await.unwrap();
    let page = store.query_index::<Ticket>("by_updated", &q).await.unwrap();
    assert_eq!(page.items.len(), 1);
    counter.take();
}

#[tokio::test]
async fn limits_are_exact_across_one_megabyte_pages() {
    let (backend, counter) = fresh("pages").await;
    let store = Store::new(backend);
    // 40 items of ~60 KB: about 2.4 MB in one group, so a Query needs several 1 MB pages.
    let big = "x".repeat(60_000);
    for id in 0..40 {
        store.put(&ticket(7, id, id, &big)).await.unwrap();
    }
    counter.take();
    for (limit, reverse) in [(30, false), (30, true), (40, false), (100, true)] {
        let mut q = Query::prefix(&path("/user-7")).unwrap().limit(limit);
        if reverse {
            q = q.reverse();
        }
        let page = store.list::<Ticket>(&q).await.unwrap();
        let ids: Vec<i64> = page.items.iter().map(|t| t.item.id).collect();
        let mut expected: Vec<i64> = (0..40).collect();
        if reverse {
            expected.reverse();
        }
        expected.truncate(limit);
        assert_eq!(ids, expected, "limit {limit} reverse {reverse}");
        let queries = counter.take().get("Query").copied().unwrap_or(0);
        assert!(
            queries >= 2,
            "{queries} Query requests for {limit} items of 60 KB"
        );
    }
    // Resume with the cursor: exactly the rest.
    let q = Query::prefix(&path("/user-7")).unwrap().limit(25);
    let first = store.list::<Ticket>(&q).await.unwrap();
    let rest = store
        .list::<Ticket>(&q.clone().after(first.cursor.unwrap()))
        .await
        .unwrap();
    assert_eq!(rest.items.first().map(|t| t.item.id), Some(25));
    assert_eq!(rest.items.len(), 15);
}

#[tokio::test]
async fn conflicting_transaction_writes_nothing() {
    let (backend, _) = fresh("txn").await;
    let store = Store::new(backend);
    store.put(&ticket(1, 1, 1, "a")).await.unwrap();
    let mut txn = store.transaction();
    let read = txn.get::<Ticket>(&path("/user-1/ticket-1")).await.unwrap();
    assert!(read.is_some());
    txn.put(&ticket(1, 2, 2, "b")).unwrap();
    txn.put(&ticket(3, 1, 3, "c")).unwrap();
    // Someone else changes what the transaction read.
    store.put(&ticket(1, 1, 5, "changed")).await.unwrap();
    match txn.commit().await {
        Err(CommitError::Conflict { key }) => assert_eq!(key, path("/user-1/ticket-1")),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert!(store
        .get::<Ticket>(&path("/user-1/ticket-2"))
        .await
        .unwrap()
        .is_none());
    assert!(store
        .get::<Ticket>(&path("/user-3/ticket-1"))
        .await
        .unwrap()
        .is_none());
}

fn put(group: &[u8], sort: &[u8], value: Vec<u8>) -> Write {
    Write::Put {
        key: Key::new(group, sort),
        record: Record { value, version: 1 },
        condition: Condition::None,
    }
}

#[tokio::test]
async fn limits_are_checked_before_sending() {
    let (backend, counter) = fresh("limits").await;
    let too_many: Vec<Write> = (0..101u8).map(|i| put(b"g", &[i + 1], vec![i])).collect();
    let cases: Vec<(Vec<Write>, &str)> = vec![
        (too_many, "writes in one DynamoDB TransactWriteItems"),
        (
            vec![put(&[b'g'; 2049], b"s", vec![])],
            "DynamoDB partition key bytes",
        ),
        (
            vec![put(b"g", &[1; 1025], vec![])],
            "DynamoDB sort key bytes",
        ),
        (
            vec![put(b"g", b"s", vec![7; 400 * 1024])],
            "DynamoDB item bytes",
        ),
        (
            (0..12u8)
                .map(|i| put(b"g", &[i + 1], vec![i; 380 * 1024]))
                .collect(),
            "bytes in one DynamoDB TransactWriteItems",
        ),
    ];
    for (writes, what) in cases {
        match backend.write(writes).await {
            Err(BackendError::LimitExceeded { what: w, .. }) => assert_eq!(w, what),
            other => panic!("{what}: expected LimitExceeded, got {other:?}"),
        }
    }
    assert_eq!(counter.total(), 0, "nothing was sent");
    // Reads of keys no write can store answer "absent", also without a request.
    let long_group = Key::new(&[b'g'; 2049][..], b"s".as_slice());
    let long_sort = Key::new(b"g".as_slice(), &[1; 1025][..]);
    assert_eq!(backend.get(long_group.clone()).await.unwrap(), None);
    assert_eq!(backend.get(long_sort.clone()).await.unwrap(), None);
    assert_eq!(
        backend
            .batch_get(vec![long_group, long_sort])
            .await
            .unwrap(),
        vec![None, None]
    );
    assert!(backend
        .scan(Scan::group(vec![b'g'; 2049]))
        .await
        .unwrap()
        .is_empty());
    assert_eq!(counter.total(), 0, "nothing was sent");
    // At the limits, it works: 100 writes, a 2048-byte partition key, a 1024-byte sort key.
    let hundred: Vec<Write> = (0..100u8).map(|i| put(b"g", &[i + 1], vec![i])).collect();
    backend.write(hundred).await.unwrap();
    backend
        .write(vec![put(&[b'g'; 2048], &[1; 1024], vec![1])])
        .await
        .unwrap();
    assert_eq!(
        backend
            .scan(Scan::group(b"g".to_vec()))
            .await
            .unwrap()
            .len(),
        100
    );
}

#[tokio::test]
async fn conditional_failures_name_the_write_and_version() {
    let (backend, counter) = fresh("cond").await;
    backend
        .write(vec![Write::Put {
            key: Key::new(b"g".as_slice(), b"a".as_slice()),
            record: Record {
                value: b"v".to_vec(),
                version: 5,
            },
            condition: Condition::None,
        }])
        .await
        .unwrap();
    let batch = vec![
        put(b"g", b"b", vec![1]),
        Write::Check {
            key: Key::new(b"g".as_slice(), b"a".as_slice()),
            condition: Condition::VersionEquals(4),
        },
    ];
    match backend.write(batch).await {
        Err(BackendError::ConditionFailed { index, current }) => {
            assert_eq!((index, current), (1, Some(5)));
        }
        other => panic!("expected ConditionFailed, got {other:?}"),
    }
    let single = vec![Write::Put {
        key: Key::new(b"g".as_slice(), b"a".as_slice()),
        record: Record {
            value: vec![],
            version: 6,
        },
        condition: Condition::NotExists,
    }];
    counter.take();
    match backend.write(single).await {
        Err(BackendError::ConditionFailed { index, current }) => {
            assert_eq!((index, current), (0, Some(5)));
        }
        other => panic!("expected ConditionFailed, got {other:?}"),
    }
    assert_eq!(counter.take(), counts(&[("PutItem", 1)]));
}

#[tokio::test]
async fn schema_mismatch_is_a_clear_error() {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    let server = dynamodb_server::server().await;
    let sdk = client(Some(&server.endpoint), None).await;
    let table = dynamodb_server::table_name("schema");
    sdk.create_table()
        .table_name(&table)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let err = DynamoDbBackend::open(sdk.clone(), &table)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, OpenError::Schema { .. }), "{text}");
    assert!(text.contains("pk has type S, expected B"), "{text}");
    assert!(text.contains("no RANGE key"), "{text}");
    let missing = DynamoDbBackend::open(sdk, "no-such-table")
        .await
        .unwrap_err();
    assert!(matches!(missing, OpenError::Missing { .. }), "{missing}");
}

#[tokio::test]
async fn items_are_native_attributes() {
    let (backend, _) = fresh("native").await;
    let store = Store::new(backend);
    // Stored with field names (as `sortpath db` and `Item::SELF_DESCRIBING` types store
    // them): native attributes.
    let named = serde_json::to_value(ticket(4, 2, 33, "readable")).unwrap();
    store
        .put_raw(
            &path("/user-4/ticket-2"),
            "ticket",
            &named,
            vec![],
            sortpath_store::PutMode::Upsert,
        )
        .await
        .unwrap();
    // A compact item (a Rust type's default): one binary attribute.
    store.put(&ticket(4, 3, 34, "compact")).await.unwrap();
    let b = store.backend();
    let stored = |id: &str| {
        let sort = path(&format!("/ticket-{id}")).encode();
        let group = path("/user-4").encode();
        b.client()
            .get_item()
            .table_name(b.table())
            .key("pk", AttributeValue::B(group.into()))
            .key("sk", AttributeValue::B(sort.into()))
            .send()
    };
    let compact = stored("3").await.unwrap();
    let compact = compact.item().expect("stored item");
    assert!(
        matches!(compact.get("val"), Some(AttributeValue::B(_))),
        "{compact:?}"
    );
    assert!(!compact.contains_key("item") && !compact.contains_key("type"));
    let raw = stored("2").await.unwrap();
    let item = raw.item().expect("stored item");
    assert_eq!(item.get("type"), Some(&AttributeValue::S("ticket".into())));
    let Some(AttributeValue::M(fields)) = item.get("item") else {
        panic!("item fields are not a map: {item:?}")
    };
    assert_eq!(
        fields.get("title"),
        Some(&AttributeValue::S("readable".into()))
    );
    assert_eq!(
        fields.get("updated_at"),
        Some(&AttributeValue::N("33".into()))
    );
    assert_eq!(
        fields.get("status"),
        Some(&AttributeValue::S("open".into()))
    );
    assert!(!item.contains_key("val"));
    let got = store
        .get::<Ticket>(&path("/user-4/ticket-2"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.item, ticket(4, 2, 33, "readable"));
}

#[tokio::test]
async fn values_round_trip_byte_for_byte() {
    let (backend, _) = fresh("bytes").await;
    // An envelope with an item type and no indexes, then a payload.
    let envelope = |payload: &[u8]| [&[1u8, 1, b't', 0][..], payload].concat();
    let payloads: Vec<Vec<u8>> = vec![
        rmp_serde::to_vec_named(
            &serde_json::json!({"z": 1, "a": [1.5, -2, "s"], "m": {"k": null}}),
        )
        .unwrap(),
        rmp_serde::to_vec(&f64::NAN).unwrap(),
        rmp_serde::to_vec(&1e300).unwrap(),
        rmp_serde::to_vec(&(0.1f32, 1e-7f64, u64::MAX, i64::MIN)).unwrap(),
        vec![0xcd, 0x00, 0x05],
        vec![0xd4, 0x01, 0x02],
    ];
    let mut values: Vec<Vec<u8>> = payloads.iter().map(|p| envelope(p)).collect();
    values.extend([
        vec![],
        vec![0],
        vec![1],
        (0..=255).collect(),
        b"plain".to_vec(),
    ]);
    for (i, value) in values.iter().enumerate() {
        let key = Key::new(b"bytes".as_slice(), vec![1, i as u8]);
        backend
            .write(vec![Write::Put {
                key: key.clone(),
                record: Record {
                    value: value.clone(),
                    version: i as u64,
                },
                condition: Condition::NotExists,
            }])
            .await
            .unwrap();
        let got = backend.get(key).await.unwrap().unwrap();
        assert_eq!(got.value, *value, "value {i}");
        assert_eq!(got.version, i as u64);
    }
    let scanned = backend.scan(Scan::group(b"bytes".to_vec())).await.unwrap();
    let got: Vec<Vec<u8>> = scanned.into_iter().map(|e| e.record.value).collect();
    assert_eq!(got, values);
}

/// An item with one secondary index, for the request counts in BENCHMARKS.md.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Event {
    user: u64,
    id: u64,
    at: u64,
    body: String,
}

impl sortpath_store::Item for Event {
    const TYPE: &'static str = "event";
    const INDEXES: &'static [sortpath_store::Index<Self>] =
        &[sortpath_store::Index::new("by_at", |e| {
            Ok(Some(
                sortpath::KeyPath::new()
                    .push("events", 0u64)?
                    .push("at", e.at)?,
            ))
        })];
    fn key_path(&self) -> Result<sortpath::KeyPath, sortpath::path::PathError> {
        sortpath::KeyPath::new()
            .push("user", self.user)?
            .push("event", self.id)
    }
}

fn event(user: u64, id: u64) -> Event {
    Event {
        user,
        id,
        at: id * 7 % 1000,
        body: "b".repeat(100),
    }
}

/// Requests per store operation and throughput against the local server. Run with
/// `cargo test --release -p sortpath-store --all-features --test dynamodb -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: prints figures for BENCHMARKS.md"]
async fn bench_requests_and_throughput() {
    use std::time::Instant;
    let (backend, counter) = fresh("bench").await;
    let server = dynamodb_server::server().await;
    let store = Store::new(backend);
    let report = |what: &str, ops: u64, secs: f64, counts: BTreeMap<String, u64>| {
        let total: u64 = counts.values().sum();
        println!(
            "| {what} | {:.2} ({}) | {:.0} |",
            total as f64 / ops as f64,
            counts
                .iter()
                .map(|(k, v)| format!("{k} {:.2}", *v as f64 / ops as f64))
                .collect::<Vec<_>>()
                .join(", "),
            ops as f64 / secs
        );
    };
    println!("server: {}", server.kind);
    println!("| operation | requests per op | ops/s |");
    println!("|---|---|---|");
    const N: u64 = 300;
    let t = Instant::now();
    for id in 0..N {
        store.put(&event(id % 10, id)).await.unwrap();
    }
    report(
        "put, new item with 1 index (sequential)",
        N,
        t.elapsed().as_secs_f64(),
        counter.take(),
    );
    let t = Instant::now();
    for id in 0..N {
        store.put(&event(id % 10, id)).await.unwrap();
    }
    report(
        "put, replace item with 1 index (sequential)",
        N,
        t.elapsed().as_secs_f64(),
        counter.take(),
    );
    let t = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..8u64 {
        let store = store.clone();
        tasks.spawn(async move {
            for i in 0..N / 8 {
                store.put(&event(100 + task, i)).await.unwrap();
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    report(
        "put with 1 index, 8 tasks on 8 groups",
        N / 8 * 8,
        t.elapsed().as_secs_f64(),
        counter.take(),
    );
    let t = Instant::now();
    for id in 0..N {
        store
            .get::<Event>(&path(&format!("/user-{}/event-{id}", id % 10)))
            .await
            .unwrap()
            .unwrap();
    }
    report("get", N, t.elapsed().as_secs_f64(), counter.take());
    // 100 items in one group, then lists of 100.
    for id in 0..100 {
        store.put(&event(500, id)).await.unwrap();
    }
    counter.take();
    const LISTS: u64 = 100;
    let t = Instant::now();
    for _ in 0..LISTS {
        let page = store
            .list::<Event>(&Query::prefix(&path("/user-500")).unwrap().limit(100))
            .await
            .unwrap();
        assert_eq!(page.items.len(), 100);
    }
    report(
        "list of 100",
        LISTS,
        t.elapsed().as_secs_f64(),
        counter.take(),
    );
    const TXNS: u64 = 50;
    let t = Instant::now();
    for n in 0..TXNS {
        let mut txn = store.transaction();
        for i in 0..10 {
            txn.put(&event(600 + n % 5, n * 10 + i)).unwrap();
        }
        txn.commit().await.unwrap();
    }
    report(
        "transaction of 10 puts (one group, 1 index each)",
        TXNS,
        t.elapsed().as_secs_f64(),
        counter.take(),
    );
}

/// The model-based checker of the other backends, unchanged, on DynamoDB: random operation
/// sequences (puts of every kind, updates, deletes, transactions, lists with cursors both
/// ways, index queries) must match the in-memory model, record for record, after every
/// step. Each sequence runs in its own key space of one shared table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_matches_model() {
    use sortpath_store::conformance::model::{random_ops, Model};
    let (backend, _) = fresh("model").await;
    let store = Store::new(backend);
    let sequences: u64 = std::env::var("SORTPATH_DYNAMODB_MODEL_SEQUENCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    for seed in 0..sequences {
        let mut model = Model::new(seed);
        model.run(&store, &random_ops(0xD1A0 + seed, 25)).await;
        assert_eq!(
            Model::read_from(&store, seed).await.unwrap(),
            model,
            "seed {seed}: reading the model back from DynamoDB"
        );
    }
}

/// A server that accepts connections and never answers: every call gives up after the
/// client's timeout with a one-line error, instead of waiting forever.
#[tokio::test]
async fn an_endpoint_that_never_answers_times_out() {
    use sortpath_store::backend::dynamodb::client_with_timeout;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream); // read nothing, answer nothing, keep it open
        }
    });
    let sdk = client_with_timeout(Some(&endpoint), None, std::time::Duration::from_secs(2)).await;
    let started = std::time::Instant::now();
    let err = DynamoDbBackend::open(sdk, "silent")
        .await
        .expect_err("no answer is an error");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let message = err.to_string();
    assert!(
        message.contains("DescribeTable failed") && message.contains("timeout"),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");
}

/// Something that is not DynamoDB at the endpoint: the error gives its HTTP status and body.
#[tokio::test]
async fn an_endpoint_that_is_not_dynamodb_is_named() {
    use std::io::{Read, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 65536];
            let _ = stream.read(&mut request);
            let body = "not a DynamoDB server";
            let _ = write!(
                stream,
                "HTTP/1.1 404 Not Found\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let err = DynamoDbBackend::open(client(Some(&endpoint), None).await, "elsewhere")
        .await
        .expect_err("a 404 is an error");
    let message = err.to_string();
    assert!(
        message.contains("HTTP status 404") && message.contains("not a DynamoDB server"),
        "{message}"
    );
}

#[tokio::test]
async fn table_names_and_existing_tables() {
    let server = dynamodb_server::server().await;
    let counter = RequestCounter::default();
    let sdk = client(Some(&server.endpoint), Some(&counter)).await;
    for bad in ["t1", "has space", &"x".repeat(256)] {
        match DynamoDbBackend::open(sdk.clone(), bad).await {
            Err(e @ OpenError::InvalidName { .. }) => {
                assert!(
                    e.to_string().contains("is not a DynamoDB table name"),
                    "{e}"
                )
            }
            other => panic!("{bad}: expected InvalidName, got {other:?}"),
        }
        assert!(matches!(
            DynamoDbBackend::create_table(sdk.clone(), bad).await,
            Err(OpenError::InvalidName { .. })
        ));
    }
    assert_eq!(counter.total(), 0, "names are checked before any request");
    let (backend, _) = fresh("exists").await;
    match DynamoDbBackend::create_table(sdk, backend.table()).await {
        Err(e @ OpenError::Exists { .. }) => {
            assert_eq!(
                e.to_string(),
                format!("DynamoDB table {:?} exists already", backend.table())
            )
        }
        other => panic!("expected Exists, got {other:?}"),
    }
}

/// Values DynamoDB cannot hold as native attributes are stored as bytes, not refused: a map
/// key of 64 KiB (too long for an attribute name), and a list of small numbers whose native
/// size DynamoDB counts above the item limit although its bytes fit. And the size check
/// before sending counts numbers as DynamoDB does: a value one byte short of the limit by
/// the old count is refused here, without a request.
#[tokio::test]
async fn values_without_a_native_form_that_fits_are_stored_as_bytes() {
    let (backend, counter) = fresh("nonnative").await;
    let envelope = |payload: &[u8]| [&[1u8, 1, b't', 0][..], payload].concat();
    let mut long_key = serde_json::Map::new();
    long_key.insert("k".repeat(65_536), serde_json::json!(1));
    let digits: Vec<u32> = (0..130_000).map(|i| i % 10).collect();
    let values = [
        envelope(&rmp_serde::to_vec_named(&serde_json::Value::Object(long_key)).unwrap()),
        envelope(&rmp_serde::to_vec(&digits).unwrap()),
    ];
    for (i, value) in values.iter().enumerate() {
        let key = Key::new(b"nonnative".as_slice(), vec![1, i as u8]);
        backend
            .write(vec![Write::Put {
                key: key.clone(),
                record: Record {
                    value: value.clone(),
                    version: 1,
                },
                condition: Condition::NotExists,
            }])
            .await
            .unwrap_or_else(|e| panic!("value {i}: {e}"));
        assert_eq!(backend.get(key).await.unwrap().unwrap().value, *value);
    }
    counter.take();
    // 409,587 value bytes with version 1: the item is one byte over DynamoDB's limit
    // (the version number counts 2 bytes, not 1).
    let over = backend.write(vec![put(b"g", b"s", vec![7; 409_587])]).await;
    assert!(
        matches!(over, Err(BackendError::LimitExceeded { .. })),
        "{over:?}"
    );
    assert_eq!(counter.total(), 0, "nothing was sent");
}

/// Items the store writes whose fields DynamoDB cannot hold as native attributes are
/// stored as bytes in `val`, not refused, and read back as written: a map key of 64 KiB
/// (too long for an attribute name), and a list of small numbers whose native size
/// DynamoDB counts above the item limit although its bytes fit. (Raw backend writes carry
/// no item parts, so only the store's writes are ever native.)
#[tokio::test]
async fn store_items_without_a_native_form_that_fits_are_stored_as_bytes() {
    let (backend, _) = fresh("storenonnative").await;
    let store = Store::new(backend);
    let mut long_key = serde_json::Map::new();
    long_key.insert("k".repeat(65_536), serde_json::json!(1));
    let digits: Vec<u32> = (0..140_000).map(|i| i % 10).collect();
    let values = [
        serde_json::Value::Object(long_key),
        serde_json::json!({ "digits": digits }),
        serde_json::json!({ "fits": [1, 2, 3] }),
    ];
    let b = store.backend();
    for (i, value) in values.iter().enumerate() {
        let at = path(&format!("/user-9/doc-{i}"));
        store
            .put_raw(&at, "doc", value, vec![], sortpath_store::PutMode::Upsert)
            .await
            .unwrap_or_else(|e| panic!("value {i}: {e}"));
        let (group, sort) = at.split_group().unwrap();
        let raw = b
            .client()
            .get_item()
            .table_name(b.table())
            .key("pk", AttributeValue::B(group.into()))
            .key("sk", AttributeValue::B(sort.into()))
            .send()
            .await
            .unwrap();
        let item = raw.item().expect("stored item");
        let native = i == 2;
        assert_eq!(item.contains_key("item"), native, "value {i}");
        assert_eq!(item.contains_key("val"), !native, "value {i}");
        let got = store.get_raw(&at).await.unwrap().unwrap();
        assert_eq!(
            got.decode::<serde_json::Value>().unwrap(),
            *value,
            "value {i}"
        );
    }
}

/// The tickets' first program: the same items, no indexes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct PlainTicket {
    owner: u64,
    id: i64,
    updated_at: i64,
    status: Option<String>,
    title: String,
}

impl sortpath_store::Item for PlainTicket {
    const TYPE: &'static str = "ticket";
    fn key_path(&self) -> Result<sortpath::KeyPath, sortpath::path::PathError> {
        sortpath::KeyPath::new()
            .push("user", self.owner)?
            .push("ticket", self.id)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexes_a_program_gains_are_built_before_they_answer() {
    let (backend, _) = fresh("build").await;
    let v1 = Store::new(backend.clone());
    for id in 0..30 {
        let t = ticket(id as u64 % 3, id, 100 - id, "old");
        let plain = PlainTicket {
            owner: t.owner,
            id: t.id,
            updated_at: t.updated_at,
            status: t.status,
            title: t.title,
        };
        v1.put(&plain).await.unwrap();
    }
    // A short refresh: the build waits twice it (DynamoDB is written by other processes).
    let v2 = Store::new(backend.clone()).with_config_refresh(std::time::Duration::from_millis(200));
    let newest = Query::prefix(&path("/tickets-0")).unwrap().reverse();
    let early = v2.query_index::<Ticket>("by_updated", &newest).await;
    assert!(
        matches!(early, Err(ListError::IndexBuilding { .. })),
        "{early:?}"
    );
    v2.put(&ticket(9, 100, 1000, "new")).await.unwrap();
    assert!(matches!(
        v2.query_index::<Ticket>("by_updated", &newest).await,
        Err(ListError::IndexBuilding { .. })
    ));
    // The first program is refused from now on: it would leave the indexes without its items.
    let again = Store::new(backend.clone());
    let refused = again
        .put(&PlainTicket {
            owner: 1,
            id: 500,
            updated_at: 5,
            status: None,
            title: "late".into(),
        })
        .await;
    assert!(matches!(refused, Err(WriteError::Config(_))), "{refused:?}");
    assert_eq!(v2.build_indexes::<Ticket>().await.unwrap(), 30);
    let mut ids = Vec::new();
    let mut q = newest.clone().limit(7);
    loop {
        let page = v2.query_index::<Ticket>("by_updated", &q).await.unwrap();
        ids.extend(page.items.iter().map(|t| t.item.id));
        match page.cursor {
            Some(c) => q = q.after(c),
            None => break,
        }
    }
    let mut want: Vec<i64> = (0..30).collect();
    want.insert(0, 100); // updated 1000, the newest
    assert_eq!(ids, want);
    let open = Query::prefix(&path("/status-open")).unwrap();
    let page = v2.query_index::<Ticket>("by_status", &open).await.unwrap();
    assert_eq!(page.items.len(), 31);
    let groups = backend.groups(0).await.unwrap();
    let all = sortpath_store::check::dump_groups(&backend, groups)
        .await
        .unwrap();
    sortpath_store::check::check_consistency(&all).unwrap();
}

/// Root items placed last or before a child namespace: each access pattern that reads the
/// root with its children is one `Query`, and gets, updates and deletes find the root.
#[tokio::test]
async fn placed_root_items_are_one_query_with_their_children() {
    use sortpath_store::{PutMode, RootPlace, StoreConfig};
    let (backend, counter) = fresh("roots").await;
    let config = StoreConfig::default()
        .with_root("customer", RootPlace::Last)
        .with_root("org", RootPlace::Before("user".into()));
    let store = Store::new(backend.clone());
    assert!(store.create_config(&config).await.unwrap());
    let raw = |text: &str| (path(text), text.to_owned());
    for text in [
        "/customer-7",
        "/customer-7/order-1",
        "/customer-7/order-2",
        "/customer-7/order-3",
        "/org-1",
        "/org-1/team-2",
        "/org-1/team-9",
        "/org-1/user-ann",
        "/org-1/user-bob",
    ] {
        let (p, v) = raw(text);
        store
            .put_raw(&p, "x", &v, vec![], PutMode::Upsert)
            .await
            .unwrap();
    }
    let keys = |page: &sortpath_store::Page<sortpath_store::RawItem>| -> Vec<String> {
        page.items.iter().map(|i| i.key().to_string()).collect()
    };
    // A new handle, as another process would open the table.
    let reader = Store::new(backend.clone());
    counter.take();
    let newest = Query::prefix(&path("/customer-7"))
        .unwrap()
        .reverse()
        .limit(3);
    let page = reader.list_raw(&newest).await.unwrap();
    assert_eq!(
        keys(&page),
        ["/customer-7", "/customer-7/order-3", "/customer-7/order-2"]
    );
    assert_eq!(
        counter.take(),
        counts(&[("Query", 1)]),
        "customer and newest orders"
    );
    // Bounded by the root: the handle reads the configuration once, then one Query each.
    let org = Query::prefix(&path("/org-1")).unwrap();
    let users = reader
        .list_raw(&org.clone().from_root().limit(2))
        .await
        .unwrap();
    assert_eq!(keys(&users), ["/org-1", "/org-1/user-ann"]);
    assert_eq!(counter.take(), counts(&[("GetItem", 1), ("Query", 1)]));
    let teams = reader
        .list_raw(&org.clone().to_root().reverse())
        .await
        .unwrap();
    assert_eq!(keys(&teams), ["/org-1", "/org-1/team-9", "/org-1/team-2"]);
    assert_eq!(counter.take(), counts(&[("Query", 1)]), "org and its teams");
    let users = reader
        .list_raw(&org.clone().from_root().limit(3))
        .await
        .unwrap();
    assert_eq!(
        keys(&users),
        ["/org-1", "/org-1/user-ann", "/org-1/user-bob"]
    );
    assert_eq!(counter.take(), counts(&[("Query", 1)]), "org and its users");
    // A get of a root item: one read once the handle knows the places.
    assert!(reader.get_raw(&path("/org-1")).await.unwrap().is_some());
    assert_eq!(counter.take(), counts(&[("BatchGetItem", 1)]));
    // Another new handle's first get of a root item reads the configuration first.
    let other = Store::new(backend.clone());
    assert!(other.get_raw(&path("/customer-7")).await.unwrap().is_some());
    assert_eq!(
        counter.take(),
        counts(&[("BatchGetItem", 1), ("GetItem", 1)])
    );
    assert!(other.delete(&path("/customer-7")).await.unwrap());
    assert!(reader
        .get_raw(&path("/customer-7"))
        .await
        .unwrap()
        .is_none());
    let groups = backend.groups(0).await.unwrap();
    let all = sortpath_store::check::dump_groups(&backend, groups)
        .await
        .unwrap();
    sortpath_store::check::check_consistency(&all).unwrap();
    assert!(all.keys().any(|k| k.sort == b"user"));
}

/// The request counter, as the sorting strategies' checks (`strategy_checks`) count.
struct Counted(RequestCounter);

impl strategy_checks::Requests for Counted {
    fn reset(&self) {
        self.0.take();
    }
    fn check(&self, pattern: &str, expected: &[(&str, u64)]) {
        assert_eq!(self.0.take(), counts(expected), "{pattern}");
    }
}

/// The sorting strategies of docs/MODELING.md on DynamoDB: each access pattern lists
/// exactly the items, in order, in the requests the guide states (one `Query`; a handle
/// that never read the configuration reads it first for a list bounded by the root).
#[tokio::test]
async fn strategy_case_and_collation() {
    let (backend, counter) = fresh("s-case").await;
    strategy_checks::case(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_timestamps() {
    let (backend, counter) = fresh("s-time").await;
    strategy_checks::timestamps(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_ksuids() {
    let (backend, counter) = fresh("s-ksuid").await;
    strategy_checks::ksuids(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_changing_attribute() {
    let (backend, counter) = fresh("s-index").await;
    strategy_checks::changing_attribute(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_ascending_descending() {
    let (backend, counter) = fresh("s-order").await;
    strategy_checks::ascending_descending(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_parent_first() {
    let (backend, counter) = fresh("s-first").await;
    strategy_checks::parent_first(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_parent_last() {
    let (backend, counter) = fresh("s-last").await;
    strategy_checks::parent_last(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_two_relations() {
    let (backend, counter) = fresh("s-two").await;
    strategy_checks::two_relations(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_numbers() {
    let (backend, counter) = fresh("s-numbers").await;
    strategy_checks::numbers(Store::new(backend), &Counted(counter)).await;
}

#[tokio::test]
async fn strategy_descending_ids() {
    let (backend, counter) = fresh("s-desc").await;
    strategy_checks::descending_ids(Store::new(backend), &Counted(counter)).await;
}

/// How long the handles of `a_process_without_a_declared_index_stops_before_the_build`
/// trust the declarations they read.
const REFRESH: std::time::Duration = std::time::Duration::from_millis(400);
const OLD_PROGRAM_TABLE: &str = "SORTPATH_OLD_PROGRAM_TABLE";
const OLD_PROGRAM_ENDPOINT: &str = "SORTPATH_OLD_PROGRAM_ENDPOINT";

/// Every ticket of the table (the owners 0 to 2 and 9), by key, with its `updated_at`.
async fn all_tickets<B: Backend>(store: &Store<B>) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for owner in [0, 1, 2, 9] {
        let mut q = Query::prefix(&path(&format!("/user-{owner}")))
            .unwrap()
            .limit(500);
        loop {
            let page = store.list::<Ticket>(&q).await.unwrap();
            for t in &page.items {
                out.insert(t.key.to_string(), t.item.updated_at);
            }
            match page.cursor {
                Some(c) => q = q.after(c),
                None => break,
            }
        }
    }
    out
}

/// Every ticket `by_updated` lists, by key, with its `updated_at`.
async fn by_updated_tickets<B: Backend>(store: &Store<B>) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    let mut q = Query::prefix(&path("/tickets-0")).unwrap().limit(500);
    loop {
        let page = store.query_index::<Ticket>("by_updated", &q).await.unwrap();
        for t in &page.items {
            assert!(
                out.insert(t.key.to_string(), t.item.updated_at).is_none(),
                "{} listed twice",
                t.key
            );
        }
        match page.cursor {
            Some(c) => q = q.after(c),
            None => break,
        }
    }
    out
}

/// The old program of `a_process_without_a_declared_index_stops_before_the_build`, run as
/// its own process: writes new tickets and moves earlier ones (`updated_at`) with a type
/// that computes no index, printing `wrote` for each acknowledged write, until the store
/// refuses it (it prints `refused`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the child process of a_process_without_a_declared_index_stops_before_the_build"]
async fn old_program_child() {
    let (Ok(table), Ok(endpoint)) = (
        std::env::var(OLD_PROGRAM_TABLE),
        std::env::var(OLD_PROGRAM_ENDPOINT),
    ) else {
        return;
    };
    let backend = DynamoDbBackend::open(client(Some(&endpoint), None).await, &table)
        .await
        .unwrap();
    let store = Store::new(backend).with_config_refresh(REFRESH);
    for id in 0..20_000i64 {
        let mut writes = vec![PlainTicket {
            owner: id as u64 % 3,
            id,
            updated_at: id,
            status: None,
            title: "old".into(),
        }];
        if id >= 2 {
            // An earlier ticket moves: its entry, if it had one, would be stale.
            writes.push(PlainTicket {
                owner: (id - 2) as u64 % 3,
                id: id - 2,
                updated_at: 1_000_000 + id,
                status: None,
                title: "moved".into(),
            });
        }
        for t in writes {
            match store.put(&t).await {
                Ok(_) => println!("wrote {}", t.id),
                Err(WriteError::Config(e)) => {
                    println!("refused: {e}");
                    return;
                }
                Err(e) => panic!("ticket {}: {e}", t.id),
            }
        }
    }
    panic!("the old program was never refused");
}

/// A process whose program computes no `by_updated` keeps writing tickets (new ones, and
/// moves of earlier ones) while another process's newer program declares the index and
/// builds it. The old process must be refused within its refresh of the declarations, and
/// the build (which waits twice the refresh on DynamoDB) must end with the index exact:
/// every ticket listed once under its current `updated_at`, nothing else. Before, the old
/// process kept its first reading of the declarations and wrote on after the build, and
/// its tickets were missing from the index or listed under an old `updated_at`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_without_a_declared_index_stops_before_the_build() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let server = dynamodb_server::server().await;
    let rounds: usize = std::env::var("SORTPATH_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .map_or(4, |r: usize| r.div_ceil(10).max(1));
    for round in 0..rounds {
        let (backend, _) = fresh("refresh").await;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "old_program_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(OLD_PROGRAM_TABLE, backend.table())
            .env(OLD_PROGRAM_ENDPOINT, &server.endpoint)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Let the old program write a while (a different amount each round).
        let mut wrote = 0;
        while wrote < 20 + 15 * round {
            let line = lines.next().expect("the old program writes").unwrap();
            if line.starts_with("wrote") {
                wrote += 1;
            }
        }
        let rest = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
        let v2 = Store::new(backend.clone()).with_config_refresh(REFRESH);
        // Its first write declares the indexes, building (the store holds tickets).
        v2.put(&ticket(9, 1_000_000, 5, "new")).await.unwrap();
        let given = v2.build_indexes::<Ticket>().await.unwrap();
        let rest = rest.join().unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "round {round}: the old program failed");
        let refused = rest.iter().position(|l| l.starts_with("refused:"));
        assert!(
            refused.is_some_and(|i| rest[i].contains("by_updated")),
            "round {round}: {rest:?}"
        );
        let tickets = all_tickets(&v2).await;
        let indexed = by_updated_tickets(&v2).await;
        assert_eq!(indexed, tickets, "round {round}");
        assert!(
            given as usize + 1 >= tickets.len(),
            "round {round}: {given}"
        );
        eprintln!(
            "round {round}: {} tickets, {} written by the old program while the newer one declared and built",
            tickets.len(),
            rest.iter().filter(|l| l.starts_with("wrote")).count()
        );
    }
}
