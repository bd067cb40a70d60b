use std::future::Future;

use sortpath::KeyPath;

use crate::backend::memory::MemoryBackend;
#[cfg(feature = "redb")]
use crate::backend::redb::RedbBackend;
use crate::backend::Backend;
use crate::query::tests::{colliding, prefix_encoded_pair};
use crate::{PutMode, Query, Store};

fn path(s: &str) -> KeyPath {
    s.parse().unwrap()
}

/// Runs `test` on a store over the in-memory backend.
fn on_memory<F: Future<Output = ()>>(test: impl FnOnce(Store<MemoryBackend>) -> F) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(test(Store::new(MemoryBackend::new())));
}

/// Runs `test` on a redb store in a temporary directory.
#[cfg(feature = "redb")]
fn on_redb<F: Future<Output = ()>>(test: impl FnOnce(Store<RedbBackend>) -> F) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async { test(Store::create(dir.path()).await.unwrap()).await });
}

/// `/g-1/a-a` and its descendants, with colliding UUIDs between them in key order, and
/// neighbours outside: what a prefix query passes over inside its byte range.
async fn fill_with_passed_over_records<B: Backend>(store: &Store<B>) -> Vec<KeyPath> {
    let group = path("/g-1");
    let a = group.clone().push("a", "a").unwrap();
    let child = |ns: &str, id: u64| a.clone().push(ns, id).unwrap();
    let wanted = vec![
        a.clone(),
        child("b", 1),
        child("b", 2),
        child("c", 1),
        child("x", 1),
        child("x", 2),
    ];
    let others = [
        group.clone().push("a", "b").unwrap(),
        group.clone().push("a", "").unwrap(),
        group.clone().push("a", 7u64).unwrap(),
        path("/g-2").push("a", "a").unwrap(),
    ];
    // `42` sorts before `b`, `70` between `c` and `x`, `00` and `ff` at the ends.
    let uuids = [0x00, 0x42, 0x70, 0x71, 0xff]
        .map(|fill| group.clone().push("a", colliding(fill)).unwrap());
    for p in wanted.iter().chain(&others).chain(&uuids) {
        store
            .put_raw(p, "t", &p.to_string(), vec![], PutMode::Upsert)
            .await
            .unwrap();
    }
    // The case under test is there: in key order, some colliding UUID lies between two
    // wanted paths, and one after the last (the first a reverse list reads).
    let mut all: Vec<(Vec<u8>, bool)> = wanted
        .iter()
        .map(|p| (p.encode(), true))
        .chain(uuids.iter().map(|p| (p.encode(), false)))
        .collect();
    all.sort();
    let flags: Vec<bool> = all.iter().map(|(_, wanted)| *wanted).collect();
    assert_eq!(
        flags.last(),
        Some(&false),
        "a passed-over record comes last: {flags:?}"
    );
    let (first, last) = (
        flags.iter().position(|&f| f),
        flags.iter().rposition(|&f| f),
    );
    assert!(
        flags[first.unwrap()..last.unwrap()].contains(&false),
        "a passed-over record lies between wanted ones: {flags:?}"
    );
    wanted
}

/// Pages through `query` with `limit`, returning every page's keys.
async fn pages<B: Backend>(store: &Store<B>, query: &Query, limit: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut q = query.clone().limit(limit);
    loop {
        let page = store.list_raw(&q).await.unwrap();
        assert!(page.items.len() <= limit);
        out.push(page.items.iter().map(|i| i.key().to_string()).collect());
        match page.cursor {
            Some(c) => q = query.clone().limit(limit).after(c),
            None => return out,
        }
        assert!(out.len() <= 20, "paging does not end: {out:?}");
    }
}

