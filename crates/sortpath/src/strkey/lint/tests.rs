use std::cmp::Ordering;

use proptest::prelude::*;

use super::token::is_negative_strkey;
use super::*;
use crate::idgen::{Ksuid, Ulid};
use crate::strkey::{decimal_key, float_key, int_key, inverted, iso8601_key, padded};
use crate::time::{Precision, Timestamp};

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(crate::test_cases(5_000))
}

fn lint(keys: &[&str]) -> Report {
    Lint::new().run(keys)
}

/// A finding as (problem, count, example keys, field, detail).
type Found = (Problem, usize, Vec<String>, Option<usize>, String);

fn found(keys: &[&str]) -> Vec<Found> {
    lint(keys)
        .findings
        .into_iter()
        .map(|f| {
            let examples = f.keys.iter().map(|&i| keys[i].to_owned()).collect();
            (f.problem, f.count, examples, f.field, f.detail)
        })
        .collect()
}

fn pair(p: Problem, n: usize, keys: [&str; 2], field: usize, detail: &str) -> Found {
    (
        p,
        n,
        keys.map(str::to_owned).to_vec(),
        Some(field),
        detail.to_owned(),
    )
}

/// Timestamps that name one time: their sort keys' first 12 bytes (the time) are equal.
fn assert_read_alike(lint: &Lint, same: &[&str]) {
    for (a, b) in same.iter().zip(&same[1..]) {
        assert_eq!(
            lint.sort_key(a.as_bytes())[..12],
            lint.sort_key(b.as_bytes())[..12],
            "{a} {b}"
        );
    }
}

/// Each key is meant to sort before the next.
fn assert_in_meant_order(lint: &Lint, ordered: &[&str]) {
    for (a, b) in ordered.iter().zip(&ordered[1..]) {
        assert_eq!(
            lint.meant_cmp(a.as_bytes(), b.as_bytes()),
            Ordering::Less,
            "{a} {b}"
        );
    }
}

#[test]
fn numbers_of_different_widths() {
    assert_eq!(
        found(&["POST#2", "POST#10", "POST#9", "POST#100"]),
        [pair(
            Problem::NumberWidth,
            1,
            ["POST#10", "POST#9"],
            2,
            "10 is more than 9"
        )]
    );
    // Inside a field too: `post9` before `post10`, `v1.9` before `v1.10`.
    assert_eq!(
        found(&["v1.9", "v1.10"]),
        [pair(
            Problem::NumberWidth,
            1,
            ["v1.10", "v1.9"],
            1,
            "10 is more than 9"
        )]
    );
    assert_eq!(
        found(&["/user-1/post9", "/user-1/post10"]),
        [pair(
            Problem::NumberWidth,
            1,
            ["/user-1/post10", "/user-1/post9"],
            3,
            "10 is more than 9"
        )]
    );
    // Padding that is not the same everywhere.
    assert_eq!(
        found(&["a#7#x", "a#007#y"]),
        [pair(
            Problem::NumberWidth,
            1,
            ["a#007#y", "a#7#x"],
            2,
            "007 and 7 are the same number"
        )]
    );
    // A decimal and a field that only starts like one read the integer alike.
    assert!(lint(&["1.5", "1.5rc1", "1.25", "1.50#a", "1.5#a"]).is_clean());
    let report = lint(&["1.50#a", "1.5#b"]);
    assert_eq!(
        report.findings[0].detail,
        "1.5 and 1.50 are the same number"
    );
    // The whole number, in a later field too.
    let report = lint(&["a#12.50#1", "a#12.5#2"]);
    assert_eq!(
        report.findings[0].detail,
        "12.5 and 12.50 are the same number"
    );
    // Decimals: the integer part's width.
    assert_eq!(found(&["9.5", "10.25"])[0].0, Problem::NumberWidth);
    // One width, or zero padding, sorts right.
    assert!(lint(&["POST#02", "POST#10", "POST#09", "1.25", "1.5"]).is_clean());
}

#[test]
fn negative_numbers() {
    assert_eq!(
        found(&["t#-5", "t#-3", "t#4"]),
        [pair(
            Problem::NegativeNumber,
            1,
            ["t#-3", "t#-5"],
            2,
            "-3 is more than -5"
        )]
    );
    // A negative integer starting a field is read as one.
    assert_eq!(found(&["-1 C", "-10 C"])[0].0, Problem::NegativeNumber);
    // Negatives of growing width, and negatives before positives, sort right as bytes.
    assert!(lint(&["-100", "-20", "-3", "0", "5"]).is_clean());
    // Minus zero is zero, which sorts after every negative: as bytes it does not.
    assert_eq!(found(&["-0", "-3"])[0].0, Problem::NegativeNumber);
    // Negative numbers shaped like a negative int_key (`-986` is int_key(-3)) compare as
    // bytes, so keys written by int_key lint clean; a plain number of that shape is not
    // judged.
    assert!(lint(&["-986", "-9757"]).is_clean());
    let report = lint(&["-986", "-99"]);
    assert_eq!(
        (report.out_of_order, report.unjudged, report.is_clean()),
        (1, 1, true)
    );
}

/// UUIDs in text form are one opaque token compared as bytes (the order of their hex
/// digits, whatever their case): one whose first 8 characters are decimal digits is not
/// read as a number and then compared with its neighbours as another kind of value.
#[test]
fn uuids_compare_as_their_bytes() {
    let keys = [
        "/user-0a1b2c3d-0000-4000-8000-000000000000/post-1",
        "/user-12345678-9abc-4def-8123-456789abcdef/post-1",
        "/user-12345678-9abc-4def-8123-456789abcdef/post-2",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1",
        "/user-99999999-0000-4000-8000-000000000000/post-1",
        "/user-c0ffee00-1234-4567-89ab-cdef01234567/post-1",
    ];
    for separators in [&b"/"[..], b"/-"] {
        let report = Lint::new().separators(separators).unwrap().run(&keys);
        assert_eq!(
            (report.out_of_order, report.unjudged),
            (0, 0),
            "{separators:?}"
        );
        let lint = Lint::new().separators(separators).unwrap();
        for a in keys {
            for b in keys {
                assert_eq!(
                    lint.meant_cmp(a.as_bytes(), b.as_bytes()),
                    a.cmp(b),
                    "{a} {b}"
                );
            }
        }
    }
    // A UUID inside a longer word is not one.
    assert!(lint(&[
        "k#x12345678-9abc-4def-8123-456789abcdef",
        "k#x4c9d36e5-6b19-4e6a-828c-226ed667458a"
    ])
    .is_clean());
}

