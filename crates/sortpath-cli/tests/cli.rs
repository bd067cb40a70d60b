//! Runs the `sortpath` binary as a user would.

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

use sortpath::KeyPath;

/// The `sortpath` binary started with `args`, its standard streams piped.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sortpath"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sortpath binary runs")
}

fn sortpath(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const EXAMPLE: &str =
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";

#[test]
fn encode_arguments_and_lines() {
    let o = sortpath(&["encode", EXAMPLE, "/a-1"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("75736572014c9d36e56b194e6a828c226ed667458a01706f7374010904d201636f6d6d656e74010b6411fff201726561637401082a00"));
    assert_eq!(lines[0].len(), 126);
    assert_eq!(lines[1], "610108010008".to_owned() + "11");

    // stdin: split on \n, one trailing \r removed, nothing else trimmed.
    let o = sortpath(&["encode"], b"/a-1\r\n/a- x\n/a-2");
    assert!(o.status.success(), "{}", stderr(&o));
    let want: Vec<String> = ["/a-1", "/a- x", "/a-2"]
        .iter()
        .map(|t| {
            t.parse::<KeyPath>()
                .unwrap()
                .encode()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        })
        .collect();
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), want);
}

#[test]
fn decode_hex_and_base64() {
    let hex: String = EXAMPLE
        .parse::<KeyPath>()
        .unwrap()
        .encode()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let o = sortpath(&["decode", &hex, &hex.to_uppercase()], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{EXAMPLE}\n{EXAMPLE}\n"));

    // DynamoDB JSON exports carry binary keys as padded standard base64.
    let o = sortpath(&["decode", "--base64"], b"YQEIAQAIEQ==\nYQEIAQAIEQ\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "/a-1\n/a-1\n");
}

#[test]
fn sort_orders_by_encoding() {
    let input =
        "/post-100\n/post-9\n/post--3\n/post-42\n/post-abc\n/post-ab\n/post\n/post-9/comment-1\n";
    let o = sortpath(&["sort"], input.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "/post\n/post--3\n/post-9\n/post-9/comment-1\n/post-42\n/post-100\n/post-ab\n/post-abc\n"
    );
}

#[test]
fn inspect_shows_segments() {
    let o = sortpath(&["inspect", "/post-1234"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("encoding  11 bytes: 706f7374010904d2002019"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("5 ")
            && l.contains("0904d2")
            && l.contains("int")
            && l.ends_with("1234")),
        "{text}"
    );
    let by_hex = sortpath(&["inspect", "706f7374010904d2002019"], b"");
    assert_eq!(stdout(&by_hex), text);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[(&[&str], &[u8], &str)] = &[
        (
            &["encode", "/a-1", "/a-%zz"],
            b"",
            "sortpath: argument 2 (\"/a-%zz\"): at byte 3: expected '%/'",
        ),
        (
            &["encode"],
            b"/a-1\n\n",
            "sortpath: line 2: at byte 0: expected '/'",
        ),
        (
            &["encode"],
            b"/a-1\n/a-\xff\n",
            "sortpath: line 2: at byte 3: expected UTF-8",
        ),
        (
            &["decode", "0g"],
            b"",
            "sortpath: argument 1 (\"0g\"): at character 1: expected a hex digit",
        ),
        (
            &["decode", "abc"],
            b"",
            "expected an even number of hex digits",
        ),
        (
            &["decode", "61010801000809"],
            b"",
            "sortpath: argument 1 (\"61010801000809\"): at byte",
        ),
        (&["decode", "--base64", "!!"], b"", "expected base64"),
        // Padding, where present, must be exactly right.
        (
            &["decode", "--base64", "YQEIAQAIEQ="],
            b"",
            "expected base64",
        ),
        (
            &["decode", "--base64", "YQEIAQAIEQ==="],
            b"",
            "expected base64",
        ),
        (
            &["sort"],
            b"/a-1\n/a/b-1\n",
            "sortpath: line 2: at byte 1: expected an ID",
        ),
        (
            &["inspect", "az"],
            b"",
            "at character 1: expected a hex digit, found 'z'",
        ),
        (
            &["inspect", "user-1"],
            b"",
            "sortpath: argument 1 (\"user-1\"): expected a key path (text starting with '/') \
             or its binary form in hex",
        ),
        (
            &["encode", "/a-~AB"],
            b"",
            "sortpath: argument 1 (\"/a-~AB\"): at byte 4: expected base64url whose last digit \
             has its unused low bits zero, found \"AB\" (the same bytes are written \"AA\")",
        ),
        // Positions and the character shown are the text's characters, not its bytes.
        (
            &["decode", "aé"],
            b"",
            "sortpath: argument 1 (\"aé\"): at character 1: expected a hex digit, found 'é'",
        ),
        (
            &["decode", "ééa"],
            b"",
            "at character 0: expected a hex digit, found 'é'",
        ),
    ];
    for (args, stdin, want) in cases {
        let o = sortpath(args, stdin);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("sortpath: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn many_lines_round_trip_through_encode_and_decode() {
    let mut input = String::new();
    for i in 0..50_000i64 {
        input.push_str(&format!(
            "/user-{}/post-{}/tag-t{}\n",
            i % 97,
            i - 25_000,
            i % 13
        ));
    }
    let encoded = sortpath(&["encode"], input.as_bytes());
    assert!(encoded.status.success(), "{}", stderr(&encoded));
    let decoded = sortpath(&["decode"], &encoded.stdout);
    assert!(decoded.status.success(), "{}", stderr(&decoded));
    assert_eq!(stdout(&decoded), input);
}

#[test]
fn demo_runs() {
    let o = sortpath(&["demo", "--keys-only"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let nine = text.rfind("/post-9 ").unwrap();
    let hundred = text.rfind("/post-100 ").unwrap();
    assert!(nine < hundred, "{text}");
}

/// The demo says what it is loading before the load (seconds), also into a pipe, where
/// stdout is buffered: the first lines arrive while it still runs.
#[test]
fn demo_shows_its_heading_before_loading() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sortpath"))
        .args(["demo", "--path", dir.path().to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Vec<String> = (0..3).map(|_| lines.next().unwrap().unwrap()).collect();
    assert!(first[0].starts_with("sortpath demo: "), "{first:?}");
    assert!(first[2].starts_with("Loading "), "{first:?}");
    // Were the lines held back until the end, the demo would be done by now.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the heading came only when the demo ended"
    );
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(rest.iter().any(|l| l.contains("loaded ")), "{rest:?}");
    assert!(child.wait().unwrap().success());
}

#[test]
fn lint_reports_sort_bugs_with_lines_and_fixes() {
    let keys = b"POST#2\nPOST#10\r\nPOST#9\nUSER#alligator\nUSER#Zoey\n\nT#-3\nT#-5\nBAD\xff\n";
    let o = sortpath(&["lint"], keys);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), "sortpath: 5 kinds of problem found\n");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "9 keys; 3 neighbouring pairs (in the order meant) sort the other way as bytes"
    );
    let problems: Vec<&str> = lines
        .iter()
        .filter(|l| !l.starts_with("  fix: "))
        .skip(1)
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        problems,
        [
            "number-width",
            "negative-number",
            "case",
            "empty",
            "not-utf8"
        ]
    );
    assert!(lines.contains(
        &"number-width: \"POST#10\" (line 2) sorts before \"POST#9\" (line 3); field 2: 10 is more than 9 (1 pair)"
    ));
    assert!(lines.contains(&"empty: line 6 \"\": an empty key (1 key)"));
    assert!(lines.contains(&"not-utf8: line 9 \"BAD\u{fffd}\": not UTF-8 at byte 3 (1 key)"));
    assert_eq!(lines.iter().filter(|l| l.starts_with("  fix: ")).count(), 5);
}

/// Keys from the DynamoDB labs' sample data: invoice due dates written M/D/YY, and short
/// random case-sensitive IDs.
#[test]
fn lint_two_digit_years_and_random_ids() {
    let o = sortpath(&["lint"], b"INVOICE#12/30/17\nINVOICE#01/02/18\n");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(
        "two-digit-year: \"INVOICE#01/02/18\" (line 2) sorts before \"INVOICE#12/30/17\" (line 1); \
         field 2: 12/30/17 is in year 17, before 01/02/18 in year 18 (1 pair)"
    ), "{out}");
    assert!(
        out.contains("  fix: write dates as ISO 8601, with a four-digit year first"),
        "{out}"
    );
    let o = sortpath(&["lint"], b"S#Ab_9\nS#aB_1\n");
    assert!(o.status.success(), "{}", stdout(&o));
    let o = sortpath(&["lint", "--help"], b"");
    assert!(stdout(&o).contains("two-digit years"), "{}", stdout(&o));
    assert!(stdout(&o).contains("random ID"), "{}", stdout(&o));
}

#[test]
fn lint_reads_timestamps_and_dates() {
    // Go's RFC3339Nano drops zero fractions; another writer used a +02:00 offset.
    let keys =
        b"EV#2024-05-01T10:00:00Z\nEV#2024-05-01T10:00:00.25Z\nEV#2024-05-01T11:30:00+02:00\n";
    let o = sortpath(&["lint"], keys);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with(
        "3 keys; 2 neighbouring pairs (in the order meant) sort the other way as bytes\n"
    ));
    assert!(out.contains(
        "timestamp: \"EV#2024-05-01T10:00:00Z\" (line 1) sorts before \"EV#2024-05-01T11:30:00+02:00\" (line 3); \
         field 2: 2024-05-01T11:30:00+02:00 is earlier than 2024-05-01T10:00:00Z (2 pairs)"
    ), "{out}");
    assert!(
        out.contains("  fix: write every timestamp in one form: in UTC"),
        "{out}"
    );
    // The same instants in one form are clean.
    let o = sortpath(
        &["lint"],
        b"EV#2024-05-01T09:30:00.000Z\nEV#2024-05-01T10:00:00.000Z\nEV#2024-05-01T10:00:00.250Z\n",
    );
    assert!(o.status.success(), "{}", stdout(&o));
    // Without an offset: `T` against a space, an hour of one digit. One pair, said so.
    let o = sortpath(
        &["lint"],
        b"EV#2024-01-05 10:00\nEV#2024-01-05T09:00\nEV#2024-01-05T9:30\n",
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with(
        "3 keys; 1 neighbouring pair (in the order meant) sorts the other way as bytes\n"
    ));
    assert!(out.contains(
        "timestamp: \"EV#2024-01-05 10:00\" (line 1) sorts before \"EV#2024-01-05T9:30\" (line 3); \
         field 2: 2024-01-05T9:30 is earlier than 2024-01-05 10:00 (1 pair)"
    ), "{out}");
    // With and without an offset, and a date beside timestamps: kinds that do not
    // compare, so not judged and not called out of order.
    let o = sortpath(
        &["lint"],
        b"EV#2024-01-05T09:00Z\nEV#2024-01-05 10:00\nEV#2024-01-06\nEV#2024-01-06T10:00:00Z\n",
    );
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "4 keys; 0 neighbouring pairs (in the order meant) sort the other way as bytes; \
         2 more pairs mix kinds of values (such as a number and a word, or timestamps with \
         and without a UTC offset) and are not judged\n"
    );
    // Dates with the year last, in JSON.
    let o = sortpath(
        &["lint", "--json"],
        b"ORDER#12/31/2023#7\nORDER#01/02/2024#8\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["problem"], "date-order");
    assert_eq!(
        first["detail"],
        "12/31/2023 is in 2023, before 01/02/2024 in 2024"
    );
    assert_eq!(first["examples"][0]["key"], "ORDER#01/02/2024#8");
}

#[test]
fn lint_clean_keys_files_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, "POST#09\nPOST#10\n").unwrap();
    std::fs::write(&b, "POST#9\n").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());

    // Padded numbers alone are clean: exit 0, a summary line.
    let o = sortpath(&["lint", a], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "2 keys; 0 neighbouring pairs (in the order meant) sort the other way as bytes\n"
    );

    // Across files, places name the file and line; JSON lines, then a summary.
    let o = sortpath(&["lint", "--json", a, b], b"");
    assert_eq!(o.status.code(), Some(1));
    let values: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(values.len(), 2);
    assert_eq!(values[0]["problem"], "number-width");
    assert_eq!(values[0]["field"], 2);
    assert_eq!(values[0]["examples"][0]["at"], format!("{a}:2"));
    assert_eq!(values[0]["examples"][0]["key"], "POST#10");
    assert_eq!(values[0]["examples"][1]["at"], format!("{b}:1"));
    assert_eq!(values[0]["detail"], "10 is more than 9");
    assert_eq!(
        values[1],
        serde_json::json!({"keys": 3, "out_of_order": 1, "unjudged": 0, "problems": 1})
    );

    // Other separators: with none, `a b#1` and `a#1` are one field each and fine.
    let o = sortpath(&["lint", "--separators", ""], b"a#1\na b#1\n");
    assert!(o.status.success(), "{}", stdout(&o));
    let o = sortpath(&["lint"], b"a#1\na b#1\n");
    assert!(
        stdout(&o).contains("below-separator: \"a b#1\" (line 2) sorts before \"a#1\" (line 1)")
    );
}

