//! Checks an item's MessagePack payload before it is written: one well-formed value, nested
//! at most [`MAX_VALUE_NESTING`] arrays and maps deep.
//!
//! Every reader of a store (this crate's decoder, the TypeScript and Python table clients,
//! `sortpath db export`) follows values at least that deep, so a value the store accepts is
//! one that every one of them reads back. The walk keeps its own stack of element counts:
//! no recursion, whatever the bytes.

use std::fmt;

use crate::limits::MAX_VALUE_NESTING;

/// Why a payload is not stored.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, RawItem, Store, ValueProblem, WriteError};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// // 0x92 opens an array of two values; only one follows.
/// let raw = RawItem::from_payload("/n-1".parse().unwrap(), "n", 0, vec![0x92, 0x01]);
/// let err = store.put_raw_item(&raw, vec![], PutMode::Upsert).await.unwrap_err();
/// assert!(matches!(err, WriteError::BadValue { problem: ValueProblem::Malformed { offset: 2 }, .. }));
/// # });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueProblem {
    /// Arrays and maps nest deeper than `limit`.
    TooDeep {
        /// [`MAX_VALUE_NESTING`].
        limit: usize,
    },
    /// The bytes end, or hold a byte that starts no MessagePack value, at `offset`.
    Malformed {
        /// Where, in bytes from the payload's start.
        offset: usize,
    },
    /// One whole value ends at `offset` and more bytes follow.
    Trailing {
        /// Where the value ends.
        offset: usize,
    },
}

impl fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueProblem::TooDeep { limit } => write!(
                f,
                "nests arrays and maps more than {limit} deep (the most every reader of a store follows)"
            ),
            ValueProblem::Malformed { offset } => write!(
                f,
                "is not MessagePack: cut short or a bad byte at offset {offset}"
            ),
            ValueProblem::Trailing { offset } => write!(
                f,
                "has bytes after its MessagePack value, from offset {offset}"
            ),
        }
    }
}

/// Checks only the nesting of a payload the store's own encoder wrote (well-formed): a
/// payload no longer than the limit cannot nest deeper than it (each array or map takes a
/// byte), so the common case costs one comparison.
#[inline]
pub(crate) fn check_encoded(payload: &[u8]) -> Result<(), ValueProblem> {
    if payload.len() <= MAX_VALUE_NESTING {
        return Ok(());
    }
    check(payload)
}

/// Checks that `payload` is exactly one MessagePack value nested at most
/// [`MAX_VALUE_NESTING`] deep.
pub(crate) fn check(payload: &[u8]) -> Result<(), ValueProblem> {
    // Values still to read in each open array or map (a map's entries count twice).
    let mut open: Vec<u64> = Vec::new();
    let mut at = 0usize;
    let malformed = |offset: usize| ValueProblem::Malformed { offset };
    loop {
        let Some(&marker) = payload.get(at) else {
            return Err(malformed(at));
        };
        // (bytes of the value's head, bytes of data after it, values it contains)
        let (head, data, children): (usize, u64, u64) = match marker {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (1, 0, 0),
            0x80..=0x8f => (1, 0, 2 * u64::from(marker & 0x0f)),
            0x90..=0x9f => (1, 0, u64::from(marker & 0x0f)),
            0xa0..=0xbf => (1, u64::from(marker & 0x1f), 0),
            0xc1 => return Err(malformed(at)),
            // bin 8/16/32, str 8/16/32: a length, then the bytes.
            0xc4 | 0xd9 => (2, read_len(payload, at, 1)?, 0),
            0xc5 | 0xda => (3, read_len(payload, at, 2)?, 0),
            0xc6 | 0xdb => (5, read_len(payload, at, 4)?, 0),
            // ext 8/16/32: a length, a type byte, then the bytes.
            0xc7 => (3, read_len(payload, at, 1)?, 0),
            0xc8 => (4, read_len(payload, at, 2)?, 0),
            0xc9 => (6, read_len(payload, at, 4)?, 0),
            0xca => (5, 0, 0),
            0xcb => (9, 0, 0),
            0xcc | 0xd0 => (2, 0, 0),
            0xcd | 0xd1 => (3, 0, 0),
            0xce | 0xd2 => (5, 0, 0),
            0xcf | 0xd3 => (9, 0, 0),
            // fixext 1/2/4/8/16: a type byte and the bytes.
            0xd4 => (3, 0, 0),
            0xd5 => (4, 0, 0),
            0xd6 => (6, 0, 0),
            0xd7 => (10, 0, 0),
            0xd8 => (18, 0, 0),
            0xdc => (3, 0, read_len(payload, at, 2)?),
            0xdd => (5, 0, read_len(payload, at, 4)?),
            0xde => (3, 0, 2 * read_len(payload, at, 2)?),
            0xdf => (5, 0, 2 * read_len(payload, at, 4)?),
        };
        let end = u64::try_from(at)
            .ok()
            .and_then(|at| at.checked_add(head as u64)?.checked_add(data))
            .filter(|&end| end <= payload.len() as u64)
            .ok_or(malformed(payload.len()))?;
        at = end as usize;
        // An array or a map, empty or not, opens one more level.
        let container = matches!(marker, 0x80..=0x9f | 0xdc..=0xdf);
        if container && open.len() >= MAX_VALUE_NESTING {
            return Err(ValueProblem::TooDeep {
                limit: MAX_VALUE_NESTING,
            });
        }
        if children > 0 {
            open.push(children);
            continue;
        }
        // A whole value was read: close every array and map it completes.
        loop {
            match open.last_mut() {
                None if at == payload.len() => return Ok(()),
                None => return Err(ValueProblem::Trailing { offset: at }),
                Some(left) => {
                    *left -= 1;
                    if *left > 0 {
                        break;
                    }
                    open.pop();
                }
            }
        }
    }
}

