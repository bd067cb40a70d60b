//! Records the public API of the publishable sortpath crates and checks it.
//!
//! The public surface of a crate (every public item with all features, its path, kind and
//! signature) is read from the crate's rustdoc JSON and rendered as sorted lines
//! ([`render`]); the rendering of each crate is committed under `api/` at the workspace
//! root. The `snapshot` test renders the crates again and fails with a diff when a line was
//! added, removed or changed, so every change to the public API is a deliberate one: it
//! comes with the re-recorded file (see `docs/API.md`).
//!
//! Rustdoc's JSON output is unstable: the stable toolchain writes it when
//! `RUSTC_BOOTSTRAP=1` is set, and each toolchain writes one format version. This crate
//! reads the version [`rustdoc_types::FORMAT_VERSION`] and says so when it finds another.
//!
//! ```
//! // Two renderings that differ in one line: the diff names it with its side.
//! let before = "sortpath::a  pub fn a()\nsortpath::b  pub fn b()\n";
//! let after = "sortpath::a  pub fn a()\nsortpath::b  pub fn b(x: u8)\n";
//! let diff = sortpath_api::diff(before, after).expect("the renderings differ");
//! assert_eq!(diff, "- sortpath::b  pub fn b()\n+ sortpath::b  pub fn b(x: u8)\n");
//! assert_eq!(sortpath_api::diff(before, before), None);
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

mod render;

pub use render::render;

/// The environment variable that re-records the snapshots instead of checking them.
pub const BLESS_VAR: &str = "SORTPATH_BLESS_API";

/// The command that re-records every snapshot under `api/`.
pub const BLESS_COMMAND: &str =
    "SORTPATH_BLESS_API=1 cargo test --release -p sortpath-api --test snapshot";

/// The crates whose public API is recorded: package name, and the file under `api/`.
///
/// `sortpath-cli` is not among them: it has no library target (its surface is the
/// `sortpath` command line, which its own tests cover).
pub const CRATES: &[&str] = &["sortpath", "sortpath-derive", "sortpath-store"];

/// Why a surface could not be produced.
#[derive(Debug)]
pub enum Error {
    /// `cargo rustdoc` could not be started, or failed.
    Cargo {
        /// The package documented.
        package: String,
        /// What went wrong (the exit status and cargo's error output).
        detail: String,
    },
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The JSON file is not rustdoc JSON of the version this crate reads.
    Json {
        /// The file.
        path: PathBuf,
        /// What was expected and what was found.
        detail: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cargo { package, detail } => {
                write!(f, "cargo rustdoc for {package} failed: {detail}")
            }
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Json { path, detail } => write!(f, "{}: {detail}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Runs `cargo rustdoc` on `package`'s library with every feature, writing JSON into
/// `target_dir` (a directory of its own: a `cargo` already running holds the lock of its
/// own), and returns the JSON file's path. `manifest` is the workspace's (or a crate's)
/// `Cargo.toml`; `features` are passed as they are (`--all-features` for the workspace).
///
/// ```no_run
/// let json = sortpath_api::rustdoc_json(
///     std::path::Path::new("Cargo.toml"),
///     "sortpath",
///     &["--all-features"],
///     std::path::Path::new("target/api-snapshot"),
/// )?;
/// let lines = sortpath_api::render(&sortpath_api::load(&json)?);
/// assert!(lines.iter().any(|l| l.starts_with("sortpath::KeyPath  ")));
/// # Ok::<(), sortpath_api::Error>(())
/// ```
pub fn rustdoc_json(
    manifest: &Path,
    package: &str,
    features: &[&str],
    target_dir: &Path,
) -> Result<PathBuf, Error> {
    let json = target_dir
        .join("doc")
        .join(format!("{}.json", package.replace('-', "_")));
    // A stale file from an earlier run must never stand in for this one's.
    match std::fs::remove_file(&json) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(Error::Io { path: json, source }),
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .arg("rustdoc")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(manifest)
        .args(["-p", package, "--lib"])
        .args(features)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        // Rustdoc's JSON output is unstable; this lets the stable toolchain write it.
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target_dir)
        // Warnings are the `cargo doc` gate's business, not this one's.
        .env_remove("RUSTDOCFLAGS")
        .output()
        .map_err(|e| Error::Cargo {
            package: package.to_string(),
            detail: format!("could not run {}: {e}", cargo.to_string_lossy()),
        })?;
    if !output.status.success() {
        return Err(Error::Cargo {
            package: package.to_string(),
            detail: format!(
                "{}\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ),
        });
    }
    if !json.is_file() {
        return Err(Error::Cargo {
            package: package.to_string(),
            detail: format!("it succeeded but wrote no {}", json.display()),
        });
    }
    Ok(json)
}

/// Reads a rustdoc JSON file, checking its format version first.
///
/// ```
/// let missing = std::path::Path::new("no/such/file.json");
/// let err = sortpath_api::load(missing).expect_err("there is no such file");
/// assert!(err.to_string().starts_with("no/such/file.json: "));
/// ```
pub fn load(path: &Path) -> Result<rustdoc_types::Crate, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text).map_err(|detail| Error::Json {
        path: path.to_path_buf(),
        detail,
    })
}

/// Parses rustdoc JSON text, checking its format version first; the error says what was
/// expected and what was found.
///
/// ```
/// let err = sortpath_api::parse(r#"{"format_version": 1}"#).expect_err("too old");
/// assert!(err.contains("found 1"), "{err}");
/// ```
pub fn parse(text: &str) -> Result<rustdoc_types::Crate, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("expected rustdoc JSON: {e}"))?;
    let found = value.get("format_version").and_then(|v| v.as_u64());
    let expected = rustdoc_types::FORMAT_VERSION;
    match found {
        Some(v) if v == u64::from(expected) => {}
        Some(v) => {
            return Err(format!(
                "expected rustdoc JSON format version {expected} (the one rustdoc-types \
                 reads), found {v}: this toolchain needs the rustdoc-types release whose \
                 FORMAT_VERSION is {v} in crates/sortpath-api/Cargo.toml"
            ))
        }
        None => return Err("expected rustdoc JSON, found no format_version field".to_string()),
    }
    serde_json::from_value(value).map_err(|e| {
        format!("expected rustdoc JSON format version {expected}, could not read it: {e}")
    })
}

/// The rendering as file text: one line each, each ending in a newline.
///
/// ```
/// let lines = vec!["x  crate x".to_string(), "x::f  pub fn f()".to_string()];
/// assert_eq!(sortpath_api::to_text(&lines), "x  crate x\nx::f  pub fn f()\n");
/// ```
pub fn to_text(lines: &[String]) -> String {
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// The lines that differ between two renderings, in order, `- ` for a line only in
/// `expected` and `+ ` for one only in `actual` (a changed item is its old line and its new
/// one, side by side, since lines sort by path). `None` when they hold the same lines.
/// Blank lines are ignored and the order of either input does not matter.
pub fn diff(expected: &str, actual: &str) -> Option<String> {
    let mut old: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut new: Vec<&str> = actual.lines().filter(|l| !l.trim().is_empty()).collect();
    old.sort_unstable();
    old.dedup();
    new.sort_unstable();
    new.dedup();
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a < b => {
                out.push_str(&format!("- {a}\n"));
                i += 1;
            }
            (Some(_), Some(b)) | (None, Some(b)) => {
                out.push_str(&format!("+ {b}\n"));
                j += 1;
            }
            (Some(a), None) => {
                out.push_str(&format!("- {a}\n"));
                i += 1;
            }
            (None, None) => break,
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}