#[test]
fn case() {
    assert_eq!(
        found(&["USER#alligator", "USER#Zoey"]),
        [pair(
            Problem::Case,
            1,
            ["USER#Zoey", "USER#alligator"],
            2,
            "'Z' sorts before 'a'"
        )]
    );
    // Case decides before a later difference: `Post#10` first, though 9 < 10.
    assert_eq!(found(&["post#9", "Post#10"])[0].0, Problem::Case);
    // Upper case against punctuation that sits between the cases.
    assert_eq!(found(&["_x", "Zx"])[0].0, Problem::Case);
    // One case everywhere is fine; identifiers compare with case.
    assert!(lint(&["ALPHA", "BETA", "GAMMA2"]).is_clean());
    assert!(lint(&["alpha", "beta", "gamma2"]).is_clean());
    assert!(lint(&[
        "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
        "0ujtsZcgvSTl8PAuAdqWYSMnLOv",
        "0uJts1cg"
    ])
    .is_clean());
}

#[test]
fn below_separator() {
    assert_eq!(
        found(&["a#1", "a b#1"]),
        [pair(
            Problem::BelowSeparator,
            1,
            ["a b#1", "a#1"],
            1,
            "' ' (0x20) sorts below the separator '#' (0x23)"
        )]
    );
    // Key path text stored as a string: `-` sorts below `/`.
    assert_eq!(
        found(&["/user-1/post/x", "/user-1/post-1/x"]),
        [pair(
            Problem::BelowSeparator,
            1,
            ["/user-1/post-1/x", "/user-1/post/x"],
            3,
            "'-' (0x2D) sorts below the separator '/' (0x2F)"
        )]
    );
    // A byte that is not printable shows once, in hex.
    assert_eq!(
        found(&["a#1", "a\u{1}#1"])[0].4,
        "0x01 sorts below the separator '#' (0x23)"
    );
    // Separators can be changed.
    assert!(Lint::new()
        .separators(b"")
        .unwrap()
        .run(&["a#1", "a b#1"])
        .findings
        .iter()
        .all(|f| f.problem != Problem::BelowSeparator));
}

#[test]
fn key_problems() {
    let long = "x".repeat(DEFAULT_MAX_LEN + 1);
    let keys: Vec<&[u8]> = vec![b"ok", b"", b"a\0b", b"\xff", long.as_bytes(), b"tab\t"];
    let report = Lint::new().run(&keys);
    let got: Vec<_> = report
        .findings
        .iter()
        .map(|f| (f.problem, f.count, f.keys.clone(), f.detail.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (Problem::Empty, 1, vec![1], "an empty key"),
            (Problem::ControlByte, 2, vec![2], "byte 0x00 at byte 1"),
            (Problem::NotUtf8, 1, vec![3], "not UTF-8 at byte 0"),
            (Problem::TooLong, 1, vec![4], "1025 bytes, more than 1024"),
        ]
    );
    assert!(Lint::new().max_len(2000).run(&[long.as_str()]).is_clean());
}

#[test]
fn settings_errors() {
    for bad in [b'a', b'Z', b'5', 0x00, 0x80] {
        assert_eq!(
            Lint::new().separators(&[bad]).unwrap_err(),
            LintError::Separator { byte: bad }
        );
    }
    assert_eq!(
        LintError::Separator { byte: 0 }.to_string(),
        "expected ASCII punctuation or space as a separator, found 0x00"
    );
    assert_eq!(
        LintError::Separator { byte: b'a' }.to_string(),
        "expected ASCII punctuation or space as a separator, found 'a' (0x61)"
    );
}

#[test]
fn accents() {
    // An accented letter sorts after every ASCII letter, and after ASCII punctuation.
    assert_eq!(
        found(&["USER#zoe", "USER#\u{c9}mile"]),
        [pair(
            Problem::Accent,
            1,
            ["USER#zoe", "USER#\u{c9}mile"],
            2,
            "'z' sorts before '\u{c9}'"
        )]
    );
    assert_eq!(
        found(&["a#~", "a#\u{c9}"]),
        [pair(
            Problem::Accent,
            1,
            ["a#~", "a#\u{c9}"],
            2,
            "'~' sorts before '\u{c9}'"
        )]
    );
    // A letter right after punctuation starts a word of its own.
    assert_eq!(
        found(&["x#-eb", "x#-\u{e9}a"]),
        [pair(
            Problem::Accent,
            1,
            ["x#-eb", "x#-\u{e9}a"],
            2,
            "'e' sorts before '\u{e9}'"
        )]
    );
    // Two cases of one accented letter are a case problem.
    assert_eq!(
        found(&["x#\u{e9}a", "x#\u{c9}b"]),
        [pair(
            Problem::Case,
            1,
            ["x#\u{c9}b", "x#\u{e9}a"],
            2,
            "'\u{c9}' sorts before '\u{e9}'"
        )]
    );
    // The meant order reads accented letters as their base letter, without case.
    let linter = Lint::new();
    let mut words = ["zoe", "Zo\u{eb}", "Adam", "\u{c1}bel", "abe"];
    words.sort_by_cached_key(|w| linter.sort_key(w.as_bytes()));
    assert_eq!(words, ["abe", "\u{c1}bel", "Adam", "Zo\u{eb}", "zoe"]);
    // Letters without an ASCII base letter (ß, ø) and beyond Latin-1 (ł) keep byte order.
    assert!(lint(&["x#z", "x#\u{df}", "x#\u{f8}", "x#\u{142}"]).is_clean());
    // Latin Extended-A: č reads as c.
    assert_eq!(
        found(&["x#dvorak", "x#\u{10d}apek"]),
        [pair(
            Problem::Accent,
            1,
            ["x#dvorak", "x#\u{10d}apek"],
            2,
            "'d' sorts before '\u{10d}'"
        )]
    );
    // A word of accented letters and digits splits like a plain one.
    assert!(!lint(&["x#\u{e9}t\u{e9}10", "x#\u{e9}t\u{e9}9"]).is_clean());
}

