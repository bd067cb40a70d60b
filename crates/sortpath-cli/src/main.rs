//! The `sortpath` command-line tool: encode, decode, inspect and sort key paths, lint string
//! keys, and run a store.

mod db;
mod demo;
#[cfg(feature = "dynamodb")]
mod dynamo;
mod input;
mod json;
mod lint;
mod paths;
mod progress;
mod range;
#[cfg(feature = "slatedb")]
mod slate;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Make keys in sorted key-value stores sort the way people mean them to.
#[derive(Parser, Debug)]
#[command(name = "sortpath", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the lowercase hex of each path's binary form (stdin lines without arguments).
    Encode {
        /// Key paths in text form, e.g. /user-1/post-2.
        paths: Vec<String>,
        /// Print standard base64 (with padding) instead of hex.
        #[arg(long)]
        base64: bool,
        /// Print the group (partition) key and the sort key, separated by a TAB.
        #[arg(long)]
        split: bool,
    },
    /// Print the canonical text of each binary form given in hex (stdin lines without arguments).
    /// Bytes that are not a key path fail, also the keys of the store's own records (`inspect`
    /// describes those).
    Decode {
        /// Encodings in hex (or base64 with --base64); with --split, GROUP SORT pairs.
        keys: Vec<String>,
        /// Read the encodings as base64 (standard alphabet, as in DynamoDB JSON exports).
        #[arg(long)]
        base64: bool,
        /// Read a group key and a sort key (`GROUP<TAB>SORT` lines) and print the joined path.
        #[arg(long)]
        split: bool,
    },
    /// Print the byte range `START<TAB>END` of each query (END `-` when unbounded), from
    /// TAB-separated specs (stdin lines without arguments): `subtree<TAB>PATH`,
    /// `descendants<TAB>PATH`, `children<TAB>PARENT<TAB>NAMESPACE`,
    /// `between<TAB>PARENT<TAB>NAMESPACE<TAB>LOWER<TAB>UPPER` with bounds `*`, `[ID`
    /// (included) or `(ID` (excluded), ID written as after `NAMESPACE-` in a path, and
    /// `paths<TAB>LOWER<TAB>UPPER` with bounds `*`, `[PATH` or `(PATH`.
    Range {
        /// Range specs (TAB-separated fields).
        specs: Vec<String>,
        /// Print standard base64 (with padding) instead of hex.
        #[arg(long)]
        base64: bool,
    },
    /// Read text paths from stdin and print them in canonical text, sorted by their encodings.
    Sort,
    /// Show each segment of a path (text or hex): its bytes, type, value and metadata; or say
    /// which of the store's own records a group key (hex) belongs to.
    Inspect {
        /// A key path in text form, or its binary form in hex.
        key: String,
    },
    /// Report where string keys (one per line) sort differently, as bytes, from what they
    /// mean: numbers of different widths, negatives, case, accents, timestamps with different
    /// UTC offsets, fraction widths or forms, dates with the year last, two-digit years
    /// (12/30/17), bytes below a separator, and keys that are empty, not UTF-8, hold control
    /// bytes or are too long. Exit status 1 when it finds a problem. A field shaped like a
    /// negative strkey::int_key (-986 is int_key(-3)) is taken for one and compares as bytes,
    /// so plain negative numbers of that shape (about 1 in 100) go unchecked. A field of
    /// letters, digits, _ and - with a digit and a lower-case letter right before an
    /// upper-case one (aB_1, x7kPq) is taken for a random ID and compares as bytes, case
    /// included, and so do the fields at the same position (counted in separators) of other
    /// keys that mix letters and digits in that alphabet (Ab_9); plain words (Zoey) are still
    /// checked for case.
    Lint(lint::LintArgs),
    /// Load a generated social app into the embedded store and run its queries.
    Demo {
        /// Keep the store in this directory (default: a temporary one, removed afterwards);
        /// `sortpath db --path DIR` then opens it. A store there that holds, at a key the demo
        /// writes (such as /ticket-7), an item the demo did not write is refused, unchanged.
        #[arg(long, value_name = "DIR")]
        path: Option<std::path::PathBuf>,
        /// Only show how string keys and key paths sort (no store).
        #[arg(long, conflicts_with = "path")]
        keys_only: bool,
        /// Load it into the SlateDB database at this directory (kept; `sortpath db --slatedb
        /// DIR` then opens it).
        #[cfg_attr(
            feature = "slatedb",
            arg(long, value_name = "DIR", conflicts_with_all = ["path", "keys_only"])
        )]
        #[cfg_attr(not(feature = "slatedb"), arg(skip))]
        slatedb: Option<String>,
    },
    /// Run a store from the shell: put, get, delete, list, index, import, export.
    #[command(after_help = EXIT_STATUSES)]
    Db(Box<db::DbArgs>),
}

