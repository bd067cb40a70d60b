use std::ops::Bound;

use proptest::prelude::*;

use super::*;
use crate::I65;

const EXAMPLE: &str =
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn p(text: &str) -> KeyPath {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

/// The components of `path` as owned namespaces and IDs, read through its segment views.
fn comps(path: &KeyPath) -> Vec<(String, Option<Id>)> {
    path.segments()
        .map(|s| (s.namespace().to_owned(), s.id().map(|id| id.to_id())))
        .collect()
}

/// `base` extended by the components of `tail` up to its first without ID (only the last
/// may lack one); `base` as it is when it ends without ID.
fn extend(mut base: KeyPath, tail: &KeyPath) -> KeyPath {
    if comps(&base).last().is_some_and(|c| c.1.is_none()) {
        return base;
    }
    for (ns, id) in comps(tail) {
        match id {
            Some(id) => base = base.push(&ns, id).unwrap(),
            None => return base.push_namespace(&ns).unwrap(),
        }
    }
    base
}

/// A UUID whose bytes begin with another ID's encoding and `00` sits inside that ID's byte
/// range: `between` follows the bytes (as documented), `between_paths` the path order.
#[test]
fn uuid_shadowing_an_id_in_between() {
    let mut u = [0x33u8; 16];
    u[..5].copy_from_slice(&[0x08, 0x01, 0x00, 0x08, 0x11]); // 1 (08 01), 00, then more
    let k = KeyPath::new().push("a", Id::Uuid(u)).unwrap();
    let one = p("/a-1");
    assert!(one < k && one.encode() < k.encode());
    let root = KeyPath::new();
    for (lo, hi, inside) in [
        (Bound::Excluded(Id::from(1u64)), Bound::Unbounded, false),
        (Bound::Included(Id::from(1u64)), Bound::Unbounded, true),
        (Bound::Unbounded, Bound::Included(Id::from(1u64)), true),
        (Bound::Unbounded, Bound::Excluded(Id::from(1u64)), false),
    ] {
        let range = KeyRange::between(&root, "a", lo.clone(), hi.clone());
        assert_eq!(range.matches(&k), inside, "{lo:?} {hi:?}");
        assert_eq!(range.contains(&k.encode()), inside, "{lo:?} {hi:?}");
    }
    let after_one = KeyRange::between_paths(Bound::Excluded(one.clone()), Bound::Unbounded);
    assert!(after_one.matches(&k));
}

/// Short encodings are held inline, and a path stays as small as a `Vec` and a tag.
#[test]
fn representation_size() {
    assert_eq!(std::mem::size_of::<KeyPath>(), 32);
    let short = p("/user-1/post-1234");
    assert_eq!(short.encoded_len(), 21);
    assert!(matches!(short.repr, Repr::Inline { .. }));
    assert!(matches!(p(EXAMPLE).repr, Repr::Heap(_)));
    assert_eq!(p(EXAMPLE).clone(), p(EXAMPLE));
}

#[test]
fn published_example_is_byte_exact() {
    let bytes = p(EXAMPLE).encode();
    let segments = "75736572 01 4c9d36e56b194e6a828c226ed667458a 01 706f7374 01 0904d2 01 \
                    636f6d6d656e74 01 0b6411fff2 01 7265616374 01 082a 00"
        .replace(' ', "");
    assert_eq!(hex(&bytes[..segments.len() / 2]), segments);
    assert_eq!(bytes.len(), 63);
    // Metadata, one varint (len << 3 | type) per segment: "user" 4/ns = 20, the UUID 16/uuid
    // = 132 = 84 01 (two bytes), "post" 20, 1234 3/int = 19, "comment" 38, 1678901234 5/int
    // = 29, "react" 28, 42 2/int = 11.
    assert_eq!(hex(&bytes[54..]), "208401201938292811");
}

#[test]
fn text_forms() {
    let cases = [
        ("/a-1", Id::from(1u64)),
        ("/a-0", Id::from(0u64)),
        ("/a--17", Id::from(-17i64)),
        ("/a-18446744073709551615", Id::from(u64::MAX)),
        ("/a--18446744073709551615", Id::Int(I65::MIN)),
        ("/a-abc", Id::from("abc")),
        ("/a-", Id::from("")),
        ("/a--0", Id::from("-0")),
        ("/a-007", Id::from("007")),
        ("/a-%31234", Id::from("1234")),
        ("/a-%7Ex", Id::from("~x")),
        ("/a-x-y", Id::from("x-y")),
        ("/a-%/%%%00%7F", Id::from("/%\0\x7f")),
        ("/a-%2f", Id::from("/")),
        ("/a-é😀", Id::from("é😀")),
        ("/a-~", Id::Bytes(vec![])),
        ("/a-~AAE", Id::Bytes(vec![0, 1])),
        ("/a-~_w", Id::Bytes(vec![0xFF])),
        ("/a-~AQID", Id::Bytes(vec![1, 2, 3])),
        (
            "/a-4C9D36E5-6B19-4E6A-828C-226ED667458A",
            Id::Uuid([
                0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a, 0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67,
                0x45, 0x8a,
            ]),
        ),
    ];
    for (text, id) in cases {
        let path = p(text);
        assert_eq!(comps(&path)[0].1.as_ref(), Some(&id), "{text}");
        let printed = path.to_string();
        assert_eq!(p(&printed), path, "{text} printed as {printed}");
    }
    assert_eq!(p("/a-%31234").to_string(), "/a-%31234");
    assert_eq!(p("/a-%2f").to_string(), "/a-%/");
    assert_eq!(p("/a-x%0A").to_string(), "/a-x%0A");
    assert_eq!(
        p("/a-4C9D36E5-6B19-4E6A-828C-226ED667458A").to_string(),
        "/a-4c9d36e5-6b19-4e6a-828c-226ed667458a"
    );
    assert_eq!(
        Id::from("4c9d36e5-6b19-4e6a-828c-226ed667458a").to_string(),
        "%34c9d36e5-6b19-4e6a-828c-226ed667458a"
    );
    assert_eq!(p("/").to_string(), "/");
    assert_eq!(p("/user-1/post").to_string(), "/user-1/post");
}

#[test]
fn text_errors_say_where() {
    let cases = [
        ("", 0, "expected '/'"),
        ("user-1", 0, "expected '/'"),
        ("//a-1", 1, "namespace"),
        ("/a-1/", 5, "namespace"),
        ("/a1-1", 1, "namespace"),
        ("/a/b-1", 1, "only the last component"),
        ("/a-18446744073709551616", 3, "out of range"),
        ("/a--18446744073709551616", 3, "out of range"),
        ("/a-1/b-~AB=", 8, "base64url"),
        ("/a-~A", 4, "base64url"),
        (
            "/a-~AB",
            4,
            "unused low bits zero, found \"AB\" (the same bytes are written \"AA\")",
        ),
        ("/a-~-9", 4, "written \"-w\""),
        ("/a-~AAAAAB", 4, "written \"AAAAAA\""),
        ("/a-x%", 4, "'%/'"),
        ("/a-x%8F", 4, "'%/'"),
        ("/a-x%G1", 4, "'%/'"),
    ];
    for (text, pos, needle) in cases {
        let err = text.parse::<KeyPath>().expect_err(text);
        assert_eq!(err.position(), pos, "{text}: {err}");
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
    // The form an error suggests spells the bytes the rejected one did.
    assert_eq!("/a-~-w".parse::<KeyPath>().unwrap().to_string(), "/a-~-w");
    assert_eq!(
        comps(&"/a-~-w".parse::<KeyPath>().unwrap())[0].1,
        Some(Id::Bytes(vec![0xFB]))
    );
}

#[test]
fn order_rules() {
    let sorted = [
        "/",
        "/a",
        "/a--18446744073709551615",
        "/a--256",
        "/a--1",
        "/a-0",
        "/a-0/b-1",
        "/a-9",
        "/a-42",
        "/a-100",
        "/a-18446744073709551615",
        "/a-",
        "/a-%00",
        "/a-%00/b-1",
        "/a-%00%00",
        "/a-%01",
        "/a-%10",
        "/a-%11",
        "/a-ab",
        "/a-ab/b-1",
        "/a-abc",
        "/a-é",
        "/a-~",
        "/a-~AA",
        "/a-~AAA",
        "/a-~AQ",
        "/a-~_w",
        "/a_-1",
        "/ab-1",
        "/b",
        "/b-1",
    ];
    let paths: Vec<KeyPath> = sorted.iter().map(|t| p(t)).collect();
    for w in paths.windows(2) {
        assert!(w[0] < w[1], "{} < {}", w[0], w[1]);
        assert!(
            w[0].encode() < w[1].encode(),
            "bytes of {} < {}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn split_and_join_groups() {
    let path = p(EXAMPLE);
    let (group, sort) = path.split_group().unwrap();
    assert_eq!(
        KeyPath::decode(&group).unwrap(),
        p("/user-4c9d36e5-6b19-4e6a-828c-226ed667458a")
    );
    assert_eq!(
        KeyPath::decode(&sort).unwrap(),
        p("/post-1234/comment-1678901234/react-42")
    );
    assert_eq!(KeyPath::from_group(&group, &sort).unwrap(), path);
    let (root_group, root_sort) = p("/user-1").split_group().unwrap();
    assert_eq!(root_sort, [0x00]);
    assert!(root_sort < p("/a").encode());
    assert_eq!(
        KeyPath::from_group(&root_group, &root_sort).unwrap(),
        p("/user-1")
    );
    assert!(p("/user").split_group().is_err());
    assert!(KeyPath::new().split_group().is_err());
    assert!(KeyPath::from_group(&p("/a-1/b-2").encode(), &[0]).is_err());
    assert!(KeyPath::from_group(&p("/a").encode(), &[0]).is_err());
}

#[cfg(feature = "uuid")]
#[test]
fn builder_accepts_id_types_and_rejects_bad_input() {
    let path = KeyPath::new()
        .push("a", 1u8)
        .unwrap()
        .push("b", -1i32)
        .unwrap()
        .push("c", 5i128)
        .unwrap()
        .push("d", "s")
        .unwrap()
        .push("e", String::from("t"))
        .unwrap()
        .push("f", vec![1u8, 2])
        .unwrap()
        .push("g", uuid::Uuid::nil())
        .unwrap()
        .push("h", I65::MAX)
        .unwrap()
        .push_namespace("i")
        .unwrap();
    assert_eq!(path.to_string(), "/a-1/b--1/c-5/d-s/e-t/f-~AQI/g-00000000-0000-0000-0000-000000000000/h-18446744073709551615/i");
    assert!(matches!(
        KeyPath::new().push("a", 1i128 << 64),
        Err(PathError::IntRange(_))
    ));
    assert!(matches!(
        KeyPath::new().push("", 1u8),
        Err(PathError::InvalidNamespace { .. })
    ));
    assert!(matches!(
        KeyPath::new().push("a-b", 1u8),
        Err(PathError::InvalidNamespace { .. })
    ));
    let err = KeyPath::new()
        .push_namespace("a")
        .unwrap()
        .push("b", 1u8)
        .unwrap_err();
    assert!(matches!(err, PathError::IdRequired { .. }), "{err}");
}

#[test]
fn decode_rejects_malformed_input() {
    let good = p("/a-1").encode();
    assert_eq!(good, [0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x11]);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "no bytes"),
        (
            vec![0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x89],
            "continuation",
        ),
        (vec![0x61, 0x02, 0x08, 0x01, 0x00, 0x08, 0x11], "separator"),
        (
            vec![0x61, 0x01, 0x08, 0x00, 0x00, 0x08, 0x11],
            "not minimal",
        ),
        (vec![0x31, 0x01, 0x08, 0x01, 0x00, 0x08, 0x11], "namespace"),
        (vec![0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x17], "type code"),
        (vec![0x61, 0x01, 0x61, 0x01, 0x00, 0x08, 0x12], "escaped"), // "a\x01" with a raw 0x01
        (vec![0x61, 0x01, 0x10, 0x20, 0x00, 0x08, 0x12], "escaped"),
        (vec![0x61, 0x01, 0xC3, 0x00, 0x08, 0x0A], "UTF-8"),
        (vec![0x61, 0x01, 0x41, 0x00, 0x08, 0x0B], "marker"),
        (vec![0x61, 0x01, 0x41, 0x00, 0x08, 0x0C], "16-byte"),
        (vec![0x61, 0x00, 0x88, 0x00], "overlong"),
        (
            vec![0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x11, 0x00],
            "lengths",
        ),
    ];
    for (bytes, needle) in cases {
        let err = KeyPath::decode(&bytes).expect_err(&hex(&bytes));
        assert!(err.to_string().contains(needle), "{}: {err}", hex(&bytes));
    }
}

// ---- property tests ----

fn any_int() -> impl Strategy<Value = I65> {
    prop_oneof![
        any::<i64>().prop_map(I65::from),
        (any::<bool>(), any::<u64>()).prop_map(|(n, m)| I65::from_sign_magnitude(n, m)),
        (any::<bool>(), 0u32..64).prop_map(|(n, s)| I65::from_sign_magnitude(n, (1u64 << s) - 1)),
        Just(I65::MIN),
        Just(I65::MAX),
        (-3i64..3).prop_map(I65::from),
    ]
}

fn tricky_string() -> impl Strategy<Value = String> {
    let chars = prop_oneof![
        Just('\0'),
        Just('\u{1}'),
        Just('\u{2}'),
        Just('\u{10}'),
        Just('\u{11}'),
        Just('\u{7f}'),
        Just('a'),
        Just('b'),
        Just('/'),
        Just('%'),
        Just('-'),
        Just('~'),
        Just('1'),
        Just('0'),
        Just('é'),
        Just('\u{FFFF}'),
        Just('😀'),
        any::<char>(),
    ];
    proptest::collection::vec(chars, 0..5).prop_map(|v| v.into_iter().collect())
}

fn tricky_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        Just(0u8),
        Just(1),
        Just(2),
        Just(0x10),
        Just(0x11),
        Just(0xFF),
        Just(b'a'),
        any::<u8>()
    ];
    proptest::collection::vec(byte, 0..5)
}

