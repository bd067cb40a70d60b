//! The commands: [`run`] picks the backend, and [`Db::run`] runs one command on a store.

use std::io::Write;

use serde_json::{json, Value};
use sortpath::KeyPath;
use sortpath_store::backend::Backend;
use sortpath_store::{Cursor, Page, PutMode, Query, RawItem, WriteError};

use super::args::{parse_json, parse_path, precheck, DbArgs, DbCommand, ListArgs};
use super::config::{parse_index_defs, Config, IndexDef, IndexGroup};
use super::failure::{bad, report_skipped, store_failure, write_failure};
use super::first_write::{creates_store, first_write};
use super::import::import;
use super::open::{create_store, data_file, Db};
use crate::json;
use crate::Failure;

/// Runs a `db` command on a directory store (`--path`); `main` sends the commands on a
/// DynamoDB table or a SlateDB location to their own modules, which use this one's parts.
pub(crate) async fn run(args: DbArgs, out: &mut impl Write) -> Result<(), Failure> {
    let dir = args
        .path
        .as_deref()
        .ok_or_else(|| bad("give the store with --path DIR"))?;
    match args.command {
        DbCommand::Init {
            indexes,
            group_versions,
            roots,
            over_items,
        } => {
            let indexes = parse_index_defs(&indexes)?;
            let config = Config::new(indexes)
                .with_group_versions(group_versions)
                .with_roots(&roots)?;
            if over_items && data_file(dir).exists() {
                let db = Db::open_existing(dir).await?;
                let created = db
                    .store
                    .create_config_over_items(&config.store)
                    .await
                    .map_err(store_failure)?;
                if !created {
                    return Err(bad(format!(
                        "a store already exists at {}; its indexes are fixed",
                        dir.display()
                    )));
                }
            } else {
                create_store(dir, &config).await?;
            }
            writeln!(out, "{}", json!({"created": dir.display().to_string()}))?;
            Ok(())
        }
        #[cfg(feature = "dynamodb")]
        DbCommand::CreateTable { .. } => Err(bad("create-table needs --dynamodb TABLE")),
        command => {
            precheck(&command)?;
            let writes = matches!(
                command,
                DbCommand::Put { .. } | DbCommand::Import { .. } | DbCommand::Delete { .. }
            );
            let missing_before = !data_file(dir).exists();
            let opened = if writes {
                Db::open_existing(dir).await
            } else {
                Db::open_read_only(dir).await
            };
            match opened {
                Ok(db) => db.run(command, out).await,
                // Another process may create it meanwhile: `first_write` then opens theirs.
                Err(_) if missing_before && creates_store(&command) => {
                    first_write(dir, command, out).await
                }
                Err(e) => Err(e),
            }
        }
    }
}

