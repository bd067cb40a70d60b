//! Ways a user could lose data through the CLI, each run as the user would run it.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{fails, ok};

fn keypath(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keypath"))
        .args(args)
        .output()
        .expect("the keypath binary runs")
}

fn db(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["db", "--path", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    keypath(&all)
}

/// `keypath demo --path DIR` on a store of the user's own with the demo's index (the
/// README's example store: `init --index 'by_updated=ticket.updated_at@/board-{board}'`,
/// then `put /ticket-7 ...`) must not replace the user's items with its own tickets.
/// Before, it loaded its 600 tickets over `/ticket-0` to `/ticket-599` and the user's
/// `/ticket-7` was gone.
#[test]
fn the_demo_never_replaces_a_users_items() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(
        d,
        &[
            "init",
            "--index",
            "by_updated=ticket.updated_at@/board-{board}",
        ],
    ));
    let mine = r#"{"board":1,"title":"login fails","updated_at":1700000000}"#;
    ok(&db(d, &["put", "/ticket-7", mine]));
    let before = ok(&db(d, &["export"]));

    let o = keypath(&["demo", "--path", d.to_str().unwrap()]);
    fails(&o, 2, "/ticket-7");

    // Nothing was written: the user's ticket and its index entry are as they were.
    assert_eq!(ok(&db(d, &["export"])), before);
    let got = ok(&db(d, &["get", "/ticket-7"]));
    assert_eq!(
        got[0]["value"],
        serde_json::from_str::<serde_json::Value>(mine).unwrap()
    );
    let board = ok(&db(d, &["index", "by_updated", "/board-1"]));
    assert_eq!(board.len(), 1);
    assert_eq!(board[0]["key"], "/ticket-7");
    assert_eq!(ok(&db(d, &["check"]))[0]["ok"], true);
}

/// An item of a Rust program, with values JSON has no exact form for.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Reading {
    id: u64,
    peak: f64,
    counts: std::collections::BTreeMap<u32, u32>,
    sensor: uuid::Uuid,
}

impl keypath_store::Item for Reading {
    const TYPE: &'static str = "reading";
    fn key_path(&self) -> Result<keypath::KeyPath, keypath::path::PathError> {
        keypath::KeyPath::new().push("reading", self.id)
    }
}

/// `export`, then `import` into a new store (the copy `keypath db` itself tells a user to
/// make of a store an older release wrote) must give the program back the items it
/// stored, or refuse: here an infinite float, a map with integer keys and a UUID.
#[tokio::test]
#[ignore = "reason: finding 3 (export writes non-finite floats as null, integer map keys as strings and byte strings such as UUIDs as arrays; import stores those, exit 0, and the program can no longer read the item)"]
async fn a_program_store_survives_export_then_import() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("from"), dir.path().join("to"));
    let reading = Reading {
        id: 1,
        peak: f64::INFINITY,
        counts: [(7, 1)].into(),
        sensor: uuid::Uuid::from_bytes([9; 16]),
    };
    {
        let store = keypath_store::Store::open(&from).await.unwrap();
        store.put(&reading).await.unwrap();
    }
    let export = db(&from, &["export"]);
    if !export.status.success() {
        return; // refused, nothing lost
    }
    let file = dir.path().join("items.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    let import = db(&to, &["import", file.to_str().unwrap()]);
    if !import.status.success() {
        return; // refused, nothing lost
    }
    let store = keypath_store::Store::open(&to).await.unwrap();
    let got = store.get::<Reading>(&"/reading-1".parse().unwrap()).await;
    assert!(
        matches!(&got, Ok(Some(v)) if v.item == reading),
        "export and import succeeded, but the program reads {got:?}; export was {}",
        String::from_utf8_lossy(&export.stdout)
    );
}