fn any_uuid() -> impl Strategy<Value = [u8; 16]> {
    prop_oneof![
        Just([0u8; 16]),
        Just([0xFF; 16]),
        Just([0x08; 16]),
        any::<[u8; 16]>(),
    ]
}

fn any_id(with_uuids: bool) -> BoxedStrategy<Id> {
    let base = prop_oneof![
        any_int().prop_map(Id::Int),
        tricky_string().prop_map(Id::Str),
        tricky_bytes().prop_map(Id::Bytes),
    ];
    if with_uuids {
        prop_oneof![4 => base, 1 => any_uuid().prop_map(Id::Uuid)].boxed()
    } else {
        base.boxed()
    }
}

/// Two IDs, often a UUID whose bytes begin with (or are exactly) the other ID's encoding.
fn id_pairs() -> impl Strategy<Value = (Id, Id)> {
    let sixteen = prop_oneof![
        Just(Id::from("aaaaaaaaaaaaaaaa")),
        Just(Id::Bytes(vec![7; 14])),
        any::<u64>().prop_map(Id::from),
        any_id(false),
    ];
    let shadowed = (sixteen, any::<[u8; 16]>(), any::<bool>()).prop_map(|(id, tail, swap)| {
        let mut bytes = Vec::new();
        super::binary::encode_id(&id, &mut bytes);
        bytes.extend_from_slice(&tail);
        let uuid = Id::Uuid(bytes[..16].try_into().unwrap());
        if swap {
            (uuid, id)
        } else {
            (id, uuid)
        }
    });
    prop_oneof![(any_id(true), any_id(true)), shadowed]
}