/// Records a query passes over (inside its byte range, outside its filters) between and
/// before the items it selects: every limit, in both directions, pages through exactly the
/// selected items, each once, in order. A page that ends on an item after a passed-over
/// record must resume after that item, not after the record.
async fn pages_resume_after_passed_over_records<B: Backend>(store: Store<B>) {
    let wanted = fill_with_passed_over_records(&store).await;
    let wanted: Vec<String> = wanted.iter().map(|p| p.to_string()).collect();
    for reverse in [false, true] {
        let mut query = Query::prefix(&path("/g-1").push("a", "a").unwrap()).unwrap();
        let mut expected = wanted.clone();
        if reverse {
            query = query.reverse();
            expected.reverse();
        }
        let whole = store.list_raw(&query).await.unwrap();
        let keys: Vec<String> = whole.items.iter().map(|i| i.key().to_string()).collect();
        assert_eq!(keys, expected, "reverse {reverse}");
        assert!(whole.cursor.is_none());
        // Room reserved for a page of 1000 is not kept alive with a page of 6.
        let roomy = store.list_raw(&query.clone().limit(1000)).await.unwrap();
        assert_eq!(roomy.items.len(), expected.len());
        assert!(
            roomy.items.capacity() <= 2 * expected.len() + 16,
            "capacity {} for {} items",
            roomy.items.capacity(),
            expected.len()
        );
        for limit in 1..=expected.len() + 1 {
            let got = pages(&store, &query, limit).await;
            let flat: Vec<String> = got.iter().flatten().cloned().collect();
            assert_eq!(flat, expected, "reverse {reverse}, limit {limit}: {got:?}");
        }
    }
}

#[test]
fn memory_pages_resume_after_passed_over_records() {
    on_memory(pages_resume_after_passed_over_records);
}

#[cfg(feature = "redb")]
#[test]
fn redb_pages_resume_after_passed_over_records() {
    on_redb(pages_resume_after_passed_over_records);
}

/// A query keeps its plan once it has listed; a bound added to it (or to a clone) after
/// that still applies, and queries compare and clone as before.
#[test]
fn a_bound_added_after_listing_applies() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = Store::new(MemoryBackend::new());
        for id in 1..=5u64 {
            let p = path("/g-1").push("a", id).unwrap();
            store
                .put_raw(&p, "t", &id, vec![], PutMode::Upsert)
                .await
                .unwrap();
        }
        let keys = |page: crate::Page<crate::RawItem>| -> Vec<String> {
            page.items.iter().map(|i| i.key().to_string()).collect()
        };
        let all = Query::children(&path("/g-1"), "a").unwrap();
        let fresh = all.clone();
        assert_eq!(keys(store.list_raw(&all).await.unwrap()).len(), 5);
        // `all` has listed; a clone with a bound, and the same bound on a fresh query.
        let from_3 = all.clone().gte(&path("/g-1/a-3")).unwrap();
        let fresh_from_3 = fresh.gte(&path("/g-1/a-3")).unwrap();
        assert_eq!(from_3, fresh_from_3);
        assert_ne!(from_3, all);
        assert_eq!(
            keys(store.list_raw(&from_3).await.unwrap()),
            ["/g-1/a-3", "/g-1/a-4", "/g-1/a-5"]
        );
        let below_5 = from_3.lt(&path("/g-1/a-5")).unwrap();
        assert_eq!(
            keys(store.list_raw(&below_5).await.unwrap()),
            ["/g-1/a-3", "/g-1/a-4"]
        );
        // The listed query itself is unchanged.
        assert_eq!(keys(store.list_raw(&all).await.unwrap()).len(), 5);
        assert!(format!("{all:?}").starts_with("Query {"));
    });
}

