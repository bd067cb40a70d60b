//! Random operation sequences against the store and an in-memory model: items, versions,
//! group counters, lists with cursors in both directions, and index queries must match after
//! every step, and the backend must hold exactly the records (items, counters, index
//! entries) the model implies. The model and the checker live in
//! `sortpath_store::conformance::model`, so any backend can be pointed at them; the
//! `store_model` fuzz target runs the same checker on operations decoded from bytes.

#![cfg(feature = "conformance")]

mod common;

use std::collections::BTreeMap;

use common::cases;
use proptest::prelude::*;
use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::conformance::check_consistency;
use sortpath_store::conformance::model::{
    diff, ops_from_bytes, run_ops, Model, Op, PutKind, Ticket, IDS, STATUSES, UPDATED,
};
use sortpath_store::Store;

fn status() -> impl Strategy<Value = Option<String>> {
    proptest::sample::select(STATUSES.to_vec()).prop_map(|s| s.map(str::to_owned))
}

fn key() -> impl Strategy<Value = (u64, i64)> {
    (0u64..3, IDS)
}

fn ticket() -> impl Strategy<Value = Ticket> {
    (key(), UPDATED, status(), "[a-z]{0,3}").prop_map(|((owner, id), updated_at, status, title)| {
        Ticket {
            owner,
            id,
            updated_at,
            status,
            title,
        }
    })
}

