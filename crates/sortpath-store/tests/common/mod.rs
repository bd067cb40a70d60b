//! Shared test item types and helpers.
#![allow(dead_code)]

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::{Index, Item};

/// A ticket under its owner: `/user-<owner>/ticket-<id>`, indexed by update time (always)
/// and by status (sparse: closed tickets are left out).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    pub owner: u64,
    pub id: i64,
    pub updated_at: i64,
    pub status: Option<String>,
    pub title: String,
}

pub fn by_updated(t: &Ticket) -> Result<Option<KeyPath>, PathError> {
    Ok(Some(
        KeyPath::new()
            .push("tickets", 0u64)?
            .push("updated", t.updated_at)?,
    ))
}

pub fn by_status(t: &Ticket) -> Result<Option<KeyPath>, PathError> {
    match &t.status {
        Some(s) => Ok(Some(
            KeyPath::new()
                .push("status", s.as_str())?
                .push("ticket", t.id)?,
        )),
        None => Ok(None),
    }
}

impl Item for Ticket {
    const TYPE: &'static str = "ticket";
    const INDEXES: &'static [Index<Self>] = &[
        Index::new("by_updated", by_updated),
        Index::new("by_status", by_status),
    ];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("user", self.owner)?
            .push("ticket", self.id)
    }
}

/// A counter item for concurrency tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    pub id: u64,
    pub n: u64,
}

impl Item for Counter {
    const TYPE: &'static str = "counter";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("counter", self.id)
    }
}

pub fn path(text: &str) -> KeyPath {
    text.parse()
        .unwrap_or_else(|e| panic!("bad test path {text}: {e}"))
}

/// Proptest case count: `SORTPATH_PROPTEST_CASES` if set, else `release` (a tenth in debug).
pub fn cases(release: u32) -> u32 {
    std::env::var("SORTPATH_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            (release / 10).max(8)
        } else {
            release
        })
}
