//! The model's item type ([`Ticket`]) and operations ([`Op`]), and how to make operations
//! from bytes ([`ops_from_bytes`]) or a seed ([`random_ops`]).

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};

use crate::conformance::support::Rng;
use crate::{Index, Item};

/// Owners (item groups) per model space: owner `o` of space `s` is group `/user-<s*3+o>`.
pub const OWNERS: u64 = 3;
/// The statuses tickets take: `None` leaves a ticket out of the sparse `by_status` index;
/// the empty string and a NUL byte are the awkward group IDs.
pub const STATUSES: [Option<&str>; 4] = [None, Some("open"), Some(""), Some("a\0b")];
/// Ticket IDs the operations use: `-3..5`.
pub const IDS: std::ops::Range<i64> = -3..5;
/// `updated_at` values the operations use: `-4..4`.
pub const UPDATED: std::ops::Range<i64> = -4..4;

/// The model's item type: a ticket at `/user-<owner>/ticket-<id>`, in two secondary indexes:
/// `by_updated` (every ticket, at `/tickets-<space>/updated-<updated_at>`, or at the index
/// group `/tickets-<space>` itself while `updated_at` is 0, so that one index group holds
/// index paths of two lengths) and `by_status` (sparse: only tickets with a status, at
/// `/status-<status>/ticket-<id>`).
///
/// ```
/// use sortpath_store::conformance::model::Ticket;
/// use sortpath_store::Item;
/// let t = Ticket { owner: 1, id: -2, updated_at: 3, status: Some("open".into()), title: "x".into() };
/// assert_eq!(t.key_path().unwrap().to_string(), "/user-1/ticket--2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// The owner: the first key path component, so the item group.
    pub owner: u64,
    /// The ticket ID under its owner.
    pub id: i64,
    /// Indexed by `by_updated`.
    pub updated_at: i64,
    /// Indexed by `by_status` when present.
    pub status: Option<String>,
    /// Not indexed.
    pub title: String,
}

/// The group ID of a status in the `by_status` index of `space` (space 0 uses the status
/// itself, so the empty string and NUL bytes become group IDs).
pub(super) fn status_id(space: u64, status: &str) -> String {
    if space == 0 {
        status.to_owned()
    } else {
        format!("{space}:{status}")
    }
}

/// The `by_updated` index key path of a ticket: the index group alone while `updated_at`
/// is 0 (never updated), so such tickets come first in the index, before every
/// `updated-<n>`, negative ones included.
///
/// ```
/// use sortpath_store::conformance::model::{by_updated, Ticket};
/// let mut t = Ticket { owner: 4, id: 1, updated_at: -2, status: None, title: String::new() };
/// assert_eq!(by_updated(&t).unwrap().unwrap().to_string(), "/tickets-1/updated--2");
/// t.updated_at = 0;
/// assert_eq!(by_updated(&t).unwrap().unwrap().to_string(), "/tickets-1");
/// ```
pub fn by_updated(t: &Ticket) -> Result<Option<KeyPath>, PathError> {
    let group = KeyPath::new().push("tickets", t.owner / OWNERS)?;
    Ok(Some(match t.updated_at {
        0 => group,
        n => group.push("updated", n)?,
    }))
}

