//! Opaque, tamper-evident cursors that resume a list exactly after its last item.
//!
//! ```text
//! 01            CURSOR_FORMAT
//! query:u64     fingerprint of the query (what is listed, its range, its direction)
//! position      the backend sort key of the last record returned
//! check:u64     FNV-1a 64 over everything before it, seeded with CURSOR_CHECK_SEED
//! ```
//! The text form is URL-safe base64 without padding. The check is an integrity check, not a
//! signature: it catches truncation and corruption, and the fingerprint rejects a cursor
//! from another query. A forged cursor can only move the start within the query's own range,
//! because a resumed scan is always clipped to that range.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// Version byte of the cursor layout.
pub const CURSOR_FORMAT: u8 = 0x01;
/// Seed of the cursor's check sum, so that other FNV-hashed data does not pass as a cursor.
pub const CURSOR_CHECK_SEED: u64 = 0x6b65_7970_6174_6801;
/// Bytes of a cursor around its position: format, fingerprint, check.
const FRAME_LEN: usize = 1 + 8 + 8;

/// FNV-1a 64, continued from `state`.
pub(crate) fn fnv1a(mut state: u64, bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    for &b in bytes {
        state ^= u64::from(b);
        state = state.wrapping_mul(PRIME);
    }
    state
}

/// FNV-1a 64 offset basis.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// A position in a list, to resume after. Get one from a page; pass it back with the same query.
///
/// ```
/// use sortpath_store::Cursor;
/// let text = "AQAAAAAAAAAAAQI0MzU2NjU3NDY5MzU2MzY";
/// assert!(text.parse::<Cursor>().is_err()); // not a cursor the store made
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cursor {
    pub(crate) query: u64,
    pub(crate) position: Vec<u8>,
}

impl fmt::Debug for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cursor({self})")
    }
}

/// Why a cursor was rejected.
///
/// ```
/// let err = "!!".parse::<sortpath_store::Cursor>().unwrap_err();
/// assert!(err.to_string().contains("base64"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not URL-safe base64.
    #[error("invalid cursor: expected URL-safe base64, found {0}")]
    NotBase64(String),
    /// Too short, wrong version or failed integrity check (truncated, altered).
    #[error("invalid cursor: {0} (was it truncated or altered?)")]
    Corrupt(&'static str),
    /// A valid cursor of another query.
    #[error("cursor belongs to a different query: resume a list with the query that returned the cursor")]
    OtherQuery,
}

impl Cursor {
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FRAME_LEN + self.position.len());
        out.push(CURSOR_FORMAT);
        out.extend_from_slice(&self.query.to_be_bytes());
        out.extend_from_slice(&self.position);
        let check = fnv1a(CURSOR_CHECK_SEED, &out);
        out.extend_from_slice(&check.to_be_bytes());
        out
    }

    fn from_bytes(bytes: &[u8]) -> Result<Cursor, CursorError> {
        if bytes.len() < FRAME_LEN {
            return Err(CursorError::Corrupt("too short"));
        }
        let (body, check) = bytes.split_at(bytes.len() - 8);
        if fnv1a(CURSOR_CHECK_SEED, body).to_be_bytes() != check {
            return Err(CursorError::Corrupt("integrity check failed"));
        }
        if body[0] != CURSOR_FORMAT {
            return Err(CursorError::Corrupt("unknown cursor format"));
        }
        let mut query = [0u8; 8];
        query.copy_from_slice(&body[1..9]);
        Ok(Cursor {
            query: u64::from_be_bytes(query),
            position: body[9..].to_vec(),
        })
    }

    /// The position if this cursor belongs to the query with fingerprint `query`.
    pub(crate) fn position_for(&self, query: u64) -> Result<&[u8], CursorError> {
        if self.query == query {
            Ok(&self.position)
        } else {
            Err(CursorError::OtherQuery)
        }
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&URL_SAFE_NO_PAD.encode(self.to_bytes()))
    }
}

impl FromStr for Cursor {
    type Err = CursorError;

    fn from_str(s: &str) -> Result<Cursor, CursorError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(s.trim())
            .map_err(|e| CursorError::NotBase64(e.to_string()))?;
        Cursor::from_bytes(&bytes)
    }
}

#[cfg(test)]
mod tests;
