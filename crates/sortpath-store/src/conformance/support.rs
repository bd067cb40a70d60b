//! Helpers the contract checks share: deterministic random bytes, write and error
//! shorthands.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use crate::backend::{BackendError, Condition, Key, Record, Write};

/// Deterministic pseudo-random numbers (SplitMix64), so failures reproduce.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A short byte string over the bytes that trip up encodings, and others.
    pub(super) fn tricky_bytes(&mut self, max_len: usize) -> Vec<u8> {
        const TRICKY: [u8; 8] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF, b'a'];
        let len = 1 + self.below(max_len);
        (0..len)
            .map(|_| {
                if self.below(4) == 0 {
                    self.next() as u8
                } else {
                    TRICKY[self.below(8)]
                }
            })
            .collect()
    }
}

pub(super) fn put(
    group: &[u8],
    sort: &[u8],
    value: &[u8],
    version: u64,
    condition: Condition,
) -> Write {
    Write::Put {
        key: Key::new(group, sort),
        record: Record {
            value: value.to_vec(),
            version,
        },
        condition,
    }
}

pub(super) async fn must<T>(what: &str, fut: impl Future<Output = Result<T, BackendError>>) -> T {
    match fut.await {
        Ok(v) => v,
        Err(e) => panic!("conformance: {what}: unexpected error: {e}"),
    }
}

/// Checks that a `map` error ended a read: it is the result (a storage error with
/// `message`), and `map` ran exactly `calls` times.
pub(super) fn assert_map_error_ended<T: std::fmt::Debug>(
    failed: Result<T, BackendError>,
    message: &str,
    ran: &AtomicUsize,
    calls: usize,
    what: &str,
) {
    match failed {
        Err(BackendError::Storage(e)) => {
            assert_eq!(e.to_string(), message, "conformance: {what} error")
        }
        other => panic!("conformance: {what} gave {other:?}, expected the map error"),
    }
    assert_eq!(
        ran.load(SeqCst),
        calls,
        "conformance: {what} went on after the map error"
    );
}

pub(super) fn condition_failed(
    result: Result<(), BackendError>,
    what: &str,
) -> (usize, Option<u64>) {
    match result {
        Err(BackendError::ConditionFailed { index, current }) => (index, current),
        other => panic!("conformance: {what}: expected ConditionFailed, got {other:?}"),
    }
}

pub(super) fn decode_u64(bytes: &[u8]) -> u64 {
    bytes.try_into().map(u64::from_be_bytes).unwrap_or(u64::MAX)
}
