//! What each store operation costs on DynamoDB, counted from the requests the store sends
//! (`backend::dynamodb::cost`, AWS's documented on-demand rules), beside the same access
//! pattern written by hand: plain items with string keys and a GSI on (board, updated_at),
//! written with PutItem/DeleteItem, read with GetItem/Query. Prints the table that
//! docs/figures/dynamodb-cost.md shows and checks the bars the store meets.
//!
//! `cargo test --release -p sortpath-store --all-features --test dynamodb_cost -- --nocapture`

mod dynamodb_server;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::dynamodb::cost::{
    item_size, read_units, write_units, Cost, CostMeter,
};
use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
use sortpath_store::backend::Consistency;
use sortpath_store::{Index, Item, Projection, Query, Store};

/// A ticket of about 200 bytes as a hand-made DynamoDB item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Ticket {
    board: u64,
    id: u64,
    updated_at: i64,
    status: String,
    title: String,
}

impl Item for Ticket {
    const TYPE: &'static str = "ticket";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
        Ok(Some(
            KeyPath::new()
                .push("board", t.board)?
                .push("updated", t.updated_at)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.board)?
            .push("ticket", self.id)
    }
}

/// The same ticket, with an index whose entries hold the item (`Projection::All`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Projected(Ticket);

impl Item for Projected {
    const TYPE: &'static str = "pticket";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated_all", |t: &Projected| {
        Ok(Some(
            KeyPath::new()
                .push("board", t.0.board)?
                .push("updated", t.0.updated_at)?,
        ))
    })
    .projecting(Projection::All)];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.0.board)?
            .push("pticket", self.0.id)
    }
}

/// The same ticket, with its index kept by the table as a GSI (`IndexMode::Table`)
/// projecting the item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Kept(Ticket);

impl Item for Kept {
    const TYPE: &'static str = "kticket";
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated_gsi", |t: &Kept| {
        Ok(Some(
            KeyPath::new()
                .push("board", t.0.board)?
                .push("updated", t.0.updated_at)?,
        ))
    })
    .projecting(Projection::All)
    .maintained_by_table()];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("board", self.0.board)?
            .push("kticket", self.0.id)
    }
}

fn ticket(id: u64, updated_at: i64) -> Ticket {
    Ticket {
        board: 7,
        id,
        updated_at,
        status: "open".into(),
        // 120 characters: the hand-made item comes to about 200 bytes.
        title: format!("{:0<120}", format!("ticket {id}: ")),
    }
}

/// The hand-made item: `pk` = `BOARD#7`, `sk` = `TICKET#<zero-padded id>`, the fields as
/// attributes, `board` and `updated_at` the GSI's keys.
fn hand_made(t: &Ticket) -> HashMap<String, AttributeValue> {
    let s = |v: String| AttributeValue::S(v);
    let n = |v: String| AttributeValue::N(v);
    HashMap::from([
        ("pk".to_owned(), s(format!("BOARD#{}", t.board))),
        ("sk".to_owned(), s(format!("TICKET#{:010}", t.id))),
        ("board".to_owned(), n(t.board.to_string())),
        ("id".to_owned(), n(t.id.to_string())),
        ("updated_at".to_owned(), n(t.updated_at.to_string())),
        ("status".to_owned(), s(t.status.clone())),
        ("title".to_owned(), s(t.title.clone())),
    ])
}

/// The hand-made design's cost of each operation, by the same rules: a base-table write
/// plus one GSI write per GSI item put or deleted (the GSI projects every attribute).
struct HandMade {
    size: usize,
}

impl HandMade {
    fn write(&self, gsi_writes: f64) -> Cost {
        Cost {
            requests: 1,
            write_units: write_units(self.size) * (1.0 + gsi_writes),
            read_units: 0.0,
        }
    }
    fn read(&self, items: usize, consistent: bool) -> Cost {
        Cost {
            requests: 1,
            write_units: 0.0,
            read_units: read_units(self.size * items, consistent),
        }
    }
}

