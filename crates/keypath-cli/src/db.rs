//! `keypath db`: a store from the shell. Items are JSON values under key paths; output is
//! JSON lines, `{"key": "<key path>", "value": <item>, "version": <n>}` (the version is what
//! `put --if-version` takes), and a limited list that has more ends with
//! `{"cursor": "<opaque>"}`.
//!
//! The store's secondary index definitions are fixed when it is created (`init`, or a
//! first `put`/`import` without any) and live inside the store, in its configuration record
//! ([`keypath_store::StoreConfig`]), which the library reads and writes too.

use std::fs;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use keypath::KeyPath;
use keypath_store::backend::memory::MemoryBackend;
use keypath_store::backend::redb::OpenError;
use keypath_store::backend::redb::RedbBackend;
use keypath_store::backend::Backend;
use keypath_store::{
    Cursor, IndexDecl, IndexSource, Page, PutMode, Query, RawItem, RootPlace, Store, StoreConfig,
    StoreError,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::json;
use crate::progress::Progress;
use crate::Failure;

#[derive(Args, Debug)]
pub(crate) struct DbArgs {
    /// The store directory.
    #[cfg_attr(
        not(any(feature = "dynamodb", feature = "slatedb")),
        arg(long, value_name = "DIR", required = true)
    )]
    #[cfg_attr(
        all(feature = "dynamodb", not(feature = "slatedb")),
        arg(
            long,
            value_name = "DIR",
            required_unless_present = "dynamodb",
            conflicts_with = "dynamodb"
        )
    )]
    #[cfg_attr(
        all(feature = "slatedb", not(feature = "dynamodb")),
        arg(
            long,
            value_name = "DIR",
            required_unless_present = "slatedb",
            conflicts_with = "slatedb"
        )
    )]
    #[cfg_attr(
        all(feature = "slatedb", feature = "dynamodb"),
        arg(
            long,
            value_name = "DIR",
            required_unless_present_any = ["dynamodb", "slatedb"],
            conflicts_with_all = ["dynamodb", "slatedb"]
        )
    )]
    path: Option<PathBuf>,
    /// Use the SlateDB database at URL_OR_DIR instead of a redb store directory: a local
    /// directory, or an object store URL such as s3://BUCKET/PATH when built with its
    /// object store (settings from the environment). Reads open it as a SlateDB reader,
    /// which fences no writer.
    #[cfg(feature = "slatedb")]
    #[arg(long, value_name = "URL_OR_DIR")]
    #[cfg_attr(feature = "dynamodb", arg(conflicts_with = "dynamodb"))]
    slatedb: Option<String>,
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
        /// Keep index NAME as a DynamoDB GSI instead of exact entries (cheaper writes,
        /// eventually consistent queries; see docs/dynamodb-gsi.md): NAME projects the whole
        /// item, NAME:keys its keys only. NAME is an --index name or an index a program
        /// declares with `maintained_by_table()`.
        #[arg(long = "gsi", value_name = "NAME[:keys]")]
        gsis: Vec<String>,
        /// Keep a version counter per item group, as for `init`.
        #[arg(long)]
        group_versions: bool,
        /// Where root items sort, as for `init`.
        #[arg(long = "root", value_name = "NAMESPACE=PLACE")]
        roots: Vec<String>,
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
        /// Keep a version counter per item group, bumped by every write to the group (an
        /// item's version is then the counter's; without it, each item has its own).
        #[arg(long)]
        group_versions: bool,
        /// Where the root item of each group of NAMESPACE (such as /customer-7 among
        /// /customer-7/order-N) sorts among its group's items: first (the default), last, or
        /// before:CHILD (right before the items under CHILD), so that one list with a limit
        /// reads it with the children an access pattern wants. Examples: customer=last,
        /// org=before:user
        #[arg(long = "root", value_name = "NAMESPACE=PLACE")]
        roots: Vec<String>,
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
    /// `export` writes; an item the import creates keeps the line's "version"), showing
    /// progress. Each line is its own write: a bad line stops the import, and the lines
    /// before it stay imported.
    Import {
        /// The JSON lines file.
        file: PathBuf,
    },
    /// Check the store: every index entry matches an item that has it, every item has the
    /// entries its declared indexes give, every group counter is current. Prints a summary
    /// line; exits 1 with one line per problem on stderr if it finds any.
    Check,
    /// Print the store's configuration, then every item, as JSON lines.
    Export {
        /// Skip records that are not items the store wrote (another tool's, in a shared
        /// DynamoDB table), naming each on stderr, instead of stopping at the first.
        #[arg(long)]
        skip_foreign: bool,
    },
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
    /// Only the group's root item and what sorts after it, wherever the store places the
    /// root item (`init --root`): with org=before:user, `list /org-1 --from-root` lists the
    /// org, then its users.
    #[arg(long)]
    from_root: bool,
    /// Only what sorts before the group's root item, and the root item itself: with
    /// org=before:user, `list /org-1 --to-root --reverse` lists the org, then its teams.
    #[arg(long)]
    to_root: bool,
    /// Skip records that are not items the store wrote (another tool's, in a shared
    /// DynamoDB table), naming each on stderr, instead of failing on the first.
    #[arg(long)]
    skip_foreign: bool,
}