/// The base-letter tables against the standard library's case mapping: a letter and its
/// other case (when both are in the tables' range) have the same base letter, and every
/// letter with one is alphabetic. 161 code points from U+00C0 to U+017F decompose to an
/// ASCII letter and marks (counted with Python's `unicodedata.normalize("NFD", ...)`).
#[test]
fn timestamps() {
    // Different UTC offsets: 10:00+02:00 is 08:00 UTC.
    assert_eq!(
        found(&["EV#2024-01-01T09:30:00Z", "EV#2024-01-01T10:00:00+02:00"]),
        [pair(
            Problem::Timestamp,
            1,
            ["EV#2024-01-01T09:30:00Z", "EV#2024-01-01T10:00:00+02:00"],
            2,
            "2024-01-01T10:00:00+02:00 is earlier than 2024-01-01T09:30:00Z"
        )]
    );
    // With and without a fraction (Go's RFC3339Nano): 'Z' sorts after '.'.
    assert_eq!(
        found(&["T#2024-01-01T10:00:00Z", "T#2024-01-01T10:00:00.5Z"]),
        [pair(
            Problem::Timestamp,
            1,
            ["T#2024-01-01T10:00:00.5Z", "T#2024-01-01T10:00:00Z"],
            2,
            "2024-01-01T10:00:00Z is earlier than 2024-01-01T10:00:00.5Z"
        )]
    );
    // One instant written two ways: the fields after it decide.
    assert_eq!(
        found(&["X#2024-01-01T08:00:00Z#b", "X#2024-01-01T10:00:00+02:00#a"]),
        [pair(
            Problem::Timestamp,
            1,
            ["X#2024-01-01T08:00:00Z#b", "X#2024-01-01T10:00:00+02:00#a"],
            2,
            "2024-01-01T10:00:00+02:00 and 2024-01-01T08:00:00Z are the same time"
        )]
    );
    // The forms read: space or `t`, no seconds, a comma, `z`, basic and hour-only offsets.
    let lint = Lint::new();
    let same = [
        "2024-03-01T08:00:00Z",
        "2024-03-01 08:00Z",
        "2024-03-01t08:00:00,000z",
        "2024-03-01T10:00:00+0200",
        "2024-03-01T10:00+02",
        "2024-03-01T02:30:00-05:30",
        "2024-02-29T23:30-08:30",
    ];
    assert_read_alike(&lint, &same);
    // Across a day, a month and a year boundary, and a leap second.
    let ordered = [
        "1999-12-31T23:59:59.999+00:00",
        "2000-01-01T01:00:00+01:00",
        "2000-01-01T00:00:00.001Z",
        "2016-12-31T23:59:59Z",
        "2016-12-31T23:59:60Z",
        "2016-12-31T23:59:60.5Z",
        "2017-01-01T00:00:01Z",
    ];
    assert_in_meant_order(&lint, &ordered);
    // Not timestamps, so not compared as instants (which would put `a` after `b`): no
    // such date or hour, more after the offset in the same field, a dot without fraction
    // digits. (Without an offset it is a local time, after every instant.)
    for (a, b) in [
        ("T#2024-01-01T11:00:00+02:00", "T#2024-01-01T10:00:00"),
        ("T#2023-02-29T10:00:00Z", "T#2023-02-29T11:00:00+02:00"),
        ("T#2024-01-01T24:00:00Z", "T#2024-01-02T00:30:00+02:00"),
        ("T#2024-01-01T10:00:61Z", "T#2024-01-01T11:00:00+02:00"),
        ("T#2024-01-01T10:00:00Zx", "T#2024-01-01T11:00:00+02:00x"),
        ("T#2024-01-01T10:00:00.Z", "T#2024-01-01T11:00:00+02:00"),
    ] {
        assert_eq!(
            lint.meant_cmp(a.as_bytes(), b.as_bytes()),
            Ordering::Less,
            "{a} {b}"
        );
    }
    // The same with a real date: 11:00+02:00 is 09:00 UTC.
    assert!(!lint
        .meant_cmp(b"T#2023-02-28T10:00:00Z", b"T#2023-02-28T11:00:00+02:00")
        .is_lt());
    assert!(
        lint.run(&["T#2024-01-01T23:00:00Z", "T#2024-01-02T00:30:00+02:00"])
            .findings[0]
            .problem
            == Problem::Timestamp
    );
}

#[test]
fn local_timestamps() {
    // `T` against a space: 'T' (0x54) sorts after ' ' (0x20), so 09:00 after 10:00.
    assert_eq!(
        found(&["EV#2024-01-05 10:00", "EV#2024-01-05T09:00"]),
        [pair(
            Problem::Timestamp,
            1,
            ["EV#2024-01-05 10:00", "EV#2024-01-05T09:00"],
            2,
            "2024-01-05T09:00 is earlier than 2024-01-05 10:00"
        )]
    );
    // An hour of one digit, with `T` (`05T9` was read as one identifier).
    assert_eq!(
        found(&["EV#2024-01-05T10:00:00", "EV#2024-01-05T9:30:00"]),
        [pair(
            Problem::Timestamp,
            1,
            ["EV#2024-01-05T10:00:00", "EV#2024-01-05T9:30:00"],
            2,
            "2024-01-05T9:30:00 is earlier than 2024-01-05T10:00:00"
        )]
    );
    // The forms read alike: `T`, `t` or a space, an hour of one digit, no seconds, a
    // fraction of zeros.
    let lint = Lint::new();
    let same = [
        "2024-03-01T08:00:00",
        "2024-03-01 08:00",
        "2024-03-01t8:00:00,000",
        "2024-03-01 8:00:00.0",
    ];
    assert_read_alike(&lint, &same);
    // In the order written, across a day, and after every time with an offset (a local
    // time names no instant): no offset is not read as UTC.
    let ordered = [
        "2024-01-01T23:00:00+00:00",
        "2023-12-31T23:59:59",
        "2024-01-01 0:00",
        "2024-01-01T00:00:00.5",
        "2024-01-01 9:59",
        "2024-01-01T10:00",
    ];
    assert_in_meant_order(&lint, &ordered);
    // A local time and an instant out of byte order are not judged (no common measure).
    let report = lint.run(&["T#2024-01-01T09:00Z", "T#2024-01-01 10:00"]);
    assert_eq!((report.out_of_order, report.unjudged), (1, 1));
    // Not local times: an hour of three digits or 24, minutes of one digit, more in the
    // field.
    for t in [
        "2024-01-01T100:00",
        "2024-01-01T24:00",
        "2024-01-01T10:0",
        "2024-01-01T10:00x",
    ] {
        assert_ne!(
            lint.sort_key(t.as_bytes())[..3],
            lint.sort_key(b"2024-01-01T10:00")[..3],
            "{t}"
        );
    }
}

