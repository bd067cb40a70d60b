//! Keeps `docs/DYNAMODB_LAYOUT.md` true: every example in it marked `<!-- check: NAME -->`
//! (the fenced block right after the marker) is made here by the crate's own code and
//! compared, and every example made here must be in the document. No server is needed:
//! records come from stores on the in-memory backend (each write batch recorded), and
//! DynamoDB requests from a `DynamoDbBackend` whose client captures each request body and
//! stops it before anything is sent.
//!
//! `cargo test --release -p sortpath-store --features dynamodb --test dynamodb_layout_doc`

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::backend::{Backend, BackendError, Entry, Key, Record, Scan, Write};
use sortpath_store::{Index, IndexDecl, Item, Projection, PutMode, Query, Store, StoreConfig};

const DOC: &str = include_str!("../../../docs/DYNAMODB_LAYOUT.md");
const MARKER: &str = "<!-- check: ";

/// The document's checked examples: name and the text of the fenced block after the marker.
fn doc_examples() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = DOC.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix(MARKER)
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "marker {name}: expected a fenced block on the next line, found {fence:?}"
        );
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .collect();
        let previous = out.insert(name.to_owned(), body.join("\n"));
        assert!(previous.is_none(), "marker {name} is in the document twice");
    }
    out
}

/// What the code makes, to compare with a document example.
enum Made {
    /// Bytes, written in the document as hex (any spacing and line breaks).
    Hex(Vec<u8>),
    /// Text, compared after trimming.
    Text(String),
    /// JSON, compared as values (object key order is free).
    Json(serde_json::Value),
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The examples made, by name.
#[derive(Default)]
struct Examples(BTreeMap<String, Made>);

impl Examples {
    fn add(&mut self, name: &str, made: Made) {
        assert!(
            self.0.insert(name.to_owned(), made).is_none(),
            "{name} made twice"
        );
    }
    fn hex(&mut self, name: &str, bytes: &[u8]) {
        self.add(name, Made::Hex(bytes.to_vec()));
    }
    fn text(&mut self, name: &str, text: &str) {
        self.add(name, Made::Text(text.to_owned()));
    }
    fn json(&mut self, name: &str, value: serde_json::Value) {
        self.add(name, Made::Json(value));
    }
}

/// A backend that records every write batch the store sends, kept by an in-memory backend;
/// `maintained` stands for the indexes a DynamoDB table keeps as GSIs.
#[derive(Debug, Clone, Default)]
struct Recording {
    inner: MemoryBackend,
    batches: Arc<Mutex<Vec<Vec<Write>>>>,
    maintained: Option<Vec<String>>,
}

impl Recording {
    /// The batches written since the last call.
    fn take(&self) -> Vec<Vec<Write>> {
        std::mem::take(&mut *self.batches.lock().unwrap())
    }
}

impl Backend for Recording {
    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        self.inner.get(key).await
    }
    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        self.inner.batch_get(keys).await
    }
    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.inner.scan(scan).await
    }
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        self.inner.groups(from).await
    }
    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        self.batches.lock().unwrap().push(writes.clone());
        self.inner.write(writes).await
    }
    fn maintained_indexes(&self) -> Option<&[String]> {
        self.maintained.as_deref()
    }
    // Stands in for DynamoDB: the store sends its item writes with their parts.
    fn wants_item_parts(&self) -> bool {
        true
    }
}

/// A DynamoDB backend whose configuration record is read from memory: a store's first index
/// query reads the record (to check the index is not being built) before its `Query`, and
/// the capture would stop that read.
#[derive(Debug, Clone)]
struct ConfigAside {
    dynamo: DynamoDbBackend,
    config: MemoryBackend,
}

impl Backend for ConfigAside {
    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        match key == sortpath_store::layout::config_key() {
            true => self.config.get(key).await,
            false => self.dynamo.get(key).await,
        }
    }
    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        self.dynamo.batch_get(keys).await
    }
    async fn batch_get_map_with<T, E, F>(
        &self,
        keys: Vec<Key>,
        consistency: sortpath_store::backend::Consistency,
        map: F,
    ) -> Result<Vec<Option<T>>, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(usize, u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        self.dynamo.batch_get_map_with(keys, consistency, map).await
    }
    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.dynamo.scan(scan).await
    }
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        self.dynamo.groups(from).await
    }
    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        self.dynamo.write(writes).await
    }
    fn maintained_indexes(&self) -> Option<&[String]> {
        self.dynamo.maintained_indexes()
    }
    fn wants_item_parts(&self) -> bool {
        self.dynamo.wants_item_parts()
    }
    async fn scan_index(&self, index: &str, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.dynamo.scan_index(index, scan).await
    }
}

