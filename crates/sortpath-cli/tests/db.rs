//! `sortpath db` and `sortpath demo`, run as a user would.

mod common;

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use common::{db, fails, ok, sortpath};

fn keys(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l["key"].as_str().map(String::from))
        .collect()
}

/// A command line the argument parser refuses: status 2 and one line naming the problem.
fn refused(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("sortpath: ") && err.contains(needle) && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn put_get_list_in_key_order_with_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (path, v) in [
        ("/user-1/post-100", 3),
        ("/user-1/post-9", 1),
        ("/user-1/post-42", 2),
        ("/user-1", 0),
        ("/user-1/post-42/comment-7", 4),
        ("/user-2", 5),
    ] {
        let put = ok(&db(d, &["put", path, &format!("{{\"n\": {v}}}")]));
        assert_eq!(put[0]["key"], path);
    }
    let got = ok(&db(d, &["get", "/user-1/post-42"]));
    assert_eq!(got[0]["value"]["n"], 2);

    let all = ok(&db(d, &["list", "/user-1"]));
    assert_eq!(
        keys(&all),
        [
            "/user-1",
            "/user-1/post-9",
            "/user-1/post-42",
            "/user-1/post-42/comment-7",
            "/user-1/post-100"
        ]
    );
    let rev = ok(&db(d, &["list", "/user-1", "--reverse"]));
    let mut want = keys(&all);
    want.reverse();
    assert_eq!(keys(&rev), want);

    // Pages of 2 with cursors, forwards and backwards, reproduce the full lists.
    for (args, expect) in [(vec![], keys(&all)), (vec!["--reverse"], want.clone())] {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut a = vec!["list", "/user-1", "--limit", "2"];
            a.extend(args.iter().copied());
            if let Some(c) = &cursor {
                a.extend(["--cursor", c.as_str()]);
            }
            let page = ok(&db(d, &a));
            seen.extend(keys(&page));
            match page.last().and_then(|l| l["cursor"].as_str()) {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
        }
        assert_eq!(seen, expect);
    }

    let posts = ok(&db(
        d,
        &[
            "list",
            "/user-1/post",
            "--gt",
            "/user-1/post-9",
            "--lte",
            "/user-1/post-100",
        ],
    ));
    assert_eq!(
        keys(&posts),
        [
            "/user-1/post-42",
            "/user-1/post-42/comment-7",
            "/user-1/post-100"
        ]
    );

    let del = ok(&db(d, &["delete", "/user-1/post-42"]));
    assert_eq!(del[0]["deleted"], true);
    fails(
        &db(d, &["get", "/user-1/post-42"]),
        3,
        "no item at /user-1/post-42",
    );
}