#[test]
fn dates_with_the_year_last() {
    assert_eq!(
        found(&["ORDER#12/31/2023#a", "ORDER#01/02/2024#b"]),
        [pair(
            Problem::DateOrder,
            1,
            ["ORDER#01/02/2024#b", "ORDER#12/31/2023#a"],
            2,
            "12/31/2023 is in 2023, before 01/02/2024 in 2024"
        )]
    );
    assert_eq!(
        found(&["D#31.12.2023", "D#1.1.2024"]),
        [pair(
            Problem::DateOrder,
            1,
            ["D#1.1.2024", "D#31.12.2023"],
            2,
            "31.12.2023 is in 2023, before 1.1.2024 in 2024"
        )]
    );
    // In one year, unpadded numbers.
    assert_eq!(
        found(&["D#2-5-2024", "D#12-1-2024"]),
        [pair(
            Problem::DateOrder,
            1,
            ["D#12-1-2024", "D#2-5-2024"],
            2,
            "2-5-2024 is before 12-1-2024"
        )]
    );
    // Padded dates of one year, year-first dates, and one date are clean.
    assert!(lint(&["D#01/02/2024", "D#01/15/2024", "D#12/31/2024"]).is_clean());
    assert!(lint(&["D#2023-12-31", "D#2024-01-02"]).is_clean());
    // Not dates: a part that is no month, no such day either way, three digits, two
    // marks, a longer year, more in the field; a leap day outside a leap year.
    let is_date = |field: &str| {
        let lint = Lint::new();
        matches!(
            lint.tokens(field.as_bytes()).next_token().tok,
            Tok::Date { .. }
        )
    };
    for field in [
        "12/31/2023",
        "31.12.2023",
        "1-2-0000",
        "02/29/2024",
        "29/02/2024",
    ] {
        assert!(is_date(field), "{field}");
    }
    for field in [
        "13/13/2023",
        "02/30/2023",
        "30/02/2023",
        "012/01/2023",
        "12/31-2023",
        "12/31/20231",
        "12/31/2023x",
        "12/31/202",
        "0/1/2023",
        "02/29/2023",
    ] {
        assert!(!is_date(field), "{field}");
    }
}

#[test]
fn base_letters() {
    let base = |c: char| -> Option<u32> {
        let mut buf = [0; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        letter_at(bytes, 0).map(|(len, b)| {
            assert_eq!(len, bytes.len());
            b
        })
    };
    let mut letters = 0;
    for c in (0xC0u32..0x180).filter_map(char::from_u32) {
        let Some(b) = base(c) else { continue };
        letters += 1;
        let b = u8::try_from(b).unwrap();
        assert!(c.is_alphabetic() && b.is_ascii_lowercase(), "{c}");
        for other in c.to_lowercase().chain(c.to_uppercase()) {
            if (0xC0..0x180).contains(&u32::from(other)) {
                assert_eq!(base(other), Some(u32::from(b)), "{c} and {other}");
            }
        }
    }
    assert_eq!(letters, 161);
    assert_eq!(letter_at("\u{d7}".as_bytes(), 0), None); // ×
    assert_eq!(letter_at("\u{142}".as_bytes(), 0), None); // ł
    assert_eq!(
        letter_at("\u{10d}".as_bytes(), 0),
        Some((2, u32::from(b'c')))
    ); // č
       // Greek, Cyrillic and Armenian: every letter, as its lower case; the two cases of a
       // letter alike; marks, numerals and punctuation of those blocks, and Hebrew, not letters.
    let mut letters = 0;
    for c in (0x340u32..0x5C0).filter_map(char::from_u32) {
        let Some(fold) = base(c) else {
            assert!(
                !c.is_alphabetic() || !(0x370..0x590).contains(&u32::from(c)),
                "{c}"
            );
            continue;
        };
        letters += 1;
        assert!(
            c.is_alphabetic() && (0x370..0x590).contains(&u32::from(c)),
            "{c}"
        );
        let lower: Vec<char> = c.to_lowercase().collect();
        let expected = if lower.len() == 1 { lower[0] } else { c };
        assert_eq!(fold, u32::from(expected), "{c}");
        // A letter and its lower case read alike (`Σ` and `σ`; not `ς`, whose upper case
        // `Σ` lowers to `σ`).
        if let [l] = lower[..] {
            assert_eq!(base(l), Some(fold), "{c} and {l}");
        }
    }
    assert!(letters > 400, "{letters}");
    assert_eq!(letter_at("\u{5d0}".as_bytes(), 0), None); // Hebrew alef
    assert_eq!(letter_at("\u{345}".as_bytes(), 0), None); // a combining mark
    assert_eq!(letter_at(&[0xD0], 0), None); // cut short
    assert_eq!(letter_at(&[0xD0, 0x41], 0), None); // not a continuation byte
}

#[test]
fn case_in_other_scripts() {
    assert_eq!(
        found(&["USER#анна", "USER#Яна"]),
        [pair(
            Problem::Case,
            1,
            ["USER#Яна", "USER#анна"],
            2,
            "'Я' sorts before 'а'"
        )]
    );
    assert_eq!(
        found(&[
            "\u{3ac}\u{3bb}\u{3c6}\u{3b1}",
            "\u{3a9}\u{3bc}\u{3ad}\u{3b3}\u{3b1}"
        ])[0]
            .0,
        Problem::Case
    ); // άλφα, Ωμέγα
    assert_eq!(found(&["\u{561}", "\u{532}"])[0].0, Problem::Case); // ա, Բ
                                                                    // One case is clean, and accents stay: `ё` sorts after `я`, as its bytes do.
    assert!(lint(&["анна", "борис", "ёлка", "яна"]).is_clean());
    assert!(lint(&["ВЕРА", "ГЛЕБ", "ЯНА"]).is_clean());
    // Against punctuation that sorts below them as bytes: not a case problem.
    assert_eq!(lint(&["Яна", "~a"]).unjudged, 1);
}

#[test]
fn mixed_kinds_are_not_judged() {
    // A number against an identifier: counted, not reported.
    let report = lint(&["x#99999999", "x#0abcdef0"]);
    assert_eq!((report.out_of_order, report.unjudged), (1, 1));
    assert!(report.is_clean());
}

#[test]
fn empty_input_and_duplicates() {
    let none: [&str; 0] = [];
    assert_eq!(
        lint(&none),
        Report {
            keys: 0,
            out_of_order: 0,
            unjudged: 0,
            findings: vec![]
        }
    );
    assert!(lint(&["a#1", "a#1", "A#1", "a#01"]).is_clean());
}

/// Keys from a small alphabet that hits every token kind and boundary.
fn tricky_key() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop::sample::select(
        b"0019aAzZ_-. #/:|~\x00\x7f\xc3\xa9\x89\x97\x9f\xbf\xd0\xd1\xaf\xb0".to_vec(),
    );
    prop::collection::vec(byte, 0..12)
}

