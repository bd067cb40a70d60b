//! `keypath db`: a store from the shell. Items are JSON values under key paths; output is
//! JSON lines, `{"key": "<key path>", "value": <item>, "version": <n>}` (the version is what
//! `put --if-version` takes), and a limited list that has more ends with
//! `{"cursor": "<opaque>"}`.
//!
//! The store directory holds the embedded store and `keypath-db.json`, the secondary index
//! definitions fixed by `init` (so every item is indexed from its first write on).

use std::fs;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use keypath::KeyPath;
use keypath_store::backend::redb::RedbBackend;
use keypath_store::backend::{Backend, BackendError};
use keypath_store::{Cursor, Page, PutMode, Query, RawItem, Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::json;
use crate::progress::Progress;
use crate::Failure;

/// Name of the index definitions file in a store directory.
pub(crate) const CONFIG_FILE: &str = "keypath-db.json";

#[derive(Args, Debug)]
pub(crate) struct DbArgs {
    /// The store directory.
    #[cfg_attr(
        not(feature = "dynamodb"),
        arg(long, value_name = "DIR", required = true)
    )]
    #[cfg_attr(
        feature = "dynamodb",
        arg(
            long,
            value_name = "DIR",
            required_unless_present = "dynamodb",
            conflicts_with = "dynamodb"
        )
    )]
    path: Option<PathBuf>,
    /// Use the DynamoDB table TABLE instead of a directory (region and credentials from the
    /// environment, as the AWS CLI reads them).
    #[cfg(feature = "dynamodb")]
    #[arg(long, value_name = "TABLE")]
    dynamodb: Option<String>,
    /// With --dynamodb: send requests to this endpoint (a local server such as DynamoDB
    /// Local); without credentials in the environment, dummy ones and us-east-1 are used.
    #[cfg(feature = "dynamodb")]
    #[arg(long, value_name = "URL", requires = "dynamodb")]
    endpoint_url: Option<String>,
    /// With --dynamodb: give up on a request after this many seconds, retries included.
    #[cfg(feature = "dynamodb")]
    #[arg(long, value_name = "SECONDS", requires = "dynamodb", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Subcommand, Debug)]
pub(crate) enum DbCommand {
    /// Create the DynamoDB table of --dynamodb (key schema pk/sk, binary, on-demand) and a
    /// store in it, declaring its secondary indexes as `init` does.
    #[cfg(feature = "dynamodb")]
    CreateTable {
        /// An index, as for `init`.
        #[arg(long = "index", value_name = "DEFINITION")]
        indexes: Vec<String>,
    },
    /// Create a store, declaring its secondary indexes (they cannot change later).
    Init {
        /// An index, as NAME=NAMESPACE.FIELD@GROUP: items whose last namespace is NAMESPACE
        /// are indexed at GROUP/FIELD-V, V being the item's FIELD (an integer or string; absent
        /// or null leaves the item out). GROUP is one component, such as /board-1, or /board-{F} to
        /// take its ID from the item's field F (write a literal '{' as %7B). Examples:
        /// by_updated=ticket.updated_at@/board-1, by_updated=ticket.updated_at@/board-{board}
        #[arg(long = "index", value_name = "DEFINITION")]
        indexes: Vec<String>,
    },
    /// Insert or replace an item (creates the store if there is none).
    Put {
        /// The item's key path.
        path: String,
        /// The item, as JSON.
        json: String,
        /// Only if no item is at PATH.
        #[arg(long, conflicts_with = "if_version")]
        if_absent: bool,
        /// Only if the item's version is this.
        #[arg(long, value_name = "VERSION")]
        if_version: Option<u64>,
    },
    /// Print an item, with its version.
    Get {
        /// The item's key path.
        path: String,
    },
    /// Delete an item and its index entries.
    Delete {
        /// The item's key path.
        path: String,
    },
    /// List items under a prefix, in key order.
    List(ListArgs),
    /// List items through a secondary index, in index order.
    Index {
        /// The index name.
        name: String,
        #[command(flatten)]
        list: ListArgs,
    },
    /// Put every item of a JSON lines file (`{"key": ..., "value": ...}` per line, as
    /// `export` writes; its "version" is not read), showing progress. Each line is its own
    /// write: a bad line stops the import, and the lines before it stay imported.
    Import {
        /// The JSON lines file.
        file: PathBuf,
    },
    /// Print every item of the store as JSON lines.
    Export,
}