/// The big-endian length of `bytes` bytes right after the marker at `at`.
fn read_len(payload: &[u8], at: usize, bytes: usize) -> Result<u64, ValueProblem> {
    let field = payload
        .get(at + 1..at + 1 + bytes)
        .ok_or(ValueProblem::Malformed {
            offset: payload.len(),
        })?;
    Ok(field.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::Value;

    fn nested(levels: usize, inner: Value) -> Value {
        (0..levels).fold(inner, |v, _| Value::Array(vec![v]))
    }

    fn named(v: &Value) -> Vec<u8> {
        rmp_serde::to_vec_named(v).unwrap()
    }

    #[test]
    fn the_limit_is_exact_for_arrays_maps_and_empty_ones() {
        for inner in [Value::from(1), Value::Array(vec![]), serde_json::json!({})] {
            // `inner` itself opens a level when it is an array or a map.
            let own = usize::from(!inner.is_number());
            let fits = nested(MAX_VALUE_NESTING - own, inner.clone());
            assert_eq!(check(&named(&fits)), Ok(()), "{inner}");
            let over = nested(MAX_VALUE_NESTING - own + 1, inner.clone());
            assert_eq!(
                check(&named(&over)),
                Err(ValueProblem::TooDeep {
                    limit: MAX_VALUE_NESTING
                }),
                "{inner}"
            );
            assert_eq!(check_encoded(&named(&over)), check(&named(&over)));
        }
        let mut map = Value::from(true);
        for _ in 0..=MAX_VALUE_NESTING {
            map = serde_json::json!({ "k": map });
        }
        assert!(matches!(
            check(&named(&map)),
            Err(ValueProblem::TooDeep { .. })
        ));
    }

    #[test]
    fn cut_short_bad_and_trailing_bytes_are_named() {
        assert_eq!(check(&[]), Err(ValueProblem::Malformed { offset: 0 }));
        assert_eq!(check(&[0xc1]), Err(ValueProblem::Malformed { offset: 0 }));
        assert_eq!(
            check(&[0x92, 1]),
            Err(ValueProblem::Malformed { offset: 2 })
        );
        assert_eq!(
            check(&[0xa3, b'a']),
            Err(ValueProblem::Malformed { offset: 2 })
        );
        assert_eq!(
            check(&[0xdb, 0xff, 0xff, 0xff, 0xff]),
            Err(ValueProblem::Malformed { offset: 5 })
        );
        assert_eq!(
            check(&[0x01, 0x02]),
            Err(ValueProblem::Trailing { offset: 1 })
        );
        assert_eq!(
            check(&[0x91, 0x90, 0x90]),
            Err(ValueProblem::Trailing { offset: 2 })
        );
        // Every kind of scalar, ext included, in one array.
        let all = [
            0x9c, 0xc0, 0xc3, 0xcc, 1, 0xd1, 0, 1, 0xca, 0, 0, 0, 0, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0,
            0xc4, 1, 9, 0xd9, 1, b'x', 0xd4, 1, 2, 0xc7, 1, 5, 7, 0xe0, 0x80,
        ];
        assert_eq!(check(&all), Ok(()));
    }

    proptest! {
        /// Whatever rmp-serde reads as one value is accepted (when not too deep), and no
        /// input panics the walk.
        #[test]
        fn agrees_with_rmp_serde_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let ours = check(&bytes);
            let mut de = rmp_serde::Deserializer::new(&bytes[..]);
            let theirs = serde::de::IgnoredAny::deserialize(&mut de);
            if theirs.is_ok() && de.get_ref().is_empty() {
                prop_assert_eq!(ours, Ok(()));
            }
            if ours.is_ok() {
                prop_assert!(theirs.is_ok(), "{:?}", bytes);
            }
        }

        #[test]
        fn encoded_values_pass(v in proptest::collection::vec((any::<i64>(), ".{0,20}", any::<f32>(), proptest::collection::vec(any::<u8>(), 0..40)), 0..8)) {
            let compact = rmp_serde::to_vec(&v).unwrap();
            prop_assert_eq!(check(&compact), Ok(()));
            let named = rmp_serde::to_vec_named(&v).unwrap();
            prop_assert_eq!(check(&named), Ok(()));
        }
    }
}