/// Short keys from fewer bytes, so that tokens of every kind meet at the same place.
fn short_key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(b"019aZ-.#".to_vec()), 0..5)
}

fn cases<T: std::fmt::Debug>(
    size: std::ops::Range<usize>,
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(s, size)
}

/// Every pair problem's keys as the finding names them: first as bytes, then the one it
/// should follow.
fn assert_examples_inverted<K: AsRef<[u8]>>(keys: &[K], report: &Report) {
    let lint = Lint::new();
    for f in report.findings.iter().filter(|f| f.problem.is_pair()) {
        let (first, second) = (keys[f.keys[0]].as_ref(), keys[f.keys[1]].as_ref());
        assert!(first < second, "example is not in byte order");
        assert_eq!(
            lint.meant_cmp(first, second),
            Ordering::Greater,
            "example is not out of meant order"
        );
    }
}

/// A timestamp in one of the forms the lint reads, with the instant it names: UTC seconds
/// and fraction digits without trailing zeros. Made from the instant, the offset and the
/// form, so the instant is known without parsing.
fn stamp() -> impl Strategy<Value = (String, i64, String)> {
    (
        // Years 0035 to 2096, 1970 to 2096, and seconds around 1970 and 2000.
        prop_oneof![
            -62_000_000_000i64..4_000_000_000,
            0i64..4_000_000_000,
            -10i64..10,
            946_684_790i64..946_684_810,
        ],
        "[0-9]{0,4}",
        -(23 * 60 + 59)..=(23 * 60 + 59i64),
        0..3usize,
        0..3usize,
        any::<bool>(),
    )
        .prop_map(|(secs, frac, offset_minutes, t, zone, minutes_only)| {
            // Whole hours may use the short forms; other offsets need their minutes.
            let offset_minutes = if zone == 2 {
                offset_minutes / 60 * 60
            } else {
                offset_minutes
            };
            let local = secs + offset_minutes * 60;
            let (y, mo, d) = crate::time::civil::civil_from_days(local.div_euclid(86_400));
            let s = local.rem_euclid(86_400);
            let (h, mi, sec) = (s / 3600, s / 60 % 60, s % 60);
            let t = [b'T', b' ', b't'][t] as char;
            let mut text = format!("{y:04}-{mo:02}-{d:02}{t}{h:02}:{mi:02}");
            if !(minutes_only && sec == 0 && frac.is_empty()) {
                text.push_str(&format!(":{sec:02}"));
                if !frac.is_empty() {
                    text.push_str(&format!(".{frac}"));
                }
            }
            let (sign, m) = (
                if offset_minutes < 0 { '-' } else { '+' },
                offset_minutes.abs(),
            );
            match zone {
                _ if offset_minutes == 0 && t == 'T' => text.push('Z'),
                _ if offset_minutes == 0 && t == 't' => text.push('z'),
                0 => text.push_str(&format!("{sign}{:02}:{:02}", m / 60, m % 60)),
                1 => text.push_str(&format!("{sign}{:02}{:02}", m / 60, m % 60)),
                _ => text.push_str(&format!("{sign}{:02}", m / 60)),
            }
            let frac = frac.trim_end_matches('0').to_owned();
            (text, secs, frac)
        })
}

/// A timestamp without an offset, as [`stamp`] makes them but with `T`, `t` or a space and
/// the hour padded or not: the text, its seconds as if in UTC, and its fraction digits.
fn local_stamp() -> impl Strategy<Value = (String, i64, String)> {
    (
        prop_oneof![
            -62_000_000_000i64..4_000_000_000,
            946_684_790i64..946_684_810
        ],
        "[0-9]{0,3}",
        0..3usize,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(secs, frac, t, padded, minutes_only)| {
            let (y, mo, d) = crate::time::civil::civil_from_days(secs.div_euclid(86_400));
            let s = secs.rem_euclid(86_400);
            let (h, mi, sec) = (s / 3600, s / 60 % 60, s % 60);
            let t = [b'T', b' ', b't'][t] as char;
            let mut text = if padded {
                format!("{y:04}-{mo:02}-{d:02}{t}{h:02}:{mi:02}")
            } else {
                format!("{y:04}-{mo:02}-{d:02}{t}{h}:{mi:02}")
            };
            if !(minutes_only && sec == 0 && frac.is_empty()) {
                text.push_str(&format!(":{sec:02}"));
                if !frac.is_empty() {
                    text.push_str(&format!(".{frac}"));
                }
            }
            let frac = frac.trim_end_matches('0').to_owned();
            (text, secs, frac)
        })
}

