//! Random operation sequences against the store and an in-memory model: items, versions,
//! group counters, lists with cursors in both directions, and index queries must match after
//! every step, and the backend must hold exactly the index entries the model implies.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;

use common::{cases, path, Ticket};
use keypath::{Id, KeyPath};
use keypath_store::backend::{memory::MemoryBackend, Backend, Scan};
use keypath_store::layout::{RESERVED_GROUP, TAG_INDEX};
use keypath_store::{Item, PutMode, Query, Store, StoreError};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Put(Ticket, u8),
    Delete(u64, i64),
    Update(u64, i64, i64, Option<String>),
    Txn(Vec<(u64, i64)>, Vec<Ticket>, Vec<(u64, i64)>),
    List(u64, Option<(i64, i64)>, bool, usize),
    ByUpdated(Option<i64>, bool, usize),
    ByStatus(String, bool, usize),
}

fn status() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some("open".to_owned())),
        Just(Some(String::new())),
        Just(Some("a\0b".to_owned()))
    ]
}

fn ticket() -> impl Strategy<Value = Ticket> {
    (0u64..3, -3i64..5, -4i64..4, status(), "[a-z]{0,3}").prop_map(
        |(owner, id, updated_at, status, title)| Ticket {
            owner,
            id,
            updated_at,
            status,
            title,
        },
    )
}

fn op() -> impl Strategy<Value = Op> {
    let key = (0u64..3, -3i64..5);
    prop_oneof![
        4 => (ticket(), 0u8..4).prop_map(|(t, m)| Op::Put(t, m)),
        1 => key.clone().prop_map(|(o, i)| Op::Delete(o, i)),
        2 => (key.clone(), -4i64..4, status()).prop_map(|((o, i), u, s)| Op::Update(o, i, u, s)),
        1 => (proptest::collection::vec(key.clone(), 0..3), proptest::collection::vec(ticket(), 0..3),
              proptest::collection::vec(key, 0..2)).prop_map(|(r, p, d)| Op::Txn(r, p, d)),
        1 => (0u64..3, proptest::option::of((-3i64..5, -3i64..5)), any::<bool>(), 1usize..4)
            .prop_map(|(o, r, rev, l)| Op::List(o, r, rev, l)),
        1 => (proptest::option::of(-4i64..4), any::<bool>(), 1usize..4).prop_map(|(lo, rev, l)| Op::ByUpdated(lo, rev, l)),
        1 => (status().prop_map(|s| s.unwrap_or_default()), any::<bool>(), 1usize..4)
            .prop_map(|(s, rev, l)| Op::ByStatus(s, rev, l)),
    ]
}

#[derive(Default)]
struct Model {
    items: BTreeMap<KeyPath, (Ticket, u64)>,
    counters: BTreeMap<u64, u64>,
}

impl Model {
    fn key(owner: u64, id: i64) -> KeyPath {
        KeyPath::new()
            .push("user", owner)
            .unwrap()
            .push("ticket", id)
            .unwrap()
    }

    /// Applies a set of writes as one commit: one counter bump per group with an effect.
    fn commit(&mut self, writes: BTreeMap<KeyPath, Option<Ticket>>) {
        let mut bumped: BTreeMap<u64, u64> = BTreeMap::new();
        for (k, new) in writes {
            let owner = owner_of(&k);
            if new.is_none() && !self.items.contains_key(&k) {
                continue;
            }
            let v = *bumped
                .entry(owner)
                .or_insert_with(|| self.counters.get(&owner).copied().unwrap_or(0) + 1);
            match new {
                Some(t) => {
                    self.items.insert(k, (t, v));
                }
                None => {
                    self.items.remove(&k);
                }
            }
        }
        self.counters.extend(bumped);
    }

    fn version(&self, k: &KeyPath) -> Option<u64> {
        self.items.get(k).map(|(_, v)| *v)
    }
}

fn owner_of(k: &KeyPath) -> u64 {
    match k.components()[0].id() {
        Some(Id::Int(i)) => i.to_i128() as u64,
        other => panic!("unexpected group id {other:?}"),
    }
}

