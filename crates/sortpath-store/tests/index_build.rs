//! A program that gains an index over items it already stored: the new index is never
//! queried while it misses items (refused with `IndexBuilding`), `build_indexes` gives
//! every old item its entries (values and versions unchanged, also while other writers
//! go on), and a program that does not compute a declared index cannot write the type.
//! Each test runs on the in-memory and the redb backend.

#![cfg(feature = "redb")]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::{
    memory::MemoryBackend, redb::RedbBackend, Backend, Condition, Key, Record, Write,
};
use sortpath_store::check::{check_consistency, dump_groups};
use sortpath_store::{
    layout, Index, IndexDecl, Item, ListError, PutMode, Query, Store, StoreConfig, WriteError,
};

/// The first version of the program: tickets indexed by status only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct TicketV1 {
    board: u64,
    id: u64,
    status: String,
    day: u64,
}

impl Item for TicketV1 {
    const TYPE: &'static str = "ticket";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_status", |t| {
        Ok(Some(
            KeyPath::new()
                .push("status", t.status.as_str())?
                .push("ticket", t.id)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("ticket", self.id)
    }
}

/// The next version: the same items, also indexed by day (tickets of day 0 are left out
/// of it: a sparse index).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct TicketV2 {
    board: u64,
    id: u64,
    status: String,
    day: u64,
}

fn by_day(t: &TicketV2) -> Result<Option<KeyPath>, PathError> {
    if t.day == 0 {
        return Ok(None);
    }
    Ok(Some(
        KeyPath::new()
            .push("days", 0u64)?
            .push("day", t.day)?
            .push("ticket", t.id)?,
    ))
}

impl Item for TicketV2 {
    const TYPE: &'static str = "ticket";
    const INDEXES: &'static [Index<Self>] = &[
        Index::new("by_status", |t| {
            Ok(Some(
                KeyPath::new()
                    .push("status", t.status.as_str())?
                    .push("ticket", t.id)?,
            ))
        }),
        Index::new("by_day", by_day),
    ];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("ticket", self.id)
    }
}

/// A type without indexes, then with one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct NoteV1 {
    id: u64,
    tag: u64,
}

impl Item for NoteV1 {
    const TYPE: &'static str = "note";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("note", self.id)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct NoteV2 {
    id: u64,
    tag: u64,
}

