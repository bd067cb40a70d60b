//! Contract check of concurrent writers: no lost update, no lost insert.

use std::sync::Arc;

use crate::backend::{Backend, BackendError, Condition, Key, Record, Scan, Write};

use super::support::{decode_u64, must, put};

/// Many tasks: read-modify-write increments of one counter with `VersionEquals` (no lost
/// update), and disjoint inserts (all present).
pub(super) async fn concurrency<B: Backend>(db: Arc<B>) {
    const TASKS: u64 = 8;
    const INCREMENTS: u64 = 10;
    let counter = || Key::new(b"conc".as_slice(), b"counter".as_slice());
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..TASKS {
        let db = db.clone();
        tasks.spawn(async move {
            for i in 0..INCREMENTS {
                loop {
                    let cur = db.get(counter()).await?;
                    let (n, condition) = match &cur {
                        Some(r) => (decode_u64(&r.value), Condition::VersionEquals(r.version)),
                        None => (0, Condition::NotExists),
                    };
                    let version = cur.map_or(1, |r| r.version + 1);
                    let bump = Write::Put {
                        key: counter(),
                        record: Record {
                            value: (n + 1).to_be_bytes().to_vec(),
                            version,
                        },
                        condition,
                    };
                    let mine = put(
                        b"conc-own",
                        &[t as u8, i as u8],
                        b"",
                        1,
                        Condition::NotExists,
                    );
                    match db.write(vec![bump, mine]).await {
                        Ok(()) => break,
                        Err(BackendError::ConditionFailed { index: 0, .. }) => {
                            tokio::task::yield_now().await
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            Ok::<(), BackendError>(())
        });
    }
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(result) => must("concurrent writer", async { result }).await,
            Err(e) => panic!("conformance: concurrent writer panicked: {e}"),
        }
    }
    let n = must("get", db.get(counter()))
        .await
        .map(|r| decode_u64(&r.value));
    assert_eq!(n, Some(TASKS * INCREMENTS), "conformance: no lost update");
    let own = must("scan", db.scan(Scan::group(b"conc-own".to_vec()))).await;
    assert_eq!(
        own.len() as u64,
        TASKS * INCREMENTS,
        "conformance: every task's own writes"
    );
}
