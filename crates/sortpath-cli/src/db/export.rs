//! `export`: a store as JSON lines that `import` reads back.

use std::io::Write;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Map, Value};
use sortpath::KeyPath;
use sortpath_store::backend::Backend;
use sortpath_store::{Query, RawItem};

use super::commands::default_type;
use super::failure::{report_skipped, store_failure, SKIP_HINT};
use super::open::Db;
use crate::{json, Failure};

impl<B: Backend> Db<B> {
    /// `export`: the configuration line, then every item, group by group. An output closed
    /// before the end (the reader of a pipe gone) fails it: elsewhere a closed pipe is a
    /// reader that had enough, but an export cut short is a lost backup.
    pub(super) async fn export(
        &self,
        skip_foreign: bool,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        let written = self
            .export_lines(skip_foreign, out)
            .await
            .and_then(|()| out.flush().map_err(Failure::Io));
        written.map_err(|e| match e {
            Failure::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Failure::Store(
                "the export is incomplete: its output was closed before its last line".into(),
            ),
            other => other,
        })
    }

    async fn export_lines(&self, skip_foreign: bool, out: &mut impl Write) -> Result<(), Failure> {
        let db = self;
        // First the configuration, so `import` into a new store declares the same
        // indexes before the first item.
        let config: Value = serde_json::from_slice(&db.config.store.to_json())
            .map_err(|e| Failure::Store(format!("the store configuration: {e}")))?;
        writeln!(out, "{}", json!({ "config": config }))?;
        // Item groups are key path encodings, which start with a namespace letter;
        // the store's own records (counters, index entries) live in groups
        // starting `00`.
        let groups = db
            .store
            .backend()
            .groups(1)
            .await
            .map_err(|e| Failure::Store(e.to_string()))?;
        for bytes in groups {
            let group = match KeyPath::decode(&bytes) {
                Ok(group) => group,
                Err(e) => {
                    let record = sortpath_store::ForeignRecord::new(bytes, Vec::new());
                    let what = format!("the group {} is not a key path: {e}", record.describe());
                    if !skip_foreign {
                        return Err(Failure::Store(format!("{what}{SKIP_HINT}")));
                    }
                    report_skipped(&what);
                    continue;
                }
            };
            let mut query = Query::prefix(&group).map_err(store_failure)?.limit(1000);
            loop {
                let page = db.list(&query, skip_foreign).await?;
                for raw in &page.items {
                    writeln!(out, "{}", export_line(raw))?;
                }
                match page.cursor {
                    Some(c) => query = query.after(c),
                    None => break,
                }
            }
        }
        Ok(())
    }
}

/// An item as an export line that `import` stores back exactly: `key`, `version`, `type` when
/// the item type is not the key's last namespace, and the value as JSON (`value`) when
/// storing that JSON gives the same bytes, else the stored bytes in base64 (`msgpack`): a
/// value JSON would change (a 32-bit float, a byte string, a map key that is not a string,
/// a NaN, map keys out of order, nesting past what `put` takes) is not changed by an export
/// and import.
pub(super) fn export_line(raw: &RawItem) -> String {
    let mut line = Map::new();
    line.insert("key".into(), Value::String(raw.key().to_string()));
    if raw.item_type() != default_type(raw.key()) {
        line.insert("type".into(), Value::String(raw.item_type().to_owned()));
    }
    match exact_json(raw) {
        Some(value) => line.insert("value".into(), value),
        None => line.insert(
            "msgpack".into(),
            Value::String(STANDARD.encode(raw.payload())),
        ),
    };
    line.insert("version".into(), Value::from(raw.version()));
    Value::Object(line).to_string()
}

/// The item's value as JSON, if `import` would store that JSON as the same bytes.
fn exact_json(raw: &RawItem) -> Option<Value> {
    let json::Stored(value) = raw.decode().ok()?;
    if nesting(&value) > json::MAX_VALUE_DEPTH {
        return None;
    }
    let again = RawItem::new(raw.key().clone(), raw.item_type(), 0, &value).ok()?;
    (again.payload() == raw.payload()).then_some(value)
}

/// How deep arrays and objects nest in `value`.
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}