fn any_path_with(with_uuids: bool, max_len: usize) -> BoxedStrategy<KeyPath> {
    // Mostly a few short names, so that paths share components; sometimes one of any
    // length up to past the longest stored inline (22 bytes), which decoding and cloning
    // read a word at a time.
    let namespace = prop_oneof![
        4 => prop_oneof![
            Just("a"),
            Just("b"),
            Just("ab"),
            Just("_"),
            Just("post"),
            Just("Post")
        ]
        .prop_map(str::to_owned),
        1 => "[a-zA-Z_]{1,26}",
    ];
    let component = (namespace.clone(), any_id(with_uuids));
    (
        proptest::collection::vec(component, 0..max_len),
        prop_oneof![Just(None), namespace.prop_map(Some)],
    )
        .prop_map(|(components, trailing)| {
            let mut path = KeyPath::new();
            for (ns, id) in components {
                path = path.push(&ns, id).unwrap();
            }
            match trailing {
                Some(ns) => path.push_namespace(&ns).unwrap(),
                None => path,
            }
        })
        .boxed()
}

fn any_path() -> impl Strategy<Value = KeyPath> {
    any_path_with(true, 4)
}

/// Two paths that likely share a prefix, so comparisons reach deep components.
fn related_paths() -> impl Strategy<Value = (KeyPath, KeyPath)> {
    (any_path(), any_path(), any_path())
        .prop_map(|(prefix, a, b)| (extend(prefix.clone(), &a), extend(prefix, &b)))
}