/// Keys `E#<text>` of timestamps made from (text, seconds, fraction digits): the meant order
/// is the time's (ties by bytes), the sort key agrees, and every out-of-order pair is a
/// timestamp problem.
fn check_against_oracle(stamps: &[(String, i64, String)]) -> Result<(), TestCaseError> {
    let lint = Lint::new();
    let keys: Vec<String> = stamps
        .iter()
        .map(|(text, _, _)| format!("E#{text}"))
        .collect();
    for (i, a) in stamps.iter().enumerate() {
        for (j, b) in stamps.iter().enumerate() {
            let (ka, kb) = (keys[i].as_bytes(), keys[j].as_bytes());
            let expected = (a.1, &a.2).cmp(&(b.1, &b.2)).then(ka.cmp(kb));
            prop_assert_eq!(
                lint.meant_cmp(ka, kb),
                expected,
                "{} {}",
                &keys[i],
                &keys[j]
            );
            prop_assert_eq!(lint.sort_key(ka).cmp(&lint.sort_key(kb)), expected);
        }
    }
    let report = lint.run(&keys);
    let count = report
        .findings
        .iter()
        .find(|f| f.problem == Problem::Timestamp)
        .map_or(0, |f| f.count);
    prop_assert_eq!(count, report.out_of_order);
    prop_assert_eq!(
        report
            .findings
            .iter()
            .filter(|f| f.problem.is_pair())
            .count(),
        usize::from(count > 0)
    );
    assert_examples_inverted(&keys, &report);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Timestamps without an offset in every form the lint reads, against the times they
    /// were made from: as [`timestamps_against_an_oracle`], for the date and time written.
    #[test]
    fn local_timestamps_against_an_oracle(stamps in cases(0..25, local_stamp())) {
        check_against_oracle(&stamps)?;
    }

    /// The meant order is a total order (sorting by it cannot fail), equal only for equal keys.
    #[test]
    fn meant_order_is_total(a in tricky_key(), b in tricky_key(), c in tricky_key()) {
        let lint = Lint::new();
        let ab = lint.meant_cmp(&a, &b);
        prop_assert_eq!(ab, lint.meant_cmp(&b, &a).reverse());
        prop_assert_eq!(ab == Ordering::Equal, a == b);
        let bc = lint.meant_cmp(&b, &c);
        if ab == bc && ab != Ordering::Equal {
            prop_assert_eq!(lint.meant_cmp(&a, &c), ab);
        }
    }

    /// Sorting by the meant order gives a sequence that is in order pair by pair (an order
    /// that is not total leaves some pair out of order, or makes the sort panic).
    #[test]
    fn meant_order_sorts_consistently(mut keys in cases(0..40, short_key())) {
        let lint = Lint::new();
        keys.sort_by(|a, b| lint.meant_cmp(a, b));
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                prop_assert_ne!(lint.meant_cmp(a, b), Ordering::Greater, "{:?} {:?}", a, b);
            }
        }
    }

    /// The sort key orders as the meant order, over every token kind and over any bytes,
    /// with the default separators and with others.
    #[test]
    fn sort_key_orders_as_meant(
        a in tricky_key(),
        b in tricky_key(),
        x in prop::collection::vec(any::<u8>(), 0..16),
        y in prop::collection::vec(any::<u8>(), 0..16),
    ) {
        for lint in [Lint::new(), Lint::new().separators(b" .-").unwrap(), Lint::new().separators(b"").unwrap()] {
            for (p, q) in [(&a, &b), (&x, &y), (&a, &x)] {
                prop_assert_eq!(lint.sort_key(p).cmp(&lint.sort_key(q)), lint.meant_cmp(p, q), "{:?} {:?}", p, q);
            }
        }
    }

    /// Sorting by sort keys gives the order a stable sort by `meant_cmp` gives.
    #[test]
    fn sort_key_sorts_as_meant_cmp(keys in cases(0..40, short_key())) {
        let lint = Lint::new();
        let mut by_cmp = keys.clone();
        by_cmp.sort_by(|a, b| lint.meant_cmp(a, b));
        let mut by_key = keys;
        by_key.sort_by_cached_key(|k| lint.sort_key(k));
        prop_assert_eq!(by_key, by_cmp);
    }

    /// Arbitrary keys: no panic, every out-of-order pair is either a problem or unjudged,
    /// and every example pair really is out of order.
    #[test]
    fn counts_add_up(keys in cases(0..40, tricky_key())) {
        let report = Lint::new().run(&keys);
        let pairs: usize = report.findings.iter().filter(|f| f.problem.is_pair()).map(|f| f.count).sum();
        prop_assert_eq!(pairs + report.unjudged, report.out_of_order);
        assert_examples_inverted(&keys, &report);
    }

    #[test]
    fn arbitrary_bytes(keys in cases(0..20, prop::collection::vec(any::<u8>(), 0..20))) {
        let report = Lint::new().run(&keys);
        assert_examples_inverted(&keys, &report);
    }

    /// Timestamps in every form the lint reads, against the instants they were made from:
    /// the meant order is the instant's (ties by bytes), the sort key agrees, and every
    /// out-of-order pair is a timestamp problem.
    #[test]
    fn timestamps_against_an_oracle(stamps in cases(0..25, stamp())) {
        check_against_oracle(&stamps)?;
    }

    /// Timestamps and dates with one byte changed (near misses of every part of their
    /// forms), among others: the meant order stays total and the sort key agrees with it.
    #[test]
    fn near_timestamps_order_totally(
        keys in cases(2..12, (prop_oneof![stamp().prop_map(|s| s.0), local_stamp().prop_map(|s| s.0), "[0-3]?[0-9][-/.][01]?[0-9][-/.][0-9]{4}"], any::<prop::sample::Index>(), prop::sample::select(b"01239Zz+-:.,T #/".to_vec()))
            .prop_map(|(text, at, byte)| {
                let mut k = format!("E#{text}#x").into_bytes();
                let at = 2 + at.index(k.len() - 2);
                k[at] = byte;
                k
            })),
    ) {
        let lint = Lint::new();
        for a in &keys {
            for b in &keys {
                let ab = lint.meant_cmp(a, b);
                prop_assert_eq!(ab, lint.meant_cmp(b, a).reverse());
                prop_assert_eq!(ab == Ordering::Equal, a == b);
                prop_assert_eq!(lint.sort_key(a).cmp(&lint.sort_key(b)), ab);
                for c in &keys {
                    if ab == lint.meant_cmp(b, c) && ab != Ordering::Equal {
                        prop_assert_eq!(lint.meant_cmp(a, c), ab);
                    }
                }
            }
        }
        assert_examples_inverted(&keys, &lint.run(&keys));
    }

    /// Dates with the year last, in one convention and mark per case, padded or not:
    /// the meant order is the date's, the sort key agrees, and every out-of-order pair is a
    /// date-order problem.
    #[test]
    fn dates_against_an_oracle(
        days in cases(0..25, -20_000i64..40_000),
        day_first in any::<bool>(),
        mark in prop::sample::select(vec!['-', '/', '.']),
        padded in prop::collection::vec(any::<bool>(), 25),
    ) {
        let lint = Lint::new();
        let dates: Vec<(i64, String)> = days.iter().zip(&padded).map(|(&d, &pad)| {
            let (y, m, d2) = crate::time::civil::civil_from_days(d);
            let (p, q) = if day_first { (d2, m) } else { (m, d2) };
            let text = if pad { format!("{p:02}{mark}{q:02}{mark}{y:04}") } else { format!("{p}{mark}{q}{mark}{y:04}") };
            ((y * 100 + i64::from(p)) * 100 + i64::from(q), format!("D#{text}#x"))
        }).collect();
        for (va, a) in &dates {
            for (vb, b) in &dates {
                let expected = va.cmp(vb).then(a.cmp(b));
                prop_assert_eq!(lint.meant_cmp(a.as_bytes(), b.as_bytes()), expected, "{} {}", a, b);
                prop_assert_eq!(lint.sort_key(a.as_bytes()).cmp(&lint.sort_key(b.as_bytes())), expected);
            }
        }
        let keys: Vec<&str> = dates.iter().map(|(_, k)| k.as_str()).collect();
        let report = lint.run(&keys);
        let count = report.findings.iter().find(|f| f.problem == Problem::DateOrder).map_or(0, |f| f.count);
        prop_assert_eq!(count, report.out_of_order);
        assert_examples_inverted(&keys, &report);
    }

    /// Unpadded numbers: a problem exactly when some neighbours (by value) are out of byte
    /// order, counted once per such pair, put down to width or sign.
    #[test]
    fn numbers_against_an_oracle(mut ns in cases(0..30, prop_oneof![-1000i64..1000, any::<i32>().prop_map(i64::from)])) {
        // Negative numbers shaped like int_key output are not judged (see above).
        ns.retain(|n| !is_negative_strkey(n.to_string().as_bytes()));
        ns.sort();
        ns.dedup();
        let keys: Vec<String> = ns.iter().map(|n| format!("N#{n}")).collect();
        let report = Lint::new().run(&keys);
        let (mut width, mut negative) = (0, 0);
        for w in ns.windows(2) {
            if w[0].to_string() > w[1].to_string() {
                if w[0] < 0 || w[1] < 0 { negative += 1 } else { width += 1 }
            }
        }
        let count = |p| report.findings.iter().find(|f| f.problem == p).map_or(0, |f| f.count);
        prop_assert_eq!(count(Problem::NumberWidth), width);
        prop_assert_eq!(count(Problem::NegativeNumber), negative);
        prop_assert_eq!(report.unjudged, 0);
        prop_assert_eq!(report.findings.len(), usize::from(width > 0) + usize::from(negative > 0));
    }

    /// Case: words in mixed case are a problem exactly when case-blind and byte order differ.
    #[test]
    fn case_against_an_oracle(words in cases(0..20, "[a-cA-C]{1,4}")) {
        let report = Lint::new().run(&words);
        let mut sorted = words.clone();
        sorted.sort_by(|a, b| a.to_lowercase().cmp(&b.to_lowercase()).then(a.cmp(b)));
        let inverted = sorted.windows(2).filter(|w| w[0] > w[1]).count();
        let count = report.findings.iter().find(|f| f.problem == Problem::Case).map_or(0, |f| f.count);
        prop_assert_eq!(count, inverted);
        prop_assert_eq!(report.out_of_order, inverted);
    }

    /// Case in Cyrillic and Greek, next to Latin: words are out of order exactly when their
    /// order letter by letter in lower case (`Σ` as `σ`, also at the end of a word) and
    /// their byte order differ, and every such pair is a case problem.
    #[test]
    fn other_scripts_against_an_oracle(words in cases(0..20, "[aZаяАЯёЁбБαΩωΣσς]{1,4}")) {
        let report = Lint::new().run(&words);
        let lower = |w: &str| -> String { w.chars().flat_map(char::to_lowercase).collect() };
        let mut sorted = words.clone();
        sorted.sort_by(|a, b| lower(a).cmp(&lower(b)).then(a.cmp(b)));
        let inverted = sorted.windows(2).filter(|w| w[0] > w[1]).count();
        let count = report.findings.iter().find(|f| f.problem == Problem::Case).map_or(0, |f| f.count);
        prop_assert_eq!(count, inverted);
        prop_assert_eq!(report.out_of_order, inverted);
    }

    /// Accents and case: words of plain and accented letters are out of order exactly when
    /// their order without case or accents and their byte order differ, and every such pair
    /// is a case or accent problem.
    #[test]
    fn accents_against_an_oracle(words in cases(0..20, "[aceACEz\u{e9}\u{c9}\u{e8}\u{e0}\u{c0}\u{10c}\u{10d}]{1,4}")) {
        let report = Lint::new().run(&words);
        let base = |w: &str| -> String {
            w.chars()
                .map(|c| match c {
                    '\u{e9}' | '\u{c9}' | '\u{e8}' => 'e',
                    '\u{e0}' | '\u{c0}' => 'a',
                    '\u{10c}' | '\u{10d}' => 'c',
                    c => c.to_ascii_lowercase(),
                })
                .collect()
        };
        let mut sorted = words.clone();
        sorted.sort_by(|a, b| base(a).cmp(&base(b)).then(a.cmp(b)));
        let inverted = sorted.windows(2).filter(|w| w[0] > w[1]).count();
        let count = |p: Problem| report.findings.iter().find(|f| f.problem == p).map_or(0, |f| f.count);
        prop_assert_eq!(count(Problem::Case) + count(Problem::Accent), inverted);
        prop_assert_eq!(report.out_of_order, inverted);
    }

    /// sortpath's own sortable string forms lint clean, and so do its IDs and UUIDs.
    #[test]
    fn sortable_forms_are_clean(
        ints in cases(0..30, any::<i64>()),
        small in cases(0..30, -2000i64..2000),
        decimals in cases(0..30, (-100_000i64..100_000, 0u32..4)),
        floats in cases(0..30, any::<f64>().prop_filter("finite", |f| f.is_finite())),
        counts in cases(0..30, 0u64..1_000_000),
        nanos in cases(0..30, -62_135_596_800_000_000_000i128..253_402_300_799_000_000_000),
        ids in cases(0..30, (0u64..(1 << 48), any::<u128>(), any::<[u8; 16]>())),
    ) {
        let mut keys: Vec<String> = Vec::new();
        keys.extend(ints.iter().chain(&small).map(|&n| format!("I#{}", int_key(n))));
        keys.extend(decimals.iter().map(|&(m, s)| {
            let text = format!("{}", m as f64 / 10f64.powi(s as i32));
            format!("D#{}", decimal_key(&text).unwrap())
        }));
        keys.extend(floats.iter().map(|&f| format!("F#{}", float_key(f).unwrap())));
        keys.extend(counts.iter().map(|&n| format!("P#{}#{}", padded(n, 6).unwrap(), inverted(n, 999_999).unwrap())));
        keys.extend(nanos.iter().map(|&n| {
            let t = Timestamp::from_unix_nanos(n).unwrap();
            format!("T#{}", iso8601_key(t, Precision::Millis).unwrap())
        }));
        keys.extend(ids.iter().map(|&(ms, r, p)| format!(
            "ID#{}#{}{}",
            Ulid::from_parts(ms, r >> 48).unwrap(),
            Ksuid::from_parts(ms as u32, p),
            uuid_field(r),
        )));
        let report = Lint::new().run(&keys);
        prop_assert!(report.is_clean(), "{:?}", report.findings.iter().map(|f| (f.problem, f.keys.iter().map(|&i| &keys[i]).collect::<Vec<_>>(), &f.detail)).collect::<Vec<_>>());
    }
}

