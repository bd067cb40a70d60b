//! Fault injection: a backend that fails its Nth call, before the call reaches the storage
//! engine or after a write was applied (the acknowledgement lost). For every N over a
//! sequence of store operations, the operation that saw the fault must leave the store fully
//! before or fully after it (items, versions, group counters and every index entry, byte
//! for byte), every later operation must work and match the model, and a redb store must
//! reopen with the same records.

#![cfg(feature = "conformance")]

mod common;

use common::cases;
use sortpath_store::backend::{memory::MemoryBackend, Backend, BackendError};
use sortpath_store::conformance::faulty::{Fault, FaultyBackend};
use sortpath_store::conformance::model::{diff, random_ops, Model, Op, PutKind, Ticket};
use sortpath_store::Store;

fn t(owner: u64, id: i64, updated_at: i64, status: Option<&str>) -> Ticket {
    Ticket {
        owner,
        id,
        updated_at,
        status: status.map(str::to_owned),
        title: format!("t{id}"),
    }
}

/// Every kind of write, with index entries added, moved and removed, and a few reads.
fn scenario() -> Vec<Op> {
    use PutKind::*;
    vec![
        Op::Put {
            ticket: t(0, 1, 1, Some("open")),
            kind: Upsert,
        },
        Op::Put {
            ticket: t(0, 2, 2, Some("")),
            kind: IfAbsent,
        },
        // Moves /user-0/ticket-1 in by_updated, drops it from by_status.
        Op::Put {
            ticket: t(0, 1, 3, None),
            kind: IfVersionCurrent,
        },
        Op::Update {
            owner: 0,
            id: 2,
            updated_at: -1,
            status: Some("a\0b".into()),
        },
        Op::Txn {
            reads: vec![(0, 1), (1, 1)],
            puts: vec![t(1, 1, 0, Some("open")), t(2, 3, 2, Some("open"))],
            deletes: vec![(0, 2)],
            interfere: false,
        },
        Op::Txn {
            reads: vec![(1, 1)],
            puts: vec![t(1, 2, 1, None)],
            deletes: vec![],
            interfere: true,
        },
        Op::ByUpdated {
            from: None,
            reverse: true,
            limit: 2,
        },
        Op::DeleteIfVersion {
            owner: 1,
            id: 1,
            current: true,
        },
        Op::Delete { owner: 2, id: 3 },
        Op::List {
            owner: 0,
            range: None,
            reverse: true,
            limit: 1,
        },
        Op::Put {
            ticket: t(0, 1, 0, None),
            kind: IfVersionStale,
        },
        Op::ByStatus {
            status: "open".into(),
            reverse: false,
            limit: 1,
        },
        Op::Update {
            owner: 1,
            id: 1,
            updated_at: 2,
            status: None,
        },
    ]
}

/// Runs `ops` with call `call` failing as `fault`; checks the failed operation left the
/// store fully before or after it, and every operation after it. Returns the final model
/// and whether the fault fired.
async fn faulted_run<B: Backend>(
    store: &Store<FaultyBackend<B>>,
    ops: &[Op],
    call: u64,
    fault: Fault,
    ctx: &str,
) -> (Model, bool) {
    let backend = store.backend();
    backend.fail_at(call, fault);
    let mut model = Model::new(0);
    let mut failed = None;
    for (step, op) in ops.iter().enumerate() {
        let before = model.clone();
        if let Err(e) = model.run_op(store, op, step).await {
            assert!(
                matches!(e.backend(), Some(BackendError::Storage(s)) if s.to_string().contains("injected fault")),
                "{ctx}: step {step}: {op:?}: an error that is not the injected fault: {e}"
            );
            assert!(failed.is_none(), "{ctx}: a second failure at step {step}");
            failed = Some(step);
            let after = before.after(op);
            // The groups of the state after it: those before, and the configuration's once
            // the first ticket is written.
            let got = after.dump(backend.inner()).await.unwrap();
            // A new item's version, if the write was applied, is the one the store drew.
            let after = after.settled(&got);
            if diff(&got, &before.records()).is_none() {
                // Fully before: the model stays.
            } else if diff(&got, &after.records()).is_none() {
                model = after;
            } else {
                panic!(
                    "{ctx}: step {step}: {op:?} failed ({e}) and left the store neither before nor after it.\nagainst before:\n{}against after:\n{}",
                    diff(&got, &before.records()).unwrap_or_default(),
                    diff(&got, &after.records()).unwrap_or_default()
                );
            }
        }
        model
            .check(
                backend.inner(),
                &format!("{ctx}: after step {step}: {op:?}"),
            )
            .await;
    }
    // The store still takes writes after the fault.
    let extra = Op::Put {
        ticket: t(2, 4, 3, Some("open")),
        kind: PutKind::IfAbsent,
    };
    model
        .run_op(store, &extra, ops.len())
        .await
        .unwrap_or_else(|e| panic!("{ctx}: a write after the fault: {e}"));
    model
        .check(
            backend.inner(),
            &format!("{ctx}: after a write following the fault"),
        )
        .await;
    (model, backend.fired())
}