/// The `by_status` index key path of a ticket (`None` without a status).
///
/// ```
/// use sortpath_store::conformance::model::{by_status, Ticket};
/// let t = Ticket { owner: 0, id: 1, updated_at: 0, status: Some("open".into()), title: String::new() };
/// assert_eq!(by_status(&t).unwrap().unwrap().to_string(), "/status-open/ticket-1");
/// ```
pub fn by_status(t: &Ticket) -> Result<Option<KeyPath>, PathError> {
    match &t.status {
        Some(s) => Ok(Some(
            KeyPath::new()
                .push("status", status_id(t.owner / OWNERS, s).as_str())?
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

/// How an [`Op::Put`] treats an existing ticket.
///
/// ```
/// assert_ne!(sortpath_store::conformance::model::PutKind::Upsert,
///            sortpath_store::conformance::model::PutKind::IfAbsent);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PutKind {
    /// [`PutMode::Upsert`](crate::PutMode::Upsert).
    Upsert,
    /// [`PutMode::IfAbsent`](crate::PutMode::IfAbsent).
    IfAbsent,
    /// [`PutMode::IfVersion`](crate::PutMode::IfVersion) with the ticket's current version
    /// (0 if absent: fails).
    IfVersionCurrent,
    /// [`PutMode::IfVersion`](crate::PutMode::IfVersion) with a version the ticket does not
    /// have.
    IfVersionStale,
}

/// One store operation. Owners are relative to the model's space (`0..OWNERS`).
///
/// ```
/// use sortpath_store::conformance::model::Op;
/// let op = Op::Delete { owner: 0, id: 1 };
/// assert!(op.writes());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Put a ticket (its `owner` relative to the space).
    Put {
        /// The ticket.
        ticket: Ticket,
        /// Plain or conditional.
        kind: PutKind,
    },
    /// [`Store::delete`](crate::Store::delete).
    Delete {
        /// Owner (relative).
        owner: u64,
        /// Ticket ID.
        id: i64,
    },
    /// [`Store::delete_if_version`](crate::Store::delete_if_version) with the current version
    /// or a wrong one.
    DeleteIfVersion {
        /// Owner (relative).
        owner: u64,
        /// Ticket ID.
        id: i64,
        /// Whether to give the current version (else a wrong one).
        current: bool,
    },
    /// [`Store::update`](crate::Store::update): set `updated_at` and `status` of the ticket
    /// if it exists (moves it in both indexes; an absent ticket stays absent).
    Update {
        /// Owner (relative).
        owner: u64,
        /// Ticket ID.
        id: i64,
        /// The new `updated_at`.
        updated_at: i64,
        /// The new status.
        status: Option<String>,
    },
    /// A transaction: read `reads`, then put `puts` and delete `deletes` (later writes of a
    /// key win). With `interfere` and at least one read, another writer changes the first
    /// item read before the commit, which must then fail with a conflict and write nothing.
    Txn {
        /// Keys read first (owner relative, ID).
        reads: Vec<(u64, i64)>,
        /// Tickets put.
        puts: Vec<Ticket>,
        /// Keys deleted.
        deletes: Vec<(u64, i64)>,
        /// Whether a concurrent writer changes the first read item before the commit.
        interfere: bool,
    },
    /// List an owner's tickets (optionally with IDs in `[from, to)`), page by page.
    List {
        /// Owner (relative).
        owner: u64,
        /// Ticket ID range `[from, to)`.
        range: Option<(i64, i64)>,
        /// Descending.
        reverse: bool,
        /// Page size.
        limit: usize,
    },
    /// Query `by_updated` (optionally from `updated_at >= from`), page by page.
    ByUpdated {
        /// Lowest `updated_at`.
        from: Option<i64>,
        /// Descending.
        reverse: bool,
        /// Page size.
        limit: usize,
    },
    /// Query `by_status` for one status, page by page.
    ByStatus {
        /// The status.
        status: String,
        /// Descending.
        reverse: bool,
        /// Page size.
        limit: usize,
    },
}

impl Op {
    /// Whether the operation can change the store.
    ///
    /// ```
    /// use sortpath_store::conformance::model::Op;
    /// assert!(!Op::ByUpdated { from: None, reverse: false, limit: 2 }.writes());
    /// ```
    pub fn writes(&self) -> bool {
        !matches!(
            self,
            Op::List { .. } | Op::ByUpdated { .. } | Op::ByStatus { .. }
        )
    }
}

/// Reads operations from bytes, deterministically; missing bytes read as zero.
struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl ByteReader<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn below(&mut self, n: u8) -> u8 {
        self.byte() % n
    }

    fn in_range(&mut self, r: std::ops::Range<i64>) -> i64 {
        r.start + i64::from(self.byte()) % (r.end - r.start)
    }

    fn key(&mut self) -> (u64, i64) {
        (u64::from(self.below(OWNERS as u8)), self.in_range(IDS))
    }

    fn status(&mut self) -> Option<String> {
        STATUSES[usize::from(self.below(4))].map(str::to_owned)
    }

    fn ticket(&mut self) -> Ticket {
        let (owner, id) = self.key();
        let updated_at = self.in_range(UPDATED);
        let status = self.status();
        let len = self.below(4);
        let title = (0..len)
            .map(|_| char::from(b'a' + self.below(26)))
            .collect();
        Ticket {
            owner,
            id,
            updated_at,
            status,
            title,
        }
    }

    fn op(&mut self) -> Op {
        match self.below(16) {
            0..=5 => {
                let ticket = self.ticket();
                let kind = match self.below(4) {
                    0 => PutKind::Upsert,
                    1 => PutKind::IfAbsent,
                    2 => PutKind::IfVersionCurrent,
                    _ => PutKind::IfVersionStale,
                };
                Op::Put { ticket, kind }
            }
            6 => {
                let (owner, id) = self.key();
                Op::Delete { owner, id }
            }
            7 => {
                let (owner, id) = self.key();
                let current = self.below(2) == 0;
                Op::DeleteIfVersion { owner, id, current }
            }
            8 | 9 => {
                let (owner, id) = self.key();
                let updated_at = self.in_range(UPDATED);
                let status = self.status();
                Op::Update {
                    owner,
                    id,
                    updated_at,
                    status,
                }
            }
            10 | 11 => {
                let reads = (0..self.below(3)).map(|_| self.key()).collect();
                let puts = (0..self.below(3)).map(|_| self.ticket()).collect();
                let deletes = (0..self.below(2)).map(|_| self.key()).collect();
                let interfere = self.below(4) == 0;
                Op::Txn {
                    reads,
                    puts,
                    deletes,
                    interfere,
                }
            }
            12 | 13 => {
                let owner = u64::from(self.below(OWNERS as u8));
                let range = (self.below(2) == 0).then(|| (self.in_range(IDS), self.in_range(IDS)));
                let reverse = self.below(2) == 0;
                let limit = 1 + usize::from(self.below(3));
                Op::List {
                    owner,
                    range,
                    reverse,
                    limit,
                }
            }
            14 => {
                let from = (self.below(2) == 0).then(|| self.in_range(UPDATED));
                let reverse = self.below(2) == 0;
                let limit = 1 + usize::from(self.below(3));
                Op::ByUpdated {
                    from,
                    reverse,
                    limit,
                }
            }
            _ => {
                let status = self.status().unwrap_or_default();
                let reverse = self.below(2) == 0;
                let limit = 1 + usize::from(self.below(3));
                Op::ByStatus {
                    status,
                    reverse,
                    limit,
                }
            }
        }
    }
}

/// Most operations [`ops_from_bytes`] makes.
pub const MAX_OPS: usize = 64;

/// Decodes arbitrary bytes into at most [`MAX_OPS`] operations (every input is valid; bytes
/// past the end read as zero), for fuzzing.
///
/// ```
/// use sortpath_store::conformance::model::ops_from_bytes;
/// assert!(ops_from_bytes(&[]).is_empty());
/// assert_eq!(ops_from_bytes(&[0, 1, 2, 3]), ops_from_bytes(&[0, 1, 2, 3]));
/// assert!(!ops_from_bytes(&[0]).is_empty());
/// ```
pub fn ops_from_bytes(data: &[u8]) -> Vec<Op> {
    let mut r = ByteReader { data, pos: 0 };
    let mut ops = Vec::new();
    while r.pos < data.len() && ops.len() < MAX_OPS {
        ops.push(r.op());
    }
    ops
}

/// `count` operations from a seeded generator (the same seed gives the same operations).
///
/// ```
/// use sortpath_store::conformance::model::random_ops;
/// assert_eq!(random_ops(1, 10).len(), 10);
/// assert_eq!(random_ops(1, 10), random_ops(1, 10));
/// ```
pub fn random_ops(seed: u64, count: usize) -> Vec<Op> {
    let mut rng = Rng(seed);
    let bytes: Vec<u8> = (0..count * 16).map(|_| rng.next() as u8).collect();
    let mut r = ByteReader {
        data: &bytes,
        pos: 0,
    };
    (0..count).map(|_| r.op()).collect()
}