/// Whether some position holds a UUID in one path and another ID type in the other, under
/// equal namespaces and equal earlier components (where the raw-UUID exception applies).
fn uuid_mixed(a: &KeyPath, b: &KeyPath) -> bool {
    for (x, y) in comps(a).iter().zip(comps(b)) {
        if x.0 != y.0 {
            return false;
        }
        match (x.1.as_ref(), y.1.as_ref()) {
            (Some(i), Some(j)) if i == j => continue,
            (Some(i), Some(j)) => {
                return (i.id_type() == IdType::Uuid) != (j.id_type() == IdType::Uuid);
            }
            _ => return false,
        }
    }
    false
}

/// The logical order written out from the rules, for paths without the UUID exception.
fn reference_cmp(a: &KeyPath, b: &KeyPath) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    for (x, y) in comps(a).iter().zip(comps(b)) {
        let ns = x.0.as_bytes().cmp(y.0.as_bytes());
        if ns != Equal {
            return ns;
        }
        let by_id = match (x.1.as_ref(), y.1.as_ref()) {
            (None, None) => Equal,
            (None, Some(_)) => Less,
            (Some(_), None) => Greater,
            (Some(i), Some(j)) => match (i, j) {
                (Id::Int(m), Id::Int(n)) => m.to_i128().cmp(&n.to_i128()),
                (Id::Str(m), Id::Str(n)) => m.as_bytes().cmp(n.as_bytes()),
                (Id::Bytes(m), Id::Bytes(n)) => m.cmp(n),
                (Id::Uuid(m), Id::Uuid(n)) => m.cmp(n),
                (Id::Int(_), _) => Less,
                (_, Id::Int(_)) => Greater,
                (Id::Str(_), _) => Less,
                (_, Id::Str(_)) => Greater,
                _ => unreachable!("uuid mixes are excluded"),
            },
        };
        if by_id != Equal {
            return by_id;
        }
    }
    a.len().cmp(&b.len())
}

fn any_bound<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + Clone + 'static,
) -> impl Strategy<Value = Bound<T>> {
    prop_oneof![
        Just(Bound::Unbounded),
        s.clone().prop_map(Bound::Included),
        s.prop_map(Bound::Excluded),
    ]
}

/// A query and its reference filter, written independently of `KeyRange::matches`.
#[derive(Debug, Clone)]
enum Query {
    Subtree(KeyPath),
    Descendants(KeyPath),
    Between(KeyPath, &'static str, Bound<Id>, Bound<Id>),
    Paths(Bound<KeyPath>, Bound<KeyPath>),
}

fn component_prefix(path: &KeyPath, prefix: &KeyPath) -> bool {
    path.len() >= prefix.len()
        && comps(prefix)
            .iter()
            .zip(comps(path))
            .all(|(q, c)| q.0 == c.0 && (q.1.is_none() || q.1 == c.1))
}

impl Query {
    fn range(&self) -> KeyRange {
        match self {
            Query::Subtree(q) => KeyRange::subtree(q),
            Query::Descendants(q) => KeyRange::descendants(q),
            Query::Between(parent, ns, lo, hi) => {
                KeyRange::between(parent, ns, lo.clone(), hi.clone())
            }
            Query::Paths(lo, hi) => KeyRange::between_paths(lo.clone(), hi.clone()),
        }
    }

