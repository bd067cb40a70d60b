//! Composite keys for any sorted key-value store with the order-preserving codec: an event
//! log keyed by (tenant ascending, time descending, event ID), so that "the newest events
//! of a tenant" is a forward range scan from the tenant's first key.
//!
//! ```sh
//! cargo run --release -p sortpath --example descending_keys
//! ```
//!
//! The store here is a `BTreeMap<Vec<u8>, _>`, which orders keys by raw bytes as redb,
//! RocksDB, SlateDB, FoundationDB and DynamoDB's sort keys do. Negative numbers, strings
//! with NUL bytes and `Desc` fields all keep their order in the bytes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sortpath::codec::{self, Desc};

/// The key: fields compared in order, as the derived `Ord` would.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct EventKey {
    tenant: String,
    /// Milliseconds since the epoch, newest first.
    at: Desc<i64>,
    id: u32,
}

/// The events of `tenant`, newest first, at most `n`: one range scan.
fn newest(
    log: &BTreeMap<Vec<u8>, String>,
    tenant: &str,
    n: usize,
) -> Result<Vec<(i64, String)>, codec::Error> {
    // Every key of the tenant starts with the encoding of the tenant alone.
    let prefix = codec::to_vec(&tenant)?;
    let mut out = Vec::new();
    for (key, what) in log.range(prefix.clone()..) {
        if !key.starts_with(&prefix) || out.len() == n {
            break;
        }
        let k: EventKey = codec::from_slice(key)?;
        out.push((k.at.0, what.clone()));
    }
    Ok(out)
}

fn run() -> Result<Vec<String>, codec::Error> {
    let mut log = BTreeMap::new();
    let events = [
        ("acme", 1_700_000_000_000, 1, "signed up"),
        ("acme", 1_700_000_500_000, 2, "paid"),
        ("acme", 1_699_999_000_000, 3, "invited"),
        // A tenant whose name extends another's, and one with a NUL byte in its name:
        // neither leaks into "acme"'s range.
        ("acme\0corp", 1_800_000_000_000, 4, "other tenant"),
        ("acmecorp", 1_900_000_000_000, 5, "other tenant"),
        // Before the epoch: a negative time still sorts as a time.
        ("acme", -86_400_000, 6, "founded"),
    ];
    for (tenant, at, id, what) in events {
        let key = EventKey {
            tenant: tenant.into(),
            at: Desc(at),
            id,
        };
        let bytes = codec::to_vec(&key)?;
        // Byte order agrees with the key's own order, and the bytes decode back to it.
        assert_eq!(codec::from_slice::<EventKey>(&bytes)?, key);
        log.insert(bytes, what.to_owned());
    }
    let keys: Vec<EventKey> = log
        .keys()
        .map(|k| codec::from_slice(k))
        .collect::<Result<_, _>>()?;
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "bytes sort as keys");

    let mut out = Vec::new();
    let top = newest(&log, "acme", 3)?;
    assert_eq!(
        top.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>(),
        ["paid", "signed up", "invited"]
    );
    out.push(format!("acme's newest three: {top:?}"));
    let all = newest(&log, "acme", usize::MAX)?;
    assert_eq!(all.last().map(|(at, _)| *at), Some(-86_400_000));
    out.push(format!("acme's oldest: {:?}", all.last()));
    Ok(out)
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> Result<(), codec::Error> {
    for line in run()? {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn newest_first_within_each_tenant() {
        assert_eq!(super::run().unwrap().len(), 2);
    }
}
