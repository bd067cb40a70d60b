//! [`State`]: what a [`Store`](crate::Store) and its clones know of the store's
//! configuration, kept in one place and shared.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// When each Rust item type's indexes were last checked against the configuration.
type Declared = HashMap<(&'static str, std::any::TypeId), Instant>;

/// The configuration's root places ([`StoreConfig::roots`](crate::StoreConfig::roots)).
type Roots = Arc<std::collections::BTreeMap<String, crate::RootPlace>>;

/// What a store and its clones have learnt of the configuration, to avoid reading it on every
/// write. Each part is read and changed by the methods of [`Store`](crate::Store) that need it
/// (in `config.rs`, `store/build.rs` and `store/write.rs`).
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The Rust item types (with their item type names) whose indexes this store has
    /// checked against the configuration, declaring what it lacked, and when.
    pub(crate) declared: Mutex<Declared>,
    /// Whether the store keeps group counters, once its configuration was read.
    pub(crate) group_versions: OnceLock<bool>,
    /// Whether the store is known to have a configuration record (never removed).
    pub(crate) configured: AtomicBool,
    /// Indexes this store has seen declared and built (a built index stays built), and when.
    pub(crate) ready: Mutex<HashMap<String, Instant>>,
    /// The root places of the configuration record, once read (they never change).
    pub(crate) roots: OnceLock<Roots>,
    /// The configuration record as last read by [`Store::config`](crate::Store::config) and
    /// its kin, and when the read began: what a raw write on a backend other processes share
    /// checks itself against while it is fresh, instead of reading it again.
    pub(crate) config_read: Mutex<Option<(crate::backend::Record, Instant)>>,
}