/// Pages through a query with the given page size, checking page sizes.
async fn page_all<B: Backend>(
    store: &Store<B>,
    index: Option<&str>,
    q: Query,
    limit: usize,
) -> Vec<(KeyPath, Ticket, u64)> {
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..1000 {
        let mut page_q = q.clone().limit(limit);
        if let Some(c) = cursor.take() {
            page_q = page_q.after(c);
        }
        let page = match index {
            Some(name) => store.query_index::<Ticket>(name, &page_q).await.unwrap(),
            None => store.list::<Ticket>(&page_q).await.unwrap(),
        };
        assert!(page.items.len() <= limit);
        if page.cursor.is_some() {
            assert_eq!(
                page.items.len(),
                limit,
                "a cursor comes only with a full page"
            );
        }
        out.extend(page.items.into_iter().map(|v| (v.key, v.item, v.version)));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return out,
        }
    }
    panic!("paging did not end");
}

fn index_group(name: &str, group: &KeyPath) -> Vec<u8> {
    let mut g = vec![RESERVED_GROUP, TAG_INDEX, name.len() as u8];
    g.extend_from_slice(name.as_bytes());
    g.extend_from_slice(&group.encode());
    g
}

async fn run_ops<B: Backend>(store: &Store<B>, ops: Vec<Op>) {
    let mut model = Model::default();
    for (step, op) in ops.into_iter().enumerate() {
        match op.clone() {
            Op::Put(t, mode) => {
                let k = t.key_path().unwrap();
                let current = model.version(&k);
                let mode = match mode {
                    0 => PutMode::Upsert,
                    1 => PutMode::IfAbsent,
                    2 => PutMode::IfVersion(current.unwrap_or(0)),
                    _ => PutMode::IfVersion(current.map_or(5, |v| v + 1)),
                };
                let result = store.put_with(&t, mode).await;
                let ok = match mode {
                    PutMode::IfAbsent => current.is_none(),
                    PutMode::IfVersion(v) => current == Some(v),
                    _ => true,
                };
                match result {
                    Ok(version) => {
                        assert!(ok, "step {step}: {op:?} should have failed");
                        model.commit([(k.clone(), Some(t))].into());
                        assert_eq!(Some(version), model.version(&k));
                    }
                    Err(StoreError::AlreadyExists { .. } | StoreError::VersionMismatch { .. }) => {
                        assert!(!ok, "step {step}: {op:?} should have succeeded")
                    }
                    Err(e) => panic!("step {step}: {op:?}: {e}"),
                }
            }
            Op::Delete(o, i) => {
                let k = Model::key(o, i);
                let existed = store.delete(&k).await.unwrap();
                assert_eq!(existed, model.items.contains_key(&k));
                model.commit([(k, None)].into());
            }
            Op::Update(o, i, u, s) => {
                let k = Model::key(o, i);
                let got = store
                    .update(&k, |t: Option<Ticket>| {
                        t.map(|mut t| {
                            t.updated_at = u;
                            t.status = s.clone();
                            t
                        })
                    })
                    .await
                    .unwrap();
                if let Some((t, _)) = model.items.get(&k).cloned() {
                    let t = Ticket {
                        updated_at: u,
                        status: s,
                        ..t
                    };
                    model.commit([(k.clone(), Some(t.clone()))].into());
                    assert_eq!(
                        got.map(|v| (v.item, v.version)),
                        Some((t, model.version(&k).unwrap()))
                    );
                } else {
                    assert!(got.is_none());
                }
            }
            Op::Txn(reads, puts, deletes) => {
                let mut txn = store.transaction();
                for (o, i) in reads {
                    let k = Model::key(o, i);
                    let got = txn
                        .get::<Ticket>(&k)
                        .await
                        .unwrap()
                        .map(|v| (v.item, v.version));
                    assert_eq!(got, model.items.get(&k).cloned(), "txn read {k}");
                }
                let mut writes = BTreeMap::new();
                for t in puts {
                    txn.put(&t).unwrap();
                    writes.insert(t.key_path().unwrap(), Some(t));
                }
                for (o, i) in deletes {
                    txn.delete(&Model::key(o, i)).unwrap();
                    writes.insert(Model::key(o, i), None);
                }
                let versions = txn.commit().await.unwrap();
                model.commit(writes);
                for (k, v) in versions {
                    assert_eq!(v, model.version(&k), "txn version of {k}");
                }
            }
            Op::List(o, range, reverse, limit) => {
                let parent = Model::key(o, 0).parent().unwrap();
                let mut q = match range {
                    Some((a, b)) => Query::between(
                        &parent,
                        "ticket",
                        Bound::Included(Id::from(a)),
                        Bound::Excluded(Id::from(b)),
                    )
                    .unwrap(),
                    None => Query::prefix(&parent).unwrap(),
                };
                if reverse {
                    q = q.reverse();
                }
                let got = page_all(store, None, q, limit).await;
                let mut expected: Vec<_> = model
                    .items
                    .iter()
                    .filter(|(k, (t, _))| {
                        owner_of(k) == o && range.is_none_or(|(a, b)| a <= t.id && t.id < b)
                    })
                    .map(|(k, (t, v))| (k.clone(), t.clone(), *v))
                    .collect();
                if reverse {
                    expected.reverse();
                }
                assert_eq!(got, expected, "step {step}: {op:?}");
            }
            Op::ByUpdated(lo, reverse, limit) => {
                let mut q = Query::prefix(&path("/tickets-0")).unwrap();
                if let Some(lo) = lo {
                    q = q
                        .gte(&path("/tickets-0").push("updated", lo).unwrap())
                        .unwrap();
                }
                if reverse {
                    q = q.reverse();
                }
                let got = page_all(store, Some("by_updated"), q, limit).await;
                let mut expected: Vec<_> = model
                    .items
                    .iter()
                    .filter(|(_, (t, _))| lo.is_none_or(|lo| t.updated_at >= lo))
                    .map(|(k, (t, v))| (k.clone(), t.clone(), *v))
                    .collect();
                expected.sort_by(|a, b| (a.1.updated_at, &a.0).cmp(&(b.1.updated_at, &b.0)));
                if reverse {
                    expected.reverse();
                }
                assert_eq!(got, expected, "step {step}: {op:?}");
            }
            Op::ByStatus(s, reverse, limit) => {
                let group = KeyPath::new().push("status", s.as_str()).unwrap();
                let mut q = Query::prefix(&group).unwrap();
                if reverse {
                    q = q.reverse();
                }
                let got = page_all(store, Some("by_status"), q, limit).await;
                let mut expected: Vec<_> = model
                    .items
                    .iter()
                    .filter(|(_, (t, _))| t.status.as_deref() == Some(s.as_str()))
                    .map(|(k, (t, v))| (k.clone(), t.clone(), *v))
                    .collect();
                expected.sort_by(|a, b| (a.1.id, &a.0).cmp(&(b.1.id, &b.0)));
                if reverse {
                    expected.reverse();
                }
                assert_eq!(got, expected, "step {step}: {op:?}");
            }
        }
        // Exactly the index entries the model implies: none left behind, none missing.
        let mut entries = store
            .backend()
            .scan(Scan::group(index_group("by_updated", &path("/tickets-0"))))
            .await
            .unwrap()
            .len();
        for s in ["open", "", "a\0b"] {
            let g = KeyPath::new().push("status", s).unwrap();
            entries += store
                .backend()
                .scan(Scan::group(index_group("by_status", &g)))
                .await
                .unwrap()
                .len();
        }
        let expected: usize = model
            .items
            .values()
            .map(|(t, _)| 1 + usize::from(t.status.is_some()))
            .sum();
        assert_eq!(entries, expected, "step {step}: index entries after {op:?}");
        for o in 0..3 {
            let v = store.group_version(&Model::key(o, 0)).await.unwrap();
            assert_eq!(
                v,
                model.counters.get(&o).copied().unwrap_or(0),
                "step {step}: counter of user {o}"
            );
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
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn memory_store_matches_model(ops in proptest::collection::vec(op(), 1..40)) {
        runtime().block_on(run_ops(&Store::new(MemoryBackend::new()), ops));
    }
}

#[cfg(feature = "redb")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    #[test]
    fn redb_store_matches_model(ops in proptest::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        runtime().block_on(async {
            let store = Store::open(dir.path()).await.unwrap();
            run_ops(&store, ops).await;
        });
    }
}