impl Item for NoteV2 {
    const TYPE: &'static str = "note";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_tag", |n| {
        Ok(Some(
            KeyPath::new()
                .push("tags", 0u64)?
                .push("tag", n.tag)?
                .push("note", n.id)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("note", self.id)
    }
}

fn v1(board: u64, id: u64, day: u64) -> TicketV1 {
    TicketV1 {
        board,
        id,
        status: ["open", "done"][(id % 2) as usize].to_owned(),
        day,
    }
}

fn v2(t: &TicketV1) -> TicketV2 {
    TicketV2 {
        board: t.board,
        id: t.id,
        status: t.status.clone(),
        day: t.day,
    }
}

fn days() -> Query {
    Query::prefix(&"/days-0".parse().unwrap()).unwrap()
}

/// Every item of the `by_day` index, in index order, as (day, id), read page by page.
async fn day_index<B: Backend>(store: &Store<B>) -> Result<Vec<(u64, u64)>, ListError> {
    let mut out = Vec::new();
    let mut query = days().limit(7);
    loop {
        let page = store.query_index::<TicketV2>("by_day", &query).await?;
        out.extend(page.items.iter().map(|t| (t.item.day, t.item.id)));
        match page.cursor {
            Some(c) => query = query.after(c),
            None => return Ok(out),
        }
    }
}

/// Deletes the store's configuration record: the store as an earlier release left it,
/// items without a record.
async fn forget_config<B: Backend>(store: &Store<B>) {
    let (key, _) = StoreConfig::default().record();
    store
        .backend()
        .write(vec![Write::Delete {
            key,
            condition: Condition::None,
        }])
        .await
        .unwrap();
}

/// What `by_day` must hold for `tickets`: those with a day, by (day, id).
fn expected_days(tickets: impl IntoIterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = tickets.into_iter().filter(|&(d, _)| d > 0).collect();
    v.sort();
    v
}

async fn all_records<B: Backend>(store: &Store<B>) -> BTreeMap<Key, Record> {
    let groups = store.backend().groups(0).await.unwrap();
    dump_groups(store.backend(), groups).await.unwrap()
}

async fn on_both<F1, F2>(
    mem: impl FnOnce(Store<MemoryBackend>) -> F1,
    redb: impl FnOnce(Store<RedbBackend>) -> F2,
) where
    F1: std::future::Future<Output = ()>,
    F2: std::future::Future<Output = ()>,
{
    mem(Store::new(MemoryBackend::new())).await;
    let dir = tempfile::tempdir().unwrap();
    redb(Store::create(dir.path()).await.unwrap()).await;
}

/// The whole story: v1 writes, v2 comes, the new index is refused until built, then exact.
async fn gained_index_is_built<B: Backend + Clone>(store: Store<B>, backend: B) {
    let mut old = Vec::new();
    for id in 0..40 {
        let t = v1(id % 3 + 1, id, id % 5);
        store.put(&t).await.unwrap();
        old.push(t);
    }
    let versions: Vec<u64> = {
        let mut v = Vec::new();
        for t in &old {
            let path = t.key_path().unwrap();
            v.push(store.get::<TicketV1>(&path).await.unwrap().unwrap().version);
        }
        v
    };
    assert_eq!(
        store.config().await.unwrap().types,
        Some(vec!["ticket".to_owned()])
    );

    // The new program, on its own handle (another process, in real life).
    let store2 = Store::new(backend);
    // Before it writes anything: the index it computes is not declared, and the store
    // holds tickets, so it is not answered.
    let early = day_index(&store2).await;
    assert!(
        matches!(&early, Err(ListError::IndexBuilding { name, item_type }) if name == "by_day" && item_type == "ticket"),
        "{early:?}"
    );
    // The old index still answers.
    let open = Query::prefix(&"/status-open".parse().unwrap()).unwrap();
    let page = store2
        .query_index::<TicketV2>("by_status", &open)
        .await
        .unwrap();
    assert_eq!(page.items.len(), 20);

    // Its first write declares by_day as building; that write's item is in it.
    let new = TicketV2 {
        board: 9,
        id: 100,
        status: "open".into(),
        day: 3,
    };
    store2.put(&new).await.unwrap();
    let config = store2.config().await.unwrap();
    let decl = config.indexes.iter().find(|d| d.name == "by_day").unwrap();
    assert!(decl.building, "{config:?}");
    let refused = day_index(&store2).await;
    assert!(
        matches!(refused, Err(ListError::IndexBuilding { .. })),
        "{refused:?}"
    );
    // Also through the untyped query.
    let raw = store2.query_index_raw("by_day", &days()).await;
    assert!(
        matches!(raw, Err(ListError::IndexBuilding { .. })),
        "{raw:?}"
    );
    check_consistency(&all_records(&store2).await).unwrap();

    // The old program can no longer write tickets (it would leave them out of by_day).
    let store1 = Store::new(store.backend().clone());
    let err = store1.put(&v1(1, 200, 4)).await.unwrap_err();
    assert!(
        matches!(&err, WriteError::Config(m) if m.to_string().contains("by_day")),
        "{err}"
    );

    // Build: every old ticket with a day gets its entry (those of day 0 have none to get).
    let given = store2.build_indexes::<TicketV2>().await.unwrap();
    assert_eq!(given, old.iter().filter(|t| t.day > 0).count() as u64);
    assert!(!store2
        .config()
        .await
        .unwrap()
        .indexes
        .iter()
        .any(|d| d.building));
    let want = expected_days(old.iter().map(|t| (t.day, t.id)).chain([(new.day, new.id)]));
    assert_eq!(day_index(&store2).await.unwrap(), want);
    // Another handle sees it built too.
    let fresh = Store::new(store2.backend().clone());
    assert_eq!(day_index(&fresh).await.unwrap(), want);
    // Values and versions are those the old program wrote.
    for (t, v) in old.iter().zip(&versions) {
        let got = store2
            .get::<TicketV2>(&t.key_path().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!((got.item, got.version), (v2(t), *v));
    }
    check_consistency(&all_records(&store2).await).unwrap();
    // Building again changes nothing.
    assert_eq!(store2.build_indexes::<TicketV2>().await.unwrap(), 0);

    // Moves and deletes keep it exact afterwards.
    store2
        .update(&old[1].key_path().unwrap(), |t: Option<TicketV2>| {
            t.map(|t| TicketV2 { day: 9, ..t })
        })
        .await
        .unwrap();
    store2.delete(&old[2].key_path().unwrap()).await.unwrap();
    let want = expected_days(
        old.iter()
            .filter(|t| t.id != 2)
            .map(|t| (if t.id == 1 { 9 } else { t.day }, t.id))
            .chain([(new.day, new.id)]),
    );
    assert_eq!(day_index(&store2).await.unwrap(), want);
    check_consistency(&all_records(&store2).await).unwrap();

    // Dropping the index lets the old program write again.
    assert!(store2.drop_index("ticket", "by_day").await.unwrap());
    let again = Store::new(store2.backend().clone());
    again.put(&v1(1, 201, 4)).await.unwrap();
    check_consistency(&all_records(&again).await).unwrap();
}

#[tokio::test]
async fn a_gained_index_is_refused_until_built_then_exact() {
    let mem = MemoryBackend::new();
    gained_index_is_built(Store::new(mem.clone()), mem).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).await.unwrap();
    let backend = store.backend().clone();
    gained_index_is_built(store, backend).await;
}

/// A type that had no index at all gains one.
async fn indexless_type_gains_an_index<B: Backend + Clone>(store: Store<B>) {
    for id in 0..10 {
        store.put(&NoteV1 { id, tag: id % 3 }).await.unwrap();
    }
    let tags = Query::prefix(&"/tags-0".parse().unwrap()).unwrap();
    let early = store.query_index::<NoteV2>("by_tag", &tags).await;
    assert!(
        matches!(early, Err(ListError::IndexBuilding { .. })),
        "{early:?}"
    );
    assert_eq!(store.build_indexes::<NoteV2>().await.unwrap(), 10);
    let page = store.query_index::<NoteV2>("by_tag", &tags).await.unwrap();
    let got: Vec<(u64, u64)> = page.items.iter().map(|n| (n.item.tag, n.item.id)).collect();
    let mut want: Vec<(u64, u64)> = (0..10).map(|id| (id % 3, id)).collect();
    want.sort();
    assert_eq!(got, want);
    check_consistency(&all_records(&store).await).unwrap();
}

#[tokio::test]
async fn a_type_without_indexes_gains_one() {
    on_both(indexless_type_gains_an_index, indexless_type_gains_an_index).await;
}

/// A type the store never held: its index is complete from its first write, no build.
async fn new_type_needs_no_build<B: Backend + Clone>(store: Store<B>) {
    store.put(&NoteV1 { id: 1, tag: 1 }).await.unwrap(); // another type first
    let tags = Query::prefix(&"/tags-0".parse().unwrap()).unwrap();
    let t = TicketV2 {
        board: 1,
        id: 1,
        status: "open".into(),
        day: 4,
    };
    // Queried before any ticket exists: complete (empty).
    assert!(day_index(&store).await.unwrap().is_empty());
    store.put(&t).await.unwrap();
    assert_eq!(day_index(&store).await.unwrap(), [(4, 1)]);
    let config = store.config().await.unwrap();
    assert!(config.indexes.iter().all(|d| !d.building), "{config:?}");
    assert_eq!(
        config.types,
        Some(vec!["note".to_owned(), "ticket".to_owned()])
    );
    // The note type's index is another matter: notes are held.
    assert!(matches!(
        store.query_index::<NoteV2>("by_tag", &tags).await,
        Err(ListError::IndexBuilding { .. })
    ));
}

/// A configuration created (`create_config`) on a store that holds items but no record
/// (an older release's) cannot know which types those items have: an index declared later
/// for any type is built before it is queried, never answered without the older items.
async fn configuration_created_over_items_knows_no_types<B: Backend + Clone>(store: Store<B>) {
    for id in 1..=3 {
        store.put(&NoteV1 { id, tag: 7 }).await.unwrap();
    }
    forget_config(&store).await;
    let later = Store::new(store.backend().clone());
    // Taken over explicitly: a plain create_config is refused (the record may be lost).
    assert!(later.create_config(&StoreConfig::default()).await.is_err());
    assert!(later
        .create_config_over_items(&StoreConfig::default())
        .await
        .unwrap());
    assert_eq!(later.config().await.unwrap().types, None);
    later.put(&NoteV2 { id: 4, tag: 7 }).await.unwrap();
    let tags = Query::prefix(&"/tags-0".parse().unwrap()).unwrap();
    assert!(matches!(
        later.query_index::<NoteV2>("by_tag", &tags).await,
        Err(ListError::IndexBuilding { .. })
    ));
    assert_eq!(later.build_indexes::<NoteV2>().await.unwrap(), 3);
    let page = later.query_index::<NoteV2>("by_tag", &tags).await.unwrap();
    assert_eq!(page.items.len(), 4);
}

#[tokio::test]
async fn a_configuration_created_over_items_knows_no_types() {
    on_both(
        configuration_created_over_items_knows_no_types,
        configuration_created_over_items_knows_no_types,
    )
    .await;
}

#[tokio::test]
async fn an_index_of_a_new_type_needs_no_build() {
    on_both(new_type_needs_no_build, new_type_needs_no_build).await;
}

/// Stores written before types were recorded: with a record without `types`, and with no
/// record at all but items. Any index declared there is built before it is queried.
async fn older_stores_build_first<B: Backend + Clone>(store: Store<B>) {
    // A record as an older release wrote it: no "types".
    let mut config = StoreConfig::new(vec![IndexDecl::program("by_status", "ticket")]);
    config.types = None;
    assert!(store.create_config(&config).await.unwrap());
    store.put(&v1(1, 1, 5)).await.unwrap();
    store.put(&v2(&v1(1, 2, 6))).await.unwrap();
    assert!(matches!(
        day_index(&store).await,
        Err(ListError::IndexBuilding { .. })
    ));
    assert_eq!(store.build_indexes::<TicketV2>().await.unwrap(), 1);
    assert_eq!(day_index(&store).await.unwrap(), [(5, 1), (6, 2)]);

    // No record at all, items there (a store of an older release without indexes).
    let notes = Store::new(store.backend().clone());
    notes.put(&NoteV1 { id: 1, tag: 7 }).await.unwrap();
    forget_config(&store).await;
    let later = Store::new(store.backend().clone());
    // Its first typed write would record a configuration over the items: refused (the
    // record may have been lost) until the store is taken over explicitly.
    assert!(matches!(
        later.put(&NoteV2 { id: 2, tag: 8 }).await,
        Err(sortpath_store::WriteError::Config(
            sortpath_store::ConfigError::Unrecorded
        ))
    ));
    assert!(later
        .create_config_over_items(&StoreConfig::default())
        .await
        .unwrap());
    later.put(&NoteV2 { id: 2, tag: 8 }).await.unwrap();
    let config = later.config().await.unwrap();
    assert_eq!(config.types, None, "held types unknown: {config:?}");
    assert!(config.indexes.iter().all(|d| d.building), "{config:?}");
    assert_eq!(later.build_indexes::<NoteV2>().await.unwrap(), 1);
    let tags = Query::prefix(&"/tags-0".parse().unwrap()).unwrap();
    let page = later.query_index::<NoteV2>("by_tag", &tags).await.unwrap();
    assert_eq!(page.items.len(), 2);
}

#[tokio::test]
async fn stores_of_older_releases_build_before_querying() {
    on_both(older_stores_build_first, older_stores_build_first).await;
}

/// Writers keep changing tickets (moving them in and out of by_day, deleting, creating)
/// while the index is built; afterwards it holds exactly the tickets there are.
async fn build_under_writes<B: Backend + Clone>(store: Store<B>, rounds: u64) {
    for round in 0..rounds {
        let base = round * 1000;
        for id in 0..60 {
            store.put(&v1(id % 4 + 1, base + id, id % 6)).await.unwrap();
        }
        let writer = Store::new(store.backend().clone());
        // Declares by_day (building) with its first write.
        writer.put(&v2(&v1(1, base + 999, 1))).await.unwrap();
        let mut tasks = tokio::task::JoinSet::new();
        for w in 0..3u64 {
            let writer = writer.clone();
            tasks.spawn(async move {
                for step in 0..12u64 {
                    let id = base + (step * 7 + w * 13) % 60;
                    let board = (id - base) % 4 + 1;
                    let path = KeyPath::new()
                        .push("board", board)
                        .unwrap()
                        .push("ticket", id)
                        .unwrap();
                    match step % 5 {
                        4 => {
                            writer.delete(&path).await.unwrap();
                        }
                        _ => {
                            let day = (step + w) % 7;
                            writer
                                .update(&path, |t: Option<TicketV2>| {
                                    Some(match t {
                                        Some(t) => TicketV2 { day, ..t },
                                        None => v2(&v1(board, id, day)),
                                    })
                                })
                                .await
                                .unwrap();
                        }
                    }
                    tokio::task::yield_now().await;
                }
            });
        }
        let builder = Store::new(store.backend().clone());
        let built = builder.build_indexes::<TicketV2>();
        let (built, ()) = tokio::join!(built, async {
            while let Some(r) = tasks.join_next().await {
                r.unwrap();
            }
        });
        // Some tickets no writer touched: the build gave them their entries.
        assert!(built.unwrap() > 0, "round {round}");
        // Every ticket there is, with a day, is in the index; nothing else.
        let mut tickets = Vec::new();
        for board in 1..=4u64 {
            let q = Query::prefix(&KeyPath::new().push("board", board).unwrap()).unwrap();
            let page = builder.list::<TicketV2>(&q).await.unwrap();
            tickets.extend(page.items.into_iter().map(|t| (t.item.day, t.item.id)));
        }
        let got: Vec<(u64, u64)> = day_index(&builder)
            .await
            .unwrap()
            .into_iter()
            .filter(|&(_, id)| id >= base && id < base + 1000)
            .collect();
        assert_eq!(
            got,
            expected_days(
                tickets
                    .into_iter()
                    .filter(|&(_, id)| id >= base && id < base + 1000)
            ),
            "round {round}"
        );
        check_consistency(&all_records(&builder).await).unwrap();
        // The next round starts over from a store where tickets are held and by_day is not
        // declared.
        assert!(builder.drop_index("ticket", "by_day").await.unwrap());
        let entries: Vec<Key> = all_records(&builder)
            .await
            .into_keys()
            .filter(|k| {
                k.group
                    .starts_with(&[layout::RESERVED_GROUP, layout::TAG_INDEX])
            })
            .collect();
        // Old tickets keep their by_day keys in their headers until rewritten, so the
        // entries stay: the v1 writes below (allowed after the drop) remove them.
        for board in 1..=4u64 {
            let q = Query::prefix(&KeyPath::new().push("board", board).unwrap()).unwrap();
            for t in builder.list::<TicketV1>(&q).await.unwrap().items {
                Store::new(builder.backend().clone())
                    .put_with(&t.item, PutMode::Upsert)
                    .await
                    .unwrap();
            }
        }
        assert!(!entries.is_empty());
        check_consistency(&all_records(&builder).await).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn building_while_others_write_ends_exact() {
    let mem = Store::new(MemoryBackend::new());
    build_under_writes(mem, 6).await;
    let dir = tempfile::tempdir().unwrap();
    let redb = Store::create(dir.path()).await.unwrap();
    build_under_writes(redb, 3).await;
}

/// With group counters the build leaves counters and versions as they are.
#[tokio::test]
async fn a_build_in_a_store_with_group_versions_keeps_versions() {
    let dir = tempfile::tempdir().unwrap();
    let config = StoreConfig::new(vec![]).with_group_versions(true);
    let store = Store::builder()
        .config(config.clone())
        .create_new(dir.path())
        .await
        .unwrap();
    for id in 0..5 {
        store.put(&v1(1, id, id + 1)).await.unwrap();
    }
    let before = store
        .group_version(&"/board-1".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(store.build_indexes::<TicketV2>().await.unwrap(), 5);
    let after = store
        .group_version(&"/board-1".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(before, after);
    assert_eq!(day_index(&store).await.unwrap().len(), 5);
    check_consistency(&all_records(&store).await).unwrap();
}

/// A ticket as a program that computes no index writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PlainTicket {
    board: u64,
    id: u64,
    day: u64,
}

impl Item for PlainTicket {
    const TYPE: &'static str = "ticket";
    const SELF_DESCRIBING: bool = true;
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("ticket", self.id)
    }
}

/// The same ticket from a program that computes `by_day` as the field index does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct DayTicket {
    board: u64,
    id: u64,
    day: u64,
}

fn day_key(board: u64, day: u64, id: u64) -> Result<KeyPath, PathError> {
    KeyPath::new()
        .push("board", board)?
        .push("day", day)?
        .push("board", board)?
        .push("ticket", id)
}

impl Item for DayTicket {
    const TYPE: &'static str = "ticket";
    const SELF_DESCRIBING: bool = true;
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_day", |t| {
        Ok(Some(day_key(t.board, t.day, t.id)?))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("ticket", self.id)
    }
}

async fn data_index_is_kept<B: Backend>(store: Store<B>) {
    let config = StoreConfig::new(vec![IndexDecl::field(
        "by_day",
        "ticket",
        "day",
        "/board-{board}",
    )]);
    assert!(store.create_config(&config).await.unwrap());
    let plain = PlainTicket {
        board: 1,
        id: 7,
        day: 3,
    };
    let e = store.put(&plain).await.unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("[\"by_day\"]") && text.contains("from their field values"),
        "{text}"
    );
    let path = plain.key_path().unwrap();
    assert!(store.get::<PlainTicket>(&path).await.unwrap().is_none());
    // Nor through a transaction.
    let mut txn = store.transaction();
    txn.put(&plain).unwrap();
    assert!(txn.commit().await.is_err());
    assert!(store.get::<PlainTicket>(&path).await.unwrap().is_none());

