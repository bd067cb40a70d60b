//! The arguments of `sortpath db`, and reading what they carry (key paths, JSON values)
//! before a store is opened.

use std::fs;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::Value;
use sortpath::KeyPath;

use super::failure::bad;
use crate::json;
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
    pub(super) path: Option<PathBuf>,
    /// Use the SlateDB database at URL_OR_DIR instead of a redb store directory: a local
    /// directory, or an object store URL such as s3://BUCKET/PATH when built with its
    /// object store (settings from the environment). Reads open it as a SlateDB reader,
    /// which fences no writer.
    #[cfg(feature = "slatedb")]
    #[arg(long, value_name = "URL_OR_DIR")]
    #[cfg_attr(feature = "dynamodb", arg(conflicts_with = "dynamodb"))]
    pub(crate) slatedb: Option<String>,
    /// Use the DynamoDB table TABLE instead of a directory (region and credentials from the
    /// environment, as the AWS CLI reads them).
    #[cfg(feature = "dynamodb")]
    #[arg(long, value_name = "TABLE")]
    pub(crate) dynamodb: Option<String>,
    /// With --dynamodb: send requests to this endpoint (a local server such as DynamoDB
    /// Local); without credentials in the environment, dummy ones and us-east-1 are used.
    #[cfg(feature = "dynamodb")]
    #[arg(long, value_name = "URL", requires = "dynamodb")]
    pub(crate) endpoint_url: Option<String>,
    /// With --dynamodb: give up after this many seconds, retries included: on the whole
    /// command for put, get, delete, list and index, on each request for the others. A write
    /// still unanswered then exits 5 (it may have been applied).
    #[cfg(feature = "dynamodb")]
    #[arg(long, value_name = "SECONDS", requires = "dynamodb", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub(crate) timeout: u64,
    #[command(subcommand)]
    pub(crate) command: DbCommand,
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
        /// Take over a store that holds items but no configuration record (written by an
        /// earlier release that kept none): record a configuration for the items there (no
        /// --index declared as data, no --root: the items there would lack their entries or
        /// places). Without it such a store is refused by every write that would record a
        /// configuration: its record may have been lost to damage, and a new one would drop
        /// the indexes it declared.
        #[arg(long)]
        over_items: bool,
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
    /// `export` writes; an item the import creates keeps the line's "version" unless the
    /// store keeps group version counters, which number items themselves), showing
    /// progress. Each line is its own write: a bad line stops the import, and the lines
    /// before it stay imported. Into an existing store, an export whose configuration line
    /// gives other indexes, root places or `group_versions` is refused before any item.
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
    pub(super) prefix: String,
    /// Descending key order (largest key first).
    #[arg(long)]
    pub(super) reverse: bool,
    /// At most this many items (1 or more); a `{"cursor": ...}` line follows when there are
    /// more.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) limit: Option<u64>,
    /// Resume after the page that printed this cursor (same query only).
    #[arg(long)]
    pub(super) cursor: Option<String>,
    /// Only keys after this path.
    #[arg(long, value_name = "PATH")]
    pub(super) gt: Option<String>,
    /// Only keys from this path on.
    #[arg(long, value_name = "PATH")]
    pub(super) gte: Option<String>,
    /// Only keys before this path.
    #[arg(long, value_name = "PATH")]
    pub(super) lt: Option<String>,
    /// Only keys up to this path.
    #[arg(long, value_name = "PATH")]
    pub(super) lte: Option<String>,
    /// Only the group's root item and what sorts after it, wherever the store places the
    /// root item (`init --root`): with org=before:user, `list /org-1 --from-root` lists the
    /// org, then its users.
    #[arg(long)]
    pub(super) from_root: bool,
    /// Only what sorts before the group's root item, and the root item itself: with
    /// org=before:user, `list /org-1 --to-root --reverse` lists the org, then its teams.
    #[arg(long)]
    pub(super) to_root: bool,
    /// Skip records that are not items the store wrote (another tool's, in a shared
    /// DynamoDB table), naming each on stderr, instead of failing on the first.
    #[arg(long)]
    pub(super) skip_foreign: bool,
}

pub(super) fn parse_path(what: &str, text: &str) -> Result<KeyPath, Failure> {
    text.parse()
        .map_err(|e| bad(format!("{what} {text:?}: {e}")))
}

pub(super) fn parse_json(what: &str, text: &str) -> Result<Value, Failure> {
    json::parse(text).map_err(|e| bad(format!("{what}: {e}")))
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