struct Row {
    operation: &'static str,
    sortpath: Cost,
    requests: String,
    hand: Cost,
    bar: Option<f64>,
}

/// The row of an operation: the requests `meter` recorded for it (and forgets).
fn row(operation: &'static str, meter: &CostMeter, hand: Cost, bar: Option<f64>) -> Row {
    let sent = meter.take();
    Row {
        operation,
        requests: sent
            .iter()
            .map(|s| s.operation)
            .collect::<Vec<_>>()
            .join(" + "),
        sortpath: sent.into_iter().fold(Cost::default(), |a, s| a + s.cost),
        hand,
        bar,
    }
}

/// The mean cost of putting `n` new items `make(i, updated_at)`, one request batch each, and
/// the requests of the last put.
async fn mean_new_put<T: Item>(
    store: &Store<DynamoDbBackend>,
    meter: &CostMeter,
    n: u64,
    make: impl Fn(u64, i64) -> T,
) -> (Cost, String) {
    meter.take();
    let mut total = Cost::default();
    let mut ops = Vec::new();
    for i in 1..=n {
        store.put(&make(i, 1_700_000_000 + i as i64)).await.unwrap();
        let sent = meter.take();
        ops = sent.iter().map(|s| s.operation).collect();
        total = sent.into_iter().fold(total, |a, s| a + s.cost);
    }
    let mean = Cost {
        requests: total.requests / n,
        write_units: total.write_units / n as f64,
        read_units: total.read_units / n as f64,
    };
    (mean, ops.join(" + "))
}

