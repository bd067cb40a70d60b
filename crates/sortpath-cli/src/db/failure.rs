//! How failures are said: exit statuses for store errors, and records the store did not
//! write.

use std::io::Write;

use sortpath_store::{CommitError, GetError, ListError, StoreError, WriteError};

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
pub(crate) fn store_failure(e: impl Into<StoreError>) -> Failure {
    let e = e.into();
    // The write's own failure, wherever it came from (a transaction's commit included).
    let write = match &e {
        StoreError::Write(w) | StoreError::Commit(CommitError::Write(w)) => Some(w),
        _ => None,
    };
    let storage = e.backend().is_some()
        || matches!(
            &e,
            StoreError::Get(GetError::Config(_)) | StoreError::List(ListError::Config(_))
        )
        || matches!(
            write,
            Some(WriteError::Config(_) | WriteError::Contention { .. })
        );
    let foreign = matches!(
        &e,
        StoreError::Get(GetError::NotAnItem(_)) | StoreError::List(ListError::NotAnItem(_))
    ) || matches!(write, Some(WriteError::NotAnItem(_)));
    let condition = matches!(&e, StoreError::Commit(CommitError::Conflict { .. }))
        || matches!(
            write,
            Some(WriteError::VersionMismatch { .. } | WriteError::AlreadyExists { .. })
        );
    if foreign {
        Failure::Store(format!("{e}{SKIP_HINT}"))
    } else if storage {
        Failure::Store(e.to_string())
    } else if condition {
        Failure::Conflict(e.to_string())
    } else {
        Failure::BadInput(e.to_string())
    }
}

/// How a failure over a record the store did not write ends.
pub(super) const SKIP_HINT: &str = " (list and export take --skip-foreign to skip such records)";

/// Names a skipped record on stderr.
pub(super) fn report_skipped(what: &str) {
    let _ = writeln!(std::io::stderr().lock(), "sortpath: skipped {what}");
}
