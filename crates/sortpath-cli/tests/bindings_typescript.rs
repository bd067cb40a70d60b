//! The TypeScript package (`bindings/typescript`): installs its dev dependencies (`npm ci`,
//! into its git-ignored `node_modules`), builds it, runs its tests (`npm test`), then checks
//! it against this binary on at least 100,000 random trap-heavy paths: identical bytes,
//! text, group splits, ranges and sort order; mutated texts and encodings that the package
//! accepts are accepted here with the same result, and rejected ones are rejected with the
//! same message. Needs Node.js 20+ and npm; fails without them.
//!
//! The seed changes with every run and is printed; `SORTPATH_CROSS_SEED=N` repeats a run.

mod bindings_setup;
mod common;

use std::fs;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use bindings_setup::{
    install_typescript_dev_dependencies as install_dev_dependencies, require_node,
    run_in_typescript_package as run_in_package,
};
use common::run;

const PATHS: usize = 100_000;

fn seed() -> u32 {
    match std::env::var("SORTPATH_CROSS_SEED") {
        Ok(s) => s.parse().expect("SORTPATH_CROSS_SEED is a number"),
        Err(_) => {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            (now.as_secs() as u32) ^ now.subsec_nanos()
        }
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(String::from)
        .collect()
}

/// Runs the binary once with `input` on stdin and checks it prints `want`, line for line.
fn check(seed: u32, args: &[&str], input: &[String], want: &[String]) {
    let stdin: String = input.iter().map(|l| format!("{l}\n")).collect();
    let o = run(args, stdin.as_bytes());
    assert!(
        o.status.success(),
        "seed {seed}: sortpath {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let got: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g == w,
            "seed {seed}: sortpath {args:?}, line {}: input {:?}\n  TypeScript: {w:?}\n  Rust:       {g:?}",
            i + 1,
            input.get(i)
        );
    }
    assert_eq!(
        got.len(),
        want.len(),
        "seed {seed}: sortpath {args:?}: line counts differ"
    );
}

#[test]
fn typescript_package_tests_and_cross_check() {
    require_node();
    install_dev_dependencies();
    run_in_package("npm", &["run", "build"]);
    run_in_package("npm", &["test"]);

    let seed = seed();
    println!("cross check seed {seed} (SORTPATH_CROSS_SEED={seed} repeats it)");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    run_in_package(
        "node",
        &[
            "dist-test/cross-gen.js",
            &seed.to_string(),
            &PATHS.to_string(),
            out.to_str().unwrap(),
        ],
    );
    let texts = read_lines(&out.join("texts.txt"));
    assert_eq!(texts.len(), PATHS);
    // The paths, then mutated texts and encodings that the package accepts.
    let encode_in = read_lines(&out.join("encode_in.txt"));
    let decode_in = read_lines(&out.join("decode_in.txt"));
    assert!(encode_in.len() > PATHS + 1000, "{} texts", encode_in.len());
    assert!(
        decode_in.len() > PATHS + 500,
        "{} encodings",
        decode_in.len()
    );
    check(
        seed,
        &["encode"],
        &encode_in,
        &read_lines(&out.join("encode_out.txt")),
    );
    check(
        seed,
        &["decode"],
        &decode_in,
        &read_lines(&out.join("decode_out.txt")),
    );

    let split_texts = read_lines(&out.join("split_texts.txt"));
    let split = read_lines(&out.join("split.txt"));
    assert!(
        split.len() > PATHS / 2,
        "only {} paths had a group key",
        split.len()
    );
    check(seed, &["encode", "--split"], &split_texts, &split);
    check(seed, &["decode", "--split"], &split, &split_texts);

    let ranges = read_lines(&out.join("ranges.txt"));
    assert_eq!(ranges.len(), PATHS);
    check(
        seed,
        &["range"],
        &ranges,
        &read_lines(&out.join("ranges_out.txt")),
    );
    for kind in ["subtree", "descendants", "children", "between", "paths"] {
        let n = ranges.iter().filter(|s| s.starts_with(kind)).count();
        assert!(n > PATHS / 10, "only {n} {kind} ranges");
    }

    check(
        seed,
        &["sort"],
        &texts,
        &read_lines(&out.join("sorted.txt")),
    );

    // Rejected inputs: the same message, at the same place.
    let errors = read_lines(&out.join("errors.txt"));
    assert!(errors.len() >= 100, "only {} rejected inputs", errors.len());
    for line in &errors {
        let mut fields = line.splitn(3, '\t');
        let (mode, input, message) = (
            fields.next().unwrap(),
            fields.next().unwrap(),
            fields.next().unwrap(),
        );
        let o = run(&[mode], format!("{input}\n").as_bytes());
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(2),
            "seed {seed}: {mode} {input:?}: {stderr}"
        );
        // The CLI adds a hint of its own after the decoder's message when the bytes are the
        // group key of one of the store's own records; the decoder's message must agree.
        let cli_message = stderr.trim_end();
        let cli_message = cli_message
            .strip_suffix(STORE_RECORD_HINT)
            .unwrap_or(cli_message);
        assert_eq!(
            cli_message,
            format!("sortpath: line 1: {message}"),
            "seed {seed}: {mode} {input:?}"
        );
    }
}

/// What `sortpath decode` adds to the decoder's message for the group key of a record the
/// store keeps for itself (crates/sortpath-cli/src/paths.rs).
const STORE_RECORD_HINT: &str = " (not a key path: the group key of a record the store keeps for \
                                 itself, which `sortpath inspect` describes)";
