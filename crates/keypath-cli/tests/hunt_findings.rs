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
