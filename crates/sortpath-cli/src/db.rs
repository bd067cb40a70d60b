//! `sortpath db`: a store from the shell. Items are JSON values under key paths; output is
//! JSON lines, `{"key": "<key path>", "value": <item>, "version": <n>}` (the version is what
//! `put --if-version` takes), and a limited list that has more ends with
//! `{"cursor": "<opaque>"}`.
//!
//! The store's secondary index definitions are fixed when it is created (`init`, or a
//! first `put`/`import` without any) and live inside the store, in its configuration record
//! ([`sortpath_store::StoreConfig`]), which the library reads and writes too.

mod args;
mod commands;
mod config;
mod export;
mod failure;
mod first_write;
mod import;
mod open;

pub(crate) use args::DbArgs;
pub(crate) use commands::run;
pub(crate) use config::{parse_index_defs, Config};
pub(crate) use open::open_or_create_as;

// The other backends open their stores themselves and run the same commands.
#[cfg(feature = "dynamodb")]
pub(crate) use config::IndexDef;
#[cfg(feature = "slatedb")]
pub(crate) use first_write::FirstWrite;
#[cfg(any(feature = "dynamodb", feature = "slatedb"))]
pub(crate) use {
    args::{precheck, DbCommand},
    failure::{bad, store_failure},
    first_write::try_first_write,
    open::Db,
};