/// A store over `dynamo` whose configuration (read from memory) declares `by_updated` of
/// tickets, built.
async fn lister_over(dynamo: &DynamoDbBackend) -> Store<ConfigAside> {
    let config = MemoryBackend::new();
    let (key, record) = StoreConfig::new(vec![IndexDecl::program("by_updated", "ticket")]).record();
    config
        .write(vec![Write::Put {
            key,
            record,
            condition: sortpath_store::backend::Condition::None,
        }])
        .await
        .unwrap();
    Store::new(ConfigAside {
        dynamo: dynamo.clone(),
        config,
    })
}

/// Captures each DynamoDB request (operation and JSON body) and stops it before it is sent.
#[derive(Debug, Clone, Default)]
struct Capture(Arc<Mutex<Vec<(String, serde_json::Value)>>>);

impl Intercept for Capture {
    fn name(&self) -> &'static str {
        "layout doc capture"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let request = context.request();
        let operation = request
            .headers()
            .get("x-amz-target")
            .and_then(|t| t.rsplit('.').next())
            .unwrap_or("unknown")
            .to_owned();
        let body = request
            .body()
            .bytes()
            .ok_or("request body is not in memory")?;
        let mut json: serde_json::Value = serde_json::from_slice(body)?;
        // The SDK's idempotency token of a TransactWriteItems: random, not the layout.
        if let Some(body) = json.as_object_mut() {
            body.remove("ClientRequestToken");
        }
        self.0.lock().unwrap().push((operation, json));
        Err("captured, not sent".into())
    }
}

/// A backend on table `sortpath` (keeping `gsis`) whose requests are captured, never sent.
async fn capturing(gsis: &[(&str, Projection)]) -> (DynamoDbBackend, Capture) {
    // A loopback endpoint that is never contacted: every request stops in the capture.
    let sdk = client(Some("http://127.0.0.1:9"), None).await;
    let capture = Capture::default();
    let config = sdk
        .config()
        .to_builder()
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
        .interceptor(capture.clone())
        .build();
    let sdk = aws_sdk_dynamodb::Client::from_conf(config);
    let backend = DynamoDbBackend::new_unchecked(sdk, "sortpath").keeping(gsis);
    (backend, capture)
}

/// The one request `write` sends for `batch`.
async fn request_of(
    backend: &DynamoDbBackend,
    capture: &Capture,
    batch: Vec<Write>,
) -> (String, serde_json::Value) {
    let sent = backend.write(batch).await;
    assert!(sent.is_err(), "the capture stops every request");
    let mut got = std::mem::take(&mut *capture.0.lock().unwrap());
    assert_eq!(got.len(), 1, "one request per batch: {got:?}");
    got.remove(0)
}

/// The bytes of a binary attribute value (`{"B": base64}`) of a request.
fn blob(value: &serde_json::Value) -> Vec<u8> {
    use base64::Engine;
    let text = value["B"]
        .as_str()
        .unwrap_or_else(|| panic!("not binary: {value}"));
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

fn p(s: &str) -> KeyPath {
    s.parse().unwrap()
}

/// The only record of `backend` under `group`.
fn record_in(backend: &MemoryBackend, group: &[u8]) -> (Key, Record) {
    let found: Vec<(Key, Record)> = backend
        .snapshot()
        .into_iter()
        .filter(|(k, _)| k.group == group)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.into_iter().next().unwrap()
}

/// A Rust item type stored compact (no field names), with an index whose entries project it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Score {
    player: u64,
    points: i64,
}

fn by_points(s: &Score) -> Result<Option<KeyPath>, PathError> {
    Ok(Some(
        KeyPath::new()
            .push("scores", 0u64)?
            .push("points", s.points)?,
    ))
}