/// Numbers around the sort key's one-byte length limit (254, 255 and 256 digits), both
/// signs, with and without fractions, order as meant.
#[test]
fn sort_key_long_numbers() {
    let lint = Lint::new();
    let mut keys: Vec<String> = Vec::new();
    for digits in [1, 2, 253, 254, 255, 256, 300] {
        for lead in ["1", "9"] {
            let n = format!("{lead}{}", "0".repeat(digits - 1));
            for frac in ["", ".5", ".05"] {
                keys.push(format!("k#{n}{frac}"));
                keys.push(format!("k#-{n}{frac}"));
                keys.push(format!("k#x{n}{frac}"));
            }
        }
    }
    for a in &keys {
        for b in &keys {
            assert_eq!(
                lint.sort_key(a.as_bytes())
                    .cmp(&lint.sort_key(b.as_bytes())),
                lint.meant_cmp(a.as_bytes(), b.as_bytes()),
                "{a} {b}"
            );
        }
    }
}

/// `#` and the UUID of `r` as text, with the `uuid` feature (nothing without it).
fn uuid_field(r: u128) -> String {
    #[cfg(feature = "uuid")]
    return format!("#{}", uuid::Uuid::from_u128(r));
    #[cfg(not(feature = "uuid"))]
    {
        let _ = r;
        String::new()
    }
}

