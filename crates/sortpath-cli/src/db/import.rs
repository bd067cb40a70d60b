//! `import`: JSON lines into a store.

use std::fs;
use std::io::{BufRead, Read, Write};
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use sortpath::KeyPath;
use sortpath_store::backend::Backend;
use sortpath_store::{PutMode, StoreConfig};

use super::config::Config;
use super::failure::{bad, failure_text};
use super::open::Db;
use crate::json;
use crate::progress::Progress;
use crate::Failure;

/// Longest import line read, in bytes: ample for an item at the store's value limit
/// (400 KB) written as JSON, and a bound on the memory a line takes.
pub(crate) const MAX_IMPORT_LINE: usize = 8 << 20;

/// One line of an import file.
#[derive(Clone)]
pub(crate) enum ImportLine {
    /// The end of the file.
    End,
    /// A line of only white space.
    Blank,
    /// `{"config": ...}`, as `export` writes first.
    Config(Config),
    /// `{"key": ..., "value": ...}`.
    Item(ImportItem),
}

/// An item line of an import file.
#[derive(Clone)]
pub(crate) struct ImportItem {
    pub(super) key: String,
    pub(super) value: ImportValue,
    /// The item type the line gives (`"type"`); without one, the key's last namespace.
    pub(super) item_type: Option<String>,
    /// The version the export gave, kept for an item the import creates.
    pub(super) version: Option<u64>,
}

/// An item's value on an import line.
#[derive(Clone)]
pub(crate) enum ImportValue {
    /// `"value"`: JSON text, stored as `put` stores it.
    Json(String),
    /// `"msgpack"`: the stored bytes (base64 on the line), which `export` writes for a value
    /// its JSON would not give back exactly; stored byte for byte.
    MsgPack(Vec<u8>),
}

/// Reads import lines, each at most [`MAX_IMPORT_LINE`] bytes, counting them.
pub(crate) struct ImportReader<R> {
    reader: R,
    name: String,
    line: Vec<u8>,
    number: u64,
}

impl<R: BufRead> ImportReader<R> {
    /// The next line, and the bytes read for it; errors say which line and what is wrong
    /// (without the items count, which the caller adds).
    fn next(&mut self) -> Result<(ImportLine, u64), String> {
        self.line.clear();
        let read = (&mut self.reader)
            .take(MAX_IMPORT_LINE as u64 + 1)
            .read_until(b'\n', &mut self.line)
            .map_err(|e| format!("line {}: {e}", self.number + 1))?;
        if read == 0 {
            return Ok((ImportLine::End, 0));
        }
        self.number += 1;
        let ended = self.line.last() == Some(&b'\n');
        if !ended && self.line.len() > MAX_IMPORT_LINE {
            return Err(format!(
                "line {}: longer than {MAX_IMPORT_LINE} bytes",
                self.number
            ));
        }
        let text = std::str::from_utf8(&self.line)
            .map_err(|e| format!("line {}: not UTF-8: {e}", self.number))?;
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return Ok((ImportLine::Blank, read as u64));
        }
        let at = |e: String| format!("line {}: {e}", self.number);
        // The record holds the value one level down.
        let record = json::parse_nested(text, json::MAX_VALUE_DEPTH + 1).map_err(at)?;
        let shape = || {
            at(
                "expected {\"key\": \"<key path>\", \"value\": <item>} (or \"msgpack\": \
                \"<base64>\" in place of \"value\")"
                    .into(),
            )
        };
        if let (Some(config), 1) = (
            record.get("config"),
            record.as_object().map_or(0, |o| o.len()),
        ) {
            let bytes = serde_json::to_vec(config).map_err(|e| at(e.to_string()))?;
            let store = StoreConfig::from_json(&bytes).map_err(|e| at(e.to_string()))?;
            let config = Config::from_store(store).map_err(|e| at(failure_text(e)))?;
            return Ok((ImportLine::Config(config), read as u64));
        }
        let Some(Value::String(key)) = record.get("key") else {
            return Err(shape());
        };
        let value = match (record.get("value"), record.get("msgpack")) {
            (Some(value), None) => ImportValue::Json(value.to_string()),
            (None, Some(Value::String(base64))) => ImportValue::MsgPack(
                STANDARD
                    .decode(base64)
                    .map_err(|e| at(format!("msgpack: not base64: {e}")))?,
            ),
            _ => return Err(shape()),
        };
        let item_type = match record.get("type") {
            None => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(other) => return Err(at(format!("type {other}: expected a string"))),
        };
        let version = match record.get("version") {
            None => None,
            Some(v) => match v.as_u64().filter(|v| (1..1 << 52).contains(v)) {
                Some(v) => Some(v),
                None => return Err(at(format!("version {v}: expected 1 to 2^52 - 1"))),
            },
        };
        Ok((
            ImportLine::Item(ImportItem {
                key: key.clone(),
                value,
                item_type,
                version,
            }),
            read as u64,
        ))
    }
}

pub(super) fn import_reader(
    file: &Path,
) -> Result<(ImportReader<std::io::BufReader<fs::File>>, u64), Failure> {
    let name = file.display().to_string();
    let handle = fs::File::open(file).map_err(|e| bad(format!("{name}: {e}")))?;
    let size = handle.metadata().map(|m| m.len()).unwrap_or(0);
    let reader = ImportReader {
        reader: std::io::BufReader::new(handle),
        name,
        line: Vec::new(),
        number: 0,
    };
    Ok((reader, size))
}