fn show(c: &Cost) -> String {
    format!("{} / {}", c.write_units, c.read_units)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_per_operation_against_a_hand_made_design() {
    let server = dynamodb_server::server().await;
    let meter = CostMeter::default();
    let sdk = client(Some(&server.endpoint), None).await;
    let table = dynamodb_server::table_name("cost");
    let gsis = [("by_updated_gsi", Projection::All)];
    let backend = DynamoDbBackend::create_table_with(sdk, &table, &gsis)
        .await
        .unwrap()
        .metered(&meter);
    // A handle reads the configuration again with its first write of a type after
    // `config_refresh` (10 s by default): one read unit per type per 10 s per process, left
    // out of the per-operation figures (the run takes longer than 10 s).
    let store = Store::new(backend).with_config_refresh(std::time::Duration::from_secs(3600));
    // The first write of the type declares its index in the configuration: a one-off
    // cost, not the steady state measured here.
    store.put(&ticket(1_000_000, 1)).await.unwrap();
    store
        .delete(&ticket(1_000_000, 1).key_path().unwrap())
        .await
        .unwrap();
    meter.take();

    let n = 100u64;
    let hand = HandMade {
        size: (1..=n)
            .map(|i| item_size(&hand_made(&ticket(i, 1_700_000_000 + i as i64))))
            .max()
            .unwrap(),
    };
    let mut rows = Vec::new();
    // Puts of new items, one at a time: the mean of n.
    let (sortpath, requests) = mean_new_put(&store, &meter, n, ticket).await;
    rows.push(Row {
        operation: "put, new item",
        sortpath,
        requests,
        hand: hand.write(1.0),
        bar: Some(2.2),
    });
    // A put that changes the indexed field.
    let mut moved = ticket(5, 1_800_000_000);
    store.put(&moved).await.unwrap();
    rows.push(row(
        "put, indexed field changes",
        &meter,
        hand.write(2.0),
        Some(2.2),
    ));
    // A put that leaves the indexed field as it is.
    moved.status = "closed".into();
    store.put(&moved).await.unwrap();
    rows.push(row(
        "put, indexed field unchanged",
        &meter,
        hand.write(1.0),
        Some(1.2),
    ));
    // A strongly consistent get.
    let got = store
        .get::<Ticket>(&moved.key_path().unwrap())
        .await
        .unwrap();
    assert_eq!(got.unwrap().item, moved);
    rows.push(row(
        "get (strongly consistent)",
        &meter,
        hand.read(1, true),
        Some(1.0),
    ));
    // A list of 100 of the board.
    let board: KeyPath = "/board-7".parse().unwrap();
    let page = store
        .list::<Ticket>(&Query::children(&board, "ticket").unwrap().limit(100))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 100);
    rows.push(row(
        "list 100 of a group (strongly consistent)",
        &meter,
        hand.read(100, true),
        Some(1.3),
    ));
    // The same reads, eventually consistent (the items are long settled).
    let got = store
        .get_with::<Ticket>(&moved.key_path().unwrap(), Consistency::Eventual)
        .await
        .unwrap();
    assert_eq!(got.unwrap().item, moved);
    rows.push(row(
        "get (eventually consistent)",
        &meter,
        hand.read(1, false),
        Some(1.0),
    ));
    let eventual = Query::children(&board, "ticket")
        .unwrap()
        .limit(100)
        .consistency(Consistency::Eventual);
    let page = store.list::<Ticket>(&eventual).await.unwrap();
    assert_eq!(page.items.len(), 100);
    rows.push(row(
        "list 100 of a group (eventually consistent)",
        &meter,
        hand.read(100, false),
        Some(1.3),
    ));
    // The latest 100 by the index.
    let page = store
        .query_index::<Ticket>(
            "by_updated",
            &Query::prefix(&board).unwrap().reverse().limit(100),
        )
        .await
        .unwrap();
    assert_eq!(page.items.len(), 100);
    assert_eq!(
        page.items[0].item,
        ticket(5, 1_800_000_000).with_status("closed")
    );
    rows.push(row(
        "index query, 100 entries (keys-only entries)",
        &meter,
        hand.read(100, false),
        None,
    ));
    // A delete.
    store.delete(&moved.key_path().unwrap()).await.unwrap();
    rows.push(row("delete", &meter, hand.write(1.0), Some(2.2)));

    // The same board with an index that projects the whole item.
    let board8 = |id: u64, at: i64| {
        let mut t = ticket(id, at);
        t.board = 8;
        Projected(t)
    };
    store.put(&board8(1_000_000, 1)).await.unwrap();
    store
        .delete(&board8(1_000_000, 1).key_path().unwrap())
        .await
        .unwrap();
    let (sortpath, requests) = mean_new_put(&store, &meter, n, board8).await;
    rows.push(Row {
        operation: "put, new item (entries project the item)",
        sortpath,
        requests,
        hand: hand.write(1.0),
        bar: Some(2.2),
    });
    let mut p = board8(5, 1_700_000_005);
    p.0.status = "closed".into();
    store.put(&p).await.unwrap();
    rows.push(row(
        "put, indexed field unchanged (entries project the item)",
        &meter,
        hand.write(1.0),
        None,
    ));
    let board8_path: KeyPath = "/board-8".parse().unwrap();
    let page = store
        .query_index::<Projected>(
            "by_updated_all",
            &Query::prefix(&board8_path).unwrap().reverse().limit(100),
        )
        .await
        .unwrap();
    assert_eq!(page.items.len(), 100);
    assert_eq!(page.items[0].item.0.id, n);
    rows.push(row(
        "index query, 100 entries (entries project the item)",
        &meter,
        hand.read(100, false),
        Some(4.0),
    ));
    let page = store
        .query_index::<Projected>(
            "by_updated_all",
            &Query::prefix(&board8_path)
                .unwrap()
                .reverse()
                .limit(100)
                .consistency(Consistency::Eventual),
        )
        .await
        .unwrap();
    assert_eq!(page.items.len(), 100);
    rows.push(row(
        "index query, 100 entries (entries project the item, eventually consistent)",
        &meter,
        hand.read(100, false),
        Some(4.0),
    ));

    // The same operations with the index kept by the table (a GSI projecting the item):
    // each row includes the GSI's own writes (one per GSI item put, updated or deleted,
    // two where the GSI key moves), as the hand-made rows do.
    let board9 = |id: u64, at: i64| {
        let mut t = ticket(id, at);
        t.board = 9;
        Kept(t)
    };
    store.put(&board9(1_000_000, 1)).await.unwrap();
    store
        .delete(&board9(1_000_000, 1).key_path().unwrap())
        .await
        .unwrap();
    let (sortpath, requests) = mean_new_put(&store, &meter, n, board9).await;
    rows.push(Row {
        operation: "put, new item (GSI mode)",
        sortpath,
        requests,
        hand: hand.write(1.0),
        bar: Some(1.2),
    });
    let mut k = board9(5, 1_800_000_000);
    store.put(&k).await.unwrap();
    rows.push(row(
        "put, indexed field changes (GSI mode)",
        &meter,
        hand.write(2.0),
        Some(1.2),
    ));
    k.0.status = "closed".into();
    store.put(&k).await.unwrap();
    rows.push(row(
        "put, indexed field unchanged (GSI mode)",
        &meter,
        hand.write(1.0),
        Some(1.2),
    ));
    let board9_path: KeyPath = "/board-9".parse().unwrap();
    let latest = Query::prefix(&board9_path).unwrap().reverse().limit(100);
    // The GSI is eventually consistent: wait until the moved item shows first.
    let start = std::time::Instant::now();
    loop {
        let page = store
            .query_index::<Kept>("by_updated_gsi", &latest)
            .await
            .unwrap();
        if page.items.len() == 100 && page.items[0].item == k {
            break;
        }
        assert!(start.elapsed().as_secs() < 30, "GSI not settled after 30 s");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let raw = store
        .backend()
        .client()
        .scan()
        .table_name(store.backend().table())
        .send()
        .await
        .unwrap();
    for item in raw.items().iter().filter(|i| i.contains_key("gp1")).take(1) {
        let mut attrs: Vec<(usize, &String)> = item
            .iter()
            .map(|(k, v)| (item_size(&HashMap::from([(k.clone(), v.clone())])), k))
            .collect();
        attrs.sort();
        eprintln!("GSI-mode item: {} bytes: {attrs:?}", item_size(item));
    }
    meter.take();
    let page = store
        .query_index::<Kept>("by_updated_gsi", &latest)
        .await
        .unwrap();
    assert_eq!(page.items.len(), 100);
    assert_eq!(page.items[0].item, k);
    rows.push(row(
        "index query, 100 entries (GSI mode, eventually consistent)",
        &meter,
        hand.read(100, false),
        // Each GSI-mode item carries its two GSI key attributes (short names; the index
        // key path is not repeated in the stored header) beside its own keys and version.
        Some(1.5),
    ));
    store.delete(&k.key_path().unwrap()).await.unwrap();
    rows.push(row("delete (GSI mode)", &meter, hand.write(1.0), Some(1.2)));

    println!("hand-made item: {} bytes", hand.size);
    println!("| operation | sortpath requests | sortpath WCU / RCU | sortpath $/M | hand-made WCU / RCU | hand-made $/M | ratio | bar |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut missed = Vec::new();
    for r in &rows {
        let ratio = r.sortpath.dollars_per_million() / r.hand.dollars_per_million();
        println!(
            "| {} | {} | {} | {:.4} | {} | {:.4} | {:.2}x | {} |",
            r.operation,
            r.requests,
            show(&r.sortpath),
            r.sortpath.dollars_per_million(),
            show(&r.hand),
            r.hand.dollars_per_million(),
            ratio,
            r.bar.map_or("-".to_owned(), |b| format!("{b}x")),
        );
        if let Some(bar) = r.bar {
            if ratio > bar + 1e-9 {
                missed.push(format!("{}: {ratio:.2}x, bar {bar}x", r.operation));
            }
        }
    }
    assert!(missed.is_empty(), "over the bar: {missed:?}");
}

impl Ticket {
    fn with_status(mut self, status: &str) -> Ticket {
        self.status = status.into();
        self
    }
}