    fn reference(&self, path: &KeyPath) -> bool {
        match self {
            Query::Subtree(q) => component_prefix(path, q),
            Query::Descendants(q) => component_prefix(path, q) && path != q,
            Query::Between(parent, ns, lo, hi) => {
                let Some((c_ns, Some(id))) = comps(path).get(parent.len()).cloned() else {
                    return false;
                };
                let id = &id;
                let is_uuid = |i: &Id| matches!(i, Id::Uuid(_));
                let mixed = [lo, hi].iter().any(|b| match b {
                    Bound::Included(x) | Bound::Excluded(x) => is_uuid(x) != is_uuid(id),
                    Bound::Unbounded => false,
                });
                if mixed {
                    // Documented: UUID against a non-UUID bound follows the byte range.
                    let structural = component_prefix(path, parent) && c_ns == *ns;
                    return structural && self.range().contains(&path.encode());
                }
                let above = match lo {
                    Bound::Unbounded => true,
                    Bound::Included(l) => id >= l,
                    Bound::Excluded(l) => id > l,
                };
                let below = match hi {
                    Bound::Unbounded => true,
                    Bound::Included(h) => id <= h,
                    Bound::Excluded(h) => id < h,
                };
                component_prefix(path, parent) && c_ns == *ns && above && below
            }
            Query::Paths(lo, hi) => {
                let key = path.encode();
                let above = match lo {
                    Bound::Unbounded => true,
                    Bound::Included(l) => key >= l.encode(),
                    Bound::Excluded(l) => key > l.encode(),
                };
                let below = match hi {
                    Bound::Unbounded => true,
                    Bound::Included(h) => key <= h.encode(),
                    Bound::Excluded(h) => key < h.encode(),
                };
                above && below
            }
        }
    }
}

fn id_path() -> impl Strategy<Value = KeyPath> {
    any_path_with(false, 3).prop_filter("parent paths need IDs", |p| {
        p.segments().last().is_none_or(|c| c.id().is_some())
    })
}

fn any_query(with_uuids: bool) -> impl Strategy<Value = Query> {
    let path = any_path_with(with_uuids, 3);
    prop_oneof![
        path.clone().prop_map(Query::Subtree),
        path.clone().prop_map(Query::Descendants),
        (
            id_path(),
            prop_oneof![Just("a"), Just("b")],
            any_bound(any_id(with_uuids)),
            any_bound(any_id(with_uuids))
        )
            .prop_map(|(p, ns, lo, hi)| Query::Between(p, ns, lo, hi)),
        (any_bound(path.clone()), any_bound(path)).prop_map(|(lo, hi)| Query::Paths(lo, hi)),
    ]
}

/// Paths built from a few shared prefixes, so queries select real subsets.
fn path_set(with_uuids: bool) -> impl Strategy<Value = Vec<KeyPath>> {
    proptest::collection::vec(any_path_with(with_uuids, 3), 1..6).prop_flat_map(move |seeds| {
        let n = seeds.len();
        proptest::collection::vec((0..n, any_path_with(with_uuids, 3)), 0..24).prop_map(
            move |picks| {
                let mut out = seeds.clone();
                for (i, tail) in picks {
                    out.push(extend(seeds[i].clone(), &tail));
                }
                out
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(100_000)))]

    #[test]
    fn order_is_byte_order((a, b) in related_paths()) {
        prop_assert_eq!(a.cmp(&b), a.encode().cmp(&b.encode()), "{} vs {}", a, b);
        if !uuid_mixed(&a, &b) {
            prop_assert_eq!(a.cmp(&b), reference_cmp(&a, &b), "{} vs {}", a, b);
        }
        prop_assert_eq!(a == b, a.encode() == b.encode());
    }

    /// `Id`'s order is a total order equal only for equal IDs, also with a UUID whose 16
    /// bytes are another ID's encoding; without such a mix it is the order of paths that
    /// differ only in the IDs.
    #[test]
    fn id_order_is_total((a, b) in id_pairs(), c in any_id(true)) {
        use std::cmp::Ordering::Equal;
        prop_assert_eq!(a.cmp(&b) == Equal, a == b, "{:?} vs {:?}", a, b);
        prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        for (x, y, z) in [(&a, &b, &c), (&a, &c, &b), (&b, &a, &c), (&b, &c, &a), (&c, &a, &b), (&c, &b, &a)] {
            if x <= y && y <= z {
                prop_assert!(x <= z, "{:?} <= {:?} <= {:?}", x, y, z);
            }
        }
        let uuid = |i: &Id| matches!(i, Id::Uuid(_));
        if uuid(&a) == uuid(&b) {
            let pa = KeyPath::new().push("x", a.clone()).unwrap();
            let pb = KeyPath::new().push("x", b.clone()).unwrap();
            prop_assert_eq!(a.cmp(&b), pa.cmp(&pb), "{:?} vs {:?}", a, b);
        }
    }

    #[test]
    fn binary_round_trip(a in any_path()) {
        let bytes = a.encode();
        prop_assert_eq!(bytes.len(), a.encoded_len());
        prop_assert_eq!(KeyPath::decode(&bytes), Ok(a.clone()));
        let mut buf = vec![0xAA];
        a.encode_into(&mut buf);
        prop_assert_eq!(&buf[1..], &bytes[..]);
    }

    #[test]
    fn non_canonical_base64_names_its_canonical_form(
        mut bytes in proptest::collection::vec(any::<u8>(), 1..20),
        low in 1u8..16,
    ) {
        // A length that leaves unused bits (not a multiple of 3 bytes) can spell the same
        // bytes with some of them set.
        if bytes.len() % 3 == 0 {
            bytes.pop();
        }
        let text = KeyPath::new().push("a", Id::Bytes(bytes.clone())).unwrap().to_string();
        let canonical = text["/a-~".len()..].to_owned();
        let spare = [0, 4, 2][bytes.len() % 3];
        let last = canonical.len() - 1;
        let digit = super::text::BASE64URL.iter().position(|&c| c == canonical.as_bytes()[last]).unwrap();
        let bad_digit = super::text::BASE64URL[digit | usize::from(low % (1 << spare)).max(1)];
        let bad = format!("{}{}", &canonical[..last], char::from(bad_digit));
        let err = format!("/a-~{bad}").parse::<KeyPath>().unwrap_err();
        prop_assert_eq!(err.kind(), &ParseErrorKind::Base64NotCanonical { found: bad, canonical });
    }

    #[test]
    fn text_round_trip(a in any_path()) {
        let text = a.to_string();
        prop_assert_eq!(text.parse::<KeyPath>(), Ok(a), "{}", text);
    }

    /// The one-pass parser of the common forms gives what the full parser gives, on the
    /// text of any path and on that text with one byte replaced (a `/`, `-`, `%`, `~`, a
    /// digit, a hex letter, a control byte or any ASCII byte).
    #[test]
    fn fast_parse_matches_full_parse(
        a in any_path(),
        at in any::<prop::sample::Index>(),
        byte in prop_oneof![
            Just(b'/'), Just(b'-'), Just(b'%'), Just(b'~'), Just(b'0'), Just(b'9'),
            Just(b'F'), Just(b'g'), Just(0x10u8), Just(0x11), 0x00u8..0x80,
        ],
    ) {
        let text = a.to_string();
        fast_agrees(&text)?;
        let mut bytes = text.into_bytes();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        if let Ok(mutated) = String::from_utf8(bytes) {
            fast_agrees(&mutated)?;
        }
    }

    /// The same on texts made of the pieces the one-pass parser reads: components of a
    /// namespace (or a few other bytes), a dash (or none, or a slash) and an ID that is a run
    /// of up to 22 digits, a UUID or a text close to one, escapes, bytes the binary form
    /// escapes, or any character; longer and shorter than the longest text it takes, and
    /// shorter than a word.
    #[test]
    fn fast_parse_matches_full_parse_on_pieces(
        components in proptest::collection::vec(
            (
                prop_oneof![4 => "[a-zA-Z_]{1,20}", 1 => "[a-z0-9_%-]{0,3}"],
                prop_oneof![8 => Just("-"), 1 => Just(""), 1 => Just("/")],
                prop_oneof![
                    "[1-9][0-9]{0,21}",
                    "-[1-9][0-9]{0,21}",
                    "-?[0-9]{1,3}",
                    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                    "[0-9a-gA-G-]{1,40}",
                    "[a-zA-Z0-9 _]{0,12}",
                    "[%~/\\x00-\\x11\\x7F\u{E9}0-9]{1,3}",
                    any::<char>().prop_map(String::from),
                ],
            ),
            0..10,
        ),
        end in prop_oneof![Just(String::new()), Just("/".to_owned()), any::<char>().prop_map(String::from)],
    ) {
        let components: Vec<String> =
            components.into_iter().map(|(ns, dash, id)| format!("{ns}{dash}{id}")).collect();
        let text = format!("/{}{end}", components.join("/"));
        fast_agrees(&text)?;
        fast_agrees(&text[1..])?;
    }

    #[test]
    fn group_split_round_trip(a in any_path()) {
        prop_assert_eq!(a.split_group().is_ok(), a.split_group_paths().is_ok());
        if let Ok((group, sort)) = a.split_group() {
            prop_assert!(!group.is_empty() && !sort.is_empty());
            prop_assert_eq!(KeyPath::from_group(&group, &sort), Ok(a.clone()));
            let (g, rest) = a.split_group_paths().unwrap();
            prop_assert_eq!(g.as_bytes(), &group[..]);
            prop_assert_eq!(rest.as_bytes(), &sort[..]);
            prop_assert_eq!(KeyPath::from_group_path(&g, &sort), Ok(a.clone()));
            prop_assert_eq!(g.join(&rest), Ok(a));
        }
    }

    /// Under any group (inline or not, with one- or two-byte metadata), a sort key that is
    /// any path's encoding, that encoding with one byte changed, or arbitrary bytes gives
    /// what decoding it and joining it to the group gives, or an error when either fails.
    #[test]
    fn from_group_path_matches_decode_and_join(
        group in prop_oneof![
            any_path_with(true, 2).prop_filter_map("a group", |p| p.split_group_paths().ok().map(|(g, _)| g)),
            Just(KeyPath::new().push("g", 1u64).unwrap()),
            Just(KeyPath::new().push("board", 7u64).unwrap()),
        ],
        sort in prop_oneof![
            any_path().prop_map(|p| p.encode()),
            (any_path(), any::<prop::sample::Index>(), any::<u8>()).prop_map(|(p, at, byte)| {
                let mut bytes = p.encode();
                let i = at.index(bytes.len());
                bytes[i] = byte;
                bytes
            }),
            proptest::collection::vec(any::<u8>(), 0..32),
        ],
    ) {
        let joined = KeyPath::decode(&sort).ok().and_then(|tail| group.join(&tail).ok());
        let built = KeyPath::from_group_path(&group, &sort);
        prop_assert_eq!(built.as_ref().ok(), joined.as_ref(), "{:02x?}", sort);
        if let Ok(path) = built {
            prop_assert_eq!(KeyPath::decode(path.as_bytes()), Ok(path.clone()));
            prop_assert_eq!(KeyPath::from_group(group.as_bytes(), &sort), Ok(path));
        }
    }

    /// Every split is two valid paths (they encode and decode back) that join into the
    /// path, the head with `n` components.
    #[test]
    fn split_at_round_trip(a in any_path(), n in 0usize..8) {
        match a.split_at(n) {
            Some((head, tail)) => {
                prop_assert_eq!(head.len(), n);
                prop_assert_eq!(KeyPath::decode(&head.encode()), Ok(head.clone()));
                prop_assert_eq!(KeyPath::decode(&tail.encode()), Ok(tail.clone()));
                prop_assert_eq!(head.join(&tail), Ok(a));
            }
            None => prop_assert!(n > a.len()),
        }
    }

    #[test]
    fn decode_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        if let Ok(path) = KeyPath::decode(&bytes) {
            prop_assert_eq!(path.encode(), bytes);
        }
    }

    #[test]
    fn decode_mutated_encodings(a in any_path(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = a.encode();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        if let Ok(path) = KeyPath::decode(&bytes) {
            prop_assert_eq!(path.encode(), bytes.clone());
        }
        views_agree(&bytes)?;
    }

    #[test]
    fn views_agree_on_encodings(a in any_path()) {
        let bytes = a.encode();
        views_agree(&bytes)?;
        // Generated paths have the common shape (at most 32 segments, each shorter than
        // 256 KiB), which the fast validator takes.
        prop_assert!(binary::validate_fast(&bytes).is_some(), "{}", a);
        // One component with an ID, each segment shorter than 16 bytes, takes the
        // one-component reader.
        let c = comps(&a);
        if let [(ns, Some(id))] = c.as_slice() {
            let mut segment = Vec::new();
            binary::encode_id(id, &mut segment);
            prop_assert_eq!(
                binary::one_component(&bytes).is_some(),
                ns.len() < 16 && segment.len() < 16,
                "{}", a
            );
        }
    }

    /// One-component paths with any one byte changed to any value.
    #[test]
    fn views_agree_on_mutations(
        ns in "[a-zA-Z_]{1,16}|[a-z]{1,3}",
        id in any_id(true),
        at in any::<prop::sample::Index>(),
        byte in prop_oneof![Just(0u8), Just(1), Just(2), Just(0x10), any::<u8>()],
    ) {
        let bytes = KeyPath::new().push(&ns, id).unwrap().encode();
        let mut mutated = bytes.clone();
        let i = at.index(bytes.len());
        mutated[i] = byte;
        views_agree(&mutated)?;
    }

    #[test]
    fn views_agree_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        views_agree(&bytes)?;
    }

    /// The borrowed view of a path built from components reads back those components, in
    /// order, and has the owned path's text, length, bytes and order.
    #[test]
    fn view_matches_owned_path(list in component_list(), (a, b) in related_paths()) {
        let mut path = KeyPath::new();
        for (ns, id) in &list {
            path = match id {
                Some(id) => path.push(ns, id.clone()).unwrap(),
                None => path.push_namespace(ns).unwrap(),
            };
        }
        let view = KeyPathRef::decode(path.as_bytes()).unwrap();
        let read: Vec<(String, Option<Id>)> = view
            .segments()
            .map(|s| (s.namespace().to_owned(), s.id().map(|id| id.to_id())))
            .collect();
        prop_assert_eq!(&read, &list);
        for (s, (_, id)) in view.segments().zip(&list) {
            prop_assert_eq!(s.id_type(), id.as_ref().map(Id::id_type));
            prop_assert_eq!(s.id().as_ref().map(IdRef::id_type), id.as_ref().map(Id::id_type));
            if let (Some(got), Some(want)) = (s.id(), id) {
                prop_assert!(got == *want);
                prop_assert_eq!(got.to_string(), want.to_string());
            }
        }
        prop_assert_eq!(view.len(), list.len());
        prop_assert_eq!(view.to_string(), path.to_string());
        prop_assert_eq!(view.to_key_path(), path.clone());
        prop_assert!(view == path);
        let (va, vb) = (a.as_path_ref(), b.as_path_ref());
        prop_assert_eq!(va.cmp(&vb), a.cmp(&b));
        prop_assert_eq!(va.starts_with(vb), a.starts_with(&b));
        prop_assert_eq!(a.starts_with(&b), component_prefix(&a, &b));
    }
}

/// Components of a path: namespaces with IDs, the last one perhaps without.
fn component_list() -> impl Strategy<Value = Vec<(String, Option<Id>)>> {
    let namespace = prop_oneof![
        Just("a".to_owned()),
        Just("post".to_owned()),
        "[a-zA-Z_]{1,20}"
    ];
    (
        proptest::collection::vec((namespace.clone(), any_id(true)), 0..5),
        proptest::option::of(namespace),
    )
        .prop_map(|(with_ids, trailing)| {
            let mut list: Vec<(String, Option<Id>)> = with_ids
                .into_iter()
                .map(|(ns, id)| (ns, Some(id)))
                .collect();
            list.extend(trailing.map(|ns| (ns, None)));
            list
        })
}

/// The fast metadata reader finds only layouts the checked one finds, the fast validator
/// accepts only what the checked one accepts; the view and the
/// owned decoder accept the same bytes (with the same error otherwise); and what they accept
/// is canonical: rebuilt from its components with the builder it is the same bytes, and its
/// text parses back to it.
fn views_agree(bytes: &[u8]) -> Result<(), TestCaseError> {
    let checked_layout = binary::find_metadata(bytes);
    if let Some(layout) = binary::scan_metadata(bytes, Some(&mut [0; binary::FAST_SEGMENTS])) {
        prop_assert_eq!(
            checked_layout.as_ref().ok(),
            Some(&layout),
            "{:02x?}",
            bytes
        );
    }
    if let Ok(layout) = &checked_layout {
        // Without keeping the metadata there is no limit on the segment count.
        if let Some(fast) = binary::scan_metadata(bytes, None) {
            prop_assert_eq!(&fast, layout);
        }
    }
    // The one-component reader and the fast validator accept only what the checked
    // validator accepts, with the same layout.
    if let Some(layout) = binary::one_component(bytes) {
        prop_assert_eq!(
            binary::validate_checked(bytes),
            Ok(layout),
            "{:02x?}",
            bytes
        );
    }
    if let Some(layout) = binary::validate_fast(bytes) {
        prop_assert_eq!(
            binary::validate_checked(bytes),
            Ok(layout),
            "{:02x?}",
            bytes
        );
    }
    let owned = KeyPath::decode(bytes);
    let view = KeyPathRef::decode(bytes);
    prop_assert_eq!(
        view.map(KeyPathRef::to_key_path),
        owned.clone(),
        "{:02x?}",
        bytes
    );
    let Ok(path) = owned else {
        return Ok(());
    };
    prop_assert_eq!(path.as_bytes(), bytes);
    let mut rebuilt = KeyPath::new();
    for (ns, id) in comps(&path) {
        rebuilt = match id {
            Some(id) => rebuilt.push(&ns, id).unwrap(),
            None => rebuilt.push_namespace(&ns).unwrap(),
        };
    }
    prop_assert_eq!(rebuilt.as_bytes(), bytes);
    prop_assert_eq!(path.to_string().parse::<KeyPath>(), Ok(path.clone()));
    let spans = path.as_path_ref().segment_spans();
    let segment_count = comps(&path)
        .iter()
        .map(|c| 1 + usize::from(c.1.is_some()))
        .sum::<usize>();
    prop_assert_eq!(spans.len(), segment_count);
    if let Some(last) = spans.last() {
        prop_assert_eq!(last.metadata.end, bytes.len());
        prop_assert_eq!(bytes[last.range.end], TERMINATOR);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(100_000)))]

    /// Without UUIDs mixed in, byte ranges alone are exact.
    #[test]
    fn ranges_are_exact(paths in path_set(false), query in any_query(false)) {
        check_range(&paths, &query, false)?;
    }

    /// With UUIDs, byte range plus `matches` is exact.
    #[test]
    fn ranges_with_uuids_are_exact_after_matches(paths in path_set(true), query in any_query(true)) {
        check_range(&paths, &query, true)?;
    }
}

