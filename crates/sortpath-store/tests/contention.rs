//! Many tasks writing the same and different groups at once, mixing conditional puts
//! (only-if-version read-modify-write, only-if-absent claims), `update`s and transactions
//! across groups: no lost update, exactly one winner per claim, transfers that neither make
//! nor lose units, indexes exact afterwards, and no deadlock (a time limit fails the test
//! instead of hanging it). On the in-memory and the redb backend.

#![cfg(all(feature = "conformance", feature = "redb"))]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{cases, path, Counter, Ticket};
use sortpath::KeyPath;
use sortpath_store::backend::{memory::MemoryBackend, redb::RedbBackend, Backend, Key, Record};
use sortpath_store::conformance::{check_consistency, dump_redb};
use sortpath_store::{CommitError, PutMode, Query, Store, WriteError};

/// A backend whose every record can be read out.
trait Dump: Backend + Clone {
    async fn dump_all(&self) -> BTreeMap<Key, Record>;
}

impl Dump for MemoryBackend {
    async fn dump_all(&self) -> BTreeMap<Key, Record> {
        self.snapshot().into_iter().collect()
    }
}

impl Dump for RedbBackend {
    async fn dump_all(&self) -> BTreeMap<Key, Record> {
        dump_redb(self).await.unwrap()
    }
}

const TASKS: u64 = 8;

fn ticket(owner: u64, id: i64, updated_at: i64, title: String) -> Ticket {
    Ticket {
        owner,
        id,
        updated_at,
        status: (updated_at % 2 == 0).then(|| "open".to_owned()),
        title,
    }
}

fn get_n(c: Option<sortpath_store::Versioned<Counter>>) -> u64 {
    c.map_or(0, |c| c.item.n)
}

