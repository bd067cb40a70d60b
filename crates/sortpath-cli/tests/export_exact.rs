//! `sortpath db export` then `import` gives back every item as it was stored, byte for byte:
//! its value, its item type and its version, also where JSON has no exact form for the value
//! (a 32-bit float, a byte string, a map key that is not a string, NaN, field names out of
//! alphabetical order, nesting deeper than `put` takes).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sortpath::{path::PathError, KeyPath};
use sortpath_store::blocking::Store;
use sortpath_store::{Item, PutMode};

use common::{db, ok};

/// A byte string, written as MessagePack `bin` (JSON would make it a list of numbers).
#[derive(Debug, PartialEq)]
struct Blob(Vec<u8>);

impl Serialize for Blob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Blob, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Blob;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// Stored compact (its fields as a list), under a type name that is not its namespace.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Reading {
    id: u64,
    celsius: f32,
    nan: f64,
    raw: Blob,
    by_hour: BTreeMap<u8, String>,
}

impl Item for Reading {
    const TYPE: &'static str = "SensorReading";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("sensor", 1u64)?
            .push("reading", self.id)
    }
}

/// Stored with its field names, which are not in alphabetical order.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Note {
    id: u64,
    zeta: String,
    alpha: i64,
}

impl Item for Note {
    const TYPE: &'static str = "note";
    const SELF_DESCRIBING: bool = true;
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("note", self.id)
    }
}

fn deep(levels: usize) -> Value {
    (0..levels).fold(Value::from("leaf"), |v, _| Value::Array(vec![v]))
}

/// Every item of the store at `dir`: key, type, version, payload.
fn records(dir: &Path, keys: &[KeyPath]) -> Vec<(String, String, u64, Vec<u8>)> {
    let store = Store::open(dir).unwrap();
    keys.iter()
        .map(|k| {
            let raw = store.get_raw(k).unwrap().expect("the item is there");
            (
                k.to_string(),
                raw.item_type().to_owned(),
                raw.version(),
                raw.payload().to_vec(),
            )
        })
        .collect()
}

