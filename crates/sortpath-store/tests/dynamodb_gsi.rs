//! Indexes kept by the table (`IndexMode::Table`: DynamoDB GSIs) against DynamoDB Local,
//! started by the tests (see `dynamodb_server/mod.rs`): what settles is exactly what the
//! same indexes give in exact mode (the in-memory backend keeps no indexes, so there they
//! are exact), in the same order, with ranges, both directions, limits and cursors; writes
//! become visible within a bound; moved and deleted items leave their old place.
//!
//! `cargo test --release -p sortpath-store --features dynamodb --test dynamodb_gsi`

mod dynamodb_server;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::dynamodb::{client, DynamoDbBackend, RequestCounter};
use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::backend::{Backend, Consistency};
use sortpath_store::{
    Index, IndexMode, Item, ListError, Projection, Query, Store, StoreError, WriteError,
};

/// A score on a board: `/board-<board>/player-<id>`, kept by two GSIs: `by_score`
/// (projecting the item) on `/board-<board>/score-<score>/name-<name>`, and `by_name`
/// (keys only) on `/names-0/name-<name>` (sparse: an empty note leaves the item out).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Score {
    board: u64,
    id: u64,
    score: i64,
    name: String,
    note: String,
}

fn by_score(s: &Score) -> Result<Option<KeyPath>, PathError> {
    Ok(Some(
        KeyPath::new()
            .push("board", s.board)?
            .push("score", s.score)?
            .push("name", s.name.as_str())?,
    ))
}

fn by_name(s: &Score) -> Result<Option<KeyPath>, PathError> {
    if s.note.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        KeyPath::new()
            .push("names", 0u64)?
            .push("name", s.name.as_str())?,
    ))
}

impl Item for Score {
    const TYPE: &'static str = "score";
    const INDEXES: &'static [Index<Self>] = &[
        Index::new("by_score", by_score)
            .projecting(Projection::All)
            .maintained_by_table(),
        Index::new("by_name", by_name).maintained_by_table(),
    ];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("player", self.id)
    }
}

const GSIS: &[(&str, Projection)] = &[
    ("by_score", Projection::All),
    ("by_name", Projection::KeysOnly),
];

/// How long a write may take to show in a GSI before the test fails.
const SETTLE: Duration = Duration::from_secs(30);

async fn gsi_store(prefix: &str) -> (Store<DynamoDbBackend>, RequestCounter) {
    let server = dynamodb_server::server().await;
    let counter = RequestCounter::default();
    let sdk = client(Some(&server.endpoint), Some(&counter)).await;
    let table = dynamodb_server::table_name(prefix);
    let created = DynamoDbBackend::create_table_with(sdk.clone(), &table, GSIS)
        .await
        .unwrap_or_else(|e| panic!("create table {table} on {}: {e}", server.kind));
    let mut kept = created.maintained_indexes().unwrap().to_vec();
    kept.sort();
    assert_eq!(kept, ["by_name", "by_score"]);
    // Opening finds the GSIs again.
    let backend = DynamoDbBackend::open(sdk, &table).await.unwrap();
    let mut kept = backend.maintained_indexes().unwrap().to_vec();
    kept.sort();
    assert_eq!(kept, ["by_name", "by_score"]);
    counter.take();
    (Store::new(backend), counter)
}

fn p(s: &str) -> KeyPath {
    s.parse().unwrap()
}

/// A small deterministic generator (xorshift), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Scores with many equal index keys: few scores (negative, zero, extremes), few names
/// (the empty string, NUL, 0x01 and 0xFF-ish text among them).
fn random_score(rng: &mut Rng, board: u64, id: u64) -> Score {
    const SCORES: [i64; 7] = [i64::MIN, -1_000_000, -1, 0, 1, 42, i64::MAX];
    const NAMES: [&str; 6] = ["", "\0", "\u{1}", "a", "ab", "\u{ff}z"];
    Score {
        board,
        id,
        score: SCORES[rng.below(SCORES.len() as u64) as usize],
        name: NAMES[rng.below(NAMES.len() as u64) as usize].to_owned(),
        note: ["", "x", "a longer note"][rng.below(3) as usize].to_owned(),
    }
}

/// Every page of `query` on `index`, following cursors, as (key, item).
async fn pages<B: Backend>(
    store: &Store<B>,
    index: &str,
    query: &Query,
) -> Result<Vec<(String, Score)>, StoreError> {
    let mut out = Vec::new();
    let mut query = query.clone();
    loop {
        let page = store.query_index::<Score>(index, &query).await?;
        out.extend(page.items.into_iter().map(|v| (v.key.to_string(), v.item)));
        match page.cursor {
            Some(c) => query = query.clone().after(c),
            None => return Ok(out),
        }
    }
}

