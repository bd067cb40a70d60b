//! Many tasks at once: no lost update, exact indexes while items move, cursors that resume
//! exactly while the collection changes, and transactions that conflict instead of losing
//! writes. Each test runs on the in-memory and the redb backend.

#![cfg(feature = "redb")]

mod common;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use common::{path, Counter, Ticket};
use sortpath::KeyPath;
use sortpath_store::backend::{memory::MemoryBackend, redb::RedbBackend, Backend};
use sortpath_store::{CommitError, Item, Query, Store};

/// Runs `check` on a fresh in-memory store and a fresh redb store, each within a time limit.
async fn on_both<F1, F2>(
    mem: impl FnOnce(Store<MemoryBackend>) -> F1,
    redb: impl FnOnce(Store<RedbBackend>) -> F2,
) where
    F1: std::future::Future<Output = ()>,
    F2: std::future::Future<Output = ()>,
{
    // A deadlock or livelock fails the test instead of hanging it.
    let limit = std::time::Duration::from_secs(120);
    tokio::time::timeout(limit, mem(Store::new(MemoryBackend::new())))
        .await
        .expect("memory: not done within 120 s: deadlock or livelock");
    let dir = tempfile::tempdir().unwrap();
    tokio::time::timeout(limit, redb(Store::create(dir.path()).await.unwrap()))
        .await
        .expect("redb: not done within 120 s: deadlock or livelock");
}