/// Invoice due dates written M/D/YY (as in the DynamoDB labs' sample data): padded, they
/// read in order field by field, but sort across years wrongly.
#[test]
fn two_digit_years() {
    assert_eq!(
        found(&["INVOICE#12/30/17", "INVOICE#01/02/18"]),
        [pair(
            Problem::TwoDigitYear,
            1,
            ["INVOICE#01/02/18", "INVOICE#12/30/17"],
            2,
            "12/30/17 is in year 17, before 01/02/18 in year 18"
        )]
    );
    // Unpadded: the same kind, not number-width.
    assert_eq!(
        found(&["D#12/30/17", "D#1/2/18"])[0].0,
        Problem::TwoDigitYear
    );
    assert_eq!(
        found(&["D#2-5-18", "D#12-1-18"]),
        [pair(
            Problem::TwoDigitYear,
            1,
            ["D#12-1-18", "D#2-5-18"],
            2,
            "2-5-18 is before 12-1-18"
        )]
    );
    // Beside a four-digit year.
    assert_eq!(
        found(&["D#12/30/2017", "D#01/02/18"]),
        [pair(
            Problem::TwoDigitYear,
            1,
            ["D#01/02/18", "D#12/30/2017"],
            2,
            "01/02/18 has a two-digit year, 12/30/2017 four digits"
        )]
    );
    // The year compares first, as written; padded dates of one year are clean.
    let lint = Lint::new();
    assert_in_meant_order(
        &lint,
        &["12/31/1999", "02/29/00", "12/30/17", "01/02/18", "1/3/18"],
    );
    assert_eq!(lint.meant_cmp(b"12/30/17", b"01/02/18"), Ordering::Less);
    assert_eq!(lint.meant_cmp(b"12/31/2099", b"01/01/00"), Ordering::Less);
    assert!(lint
        .run(&["D#01/02/18", "D#03/04/18", "D#12/30/18"])
        .is_clean());
    let is_short_date = |field: &str| {
        matches!(
            lint.tokens(field.as_bytes()).next_token().tok,
            Tok::Date { short: true, .. }
        )
    };
    for field in ["12/30/17", "1-2-18", "30/12/17", "02/29/00"] {
        assert!(is_short_date(field), "{field}");
    }
    // Not: after `.` (a version), a year of one or three digits, no such date, more in the
    // field, a leap day outside a leap year.
    for field in [
        "1.2.18",
        "31.12.17",
        "12/30/1",
        "12/30/175",
        "13/13/17",
        "12/30/17x",
        "02/29/01",
    ] {
        assert!(!is_short_date(field), "{field}");
    }
}

/// Short random case-sensitive IDs are not words: their case is no problem.
#[test]
fn random_ids_compare_as_bytes() {
    let report = lint(&["S#Ab_9", "S#aB_1"]);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.out_of_order, 0);
    // One ID in a field makes its neighbours there IDs too, not words or numbers.
    let report = lint(&["S#aB_1", "S#zz_1", "S#Ab_10", "S#Ab_9"]);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.out_of_order, 0);
    // An ID alone is one: `x7kPq` against a word is not judged as case.
    assert!(lint(&["K#x7kPq", "K#x7kpq"]).is_clean());
    // Words stay words, also in a field of IDs and next to one.
    assert_eq!(
        found(&["U#aB_1", "U#Zoey", "U#alligator"]),
        [pair(
            Problem::Case,
            1,
            ["U#Zoey", "U#alligator"],
            2,
            "'Z' sorts before 'a'"
        )]
    );
    assert_eq!(
        found(&["U#aB_1#Zoey", "U#aB_1#alligator"])[0].0,
        Problem::Case
    );
    // Without an ID in the field, words with digits keep their numbers and their case.
    assert_eq!(found(&["P#post_9", "P#post_10"])[0].0, Problem::NumberWidth);
    assert_eq!(found(&["P#post_9", "P#Post_10"])[0].0, Problem::Case);
    assert_eq!(found(&["P#ab_9", "P#Ab_10"])[0].0, Problem::Case);
    // The ID field is by position: another field's words are not touched.
    assert_eq!(
        found(&["S#aB_1", "T#x#post_9", "T#x#post_10"])[0].0,
        Problem::NumberWidth
    );
}