#[test]
fn export_and_import_keep_every_item_byte_for_byte() {
    let src = tempfile::tempdir().unwrap();
    let dst = tempfile::tempdir().unwrap();
    let reading = Reading {
        id: 7,
        celsius: 21.3,
        nan: f64::NAN,
        raw: Blob(vec![0, 1, 0xff]),
        by_hour: BTreeMap::from([(3, "low".to_owned()), (14, "high".to_owned())]),
    };
    let note = Note {
        id: 1,
        zeta: "last".into(),
        alpha: -5,
    };
    let deep_key: KeyPath = "/doc-1".parse().unwrap();
    {
        let store = Store::create(src.path()).unwrap();
        store.put(&reading).unwrap();
        store.put(&reading).unwrap(); // a second version
        store.put(&note).unwrap();
        store
            .put_raw(&deep_key, "doc", &deep(300), vec![], PutMode::Upsert)
            .unwrap();
    }
    // A value `put` wrote from JSON, which exports as JSON.
    ok(&db(
        src.path(),
        &["put", "/plain-1", r#"{"n": 1, "s": "x"}"#],
    ));
    let keys: Vec<KeyPath> = ["/sensor-1/reading-7", "/note-1", "/doc-1", "/plain-1"]
        .iter()
        .map(|k| k.parse().unwrap())
        .collect();

    let export = db(src.path(), &["export"]);
    assert!(export.status.success(), "{export:?}");
    let text = String::from_utf8(export.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    let line_of = |key: &str| {
        lines
            .iter()
            .find(|l| l.contains(&format!("\"key\":\"{key}\"")))
            .unwrap_or_else(|| panic!("no line for {key}: {text}"))
    };
    // Where JSON is exact the line stays readable; elsewhere it holds the stored bytes.
    assert!(line_of("/plain-1").contains(r#""value":{"n":1,"s":"x"}"#));
    for key in ["/sensor-1/reading-7", "/note-1", "/doc-1"] {
        assert!(line_of(key).contains("\"msgpack\":\""), "{}", line_of(key));
    }
    assert!(line_of("/sensor-1/reading-7").contains(r#""type":"SensorReading""#));
    assert!(!line_of("/plain-1").contains("\"type\""));

    let file = src.path().join("export.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    let imported = ok(&db(dst.path(), &["import", file.to_str().unwrap()]));
    assert_eq!(imported[0]["imported"], 4);
    assert_eq!(records(dst.path(), &keys), records(src.path(), &keys));
    // And the typed items read back as they were written.
    let store = Store::open(dst.path()).unwrap();
    let got = store.get::<Reading>(&keys[0]).unwrap().unwrap();
    assert!(got.item.nan.is_nan());
    assert_eq!(
        (got.item.celsius, &got.item.raw, &got.item.by_hour),
        (reading.celsius, &reading.raw, &reading.by_hour)
    );
    assert_eq!(store.get::<Note>(&keys[1]).unwrap().unwrap().item, note);
    drop(store);
    // Exported again, the same item lines; the configuration line lists the same item types
    // (in the order the import first wrote them).
    let again = String::from_utf8(db(dst.path(), &["export"]).stdout).unwrap();
    let again: Vec<&str> = again.lines().collect();
    assert_eq!(again[1..], lines[1..]);
    let types = |line: &str| {
        let config: Value = serde_json::from_str(line).unwrap();
        let mut types: Vec<String> = config["config"]["types"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        types.sort();
        types
    };
    assert_eq!(types(again[0]), types(lines[0]));
    assert_eq!(types(lines[0]), ["SensorReading", "doc", "note", "plain"]);
}

#[test]
fn bad_msgpack_lines_are_refused_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    for (line, needle) in [
        (
            r#"{"key": "/a-1", "msgpack": "not base64!"}"#,
            "line 1: msgpack: not base64",
        ),
        // 0x92 opens a list of two values; one follows.
        (
            r#"{"key": "/a-1", "msgpack": "kgE="}"#,
            "is not MessagePack",
        ),
        (
            r#"{"key": "/a-1", "msgpack": "AQ==", "value": 1}"#,
            "expected {\"key\"",
        ),
        (
            r#"{"key": "/a-1", "value": 1, "type": 5}"#,
            "type 5: expected a string",
        ),
    ] {
        std::fs::write(&file, format!("{line}\n")).unwrap();
        let out = db(
            &dir.path().join("store"),
            &["import", file.to_str().unwrap()],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{line}: {err}");
        assert!(err.contains(needle), "{line}: {err}");
        // Refused before anything was made.
        assert!(!dir.path().join("store").exists(), "{line}");
    }
}

/// An export whose reader goes away (a pipe into a consumer that died) is not a success: it
/// exits 1 saying the export is incomplete, where other commands take a closed pipe as a
/// reader that had enough.
#[test]
fn an_export_cut_short_by_its_reader_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("many.jsonl");
    let pad = "p".repeat(500);
    let lines: String = (0..4000)
        .map(|i| {
            format!(
                "{{\"key\": \"/g-{}/i-{i}\", \"value\": \"{pad}\"}}\n",
                i % 7
            )
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    let store = dir.path().join("store");
    let imported = ok(&db(&store, &["import", file.to_str().unwrap()]));
    assert_eq!(imported[0]["imported"], 4000);
    // About 2 MB of lines into a pipe whose reader is gone before the first one.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sortpath"))
        .args(["db", "--path", store.to_str().unwrap(), "export"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the export is incomplete"), "{err}");
    // Read whole, the same store exports every item.
    let whole = db(&store, &["export"]);
    assert!(whole.status.success());
    assert_eq!(String::from_utf8_lossy(&whole.stdout).lines().count(), 4001);
}