fn check_range(paths: &[KeyPath], query: &Query, filter: bool) -> Result<(), TestCaseError> {
    let range = query.range();
    let mut keys: Vec<Vec<u8>> = paths.iter().map(KeyPath::encode).collect();
    keys.sort();
    keys.dedup();
    let got: Vec<KeyPath> = keys
        .iter()
        .filter(|k| range.contains(k))
        .map(|k| KeyPath::decode(k).unwrap())
        .filter(|p| !filter || range.matches(p))
        .collect();
    let mut want: Vec<KeyPath> = keys
        .iter()
        .map(|k| KeyPath::decode(k).unwrap())
        .filter(|p| query.reference(p))
        .collect();
    want.sort();
    prop_assert_eq!(&got, &want, "query {:?}, range {:?}", query, range);
    for p in &want {
        prop_assert!(range.matches(p), "matches() rejects {} for {:?}", p, query);
        prop_assert!(range.matches_ref(p.as_path_ref()));
    }
    // Under a group key, `matches_after` decides exactly as `matches` on the rest.
    let group = KeyPath::new().push("g", 1u64).unwrap();
    for k in &keys {
        let rest = KeyPath::decode(k).unwrap();
        let whole = group.join(&rest).unwrap();
        prop_assert_eq!(
            range.matches_after(&whole, 1),
            range.matches(&rest),
            "{} under {} for {:?}",
            rest,
            group,
            query
        );
    }
    Ok(())
}