/// Every armed call must fail, except an ack-lost write the wrapped backend itself refused
/// (a transaction's failing condition check): nothing was applied, so there is no
/// acknowledgement to lose, and `faulted_run` has checked that every step then succeeded.
fn check_fired(fired: bool, fault: Fault, ctx: &str) {
    assert!(
        fired || fault == Fault::AckLost,
        "{ctx}: the fault did not fire"
    );
}

/// The first seed of the random scenarios: `SORTPATH_FAULT_SEED` or a fixed one.
fn base_seed(default: u64) -> u64 {
    std::env::var("SORTPATH_FAULT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// How many backend calls `ops` make without faults.
async fn count_calls(ops: &[Op]) -> u64 {
    let store = Store::new(FaultyBackend::new(MemoryBackend::new()));
    let mut model = Model::new(0);
    for (step, op) in ops.iter().enumerate() {
        model.run_op(&store, op, step).await.unwrap();
    }
    store.backend().calls()
}

async fn every_call_on_memory(ops: &[Op], name: &str) -> u64 {
    let total = count_calls(ops).await;
    for fault in [Fault::Error, Fault::AckLost] {
        for call in 0..total {
            let ctx = format!("{name}, memory, {fault:?} at call {call}");
            let store = Store::new(FaultyBackend::new(MemoryBackend::new()));
            let (_, fired) = faulted_run(&store, ops, call, fault, &ctx).await;
            check_fired(fired, fault, &ctx);
        }
    }
    total
}

#[cfg(feature = "redb")]
async fn every_call_on_redb(ops: &[Op], name: &str) -> u64 {
    use sortpath_store::backend::redb::RedbBackend;
    let total = count_calls(ops).await;
    let mut runs = 0;
    for fault in [Fault::Error, Fault::AckLost] {
        for call in 0..total {
            let ctx = format!("{name}, redb, {fault:?} at call {call}");
            let dir = tempfile::tempdir().unwrap();
            let model = {
                let store = Store::new(FaultyBackend::new(
                    RedbBackend::create(dir.path()).await.unwrap(),
                ));
                let (model, fired) = faulted_run(&store, ops, call, fault, &ctx).await;
                check_fired(fired, fault, &ctx);
                model
            };
            // Reopening the file succeeds and shows the same records.
            let reopened = RedbBackend::open(dir.path())
                .await
                .unwrap_or_else(|e| panic!("{ctx}: reopening: {e}"));
            model.check(&reopened, &format!("{ctx}: reopened")).await;
            let all = sortpath_store::conformance::dump_redb(&reopened)
                .await
                .unwrap();
            if let Some(d) = diff(&all, &model.records()) {
                panic!("{ctx}: records outside the model after reopening:\n{d}");
            }
            runs += 1;
        }
    }
    runs
}

/// [`every_call_on_redb`] on SlateDB, in an in-memory object store: after each faulted run
/// the database is closed and opened again from the object store.
#[cfg(feature = "slatedb")]
async fn every_call_on_slatedb(ops: &[Op], name: &str) -> u64 {
    use slatedb::object_store::{memory::InMemory, ObjectStore};
    use sortpath_store::backend::slatedb::{SlateDbBackend, SlateDbOptions};
    use std::sync::Arc;
    let total = count_calls(ops).await;
    let mut runs = 0;
    for fault in [Fault::Error, Fault::AckLost] {
        for call in 0..total {
            let ctx = format!("{name}, slatedb, {fault:?} at call {call}");
            let objects: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
            let open = || SlateDbBackend::open_in(objects.clone(), "db", SlateDbOptions::default());
            let model = {
                let store = Store::new(FaultyBackend::new(open().await.unwrap()));
                let (model, fired) = faulted_run(&store, ops, call, fault, &ctx).await;
                check_fired(fired, fault, &ctx);
                store.backend().inner().close().await.unwrap();
                model
            };
            let reopened = open()
                .await
                .unwrap_or_else(|e| panic!("{ctx}: reopening: {e}"));
            model.check(&reopened, &format!("{ctx}: reopened")).await;
            let groups = reopened.groups(0).await.unwrap();
            let all = sortpath_store::check::dump_groups(&reopened, groups)
                .await
                .unwrap();
            if let Some(d) = diff(&all, &model.records()) {
                panic!("{ctx}: records outside the model after reopening:\n{d}");
            }
            reopened.close().await.unwrap();
            runs += 1;
        }
    }
    runs
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn fixed_scenario_every_call_fails_once_memory() {
    runtime().block_on(async {
        let total = every_call_on_memory(&scenario(), "fixed scenario").await;
        println!("fixed scenario: {total} backend calls, each failed in 2 ways");
        assert!(total > 20, "the scenario makes {total} calls");
    });
}

#[cfg(feature = "redb")]
#[test]
fn fixed_scenario_every_call_fails_once_redb() {
    runtime().block_on(async {
        let runs = every_call_on_redb(&scenario(), "fixed scenario").await;
        println!("fixed scenario on redb: {runs} faulted runs, each reopened");
    });
}

#[test]
fn random_scenarios_every_call_fails_once_memory() {
    let seeds = u64::from(cases(24));
    runtime().block_on(async {
        let mut total = 0;
        for seed in 0..seeds {
            let seed = base_seed(0xFA17_0000) + seed;
            let ops = random_ops(seed, 16);
            total += every_call_on_memory(&ops, &format!("random scenario seed {seed}")).await;
        }
        println!("{seeds} random scenarios, {total} backend calls, each failed in 2 ways");
    });
}

#[cfg(feature = "redb")]
#[test]
fn random_scenarios_faults_redb() {
    let seeds = u64::from(cases(4));
    runtime().block_on(async {
        let mut runs = 0;
        for seed in 0..seeds {
            let seed = base_seed(0xFA17_1000) + seed;
            let ops = random_ops(seed, 12);
            runs += every_call_on_redb(&ops, &format!("random scenario seed {seed}")).await;
        }
        println!("{seeds} random scenarios on redb: {runs} faulted runs, each reopened");
    });
}

#[cfg(feature = "slatedb")]
#[test]
fn fixed_scenario_every_call_fails_once_slatedb() {
    runtime().block_on(async {
        let runs = every_call_on_slatedb(&scenario(), "fixed scenario").await;
        println!("fixed scenario on slatedb: {runs} faulted runs, each reopened");
    });
}

#[cfg(feature = "slatedb")]
#[test]
fn random_scenarios_faults_slatedb() {
    let seeds = u64::from(cases(4));
    runtime().block_on(async {
        let mut runs = 0;
        for seed in 0..seeds {
            let seed = base_seed(0xFA17_2000) + seed;
            let ops = random_ops(seed, 12);
            runs += every_call_on_slatedb(&ops, &format!("random scenario seed {seed}")).await;
        }
        println!("{seeds} random scenarios on slatedb: {runs} faulted runs, each reopened");
    });
}