/// Index entries whose index paths have rests of different lengths: an item indexed at the
/// index group itself and one indexed under it must both be found (a layout that joined
/// the rest and the item path into one path gave `/a-1` + `/b-2` and `` + `/a-1/b-2` one
/// key, so one entry replaced the other), and entries sort by index path, then item path.
async fn index_rests_of_any_length<B: Backend>(store: Store<B>) {
    let idx = |p: &str| vec![("ix".to_owned(), path(p))];
    let puts = [
        ("/b-2", "/g-1/a-1"),
        ("/a-1/b-2", "/g-1"),
        ("/z-9", "/g-1/a-1"),
        ("/c-1", "/g-1/a-1/b-1"),
        ("/a-0", "/g-1/a-2"),
    ];
    for (item, index_path) in puts {
        store
            .put_raw(&path(item), "t", &item, idx(index_path), PutMode::Upsert)
            .await
            .unwrap();
    }
    let expected = ["/a-1/b-2", "/b-2", "/z-9", "/c-1", "/a-0"];
    let query = Query::prefix(&path("/g-1")).unwrap();
    for reverse in [false, true] {
        let (q, mut want) = (query.clone(), expected.to_vec());
        let q = if reverse {
            want.reverse();
            q.reverse()
        } else {
            q
        };
        let page = store.query_index_raw("ix", &q).await.unwrap();
        let keys: Vec<String> = page.items.iter().map(|i| i.key().to_string()).collect();
        assert_eq!(keys, want, "reverse {reverse}");
        for limit in 1..=want.len() {
            let got = index_pages(&store, &q, limit).await;
            assert_eq!(got, want, "reverse {reverse}, limit {limit}");
        }
    }
    // Bounds on the index path select whole rests, each with all its items.
    let store = &store;
    let rest = |q: Query| async move {
        let page = store.query_index_raw("ix", &q).await.unwrap();
        page.items
            .iter()
            .map(|i| i.key().to_string())
            .collect::<Vec<_>>()
    };
    let a1 = path("/g-1/a-1");
    assert_eq!(rest(query.clone().gt(&a1).unwrap()).await, ["/c-1", "/a-0"]);
    assert_eq!(
        rest(query.clone().gte(&a1).unwrap()).await,
        ["/b-2", "/z-9", "/c-1", "/a-0"]
    );
    assert_eq!(rest(query.clone().lt(&a1).unwrap()).await, ["/a-1/b-2"]);
    assert_eq!(
        rest(query.clone().lte(&a1).unwrap()).await,
        ["/a-1/b-2", "/b-2", "/z-9"]
    );
    assert_eq!(
        rest(Query::prefix(&a1).unwrap()).await,
        ["/b-2", "/z-9", "/c-1"]
    );
}

/// Pages through index query `query` with `limit`, returning every item's key.
async fn index_pages<B: Backend>(store: &Store<B>, query: &Query, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut q = query.clone().limit(limit);
    for _ in 0..20 {
        let page = store.query_index_raw("ix", &q).await.unwrap();
        assert!(page.items.len() <= limit);
        out.extend(page.items.iter().map(|i| i.key().to_string()));
        match page.cursor {
            Some(c) => q = query.clone().limit(limit).after(c),
            None => return out,
        }
    }
    panic!("paging does not end: {out:?}");
}

#[test]
fn memory_index_rests_of_any_length() {
    on_memory(index_rests_of_any_length);
}

#[cfg(feature = "redb")]
#[test]
fn redb_index_rests_of_any_length() {
    on_redb(index_rests_of_any_length);
}

/// Index paths whose rests' encodings are prefixes of one another (UUIDs whose raw bytes
/// read as another path's end): an index query lists and bounds them exactly as an item list
/// does the same paths as items, in both directions and at every page size.
async fn index_rests_sort_as_item_paths<B: Backend>(store: Store<B>) {
    let g = path("/g-1");
    let (shorter, longer) = prefix_encoded_pair();
    let rests = [
        KeyPath::new(),
        shorter.clone(),
        shorter.clone().push("c", 1u64).unwrap(),
        longer.clone(),
        path("/a-5"),
        path("/a-6"),
    ];
    // Each rest as an item under `/g-1`, and as the index path of an item `/u-<i>` (twice
    // for the first two, so that one rest has several entries).
    let mut owner = std::collections::BTreeMap::new();
    for (i, rest) in rests.iter().enumerate() {
        let at = g.join(rest).unwrap();
        store
            .put_raw(&at, "r", &i, vec![], PutMode::Upsert)
            .await
            .unwrap();
        for item in [i, i + 10].into_iter().take(if i < 2 { 2 } else { 1 }) {
            let base = KeyPath::new().push("u", item as u64).unwrap();
            let idx = vec![("ix".to_owned(), at.clone())];
            store
                .put_raw(&base, "t", &item, idx, PutMode::Upsert)
                .await
                .unwrap();
            owner.insert(base.to_string(), at.to_string());
        }
    }
    let queries = [
        Query::prefix(&g).unwrap(),
        Query::prefix(&g.join(&shorter).unwrap()).unwrap(),
        Query::prefix(&g)
            .unwrap()
            .gt(&g.join(&shorter).unwrap())
            .unwrap(),
        Query::prefix(&g)
            .unwrap()
            .gte(&g.join(&shorter).unwrap())
            .unwrap(),
        Query::prefix(&g)
            .unwrap()
            .lt(&g.join(&longer).unwrap())
            .unwrap(),
        Query::prefix(&g)
            .unwrap()
            .lte(&g.join(&longer).unwrap())
            .unwrap(),
        Query::children(&g, "a").unwrap(),
    ];
    for query in queries {
        for q in [query.clone(), query.clone().reverse()] {
            // The item list, each path once per index entry at it (in the list's direction).
            let items = store.list_raw(&q).await.unwrap();
            let mut expected = Vec::new();
            for item in &items.items {
                let at = item.key().to_string();
                let mut bases: Vec<&String> = owner
                    .iter()
                    .filter(|(_, o)| **o == at)
                    .map(|(b, _)| b)
                    .collect();
                if q.is_reverse() {
                    bases.reverse();
                }
                expected.extend(bases.into_iter().map(|_| at.clone()));
            }
            for limit in [1, 2, 3, 100] {
                let got: Vec<String> = index_pages(&store, &q, limit)
                    .await
                    .iter()
                    .map(|b| owner[b].clone())
                    .collect();
                assert_eq!(got, expected, "{q:?}, limit {limit}");
            }
        }
    }
}