#[cfg(feature = "serde")]
#[test]
fn serde_text_in_json_and_bytes_in_binary_formats() {
    let path = p(EXAMPLE);
    let json = serde_json::to_string(&path).unwrap();
    assert_eq!(json, format!("\"{EXAMPLE}\""));
    assert_eq!(serde_json::from_str::<KeyPath>(&json).unwrap(), path);
    assert!(serde_json::from_str::<KeyPath>("\"/a/b-1\"")
        .unwrap_err()
        .to_string()
        .contains("only the last"));

    // In the order-preserving codec (not human-readable) a key path is its binary form, so
    // key paths as codec fields keep their order.
    let a = crate::codec::to_vec(&(7u8, p("/a-9"))).unwrap();
    let b = crate::codec::to_vec(&(7u8, p("/a-10"))).unwrap();
    assert!(a < b);
    assert_eq!(
        crate::codec::from_slice::<(u8, KeyPath)>(&b).unwrap(),
        (7, p("/a-10"))
    );
}

/// Where the one-pass parser takes `text`, the full parser gives the same path; and
/// `KeyPath::parse_into` appends what parsing and encoding append, with the same error
/// (leaving the buffer as it was).
fn fast_agrees(text: &str) -> Result<(), TestCaseError> {
    if text.starts_with('/') && text != "/" {
        if let Some(path) = super::parse_fast::parse(text) {
            prop_assert_eq!(super::text::parse_full(text), Ok(path), "{:?}", text);
        }
    }
    let mut appended = vec![0xAB];
    let result = KeyPath::parse_into(text, &mut appended);
    let mut expected = vec![0xAB];
    let parsed = text
        .parse::<KeyPath>()
        .map(|p| p.encode_into(&mut expected));
    prop_assert_eq!(result, parsed, "{:?}", text);
    prop_assert_eq!(appended, expected, "{:?}", text);
    Ok(())
}