#[derive(Args, Debug)]
pub(crate) struct ListArgs {
    /// Key path prefix; its first component must have an ID (the group).
    prefix: String,
    /// Descending key order (largest key first).
    #[arg(long)]
    reverse: bool,
    /// At most this many items (1 or more); a `{"cursor": ...}` line follows when there are
    /// more.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// Resume after the page that printed this cursor (same query only).
    #[arg(long)]
    cursor: Option<String>,
    /// Only keys after this path.
    #[arg(long, value_name = "PATH")]
    gt: Option<String>,
    /// Only keys from this path on.
    #[arg(long, value_name = "PATH")]
    gte: Option<String>,
    /// Only keys before this path.
    #[arg(long, value_name = "PATH")]
    lt: Option<String>,
    /// Only keys up to this path.
    #[arg(long, value_name = "PATH")]
    lte: Option<String>,
}

/// A secondary index declared for the CLI's JSON items.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct IndexDef {
    name: String,
    namespace: String,
    field: String,
    group: IndexGroup,
}

#[cfg(feature = "dynamodb")]
impl IndexDef {
    /// The namespace whose items the index takes.
    pub(crate) fn namespace(&self) -> &str {
        &self.namespace
    }
}

/// The group of an index's entries: one component, with a fixed ID (`/board-1`) or the ID
/// taken from a field of the item (`/board-{board}`). Kept in the configuration as that text.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(try_from = "String", into = "String")]
pub(crate) enum IndexGroup {
    Fixed(KeyPath),
    FromField { namespace: String, field: String },
}

impl std::str::FromStr for IndexGroup {
    type Err = String;

    fn from_str(text: &str) -> Result<IndexGroup, String> {
        let one = "GROUP must be one component with an ID, such as /board-1 or /board-{board}";
        if let Some((namespace, field)) = text
            .strip_prefix('/')
            .and_then(|t| t.strip_suffix('}'))
            .and_then(|t| t.split_once("-{"))
            .filter(|(namespace, _)| !namespace.contains('/'))
        {
            KeyPath::new()
                .push_namespace(namespace)
                .map_err(|e| format!("bad GROUP namespace: {e}"))?;
            KeyPath::new()
                .push_namespace(field)
                .map_err(|e| format!("bad GROUP field {{{field}}}: {e}"))?;
            return Ok(IndexGroup::FromField {
                namespace: namespace.to_owned(),
                field: field.to_owned(),
            });
        }
        let group: KeyPath = text.parse().map_err(|e| format!("bad GROUP: {e}"))?;
        if group.len() != 1
            || group
                .segments()
                .next()
                .is_none_or(|c| c.id_type().is_none())
        {
            return Err(one.to_owned());
        }
        Ok(IndexGroup::Fixed(group))
    }
}

impl std::fmt::Display for IndexGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexGroup::Fixed(path) => {
                // A string ID printed as `{...}` would read back as a field: escape its '{'.
                let text = path.to_string();
                match text.split_once("-{") {
                    Some((namespace, rest)) if text.ends_with('}') => {
                        write!(f, "{namespace}-%7B{rest}")
                    }
                    _ => f.write_str(&text),
                }
            }
            IndexGroup::FromField { namespace, field } => write!(f, "/{namespace}-{{{field}}}"),
        }
    }
}

impl TryFrom<String> for IndexGroup {
    type Error = String;

    fn try_from(text: String) -> Result<IndexGroup, String> {
        text.parse()
    }
}

impl From<IndexGroup> for String {
    fn from(group: IndexGroup) -> String {
        group.to_string()
    }
}

#[derive(Serialize, Deserialize, Debug, Default)]
pub(crate) struct Config {
    pub(crate) indexes: Vec<IndexDef>,
}

pub(crate) fn bad(message: impl Into<String>) -> Failure {
    Failure::BadInput(message.into())
}

pub(crate) fn store_failure(e: StoreError) -> Failure {
    match e {
        StoreError::Backend(_) => Failure::Store(e.to_string()),
        other => Failure::BadInput(other.to_string()),
    }
}

fn parse_path(what: &str, text: &str) -> Result<KeyPath, Failure> {
    text.parse()
        .map_err(|e| bad(format!("{what} {text:?}: {e}")))
}