/// What an import into a new store starts with: its configuration line (if any) and its
/// first item (with its line number), and every line read to find them (each with the
/// bytes it took and its number), which the import then takes before reading on: the file
/// is read once, so a pipe works too.
pub(crate) struct FirstRecords {
    pub(crate) config: Option<Config>,
    pub(crate) item: Option<(ImportItem, u64)>,
    pub(super) pending: Vec<(ImportLine, u64, u64)>,
}

/// Reads an import up to its first item.
pub(super) fn first_import_records<R: BufRead>(
    reader: &mut ImportReader<R>,
) -> Result<FirstRecords, Failure> {
    let mut first = FirstRecords {
        config: None,
        item: None,
        pending: Vec::new(),
    };
    loop {
        let (line, read) = reader.next().map_err(|e| {
            bad(format!(
                "{}: {e} (imported before it: 0 items)",
                reader.name
            ))
        })?;
        match &line {
            ImportLine::End => return Ok(first),
            ImportLine::Blank => {}
            ImportLine::Config(c) if first.config.is_none() => first.config = Some(c.clone()),
            ImportLine::Config(_) => {
                return Err(bad(format!(
                    "{}: line {}: a second configuration line; only the first line of an \
                     export holds one (imported before it: 0 items)",
                    reader.name, reader.number
                )))
            }
            ImportLine::Item(item) => first.item = Some((item.clone(), reader.number)),
        }
        let done = first.item.is_some();
        first.pending.push((line, read, reader.number));
        if done {
            return Ok(first);
        }
    }
}

/// Writes one item line to `db` (errors without the file and line, which callers add).
pub(super) async fn write_item<B: Backend>(db: &Db<B>, item: &ImportItem) -> Result<(), Failure> {
    let path: KeyPath = item
        .key
        .parse()
        .map_err(|e| bad(format!("key {:?}: {e}", item.key)))?;
    // A new item keeps the export's version, so clients that hold it still match.
    let mode = item.version.map_or(PutMode::Upsert, PutMode::Restore);
    let item_type = item.item_type.as_deref();
    match &item.value {
        ImportValue::Json(text) => {
            let value = json::parse(text).map_err(bad)?;
            db.put(&path, item_type, &value, mode).await?;
        }
        ImportValue::MsgPack(bytes) => {
            db.put_encoded(&path, item_type, bytes.clone(), mode)
                .await?;
        }
    }
    Ok(())
}

pub(super) async fn import<B: Backend>(
    db: &Db<B>,
    file: &Path,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let (reader, size) = import_reader(file)?;
    import_from(db, file, reader, size, Vec::new(), out).await
}

/// Imports the lines `pending` (already read), then the rest of `reader`.
pub(super) async fn import_from<B: Backend, R: BufRead>(
    db: &Db<B>,
    file: &Path,
    mut reader: ImportReader<R>,
    size: u64,
    pending: Vec<(ImportLine, u64, u64)>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut pending = pending.into_iter();
    let mut progress = Progress::new("bytes", size);
    let mut items = 0u64;
    let mut seen_item = false;
    loop {
        let context = |e: String, items: u64| {
            let s = if items == 1 { "" } else { "s" };
            format!(
                "{}: {e} (imported before it: {items} item{s})",
                file.display()
            )
        };
        let (line, read, number) = match pending.next() {
            Some(line) => line,
            None => {
                let (line, read) = reader.next().map_err(|e| bad(context(e, items)))?;
                (line, read, reader.number)
            }
        };
        progress.add(read);
        let at = |e: String| context(format!("line {number}: {e}"), items);
        let item = match line {
            ImportLine::End => break,
            ImportLine::Blank => continue,
            ImportLine::Config(config) => {
                if seen_item || number > 1 && items > 0 {
                    return Err(bad(at("a configuration line after items; only the first \
                         line of an export holds one"
                        .into())));
                }
                if config.store.roots != db.config.store.roots {
                    return Err(bad(at(format!(
                        "the export places root items as {:?}, this store as {:?}: import it \
                         into a new store (a directory without one), which takes the export's",
                        config.store.roots, db.config.store.roots
                    ))));
                }
                if config.store.group_versions != db.config.store.group_versions {
                    let (export, store, loss) = if config.store.group_versions {
                        (
                            "with",
                            "without",
                            "the export's group counters would be lost",
                        )
                    } else {
                        (
                            "without",
                            "with",
                            "the items' versions would be numbered again from this store's \
                             counters",
                        )
                    };
                    return Err(bad(at(format!(
                        "the export was written by a store {export} group version counters \
                         (\"group_versions\"), this store is {store} them, so {loss}: import \
                         it into a new store (a directory without one), which takes the \
                         export's setting"
                    ))));
                }
                if config.store.indexes != db.config.store.indexes {
                    return Err(bad(at(format!(
                        "the export's indexes {:?} differ from this store's {:?}: import it \
                         into a new store (a directory without one), which takes the export's",
                        config.describe(),
                        db.config.describe()
                    ))));
                }
                continue;
            }
            ImportLine::Item(item) => item,
        };
        seen_item = true;
        write_item(db, &item).await.map_err(|e| match e {
            Failure::BadInput(m) => bad(at(m)),
            Failure::Store(m) => Failure::Store(at(m)),
            Failure::Conflict(m) => Failure::Conflict(at(m)),
            other => other,
        })?;
        items += 1;
    }
    progress.finish();
    writeln!(
        out,
        "{}",
        json!({"imported": items, "lines": reader.number})
    )?;
    Ok(())
}