async fn counter_no_lost_update<B: Backend>(store: Store<B>) {
    const TASKS: u64 = 12;
    const EACH: u64 = 20;
    let p = path("/counter-1");
    let first = store.put(&Counter { id: 1, n: 0 }).await.unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..TASKS {
        let (store, p) = (store.clone(), p.clone());
        tasks.spawn(async move {
            for _ in 0..EACH {
                store
                    .update(&p, |c: Option<Counter>| {
                        let mut c = c.unwrap_or(Counter { id: 1, n: 0 });
                        c.n += 1;
                        Some(c)
                    })
                    .await
                    .unwrap();
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.unwrap();
    }
    let c = store.get::<Counter>(&p).await.unwrap().unwrap();
    assert_eq!(c.item.n, TASKS * EACH, "no lost update");
    assert_eq!(
        c.version,
        first + TASKS * EACH,
        "one version step per update"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn counter_incremented_concurrently_ends_exact() {
    on_both(counter_no_lost_update, counter_no_lost_update).await;
}

/// Tickets listed by `updated_at`, newest first, while writers keep bumping them.
async fn index_stays_exact_under_updates<B: Backend>(store: Store<B>) {
    const TICKETS: i64 = 40;
    let clock = Arc::new(AtomicI64::new(0));
    for id in 0..TICKETS {
        let t = Ticket {
            owner: (id % 4) as u64,
            id,
            updated_at: clock.fetch_add(1, Ordering::SeqCst),
            status: None,
            title: String::new(),
        };
        store.put(&t).await.unwrap();
    }
    let mut writers = tokio::task::JoinSet::new();
    for w in 0..4i64 {
        let (store, clock) = (store.clone(), clock.clone());
        writers.spawn(async move {
            for i in 0..30i64 {
                let id = (w * 7 + i * 13) % TICKETS;
                let p = KeyPath::new()
                    .push("user", (id % 4) as u64)
                    .unwrap()
                    .push("ticket", id)
                    .unwrap();
                store
                    .update(&p, |t: Option<Ticket>| {
                        t.map(|mut t| {
                            t.updated_at = clock.fetch_add(1, Ordering::SeqCst);
                            t.status = if i % 3 == 0 {
                                Some("open".into())
                            } else {
                                None
                            };
                            t
                        })
                    })
                    .await
                    .unwrap();
            }
        });
    }
    let latest = Query::prefix(&path("/tickets-0")).unwrap().reverse();
    let reader = {
        let store = store.clone();
        let latest = latest.clone();
        tokio::spawn(async move {
            for _ in 0..20 {
                let mut cursor = None;
                loop {
                    let mut q = latest.clone().limit(7);
                    if let Some(c) = cursor.take() {
                        q = q.after(c);
                    }
                    let page = store.query_index::<Ticket>("by_updated", &q).await.unwrap();
                    let times: Vec<i64> = page.items.iter().map(|t| t.item.updated_at).collect();
                    assert!(
                        times.windows(2).all(|w| w[0] > w[1]),
                        "page is newest first: {times:?}"
                    );
                    match page.cursor {
                        Some(c) => cursor = Some(c),
                        None => break,
                    }
                }
            }
        })
    };
    while let Some(r) = writers.join_next().await {
        r.unwrap();
    }
    reader.await.unwrap();
    let all = store
        .query_index::<Ticket>("by_updated", &latest)
        .await
        .unwrap()
        .items;
    assert_eq!(
        all.len() as i64,
        TICKETS,
        "every ticket exactly once in the index"
    );
    let mut expected = store
        .list_raw(&Query::prefix(&path("/user-0")).unwrap())
        .await
        .unwrap()
        .items
        .len();
    for o in 1..4 {
        expected += store
            .list_raw(&Query::prefix(&path(&format!("/user-{o}"))).unwrap())
            .await
            .unwrap()
            .items
            .len();
    }
    assert_eq!(expected as i64, TICKETS);
    for t in &all {
        let current = store.get::<Ticket>(&t.key).await.unwrap().unwrap();
        assert_eq!(current.item, t.item, "the index returns current items");
    }
    let times: Vec<i64> = all.iter().map(|t| t.item.updated_at).collect();
    assert!(times.windows(2).all(|w| w[0] > w[1]));
    let open = store
        .query_index::<Ticket>("by_status", &Query::prefix(&path("/status-open")).unwrap())
        .await
        .unwrap();
    let open_now = all.iter().filter(|t| t.item.status.is_some()).count();
    assert_eq!(
        open.items.len(),
        open_now,
        "the sparse index holds exactly the open tickets"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tickets_by_updated_at_while_updated_concurrently() {
    on_both(
        index_stays_exact_under_updates,
        index_stays_exact_under_updates,
    )
    .await;
}

/// Paging resumes exactly after the last item while other items come and go.
async fn cursors_resume_under_churn<B: Backend>(store: Store<B>) {
    let ticket = |id: i64| Ticket {
        owner: 1,
        id,
        updated_at: 0,
        status: None,
        title: String::new(),
    };
    for id in (0..120).step_by(2) {
        store.put(&ticket(id)).await.unwrap();
    }
    let churn = {
        let store = store.clone();
        tokio::spawn(async move {
            for round in 0..150i64 {
                let odd = (round * 37 % 120) | 1;
                if round % 2 == 0 {
                    store.put(&ticket(odd)).await.unwrap();
                } else {
                    store
                        .delete(&ticket(odd).key_path().unwrap())
                        .await
                        .unwrap();
                }
                tokio::task::yield_now().await;
            }
        })
    };
    for reverse in [false, true] {
        for _ in 0..5 {
            let mut q = Query::children(&path("/user-1"), "ticket").unwrap();
            if reverse {
                q = q.reverse();
            }
            let mut seen = Vec::new();
            let mut cursor = None;
            loop {
                let mut page_q = q.clone().limit(7);
                if let Some(c) = cursor.take() {
                    page_q = page_q.after(c);
                }
                let page = store.list::<Ticket>(&page_q).await.unwrap();
                seen.extend(page.items.iter().map(|t| t.item.id));
                match page.cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
                tokio::task::yield_now().await;
            }
            let mut sorted = seen.clone();
            sorted.sort();
            sorted.dedup();
            if reverse {
                sorted.reverse();
            }
            assert_eq!(seen, sorted, "strictly ordered, no item twice");
            let stable: Vec<i64> = seen.iter().copied().filter(|id| id % 2 == 0).collect();
            let mut all_even: Vec<i64> = (0..120).step_by(2).collect();
            if reverse {
                all_even.reverse();
            }
            assert_eq!(stable, all_even, "every item present throughout is listed");
        }
    }
    churn.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cursor_resumption_under_concurrent_inserts_and_deletes() {
    on_both(cursors_resume_under_churn, cursors_resume_under_churn).await;
}

async fn transactions_conflict<B: Backend>(store: Store<B>) {
    let a = Counter { id: 1, n: 10 };
    let b = Counter { id: 2, n: 0 };
    store.put(&a).await.unwrap();
    store.put(&b).await.unwrap();
    let mut txn = store.transaction();
    let read_a = txn
        .get::<Counter>(&path("/counter-1"))
        .await
        .unwrap()
        .unwrap();
    // Another writer changes what the transaction read.
    store.put(&Counter { id: 1, n: 11 }).await.unwrap();
    txn.put(&Counter {
        id: 2,
        n: read_a.item.n,
    })
    .unwrap();
    match txn.commit().await {
        Err(CommitError::Conflict { key }) => assert_eq!(key, path("/counter-1")),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(
        store
            .get::<Counter>(&path("/counter-2"))
            .await
            .unwrap()
            .unwrap()
            .item
            .n,
        0,
        "nothing written"
    );

    // Concurrent transfers with retries keep the total.
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..6u64 {
        let store = store.clone();
        tasks.spawn(async move {
            for i in 0..10u64 {
                let (from, to) = if (t + i) % 2 == 0 { (1, 2) } else { (2, 1) };
                loop {
                    let mut txn = store.transaction();
                    let pf = KeyPath::new().push("counter", from).unwrap();
                    let pt = KeyPath::new().push("counter", to).unwrap();
                    let f = txn.get::<Counter>(&pf).await.unwrap().unwrap().item;
                    let g = txn.get::<Counter>(&pt).await.unwrap().unwrap().item;
                    if f.n == 0 {
                        break;
                    }
                    txn.put(&Counter {
                        id: from,
                        n: f.n - 1,
                    })
                    .unwrap();
                    txn.put(&Counter { id: to, n: g.n + 1 }).unwrap();
                    match txn.commit().await {
                        Ok(_) => break,
                        Err(CommitError::Conflict { .. }) => tokio::task::yield_now().await,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.unwrap();
    }
    let n1 = store
        .get::<Counter>(&path("/counter-1"))
        .await
        .unwrap()
        .unwrap()
        .item
        .n;
    let n2 = store
        .get::<Counter>(&path("/counter-2"))
        .await
        .unwrap()
        .unwrap()
        .item
        .n;
    assert_eq!(n1 + n2, 11, "transfers neither create nor lose units");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transactions_fail_on_conflict_and_keep_invariants() {
    on_both(transactions_conflict, transactions_conflict).await;
}