impl<B: Backend> Db<B> {
    /// Runs every command but `init` and `create-table`.
    pub(crate) async fn run(
        &self,
        command: DbCommand,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        let db = self;
        match command {
            #[cfg(feature = "dynamodb")]
            DbCommand::CreateTable { .. } => unreachable!("handled by the caller"),
            DbCommand::Init { .. } => unreachable!("handled by the caller"),
            DbCommand::Put {
                path,
                json: text,
                if_absent,
                if_version,
            } => {
                let path = parse_path("path", &path)?;
                let value = parse_json("value", &text)?;
                let mode = match (if_absent, if_version) {
                    (true, _) => PutMode::IfAbsent,
                    (_, Some(v)) => PutMode::IfVersion(v),
                    _ => PutMode::Upsert,
                };
                let version = db.put(&path, None, &value, mode).await?;
                writeln!(
                    out,
                    "{}",
                    json!({"key": path.to_string(), "version": version})
                )?;
            }
            DbCommand::Get { path } => {
                let path = parse_path("path", &path)?;
                match db.store.get_raw(&path).await.map_err(store_failure)? {
                    Some(raw) => writeln!(out, "{}", item_line(&raw)?)?,
                    None => return Err(Failure::NotFound(format!("no item at {path}"))),
                }
            }
            DbCommand::Delete { path } => {
                let path = parse_path("path", &path)?;
                let existed = db.store.delete(&path).await.map_err(|e| match e {
                    // A storage failure (a full disk) says nothing of the item: name it, as
                    // `put` does.
                    WriteError::Backend(b) => write_failure(&format!("delete {path}"), &b),
                    other => store_failure(other),
                })?;
                writeln!(
                    out,
                    "{}",
                    json!({"key": path.to_string(), "deleted": existed})
                )?;
            }
            DbCommand::List(list) => {
                let query = build_query(&list)?;
                let page = db.list(&query, list.skip_foreign).await?;
                print_page(page, out)?;
            }
            DbCommand::Index { name, list } => {
                let query = build_query(&list)?;
                let known = db.config.index_names();
                if !known.contains(&name.as_str()) {
                    return Err(bad(format!(
                        "unknown index {name:?}; this store has {known:?}"
                    )));
                }
                let page = db
                    .store
                    .query_index_raw(&name, &query)
                    .await
                    .map_err(store_failure)?;
                print_page(page, out)?;
            }
            DbCommand::Import { file } => {
                import(db, &file, out).await?;
            }
            DbCommand::Check => db.check(out).await?,
            DbCommand::Export { skip_foreign } => db.export(skip_foreign, out).await?,
        }
        Ok(())
    }
}

impl<B: Backend> Db<B> {
    /// The index entries of a JSON item at `path` of type `item_type`: those of the field
    /// indexes declared for its type (the type stored with the item, which need not be the
    /// key's last namespace).
    fn index_entries(
        &self,
        path: &KeyPath,
        item_type: &str,
        value: &Value,
    ) -> Result<Vec<(String, KeyPath)>, Failure> {
        let mut entries = Vec::new();
        for def in self
            .config
            .indexes
            .iter()
            .filter(|d| d.item_type == item_type)
        {
            let group = match &def.group {
                IndexGroup::Fixed(group) => group.clone(),
                IndexGroup::FromField { namespace, field } => {
                    match with_id(KeyPath::new(), namespace, field, value, def, path)? {
                        Some(group) => group,
                        None => continue,
                    }
                }
            };
            if let Some(key) = with_id(group, &def.field, &def.field, value, def, path)? {
                entries.push((def.name.clone(), key));
            }
        }
        Ok(entries)
    }

    /// Puts a JSON value at `path` as an item of type `item_type` (by default the key's last
    /// namespace), with the entries of the indexes the configuration declares.
    pub(super) async fn put(
        &self,
        path: &KeyPath,
        item_type: Option<&str>,
        value: &Value,
        mode: PutMode,
    ) -> Result<u64, Failure> {
        let item_type = item_type.unwrap_or_else(|| default_type(path));
        let entries = self.index_entries(path, item_type, value)?;
        self.store
            .put_raw(path, item_type, value, entries, mode)
            .await
            .map_err(|e| put_failure(path, e))
    }

    /// Puts a value given as its MessagePack bytes (an export's `msgpack`), kept byte for
    /// byte; its index entries are computed from its JSON form.
    pub(super) async fn put_encoded(
        &self,
        path: &KeyPath,
        item_type: Option<&str>,
        payload: Vec<u8>,
        mode: PutMode,
    ) -> Result<u64, Failure> {
        let item_type = item_type.unwrap_or_else(|| default_type(path));
        let raw = RawItem::from_payload(path.clone(), item_type, 0, payload);
        // Decoded only where an index needs its fields.
        let entries = match self.config.indexes.iter().any(|d| d.item_type == item_type) {
            false => Vec::new(),
            true => match raw.decode::<json::Stored>() {
                Ok(json::Stored(value)) => self.index_entries(path, item_type, &value)?,
                Err(e) => {
                    return Err(bad(format!(
                        "the value of {path} does not decode, so its index keys cannot be \
                         computed: {e}"
                    )))
                }
            },
        };
        self.store
            .put_raw_item(&raw, entries, mode)
            .await
            .map_err(|e| put_failure(path, e))
    }
}

