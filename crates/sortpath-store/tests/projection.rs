//! Indexes whose entries hold their item (`Projection::All`): an index query returns exactly
//! the current items in index order, the store stays consistent, and keys-only and projected
//! indexes of one type agree, over random puts, updates and deletes on both embedded
//! backends.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::{memory::MemoryBackend, Backend};
use sortpath_store::check::check_consistency;
use sortpath_store::{Index, Item, Projection, Query, Store};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Task {
    id: u64,
    due: i64,
    note: String,
}

fn by_due(t: &Task) -> Result<Option<KeyPath>, PathError> {
    Ok(Some(
        KeyPath::new().push("tasks", 1u64)?.push("due", t.due)?,
    ))
}

impl Item for Task {
    const TYPE: &'static str = "task";
    const INDEXES: &'static [Index<Self>] = &[
        Index::new("due_all", by_due).projecting(Projection::All),
        Index::new("due_keys", by_due),
    ];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("list", 1u64)?.push("task", self.id)
    }
}

#[derive(Clone, Debug)]
enum Op {
    Put(Task),
    Delete(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u64..12, -3i64..4, "[a-z]{0,3}").prop_map(|(id, due, note)| Op::Put(Task { id, due, note })),
        1 => (0u64..12).prop_map(Op::Delete),
    ]
}

async fn run<B: Backend>(
    store: &Store<B>,
    ops: &[Op],
    snapshot: impl Fn()
        -> Option<BTreeMap<sortpath_store::backend::Key, sortpath_store::backend::Record>>,
) {
    let mut model: BTreeMap<u64, (Task, u64)> = BTreeMap::new();
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Put(t) => {
                let v = store.put(t).await.unwrap();
                model.insert(t.id, (t.clone(), v));
            }
            Op::Delete(id) => {
                let path = KeyPath::new()
                    .push("list", 1u64)
                    .unwrap()
                    .push("task", *id)
                    .unwrap();
                assert_eq!(
                    store.delete(&path).await.unwrap(),
                    model.remove(id).is_some()
                );
            }
        }
        // Index order: by due, ties by item key path (the ID).
        let mut want: Vec<(Task, u64)> = model.values().cloned().collect();
        want.sort_by_key(|(t, _)| (t.due, t.id));
        let group = KeyPath::new().push("tasks", 1u64).unwrap();
        for reverse in [false, true] {
            let mut expect = want.clone();
            if reverse {
                expect.reverse();
            }
            for index in ["due_all", "due_keys"] {
                let mut q = Query::prefix(&group).unwrap().limit(5);
                if reverse {
                    q = q.reverse();
                }
                let mut got = Vec::new();
                loop {
                    let page = store.query_index::<Task>(index, &q).await.unwrap();
                    got.extend(page.items.into_iter().map(|v| (v.item, v.version)));
                    match page.cursor {
                        Some(c) => q = q.clone().after(c),
                        None => break,
                    }
                }
                assert_eq!(
                    got, expect,
                    "step {step}: {op:?}: index {index}, reverse {reverse}"
                );
            }
        }
        if let Some(all) = snapshot() {
            let census = check_consistency(&all).unwrap_or_else(|e| panic!("step {step}: {e}"));
            assert_eq!(census.items, model.len());
            assert_eq!(census.index_entries, 2 * model.len());
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn projected_index_matches_model_memory(ops in proptest::collection::vec(op(), 1..30)) {
        runtime().block_on(async {
            let store = Store::new(MemoryBackend::new());
            let backend = store.backend().clone();
            run(&store, &ops, || Some(backend.snapshot().into_iter().collect())).await;
        });
    }
}

#[cfg(feature = "redb")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn projected_index_matches_model_redb(ops in proptest::collection::vec(op(), 1..20)) {
        let dir = tempfile::tempdir().unwrap();
        runtime().block_on(async {
            let store = Store::create(dir.path()).await.unwrap();
            run(&store, &ops, || None).await;
            drop(store);
            let backend = sortpath_store::backend::redb::RedbBackend::open(dir.path()).await.unwrap();
            let all = sortpath_store::check::dump_redb(&backend).await.unwrap();
            check_consistency(&all).unwrap();
        });
    }
}

/// A projected entry is written with every write of its item, so a change of a field
/// outside the index key shows in the index at once.
#[test]
fn a_projected_entry_follows_its_item() {
    runtime().block_on(async {
        let store = Store::new(MemoryBackend::new());
        let mut t = Task {
            id: 1,
            due: 5,
            note: "a".into(),
        };
        store.put(&t).await.unwrap();
        t.note = "changed".into();
        let v = store.put(&t).await.unwrap();
        let group = KeyPath::new().push("tasks", 1u64).unwrap();
        let page = store
            .query_index::<Task>("due_all", &Query::prefix(&group).unwrap())
            .await
            .unwrap();
        assert_eq!(page.items.len(), 1);
        assert_eq!(
            (page.items[0].item.note.as_str(), page.items[0].version),
            ("changed", v)
        );
    });
}