async fn mixed_writers<B: Dump>(store: Store<B>, rounds: u64) {
    // Units moved between two counters in different groups by transactions.
    store.put(&Counter { id: 2, n: 1000 }).await.unwrap();
    store.put(&Counter { id: 3, n: 0 }).await.unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..TASKS {
        let store = store.clone();
        tasks.spawn(async move {
            let mut claims = Vec::new();
            for round in 0..rounds {
                // 1. Only-if-version read-modify-write of a shared counter.
                let p = path("/counter-1");
                loop {
                    let cur = store.get::<Counter>(&p).await.unwrap();
                    let mode = cur
                        .as_ref()
                        .map_or(PutMode::IfAbsent, |c| PutMode::IfVersion(c.version));
                    let next = Counter {
                        id: 1,
                        n: get_n(cur) + 1,
                    };
                    match store.put_with(&next, mode).await {
                        Ok(_) => break,
                        Err(
                            WriteError::VersionMismatch { .. } | WriteError::AlreadyExists { .. },
                        ) => tokio::task::yield_now().await,
                        Err(e) => panic!("task {task}: {e}"),
                    }
                }
                // 2. Every task claims the same ticket; only-if-absent lets one win.
                let claim = ticket(100, round as i64, round as i64, format!("task {task}"));
                match store.put_with(&claim, PutMode::IfAbsent).await {
                    Ok(_) => claims.push(round),
                    Err(WriteError::AlreadyExists { .. }) => {}
                    Err(e) => panic!("task {task}: {e}"),
                }
                // 3. A shared ticket in the claims' group, bumped by `update`.
                store
                    .update(&path("/user-100/ticket--1"), |t: Option<Ticket>| {
                        let mut t = t.unwrap_or_else(|| ticket(100, -1, 0, String::new()));
                        t.updated_at += 1;
                        t.status = (t.updated_at % 3 == 0).then(|| "open".into());
                        Some(t)
                    })
                    .await
                    .unwrap();
                // 4. The task's own group: tickets moved in both indexes.
                let own = ticket(
                    200 + task,
                    (round % 3) as i64,
                    (round * 7 + task) as i64,
                    String::new(),
                );
                store.put(&own).await.unwrap();
                // 5. A transfer between groups in a transaction, retried on conflict.
                let (from, to) = if (task + round) % 2 == 0 {
                    (2, 3)
                } else {
                    (3, 2)
                };
                loop {
                    let mut txn = store.transaction();
                    let pf = KeyPath::new().push("counter", from).unwrap();
                    let pt = KeyPath::new().push("counter", to).unwrap();
                    let f = txn.get::<Counter>(&pf).await.unwrap().unwrap().item;
                    let t = txn.get::<Counter>(&pt).await.unwrap().unwrap().item;
                    if f.n == 0 {
                        break;
                    }
                    txn.put(&Counter {
                        id: from,
                        n: f.n - 1,
                    })
                    .unwrap();
                    txn.put(&Counter { id: to, n: t.n + 1 }).unwrap();
                    match txn.commit().await {
                        Ok(_) => break,
                        Err(CommitError::Conflict { .. }) => tokio::task::yield_now().await,
                        Err(e) => panic!("task {task}: {e}"),
                    }
                }
            }
            claims
        });
    }
    let mut winners: BTreeMap<u64, usize> = BTreeMap::new();
    while let Some(r) = tasks.join_next().await {
        for round in r.unwrap() {
            *winners.entry(round).or_default() += 1;
        }
    }
    let n = |id: u64| {
        let store = store.clone();
        async move {
            get_n(
                store
                    .get::<Counter>(&KeyPath::new().push("counter", id).unwrap())
                    .await
                    .unwrap(),
            )
        }
    };
    assert_eq!(
        n(1).await,
        TASKS * rounds,
        "no lost only-if-version increment"
    );
    assert_eq!(n(2).await + n(3).await, 1000, "transfers keep the total");
    assert_eq!(winners.len() as u64, rounds, "every claim won once");
    assert!(
        winners.values().all(|&w| w == 1),
        "exactly one winner per claim: {winners:?}"
    );
    let shared = store
        .get::<Ticket>(&path("/user-100/ticket--1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        shared.item.updated_at as u64,
        TASKS * rounds,
        "no lost update"
    );
    let claims = store
        .list::<Ticket>(&Query::prefix(&path("/user-100")).unwrap())
        .await
        .unwrap();
    assert_eq!(claims.items.len() as u64, rounds + 1);
    // Indexes exact: every entry points at an item that has it, every item has its entries.
    let all = store.backend().dump_all().await;
    let census = check_consistency(&all).unwrap_or_else(|e| panic!("inconsistent store:\n{e}"));
    let tickets = rounds + 1 + TASKS * rounds.min(3);
    assert_eq!(census.items as u64, tickets + 3, "tickets and counters");
    let by_updated = store
        .query_index::<Ticket>("by_updated", &Query::prefix(&path("/tickets-0")).unwrap())
        .await
        .unwrap();
    assert_eq!(by_updated.items.len() as u64, tickets);
}

async fn within_limit(f: impl std::future::Future<Output = ()>, what: &str) {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .unwrap_or_else(|_| panic!("{what}: not done within 120 s: deadlock or livelock"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mixed_conditional_writes_updates_and_transactions() {
    let rounds = u64::from(cases(25));
    within_limit(
        mixed_writers(Store::new(MemoryBackend::new()), rounds),
        "memory",
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(RedbBackend::create(dir.path()).await.unwrap());
    within_limit(mixed_writers(store, rounds), "redb").await;
}

/// Writers that lose races pause before retrying. On a runtime built without a timer
/// (no `enable_time`), that pause must not panic: every update is applied. The update
/// closure counts its runs, so the test also shows that races were lost and retried.
#[test]
fn contended_writes_need_no_timer() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).await.unwrap();
        let key = path("/counter-1");
        let runs = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..TASKS {
            let (store, key, runs) = (store.clone(), key.clone(), runs.clone());
            tasks.spawn(async move {
                for _ in 0..50 {
                    store
                        .update(&key, |c: Option<Counter>| {
                            runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let n = c.map_or(0, |c| c.n);
                            Some(Counter { id: 1, n: n + 1 })
                        })
                        .await
                        .unwrap();
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap();
        }
        let n = store.get::<Counter>(&key).await.unwrap().unwrap().item.n;
        assert_eq!(n, TASKS * 50);
        let runs = runs.load(std::sync::atomic::Ordering::Relaxed);
        assert!(runs > n, "no race was lost ({runs} runs for {n} updates)");
    });
}