/// The exit statuses of `sortpath db`, as its help lists them.
const EXIT_STATUSES: &str = "Exit statuses: 0 success; 1 a storage error (I/O, a damaged \
file, DynamoDB's errors) or problems that `check` found; 2 bad input (arguments, paths, JSON, \
a missing store, a store in use, a write the store refuses); 3 `get` of an absent item; 4 a \
condition that does not hold (--if-absent, --if-version); 5 a write that may have been \
applied: its answer was lost or came too late (--timeout), or its SlateDB writer was fenced; \
read the item before writing it again.";

/// A failure with the exit status it maps to: 2 for bad input (arguments included), 3 for
/// an item that is not there, 4 for a conditional write whose condition does not hold (a
/// version, an existence check), 5 for a write that may have been applied (its answer was
/// lost), 1 for I/O and storage, and 1 for `lint` finding problems (this many kinds).
#[derive(Debug)]
pub(crate) enum Failure {
    BadInput(String),
    Problems(usize),
    NotFound(String),
    Conflict(String),
    MaybeApplied(String),
    Store(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

fn main() -> ExitCode {
    quiet_pool_panics();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return argument_error(&e),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(
        1 << 16,
        Named {
            name: "stdout",
            inner: stdout.lock(),
        },
    );
    let result = match cli.command {
        Command::Encode {
            paths,
            base64,
            split,
        } => paths::encode(&paths, base64, split, &mut out),
        Command::Decode {
            keys,
            base64,
            split,
        } => paths::decode(&keys, base64, split, &mut out),
        Command::Range { specs, base64 } => range::range(&specs, base64, &mut out),
        Command::Sort => paths::sort(&mut out),
        Command::Inspect { key } => paths::inspect(&key, &mut out),
        Command::Lint(args) => lint::run(args, &mut out),
        Command::Demo {
            keys_only: true, ..
        } => paths::demo(&mut out),
        Command::Demo { path, slatedb, .. } => {
            runtime().and_then(|rt| rt.block_on(demo::run(path, slatedb, &mut out)))
        }
        Command::Db(args) => runtime().and_then(|rt| rt.block_on(run_db(*args, &mut out))),
    }
    .and_then(|()| out.flush().map_err(Failure::Io));
    let (message, code) = match result {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        Err(Failure::Io(e)) => (e.to_string(), 1),
        Err(Failure::BadInput(message)) => (message, 2),
        Err(Failure::Problems(kinds)) => {
            let s = if kinds == 1 { "" } else { "s" };
            (format!("{kinds} kind{s} of problem found"), 1)
        }
        Err(Failure::NotFound(message)) => (message, 3),
        Err(Failure::Conflict(message)) => (message, 4),
        Err(Failure::MaybeApplied(message)) => (message, 5),
        Err(Failure::Store(message)) => (message, 1),
    };
    let _ = out.flush();
    report(&message);
    ExitCode::from(code)
}

/// Help and version go to stdout (status 0); any other argument error is one line on stderr
/// (the first line of clap's message, which names the argument) and status 2.
fn argument_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            2
        } else {
            0
        };
        return ExitCode::from(code);
    }
    let text = e.render().to_string();
    // clap's message, up to the usage: its first line and what it lists under it (the
    // missing arguments, say), as one line.
    let message = text
        .lines()
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    let message = if message.is_empty() {
        "bad arguments"
    } else {
        message
    };
    report(&format!("{message} (see sortpath --help)"));
    ExitCode::from(2)
}

/// A writer whose errors say what they were writing to ("stdout").
struct Named<W> {
    name: &'static str,
    inner: W,
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.named(e))
    }
}

impl<W> Named<W> {
    fn named(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("writing to {}: {e}", self.name))
    }
}

/// Prints `sortpath: <message>` on stderr. A stderr that cannot be written (closed, full, a
/// pipe whose reader left) loses the message but not the exit status: `eprintln!` would
/// panic instead.
fn report(message: &str) {
    let _ = writeln!(io::stderr().lock(), "sortpath: {message}");
}

/// The store runs redb on tokio's blocking pool, where a panic (redb panics on some damaged
/// store files) is caught and comes back as a store error, which is reported as one line
/// like any other. So panics on other threads print nothing here; a panic on the main
/// thread is a bug and still prints as usual.
fn quiet_pool_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("main") {
            default(info);
        }
    }));
}

/// `sortpath db`: on a DynamoDB table (`--dynamodb`), a SlateDB location (`--slatedb`) or a
/// directory (`--path`). The backend modules use `db`'s parts; `db` knows none of them.
async fn run_db(args: db::DbArgs, out: &mut impl Write) -> Result<(), Failure> {
    #[cfg(feature = "dynamodb")]
    if let Some(table) = &args.dynamodb {
        let timeout = std::time::Duration::from_secs(args.timeout);
        let endpoint = args.endpoint_url.as_deref();
        return dynamo::run(table, endpoint, timeout, args.command, out).await;
    }
    #[cfg(feature = "slatedb")]
    if let Some(location) = &args.slatedb {
        return slate::run(location, args.command, out).await;
    }
    db::run(args, out).await
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Failure::Io)
}
