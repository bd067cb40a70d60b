//! Exponential backoff with full jitter, for the retries of the store's writes (a race lost
//! to another writer) and of the DynamoDB backend's requests (throttling): the pause before
//! attempt `n + 1` is uniformly random below `first × 2^n`, the bound growing for at most
//! `doublings` attempts and never above `max`.

use std::time::Duration;

/// How long the pauses between attempts may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Backoff {
    /// The bound of the first pause.
    pub(crate) first: Duration,
    /// How many times the bound doubles at most.
    pub(crate) doublings: u32,
    /// The largest bound.
    pub(crate) max: Duration,
}

impl Backoff {
    /// A random pause before the attempt after `attempt` (counted from 0).
    pub(crate) fn pause(&self, attempt: u32) -> Duration {
        use std::hash::{BuildHasher, Hasher};
        // Random jitter without a dependency: std's randomly keyed hasher.
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(attempt);
        self.pause_from(attempt, h.finish())
    }

    /// The pause for `attempt` that the random number `random` picks: `random` modulo the
    /// attempt's bound, in microseconds.
    fn pause_from(&self, attempt: u32, random: u64) -> Duration {
        let first = u64::try_from(self.first.as_micros()).unwrap_or(u64::MAX);
        let max = u64::try_from(self.max.as_micros()).unwrap_or(u64::MAX);
        let bound = first
            .checked_shl(attempt.min(self.doublings))
            .filter(|b| b >> attempt.min(self.doublings) == first)
            .unwrap_or(u64::MAX)
            .min(max);
        Duration::from_micros(random % bound.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store's writes: 20 µs doubling up to 8 times, at most 5 ms.
    const STORE: Backoff = Backoff {
        first: Duration::from_micros(20),
        doublings: 8,
        max: Duration::from_millis(5),
    };
    /// The DynamoDB backend's requests: 10 ms doubling up to 10 times, at most 1 s.
    const DYNAMODB: Backoff = Backoff {
        first: Duration::from_millis(10),
        doublings: 10,
        max: Duration::from_secs(1),
    };

    /// The largest pause `pause_from` gives: one below the attempt's bound.
    fn largest(b: &Backoff, attempt: u32) -> Duration {
        b.pause_from(attempt, u64::MAX - (u64::MAX % 1_000_000_000_000) - 1)
    }

    #[test]
    fn bounds_double_then_stop_at_the_max() {
        // u64::MAX - u64::MAX % 10^12 - 1 is one below a multiple of every bound used here
        // (each divides 10^12), so the pause is the bound less one microsecond.
        let us = Duration::from_micros;
        let store: Vec<Duration> = (0..12).map(|a| largest(&STORE, a)).collect();
        let want: Vec<Duration> = [
            20, 40, 80, 160, 320, 640, 1280, 2560, 5000, 5000, 5000, 5000,
        ]
        .iter()
        .map(|&b| us(b - 1))
        .collect();
        assert_eq!(store, want);
        let dynamodb: Vec<Duration> = (0..12).map(|a| largest(&DYNAMODB, a)).collect();
        let want: Vec<Duration> = [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000, 1000, 1000]
            .iter()
            .map(|&ms| us(ms * 1000 - 1))
            .collect();
        assert_eq!(dynamodb, want);
        assert_eq!(STORE.pause_from(3, 0), Duration::ZERO);
        assert_eq!(STORE.pause_from(3, 161), us(1));
    }

    #[test]
    fn huge_attempts_and_settings_stay_in_range() {
        for b in [
            STORE,
            DYNAMODB,
            Backoff {
                first: Duration::MAX,
                doublings: u32::MAX,
                max: Duration::MAX,
            },
            Backoff {
                first: Duration::ZERO,
                doublings: 3,
                max: Duration::ZERO,
            },
        ] {
            for attempt in [0, 1, 63, 64, 65, u32::MAX] {
                for random in [0, 1, u64::MAX] {
                    assert!(b.pause_from(attempt, random) <= b.max, "{b:?} {attempt}");
                }
            }
        }
    }

    #[test]
    fn pauses_are_random_below_the_bound() {
        let pauses: Vec<Duration> = (0..200).map(|_| DYNAMODB.pause(12)).collect();
        assert!(pauses.iter().all(|&p| p < Duration::from_secs(1)));
        let mut distinct = pauses.clone();
        distinct.sort();
        distinct.dedup();
        // 200 draws below 10^6 µs: all the same has probability 10^-1194.
        assert!(distinct.len() > 1, "{pauses:?}");
        // Full jitter: the draws spread over the whole range, not just its top.
        assert!(pauses.iter().any(|&p| p < Duration::from_millis(500)));
        assert!(pauses.iter().any(|&p| p >= Duration::from_millis(500)));
    }
}