pub(crate) fn parse_index_def(text: &str) -> Result<IndexDef, Failure> {
    let err = |why: &str| {
        bad(format!("--index {text:?}: {why}; expected NAME=NAMESPACE.FIELD@GROUP, e.g. by_updated=ticket.updated_at@/board-1"))
    };
    let (name, rest) = text.split_once('=').ok_or_else(|| err("no '='"))?;
    let (target, group) = rest.split_once('@').ok_or_else(|| err("no '@'"))?;
    let (namespace, field) = target.split_once('.').ok_or_else(|| err("no '.'"))?;
    let group: IndexGroup = group.parse().map_err(|e: String| err(&e))?;
    // Namespace and field must be valid namespaces: check by building a path.
    KeyPath::new()
        .push_namespace(namespace)
        .map_err(|e| err(&format!("bad NAMESPACE: {e}")))?;
    KeyPath::new()
        .push_namespace(field)
        .map_err(|e| err(&format!("bad FIELD: {e}")))?;
    if name.is_empty()
        || name.len() > 64
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(err("NAME must be 1 to 64 ASCII letters, digits or '_'"));
    }
    Ok(IndexDef {
        name: name.to_owned(),
        namespace: namespace.to_owned(),
        field: field.to_owned(),
        group,
    })
}

/// Parses the `--index` definitions of `init` or `create-table`; two with one name are an
/// error (an item could not be written with both).
pub(crate) fn parse_index_defs(texts: &[String]) -> Result<Vec<IndexDef>, Failure> {
    let mut defs: Vec<IndexDef> = Vec::with_capacity(texts.len());
    for text in texts {
        let def = parse_index_def(text)?;
        if defs.iter().any(|d| d.name == def.name) {
            return Err(bad(format!(
                "--index {text:?}: index {} is defined twice; each index needs its own name",
                def.name
            )));
        }
        defs.push(def);
    }
    Ok(defs)
}

fn config_path(dir: &Path) -> PathBuf {
    dir.join(CONFIG_FILE)
}

fn read_config(dir: &Path) -> Result<Option<Config>, Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(bad(format!(
            "{} is not a directory: give a store directory",
            dir.display()
        )));
    }
    let path = config_path(dir);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            bad(format!(
                "{}: not a keypath store configuration: {e}",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(bad(format!("cannot read {}: {e}", path.display()))),
    }
}

fn write_config(dir: &Path, config: &Config) -> Result<(), Failure> {
    let cannot =
        |e: std::io::Error| bad(format!("cannot create a store in {}: {e}", dir.display()));
    fs::create_dir_all(dir).map_err(cannot)?;
    let tmp = dir.join(format!("{CONFIG_FILE}.tmp"));
    fs::write(
        &tmp,
        serde_json::to_vec_pretty(config).expect("config serializes"),
    )
    .map_err(cannot)?;
    fs::rename(&tmp, config_path(dir)).map_err(cannot)?;
    Ok(())
}

/// Makes `dir` hold the configuration `config`: writes it if there is none, and refuses a
/// store whose indexes differ (they cannot change). For stores written by a program whose
/// indexes the CLI can express, such as `keypath demo --path DIR`.
pub(crate) fn ensure_config(dir: &Path, config: &Config) -> Result<(), Failure> {
    match read_config(dir)? {
        None => write_config(dir, config),
        Some(found) if found.indexes == config.indexes => Ok(()),
        Some(_) => Err(bad(format!(
            "{} holds a store with other indexes than {:?}",
            dir.display(),
            config
                .indexes
                .iter()
                .map(|d| format!("{}={}.{}@{}", d.name, d.namespace, d.field, d.group))
                .collect::<Vec<_>>()
        ))),
    }
}

/// Checks what a command reads from the shell before the store is opened (and, for `put`
/// and `import`, created): a bad path, JSON value or import file leaves no store behind.
pub(crate) fn precheck(command: &DbCommand) -> Result<(), Failure> {
    match command {
        DbCommand::Put { path, json, .. } => {
            parse_path("path", path)?;
            parse_json("value", json)?;
        }
        DbCommand::Import { file } => {
            fs::File::open(file).map_err(|e| bad(format!("{}: {e}", file.display())))?;
        }
        _ => {}
    }
    Ok(())
}

/// A backend the CLI can run on: a store backend that can also list its item groups.
pub(crate) trait DbBackend: Backend {
    /// Every group key starting with a byte >= `from`, in byte order.
    fn groups(
        &self,
        from: u8,
    ) -> impl std::future::Future<Output = Result<Vec<Vec<u8>>, BackendError>> + Send;
}

impl DbBackend for RedbBackend {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        RedbBackend::groups(self, from).await
    }
}

/// An open store with its index definitions.
pub(crate) struct Db<B: Backend> {
    pub(crate) store: Store<B>,
    pub(crate) config: Config,
}