/// A secondary index declared for the CLI's JSON items.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct IndexDef {
    name: String,
    namespace: String,
    field: String,
    group: IndexGroup,
}

impl IndexDef {
    /// The namespace whose items the index takes.
    #[cfg(feature = "dynamodb")]
    pub(crate) fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The declaration in the store's configuration.
    fn to_decl(&self) -> IndexDecl {
        IndexDecl::field(
            &self.name,
            &self.namespace,
            &self.field,
            &self.group.to_string(),
        )
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
        if let Some((_, id)) = text.split_once('-') {
            if id.starts_with('{') {
                return Err(format!(
                    "GROUP {text:?} has an unbalanced '{{': write /NAMESPACE-{{FIELD}} to take the \
                     ID from a field, or %7B for a literal '{{'"
                ));
            }
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
                // A string ID printed as `{...}` would read back as a field, and one that only
                // starts with '{' is refused as unbalanced: escape its '{'.
                let text = path.to_string();
                match text.split_once("-{") {
                    Some((namespace, rest)) => write!(f, "{namespace}-%7B{rest}"),
                    None => f.write_str(&text),
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

/// A store's configuration as the CLI uses it: the store's record, with its field indexes
/// read into definitions the CLI can compute.
#[derive(Debug, Default, Clone)]
pub(crate) struct Config {
    pub(crate) indexes: Vec<IndexDef>,
    /// The record as read (program indexes included).
    pub(crate) store: StoreConfig,
}

impl Config {
    /// A new store's configuration with the field indexes `indexes`.
    pub(crate) fn new(indexes: Vec<IndexDef>) -> Config {
        let store = StoreConfig::new(indexes.iter().map(IndexDef::to_decl).collect());
        Config { indexes, store }
    }

    /// This configuration with group version counters kept or not.
    pub(crate) fn with_group_versions(mut self, on: bool) -> Config {
        self.store = self.store.with_group_versions(on);
        self
    }

    /// This configuration with the root places `roots` (`NAMESPACE=PLACE` each, as
    /// `init --root` takes them).
    pub(crate) fn with_roots(mut self, roots: &[String]) -> Result<Config, Failure> {
        for text in roots {
            let wrong = |why: String| {
                bad(format!(
                    "--root {text:?}: {why}; expected NAMESPACE=PLACE with PLACE first, last \
                     or before:NAMESPACE, e.g. customer=last or org=before:user"
                ))
            };
            let (namespace, place) = text
                .split_once('=')
                .ok_or_else(|| wrong("no '='".to_owned()))?;
            let place: RootPlace = place
                .parse()
                .map_err(|e: StoreError| wrong(e.to_string()))?;
            if self.store.roots.contains_key(namespace) {
                return Err(wrong(format!("namespace {namespace} is placed twice")));
            }
            self.store = self.store.with_root(namespace, place);
            self.store.validate().map_err(wrong)?;
        }
        Ok(self)
    }

    /// Reads a store's record; an index the CLI cannot read is an error naming it.
    pub(crate) fn from_store(store: StoreConfig) -> Result<Config, Failure> {
        let mut indexes = Vec::new();
        for decl in &store.indexes {
            if let IndexSource::Field { field, group } = &decl.source {
                let text = format!("{}={}.{}@{}", decl.name, decl.item_type, field, group);
                indexes.push(parse_index_def(&text).map_err(|e| {
                    Failure::Store(format!(
                        "the store declares index {} in a form this release cannot read: {}",
                        decl.name,
                        failure_text(e)
                    ))
                })?);
            }
        }
        Ok(Config { indexes, store })
    }

    /// Every declared index name (field and program ones), for `index NAME`.
    fn index_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.store.indexes.iter().map(|d| d.name.as_str()).collect();
        names.dedup();
        names
    }

    /// The definitions as `init --index` takes them, for messages.
    pub(crate) fn describe(&self) -> Vec<String> {
        self.store
            .indexes
            .iter()
            .map(|d| match &d.source {
                IndexSource::Field { field, group } => {
                    format!("{}={}.{}@{}", d.name, d.item_type, field, group)
                }
                _ => format!("{} (type {}, computed by a program)", d.name, d.item_type),
            })
            .collect()
    }
}

fn failure_text(f: Failure) -> String {
    match f {
        Failure::BadInput(m) | Failure::Store(m) | Failure::NotFound(m) | Failure::Conflict(m) => m,
        Failure::Io(e) => e.to_string(),
        Failure::Problems(n) => format!("{n} problems"),
    }
}

pub(crate) fn bad(message: impl Into<String>) -> Failure {
    Failure::BadInput(message.into())
}

/// The exit status a store error maps to: 4 for a condition that does not hold (a version
/// or existence check, a transaction conflict), 1 for storage, 2 for the rest (bad input).
pub(crate) fn store_failure(e: StoreError) -> Failure {
    match e {
        StoreError::Backend(_) | StoreError::Config(_) | StoreError::Contention { .. } => {
            Failure::Store(e.to_string())
        }
        StoreError::NotAnItem { .. } => Failure::Store(format!("{e}{SKIP_HINT}")),
        StoreError::VersionMismatch { .. }
        | StoreError::AlreadyExists { .. }
        | StoreError::Conflict { .. } => Failure::Conflict(e.to_string()),
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

/// Refuses a `--path` that names something other than a directory.
fn check_dir(dir: &Path) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(bad(format!(
            "{} is not a directory: give a store directory",
            dir.display()
        )));
    }
    Ok(())
}

/// The failure for a store that could not be opened: a missing store or a store in use is
/// the caller's to fix (2), the rest is storage (1).
fn open_failure(dir: &Path, e: OpenError) -> Failure {
    match e {
        OpenError::Missing(_) => bad(format!(
            "no store at {} (create one with `keypath db --path {} init`, or put an item)",
            dir.display(),
            dir.display()
        )),
        OpenError::InUse(_)
        | OpenError::Exists(_)
        | OpenError::OldFormat { .. }
        | OpenError::Io { .. } => bad(e.to_string()),
        other => Failure::Store(format!("opening the store in {}: {other}", dir.display())),
    }
}

/// Creates a store in `dir` with `config`, atomically; a store already there (whoever made
/// it) is an error that changes nothing.
pub(crate) async fn create_store(dir: &Path, config: &Config) -> Result<Db<RedbBackend>, Failure> {
    check_dir(dir)?;
    let store = Store::create(dir, &config.store)
        .await
        .map_err(|e| match e {
            OpenError::Exists(_) => bad(format!(
                "a store already exists at {}; its indexes are fixed",
                dir.display()
            )),
            other => open_failure(dir, other),
        })?;
    Ok(Db {
        store,
        config: config.clone(),
    })
}

/// Opens the store in `dir` that has the configuration `config`, creating it with that
/// configuration if there is none; a store with another configuration is an error. For
/// stores written by a program whose indexes the CLI can express, such as `keypath demo
/// --path DIR`.
pub(crate) async fn open_or_create_as(
    dir: &Path,
    config: &Config,
) -> Result<Db<RedbBackend>, Failure> {
    let db = match create_store(dir, config).await {
        Ok(db) => db,
        Err(_)
            if dir
                .join(keypath_store::backend::redb::DATA_FILE_NAME)
                .exists() =>
        {
            Db::open_existing(dir).await?
        }
        Err(e) => return Err(e),
    };
    if db.config.store.indexes != config.store.indexes {
        return Err(bad(format!(
            "{} holds a store with other indexes than {:?}: {:?}",
            dir.display(),
            config.describe(),
            db.config.describe()
        )));
    }
    if db.config.store.group_versions != config.store.group_versions {
        return Err(bad(format!(
            "{} holds a store {} group version counters",
            dir.display(),
            if db.config.store.group_versions {
                "with"
            } else {
                "without"
            }
        )));
    }
    if db.config.store.roots != config.store.roots {
        return Err(bad(format!(
            "{} holds a store that places root items as {:?}, not as {:?}",
            dir.display(),
            db.config.store.roots,
            config.store.roots
        )));
    }
    Ok(db)
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

/// An open store with its index definitions.
pub(crate) struct Db<B: Backend> {
    pub(crate) store: Store<B>,
    pub(crate) config: Config,
}

impl Db<RedbBackend> {
    /// Opens the store in `dir` for reads and writes.
    pub(crate) async fn open_existing(dir: &Path) -> Result<Self, Failure> {
        check_dir(dir)?;
        let store = Store::open_existing(dir)
            .await
            .map_err(|e| open_failure(dir, e))?;
        Db::with_store(store).await
    }

    /// Opens the store in `dir` for reads only (a read-only file system will do).
    async fn open_read_only(dir: &Path) -> Result<Self, Failure> {
        check_dir(dir)?;
        let store = Store::open_read_only(dir)
            .await
            .map_err(|e| open_failure(dir, e))?;
        Db::with_store(store).await
    }
}

impl<B: Backend> Db<B> {
    /// The store with its configuration read.
    pub(crate) async fn with_store(store: Store<B>) -> Result<Self, Failure> {
        let config = Config::from_store(store.config().await.map_err(store_failure)?)?;
        Ok(Db { store, config })
    }

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
fn id_in_text(namespace: &str, text: &str) -> Option<keypath::Id> {
    let probe: KeyPath = format!("/{namespace}-{text}").parse().ok()?;
    let mut segments = probe.segments();
    let id = match (segments.next(), segments.next()) {
        (Some(one), None) => one.id()?.to_id(),
        _ => return None,
    };
    matches!(id, keypath::Id::Int(_) | keypath::Id::Uuid(_)).then_some(id)
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
    #[cfg(feature = "slatedb")]
    if let Some(location) = &args.slatedb {
        return crate::slate::run(location, args.command, out).await;
    }
    let dir = args
        .path
        .as_deref()
        .ok_or_else(|| bad("give the store with --path DIR"))?;
    match args.command {
        DbCommand::Init {
            indexes,
            group_versions,
            roots,
        } => {
            let indexes = parse_index_defs(&indexes)?;
            let config = Config::new(indexes)
                .with_group_versions(group_versions)
                .with_roots(&roots)?;
            create_store(dir, &config).await?;
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

fn data_file(dir: &Path) -> PathBuf {
    dir.join(keypath_store::backend::redb::DATA_FILE_NAME)
}

/// Runs `trial` (a put) on an empty in-memory store with `config`: what it would do to a
/// new store, without making one. `import` names the import file and line for messages.
async fn try_on_memory(
    config: &Config,
    trial: DbCommand,
    import: Option<(u64, &Path)>,
) -> Result<(), Failure> {
    let memory = Store::new(MemoryBackend::new());
    memory
        .create_config(&config.store)
        .await
        .map_err(store_failure)?;
    let db = Db::with_store(memory).await?;
    match db.run(trial, &mut std::io::sink()).await {
        Ok(()) => Ok(()),
        // Said as the import says it, naming the file and line.
        Err(Failure::BadInput(m)) if import.is_some() => {
            let (line, file) = import.expect("checked");
            Err(bad(format!(
                "{}: line {line}: {m} (imported before it: 0 items)",
                file.display()
            )))
        }
        Err(e) => Err(e),
    }
}

/// The store a first write goes to: created with `config` (one without indexes, placed
/// roots or group counters through `Store::open`, which opens a store another process made
/// meanwhile; any other through `open_or_create_as`, which writes the configuration with
/// the store and refuses a store with other indexes).
async fn create_for_first_write(dir: &Path, config: &Config) -> Result<Db<RedbBackend>, Failure> {
    let store = &config.store;
    if store.indexes.is_empty() && store.roots.is_empty() && !store.group_versions {
        check_dir(dir)?;
        let store = Store::open(dir).await.map_err(|e| open_failure(dir, e))?;
        Db::with_store(store).await
    } else {
        open_or_create_as(dir, config).await
    }
}

/// Whether a command makes a store where there is none (`put` and `import` do).
fn creates_store(command: &DbCommand) -> bool {
    matches!(command, DbCommand::Put { .. } | DbCommand::Import { .. })
}

/// Runs a `put` or `import` where there is no store. The store is created only for a write
/// that succeeds: the write (for an import, its configuration line and first item) is first
/// tried on an empty in-memory store, so a refused write leaves nothing behind, and nothing
/// is ever deleted. Then the store is created (or, if another process created it meanwhile,
/// opened: its configuration is the one used) and the command runs on it.
async fn first_write(dir: &Path, command: DbCommand, out: &mut impl Write) -> Result<(), Failure> {
    let (config, write) = try_first_write(command).await?;
    let db = create_for_first_write(dir, &config).await?;
    write.run(&db, out).await
}

/// A `put` or `import` that [`try_first_write`] found a new store would take (or, as
/// `Run`, any command to run on an existing store).
pub(crate) enum FirstWrite {
    Run(DbCommand),
    Import {
        file: PathBuf,
        reader: ImportReader<std::io::BufReader<fs::File>>,
        size: u64,
        pending: Vec<(ImportLine, u64, u64)>,
    },
}

impl FirstWrite {
    /// Runs the write on `db`, the store made with the configuration it came with.
    pub(crate) async fn run<B: Backend>(
        self,
        db: &Db<B>,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        match self {
            FirstWrite::Run(command) => db.run(command, out).await,
            FirstWrite::Import {
                file,
                reader,
                size,
                pending,
            } => import_from(db, &file, reader, size, pending, out).await,
        }
    }
}

/// For a `put` or `import` where there is no store yet (a directory, a DynamoDB table or a
/// SlateDB database without a configuration record): the configuration a new store takes
/// (the export's for an import, none for a put), after trying the write (an import's
/// configuration line and first item) on an empty in-memory store, so that a refused write
/// is refused before anything is made.
pub(crate) async fn try_first_write(command: DbCommand) -> Result<(Config, FirstWrite), Failure> {
    if let DbCommand::Import { file } = command {
        let (mut reader, size) = import_reader(&file)?;
        let first = first_import_records(&mut reader)?;
        let config = first.config.clone().unwrap_or_default();
        if let Some((item, line)) = &first.item {
            let trial = DbCommand::Put {
                path: item.key.clone(),
                json: item.value.clone(),
                if_absent: false,
                if_version: None,
            };
            try_on_memory(&config, trial, Some((*line, file.as_path()))).await?;
        }
        let write = FirstWrite::Import {
            file,
            reader,
            size,
            pending: first.pending,
        };
        return Ok((config, write));
    }
    let DbCommand::Put {
        path,
        json,
        if_absent,
        if_version,
    } = &command
    else {
        unreachable!("only put and import create a store")
    };
    let trial = DbCommand::Put {
        path: path.clone(),
        json: json.clone(),
        if_absent: *if_absent,
        if_version: *if_version,
    };
    let config = Config::default();
    try_on_memory(&config, trial, None).await?;
    Ok((config, FirstWrite::Run(command)))
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
            DbCommand::Export { skip_foreign } => {
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
                            let record = keypath_store::ForeignRecord::new(bytes, Vec::new());
                            let what =
                                format!("the group {} is not a key path: {e}", record.describe());
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
    key: String,
    value: String,
    /// The version the export gave, kept for an item the import creates.
    version: Option<u64>,
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
        let shape = || at("expected {\"key\": \"<key path>\", \"value\": <item>}".into());
        if let (Some(config), 1) = (
            record.get("config"),
            record.as_object().map_or(0, |o| o.len()),
        ) {
            let bytes = serde_json::to_vec(config).map_err(|e| at(e.to_string()))?;
            let store = StoreConfig::from_json(&bytes).map_err(at)?;
            let config = Config::from_store(store).map_err(|e| at(failure_text(e)))?;
            return Ok((ImportLine::Config(config), read as u64));
        }
        let (Some(Value::String(key)), Some(value)) = (record.get("key"), record.get("value"))
        else {
            return Err(shape());
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
                value: value.to_string(),
                version,
            }),
            read as u64,
        ))
    }
}

fn import_reader(
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
    pending: Vec<(ImportLine, u64, u64)>,
}

/// Reads an import up to its first item.
fn first_import_records<R: BufRead>(reader: &mut ImportReader<R>) -> Result<FirstRecords, Failure> {
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

/// How a failure over a record the store did not write ends.
const SKIP_HINT: &str = " (list and export take --skip-foreign to skip such records)";

/// Names a skipped record on stderr.
fn report_skipped(what: &str) {
    let _ = writeln!(std::io::stderr().lock(), "keypath: skipped {what}");
}

impl<B: Backend> Db<B> {
    /// `check`: the store's consistency check over every record, with the entries of the
    /// field indexes the configuration declares computed again from each item.
    async fn check(&self, out: &mut impl Write) -> Result<(), Failure> {
        let backend = self.store.backend();
        let groups = backend
            .groups(0)
            .await
            .map_err(|e| Failure::Store(e.to_string()))?;
        let records = keypath_store::check::dump_groups(backend, groups)
            .await
            .map_err(|e| Failure::Store(e.to_string()))?;
        let expected = |path: &KeyPath, item_type: &str, payload: &[u8]| {
            let last = path.segments().last()?;
            let namespace = last.namespace();
            if !self.config.indexes.iter().any(|d| d.namespace == namespace) {
                return None;
            }
            let raw = RawItem::from_payload(path.clone(), item_type, 0, payload.to_vec());
            let json::Stored(value) = raw.decode().ok()?;
            // An item whose entries cannot be computed is reported by the check's own
            // comparison (it then expects none).
            Some(self.index_entries(path, &value).unwrap_or_default())
        };
        let kept = backend.maintained_indexes().unwrap_or_default();
        match keypath_store::check::check_store(&records, kept, expected) {
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
                let count = problems.lines().count();
                for line in problems.lines() {
                    let _ = writeln!(err, "keypath: {line}");
                }
                Err(Failure::Store(format!(
                    "check found {count} problem{}",
                    if count == 1 { "" } else { "s" }
                )))
            }
        }
    }

    /// Lists a page; with `skip_foreign`, records the store did not write are named on
    /// stderr and left out.
    async fn list(&self, query: &Query, skip_foreign: bool) -> Result<Page<RawItem>, Failure> {
        if !skip_foreign {
            return self.store.list_raw(query).await.map_err(store_failure);
        }
        let mut skipped = Vec::new();
        let page = self
            .store
            .list_raw_skipping(query, &mut skipped)
            .await
            .map_err(store_failure)?;
        for (record, reason) in skipped {
            report_skipped(&format!("{}: {reason}", record.describe()));
        }
        Ok(page)
    }
}

async fn import<B: Backend>(db: &Db<B>, file: &Path, out: &mut impl Write) -> Result<(), Failure> {
    let (reader, size) = import_reader(file)?;
    import_from(db, file, reader, size, Vec::new(), out).await
}

/// Imports the lines `pending` (already read), then the rest of `reader`.
async fn import_from<B: Backend, R: BufRead>(
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
        let path: KeyPath = item
            .key
            .parse()
            .map_err(|e| bad(at(format!("key {:?}: {e}", item.key))))?;
        let value = json::parse(&item.value).map_err(|e| bad(at(e)))?;
        // A new item keeps the export's version, so clients that hold it still match.
        let mode = item.version.map_or(PutMode::Upsert, PutMode::Restore);
        db.put(&path, &value, mode).await.map_err(|e| match e {
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