impl Item for Score {
    const TYPE: &'static str = "score";
    const INDEXES: &'static [Index<Self>] =
        &[Index::new("by_points", by_points).projecting(Projection::All)];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("player", self.player)
    }
}

#[tokio::test]
async fn the_layout_document_shows_what_the_code_writes() {
    let mut ex = Examples::default();
    let (dynamo, capture) = capturing(&[]).await;

    // --- A store with an index declared as data, items written as data (native form). ---
    let rec = Recording::default();
    let store = Store::new(rec.clone());
    let config = StoreConfig::new(vec![IndexDecl::field(
        "by_updated",
        "ticket",
        "updated",
        "/board-{board}",
    )]);
    assert!(store.create_config(&config).await.unwrap());
    let batches = rec.take();
    let [ref batch] = batches[..] else {
        panic!("{batches:?}")
    };
    let Write::Put {
        key,
        record,
        condition,
    } = &batch[0]
    else {
        panic!()
    };
    ex.hex("config.pk", &key.group);
    ex.hex("config.sk", &key.sort);
    ex.text("config.json", std::str::from_utf8(&record.value).unwrap());
    assert_eq!(
        (record.version, *condition, batch.len()),
        (1, sortpath_store::backend::Condition::NotExists, 1)
    );
    let (op, body) = request_of(&dynamo, &capture, batch.clone()).await;
    ex.json("config.request", json!({ "operation": op, "body": body }));

    let ticket = p("/board-1/ticket-7");
    let index = |updated: i64| {
        vec![(
            "by_updated".to_owned(),
            p(&format!("/board-1/updated-{updated}")),
        )]
    };
    let v = store
        .put_raw(
            &ticket,
            "ticket",
            &json!({"board": 1, "title": "Fix", "updated": 20}),
            index(20),
            PutMode::Restore(5),
        )
        .await
        .unwrap();
    assert_eq!(v, 5);
    let (group, sort) = ticket.split_group().unwrap();
    ex.hex("ticket.pk", &group);
    ex.hex("ticket.sk", &sort);
    let (_, item) = record_in(&rec.inner, &group);
    ex.hex("ticket.value", &item.value);
    let entry_group = [
        &[0x00, 0x02, 10][..],
        b"by_updated",
        &p("/board-1").encode(),
    ]
    .concat();
    let (entry_key, entry) = record_in(&rec.inner, &entry_group);
    ex.hex("entry.pk", &entry_key.group);
    ex.hex("entry.sk", &entry_key.sort);
    let gsi_entry_sort = entry_key.sort.clone();
    ex.hex("entry.value", &entry.value);
    assert_eq!(entry.version, 5);
    let batches = rec.take();
    let (op, body) = request_of(&dynamo, &capture, batches[0].clone()).await;
    let native = &body["TransactItems"][1]["Put"]["Item"];
    ex.hex("native.hdr", &blob(&native["hdr"]));
    ex.hex("native.shape", &blob(&native["shape"]));
    // `hdr` and the payload `item` stands for are the value, byte for byte.
    assert!(item.value.starts_with(&blob(&native["hdr"])));
    ex.json("put_new.request", json!({ "operation": op, "body": body }));

    // An update that moves the index key: the old entry goes, a new one comes.
    store
        .put_raw(
            &ticket,
            "ticket",
            &json!({"board": 1, "title": "Fix", "updated": 30}),
            index(30),
            PutMode::Upsert,
        )
        .await
        .unwrap();
    let batches = rec.take();
    let (op, body) = request_of(&dynamo, &capture, batches[0].clone()).await;
    ex.json(
        "put_moved.request",
        json!({ "operation": op, "body": body }),
    );

    // An update that keeps the index key: the item alone, one PutItem.
    store
        .put_raw(
            &ticket,
            "ticket",
            &json!({"board": 1, "title": "Fixed", "updated": 30}),
            index(30),
            PutMode::Upsert,
        )
        .await
        .unwrap();
    let batches = rec.take();
    let (op, body) = request_of(&dynamo, &capture, batches[0].clone()).await;
    ex.json("put_same.request", json!({ "operation": op, "body": body }));

    // A cursor of a list of that group, and what it holds.
    store
        .put_raw(
            &p("/board-1/ticket-8"),
            "ticket",
            &json!({"board": 1, "title": "New", "updated": 31}),
            index(31),
            PutMode::Restore(9),
        )
        .await
        .unwrap();
    rec.take();
    let query = Query::prefix(&p("/board-1")).unwrap().limit(1);
    let page = store.list_raw(&query).await.unwrap();
    let cursor = page.cursor.expect("a second page");
    ex.text("cursor.text", &cursor.to_string());
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.to_string())
        .unwrap();
    ex.hex("cursor.bytes", &bytes);
    // The fingerprint and check as the document states them, computed here independently.
    let fnv = |mut h: u64, bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    };
    let mut h = fnv(0xcbf2_9ce4_8422_2325, &[0, 0]); // not an index query, forward
    for part in [&b""[..], &group, &[0x00], &[]] {
        h = fnv(h, &(part.len() as u64).to_be_bytes());
        h = fnv(h, part);
    }
    h = fnv(h, &[0]); // no end
    let body = [&[0x01][..], &h.to_be_bytes(), &sort].concat();
    let check = fnv(0x6b65_7970_6174_6801, &body);
    assert_eq!(bytes, [&body[..], &check.to_be_bytes()].concat());

    // The requests of a list and of an index query.
    let (list_dynamo, list_capture) = capturing(&[]).await;
    let lister = lister_over(&list_dynamo).await;
    let children = Query::children(&p("/board-1"), "ticket").unwrap().limit(10);
    assert!(lister.list_raw(&children).await.is_err());
    let got = std::mem::take(&mut *list_capture.0.lock().unwrap());
    ex.json(
        "list.request",
        json!({ "operation": got[0].0, "body": got[0].1 }),
    );
    let newest = Query::prefix(&p("/board-1")).unwrap().reverse().limit(2);
    assert!(lister.query_index_raw("by_updated", &newest).await.is_err());
    let got = std::mem::take(&mut *list_capture.0.lock().unwrap());
    ex.json(
        "index_query.request",
        json!({ "operation": got[0].0, "body": got[0].1 }),
    );

    // A delete: the item and its entry.
    assert!(store.delete(&ticket).await.unwrap());
    let batches = rec.take();
    let (op, body) = request_of(&dynamo, &capture, batches[0].clone()).await;
    ex.json("delete.request", json!({ "operation": op, "body": body }));

    // --- A Rust item type: compact payload (`val`), projected entries, declared indexes. ---
    let rec = Recording::default();
    let store = Store::new(rec.clone());
    let score = Score {
        player: 3,
        points: -40,
    };
    store.put_with(&score, PutMode::Restore(12)).await.unwrap();
    let (group, sort) = p("/player-3").split_group().unwrap();
    ex.hex("score.pk", &group);
    ex.hex("score.sk", &sort);
    let (_, item) = record_in(&rec.inner, &group);
    ex.hex("score.value", &item.value);
    let entry_group = [&[0x00, 0x02, 9][..], b"by_points", &p("/scores-0").encode()].concat();
    let (entry_key, entry) = record_in(&rec.inner, &entry_group);
    ex.hex("projected.sk", &entry_key.sort);
    ex.hex("projected.value", &entry.value);
    assert_eq!(entry.version, 12);
    let batches = rec.take();
    let (op, body) = request_of(&dynamo, &capture, batches[0].clone()).await;
    ex.json(
        "score_new.request",
        json!({ "operation": op, "body": body }),
    );

    // --- Root items placed last or before a namespace (`roots`). ---
    let rec = Recording::default();
    let store = Store::new(rec.clone());
    let config = StoreConfig::new(vec![])
        .with_root("customer", sortpath_store::RootPlace::Last)
        .with_root("org", sortpath_store::RootPlace::Before("user".into()));
    assert!(store.create_config(&config).await.unwrap());
    ex.text(
        "config_roots.json",
        std::str::from_utf8(&config.to_json()).unwrap(),
    );
    for (name, text) in [("customer", "/customer-7"), ("org", "/org-1")] {
        store
            .put_raw(&p(text), "x", &json!({}), vec![], PutMode::Upsert)
            .await
            .unwrap();
        let (group, _) = p(text).split_group().unwrap();
        let (key, _) = record_in(&rec.inner, &group);
        ex.hex(&format!("{name}.root.sk"), &key.sort);
    }

    // --- Group counters (`group_versions`). ---
    let rec = Recording::default();
    let store = Store::new(rec.clone());
    let config = StoreConfig::new(vec![]).with_group_versions(true);
    assert!(store.create_config(&config).await.unwrap());
    ex.text(
        "config_counters.json",
        std::str::from_utf8(&config.to_json()).unwrap(),
    );
    rec.take();
    store
        .put_raw(
            &p("/board-1/ticket-7"),
            "ticket",
            &json!({"title": "Fix"}),
            vec![],
            PutMode::Upsert,
        )
        .await
        .unwrap();
    let (group, _) = p("/board-1").split_group().unwrap();
    let (counter_key, counter) = record_in(&rec.inner, &[&[0x00, 0x01][..], &group].concat());
    ex.hex("counter.pk", &counter_key.group);
    ex.hex("counter.sk", &counter_key.sort);
    assert_eq!((counter.value.len(), counter.version), (0, 1));
    let batches = rec.take();
    let (op, body) = request_of(&dynamo, &capture, batches[0].clone()).await;
    ex.json(
        "counter_put.request",
        json!({ "operation": op, "body": body }),
    );

    // --- GSI mode: the table keeps `by_updated` as GSI `kp_by_updated` on gp1/gs1. ---
    let rec = Recording {
        maintained: Some(vec!["by_updated".to_owned()]),
        ..Recording::default()
    };
    let store = Store::new(rec.clone());
    // The store's first ticket also lists the type in the configuration: shown below is a
    // later one's write.
    let first = json!({"board": 2, "title": "First", "updated": 1});
    store
        .put_raw(
            &p("/board-2/ticket-1"),
            "ticket",
            &first,
            vec![],
            PutMode::Upsert,
        )
        .await
        .unwrap();
    rec.take();
    store
        .put_raw(
            &ticket,
            "ticket",
            &json!({"board": 1, "title": "Fix", "updated": 20}),
            index(20),
            PutMode::Restore(5),
        )
        .await
        .unwrap();
    let batches = rec.take();
    assert_eq!(batches[0].len(), 1, "no entry in GSI mode: {batches:?}");
    let (gsi_dynamo, gsi_capture) = capturing(&[("by_updated", Projection::All)]).await;
    let (op, body) = request_of(&gsi_dynamo, &gsi_capture, batches[0].clone()).await;
    ex.hex("gsi.hdr", &blob(&body["Item"]["hdr"]));
    // The GSI keys: the index path's group as a group key, the exact entry's sort key.
    assert_eq!(blob(&body["Item"]["gp1"]), p("/board-1").encode());
    assert_eq!(blob(&body["Item"]["gs1"]), gsi_entry_sort);
    ex.json("gsi_put.request", json!({ "operation": op, "body": body }));
    let gsi_lister = lister_over(&gsi_dynamo).await;
    assert!(gsi_lister
        .query_index_raw("by_updated", &newest)
        .await
        .is_err());
    let got = std::mem::take(&mut *gsi_capture.0.lock().unwrap());
    ex.json(
        "gsi_query.request",
        json!({ "operation": got[0].0, "body": got[0].1 }),
    );

    // --- Compare. ---
    let doc = doc_examples();
    let mut problems = Vec::new();
    for (name, made) in &ex.0 {
        let shown = match made {
            Made::Hex(b) => hex(b),
            Made::Text(t) => t.clone(),
            Made::Json(v) => serde_json::to_string_pretty(v).unwrap(),
        };
        let Some(text) = doc.get(name) else {
            problems.push(format!("{name} is not in the document; it is:\n{shown}"));
            continue;
        };
        let same = match made {
            Made::Hex(b) => {
                let digits: String = text.split_whitespace().collect();
                digits.eq_ignore_ascii_case(&hex(b).replace(' ', ""))
            }
            Made::Text(t) => text.trim() == t.trim(),
            Made::Json(v) => {
                serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .as_ref()
                    == Some(v)
            }
        };
        if !same {
            problems.push(format!(
                "{name}: the document shows\n{text}\nthe code makes\n{shown}"
            ));
        }
    }
    for name in doc.keys().filter(|n| !ex.0.contains_key(*n)) {
        problems.push(format!("{name} is in the document but checked by nothing"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