/// An item's type where a line or command gives none: the key's last namespace.
pub(super) fn default_type(path: &KeyPath) -> &str {
    path.segments()
        .last()
        .map(|c| c.namespace())
        .unwrap_or_default()
}

fn put_failure(path: &KeyPath, e: WriteError) -> Failure {
    match e {
        // A backend's own limit (DynamoDB's item size or writes per transaction) says
        // nothing of the item: name it.
        WriteError::Backend(b) => write_failure(&format!("put {path}"), &b),
        other => store_failure(other),
    }
}

impl<B: Backend> Db<B> {
    /// `check`: the store's consistency check over every record (and, on a backend that
    /// keeps indexes itself, the index key attributes it stores beside them), with the
    /// entries of the field indexes the configuration declares computed again from each
    /// item, by its stored type: in a store that declares field indexes, an item whose type
    /// has none must have no entries (an entry made for another type's index is reported).
    async fn check(&self, out: &mut impl Write) -> Result<(), Failure> {
        let expected = |path: &KeyPath, item_type: &str, payload: &[u8]| {
            // Entries a program computes are that program's to check; a store without
            // field indexes has only entries its programs wrote.
            let by_program = self
                .config
                .store
                .indexes
                .iter()
                .any(|d| d.item_type == item_type && !d.source.is_data());
            if by_program || self.config.indexes.is_empty() {
                return None;
            }
            if !self.config.indexes.iter().any(|d| d.item_type == item_type) {
                return Some(Vec::new());
            }
            let raw = RawItem::from_payload(path.clone(), item_type, 0, payload.to_vec());
            let json::Stored(value) = raw.decode().ok()?;
            // An item whose entries cannot be computed is reported by the check's own
            // comparison (it then expects none).
            Some(
                self.index_entries(path, item_type, &value)
                    .unwrap_or_default(),
            )
        };
        let checked = sortpath_store::check::check_backend(self.store.backend(), expected)
            .await
            .map_err(|e| Failure::Store(e.to_string()))?;
        match checked {
            Ok(census) => {
                writeln!(
                    out,
                    "{}",
                    json!({"ok": true, "items": census.items, "index_entries": census.index_entries, "counters": census.counters})
                )?;
                Ok(())
            }
            Err(problems) => {
                let mut err = std::io::stderr().lock();
                let undecided = sortpath_store::check::UNDECIDED;
                let open = problems
                    .lines()
                    .filter(|l| l.starts_with(undecided))
                    .count();
                let count = problems.lines().count() - open;
                for line in problems.lines() {
                    let _ = writeln!(err, "sortpath: {line}");
                }
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                Err(Failure::Store(match (count, open) {
                    (count, 0) => format!("check found {count} problem{}", plural(count)),
                    (0, open) => format!(
                        "check could not decide {open} finding{} (other processes kept \
                         changing their records while it read them again): run it again",
                        plural(open)
                    ),
                    (count, open) => format!(
                        "check found {count} problem{} and could not decide {open} more \
                         (other processes kept changing their records while it read them again)",
                        plural(count)
                    ),
                }))
            }
        }
    }

    /// Lists a page; with `skip_foreign`, records the store did not write are named on
    /// stderr and left out.
    pub(super) async fn list(
        &self,
        query: &Query,
        skip_foreign: bool,
    ) -> Result<Page<RawItem>, Failure> {
        if !skip_foreign {
            return self.store.list_raw(query).await.map_err(store_failure);
        }
        let mut skipped = Vec::new();
        let page = self
            .store
            .list_raw_skipping(query, &mut skipped)
            .await
            .map_err(store_failure)?;
        for e in skipped {
            report_skipped(&format!("{}: {}", e.record.describe(), e.reason));
        }
        Ok(page)
    }
}