/// The word-at-a-time UUID reader agrees with reading each pair of hex digits on its own,
/// for every byte value at every position of a UUID's text.
#[test]
fn uuid_text_matches_digit_pairs() {
    let reference = |b: &[u8]| -> Option<[u8; 16]> {
        let b: &[u8; 36] = b.try_into().ok()?;
        if [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
            return None;
        }
        let digits: Vec<u8> = b.iter().copied().filter(|&c| c != b'-').collect();
        if digits.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, pair) in digits.chunks(2).enumerate() {
            let pair = std::str::from_utf8(pair).ok()?;
            if !pair.bytes().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            out[i] = u8::from_str_radix(pair, 16).ok()?;
        }
        Some(out)
    };
    for base in [
        "4c9d36e5-6b19-4e6a-828c-226ed667458a",
        "ABCDEF01-2345-6789-abcd-ef0123456789",
    ] {
        for at in 0..36 {
            for b in 0..=255u8 {
                let mut text = base.as_bytes().to_vec();
                text[at] = b;
                assert_eq!(
                    super::text::parse_uuid_text(&text),
                    reference(&text),
                    "{text:?}"
                );
                let text: &[u8; 36] = text.as_slice().try_into().unwrap();
                assert_eq!(
                    super::parse_fast::uuid_bytes(text),
                    reference(text),
                    "{text:?}"
                );
            }
        }
    }
}