    // A program that computes it writes, and so does a raw write with the index key.
    let day = DayTicket {
        board: 1,
        id: 7,
        day: 3,
    };
    store.put(&day).await.unwrap();
    let key = day_key(1, 8, 9).unwrap();
    store
        .put_raw(
            &"/board-1/ticket-9".parse().unwrap(),
            "ticket",
            &serde_json::json!({"board": 1, "id": 9, "day": 8}),
            vec![("by_day".to_owned(), key)],
            PutMode::Upsert,
        )
        .await
        .unwrap();
    let page = store
        .query_index_raw(
            "by_day",
            &Query::prefix(&"/board-1".parse().unwrap()).unwrap(),
        )
        .await
        .unwrap();
    let keys: Vec<String> = page.items.iter().map(|i| i.key().to_string()).collect();
    assert_eq!(keys, ["/board-1/ticket-7", "/board-1/ticket-9"]);
    // The program that computes nothing is still refused, now that the store holds tickets.
    assert!(store.put(&plain).await.is_err());
    let got = store.get::<DayTicket>(&path).await.unwrap().unwrap();
    assert_eq!(got.item, day);
    check_consistency(&all_records(&store).await).unwrap();
}

/// A store declaring an index as data (`sortpath db init --index ...`, the table clients):
/// a program whose type computes no index of that name cannot write the type (its items
/// would be missing from the index, silently); one that computes it can, and so can a raw
/// write giving the index key.
#[tokio::test]
async fn a_data_index_refuses_programs_that_do_not_compute_it() {
    on_both(data_index_is_kept, data_index_is_kept).await;
}

