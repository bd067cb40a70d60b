//! `sortpath db` on a store written by an earlier sortpath release (redb 2.6): a one-line
//! error with exit status 2 that says how to copy the data, and the store file unchanged.
//! The fixture is sortpath-store's `tests/fixtures/redb2-store/sortpath.redb`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::fails;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sortpath-store/tests/fixtures/redb2-store/sortpath.redb")
}

#[test]
fn get_on_an_old_store_says_how_to_copy_it_and_changes_nothing() {
    let original = std::fs::read(fixture()).expect("the fixture is readable");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sortpath.redb");
    std::fs::write(&file, &original).unwrap();

    for args in [
        &["get", "/x-1"][..],
        &["list", "/x-0"][..],
        &["put", "/x-9", "{}"][..],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_sortpath"))
            .args(["db", "--path", dir.path().to_str().unwrap()])
            .args(args)
            .output()
            .expect("the sortpath binary runs");
        fails(&o, 2, "earlier sortpath release");
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
    assert_eq!(names, ["sortpath.redb"], "files were added or removed");
}

/// A store created before the project was renamed holds `keypath.redb`: it is opened, read
/// and written where it is, and no new, empty `sortpath.redb` appears beside it to hide it.
#[test]
fn a_store_from_before_the_rename_is_opened_in_place() {
    use common::{db, ok};
    let dir = tempfile::tempdir().unwrap();
    ok(&db(dir.path(), &["put", "/a-1", r#"{"n": 1}"#]));
    std::fs::rename(
        dir.path().join("sortpath.redb"),
        dir.path().join("keypath.redb"),
    )
    .unwrap();
    let got = ok(&db(dir.path(), &["get", "/a-1"]));
    assert_eq!(got[0]["value"], serde_json::json!({"n": 1}), "{got:?}");
    ok(&db(dir.path(), &["put", "/a-2", r#"{"n": 2}"#]));
    let got = ok(&db(dir.path(), &["get", "/a-2"]));
    assert_eq!(got[0]["value"], serde_json::json!({"n": 2}), "{got:?}");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["keypath.redb"], "files were added or removed");
}
