use std::ops::Bound;

use proptest::prelude::*;
use sortpath::{Id, KeyPath};

use super::Query;

/// The bytes an ID takes in a key path encoding.
pub(crate) fn id_bytes(id: &Id) -> Vec<u8> {
    let path = KeyPath::new().push("x", id.clone()).unwrap();
    let bytes = path.encode();
    let spans = sortpath::KeyPathRef::decode(&bytes)
        .unwrap()
        .segment_spans();
    bytes[spans[1].range.clone()].to_vec()
}

/// A UUID whose bytes are the string ID `"a"`'s, then `01`, then `fill`: its key sorts
/// inside the byte range of an `a-a` component and its descendants, though it is not one
/// of them.
pub(crate) fn colliding(fill: u8) -> Id {
    let mut bytes = id_bytes(&Id::from("a"));
    bytes.push(0x01);
    bytes.resize(16, fill);
    Id::Uuid(bytes.try_into().unwrap())
}

/// `/a-U` and `/a-5/b-W`, with UUIDs chosen so that the first's encoding is a prefix of the
/// second's: `/a-U` is `a 01`, U, `00` and 3 bytes of metadata, and `/a-5/b-W` is
/// `a 01 08 05 01 b 01` then W, which holds that end of `/a-U` at the same place.
pub(crate) fn prefix_encoded_pair() -> (KeyPath, KeyPath) {
    let uuid = |bytes: &[u8]| Id::Uuid(bytes.try_into().unwrap());
    let end = KeyPath::new().push("a", uuid(&[0; 16])).unwrap().encode()[18..].to_vec();
    let mut w = [0x11; 16];
    w[11..15].copy_from_slice(&end);
    let longer = KeyPath::new()
        .push("a", 5u64)
        .and_then(|p| p.push("b", uuid(&w)))
        .unwrap();
    let shorter = KeyPath::new()
        .push("a", uuid(&longer.encode()[2..18]))
        .unwrap();
    assert!(
        longer.encode().starts_with(&shorter.encode()),
        "{shorter} {longer}"
    );
    (shorter, longer)
}

/// IDs of every type, with UUIDs that begin with another ID's bytes followed by `00` or
/// `01`: the keys whose byte ranges overlap (the one case where byte ranges are not exact).
fn any_id() -> impl Strategy<Value = Id> {
    let non_uuid = prop_oneof![
        prop::sample::select(vec![0u64, 1, 5, 255, 256, 70_000]).prop_map(Id::from),
        prop::sample::select(vec!["", "a", "ab", "b\u{0}"]).prop_map(Id::from),
    ];
    // Every non-UUID ID above encodes in fewer than 15 bytes.
    let colliding = (non_uuid.clone(), 0u8..2, any::<[u8; 16]>()).prop_map(|(base, sep, fill)| {
        let mut bytes = id_bytes(&base);
        bytes.push(sep);
        bytes.extend_from_slice(&fill[..16 - bytes.len()]);
        Id::Uuid(bytes.try_into().unwrap())
    });
    prop_oneof![non_uuid, any::<[u8; 16]>().prop_map(Id::Uuid), colliding]
}

/// A path of one to three components with IDs under namespaces `a` and `b`.
pub(crate) fn any_rest() -> impl Strategy<Value = KeyPath> {
    prop::collection::vec((prop::sample::select(vec!["a", "b"]), any_id()), 1..4).prop_map(|cs| {
        cs.into_iter()
            .fold(KeyPath::new(), |p, (ns, id)| p.push(ns, id).unwrap())
    })
}

fn any_bound() -> impl Strategy<Value = Bound<Id>> {
    prop_oneof![
        Just(Bound::Unbounded),
        any_id().prop_map(Bound::Included),
        any_id().prop_map(Bound::Excluded),
    ]
}

fn group() -> KeyPath {
    KeyPath::new().push("g", 1u64).unwrap()
}

/// Prefix, children-between and path-bounded queries over paths made of the same IDs.
fn any_query() -> impl Strategy<Value = Query> {
    let g = group;
    prop_oneof![
        (any_rest(), any::<bool>()).prop_map(move |(rest, open)| {
            let mut prefix = g().join(&rest).unwrap();
            if open {
                // A namespace-only last component: every ID of that namespace.
                let ns = prefix.segments().last().unwrap().namespace().to_owned();
                prefix = prefix.parent().unwrap().push_namespace(&ns).unwrap();
            }
            Query::prefix(&prefix).unwrap()
        }),
        (any_rest(), any_bound(), any_bound()).prop_map(move |(parent, lower, upper)| {
            let parent = g().join(&parent.parent().unwrap_or_default()).unwrap();
            Query::between(&parent, "a", lower, upper).unwrap()
        }),
        (any_rest(), any_rest(), any::<bool>()).prop_map(move |(lo, hi, inclusive)| {
            let q = Query::prefix(&g())
                .unwrap()
                .gt(&g().join(&lo).unwrap())
                .unwrap();
            if inclusive {
                q.lte(&g().join(&hi).unwrap()).unwrap()
            } else {
                q.lt(&g().join(&hi).unwrap()).unwrap()
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    /// For every key inside a plan's byte range, the shortcut that passes keys and filters
    /// without UUIDs agrees with evaluating every filter on the part after the group.
    #[test]
    fn matches_after_agrees_with_the_filters(query in any_query(), rests in prop::collection::vec(any_rest(), 1..24)) {
        let plan = query.plan(false, &[0x00]);
        for rest in &rests {
            let sort = rest.encode();
            let inside = sort >= plan.start && plan.end.as_ref().is_none_or(|e| sort < *e);
            if !inside {
                continue;
            }
            let whole = group().join(rest).unwrap();
            prop_assert_eq!(
                plan.matches_after(&whole, 1),
                plan.matches(rest),
                "{} for {:?}", rest, query
            );
        }
    }
}

/// The generators do reach keys that fail a filter inside the byte range, so the property
/// above tests the shortcut against real rejections.
#[test]
fn colliding_uuids_fall_inside_another_ids_range() {
    let uuid = colliding(0x42);
    let query = Query::prefix(&group().push("a", "a").unwrap()).unwrap();
    let plan = query.plan(false, &[0x00]);
    let rest = KeyPath::new().push("a", uuid).unwrap();
    let sort = rest.encode();
    assert!(sort >= plan.start && plan.end.as_ref().is_none_or(|e| sort < *e));
    assert!(!plan.matches(&rest));
    assert!(!plan.matches_after(&group().join(&rest).unwrap(), 1));
}
