//! `keypath db` and `keypath demo`, run as a user would.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use common::ok;

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

fn keys(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l["key"].as_str().map(String::from))
        .collect()
}

fn fails(o: &Output, status: i32, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(status), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("keypath: ") && err.contains(needle),
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
        2,
        "already exists",
    );
    let v = ok(&db(
        d,
        &[
            "put",
            "/ticket-2",
            r#"{"updated_at": 10}"#,
            "--if-version",
            &v2.to_string(),
        ],
    ));
    assert!(v[0]["version"].as_u64().unwrap() > v2);
    fails(
        &db(
            d,
            &["put", "/ticket-2", "{}", "--if-version", &v2.to_string()],
        ),
        2,
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
    let exported = ok(&out1);
    assert_eq!(exported.len(), 300);
    // Export is in group, then key order.
    let mut sorted = keys(&exported);
    sorted.sort_by_key(|k| k.parse::<keypath::KeyPath>().unwrap());
    let groups_in_order = {
        let mut g = sorted.clone();
        g.sort_by_key(|k| {
            let p = k.parse::<keypath::KeyPath>().unwrap();
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
    let o = keypath(&["demo", "--path", dir.path().to_str().unwrap()]);
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
        // Conditions that do not hold.
        vec!["put", "/a-1/item-1", "{}", "--if-absent"],
        vec!["put", "/a-1/item-1", "{}", "--if-version", "999"],
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
    let file = d.join("keypath.redb");
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