#[test]
fn memory_index_rests_sort_as_item_paths() {
    on_memory(index_rests_sort_as_item_paths);
}

#[cfg(feature = "redb")]
#[test]
fn redb_index_rests_sort_as_item_paths() {
    on_redb(index_rests_sort_as_item_paths);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// `sort_has_uuid`, which reads only the metadata, agrees with the segments, also with a
    /// segment long enough for a varint of two bytes before or after the others.
    #[test]
    fn sort_has_uuid_agrees_with_the_segments(
        rest in crate::query::tests::any_rest(),
        long in proptest::option::of("\\PC{16,300}"),
        long_first in proptest::bool::ANY,
    ) {
        let rest = match long {
            Some(s) if long_first => KeyPath::new().push("c", s.as_str()).unwrap().join(&rest).unwrap(),
            Some(s) => rest.push("c", s.as_str()).unwrap(),
            None => rest,
        };
        let expected = rest
            .segments()
            .any(|c| c.id_type() == Some(sortpath::path::IdType::Uuid));
        proptest::prop_assert_eq!(super::sort_has_uuid(&rest.encode()), expected);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// `ends_with_namespace`, which reads only the last metadata varint, agrees with the
    /// segments: on paths that end with an ID and with a namespace, with segments long
    /// enough for varints of two bytes.
    #[test]
    fn ends_with_namespace_agrees_with_the_segments(
        rest in crate::query::tests::any_rest(),
        long in proptest::option::of("\\PC{16,300}"),
        long_first in proptest::bool::ANY,
        tail in proptest::option::of(proptest::prop_oneof!["[a-z]{1,8}", "[a-z]{16,40}"]),
    ) {
        let mut path = match long {
            Some(s) if long_first => KeyPath::new().push("c", s.as_str()).unwrap().join(&rest).unwrap(),
            Some(s) => rest.push("c", s.as_str()).unwrap(),
            None => rest,
        };
        if let Some(ns) = tail {
            path = path.push_namespace(&ns).unwrap();
        }
        let expected = path.segments().last().is_some_and(|c| c.id_type().is_none());
        proptest::prop_assert_eq!(crate::store::ends_with_namespace(&path.encode()), expected);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// `sort_key_under`, which cuts the sort key out of the path's bytes, gives what
    /// `split_group` gives, with long segments in the group and in the rest; and nothing for
    /// the group itself.
    #[test]
    fn sort_key_under_agrees_with_split_group(
        rest in crate::query::tests::any_rest(),
        long in proptest::option::of("\\PC{16,300}"),
        long_group in proptest::bool::ANY,
        tail in proptest::option::of("[a-z]{1,20}"),
    ) {
        let group = match &long {
            Some(s) if long_group => KeyPath::new().push("g", s.as_str()).unwrap(),
            _ => KeyPath::new().push("g", 1u64).unwrap(),
        };
        let mut rest = match long {
            Some(s) if !long_group => rest.push("c", s.as_str()).unwrap(),
            _ => rest,
        };
        if let Some(ns) = tail {
            rest = rest.push_namespace(&ns).unwrap();
        }
        let path = group.join(&rest).unwrap();
        let (_, sort) = path.split_group().unwrap();
        let group = group.encode();
        proptest::prop_assert_eq!(super::sort_key_under(path.as_bytes(), &group), Some(sort));
        proptest::prop_assert_eq!(super::sort_key_under(&group, &group), None);
    }
}