impl Db<RedbBackend> {
    async fn open(dir: &Path, create: bool) -> Result<Self, Failure> {
        let config = match read_config(dir)? {
            Some(config) => config,
            None if create => {
                let config = Config::default();
                write_config(dir, &config)?;
                config
            }
            None => {
                return Err(bad(format!(
                    "no store at {} (create one with `keypath db --path {} init`, or put an item)",
                    dir.display(),
                    dir.display()
                )))
            }
        };
        let store = Store::open(dir)
            .await
            .map_err(|e| Failure::Store(format!("opening the store in {}: {e}", dir.display())))?;
        Ok(Db { store, config })
    }
}

impl<B: DbBackend> Db<B> {
    /// The index entries of a JSON item at `path`.
    fn index_entries(
        &self,
        path: &KeyPath,
        value: &Value,
    ) -> Result<Vec<(String, KeyPath)>, Failure> {
        let namespace = path
            .segments()
            .last()
            .map(|c| c.namespace())
            .unwrap_or_default();
        let mut entries = Vec::new();
        for def in self
            .config
            .indexes
            .iter()
            .filter(|d| d.namespace == namespace)
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

    async fn put(&self, path: &KeyPath, value: &Value, mode: PutMode) -> Result<u64, Failure> {
        let item_type = path
            .segments()
            .last()
            .map(|c| c.namespace())
            .unwrap_or_default();
        let entries = self.index_entries(path, value)?;
        self.store
            .put_raw(path, item_type, value, entries, mode)
            .await
            .map_err(|e| match e {
                // A backend's own limit (DynamoDB's item size or writes per transaction)
                // says nothing of the item: name it.
                StoreError::Backend(b) => Failure::Store(format!("put {path}: {b}")),
                other => store_failure(other),
            })
    }
}

/// `path` with a component `namespace` whose ID is the item's field `field` (an integer or
/// a string); `None` when the field is absent or null (the item is left out of the index).
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
        Value::String(s) => path.push(namespace, s.as_str()),
        Value::Bool(_) => return Err(wrong("a boolean")),
        Value::Array(_) => return Err(wrong("an array")),
        Value::Object(_) => return Err(wrong("an object")),
    };
    pushed
        .map(Some)
        .map_err(|e| bad(format!("{item}: index {}: {e}", def.name)))
}