fn put_kind() -> impl Strategy<Value = PutKind> {
    prop_oneof![
        Just(PutKind::Upsert),
        Just(PutKind::IfAbsent),
        Just(PutKind::IfVersionCurrent),
        Just(PutKind::IfVersionStale),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    use proptest::collection::vec;
    prop_oneof![
        4 => (ticket(), put_kind()).prop_map(|(ticket, kind)| Op::Put { ticket, kind }),
        1 => key().prop_map(|(owner, id)| Op::Delete { owner, id }),
        1 => (key(), any::<bool>())
            .prop_map(|((owner, id), current)| Op::DeleteIfVersion { owner, id, current }),
        2 => (key(), UPDATED, status()).prop_map(|((owner, id), updated_at, status)| Op::Update {
            owner,
            id,
            updated_at,
            status
        }),
        2 => (vec(key(), 0..3), vec(ticket(), 0..3), vec(key(), 0..2), proptest::bool::weighted(0.2))
            .prop_map(|(reads, puts, deletes, interfere)| Op::Txn { reads, puts, deletes, interfere }),
        1 => (0u64..3, proptest::option::of((IDS, IDS)), any::<bool>(), 1usize..4)
            .prop_map(|(owner, range, reverse, limit)| Op::List { owner, range, reverse, limit }),
        1 => (proptest::option::of(UPDATED), any::<bool>(), 1usize..4)
            .prop_map(|(from, reverse, limit)| Op::ByUpdated { from, reverse, limit }),
        1 => (status().prop_map(Option::unwrap_or_default), any::<bool>(), 1usize..4)
            .prop_map(|(status, reverse, limit)| Op::ByStatus { status, reverse, limit }),
    ]
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The whole backend (not only the model's groups) is exactly what the model implies, and
/// the generic invariants hold.
fn check_whole(
    all: BTreeMap<sortpath_store::backend::Key, sortpath_store::backend::Record>,
    model: &Model,
) {
    if let Some(d) = diff(&all, &model.records()) {
        panic!("the backend holds records outside the model:\n{d}");
    }
    let census = check_consistency(&all).unwrap_or_else(|e| panic!("inconsistent store:\n{e}"));
    assert_eq!(census.items, model.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn memory_store_matches_model(ops in proptest::collection::vec(op(), 1..40)) {
        runtime().block_on(async {
            let store = Store::new(MemoryBackend::new());
            let model = run_ops(&store, &ops).await;
            check_whole(store.backend().snapshot().into_iter().collect(), &model);
            // Reading the model back from the store gives the same model.
            assert_eq!(Model::read_from(&store, 0).await.unwrap(), model);
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// The same with group version counters: every version known in advance.
    #[test]
    fn counted_memory_store_matches_model(ops in proptest::collection::vec(op(), 1..40)) {
        runtime().block_on(async {
            let store = Store::new(MemoryBackend::new());
            let config = sortpath_store::StoreConfig::new(vec![]).with_group_versions(true);
            assert!(store.create_config(&config).await.unwrap());
            let model = run_ops(&store, &ops).await;
            check_whole(store.backend().snapshot().into_iter().collect(), &model);
            assert_eq!(Model::read_from(&store, 0).await.unwrap(), model);
        });
    }
}

#[cfg(feature = "redb")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    #[test]
    fn redb_store_matches_model(ops in proptest::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        runtime().block_on(async {
            let model = {
                let store = Store::create(dir.path()).await.unwrap();
                run_ops(&store, &ops).await
            };
            // Reopened, the file holds exactly the same records.
            let backend = sortpath_store::backend::redb::RedbBackend::open(dir.path()).await.unwrap();
            check_whole(sortpath_store::conformance::dump_redb(&backend).await.unwrap(), &model);
        });
    }
}

#[cfg(feature = "slatedb")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    #[test]
    fn slatedb_store_matches_model(ops in proptest::collection::vec(op(), 1..30)) {
        use sortpath_store::backend::slatedb::SlateDbBackend;
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().to_str().unwrap();
        runtime().block_on(async {
            let model = {
                let store = Store::new(SlateDbBackend::open(at).await.unwrap());
                let model = run_ops(&store, &ops).await;
                store.backend().close().await.unwrap();
                model
            };
            // Reopened, the database holds exactly the same records.
            let backend = SlateDbBackend::open(at).await.unwrap();
            let groups = backend.groups(0).await.unwrap();
            let all = sortpath_store::check::dump_groups(&backend, groups).await.unwrap();
            check_whole(all, &model);
        });
    }
}

/// Two models in different spaces share one backend without seeing each other (how a shared
/// DynamoDB table runs many cases).
#[test]
fn spaces_share_one_backend() {
    runtime().block_on(async {
        let store = Store::new(MemoryBackend::new());
        let mut models: Vec<Model> = (0..3).map(Model::new).collect();
        for seed in 0..3u64 {
            for (space, model) in models.iter_mut().enumerate() {
                let ops =
                    sortpath_store::conformance::model::random_ops(seed * 10 + space as u64, 20);
                model.run(&store, &ops).await;
            }
        }
        let mut all = BTreeMap::new();
        for m in &models {
            assert!(!m.is_empty());
            all.extend(m.records());
        }
        let whole: BTreeMap<_, _> = store.backend().snapshot().into_iter().collect();
        if let Some(d) = diff(&whole, &all) {
            panic!("the spaces together differ from the backend:\n{d}");
        }
        let census = check_consistency(&whole).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(census.items, models.iter().map(Model::len).sum::<usize>());
    });
}

/// The committed seed corpus of the `store_model` fuzz target, run as a plain test (the
/// fuzz target itself needs nightly and cargo-fuzz).
#[test]
fn fuzz_seed_corpus_matches_model() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/store_model");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 8, "seed corpus of {} files", files.len());
    for file in files {
        let data = std::fs::read(&file).unwrap();
        let ops = ops_from_bytes(&data);
        println!("{}: {} ops", file.display(), ops.len());
        runtime().block_on(async {
            let store = Store::new(MemoryBackend::new());
            let model = run_ops(&store, &ops).await;
            check_whole(store.backend().snapshot().into_iter().collect(), &model);
        });
    }
}

/// What kind of case an operation is in the state `model` (so that coverage can be checked).
fn case_of(model: &Model, op: &Op) -> Option<&'static str> {
    let changed = model.after(op) != *model;
    let count = |keep: &dyn Fn(&Ticket) -> bool| model.items().filter(|(_, t, _)| keep(t)).count();
    Some(match op {
        Op::Put { kind, .. } => match (kind, changed) {
            (PutKind::Upsert, _) => "upsert",
            (PutKind::IfAbsent, true) => "if-absent put",
            (PutKind::IfAbsent, false) => "if-absent put refused",
            (PutKind::IfVersionCurrent, true) => "if-version put with the right version",
            (PutKind::IfVersionCurrent, false) => "if-version put of an absent item refused",
            (PutKind::IfVersionStale, _) => "if-version put with a wrong version refused",
        },
        Op::Delete { .. } if changed => "delete",
        Op::Delete { .. } => "delete of an absent item",
        Op::DeleteIfVersion { current: true, .. } if changed => "if-version delete",
        Op::DeleteIfVersion { current: false, .. } => {
            "if-version delete with a wrong version refused"
        }
        Op::Update { .. } if changed => "update",
        Op::Txn {
            reads,
            interfere: true,
            ..
        } if !reads.is_empty() => "transaction conflict",
        Op::Txn { puts, deletes, .. } if changed => {
            let mut groups: Vec<u64> = puts.iter().map(|t| t.owner).collect();
            groups.extend(deletes.iter().map(|d| d.0));
            groups.sort();
            groups.dedup();
            if groups.len() > 1 {
                "transaction over several groups"
            } else {
                "transaction in one group"
            }
        }
        Op::List {
            owner,
            range,
            reverse,
            limit,
        } => {
            let n =
                count(&|t| t.owner == *owner && range.is_none_or(|(a, b)| a <= t.id && t.id < b));
            match (n > *limit, reverse) {
                (true, false) => "list over several pages forward",
                (true, true) => "list over several pages backward",
                _ => return None,
            }
        }
        Op::ByUpdated {
            from,
            reverse,
            limit,
        } => {
            let n = count(&|t| from.is_none_or(|f| t.updated_at >= f));
            match (n > *limit, reverse) {
                (true, false) => "by_updated query over several pages forward",
                (true, true) => "by_updated query over several pages backward",
                _ => return None,
            }
        }
        Op::ByStatus { status, limit, .. }
            if count(&|t| t.status.as_deref() == Some(status.as_str())) > *limit =>
        {
            "by_status query over several pages"
        }
        _ => return None,
    })
}

const EVERY_CASE: [&str; 19] = [
    "upsert",
    "if-absent put",
    "if-absent put refused",
    "if-version put with the right version",
    "if-version put of an absent item refused",
    "if-version put with a wrong version refused",
    "delete",
    "delete of an absent item",
    "if-version delete",
    "if-version delete with a wrong version refused",
    "update",
    "transaction conflict",
    "transaction over several groups",
    "transaction in one group",
    "list over several pages forward",
    "list over several pages backward",
    "by_updated query over several pages forward",
    "by_updated query over several pages backward",
    "by_status query over several pages",
];

fn cases_hit(sequences: impl IntoIterator<Item = Vec<Op>>) -> BTreeMap<&'static str, usize> {
    let mut hit = BTreeMap::new();
    for ops in sequences {
        let mut model = Model::new(0);
        for op in &ops {
            if let Some(case) = case_of(&model, op) {
                *hit.entry(case).or_default() += 1;
            }
            model = model.after(op);
        }
    }
    hit
}

/// The generators (the proptest strategies here and the byte decoder of the fuzz target)
/// reach every case the model distinguishes, including the refusals and the conflicts.
#[test]
fn generated_operations_cover_every_case() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = proptest::collection::vec(op(), 1..40);
    let from_strategies =
        cases_hit((0..64).map(|_| strategy.new_tree(&mut runner).unwrap().current()));
    let from_bytes =
        cases_hit((0..64).map(|seed| sortpath_store::conformance::model::random_ops(seed, 40)));
    for (name, hit) in [
        ("proptest strategies", &from_strategies),
        ("byte decoder", &from_bytes),
    ] {
        println!("{name}: {hit:?}");
        for case in EVERY_CASE {
            assert!(
                hit.contains_key(case),
                "{name} never made a case of {case:?}"
            );
        }
    }
}