/// The queries compared: whole groups and ranges, both directions, with and without small
/// pages.
fn queries() -> Vec<(&'static str, Query)> {
    let board = p("/board-1");
    let mut qs = Vec::new();
    for limit in [None, Some(1), Some(7)] {
        for reverse in [false, true] {
            let with = |q: Query| {
                let q = if reverse { q.reverse() } else { q };
                match limit {
                    Some(n) => q.limit(n),
                    None => q,
                }
            };
            qs.push(("by_score", with(Query::prefix(&board).unwrap())));
            qs.push((
                "by_score",
                with(
                    Query::prefix(&board)
                        .unwrap()
                        .gte(&p("/board-1/score--1"))
                        .unwrap()
                        .lt(&p("/board-1/score-42"))
                        .unwrap(),
                ),
            ));
            qs.push(("by_name", with(Query::prefix(&p("/names-0")).unwrap())));
        }
    }
    qs
}

/// Polls until every query gives on `gsi` what it gives on `exact`, or fails after
/// [`SETTLE`]. Returns how long it took.
async fn settle(gsi: &Store<DynamoDbBackend>, exact: &Store<MemoryBackend>) -> Duration {
    let start = Instant::now();
    loop {
        let mut differ = None;
        for (index, q) in queries() {
            let want = pages(exact, index, &q).await.unwrap();
            let got = pages(gsi, index, &q).await.unwrap();
            if got != want {
                differ = Some(format!("{index} {q:?}:\n got  {got:?}\n want {want:?}"));
                break;
            }
        }
        match differ {
            None => return start.elapsed(),
            Some(d) if start.elapsed() > SETTLE => panic!("not settled after {SETTLE:?}: {d}"),
            Some(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Once settled, every item an index query returns is the item as it is (no entry points at
/// nothing or at an older item), and only items that have that index key are returned.
async fn check_points_at_items(gsi: &Store<DynamoDbBackend>) {
    for (index, q) in queries() {
        for (key, item) in pages(gsi, index, &q).await.unwrap() {
            let current = gsi
                .get::<Score>(&p(&key))
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("{index}: {key} is listed but absent"));
            assert_eq!(current.item, item, "{index}: {key} listed stale");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settled_gsi_indexes_equal_the_exact_indexes_in_order() {
    let (gsi, counter) = gsi_store("gsi-order").await;
    let exact = Store::new(MemoryBackend::new());
    assert_eq!(exact.backend().maintained_indexes(), None);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut live: BTreeMap<u64, Score> = BTreeMap::new();
    for round in 0..3 {
        // Puts (new items and updates that move index keys), then some deletes.
        for _ in 0..40 {
            let (board, id) = (1 + rng.below(4) / 3, rng.below(30));
            let s = random_score(&mut rng, board, id);
            gsi.put(&s).await.unwrap();
            exact.put(&s).await.unwrap();
            live.insert(s.id * 10 + s.board, s);
        }
        for _ in 0..8 {
            let id = rng.below(30);
            for board in [1, 2] {
                let key = p(&format!("/board-{board}/player-{id}"));
                let (a, b) = (
                    gsi.delete(&key).await.unwrap(),
                    exact.delete(&key).await.unwrap(),
                );
                assert_eq!(a, b, "delete {key}");
                live.remove(&(id * 10 + board));
            }
        }
        let took = settle(&gsi, &exact).await;
        eprintln!("round {round}: settled in {took:?}, {} items", live.len());
        check_points_at_items(&gsi).await;
    }
    // No write made a transaction or an entry: single PutItem/DeleteItem after one read
    // (but the first, which declares the type's indexes in the store's configuration in
    // the same atomic write).
    let sent = counter.take();
    assert!(
        sent.get("TransactWriteItems").copied().unwrap_or(0) <= 1,
        "GSI-mode writes made transactions: {sent:?}"
    );
    let count = |op: &str| sent.get(op).copied().unwrap_or(0);
    assert_eq!(
        count("PutItem") + count("TransactWriteItems"),
        120,
        "{sent:?}"
    );
    // The table holds the items and the configuration, and no index entry.
    let groups = gsi.backend().groups(0).await.unwrap();
    assert!(
        groups.iter().all(|g| g.first() != Some(&0) || g == &[0, 3]),
        "records beside items and the configuration: {groups:02x?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_show_within_a_bound_and_moves_and_deletes_leave() {
    let (gsi, counter) = gsi_store("gsi-visible").await;
    let s = Score {
        board: 3,
        id: 1,
        score: -5,
        name: String::new(),
        note: "n".into(),
    };
    gsi.put(&s).await.unwrap(); // declares the type's indexes: a one-off transaction
    counter.take();
    gsi.put(&s).await.unwrap();
    let sent = counter.take();
    let one_put = [("BatchGetItem".to_owned(), 1), ("PutItem".to_owned(), 1)];
    assert_eq!(sent, BTreeMap::from(one_put), "a put in GSI mode");
    let board = Query::prefix(&p("/board-3")).unwrap();
    let at = |score: i64| Query::prefix(&p(&format!("/board-3/score-{score}"))).unwrap();
    // Visible within the bound.
    let wait_for = |q: Query, want: Vec<Score>| {
        let gsi = &gsi;
        async move {
            let start = Instant::now();
            loop {
                let got: Vec<Score> = pages(gsi, "by_score", &q)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|(_, s)| s)
                    .collect();
                if got == want {
                    return start.elapsed();
                }
                assert!(start.elapsed() < SETTLE, "{q:?}: {got:?}, want {want:?}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let took = wait_for(board.clone(), vec![s.clone()]).await;
    eprintln!("new item visible after {took:?}");
    // Moving the indexed field: the item shows at its new place and leaves the old one.
    let moved = Score {
        score: 7,
        ..s.clone()
    };
    gsi.put(&moved).await.unwrap();
    wait_for(at(7), vec![moved.clone()]).await;
    wait_for(at(-5), vec![]).await;
    // A keys-only GSI: the sparse index drops the item when its note empties.
    let names = Query::prefix(&p("/names-0")).unwrap();
    assert_eq!(pages(&gsi, "by_name", &names).await.unwrap().len(), 1);
    let quiet = Score {
        note: String::new(),
        ..moved.clone()
    };
    gsi.put(&quiet).await.unwrap();
    let start = Instant::now();
    while !pages(&gsi, "by_name", &names).await.unwrap().is_empty() {
        assert!(start.elapsed() < SETTLE, "by_name still lists the item");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A delete: gone from the index.
    gsi.delete(&quiet.key_path().unwrap()).await.unwrap();
    wait_for(board.clone(), vec![]).await;
    // A strongly consistent query of a GSI is an error, not silently eventual; eventual
    // (or the default) is fine.
    let strong = board.clone().consistency(Consistency::Strong);
    match gsi.query_index::<Score>("by_score", &strong).await {
        Err(ListError::InvalidQuery(m)) => assert!(m.contains("Consistency::Strong"), "{m}"),
        other => panic!("a strong read of a GSI: {other:?}"),
    }
    let eventual = board.consistency(Consistency::Eventual);
    assert!(gsi
        .query_index::<Score>("by_score", &eventual)
        .await
        .unwrap()
        .items
        .is_empty());
}

/// A type and its table must agree on which indexes the table keeps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_without_the_gsi_is_an_error_not_a_silent_exact_index() {
    let server = dynamodb_server::server().await;
    let sdk = client(Some(&server.endpoint), None).await;
    let table = dynamodb_server::table_name("gsi-missing");
    let backend = DynamoDbBackend::create_table(sdk, &table).await.unwrap();
    let store = Store::new(backend);
    let s = Score {
        board: 1,
        id: 1,
        score: 1,
        name: "a".into(),
        note: "n".into(),
    };
    match store.put(&s).await {
        Err(WriteError::Config(e)) => {
            let m = e.to_string();
            assert!(m.contains("by_score") && m.contains("no GSI"), "{m}")
        }
        other => panic!("put into a table without the GSI: {other:?}"),
    }
    assert_eq!(Score::INDEXES[0].mode, IndexMode::Table);
}

/// The raw item stored at `path`'s key, through the SDK.
async fn raw_item(
    backend: &DynamoDbBackend,
    path: &KeyPath,
) -> std::collections::HashMap<String, AttributeValue> {
    let (group, sort) = path.split_group().unwrap();
    backend
        .client()
        .get_item()
        .table_name(backend.table())
        .key("pk", AttributeValue::B(Blob::new(group)))
        .key("sk", AttributeValue::B(Blob::new(sort)))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_else(|| panic!("no item at {path}"))
}

async fn put_raw_item(
    backend: &DynamoDbBackend,
    item: std::collections::HashMap<String, AttributeValue>,
) {
    backend
        .client()
        .put_item()
        .table_name(backend.table())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

fn blob(item: &std::collections::HashMap<String, AttributeValue>, name: &str) -> Vec<u8> {
    match item.get(name) {
        Some(AttributeValue::B(b)) => b.as_ref().to_vec(),
        other => panic!("{name} is {other:?}"),
    }
}

fn score(board: u64, id: u64, score: i64, note: &str) -> Score {
    Score {
        board,
        id,
        score,
        name: format!("n{id}"),
        note: note.to_owned(),
    }
}

/// `check_backend` over a GSI-mode table: clean as the store writes it; then it names each
/// record planted with raw SDK writes that reads whole through the store but is wrong for
/// the GSIs: an item whose header keeps its index key paths and that has no GSI key
/// attributes (the GSIs never list it), an exact entry of a GSI-kept index, GSI key
/// attributes on an item without that index's key, and a GSI sort key naming another item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_finds_what_the_gsis_get_wrong() {
    use sortpath_store::check::check_backend;
    let (store, _) = gsi_store("gsi-check").await;
    for s in [
        score(1, 1, 10, "x"),
        score(1, 2, 20, "x"),
        score(1, 3, 30, ""),
        score(1, 4, 40, "x"),
    ] {
        store.put(&s).await.unwrap();
    }
    let backend = store.backend();
    let census = check_backend(backend, |_, _, _| None)
        .await
        .unwrap()
        .unwrap_or_else(|problems| panic!("a clean GSI table:\n{problems}"));
    assert_eq!((census.items, census.index_entries), (4, 0));
    let stored = backend.maintained_index_keys().await.unwrap().unwrap();
    assert_eq!(
        stored.len(),
        4,
        "every item has by_score's GSI keys: {stored:?}"
    );

    // 1. /board-1/player-1 stored as `val` with the whole value as a read gives it (its
    // header keeps both index key paths), without GSI key attributes.
    let p1 = p("/board-1/player-1");
    let (group, sort) = p1.split_group().unwrap();
    let whole = backend
        .get(sortpath_store::backend::Key::new(
            group.clone(),
            sort.clone(),
        ))
        .await
        .unwrap()
        .unwrap();
    let mut item = std::collections::HashMap::from([
        ("pk".to_owned(), AttributeValue::B(Blob::new(group))),
        ("sk".to_owned(), AttributeValue::B(Blob::new(sort))),
        (
            "ver".to_owned(),
            AttributeValue::N(whole.version.to_string()),
        ),
        (
            "val".to_owned(),
            AttributeValue::B(Blob::new(whole.value.clone())),
        ),
    ]);
    put_raw_item(backend, item.clone()).await;
    // It reads as it did: the store alone cannot tell.
    assert_eq!(
        store.get::<Score>(&p1).await.unwrap().unwrap().item,
        score(1, 1, 10, "x")
    );

    // 2. An exact by_score entry for /board-1/player-2: the key its GSI keys give.
    let p2 = raw_item(backend, &p("/board-1/player-2")).await;
    let mut entry_pk = vec![0x00, 0x02, 8];
    entry_pk.extend_from_slice(b"by_score");
    entry_pk.extend_from_slice(&blob(&p2, "gp1"));
    item.insert("pk".to_owned(), AttributeValue::B(Blob::new(entry_pk)));
    item.insert(
        "sk".to_owned(),
        AttributeValue::B(Blob::new(blob(&p2, "gs1"))),
    );
    item.insert("val".to_owned(), AttributeValue::B(Blob::new(vec![0x01])));
    item.insert("ver".to_owned(), p2["ver"].clone());
    put_raw_item(backend, item).await;

    // 3. /board-1/player-3 (empty note: no by_name key) given player-2's by_name GSI keys.
    let mut p3 = raw_item(backend, &p("/board-1/player-3")).await;
    assert!(!p3.contains_key("gp2"));
    p3.insert("gp2".to_owned(), p2["gp2"].clone());
    p3.insert("gs2".to_owned(), p2["gs2"].clone());
    put_raw_item(backend, p3).await;

    // 4. /board-1/player-4's by_score sort key naming player-2 (its header leaves the path
    // out, so a read takes the rest from it and the item reads whole).
    let mut p4 = raw_item(backend, &p("/board-1/player-4")).await;
    p4.insert("gs1".to_owned(), p2["gs1"].clone());
    put_raw_item(backend, p4).await;

    let problems = check_backend(backend, |_, _, _| None)
        .await
        .unwrap()
        .expect_err("the planted records are found");
    eprintln!("{problems}");
    let lines: Vec<&str> = problems.lines().collect();
    let line = |needles: &[&str]| {
        let found: Vec<&&str> = lines
            .iter()
            .filter(|l| needles.iter().all(|n| l.contains(n)))
            .collect();
        assert_eq!(found.len(), 1, "one line with {needles:?} in:\n{problems}");
    };
    line(&[
        "/board-1/player-1",
        "by_score",
        "/board-1/score-10/name-n1",
        "no key attributes",
    ]);
    line(&[
        "/board-1/player-1",
        "by_name",
        "/names-0/name-n1",
        "no key attributes",
    ]);
    line(&[
        "index entry",
        "by_score",
        "/board-1/score-20/name-n2",
        "/board-1/player-2",
        "keeps itself",
    ]);
    line(&["/board-1/player-3", "no index by_name key", "gp2 and gs2"]);
    line(&["/board-1/player-4", "by_score", "gp1 and gs1", "elsewhere"]);
    assert_eq!(lines.len(), 5, "{problems}");
}
