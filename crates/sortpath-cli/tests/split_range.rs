//! `sortpath encode --base64/--split`, `decode --split` and `range`, against the library.

mod common;

use std::ops::Bound;

use base64::Engine;
use sortpath::{Id, KeyPath, KeyRange};

use common::{fails, run};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn path(text: &str) -> KeyPath {
    text.parse().unwrap()
}

/// The stdout lines of a run that must succeed.
fn lines(args: &[&str], stdin: &str) -> Vec<String> {
    let o = run(args, stdin.as_bytes());
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// `START<TAB>END` as `sortpath range` prints it.
fn printed(range: &KeyRange, enc: fn(&[u8]) -> String) -> String {
    let end = range.end().map_or_else(|| "-".to_owned(), enc);
    format!("{}\t{end}", enc(range.start()))
}

const PATHS: &[&str] = &[
    "/a-1",
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42",
    "/user-1",
    "/user-1/post",
    "/user--18446744073709551615/x-18446744073709551615",
    "/s-/t-%00%01%10/u-%%%/~/v-~/w-~AAE/x-%31",
    "/é-1",
];

#[test]
fn encode_base64_is_standard_padded() {
    let o = lines(&["encode", "--base64", "/a-1"], "");
    assert_eq!(o, ["YQEIAQAIEQ=="]);
    let stdin: String = PATHS
        .iter()
        .filter(|p| p.parse::<KeyPath>().is_ok())
        .map(|p| format!("{p}\n"))
        .collect();
    let want: Vec<String> = stdin.lines().map(|p| b64(&path(p).encode())).collect();
    assert_eq!(lines(&["encode", "--base64"], &stdin), want);
}

#[test]
fn encode_split_prints_group_and_sort_keys() {
    assert_eq!(
        lines(&["encode", "--split", "/a-1/b-2", "/a-1"], ""),
        [
            format!(
                "{}\t{}",
                hex(&path("/a-1").encode()),
                hex(&path("/b-2").encode())
            ),
            format!("{}\t00", hex(&path("/a-1").encode())),
        ]
    );
    for p in [PATHS[1], PATHS[3], PATHS[4]] {
        let (group, sort) = path(p).split_group().unwrap();
        assert_eq!(
            lines(&["encode", "--split", p], ""),
            [format!("{}\t{}", hex(&group), hex(&sort))]
        );
        assert_eq!(
            lines(&["encode", "--split", "--base64", p], ""),
            [format!("{}\t{}", b64(&group), b64(&sort))]
        );
    }
}

#[test]
fn decode_split_joins_group_and_sort_keys() {
    let with_groups = ["/a-1/b-2", "/a-1", PATHS[1], PATHS[4], "/g-~/s-%2F/t"];
    for base64 in [false, true] {
        let enc = if base64 { b64 } else { hex };
        let mut args = vec!["decode", "--split"];
        let mut flags = vec!["encode", "--split"];
        if base64 {
            args.push("--base64");
            flags.push("--base64");
        }
        let stdin: String = with_groups.iter().map(|p| format!("{p}\n")).collect();
        // A round trip through the binary...
        let split = lines(&flags, &stdin).join("\n");
        let joined = lines(&args, &split);
        let want: Vec<String> = with_groups.iter().map(|p| path(p).to_string()).collect();
        assert_eq!(joined, want);
        // ...from keys the library split, and from arguments in pairs.
        let (g, s) = path(PATHS[1]).split_group().unwrap();
        let (g2, s2) = path("/a-1").split_group().unwrap();
        let pairs = [enc(&g), enc(&s), enc(&g2), enc(&s2)];
        let mut with_args = args.clone();
        with_args.extend(pairs.iter().map(String::as_str));
        assert_eq!(lines(&with_args, ""), [PATHS[1], "/a-1"]);
    }
}

#[test]
fn ranges_are_the_library_ranges() {
    let cases: Vec<(String, KeyRange)> = vec![
        (
            "subtree\t/user-1/post".into(),
            KeyRange::subtree(&path("/user-1/post")),
        ),
        ("subtree\t/".into(), KeyRange::subtree(&KeyPath::new())),
        (
            "descendants\t/user-1/post-ab".into(),
            KeyRange::descendants(&path("/user-1/post-ab")),
        ),
        (
            "descendants\t/".into(),
            KeyRange::descendants(&KeyPath::new()),
        ),
        (
            "children\t/user-1\tpost".into(),
            KeyRange::children(&path("/user-1"), "post"),
        ),
        (
            "children\t/\tuser".into(),
            KeyRange::children(&KeyPath::new(), "user"),
        ),
        (
            format!("paths\t[{}\t({}", PATHS[0], PATHS[1]),
            KeyRange::between_paths(
                Bound::Included(path(PATHS[0])),
                Bound::Excluded(path(PATHS[1])),
            ),
        ),
        (
            "paths\t(/a-1\t[/a-5/b".into(),
            KeyRange::between_paths(
                Bound::Excluded(path("/a-1")),
                Bound::Included(path("/a-5/b")),
            ),
        ),
        (
            "paths\t*\t*".into(),
            KeyRange::between_paths(Bound::Unbounded, Bound::Unbounded),
        ),
    ];
    let uuid = [
        0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a, 0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67, 0x45,
        0x8a,
    ];
    // Every way to write an ID bound, each against the ID the library takes.
    let ids: Vec<(&str, Id)> = vec![
        ("42", Id::from(42u64)),
        ("-7", Id::from(-7i64)),
        ("0", Id::from(0u64)),
        ("18446744073709551615", Id::from(u64::MAX)),
        (
            "-18446744073709551615",
            Id::try_from(-(u64::MAX as i128)).unwrap(),
        ),
        ("abc", Id::from("abc")),
        ("", Id::from("")),
        ("%31", Id::from("1")),
        ("%%%00%/x", Id::from("%\0/x")),
        ("é-1", Id::from("é-1")),
        ("4C9D36E5-6b19-4e6a-828c-226ed667458a", Id::Uuid(uuid)),
        ("~AAE", Id::from(&[0u8, 1][..])),
        ("~", Id::from(&[][..])),
    ];
    let mut cases = cases;
    for (i, (text, id)) in ids.iter().enumerate() {
        let (other_text, other) = &ids[(i + 5) % ids.len()];
        for parent in ["/", "/user-1"] {
            let p = path(parent);
            let spec = |l: &str, u: &str| format!("between\t{parent}\tpost\t{l}\t{u}");
            cases.push((
                spec(&format!("[{text}"), &format!("({other_text}")),
                KeyRange::between(
                    &p,
                    "post",
                    Bound::Included(id.clone()),
                    Bound::Excluded(other.clone()),
                ),
            ));
            cases.push((
                spec(&format!("({text}"), &format!("[{other_text}")),
                KeyRange::between(
                    &p,
                    "post",
                    Bound::Excluded(id.clone()),
                    Bound::Included(other.clone()),
                ),
            ));
            cases.push((
                spec("*", &format!("[{text}")),
                KeyRange::between(&p, "post", Bound::Unbounded, Bound::Included(id.clone())),
            ));
            cases.push((
                spec(&format!("({text}"), "*"),
                KeyRange::between(&p, "post", Bound::Excluded(id.clone()), Bound::Unbounded),
            ));
        }
    }
    cases.push((
        "between\t/\tpost\t*\t*".into(),
        KeyRange::children(&KeyPath::new(), "post"),
    ));
    let stdin: String = cases.iter().map(|(s, _)| format!("{s}\n")).collect();
    let want: Vec<String> = cases.iter().map(|(_, r)| printed(r, hex)).collect();
    assert_eq!(lines(&["range"], &stdin), want);
    let want: Vec<String> = cases.iter().map(|(_, r)| printed(r, b64)).collect();
    assert_eq!(lines(&["range", "--base64"], &stdin), want);
    // Arguments are specs too.
    assert_eq!(
        lines(&["range", &cases[0].0, &cases[1].0], ""),
        [printed(&cases[0].1, hex), printed(&cases[1].1, hex)]
    );
    // Known bytes, from docs/FORMAT.md's table: S 00 .. S 02, unbounded for the empty path.
    assert_eq!(
        lines(&["range", "subtree\t/a-1"], ""),
        ["6101080100\t6101080102"]
    );
    assert_eq!(lines(&["range", "subtree\t/"], ""), ["00\t-"]);
    assert_eq!(lines(&["range", "paths\t*\t*"], ""), ["\t-"]);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["encode", "--split", "/a-1", "/a"],
            "",
            "sortpath: argument 2 (\"/a\"): key path \"/a\" has no group key",
        ),
        (&["encode", "--split"], "/a-1\n/\n", "sortpath: line 2: key path \"/\" has no group key"),
        (&["encode", "--base64"], "/a-1\n/a-%zz\n", "sortpath: line 2: at byte 3: expected '%/'"),
        (
            &["decode", "--split"],
            "610108010008\n",
            "sortpath: line 1: at character 12: expected GROUP<TAB>SORT, found no TAB",
        ),
        (
            &["decode", "--split", "6101080100081100"],
            "",
            "sortpath: argument 1 (\"6101080100081100\", group key): expected a SORT argument",
        ),
        (
            &["decode", "--split"],
            "61010801000811\t0g\n",
            "sortpath: line 1: field 2 (sort key): at character 1: expected a hex digit, found 'g'",
        ),
        (
            &["decode", "--split"],
            "61\t00\n",
            "sortpath: line 1: field 1 (group key): at byte",
        ),
        (
            &["decode", "--split"],
            "61010801000811\t6101\n",
            "sortpath: line 1: field 2 (sort key): at byte",
        ),
        // A whole path is not a group key.
        (
            &["decode", "--split"],
            "6101080101620108020008110811\t00\n",
            "sortpath: line 1: field 1 (group key): at byte 0: expected a group key",
        ),
        (
            &["decode", "--split", "--base64"],
            "YQEIAQAIEQ==\t!\n",
            "sortpath: line 1: field 2 (sort key): expected base64",
        ),
        (
            &["range"],
            "subtree\t/a-1\nbetwen\t/\ta\t*\t*\n",
            "sortpath: line 2: field 1 (\"betwen\"): expected the kind of range: subtree, \
             descendants, children, between or paths",
        ),
        (
            &["range", "children\t/a-1"],
            "",
            "sortpath: argument 1 (\"children\\t/a-1\"): expected 3 TAB-separated fields for \
             children (children<TAB>PARENT<TAB>NAMESPACE), found 2",
        ),
        (
            &["range"],
            "subtree\t/a-1\t\n",
            "sortpath: line 1: expected 2 TAB-separated fields for subtree (subtree<TAB>PATH), found 3",
        ),
        (
            &["range"],
            "subtree\t/a-%zz\n",
            "sortpath: line 1: field 2 (PATH \"/a-%zz\"): at byte 3: expected '%/'",
        ),
        (
            &["range"],
            "children\t/a-1\tpo-st\n",
            "sortpath: line 1: field 3 (NAMESPACE \"po-st\"): at byte 2: invalid namespace",
        ),
        (
            &["range"],
            "children\t/a-1\t\n",
            "sortpath: line 1: field 3 (NAMESPACE \"\"): at byte 0: invalid namespace",
        ),
        (
            &["range"],
            "between\t/a-1/b\tc\t*\t*\n",
            "sortpath: line 1: field 2 (PARENT \"/a-1/b\"): cannot add /c after the namespace-only component /b",
        ),
        (
            &["range"],
            "between\t/\tpost\t42\t*\n",
            "sortpath: line 1: field 4 (LOWER \"42\"): at byte 0: expected '*', or '[' \
             (included) or '(' (excluded) and an ID",
        ),
        (
            &["range"],
            "between\t/\tpost\t*\t[a/b\n",
            "sortpath: line 1: field 5 (UPPER \"[a/b\"): at byte 2: expected an ID, found '/'",
        ),
        (
            &["range"],
            "between\t/\tpost\t(%//\t*\n",
            "sortpath: line 1: field 4 (LOWER \"(%//\"): at byte 3: expected an ID, found '/'",
        ),
        (
            &["range"],
            "between\t/\tpost\t[ab%zz\t*\n",
            "sortpath: line 1: field 4 (LOWER \"[ab%zz\"): at byte 3: expected '%/', '%%' or '%' and two hex digits",
        ),
        (
            &["range"],
            "between\t/\tpost\t(18446744073709551616\t*\n",
            "sortpath: line 1: field 4 (LOWER \"(18446744073709551616\"): at byte 1: integer ID \
             18446744073709551616 is out of range",
        ),
        (
            &["range"],
            "between\t/\tpost\t[~AB\t*\n",
            "sortpath: line 1: field 4 (LOWER \"[~AB\"): at byte 2: expected base64url whose \
             last digit has its unused low bits zero",
        ),
        (
            &["range"],
            "paths\t[/a-1\t(/a-%zz\n",
            "sortpath: line 1: field 3 (UPPER \"(/a-%zz\"): at byte 4: expected '%/'",
        ),
        (
            &["range"],
            "paths\t/a-1\t*\n",
            "sortpath: line 1: field 2 (LOWER \"/a-1\"): at byte 0: expected '*', or '[' \
             (included) or '(' (excluded) and a path",
        ),
        (&["range"], "\n", "sortpath: line 1: field 1 (\"\"): expected the kind of range"),
    ];
    for (args, stdin, want) in cases {
        let o = run(args, stdin.as_bytes());
        fails(&o, 2, want);
        assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    }
    // The names in the spec table above are the field roles the messages use.
    let o = run(&["range"], b"paths\t*\n");
    fails(
        &o,
        2,
        "expected 3 TAB-separated fields for paths (paths<TAB>LOWER<TAB>UPPER), found 2",
    );
    let o = run(&["range"], b"between\t/\tpost\t*\n");
    fails(
        &o,
        2,
        "expected 5 TAB-separated fields for between \
         (between<TAB>PARENT<TAB>NAMESPACE<TAB>LOWER<TAB>UPPER), found 4",
    );
}

#[test]
fn many_paths_round_trip_through_split_and_base64() {
    let mut stdin = String::new();
    for i in 0..20_000i64 {
        stdin.push_str(&format!(
            "/user-{}/post-%00{}/tag-~{}\n",
            i % 97 - 40,
            i * 7919,
            ["", "AA", "AAE", "_w"][(i % 4) as usize]
        ));
    }
    let split = run(&["encode", "--split", "--base64"], stdin.as_bytes());
    assert!(split.status.success());
    let joined = run(&["decode", "--split", "--base64"], &split.stdout);
    assert!(
        joined.status.success(),
        "{}",
        String::from_utf8_lossy(&joined.stderr)
    );
    assert_eq!(String::from_utf8(joined.stdout).unwrap(), stdin);
}
