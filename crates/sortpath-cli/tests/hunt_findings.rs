//! Ways a user could lose data through the CLI, each run as the user would run it.

mod common;

use std::process::Command;

use common::{db, fails, ok, sortpath};

/// `sortpath demo --path DIR` on a store of the user's own with the demo's index (the
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

    let o = sortpath(&["demo", "--path", d.to_str().unwrap()]);
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

impl sortpath_store::Item for Reading {
    const TYPE: &'static str = "reading";
    fn key_path(&self) -> Result<sortpath::KeyPath, sortpath::path::PathError> {
        sortpath::KeyPath::new().push("reading", self.id)
    }
}

/// `export`, then `import` into a new store (the copy `sortpath db` itself tells a user to
/// make of a store an older release wrote) must give the program back the items it
/// stored, or refuse: here an infinite float, a map with integer keys and a UUID.
#[tokio::test]
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
        let store = sortpath_store::Store::create(&from).await.unwrap();
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
    let store = sortpath_store::Store::create(&to).await.unwrap();
    let got = store.get::<Reading>(&"/reading-1".parse().unwrap()).await;
    assert!(
        matches!(&got, Ok(Some(v)) if v.item == reading),
        "export and import succeeded, but the program reads {got:?}; export was {}",
        String::from_utf8_lossy(&export.stdout)
    );
}

/// A full disk (a 2 MiB tmpfs mounted in a private mount namespace: `unshare -m`, as root,
/// as CI runs): puts fail with a one-line storage error naming the item, exit 1; so does a
/// delete (before, its message named no item); every acknowledged put is there, `check`
/// is clean, and once space is freed writes go on.
#[test]
fn a_full_disk_loses_no_acknowledged_write_and_says_which_write_failed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mnt = d.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let (bin, m, o) = (
        env!("CARGO_BIN_EXE_sortpath"),
        mnt.to_str().unwrap(),
        d.to_str().unwrap(),
    );
    let pad = "y".repeat(3000);
    let script = format!(
        r#"set -u
mount -t tmpfs -o size=2m tmpfs {m} || exit 99
head -c 300000 /dev/zero > {m}/filler
i=0
while [ $i -lt 5000 ]; do
  {bin} db --path {m}/s put /g-$((i % 5))/t-$i '{{"i": '$i', "pad": "{pad}"}}' >/dev/null 2>{o}/put.err
  status=$?
  [ $status -eq 0 ] || break
  echo $i >> {o}/acked
  i=$((i + 1))
done
echo $status > {o}/put.status
{bin} db --path {m}/s delete /g-0/t-0 >/dev/null 2>{o}/delete.err
echo $? > {o}/delete.status
rm {m}/filler
for i in $(cat {o}/acked); do
  {bin} db --path {m}/s get /g-$((i % 5))/t-$i >/dev/null 2>&1 || echo $i >> {o}/missing
done
{bin} db --path {m}/s check > {o}/check.out 2>&1
{bin} db --path {m}/s put /z-1 '{{"after": 1}}' > {o}/after.out 2>&1
"#
    );
    let run = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .output()
        .expect("unshare (util-linux) runs; this test needs it and root, as CI has");
    assert!(
        run.status.success(),
        "{:?}: {}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(d.join(name)).unwrap_or_default();
    let acked = read("acked").lines().count();
    assert!(acked > 10, "only {acked} puts before the disk filled");
    // The put that found the disk full: exit 1, one line naming it.
    assert_eq!(read("put.status").trim(), "1");
    let put_err = read("put.err");
    assert!(
        put_err.lines().count() == 1
            && put_err.contains(&format!("put /g-{}/t-{acked}: ", acked % 5))
            && put_err.contains("No space left on device"),
        "{put_err}"
    );
    // The delete on the full disk (redb writes new pages for it too).
    assert_eq!(read("delete.status").trim(), "1", "{}", read("delete.err"));
    let delete_err = read("delete.err");
    assert!(
        delete_err.lines().count() == 1
            && delete_err.contains("delete /g-0/t-0: ")
            && delete_err.contains("No space left on device"),
        "{delete_err}"
    );
    assert_eq!(read("missing"), "", "acknowledged puts missing");
    let check = read("check.out");
    assert!(check.contains("\"ok\":true"), "{check}");
    assert!(
        read("after.out").contains("\"key\":\"/z-1\""),
        "{}",
        read("after.out")
    );
}

/// A store file that is a symbolic link to nothing (a store moved away, a link restored
/// from a backup): before, `init` said a store exists, `get` that there is none and to
/// create one with `init`, and `put` gave an I/O error, exit 1. Each now says what is
/// wrong, exit 2, and nothing is created at either end of the link.
#[test]
fn a_store_file_linked_to_nothing_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("store");
    std::fs::create_dir(&d).unwrap();
    let target = dir.path().join("moved-away.redb");
    std::os::unix::fs::symlink(&target, d.join("sortpath.redb")).unwrap();
    for args in [
        &["init"][..],
        &["put", "/a-1", "{}"],
        &["get", "/a-1"],
        &["list", "/a-1"],
        &["export"],
    ] {
        fails(&db(&d, args), 2, "sortpath.redb is a symbolic link to");
    }
    assert!(!target.exists());
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    assert!(std::fs::symlink_metadata(d.join("sortpath.redb"))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// `sortpath db --slatedb DIR put` from three processes at once: each open fences the other
/// writers. A put that exits 0 must have its item there, and one that exits 1 but whose
/// item is there must say that its write may have been made. Before, a put whose write was
/// durable but whose writer was fenced before it closed exited 1 saying the write was not
/// acknowledged (3 of 60 puts in one run), and a user would have written it again; a write
/// that SlateDB failed as fenced after it reached the log said the same.
#[cfg(feature = "slatedb")]
#[test]
fn a_slatedb_put_that_wrote_its_item_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().join("db").to_str().unwrap().to_owned();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sortpath"))
            .args(["db", "--slatedb", &at])
            .args(args)
            .output()
            .expect("the sortpath binary runs")
    };
    ok(&run(&["init"]));
    let outcomes: Vec<(String, bool, String)> = std::thread::scope(|s| {
        let writers: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|w| {
                let run = &run;
                s.spawn(move || {
                    (0..20)
                        .map(|i| {
                            let key = format!("/t-{w}{i}");
                            let o = run(&["put", &key, &format!("{{\"n\":{i}}}")]);
                            let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
                            (key, o.status.success(), stderr)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        writers
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let stored: std::collections::BTreeSet<String> = ok(&run(&["export"]))
        .iter()
        .filter_map(|v| v["key"].as_str().map(str::to_owned))
        .collect();
    let lost: Vec<_> = outcomes
        .iter()
        .filter(|(key, acked, _)| *acked && !stored.contains(key))
        .collect();
    assert!(lost.is_empty(), "acknowledged puts missing: {lost:?}");
    let misreported: Vec<_> = outcomes
        .iter()
        .filter(|(key, acked, stderr)| {
            !*acked && stored.contains(key) && !stderr.contains("may still have been written")
        })
        .collect();
    assert!(
        misreported.is_empty(),
        "puts that wrote their item but exited 1 saying nothing of it: {misreported:?}"
    );
    assert!(outcomes.iter().any(|(_, acked, _)| *acked));
}