fn item_line(raw: &RawItem) -> Result<String, Failure> {
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

fn parse_json(what: &str, text: &str) -> Result<Value, Failure> {
    json::parse(text).map_err(|e| bad(format!("{what}: {e}")))
}

pub(crate) async fn run(args: DbArgs, out: &mut impl Write) -> Result<(), Failure> {
    #[cfg(feature = "dynamodb")]
    if let Some(table) = &args.dynamodb {
        let timeout = std::time::Duration::from_secs(args.timeout);
        let endpoint = args.endpoint_url.as_deref();
        return crate::dynamo::run(table, endpoint, timeout, args.command, out).await;
    }
    let dir = args
        .path
        .as_deref()
        .ok_or_else(|| bad("give the store with --path DIR"))?;
    match args.command {
        DbCommand::Init { indexes } => {
            if read_config(dir)?.is_some() {
                return Err(bad(format!(
                    "a store already exists at {}; its indexes are fixed",
                    dir.display()
                )));
            }
            let indexes = parse_index_defs(&indexes)?;
            write_config(dir, &Config { indexes })?;
            Db::open(dir, false).await?;
            writeln!(out, "{}", json!({"created": dir.display().to_string()}))?;
            Ok(())
        }
        #[cfg(feature = "dynamodb")]
        DbCommand::CreateTable { .. } => Err(bad("create-table needs --dynamodb TABLE")),
        command => {
            precheck(&command)?;
            let create = matches!(command, DbCommand::Put { .. } | DbCommand::Import { .. });
            // A put or import that makes a new store and then fails (a path that names no
            // item, a failed condition, an oversize key, a bad first import line) must not
            // leave an empty store behind, whose indexes could then no longer be declared.
            let fresh = create && read_config(dir)?.is_none() && !data_file(dir).exists();
            let dir_existed = dir.exists();
            let result = match Db::open(dir, create).await {
                Ok(db) => db.run(command, out).await,
                Err(e) => Err(e),
            };
            if fresh && result.is_err() {
                remove_if_empty(dir, dir_existed).await;
            }
            result
        }
    }
}

fn data_file(dir: &Path) -> PathBuf {
    dir.join(keypath_store::backend::redb::DATA_FILE_NAME)
}

/// Removes the store a failed command created in `dir` when it holds no record at all (so
/// nothing can be lost): its data file, its configuration, and `dir` if the command made it.
/// A store that cannot be opened again (another process has it) is left as it is.
async fn remove_if_empty(dir: &Path, dir_existed: bool) {
    let data = data_file(dir);
    let empty = !data.exists()
        || match Store::open(dir).await {
            Ok(store) => store.backend().groups(0).await.is_ok_and(|g| g.is_empty()),
            Err(_) => false,
        };
    if empty {
        // Best effort: the command's own error is what the user needs to see.
        let _ = fs::remove_file(&data);
        let _ = fs::remove_file(config_path(dir));
        if !dir_existed {
            let _ = fs::remove_dir(dir);
        }
    }
}

impl<B: DbBackend> Db<B> {
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
                let version = db.put(&path, &value, mode).await?;
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
                let existed = db.store.delete(&path).await.map_err(store_failure)?;
                writeln!(
                    out,
                    "{}",
                    json!({"key": path.to_string(), "deleted": existed})
                )?;
            }
            DbCommand::List(list) => {
                let query = build_query(&list)?;
                let page = db.store.list_raw(&query).await.map_err(store_failure)?;
                print_page(page, out)?;
            }
            DbCommand::Index { name, list } => {
                let query = build_query(&list)?;
                if !db.config.indexes.iter().any(|d| d.name == name) {
                    let known: Vec<&str> =
                        db.config.indexes.iter().map(|d| d.name.as_str()).collect();
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
            DbCommand::Export => {
                // Item groups are key path encodings, which start with a namespace letter;
                // the store's own records (counters, index entries) live in groups
                // starting `00`.
                let groups = db
                    .store
                    .backend()
                    .groups(1)
                    .await
                    .map_err(|e| Failure::Store(e.to_string()))?;
                for group in groups {
                    let group = KeyPath::decode(&group).map_err(|e| {
                        Failure::Store(format!("a stored group key does not decode: {e}"))
                    })?;
                    let mut query = Query::prefix(&group).map_err(store_failure)?.limit(1000);
                    loop {
                        let page = db.store.list_raw(&query).await.map_err(store_failure)?;
                        for raw in &page.items {
                            writeln!(out, "{}", item_line(raw)?)?;
                        }
                        match page.cursor {
                            Some(c) => query = query.after(c),
                            None => break,
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

async fn import<B: DbBackend>(
    db: &Db<B>,
    file: &Path,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let name = file.display().to_string();
    let handle = fs::File::open(file).map_err(|e| bad(format!("{name}: {e}")))?;
    let size = handle.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = std::io::BufReader::new(handle);
    let mut progress = Progress::new("bytes", size);
    let mut line = String::new();
    let (mut number, mut items) = (0u64, 0u64);
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .map_err(|e| bad(format!("{name}: line {}: {e}", number + 1)))?;
        if read == 0 {
            break;
        }
        number += 1;
        progress.add(read as u64);
        let text = line.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let context = |e: String| {
            let s = if items == 1 { "" } else { "s" };
            format!("{name}: line {number}: {e} (imported before it: {items} item{s})")
        };
        let at = |e: String| bad(context(e));
        let record = json::parse(text).map_err(at)?;
        let shape = || at("expected {\"key\": \"<key path>\", \"value\": <item>}".into());
        let (Some(Value::String(key)), Some(value)) = (record.get("key"), record.get("value"))
        else {
            return Err(shape());
        };
        let path: KeyPath = key.parse().map_err(|e| at(format!("key {key:?}: {e}")))?;
        db.put(&path, value, PutMode::Upsert)
            .await
            .map_err(|e| match e {
                Failure::BadInput(m) => at(m),
                Failure::Store(m) => Failure::Store(context(m)),
                other => other,
            })?;
        items += 1;
    }
    progress.finish();
    writeln!(out, "{}", json!({"imported": items, "lines": number}))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_groups_read_back_from_their_text() {
        for text in [
            "/board-1",
            "/board--7",
            "/board-{board}",
            "/g-%7Bg}",
            "/g-%7B",
            "/g-a{b}",
            "/g-abc",
            "/g-4c9d36e5-6b19-4e6a-828c-226ed667458a",
        ] {
            let group: IndexGroup = text.parse().unwrap();
            let printed = group.to_string();
            assert_eq!(printed.parse::<IndexGroup>(), Ok(group.clone()), "{text}");
            let json = serde_json::to_string(&group).unwrap();
            assert_eq!(serde_json::from_str::<IndexGroup>(&json).unwrap(), group);
        }
        assert!(matches!(
            "/g-{g}".parse::<IndexGroup>(),
            Ok(IndexGroup::FromField { .. })
        ));
        assert!(matches!(
            "/g-%7Bg}".parse::<IndexGroup>(),
            Ok(IndexGroup::Fixed(_))
        ));
    }
}
