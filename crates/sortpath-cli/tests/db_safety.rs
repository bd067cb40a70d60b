//! `sortpath db` loses nothing: races between real processes on a new store, a store a
//! Rust program wrote, leftover temporary files, bounded imports, read-only stores, exit
//! statuses, field values read as IDs, and copies that keep the indexes.

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sortpath::{path::PathError, KeyPath};
use sortpath_store::{Index, Item, Query, Store};

use common::{fails, ok};

fn sortpath(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sortpath"));
    c.args(args);
    c
}

fn db_args<'a>(dir: &'a Path, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["db", "--path", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    all
}

fn db(dir: &Path, args: &[&str]) -> Output {
    sortpath(&db_args(dir, args))
        .output()
        .expect("the sortpath binary runs")
}

fn spawn(dir: &Path, args: &[&str]) -> Child {
    sortpath(&db_args(dir, args))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sortpath binary runs")
}

/// Whether a run failed only because another process had the store open.
fn in_use(o: &Output) -> bool {
    String::from_utf8_lossy(&o.stderr).contains("open in another process")
}

/// Runs `args` until it does not fail with the store in use (at most 20 s: the other
/// process may be slow to start on a loaded machine).
fn until_not_in_use(dir: &Path, args: &[&str]) -> Output {
    let start = Instant::now();
    loop {
        let o = db(dir, args);
        if !in_use(&o) || start.elapsed() > Duration::from_secs(20) {
            return o;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn keys(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l["key"].as_str().map(String::from))
        .collect()
}

/// A refused put that would create a store races an upsert into the same new directory:
/// the refused one creates nothing and deletes nothing, so the upsert, once acknowledged,
/// is there. (Before, a refused put deleted the store it had made, and with it, in about one
/// round of five, the other process's acknowledged item.)
#[test]
fn a_refused_first_put_never_loses_another_processes_write() {
    let top = tempfile::tempdir().unwrap();
    for round in 0..100 {
        let d = top.path().join(format!("r{round}"));
        let refused = spawn(&d, &["put", "--if-version", "5", "/a-1", r#"{"b":1}"#]);
        let acked = until_not_in_use(&d, &["put", "/a-2", r#"{"a":2}"#]);
        assert!(
            acked.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&acked.stderr)
        );
        let refused = refused.wait_with_output().unwrap();
        if !in_use(&refused) {
            fails(&refused, 4, "item /a-1 is absent, expected version 5");
        }
        let got = until_not_in_use(&d, &["get", "/a-2"]);
        assert_eq!(ok(&got)[0]["value"]["a"], 2, "round {round}");
    }
}

/// `init` with an index races the first put into a new directory: one of them creates the
/// store, atomically with its configuration. If `init` won, the put's item is in the index;
/// if the put won, `init` says a store exists. Never an acknowledged put missing from a
/// declared index (before: about one round in 30-60).
#[test]
fn init_racing_a_first_put_never_leaves_the_index_incomplete() {
    let top = tempfile::tempdir().unwrap();
    let (mut inits, mut puts_first) = (0, 0);
    for round in 0..100 {
        let d = top.path().join(format!("r{round}"));
        let init = spawn(&d, &["init", "--index", "by_n=t.n@/all-0"]);
        let put = until_not_in_use(&d, &["put", "/t-1", r#"{"n":5}"#]);
        assert!(
            put.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&put.stderr)
        );
        let mut init = init.wait_with_output().unwrap();
        while in_use(&init) {
            init = db(&d, &["init", "--index", "by_n=t.n@/all-0"]);
        }
        if init.status.success() {
            inits += 1;
            let listed = ok(&until_not_in_use(&d, &["index", "by_n", "/all-0"]));
            assert_eq!(keys(&listed), ["/t-1"], "round {round}");
        } else {
            puts_first += 1;
            fails(&init, 2, "a store already exists");
            let got = ok(&until_not_in_use(&d, &["get", "/t-1"]));
            assert_eq!(got[0]["value"]["n"], 5, "round {round}");
        }
    }
    // Both orders happen; each was checked.
    eprintln!("init first: {inits}, put first: {puts_first}");
}

#[test]
fn init_refuses_any_existing_store_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["put", "/a-1", "1"]));
    fails(
        &db(d, &["init", "--index", "by_n=a.n@/all-0"]),
        2,
        "a store already exists",
    );
    // A file that is not a store is not taken for one, nor replaced.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("sortpath.redb"), b"not a store").unwrap();
    fails(&db(other.path(), &["init"]), 2, "a store already exists");
    assert_eq!(
        std::fs::read(other.path().join("sortpath.redb")).unwrap(),
        b"not a store"
    );
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Player {
    id: u64,
    score: u64,
}

impl Item for Player {
    const TYPE: &'static str = "player";
    // Read by field name with `sortpath db` (a compact item shows as the list of its values).
    const SELF_DESCRIBING: bool = true;
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_score", |p| {
        Ok(Some(
            KeyPath::new()
                .push("scores", 0u64)?
                .push("score", p.score)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("player", self.id)
    }
}

async fn scores(dir: &Path) -> Vec<u64> {
    let store = Store::create(dir).await.unwrap();
    let query = Query::prefix(&"/scores-0".parse().unwrap()).unwrap();
    let page = store
        .query_index::<Player>("by_score", &query)
        .await
        .unwrap();
    page.items.iter().map(|v| v.item.id).collect()
}

/// A store a Rust program made, with an index its code computes: the CLI reads it, and
/// refuses to write items of that type (it would drop their entries), so the program's
/// index query still finds every player.
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_keeps_a_program_written_store_exact() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    {
        let store = Store::create(d).await.unwrap();
        for id in 1..=3 {
            store.put(&Player { id, score: id * 10 }).await.unwrap();
        }
    }
    let got = ok(&db(d, &["get", "/player-3"]));
    assert_eq!(got[0]["value"]["score"], 30);
    let listed = ok(&db(d, &["index", "by_score", "/scores-0"]));
    assert_eq!(keys(&listed), ["/player-1", "/player-2", "/player-3"]);
    fails(
        &db(d, &["put", "/player-3", r#"{"id":3,"score":99}"#]),
        2,
        "items of type player are indexed by a program",
    );
    fails(
        &db(d, &["put", "/player-9", r#"{"id":9,"score":1}"#]),
        2,
        "indexed by a program",
    );
    let lines = d.join("in.jsonl");
    std::fs::write(&lines, "{\"key\": \"/player-2\", \"value\": {\"id\": 2}}\n").unwrap();
    fails(
        &db(d, &["import", lines.to_str().unwrap()]),
        2,
        "indexed by a program",
    );
    assert_eq!(scores(d).await, [1, 2, 3]);
    // Other item types are the CLI's to write; deletes remove every entry an item has.
    ok(&db(d, &["put", "/note-1", r#"{"text":"hi"}"#]));
    ok(&db(d, &["delete", "/player-2"]));
    assert_eq!(scores(d).await, [1, 3]);
    let config = &ok(&db(d, &["export"]))[0]["config"];
    assert_eq!(
        config["indexes"][0],
        serde_json::json!({"name": "by_score", "type": "player", "kind": "program"})
    );
}

/// Temporary files of a creator that was killed are removed by the next creator in the
/// directory once nobody holds them and they are old; a recent one or one held by a live
/// process is kept.
#[test]
fn leftover_temporary_files_are_removed_only_when_nobody_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let stale = d.join("sortpath.redb.4242.17.tmp");
    let held = d.join("sortpath.redb.4243.18.tmp");
    let recent = d.join("sortpath.redb.4244.19.tmp");
    let foreign = d.join("sortpath.redb.notes.tmp");
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for f in [&stale, &held, &recent, &foreign] {
        std::fs::write(f, vec![7u8; 4096]).unwrap();
    }
    for f in [&stale, &held, &foreign] {
        std::fs::File::options()
            .write(true)
            .open(f)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let holder = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&held)
        .unwrap();
    holder.lock().unwrap();
    ok(&db(d, &["put", "/a-1", "1"]));
    assert!(!stale.exists(), "an old unheld temporary file is left");
    assert!(held.exists(), "a held temporary file was removed");
    assert!(recent.exists(), "a recent temporary file was removed");
    assert!(foreign.exists(), "a file of another name was removed");
    drop(holder);
}

/// A creator killed at random moments leaves either no store or a whole one (with its
/// configuration), never a store without its indexes.
#[test]
fn a_killed_init_leaves_a_whole_store_or_none() {
    let top = tempfile::tempdir().unwrap();
    let mut whole = 0;
    for round in 0..40u64 {
        let d = top.path().join(format!("r{round}"));
        let mut child = spawn(&d, &["init", "--index", "by_n=t.n@/all-0"]);
        std::thread::sleep(Duration::from_micros(500 + round * 250));
        let _ = child.kill();
        let _ = child.wait();
        if d.join("sortpath.redb").exists() {
            whole += 1;
            let config = &ok(&db(&d, &["export"]))[0]["config"];
            assert_eq!(config["indexes"][0]["name"], "by_n", "round {round}");
        } else {
            fails(&db(&d, &["get", "/t-1"]), 2, "no store at");
        }
    }
    eprintln!("stores made before the kill: {whole} of 40");
}

/// An import reads at most 8 MiB for a line: an endless line is refused without reading on.
#[test]
fn import_lines_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = db(d, &["import", "/dev/zero"]);
    fails(&o, 2, "/dev/zero: line 1: longer than 8388608 bytes");
    assert!(
        !d.join("sortpath.redb").exists(),
        "a refused import made a store"
    );
    // In an existing store: the items before the line are kept and counted.
    let file = d.join("in.jsonl");
    let mut text = String::from("{\"key\": \"/a-1\", \"value\": 1}\n");
    text.push_str(&" ".repeat(9 << 20));
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    fails(
        &db(d, &["import", file.to_str().unwrap()]),
        2,
        "line 2: longer than 8388608 bytes (imported before it: 1 item)",
    );
    assert_eq!(ok(&db(d, &["get", "/a-1"]))[0]["value"], 1);
}

#[test]
fn an_import_line_that_is_not_utf8_says_how_far_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = d.join("in.jsonl");
    let mut bytes = b"{\"key\": \"/a-1\", \"value\": 1}\n".to_vec();
    bytes.extend_from_slice(b"{\"key\": \"/a-2\", \"value\": \"\xff\"}\n");
    std::fs::write(&file, bytes).unwrap();
    fails(
        &db(d, &["import", file.to_str().unwrap()]),
        2,
        "line 2: not UTF-8: invalid utf-8 sequence of 1 bytes from index 26 (imported before it: 1 item)",
    );
}

/// get, list, index and export open the store read-only: they work on a read-only mount,
/// and leave the file as it was.
#[test]
fn reads_work_on_a_read_only_mount() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("store");
    ok(&db(&d, &["init", "--index", "by_n=a.n@/all-0"]));
    ok(&db(&d, &["put", "/a-1", r#"{"n": 1}"#]));
    let before = std::fs::read(d.join("sortpath.redb")).unwrap();
    let bin = env!("CARGO_BIN_EXE_sortpath");
    let p = d.to_str().unwrap();
    let script = format!(
        "mount --bind -o ro {p} {p} && touch {p}/probe 2>/dev/null && echo WRITABLE; \
         {bin} db --path {p} get /a-1 && {bin} db --path {p} list /a-1 && \
         {bin} db --path {p} index by_n /all-0 && {bin} db --path {p} export; \
         {bin} db --path {p} put /a-2 1"
    );
    let o = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .output()
        .expect("unshare (util-linux) runs; this test needs it and root, as CI has");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!out.contains("WRITABLE"), "the mount is writable: {out}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{out}\n{err}");
    assert_eq!(lines[0]["value"]["n"], 1);
    assert!(lines[3]["config"].is_object());
    assert!(
        err.contains("Read-only file system") && err.lines().count() == 1,
        "the put: {err}"
    );
    assert_eq!(std::fs::read(d.join("sortpath.redb")).unwrap(), before);
}

#[test]
fn exit_statuses_and_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["put", "/a-1", "1"]));
    // A condition that does not hold: 4.
    fails(
        &db(d, &["put", "--if-absent", "/a-1", "2"]),
        4,
        "already exists",
    );
    fails(
        &db(d, &["put", "--if-version", "99", "/a-1", "2"]),
        4,
        "expected version 99",
    );
    // Bad arguments: one line, 2.
    for args in [
        vec!["db", "--path", d.to_str().unwrap(), "put"],
        vec![
            "db",
            "--path",
            d.to_str().unwrap(),
            "list",
            "/a-1",
            "--limit",
            "x",
        ],
        vec!["db", "--nope"],
        vec!["frobnicate"],
    ] {
        let o = sortpath(&args).output().unwrap();
        fails(&o, 2, "(see sortpath --help)");
    }
    // Help is not an error.
    let help = sortpath(&["db", "--help"]).output().unwrap();
    assert!(help.status.success());
    // A write error on stdout names stdout.
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = sortpath(&db_args(d, &["export"]))
        .stdout(full)
        .output()
        .unwrap();
    fails(&o, 1, "writing to stdout: No space left on device");
}

/// A string field that reads as an integer or a UUID in key path text is filed under that
/// ID, so the index group written the usual way finds it.
#[test]
fn index_fields_read_as_key_path_ids() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(
        d,
        &[
            "init",
            "--index",
            "by_user=post.at@/user-{user}",
            "--index",
            "by_board=ticket.n@/board-{board}",
        ],
    ));
    let uuid = "4c9d36e5-6b19-4e6a-828c-226ed667458a";
    ok(&db(
        d,
        &[
            "put",
            "/post-1",
            &format!(r#"{{"user": "{uuid}", "at": 5}}"#),
        ],
    ));
    ok(&db(
        d,
        &["put", "/ticket-1", r#"{"board": "7", "n": "12"}"#],
    ));
    ok(&db(d, &["put", "/ticket-2", r#"{"board": 7, "n": 3}"#]));
    ok(&db(
        d,
        &["put", "/ticket-3", r#"{"board": "seven", "n": 1}"#],
    ));
    let by_user = ok(&db(d, &["index", "by_user", &format!("/user-{uuid}")]));
    assert_eq!(keys(&by_user), ["/post-1"]);
    // "12" is the integer 12: after 3, as numbers sort.
    let by_board = ok(&db(d, &["index", "by_board", "/board-7"]));
    assert_eq!(keys(&by_board), ["/ticket-2", "/ticket-1"]);
    let seven = ok(&db(d, &["index", "by_board", "/board-seven"]));
    assert_eq!(keys(&seven), ["/ticket-3"]);
}

/// `export` then `import` into a new directory copies the whole store: its indexes too.
#[test]
fn export_import_copies_the_indexes() {
    let src = tempfile::tempdir().unwrap();
    let dst = tempfile::tempdir().unwrap();
    let (s, t) = (src.path(), dst.path().join("copy"));
    ok(&db(s, &["init", "--index", "by_n=a.n@/all-0"]));
    for i in 0..5 {
        ok(&db(
            s,
            &[
                "put",
                &format!("/a-{i}"),
                &format!(r#"{{"n": {}}}"#, 10 - i),
            ],
        ));
    }
    let export = db(s, &["export"]);
    let file = dst.path().join("items.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    ok(&db(&t, &["import", file.to_str().unwrap()]));
    assert_eq!(db(&t, &["export"]).stdout, export.stdout);
    let listed = ok(&db(&t, &["index", "by_n", "/all-0"]));
    assert_eq!(keys(&listed), ["/a-4", "/a-3", "/a-2", "/a-1", "/a-0"]);
    // Into a store with other indexes: refused before any item, naming both.
    let other = dst.path().join("other");
    ok(&db(&other, &["put", "/b-1", "1"]));
    fails(
        &db(&other, &["import", file.to_str().unwrap()]),
        2,
        "line 1: the export's indexes [\"by_n=a.n@/all-0\"] differ from this store's []",
    );
}

/// Writes `value` at `path` straight into the store's file, as another tool sharing the
/// key space would (no envelope, no index entries, no counter).
async fn write_foreign(dir: &Path, group: Vec<u8>, sort: Vec<u8>, value: &[u8]) {
    use sortpath_store::backend::{redb::RedbBackend, Backend, Condition, Key, Record, Write};
    let backend = RedbBackend::open(dir).await.unwrap();
    let record = Record {
        value: value.to_vec(),
        version: 1,
    };
    let put = Write::Put {
        key: Key::new(group, sort),
        record,
        condition: Condition::None,
    };
    backend.write(vec![put]).await.unwrap();
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Records the store did not write: every error names the key (text and base64), list and
/// export can skip them (naming each on stderr), delete removes one, and inspect names the
/// store's own keys.
#[tokio::test(flavor = "multi_thread")]
async fn records_the_store_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["put", "/a-1/b-1", "1"]));
    ok(&db(d, &["put", "/a-1/b-3", "3"]));
    let (g, s) = "/a-1/b-2"
        .parse::<KeyPath>()
        .unwrap()
        .split_group()
        .unwrap();
    write_foreign(d, g, s, b"{\"from\": \"another tool\"}").await;
    let o = db(d, &["list", "/a-1"]);
    fails(
        &o,
        1,
        "the record at /a-1/b-2 (group YQEIAQAIEQ==, sort key YgEIAgAIEQ==, base64) is not an item this store wrote",
    );
    assert!(
        stderr_of(&o).contains("--skip-foreign"),
        "{}",
        stderr_of(&o)
    );
    fails(&db(d, &["export"]), 1, "/a-1/b-2 (group YQEIAQAIEQ==");
    let o = db(d, &["list", "/a-1", "--skip-foreign"]);
    assert_eq!(keys(&ok(&o)), ["/a-1/b-1", "/a-1/b-3"]);
    assert!(
        stderr_of(&o).starts_with("sortpath: skipped /a-1/b-2 (group YQEIAQAIEQ=="),
        "{}",
        stderr_of(&o)
    );
    // Paging goes past it.
    let first = ok(&db(d, &["list", "/a-1", "--skip-foreign", "--limit", "1"]));
    let cursor = first[1]["cursor"].as_str().unwrap().to_owned();
    let rest = ok(&db(
        d,
        &[
            "list",
            "/a-1",
            "--skip-foreign",
            "--limit",
            "1",
            "--cursor",
            &cursor,
        ],
    ));
    assert_eq!(keys(&rest), ["/a-1/b-3"]);
    // A group whose key is not a key path at all.
    write_foreign(d, b"USER#1".to_vec(), b"PROFILE".to_vec(), b"x").await;
    fails(&db(d, &["export"]), 1, "VVNFUiMx");
    let o = db(d, &["export", "--skip-foreign"]);
    assert_eq!(keys(&ok(&o)), ["/a-1/b-1", "/a-1/b-3"]);
    assert_eq!(stderr_of(&o).lines().count(), 2, "{}", stderr_of(&o));
    // delete removes the record at a key path, whoever wrote it.
    ok(&db(d, &["delete", "/a-1/b-2"]));
    assert_eq!(
        keys(&ok(&db(d, &["list", "/a-1"]))),
        ["/a-1/b-1", "/a-1/b-3"]
    );
    // inspect names the store's own keys; decode, the key path decoder, refuses them.
    let named = |b64: &str| {
        use base64::Engine as _;
        let o = sortpath(&["decode", "--base64", b64]).output().unwrap();
        fails(&o, 2, "sortpath inspect");
        let hex: String = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let o = sortpath(&["inspect", &hex]).output().unwrap();
        let text = String::from_utf8(ok_raw(&o)).unwrap();
        text.lines().next().unwrap().to_owned() + "\n"
    };
    assert_eq!(
        named("AAM="),
        "record    (store record: the store's configuration)\n"
    );
    // 00 01 ++ the encoding of /a-1
    assert_eq!(
        named("AAFhAQgBAAgR"),
        "record    (store record: the version counter of group /a-1)\n"
    );
    // 00 02, the name's length and "by_n", then the encoding of /all-0
    assert_eq!(
        named("AAIEYnlfbmFsbAEH/wAYEQ=="),
        "record    (store record: entries of index by_n under /all-0)\n"
    );
    fails(
        &sortpath(&["decode", "--base64", "AAc="]).output().unwrap(),
        2,
        "",
    );
}

fn ok_raw(o: &Output) -> Vec<u8> {
    assert!(o.status.success(), "{}", stderr_of(o));
    o.stdout.clone()
}

/// `check` passes on a store the CLI wrote and names each problem of a damaged one.
#[tokio::test(flavor = "multi_thread")]
async fn check_finds_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["init", "--index", "by_n=a.n@/all-0"]));
    for i in 0..4 {
        ok(&db(
            d,
            &["put", &format!("/a-{i}"), &format!(r#"{{"n": {i}}}"#)],
        ));
    }
    let report = ok(&db(d, &["check"]));
    assert_eq!(
        report[0],
        serde_json::json!({"ok": true, "items": 4, "index_entries": 4, "counters": 0})
    );
    // An item written past the CLI without its field index's entry, and an entry removed.
    {
        let store = Store::open(d).await.unwrap();
        store
            .put_raw(
                &"/a-9".parse().unwrap(),
                "a",
                &serde_json::json!({"n": 9}),
                vec![],
                sortpath_store::PutMode::Upsert,
            )
            .await
            .unwrap();
    }
    let o = db(d, &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(
        err.contains(
            "/a-9: its index keys are none, its type's declared indexes give by_n /all-0/n-9"
        ),
        "{err}"
    );
    assert!(err.ends_with("sortpath: check found 1 problem\n"), "{err}");
}

/// A missing argument is named in the one line.
#[test]
fn a_missing_argument_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, missing) in [(&["put", "/a-1"][..], "<JSON>"), (&["get"][..], "<PATH>")] {
        fails(&db(d, args), 2, missing);
    }
    let o = sortpath(&["db", "get", "/a-1"]).output().unwrap();
    fails(&o, 2, "--path");
}

/// An index group whose ID opens a brace it does not close is refused, not taken for a
/// string ID.
#[test]
fn an_unbalanced_brace_in_a_group_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    fails(
        &db(&d, &["init", "--index", "by_n=t.n@/g-{g"]),
        2,
        "unbalanced '{'",
    );
    assert!(!d.exists());
}

/// An import from a pipe into a directory without a store: the file is read once, so every
/// line is imported (before, the first lines were read to try the first write and the pipe
/// was then read again from its start, finding nothing: 0 imported, exit 0).
#[test]
fn an_import_from_a_pipe_into_a_new_store_imports_every_line() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("new");
    let mut input = String::from("{\"config\": {\"format\": 1, \"indexes\": [{\"name\": \"by_v\", \"type\": \"a\", \"kind\": \"field\", \"field\": \"v\", \"group\": \"/all-0\"}]}}\n");
    for i in 1..=3 {
        input.push_str(&format!(
            "{{\"key\":\"/a-{i}\",\"value\":{{\"v\": {i}}}}}\n"
        ));
    }
    let mut child = sortpath(&db_args(&d, &["import", "/dev/stdin"]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(ok(&o)[0], serde_json::json!({"imported": 3, "lines": 4}));
    let items = ok(&db(&d, &["export"]));
    assert_eq!(keys(&items), ["/a-1", "/a-2", "/a-3"]);
    let by_v = ok(&db(&d, &["index", "by_v", "/all-0"]));
    assert_eq!(keys(&by_v), ["/a-1", "/a-2", "/a-3"]);
}

/// `init --group-versions`: every write to a group bumps its counter, an item's version is
/// the counter's, and `check` counts the counters; without it, an item's versions are its
/// own and no counter is stored.
#[tokio::test(flavor = "multi_thread")]
async fn group_versions_are_chosen_at_init() {
    let counted = tempfile::tempdir().unwrap();
    ok(&db(counted.path(), &["init", "--group-versions"]));
    let own = tempfile::tempdir().unwrap();
    ok(&db(own.path(), &["init"]));
    let mut versions = Vec::new();
    for d in [counted.path(), own.path()] {
        let mut v = Vec::new();
        for (path, n) in [("/g-1/a-1", 1), ("/g-1/a-2", 2), ("/g-1/a-1", 3)] {
            let put = ok(&db(d, &["put", path, &format!(r#"{{"n": {n}}}"#)]));
            v.push(
                put[0]["version"]
                    .as_u64()
                    .expect("a put reports its version"),
            );
        }
        versions.push(v);
    }
    // One counter for the group: 1, 2, 3.
    assert_eq!(versions[0], [1, 2, 3]);
    // Their own: /g-1/a-1 steps from its first version by one; a-2 has another.
    assert_eq!(versions[1][2], versions[1][0] + 1);
    assert_ne!(versions[1][1], versions[1][0] + 1);
    let report = ok(&db(counted.path(), &["check"]));
    assert_eq!(report[0]["counters"], 1);
    let report = ok(&db(own.path(), &["check"]));
    assert_eq!(report[0]["counters"], 0);
}

/// `import` into an existing store whose `group_versions` setting differs from the
/// export's is refused at the configuration line, naming the setting, before any item is
/// written: a per-item store would drop a group-versions export's counters, and a
/// group-versions store would renumber a per-item export's versions.
#[tokio::test(flavor = "multi_thread")]
async fn import_refuses_another_group_versions_setting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (counted, own) = (d.join("counted"), d.join("own"));
    ok(&db(&counted, &["init", "--group-versions"]));
    ok(&db(&own, &["init"]));
    for store in [&counted, &own] {
        for (path, n) in [("/g-1/a-1", 1), ("/g-1/a-2", 2), ("/g-1/a-1", 3)] {
            ok(&db(store, &["put", path, &format!(r#"{{"n": {n}}}"#)]));
        }
    }
    let exports: Vec<(std::path::PathBuf, Vec<u8>)> = [&counted, &own]
        .iter()
        .map(|store| {
            let export = db(store, &["export"]);
            assert!(export.status.success(), "{}", stderr_of(&export));
            let file = store.with_extension("jsonl");
            std::fs::write(&file, &export.stdout).unwrap();
            (file, export.stdout)
        })
        .collect();
    // Targets: a store of each kind that already holds an item of its own.
    let (into_own, into_counted) = (d.join("into-own"), d.join("into-counted"));
    ok(&db(&into_own, &["init"]));
    ok(&db(&into_counted, &["init", "--group-versions"]));
    for target in [&into_own, &into_counted] {
        ok(&db(target, &["put", "/h-1", "1"]));
    }
    for ((file, _), target, export_has, store_has) in [
        (&exports[0], &into_own, "with", "without"),
        (&exports[1], &into_counted, "without", "with"),
    ] {
        let before = db(target, &["export"]).stdout;
        let o = db(target, &["import", file.to_str().unwrap()]);
        fails(
            &o,
            2,
            &format!(
                "line 1: the export was written by a store {export_has} group version \
                 counters (\"group_versions\"), this store is {store_has} them, so "
            ),
        );
        assert!(
            stderr_of(&o).contains("import it into a new store"),
            "{}",
            stderr_of(&o)
        );
        assert!(
            stderr_of(&o).contains("(imported before it: 0 items)"),
            "{}",
            stderr_of(&o)
        );
        assert_eq!(db(target, &["export"]).stdout, before, "nothing written");
    }
    // Into a new store, which takes the export's setting: the per-item export keeps its
    // versions exactly; the group-versions one keeps its setting and items.
    for ((file, export), counted) in exports.iter().zip([true, false]) {
        let copy = file.with_extension("copy");
        ok(&db(&copy, &["import", file.to_str().unwrap()]));
        let copied = db(&copy, &["export"]).stdout;
        if counted {
            let lines = |b: &[u8]| -> Vec<Value> {
                String::from_utf8(b.to_vec())
                    .unwrap()
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect()
            };
            let (copied, export) = (lines(&copied), lines(export));
            assert_eq!(copied[0], export[0]);
            assert_eq!(copied[0]["config"]["group_versions"], true);
            assert_eq!(keys(&copied), keys(&export));
        } else {
            assert_eq!(&copied, export);
        }
    }
}

/// The lines of issue 46 item 5: an item whose stored type (`"type"`) is not its key's last
/// namespace, in both directions, one given as its MessagePack bytes.
const TYPED_NOT_BY_NAMESPACE: &str = concat!(
    r#"{"key":"/zzz-3","type":"ticket","value":{"u":7}}"#,
    "\n",
    r#"{"key":"/ticket-1","type":"zzz","value":{"u":5}}"#,
    "\n",
    // {"u": 9} in MessagePack: 81 a1 75 09
    r#"{"key":"/zzz-4","type":"ticket","msgpack":"gaF1CQ=="}"#,
    "\n",
);

/// A field index takes the items whose stored type is its type, whatever their key's
/// namespace: `import` computes the entries from the line's `"type"` (it took the key's
/// namespace: the index listed the `zzz` item and left the tickets out), and `check` counts
/// them so.
#[test]
fn field_indexes_follow_the_stored_item_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["init", "--index", "by_u=ticket.u@/all-0"]));
    let file = d.join("items.jsonl");
    std::fs::write(&file, TYPED_NOT_BY_NAMESPACE).unwrap();
    assert_eq!(
        ok(&db(d, &["import", file.to_str().unwrap()]))[0]["imported"],
        3
    );
    let listed = ok(&db(d, &["index", "by_u", "/all-0"]));
    assert_eq!(keys(&listed), ["/zzz-3", "/zzz-4"]);
    let report = ok(&db(d, &["check"]));
    assert_eq!(
        report[0],
        serde_json::json!({"ok": true, "items": 3, "index_entries": 2, "counters": 0})
    );
    // Into a new store too (the import's first item is tried on a store in memory first).
    let new = d.join("new");
    let config = r#"{"config":{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/all-0"}]}}"#;
    std::fs::write(&file, format!("{config}\n{TYPED_NOT_BY_NAMESPACE}")).unwrap();
    ok(&db(&new, &["import", file.to_str().unwrap()]));
    let listed = ok(&db(&new, &["index", "by_u", "/all-0"]));
    assert_eq!(keys(&listed), ["/zzz-3", "/zzz-4"]);
    ok(&db(&new, &["check"]));
}

/// `check` computes a field index's entries from each item's stored type: an entry made
/// from the key's namespace instead (as `import` made them) is reported, and so is the
/// entry such a write left out.
#[tokio::test(flavor = "multi_thread")]
async fn check_finds_entries_made_from_the_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["init", "--index", "by_u=ticket.u@/all-0"]));
    {
        let store = Store::open(d).await.unwrap();
        let u5: KeyPath = "/all-0/u-5".parse().unwrap();
        for (path, item_type, u, entries) in [
            ("/ticket-1", "zzz", 5, vec![("by_u".to_owned(), u5)]),
            ("/zzz-3", "ticket", 7, vec![]),
        ] {
            store
                .put_raw(
                    &path.parse().unwrap(),
                    item_type,
                    &serde_json::json!({ "u": u }),
                    entries,
                    sortpath_store::PutMode::Upsert,
                )
                .await
                .unwrap();
        }
    }
    let o = db(d, &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(
        err.contains(
            "/ticket-1: its index keys are by_u /all-0/u-5, its type's declared indexes give none"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "/zzz-3: its index keys are none, its type's declared indexes give by_u /all-0/u-7"
        ),
        "{err}"
    );
    assert!(err.ends_with("sortpath: check found 2 problems\n"), "{err}");
}
