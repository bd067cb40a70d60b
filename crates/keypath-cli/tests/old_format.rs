//! `keypath db` on a store written by an earlier keypath release (redb 2.6): a one-line
//! error with exit status 2 that says how to copy the data, and the store file unchanged.
//! The fixture is keypath-store's `tests/fixtures/redb2-store/keypath.redb`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::fails;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../keypath-store/tests/fixtures/redb2-store/keypath.redb")
}

#[test]
fn get_on_an_old_store_says_how_to_copy_it_and_changes_nothing() {
    let original = std::fs::read(fixture()).expect("the fixture is readable");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keypath.redb");
    std::fs::write(&file, &original).unwrap();

    for args in [
        &["get", "/x-1"][..],
        &["list", "/x-0"][..],
        &["put", "/x-9", "{}"][..],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_keypath"))
            .args(["db", "--path", dir.path().to_str().unwrap()])
            .args(args)
            .output()
            .expect("the keypath binary runs");
        fails(&o, 2, "earlier keypath release");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&file.display().to_string()), "{args:?}: {err}");
        assert!(
            err.contains("export") && err.contains("import"),
            "{args:?}: {err}"
        );
        assert!(
            o.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(
            std::fs::read(&file).unwrap() == original,
            "{args:?}: the store file changed"
        );
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["keypath.redb"], "files were added or removed");
}
