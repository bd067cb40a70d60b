//! How failures are said: exit statuses for store errors, and records the store did not
//! write.

use std::io::Write;

use keypath_store::StoreError;

use crate::Failure;

pub(super) fn failure_text(f: Failure) -> String {
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

/// How a failure over a record the store did not write ends.
pub(super) const SKIP_HINT: &str = " (list and export take --skip-foreign to skip such records)";

/// Names a skipped record on stderr.
pub(super) fn report_skipped(what: &str) {
    let _ = writeln!(std::io::stderr().lock(), "keypath: skipped {what}");
}