#[test]
fn index_follows_updates_and_conditions_hold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(
        d,
        &["init", "--index", "by_updated=ticket.updated_at@/board-1"],
    ));
    ok(&db(d, &["put", "/ticket-1", r#"{"updated_at": 50}"#]));
    let v2 = ok(&db(d, &["put", "/ticket-2", r#"{"updated_at": 70}"#]))[0]["version"]
        .as_u64()
        .unwrap();
    ok(&db(
        d,
        &[
            "put",
            "/ticket-3",
            r#"{"title": "no updated_at: not indexed"}"#,
        ],
    ));
    ok(&db(d, &["put", "/ticket-1", r#"{"updated_at": 90}"#]));
    let latest = ok(&db(d, &["index", "by_updated", "/board-1", "--reverse"]));
    assert_eq!(keys(&latest), ["/ticket-1", "/ticket-2"]);
    assert_eq!(latest[0]["value"]["updated_at"], 90);

    fails(
        &db(d, &["put", "/ticket-2", "{}", "--if-absent"]),
        4,
        "already exists",
    );
    // A read shows the version a conditional put takes.
    let read = ok(&db(d, &["get", "/ticket-2"]));
    assert_eq!(read[0]["version"].as_u64(), Some(v2));
    let listed = ok(&db(d, &["list", "/ticket-2"]));
    assert_eq!(listed[0]["version"].as_u64(), Some(v2));
    let v = ok(&db(
        d,
        &[
            "put",
            "/ticket-2",
            r#"{"updated_at": 10}"#,
            "--if-version",
            &read[0]["version"].to_string(),
        ],
    ));
    assert!(v[0]["version"].as_u64().unwrap() > v2);
    fails(
        &db(
            d,
            &["put", "/ticket-2", "{}", "--if-version", &v2.to_string()],
        ),
        4,
        "version",
    );
    let latest = ok(&db(d, &["index", "by_updated", "/board-1"]));
    assert_eq!(keys(&latest), ["/ticket-2", "/ticket-1"]);
    ok(&db(d, &["delete", "/ticket-1"]));
    assert_eq!(
        keys(&ok(&db(d, &["index", "by_updated", "/board-1"]))),
        ["/ticket-2"]
    );
    fails(&db(d, &["init"]), 2, "already exists");
}

#[test]
fn export_import_round_trip() {
    let src = tempfile::tempdir().unwrap();
    let dst = tempfile::tempdir().unwrap();
    let mut lines = String::new();
    for i in 0..300 {
        lines.push_str(&format!("{{\"key\": \"/group-{}/item-{}\", \"value\": {{\"i\": {i}, \"s\": \"x/y%\\u0000\"}}}}\n", i % 7, i - 150));
    }
    let file = src.path().join("in.jsonl");
    std::fs::write(&file, &lines).unwrap();
    let imported = ok(&db(src.path(), &["import", file.to_str().unwrap()]));
    assert_eq!(imported[0]["imported"], 300);
    let out1 = db(src.path(), &["export"]);
    let mut exported = ok(&out1);
    // First the store's configuration (no indexes here; the one item type it holds), then
    // the items.
    assert_eq!(
        exported.remove(0),
        serde_json::json!({"config": {"format": 1, "indexes": [], "types": ["item"]}})
    );
    assert_eq!(exported.len(), 300);
    // Export is in group, then key order.
    let mut sorted = keys(&exported);
    sorted.sort_by_key(|k| k.parse::<sortpath::KeyPath>().unwrap());
    let groups_in_order = {
        let mut g = sorted.clone();
        g.sort_by_key(|k| {
            let p = k.parse::<sortpath::KeyPath>().unwrap();
            (p.split_group().unwrap().0, p.encode())
        });
        g
    };
    assert_eq!(keys(&exported), groups_in_order);
    let again = dst.path().join("again.jsonl");
    std::fs::write(&again, &out1.stdout).unwrap();
    ok(&db(dst.path(), &["import", again.to_str().unwrap()]));
    assert_eq!(db(dst.path(), &["export"]).stdout, out1.stdout);
}

/// Every value `put` accepts exports to a line that `import` reads back: the deepest
/// nesting (127 arrays and objects; the export line is one level deeper), with brackets
/// inside strings that do not count. One level more is refused by `put` and by `import`,
/// with the column.
#[test]
fn the_deepest_value_put_accepts_exports_and_imports() {
    let src = tempfile::tempdir().unwrap();
    let dst = tempfile::tempdir().unwrap();
    let nested = |depth: usize| {
        let mut v = "\"[{ \\\" }]\"".to_owned();
        for i in 0..depth {
            v = match i % 2 {
                0 => format!("[{v}]"),
                _ => format!("{{\"k\":{v}}}"),
            };
        }
        v
    };
    ok(&db(src.path(), &["put", "/a-1", &nested(127)]));
    // Its lines are deeper than the tests' own JSON reader takes: checked as text.
    let out = db(src.path(), &["export"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let file = src.path().join("deep.jsonl");
    std::fs::write(&file, &out.stdout).unwrap();
    let imported = ok(&db(dst.path(), &["import", file.to_str().unwrap()]));
    assert_eq!(imported[0]["imported"], 1);
    assert_eq!(db(dst.path(), &["export"]).stdout, out.stdout);
    let got = db(dst.path(), &["get", "/a-1"]);
    assert!(got.status.success(), "{got:?}");
    let text = String::from_utf8_lossy(&got.stdout);
    assert!(
        text.contains(&format!("\"value\":{}", nested(127))),
        "{text}"
    );

    fails(
        &db(src.path(), &["put", "/a-2", &nested(128)]),
        2,
        "nested more than 127 arrays and objects deep",
    );
    let line = format!("{{\"key\": \"/a-3\", \"value\": {}}}\n", nested(128));
    let file = src.path().join("deeper.jsonl");
    std::fs::write(&file, line).unwrap();
    fails(
        &db(dst.path(), &["import", file.to_str().unwrap()]),
        2,
        "line 1: at column",
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fails(&db(d, &["get", "/a-1"]), 2, "no store at");
    fails(&db(d, &["list", "/a-1"]), 2, "no store at");
    fails(
        &db(d, &["init", "--index", "x"]),
        2,
        "expected NAME=NAMESPACE.FIELD@GROUP",
    );
    fails(
        &db(d, &["put", "/a-%zz", "{}"]),
        2,
        "path \"/a-%zz\": at byte 3",
    );
    fails(&db(d, &["put", "/a-1", "{nope"]), 2, "expected JSON");
    fails(&db(d, &["put", "/a", "{}"]), 2, "/a");
    ok(&db(d, &["put", "/a-1", "{}"]));
    ok(&db(d, &["put", "/a-1/b-1", "{}"]));
    ok(&db(d, &["put", "/a-1/b-2", "{}"]));
    fails(&db(d, &["list", "/a"]), 2, "/a");
    fails(
        &db(d, &["index", "nope", "/a-1"]),
        2,
        "unknown index \"nope\"",
    );
    fails(
        &db(d, &["list", "/a-1", "--cursor", "garbage!"]),
        2,
        "cursor",
    );
    let page = ok(&db(d, &["list", "/a-1", "--limit", "1"]));
    let cursor = page.last().unwrap()["cursor"].as_str().unwrap().to_owned();
    fails(
        &db(
            d,
            &[
                "list",
                "/a-1",
                "--limit",
                "1",
                "--reverse",
                "--cursor",
                &cursor,
            ],
        ),
        2,
        "cursor",
    );
    let mut tampered = cursor.clone().into_bytes();
    let last = tampered.len() - 2;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    fails(
        &db(
            d,
            &[
                "list",
                "/a-1",
                "--limit",
                "1",
                "--cursor",
                std::str::from_utf8(&tampered).unwrap(),
            ],
        ),
        2,
        "cursor",
    );
    let bad = d.join("bad.jsonl");
    std::fs::write(&bad, "{\"key\": \"/a-5\", \"value\": 1}\n{\"value\": 2}\n").unwrap();
    fails(&db(d, &["import", bad.to_str().unwrap()]), 2, "line 2");
    // Values above the 400 KB item limit (through import: a shell argument cannot be that long).
    let big = d.join("big.jsonl");
    std::fs::write(
        &big,
        format!(
            "{{\"key\": \"/a-9\", \"value\": \"{}\"}}\n",
            "x".repeat(500 * 1024)
        ),
    )
    .unwrap();
    fails(&db(d, &["import", big.to_str().unwrap()]), 2, "line 1");
    fails(&db(d, &["get", "/a-9"]), 3, "no item");
    let long_key = format!("/a-1/b-{}", "k".repeat(2000));
    fails(&db(d, &["put", &long_key, "{}"]), 2, "");
}

#[test]
fn demo_runs_and_checks_itself() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = sortpath(&["demo", "--path", d.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("both exactly the single list"), "{text}");
    assert!(text.contains("no stale entries"), "{text}");
    assert!(
        text.contains("would sit at a different position with string keys"),
        "{text}"
    );

    // The program's index and the one the store declares as data give the same entries:
    // `check`, which recomputes every declared field index, finds the store exact.
    let report = ok(&db(d, &["check"]));
    assert_eq!(report[0]["ok"], true, "{report:?}");

    // Running the demo again on the same directory works: the items there are its own.
    assert!(sortpath(&["demo", "--path", d.to_str().unwrap()])
        .status
        .success());

    // The kept store opens with `sortpath db`: every item exports. A user's UUID field is
    // stored as 16 bytes, which JSON has no form for, so its export line keeps the stored
    // bytes (`msgpack`); `get` shows the field as an array of numbers.
    let all = ok(&db(d, &["export"]));
    assert_eq!(all.len(), 1 + 33_792);
    assert_eq!(
        all[0]["config"]["indexes"][0]["name"], "by_updated",
        "the export starts with the store's configuration"
    );
    let line = all[1..]
        .iter()
        .find(|l| {
            let key = l["key"].as_str().unwrap();
            key.starts_with("/user-") && key.matches('/').count() == 1
        })
        .unwrap();
    assert!(
        line["msgpack"].is_string() && line.get("value").is_none(),
        "{line}"
    );
    let key = line["key"].as_str().unwrap();
    let user = &ok(&db(d, &["get", key]))[0];
    assert!(user["value"]["name"].is_string(), "{user}");
    let id = user["value"]["id"].as_array().unwrap();
    assert_eq!(id.len(), 16);
    let bytes: Vec<u8> = id.iter().map(|b| b.as_u64().unwrap() as u8).collect();
    assert_eq!(key, format!("/user-{}", uuid_text(&bytes)));
    assert_eq!(user["version"], line["version"]);

    // Its ticket index is declared, and `db put` keeps it as the demo's code does: the
    // ticket moves to the top of its board, its old entry gone.
    let latest = |board: &str| {
        ok(&db(
            d,
            &["index", "by_updated", board, "--reverse", "--limit", "1"],
        ))
    };
    let before = latest("/board-2");
    let top = before[0]["value"]["updated_at"].as_u64().unwrap();
    let board1 = ok(&db(d, &["index", "by_updated", "/board-1"]));
    let moved = board1[0]["value"].clone();
    let mut changed = moved.clone();
    changed["board"] = 2.into();
    changed["updated_at"] = (top + 1).into();
    let path = format!("/ticket-{}", moved["id"]);
    ok(&db(d, &["put", &path, &changed.to_string()]));
    assert_eq!(latest("/board-2")[0]["value"], changed);
    let board1_after = ok(&db(d, &["index", "by_updated", "/board-1"]));
    assert_eq!(board1_after.len(), board1.len() - 1);
    assert!(!keys(&board1_after).contains(&path));

    // Now the store holds a ticket the demo did not write: the demo refuses to replace it,
    // before writing anything. A directory whose store declares other indexes is refused
    // too.
    let o = sortpath(&["demo", "--path", d.to_str().unwrap()]);
    fails(
        &o,
        2,
        &format!("holds an item at {path} that the demo did not write"),
    );
    assert_eq!(latest("/board-2")[0]["value"], changed);
    let other = tempfile::tempdir().unwrap();
    ok(&db(other.path(), &["init", "--index", "by_x=t.x@/g-1"]));
    let o = sortpath(&["demo", "--path", other.path().to_str().unwrap()]);
    fails(&o, 2, "holds a store with other indexes");
    // Nothing but its configuration: no items.
    assert_eq!(ok(&db(other.path(), &["export"])).len(), 1);
    refused(
        &sortpath(&["demo", "--keys-only", "--path", d.to_str().unwrap()]),
        "'--keys-only' cannot be used with '--path <DIR>'",
    );
}

/// The canonical text of a UUID's 16 bytes.
fn uuid_text(b: &[u8]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[test]
fn index_group_from_a_field() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["init", "--index", "by_n=t.n@/g-{g}"]));
    ok(&db(d, &["put", "/t-1", r#"{"g": 1, "n": 5}"#]));
    ok(&db(d, &["put", "/t-2", r#"{"g": "b", "n": 3}"#]));
    ok(&db(d, &["put", "/t-3", r#"{"g": 1, "n": 4}"#]));
    ok(&db(d, &["put", "/t-4", r#"{"n": 1}"#])); // no group: not indexed
    ok(&db(d, &["put", "/t-5", r#"{"g": 1}"#])); // no n: not indexed
    assert_eq!(
        keys(&ok(&db(d, &["index", "by_n", "/g-1"]))),
        ["/t-3", "/t-1"]
    );
    assert_eq!(keys(&ok(&db(d, &["index", "by_n", "/g-b"]))), ["/t-2"]);
    // Moving an item to another group moves its entry.
    ok(&db(d, &["put", "/t-1", r#"{"g": "b", "n": 5}"#]));
    assert_eq!(keys(&ok(&db(d, &["index", "by_n", "/g-1"]))), ["/t-3"]);
    assert_eq!(
        keys(&ok(&db(d, &["index", "by_n", "/g-b"]))),
        ["/t-2", "/t-1"]
    );
    fails(
        &db(d, &["put", "/t-6", r#"{"g": true, "n": 1}"#]),
        2,
        "/t-6: field \"g\" is a boolean; index by_n takes integers or strings",
    );
    let other = tempfile::tempdir().unwrap();
    for (group, why) in [
        ("/g-{}", "bad GROUP field"),
        ("/a-1/g-{g}", "GROUP must be one component"),
        ("/g", "GROUP must be one component"),
    ] {
        let def = format!("by_n=t.n@{group}");
        fails(&db(other.path(), &["init", "--index", &def]), 2, why);
    }
    // A literal '{' is written %7B: a fixed group whose string ID is "{g}".
    ok(&db(other.path(), &["init", "--index", "by_n=t.n@/g-%7Bg}"]));
    ok(&db(other.path(), &["put", "/t-1", r#"{"n": 2}"#]));
    assert_eq!(
        keys(&ok(&db(other.path(), &["index", "by_n", "/g-%7Bg}"]))),
        ["/t-1"]
    );
}

/// Input that cannot be used is refused before a store is created or written, and the
/// message names what was wrong and where.
#[test]
fn refused_input_leaves_no_store_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = d.join("file");
    std::fs::write(&file, "x").unwrap();
    fails(
        &db(&file, &["get", "/a-1"]),
        2,
        &format!("{} is not a directory", file.display()),
    );
    fails(&db(&file, &["put", "/a-1", "1"]), 2, "is not a directory");
    fails(
        &db(&file.join("sub"), &["put", "/a-1", "1"]),
        2,
        &format!("{}", file.display()),
    );

    let fresh = d.join("fresh");
    let nothing = || assert!(!fresh.exists(), "a store was created");
    fails(
        &db(
            &fresh,
            &["init", "--index", "a=t.x@/b-1", "--index", "a=t.y@/b-2"],
        ),
        2,
        "index a is defined twice",
    );
    nothing();
    fails(
        &db(&fresh, &["import", "/no/such.jsonl"]),
        2,
        "/no/such.jsonl",
    );
    nothing();
    fails(
        &db(&fresh, &["put", "/a-1", "{nope"]),
        2,
        "expected JSON: at column 2",
    );
    nothing();
    fails(
        &db(&fresh, &["put", "/a-1", r#"{"n": 18446744073709551616}"#]),
        2,
        "at column 7: the integer 18446744073709551616 does not fit in 64 bits",
    );
    fails(
        &db(&fresh, &["put", "/a-1", "[-9223372036854775809]"]),
        2,
        "does not fit in 64 bits",
    );
    nothing();
    // Refused only once the store is open: a path that names no item, a failed condition,
    // an oversize key, a bad first import line.
    fails(&db(&fresh, &["put", "/t", "{}"]), 2, "has no group key");
    nothing();
    fails(
        &db(&fresh, &["put", "/u-1/p", "{}"]),
        2,
        "last component needs an ID",
    );
    nothing();
    fails(
        &db(&fresh, &["put", "/t-1", "{}", "--if-version", "3"]),
        4,
        "item /t-1 is absent, expected version 3",
    );
    nothing();
    let long = format!("/t-{}", "a".repeat(2100));
    fails(&db(&fresh, &["put", &long, "{}"]), 2, "the limit is 2048");
    nothing();
    let garbage = d.join("garbage.jsonl");
    std::fs::write(&garbage, "garbage\n").unwrap();
    fails(
        &db(&fresh, &["import", garbage.to_str().unwrap()]),
        2,
        "line 1: expected JSON",
    );
    nothing();
    // An existing directory is kept, emptied of what the command made.
    std::fs::create_dir(&fresh).unwrap();
    fails(&db(&fresh, &["put", "/t", "{}"]), 2, "has no group key");
    assert_eq!(std::fs::read_dir(&fresh).unwrap().count(), 0);
    std::fs::remove_dir(&fresh).unwrap();
    // After all that, the store's indexes can still be declared.
    assert!(db(&fresh, &["init", "--index", "a=t.x@/b-1"])
        .status
        .success());
    std::fs::remove_dir_all(&fresh).unwrap();

    // Import: a line without "value" is an error that says how far the import got.
    let lines = d.join("in.jsonl");
    std::fs::write(
        &lines,
        "{\"key\": \"/a-1\", \"value\": 1}\n{\"key\": \"/a-2\"}\n",
    )
    .unwrap();
    fails(
        &db(&fresh, &["import", lines.to_str().unwrap()]),
        2,
        "line 2: expected {\"key\": \"<key path>\", \"value\": <item>} (or \"msgpack\": \"<base64>\" \
         in place of \"value\") (imported before it: 1 item)",
    );
    fails(&db(&fresh, &["get", "/a-2"]), 3, "no item at /a-2");
    let extremes = r#"[18446744073709551615, -9223372036854775808, 1.5]"#;
    ok(&db(&fresh, &["put", "/a-3", extremes]));
    assert_eq!(
        ok(&db(&fresh, &["get", "/a-3"]))[0]["value"].to_string(),
        extremes.replace(' ', "")
    );

    refused(
        &db(&fresh, &["list", "/a-1", "--limit", "0"]),
        "invalid value '0' for '--limit <LIMIT>'",
    );
    fails(
        &db(&fresh, &["put", "--if-version", "3", "/a-9", "1"]),
        4,
        "item /a-9 is absent, expected version 3",
    );
}

/// Everything the store holds, as the CLI shows it: the export and both index listings.
fn state(d: &Path) -> Vec<u8> {
    let mut out = db(d, &["export"]).stdout;
    out.extend(db(d, &["index", "by_n", "/ns-1"]).stdout);
    out.extend(db(d, &["index", "by_n", "/ns-1", "--reverse"]).stdout);
    out
}

#[test]
fn bad_input_campaign_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["init", "--index", "by_n=item.n@/ns-1"]));
    for i in 0..5 {
        ok(&db(
            d,
            &["put", &format!("/a-1/item-{i}"), &format!("{{\"n\": {i}}}")],
        ));
    }
    let before = state(d);
    assert_eq!(keys(&ok(&db(d, &["export"]))).len(), 5);
    let page = ok(&db(d, &["list", "/a-1", "--limit", "2"]));
    let cursor = page.last().unwrap()["cursor"].as_str().unwrap().to_owned();
    let long_key = format!("/a-1/item-{}", "k".repeat(1100));
    let tampered = {
        let mut t = cursor.clone().into_bytes();
        t[3] = if t[3] == b'A' { b'B' } else { b'A' };
        String::from_utf8(t).unwrap()
    };
    let cases: Vec<Vec<&str>> = vec![
        // Malformed key paths.
        vec!["put", "", "{}"],
        vec!["put", "a-1", "{}"],
        vec!["put", "/a-1/", "{}"],
        vec!["put", "/a-1/b/c-2", "{}"],
        vec!["put", "/9-1", "{}"],
        vec!["put", "/a-~!!", "{}"],
        vec!["put", "/a-99999999999999999999999", "{}"],
        vec!["put", "/a", "{}"],
        vec!["put", "/a-1/item", "{}"],
        vec!["get", "/a-%zz"],
        vec!["delete", "/a"],
        vec!["list", "/a-1", "--gt", "/b-1"],
        vec!["list", "/a-1", "--lt", "not a path"],
        // Malformed JSON, and a JSON value the index cannot take.
        vec!["put", "/a-1/item-9", "{nope"],
        vec!["put", "/a-1/item-9", ""],
        vec!["put", "/a-1/item-9", "{\"n\": 1} trailing"],
        vec!["put", "/a-1/item-9", "{\"n\": [1]}"],
        vec!["put", "/a-1/item-9", "{\"n\": 1.5}"],
        // Cursors: tampered, truncated, garbage, another query's.
        vec!["list", "/a-1", "--limit", "2", "--cursor", &tampered],
        vec![
            "list",
            "/a-1",
            "--limit",
            "2",
            "--cursor",
            &cursor[..cursor.len() - 4],
        ],
        vec!["list", "/a-1", "--limit", "2", "--cursor", "!!!"],
        vec!["list", "/a-1", "--reverse", "--cursor", &cursor],
        vec!["list", "/a-1/item", "--cursor", &cursor],
        vec!["index", "by_n", "/ns-1", "--cursor", &cursor],
        // Oversize key (over the 1024-byte sort key limit); unknown index.
        vec!["put", &long_key, "{}"],
        vec!["index", "nope", "/ns-1"],
    ];
    for args in &cases {
        let o = db(d, args);
        fails(&o, 2, "");
    }
    // Conditions that do not hold: their own status.
    for args in [
        vec!["put", "/a-1/item-1", "{}", "--if-absent"],
        vec!["put", "/a-1/item-1", "{}", "--if-version", "999"],
    ] {
        fails(&db(d, &args), 4, "");
    }
    // Oversize value, through import (an argument cannot be that long).
    let big = d.join("big.jsonl");
    std::fs::write(
        &big,
        format!(
            "{{\"key\": \"/a-1/item-1\", \"value\": \"{}\"}}\n",
            "x".repeat(500 * 1024)
        ),
    )
    .unwrap();
    fails(&db(d, &["import", big.to_str().unwrap()]), 2, "line 1");
    assert_eq!(state(d), before, "bad input changed the store");
}

#[test]
fn damaged_store_file_is_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..20 {
        ok(&db(
            d,
            &["put", &format!("/a-1/item-{i}"), &format!("{{\"n\": {i}}}")],
        ));
    }
    let file = d.join("sortpath.redb");
    let original = std::fs::read(&file).unwrap();
    for cut in [0, 1, 512, 4096, original.len() / 2, original.len() - 1] {
        std::fs::write(&file, &original[..cut]).unwrap();
        for args in [
            vec!["get", "/a-1/item-1"],
            vec!["list", "/a-1"],
            vec!["put", "/a-1/item-99", "{}"],
        ] {
            let o = db(d, &args);
            fails(&o, 1, "store file");
        }
    }
    std::fs::write(&file, &original).unwrap();
    assert_eq!(keys(&ok(&db(d, &["list", "/a-1"]))).len(), 20);
}

/// Numbers come back as given: floats to the last digit (an export then import loses
/// nothing), integers at both ends of 64 bits.
#[test]
fn numbers_round_trip_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let value = r#"[123456789.12345679,9.999999999999999e-131,-0.0,1.7976931348623157e+308,18446744073709551615,-9223372036854775808]"#;
    ok(&db(d, &["put", "/n-1", value]));
    let got = ok(&db(d, &["get", "/n-1"]));
    assert_eq!(got[0]["value"].to_string(), value);
    let exported = d.join("all.jsonl");
    std::fs::write(&exported, db(d, &["export"]).stdout).unwrap();
    let other = tempfile::tempdir().unwrap();
    ok(&db(other.path(), &["import", exported.to_str().unwrap()]));
    assert_eq!(
        ok(&db(other.path(), &["get", "/n-1"]))[0]["value"].to_string(),
        value
    );
}

/// `init --root`: root items placed where an access pattern reads them in one list, kept
/// by export and import, and bad places refused before anything is made.
#[test]
fn root_places_from_init_to_export() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(
        d,
        &[
            "init",
            "--root",
            "org=before:user",
            "--root",
            "customer=last",
        ],
    ));
    for path in [
        "/org-1",
        "/org-1/team-2",
        "/org-1/team-9",
        "/org-1/user-ann",
        "/org-1/user-bob",
        "/customer-7",
        "/customer-7/order-1",
        "/customer-7/order-2",
    ] {
        ok(&db(d, &["put", path, r#"{"n": 1}"#]));
    }
    let org = [
        "/org-1/team-2",
        "/org-1/team-9",
        "/org-1",
        "/org-1/user-ann",
        "/org-1/user-bob",
    ];
    assert_eq!(keys(&ok(&db(d, &["list", "/org-1"]))), org);
    let users = ok(&db(d, &["list", "/org-1", "--from-root", "--limit", "2"]));
    assert_eq!(keys(&users), ["/org-1", "/org-1/user-ann"]);
    let teams = ok(&db(d, &["list", "/org-1", "--to-root", "--reverse"]));
    assert_eq!(keys(&teams), ["/org-1", "/org-1/team-9", "/org-1/team-2"]);
    let newest = ok(&db(
        d,
        &["list", "/customer-7", "--reverse", "--limit", "2"],
    ));
    assert_eq!(keys(&newest), ["/customer-7", "/customer-7/order-2"]);
    assert_eq!(ok(&db(d, &["get", "/org-1"]))[0]["value"]["n"], 1);
    ok(&db(d, &["check"]));

    // The export carries the places; a new store takes them, another store's are refused.
    let out = db(d, &["export"]);
    let exported = ok(&out);
    assert_eq!(
        exported[0]["config"]["roots"],
        serde_json::json!({"customer": "last", "org": {"before": "user"}})
    );
    let file = d.join("export.jsonl");
    std::fs::write(&file, &out.stdout).unwrap();
    let copy = tempfile::tempdir().unwrap();
    ok(&db(copy.path(), &["import", file.to_str().unwrap()]));
    assert_eq!(db(copy.path(), &["export"]).stdout, out.stdout);
    assert_eq!(keys(&ok(&db(copy.path(), &["list", "/org-1"]))), org);
    let other = tempfile::tempdir().unwrap();
    ok(&db(other.path(), &["init"]));
    fails(
        &db(other.path(), &["import", file.to_str().unwrap()]),
        2,
        "places root items",
    );
    assert!(ok(&db(other.path(), &["list", "/org-1"])).is_empty());

    let fresh = tempfile::tempdir().unwrap();
    for bad in ["org", "org=middle", "org=before:", "or g=last", "org=last"] {
        let mut args = vec!["init", "--root", bad];
        if bad == "org=last" {
            args.extend(["--root", "org=first"]);
        }
        let o = db(fresh.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--root"),
            "{bad}"
        );
        assert!(!fresh.path().join("sortpath.redb").exists(), "{bad}");
    }
}

/// A field index's values become IDs as docs/DYNAMODB_LAYOUT.md section 2.4.1 says: the
/// strings that key path text reads as integers or UUIDs are those IDs, every other string
/// is itself, and numbers with a fraction are refused.
#[test]
fn field_values_become_ids_as_the_layout_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["init", "--index", "by_v=t.v@/g-1"]));
    let uuid = "4C9D36E5-6B19-4E6A-828C-226ED667458A";
    let cases: [(&str, &str); 9] = [
        (r#"{"v": 7}"#, "/g-1/v-7"),
        (r#"{"v": "7"}"#, "/g-1/v-7"),
        (r#"{"v": "-3"}"#, "/g-1/v--3"),
        (
            r#"{"v": -9223372036854775808}"#,
            "/g-1/v--9223372036854775808",
        ),
        (
            r#"{"v": 18446744073709551615}"#,
            "/g-1/v-18446744073709551615",
        ),
        (
            r#"{"v": "4C9D36E5-6B19-4E6A-828C-226ED667458A"}"#,
            "/g-1/v-4c9d36e5-6b19-4e6a-828c-226ed667458a",
        ),
        (r#"{"v": "007"}"#, "/g-1/v-007"),
        (r#"{"v": "%41"}"#, "/g-1/v-%2541"),
        (r#"{"v": "a/b"}"#, "/g-1/v-a%/b"),
    ];
    for (i, (value, _)) in cases.iter().enumerate() {
        ok(&db(d, &["put", &format!("/t-{i}"), value]));
    }
    for (i, (value, index_key)) in cases.iter().enumerate() {
        let found = keys(&ok(&db(
            d,
            &[
                "index", "by_v", "/g-1", "--gte", index_key, "--lte", index_key,
            ],
        )));
        assert!(
            found.contains(&format!("/t-{i}")),
            "{value}: {index_key}: {found:?} ({uuid})"
        );
    }
    for refused in [
        r#"{"v": 1.0}"#,
        r#"{"v": 1e3}"#,
        r#"{"v": true}"#,
        r#"{"v": [1]}"#,
    ] {
        fails(
            &db(d, &["put", "/t-99", refused]),
            2,
            "index by_v takes integers or strings",
        );
    }
    fails(&db(d, &["get", "/t-99"]), 3, "no item at /t-99");
}

/// Root items placed by `init --root`: lists bounded by the root, and an export that an
/// import into a new store reads back with the same places (and group counters).
#[test]
fn placed_roots_list_export_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("org");
    ok(&db(
        &d,
        &["init", "--root", "org=before:user", "--group-versions"],
    ));
    for path in [
        "/org-1/user-bob",
        "/org-1",
        "/org-1/team-9",
        "/org-1/user-ann",
        "/org-1/team-2",
        "/org-1/user-cy",
    ] {
        ok(&db(&d, &["put", path, "{}"]));
    }
    let users = ok(&db(&d, &["list", "/org-1", "--from-root", "--limit", "3"]));
    assert_eq!(
        keys(&users),
        ["/org-1", "/org-1/user-ann", "/org-1/user-bob"]
    );
    let teams = ok(&db(&d, &["list", "/org-1", "--to-root", "--reverse"]));
    assert_eq!(keys(&teams), ["/org-1", "/org-1/team-9", "/org-1/team-2"]);
    let export = db(&d, &["export"]);
    let lines = ok(&export);
    assert_eq!(
        lines[0]["config"]["roots"],
        serde_json::json!({"org": {"before": "user"}})
    );
    assert_eq!(lines[0]["config"]["group_versions"], true);
    let file = dir.path().join("org.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    // Into a directory without a store: the import makes it with the export's configuration.
    let copy = dir.path().join("copy");
    ok(&db(&copy, &["import", file.to_str().unwrap()]));
    // The same configuration and items in the same order (versions are the new store's
    // group counters).
    let copied = ok(&db(&copy, &["export"]));
    assert_eq!(copied[0], lines[0]);
    assert_eq!(keys(&copied), keys(&lines));
    let teams = ok(&db(&copy, &["list", "/org-1", "--to-root", "--reverse"]));
    assert_eq!(keys(&teams), ["/org-1", "/org-1/team-9", "/org-1/team-2"]);
}

/// A JSON object that gives a name twice is refused by `put` and `import`, naming it,
/// and nothing is stored: JSON readers keep one of the two values (serde_json the last,
/// others the first), so storing either would keep a value other than the one written.
#[test]
fn a_name_given_twice_is_refused_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(d, &["put", "/a-1", r#"{"n": 1}"#]));
    fails(
        &db(d, &["put", "/a-1", r#"{"n": 2, "n": 3}"#]),
        2,
        "the name \"n\" is given twice",
    );
    fails(
        &db(d, &["put", "/a-2", r#"{"x": {"y": 1, "\u0079": 2}}"#]),
        2,
        "the name \"y\" is given twice",
    );
    let lines = d.join("twice.jsonl");
    std::fs::write(
        &lines,
        "{\"key\": \"/a-3\", \"value\": {\"k\": 1}}\n\
         {\"key\": \"/a-4\", \"value\": {\"k\": 1, \"k\": 2}}\n",
    )
    .unwrap();
    fails(&db(d, &["import", lines.to_str().unwrap()]), 2, "line 2");
    // (Import writes line by line: the good line before the refused one is stored.)
    // A line that gives its own fields twice is refused too (which value was meant?).
    std::fs::write(&lines, "{\"key\": \"/a-5\", \"value\": 1, \"value\": 2}\n").unwrap();
    fails(
        &db(d, &["import", lines.to_str().unwrap()]),
        2,
        "given twice",
    );
    // Neither refused line nor refused put stored anything.
    let all = ok(&db(d, &["export"]));
    let items: Vec<(&Value, &Value)> = all
        .iter()
        .filter(|l| l.get("key").is_some())
        .map(|l| (&l["key"], &l["value"]))
        .collect();
    let (n1, k1) = (serde_json::json!({"n": 1}), serde_json::json!({"k": 1}));
    let (a1, a3) = (Value::from("/a-1"), Value::from("/a-3"));
    assert_eq!(items, [(&a1, &n1), (&a3, &k1)], "{all:?}");
}
