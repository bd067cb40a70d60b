//! How failures are said: exit statuses for store errors, and records the store did not
//! write.

use std::io::Write;

use sortpath_store::backend::BackendError;
use sortpath_store::{CommitError, GetError, ListError, StoreError, WriteError};

use crate::Failure;

pub(super) fn failure_text(f: Failure) -> String {
    match f {
        Failure::BadInput(m)
        | Failure::Store(m)
        | Failure::NotFound(m)
        | Failure::Conflict(m)
        | Failure::MaybeApplied(m) => m,
        Failure::Io(e) => e.to_string(),
        Failure::Problems(n) => format!("{n} problems"),
    }
}

pub(crate) fn bad(message: impl Into<String>) -> Failure {
    Failure::BadInput(message.into())
}

/// Whether a write that failed so may have been applied all the same: its answer was lost
/// ([`BackendError::MaybeApplied`]), or SlateDB fenced its writer after it may have reached
/// the log.
pub(crate) fn maybe_applied(e: &BackendError) -> bool {
    #[cfg(feature = "slatedb")]
    if let BackendError::Storage(source) = e {
        use sortpath_store::backend::slatedb::EngineError;
        if source
            .downcast_ref::<EngineError>()
            .is_some_and(EngineError::is_fenced)
        {
            return true;
        }
    }
    e.may_have_been_applied()
}

/// The failure of a write whose backend failed with `e` (`what`: the write, as
/// `put /a-1`), naming the write: status 5 if it may have been applied, else 1.
pub(crate) fn write_failure(what: &str, e: &BackendError) -> Failure {
    match maybe_applied(e) {
        true => Failure::MaybeApplied(format!("{what}: {e}")),
        false => Failure::Store(format!("{what}: {e}")),
    }
}

/// The exit status a store error maps to: 4 for a condition that does not hold (a version
/// or existence check, a transaction conflict), 5 for a write that may have been applied,
/// 1 for storage, 2 for the rest (bad input).
pub(crate) fn store_failure(e: impl Into<StoreError>) -> Failure {
    let e = e.into();
    if matches!(&e, StoreError::Write(_) | StoreError::Commit(_))
        && e.backend().is_some_and(maybe_applied)
    {
        return Failure::MaybeApplied(e.to_string());
    }
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
