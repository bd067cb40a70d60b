//! The public API of each publishable crate is the one recorded under `api/`.
//!
//! Each crate is documented as rustdoc JSON with every feature (a `cargo rustdoc` of its
//! own, in `<target>/api-snapshot`: the `cargo test` running this holds the lock of its
//! target directory), rendered, and compared line by line with `api/<crate>.txt`. With
//! `SORTPATH_BLESS_API=1` the files are written instead (docs/API.md).

use std::path::{Path, PathBuf};

use sortpath_api::{diff, load, render, rustdoc_json, to_text, BLESS_COMMAND, BLESS_VAR, CRATES};

fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `<target>/api-snapshot`, beside this test's own profile directory
/// (`<target>/<profile>/deps/snapshot-<hash>`), so a `CARGO_TARGET_DIR` is honoured.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(|| workspace().join("target"))
        .join("api-snapshot")
}

/// The header of each recorded file (lines starting with `#` are not compared).
fn header(package: &str) -> String {
    format!(
        "# The public API of {package} with all features, from its rustdoc JSON (format {}).\n\
         # Checked by crates/sortpath-api/tests/snapshot.rs; after a deliberate change, re-record with\n\
         #     {BLESS_COMMAND}\n",
        rustdoc_types::FORMAT_VERSION
    )
}

fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn public_api_matches_the_recorded_one() {
    let bless = std::env::var(BLESS_VAR).is_ok_and(|v| v == "1");
    let manifest = workspace().join("Cargo.toml");
    let target = target_dir();
    let mut failures = String::new();
    for package in CRATES {
        let json = rustdoc_json(&manifest, package, &["--all-features"], &target)
            .unwrap_or_else(|e| panic!("{e}"));
        let krate = load(&json).unwrap_or_else(|e| panic!("{e}"));
        let current = to_text(&render(&krate));
        let file = workspace().join("api").join(format!("{package}.txt"));
        if bless {
            std::fs::create_dir_all(workspace().join("api")).expect("create api/");
            std::fs::write(&file, format!("{}{current}", header(package)))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            eprintln!(
                "recorded {} ({} lines)",
                file.display(),
                current.lines().count()
            );
            continue;
        }
        let recorded = match std::fs::read_to_string(&file) {
            Ok(text) => without_comments(&text),
            Err(e) => {
                failures.push_str(&format!(
                    "\n{package}: expected its recorded API in {}, found none ({e})\n",
                    file.display()
                ));
                continue;
            }
        };
        if let Some(d) = diff(&recorded, &current) {
            failures.push_str(&format!(
                "\n{package}: the public API differs from api/{package}.txt \
                 (- recorded, + current):\n{d}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{failures}\nIf these changes are deliberate, re-record the API with\n    {BLESS_COMMAND}\n\
         and commit api/*.txt with them (docs/API.md)."
    );
}