async fn two_versions_in_one_handle<B: Backend>(store: Store<B>) {
    store.put(&v1(1, 1, 2)).await.unwrap();
    // The newer type declares by_day (building: the store holds tickets).
    store.put(&v2(&v1(1, 2, 3))).await.unwrap();
    // The older type, on the same handle, is now refused: by_day would miss its items.
    let err = store.put(&v1(1, 3, 4)).await.unwrap_err();
    assert!(
        matches!(&err, WriteError::Config(m) if m.to_string().contains("by_day")),
        "{err}"
    );
    assert!(store
        .get::<TicketV1>(&v1(1, 3, 4).key_path().unwrap())
        .await
        .unwrap()
        .is_none());
    assert_eq!(store.build_indexes::<TicketV2>().await.unwrap(), 1);
    assert_eq!(
        day_index(&store).await.unwrap(),
        expected_days([(2, 1), (3, 2)])
    );
    check_consistency(&all_records(&store).await).unwrap();
}

async fn two_versions_in_one_commit<B: Backend>(store: Store<B>) {
    // A new store: by_day is declared by the commit itself, not building, so an item of
    // the older type in the same commit would be missing from it.
    let mut txn = store.transaction();
    txn.put(&v1(1, 1, 2)).unwrap();
    txn.put(&v2(&v1(1, 2, 3))).unwrap();
    let err = txn.commit().await.unwrap_err();
    assert!(err.to_string().contains("by_day"), "{err}");
    assert!(store
        .get::<TicketV1>(&v1(1, 1, 2).key_path().unwrap())
        .await
        .unwrap()
        .is_none());
    check_consistency(&all_records(&store).await).unwrap();
}