/// `path` with a component `namespace` whose ID is the item's field `field` (an integer or
/// a string); `None` when the field is absent or null (the item is left out of the index).
/// A string is read as the key path text form reads an ID: one that reads as an integer or
/// a UUID there (`"7"`, `"4c9d36e5-6b19-4e6a-828c-226ed667458a"`) becomes that ID, so the
/// entry is where `/NAMESPACE-7` finds it; any other string is the string ID, as it is.
fn with_id(
    path: KeyPath,
    namespace: &str,
    field: &str,
    value: &Value,
    def: &IndexDef,
    item: &KeyPath,
) -> Result<Option<KeyPath>, Failure> {
    let wrong = |what: &str| {
        bad(format!(
            "{item}: field {field:?} is {what}; index {} takes integers or strings",
            def.name
        ))
    };
    let pushed = match value.get(field).unwrap_or(&Value::Null) {
        Value::Null => return Ok(None),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => path.push(namespace, u),
            (None, Some(i)) => path.push(namespace, i),
            _ => return Err(wrong(&n.to_string())),
        },
        Value::String(s) => match id_in_text(namespace, s) {
            Some(id) => path.push(namespace, id),
            None => path.push(namespace, s.as_str()),
        },
        Value::Bool(_) => return Err(wrong("a boolean")),
        Value::Array(_) => return Err(wrong("an array")),
        Value::Object(_) => return Err(wrong("an object")),
    };
    pushed
        .map(Some)
        .map_err(|e| bad(format!("{item}: index {}: {e}", def.name)))
}

/// The integer or UUID ID that `/NAMESPACE-TEXT` holds, if it is one component with such an
/// ID.
fn id_in_text(namespace: &str, text: &str) -> Option<sortpath::Id> {
    let probe: KeyPath = format!("/{namespace}-{text}").parse().ok()?;
    let mut segments = probe.segments();
    let id = match (segments.next(), segments.next()) {
        (Some(one), None) => one.id()?.to_id(),
        _ => return None,
    };
    matches!(id, sortpath::Id::Int(_) | sortpath::Id::Uuid(_)).then_some(id)
}

pub(super) fn item_line(raw: &RawItem) -> Result<String, Failure> {
    let json::Stored(value) = raw
        .decode()
        .map_err(|e| Failure::Store(format!("{}: stored value does not decode: {e}", raw.key())))?;
    let line = json!({"key": raw.key().to_string(), "value": value, "version": raw.version()});
    Ok(line.to_string())
}

fn build_query(args: &ListArgs) -> Result<Query, Failure> {
    let prefix = parse_path("prefix", &args.prefix)?;
    let mut query = Query::prefix(&prefix).map_err(store_failure)?;
    for (flag, bound) in [
        ("--gt", &args.gt),
        ("--gte", &args.gte),
        ("--lt", &args.lt),
        ("--lte", &args.lte),
    ] {
        let Some(text) = bound else { continue };
        let path = parse_path(flag, text)?;
        query = match flag {
            "--gt" => query.gt(&path),
            "--gte" => query.gte(&path),
            "--lt" => query.lt(&path),
            _ => query.lte(&path),
        }
        .map_err(|e| bad(format!("{flag} {text:?}: {e}")))?;
    }
    if args.from_root {
        query = query.from_root();
    }
    if args.to_root {
        query = query.to_root();
    }
    if args.reverse {
        query = query.reverse();
    }
    if let Some(limit) = args.limit {
        query = query.limit(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    if let Some(text) = &args.cursor {
        let cursor: Cursor = text.parse().map_err(|e| bad(format!("--cursor: {e}")))?;
        query = query.after(cursor);
    }
    Ok(query)
}

fn print_page(page: Page<RawItem>, out: &mut impl Write) -> Result<(), Failure> {
    for raw in &page.items {
        writeln!(out, "{}", item_line(raw)?)?;
    }
    if let Some(cursor) = page.cursor {
        writeln!(out, "{}", json!({"cursor": cursor.to_string()}))?;
    }
    Ok(())
}