#[test]
fn lint_bad_input_is_one_line_and_status_2() {
    let o = sortpath(&["lint", "--separators", "#a"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "sortpath: --separators: expected ASCII punctuation or space as a separator, found 'a' (0x61)\n"
    );
    let o = sortpath(&["lint", "--separators", "#é"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "sortpath: --separators: expected ASCII punctuation or space as a separator, found 'é'\n"
    );
    let o = sortpath(&["lint", "/no/such/file"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("sortpath: cannot read /no/such/file: "));
    assert_eq!(stderr(&o).lines().count(), 1);
    // A directory opens but cannot be read: the same one-line error, naming it.
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().to_str().unwrap();
    let o = sortpath(&["lint", name], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with(&format!("sortpath: cannot read {name}: ")),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1);
}

/// A stderr that cannot take the message (a full device here; a closed pipe in
/// `sortpath lint big.txt 2>&1 | head -1`) still leaves the documented exit status.
#[cfg(target_os = "linux")]
#[test]
fn exit_status_survives_an_unwritable_stderr() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("Linux has /dev/full")
    };
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sortpath"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(full())
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(run(&["encode", "bad"]), Some(2));
    assert_eq!(run(&["lint", "/no/such/file"]), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert_eq!(run(&["db", "--path", d, "get", "/a-1"]), Some(2));
}

/// A reader that leaves early (`sortpath lint keys.txt | head -1`) does not turn problems
/// found into a clean exit: under `set -o pipefail` the status is what a CI job checks.
/// Other commands end quietly and successfully, as `cat` would.
#[test]
fn lint_status_survives_a_reader_that_left() {
    let run = |args: &[&str], input: &[u8]| {
        let mut child = spawn(args);
        // The reader leaves before the tool writes anything.
        drop(child.stdout.take());
        child.stdin.take().unwrap().write_all(input).unwrap();
        let o = child.wait_with_output().unwrap();
        (o.status.code(), stderr(&o))
    };
    assert_eq!(
        run(&["lint"], b"a#10\na#9\n"),
        (Some(1), "sortpath: 1 kind of problem found\n".to_owned())
    );
    assert_eq!(run(&["lint"], b"a#09\na#10\n"), (Some(0), String::new()));
    assert_eq!(run(&["encode"], b"/a-1\n"), (Some(0), String::new()));
}

/// Stdin that cannot be read is bad input, named as stdin (exit 1 is `lint`'s "problems
/// found").
#[cfg(target_os = "linux")]
#[test]
fn unreadable_stdin_is_named() {
    for command in ["lint", "encode", "decode", "sort"] {
        let o = Command::new(env!("CARGO_BIN_EXE_sortpath"))
            .arg(command)
            .stdin(std::fs::File::open("/").unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert_eq!(
            stderr(&o),
            "sortpath: cannot read stdin: Is a directory (os error 21)\n",
            "{command}"
        );
    }
}

/// The README shows `sortpath lint` output (stdout, then the summary line on stderr); it must
/// be what the tool prints.
#[test]
fn lint_readme_example_is_current() {
    let readme = include_str!("../../../README.md");
    let start = readme
        .find("$ printf 'POST#9")
        .expect("the README has the lint example");
    let block = &readme[start..];
    let block = &block[..block.find("```").unwrap()];
    let (command, shown) = block.split_once('\n').unwrap();
    assert!(command.ends_with("| sortpath lint"));
    let o = sortpath(&["lint"], b"POST#9\nPOST#10\nUSER#Zoey\nUSER#alligator\n");
    assert!(command.contains(r"'POST#9\nPOST#10\nUSER#Zoey\nUSER#alligator\n'"));
    assert_eq!(format!("{}{}", stdout(&o), stderr(&o)), shown);
    assert_eq!(o.status.code(), Some(1));
}

/// A finding about a huge key shows its first bytes and its length, not the whole key.
#[test]
fn lint_cuts_long_example_keys() {
    // 10^100000 before 2 as bytes: a number-width finding with both keys as examples (and
    // a too-long one for the first).
    let long = format!("K#1{}", "0".repeat(100_000));
    let input = format!("{long}\nK#2\n");
    let o = sortpath(&["lint"], input.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.len() < 2_000, "{} bytes of output", out.len());
    assert!(out.contains("... (100003 bytes)"), "{out}");
    assert!(out.contains("\"K#2\""), "{out}");
    let o = sortpath(&["lint", "--json"], input.as_bytes());
    let values: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let examples: Vec<&serde_json::Value> = values
        .iter()
        .filter_map(|v| v["examples"].as_array())
        .flatten()
        .collect();
    let cut = examples
        .iter()
        .find(|e| e["key_bytes"] == 100_003)
        .expect("the long key, cut");
    assert_eq!(cut["key"].as_str().unwrap().len(), 256);
    assert!(cut["key"].as_str().unwrap().starts_with("K#1000"));
    let short = examples.iter().find(|e| e["key"] == "K#2");
    assert!(short.is_some_and(|e| e.get("key_bytes").is_none()));
}

/// `decode` is the key path decoder: bytes that are not a key path, such as the group key of
/// a record the store keeps for itself (found beside the items in a DynamoDB export), fail
/// with one line naming where decoding failed, so a decode-encode round trip never takes a
/// description for a path. `inspect` describes those records.
#[test]
fn decode_refuses_store_records_and_inspect_describes_them() {
    // 00 ff ...: an application's own record; 00 03: the configuration; 00 01 ++ /a-1: the
    // version counter of group /a-1; 00 02, 4, "by_n" ++ /all-0: entries of index by_n.
    let records = [
        ("00ff09fe020000fe08", "an application's own record"),
        ("0003", "the store's configuration"),
        ("000161010801000811", "the version counter of group /a-1"),
        (
            "00020462795f6e616c6c0107ff001811",
            "entries of index by_n under /all-0",
        ),
    ];
    for (hex, what) in records {
        for args in [vec!["decode", hex], vec!["decode", "--split", hex, "00"]] {
            let o = sortpath(&args, b"");
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
            assert_eq!(stdout(&o), "", "{args:?}");
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(
                err.starts_with(&format!("sortpath: argument 1 (\"{hex}\""))
                    && err.contains("at byte"),
                "{args:?}: {err}"
            );
            assert!(err.contains("sortpath inspect"), "{args:?}: {err}");
        }
        let o = sortpath(&["decode"], format!("{hex}\n").as_bytes());
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(
            stderr(&o).starts_with("sortpath: line 1: at byte"),
            "{}",
            stderr(&o)
        );

        let o = sortpath(&["inspect", hex], b"");
        assert!(o.status.success(), "{hex}: {}", stderr(&o));
        assert_eq!(
            stdout(&o),
            format!(
                "record    (store record: {what})\nencoding  {} bytes: {hex}\n",
                hex.len() / 2
            )
        );
    }
    // Bytes that are neither still fail in inspect.
    let o = sortpath(&["inspect", "0007"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("at byte"), "{}", stderr(&o));
}