/// Two Rust types of one item type computing different indexes (two versions of a type,
/// in one process): each is checked against the configuration on its own, so the older
/// one cannot write once the newer one declared an index it does not compute.
#[tokio::test]
async fn two_versions_of_a_type_in_one_process_keep_the_index_exact() {
    on_both(two_versions_in_one_handle, two_versions_in_one_handle).await;
    on_both(two_versions_in_one_commit, two_versions_in_one_commit).await;
}

async fn old_handle_refreshes<B: Backend + Clone>(store: Store<B>) {
    let refresh = std::time::Duration::from_millis(150);
    let old = store.clone().with_config_refresh(refresh);
    old.put(&v1(1, 1, 2)).await.unwrap();
    // Another process (its own handle: its own reading of the declarations) runs the
    // newer program, which declares by_day.
    let new = Store::new(store.backend().clone()).with_config_refresh(refresh);
    new.put(&v2(&v1(1, 2, 3))).await.unwrap();
    // Once its reading is older than the refresh, the old handle reads the declarations
    // again with its next write of the type, and is refused.
    std::thread::sleep(refresh + std::time::Duration::from_millis(50));
    let err = old.put(&v1(1, 3, 4)).await.unwrap_err();
    assert!(
        matches!(&err, WriteError::Config(m) if m.to_string().contains("by_day")),
        "{err}"
    );
    assert!(old
        .get::<TicketV1>(&v1(1, 3, 4).key_path().unwrap())
        .await
        .unwrap()
        .is_none());
    assert_eq!(new.build_indexes::<TicketV2>().await.unwrap(), 1);
    assert_eq!(
        day_index(&new).await.unwrap(),
        expected_days([(2, 1), (3, 2)])
    );
    check_consistency(&all_records(&new).await).unwrap();
}

/// A handle that wrote a type before another handle (another process) declared an index
/// the type does not compute is refused once its reading of the declarations is older
/// than its `config_refresh`.
#[tokio::test]
async fn an_old_handle_reads_the_declarations_again() {
    on_both(old_handle_refreshes, old_handle_refreshes).await;
}
