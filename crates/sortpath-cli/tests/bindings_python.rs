//! The Python package in `bindings/python` against this crate's `sortpath` binary.
//!
//! A virtualenv is made under `<workspace>/.interop/` (git-ignored), named by a hash of the
//! package's pinned development requirements and its `pyproject.toml`, with those
//! requirements and the package (editable, so the tests always run the current source)
//! installed, and reused while neither file changes. It is built in a temporary directory
//! and published with an atomic `rename`, so concurrent runs never see half of one. A
//! missing `python3` fails the test with what to install; nothing is skipped.
//!
//! Then: `mypy --strict` on the package, its `pytest` suite (golden vectors, property and
//! fuzz tests; "no tests collected" counts as a failure), and the cross-implementation
//! check: `bindings/python/tests/crosscheck.py` generates at least 100,000 trap-heavy paths
//! from a printed seed (set `SORTPATH_CROSS_SEED` to repeat one) and writes them, with what
//! the package computes for them (encodings in hex and base64, canonical text, key order,
//! group splits, ranges, error messages), and the binary is run once per mode on the batch.

mod bindings_setup;
mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

use bindings_setup::{describe, python, python_package_dir as package_dir, run_ok};
use common::run;

/// Paths the cross check generates (the bar is 100,000).
const CROSS_COUNT: usize = 100_000;

#[test]
fn python_package_passes_mypy_strict() {
    let output = Command::new(python())
        .args(["-m", "mypy", "--strict", "--cache-dir", ".mypy_cache"])
        .current_dir(package_dir())
        .output()
        .expect("run mypy");
    assert!(
        output.status.success(),
        "mypy --strict found problems in bindings/python: {}",
        describe(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Success: no issues found in"),
        "mypy said: {stdout}"
    );
}

#[test]
fn python_package_passes_its_tests() {
    let started = Instant::now();
    let output = Command::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(package_dir())
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Exit status 5 is "no tests collected": a failure here like any other non-zero one.
    assert!(
        output.status.code() == Some(0),
        "pytest in bindings/python did not pass (exit status 5 means no tests ran): {}",
        describe(&output)
    );
    let summary = stdout.lines().last().unwrap_or("");
    let passed: usize = summary
        .split_whitespace()
        .zip(summary.split_whitespace().skip(1))
        .find(|(_, word)| word.trim_end_matches(',') == "passed")
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0);
    assert!(
        passed >= 100 && !summary.contains("skipped") && !summary.contains("failed"),
        "expected 100 or more passing tests and none skipped, pytest said: {summary}"
    );
    eprintln!(
        "pytest: {summary} ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// Compares a run's stdout with the expected lines, naming the first differing record
/// and its input.
fn assert_same(mode: &str, input: &str, output: &Output, expected: &str) {
    assert!(
        output.status.success(),
        "sortpath {mode} failed on the batch: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got = String::from_utf8(output.stdout.clone()).expect("the binary prints UTF-8");
    if got == expected {
        return;
    }
    let inputs: Vec<&str> = input.lines().collect();
    let (got_lines, want_lines): (Vec<&str>, Vec<&str>) =
        (got.lines().collect(), expected.lines().collect());
    for (i, (g, w)) in got_lines.iter().zip(&want_lines).enumerate() {
        assert_eq!(
            g,
            w,
            "sortpath {mode} and the Python package differ at record {i} (input {:?}); \
             left: Rust, right: Python",
            inputs.get(i).copied().unwrap_or("")
        );
    }
    panic!(
        "sortpath {mode}: {} lines from Rust, {} from Python",
        got_lines.len(),
        want_lines.len()
    );
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
}

#[test]
fn python_and_rust_agree_on_generated_paths() {
    let seed: u64 = match std::env::var("SORTPATH_CROSS_SEED") {
        Ok(s) => s.parse().expect("SORTPATH_CROSS_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos())),
    };
    eprintln!("cross check seed {seed} (SORTPATH_CROSS_SEED={seed} repeats this run)");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let started = Instant::now();
    let count = CROSS_COUNT.to_string();
    let seed_arg = seed.to_string();
    let written = run_ok(
        Command::new(python())
            .arg(package_dir().join("tests").join("crosscheck.py"))
            .arg(dir.path())
            .args(["--seed", &seed_arg, "--count", &count]),
        "bindings/python/tests/crosscheck.py",
    );
    eprint!("{}", String::from_utf8_lossy(&written.stdout));
    let python_secs = started.elapsed().as_secs_f64();

    let paths = read(dir.path(), "paths.txt");
    assert!(
        paths.lines().count() >= CROSS_COUNT,
        "too few paths written"
    );
    let splits = read(dir.path(), "split.tsv").lines().count();
    assert!(splits >= CROSS_COUNT / 2, "too few group splits: {splits}");
    let ranges = read(dir.path(), "ranges.tsv").lines().count();
    assert!(ranges >= CROSS_COUNT, "too few ranges: {ranges}");

    // One run of the binary per mode, the whole batch on its stdin: (arguments, input
    // file, file of the package's answers).
    let modes: [(&[&str], &str, &str); 8] = [
        (&["encode"], "paths.txt", "encode.hex"),
        (&["encode", "--base64"], "paths.txt", "encode.b64"),
        (&["decode"], "encode.hex", "canonical.txt"),
        (&["decode", "--base64"], "encode.b64", "canonical.txt"),
        (&["sort"], "paths.txt", "sorted.txt"),
        (&["encode", "--split"], "split-paths.txt", "split.tsv"),
        (&["decode", "--split"], "split.tsv", "split-canonical.txt"),
        (&["range"], "ranges.tsv", "ranges-answer.tsv"),
    ];
    for (args, input, expected) in modes {
        let input = read(dir.path(), input);
        let output = run(args, input.as_bytes());
        assert_same(
            &args.join(" "),
            &input,
            &output,
            &read(dir.path(), expected),
        );
    }

    // Inputs that do not parse or decode: the same error, word for word (one run each,
    // since a batch stops at its first bad input).
    for (file, mode) in [("bad-text.tsv", "encode"), ("bad-hex.tsv", "decode")] {
        let cases = read(dir.path(), file);
        assert!(cases.lines().count() >= 100, "too few cases in {file}");
        for case in cases.lines() {
            let (input, error) = case.split_once('\t').expect("INPUT<TAB>ERROR");
            let output = run(&[mode], format!("{input}\n").as_bytes());
            assert_eq!(
                output.status.code(),
                Some(2),
                "sortpath {mode} of {input:?} should fail: {}",
                describe(&output)
            );
            let rust = String::from_utf8_lossy(&output.stderr);
            let python = format!("sortpath: line 1: {error}\n");
            if input.is_ascii() {
                assert_eq!(
                    rust, python,
                    "sortpath {mode} of {input:?}: left Rust's error, right Python's"
                );
            } else {
                // A message may quote the input, escaping what is not printable; what is
                // printable comes from each language's Unicode tables (Rust's
                // `char::escape_debug`, Python's `str.isprintable`), whose versions differ.
                // So here the message is compared up to the quote.
                let before_quote = |m: &str| m.split('"').next().unwrap_or("").to_owned();
                assert_eq!(
                    before_quote(&rust),
                    before_quote(&python),
                    "sortpath {mode} of {input:?}: left Rust's error, right Python's"
                );
            }
        }
    }
    eprintln!(
        "cross check: {} paths, Python {python_secs:.1} s, all ({:.1} s)",
        paths.lines().count(),
        started.elapsed().as_secs_f64()
    );
}
