//! A store written by an earlier sortpath release (redb 2.6, file format 2), which this
//! release's redb no longer reads: every way of opening it fails with
//! `OpenError::OldFormat`, whose message names the file and says how to copy the data, and
//! the file is left exactly as it was (nothing written, nothing deleted).
//!
//! The fixture is `tests/fixtures/redb2-store/sortpath.redb`; its README says how it was made.

#![cfg(feature = "redb")]

use std::path::{Path, PathBuf};

use sortpath_store::backend::redb::{OpenError, DATA_FILE_NAME};
use sortpath_store::Store;

/// The committed redb-2 store file.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/redb2-store")
        .join(DATA_FILE_NAME)
}

/// A temporary directory holding a copy of the fixture, and the fixture's bytes.
fn copy() -> (tempfile::TempDir, Vec<u8>) {
    let bytes = std::fs::read(fixture()).expect("the fixture is readable");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(DATA_FILE_NAME), &bytes).unwrap();
    (dir, bytes)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `result` is `OldFormat` for the store file in `dir`, and its message says what to do.
fn assert_old_format<T>(dir: &Path, result: Result<T, OpenError>, how: &str) {
    let file = dir.join(DATA_FILE_NAME);
    let e = match result {
        Ok(_) => panic!("{how}: an old-format store opened"),
        Err(e) => e,
    };
    let message = e.to_string();
    match &e {
        OpenError::OldFormat { path, format } => {
            assert_eq!(path, &file, "{how}: {message}");
            assert_eq!(
                *format, 2,
                "{how}: redb 2.x writes file format 2: {message}"
            );
        }
        other => panic!("{how}: expected OldFormat, got {other:?}: {message}"),
    }
    assert!(
        message.contains(&file.display().to_string()),
        "{how}: the message names the file: {message}"
    );
    for needle in [
        "earlier sortpath release",
        "export",
        "import",
        "nothing was changed",
    ] {
        assert!(message.contains(needle), "{how}: {needle:?} in {message}");
    }
    assert_eq!(message.lines().count(), 1, "{how}: {message}");
}

#[test]
fn the_fixture_is_a_redb_2_file() {
    let bytes = std::fs::read(fixture()).expect("the fixture is readable");
    // redb's magic number.
    assert_eq!(&bytes[..9], b"redb\x1A\x0A\xA9\x0D\x0A", "redb magic");
}

#[tokio::test]
async fn every_open_fails_with_old_format_and_changes_nothing() {
    let (dir, original) = copy();
    let before = names(dir.path());

    assert_old_format(dir.path(), Store::create(dir.path()).await, "open");
    assert_old_format(dir.path(), Store::open(dir.path()).await, "open_existing");
    assert_old_format(
        dir.path(),
        Store::open_read_only(dir.path()).await,
        "open_read_only",
    );
    // A second round: the first changed nothing that makes a later open behave otherwise.
    assert_old_format(dir.path(), Store::create(dir.path()).await, "open again");

    let after =
        std::fs::read(dir.path().join(DATA_FILE_NAME)).expect("the store file is still there");
    assert!(after == original, "the store file's bytes changed");
    assert_eq!(names(dir.path()), before, "files were added or removed");
    // The committed fixture itself is untouched as well.
    assert!(std::fs::read(fixture()).unwrap() == original);
}
