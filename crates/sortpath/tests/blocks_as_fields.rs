//! The building blocks as codec fields and key path IDs: encoded order == value order,
//! and values decode back.

#![cfg(feature = "serde")]

use proptest::prelude::*;
use sortpath::idgen::{Ksuid, Ulid};
use sortpath::time::{LatestFirst, Timestamp};
use sortpath::{codec, Id, KeyPath};

fn cases() -> u32 {
    std::env::var("SORTPATH_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            1_000
        } else {
            20_000
        })
}

fn bytes20() -> impl Strategy<Value = [u8; 20]> {
    prop_oneof![
        Just([0u8; 20]),
        Just([0xFF; 20]),
        prop::array::uniform20(prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()])
    ]
}

fn bytes16() -> impl Strategy<Value = [u8; 16]> {
    prop_oneof![
        Just([0u8; 16]),
        Just([0xFF; 16]),
        prop::array::uniform16(prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()])
    ]
}

fn timestamps() -> impl Strategy<Value = Timestamp> {
    (
        prop_oneof![
            Just(i64::MIN),
            Just(i64::MAX),
            Just(0i64),
            Just(-1i64),
            any::<i64>()
        ],
        0u32..1_000_000_000,
    )
        .prop_map(|(s, n)| Timestamp::new(s, n).unwrap())
}

fn path<T: Into<Id>>(id: T) -> Vec<u8> {
    KeyPath::new()
        .push("x", id.into())
        .unwrap()
        .push("child", 1u64)
        .unwrap()
        .encode()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn ksuid_field_and_id(a in bytes20(), b in bytes20()) {
        let (a, b) = (Ksuid::from_bytes(a), Ksuid::from_bytes(b));
        let (ea, eb) = (codec::to_vec(&a).unwrap(), codec::to_vec(&b).unwrap());
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(codec::from_slice::<Ksuid>(&ea).unwrap(), a);
        prop_assert_eq!(path(a).cmp(&path(b)), a.cmp(&b));
        prop_assert_eq!(Ksuid::try_from(&Id::from(a)), Ok(a));
    }

    #[test]
    fn ulid_field_and_id(a in bytes16(), b in bytes16()) {
        let (a, b) = (Ulid::from_bytes(a), Ulid::from_bytes(b));
        let (ea, eb) = (codec::to_vec(&a).unwrap(), codec::to_vec(&b).unwrap());
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(codec::from_slice::<Ulid>(&ea).unwrap(), a);
        prop_assert_eq!(path(a).cmp(&path(b)), a.cmp(&b));
        prop_assert_eq!(Ulid::try_from(&Id::from(a)), Ok(a));
    }

    #[test]
    fn timestamp_field_and_id(a in timestamps(), b in timestamps()) {
        let (ea, eb) = (codec::to_vec(&a).unwrap(), codec::to_vec(&b).unwrap());
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(codec::from_slice::<Timestamp>(&ea).unwrap(), a);
        prop_assert_eq!(path(a).cmp(&path(b)), a.cmp(&b));
        prop_assert_eq!(Timestamp::try_from(&Id::from(a)), Ok(a));
        let (la, lb) = (LatestFirst(a), LatestFirst(b));
        let (fa, fb) = (codec::to_vec(&la).unwrap(), codec::to_vec(&lb).unwrap());
        prop_assert_eq!(fa.cmp(&fb), la.cmp(&lb));
        prop_assert_eq!(la.cmp(&lb), b.cmp(&a));
        prop_assert_eq!(codec::from_slice::<LatestFirst>(&fa).unwrap(), la);
        prop_assert_eq!(path(la).cmp(&path(lb)), b.cmp(&a));
        // As the first field of a composite key, later fields only break ties.
        let (ta, tb) = (codec::to_vec(&(la, 7u8)).unwrap(), codec::to_vec(&(lb, 3u8)).unwrap());
        prop_assert_eq!(ta.cmp(&tb), (la, 7u8).cmp(&(lb, 3u8)));
    }
}

#[cfg(feature = "collate")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() / 4))]

    #[test]
    fn sort_key_field_and_id(a in "\\PC{0,6}", b in "\\PC{0,6}") {
        use sortpath::collate::{Collation, SortKey, Strength};
        thread_local!(static C: Collation = Collation::new("de", Strength::Secondary).unwrap());
        let (ka, kb) = C.with(|c| (c.sort_key(&a), c.sort_key(&b)));
        let expected = C.with(|c| c.compare(&a, &b));
        let (ea, eb) = (codec::to_vec(&(&ka, &a)).unwrap(), codec::to_vec(&(&kb, &b)).unwrap());
        prop_assert_eq!(ea.cmp(&eb), expected.then(a.cmp(&b)));
        prop_assert_eq!(codec::from_slice::<(SortKey, String)>(&ea).unwrap(), (ka.clone(), a.clone()));
        prop_assert_eq!(path(ka).cmp(&path(kb)), expected);
    }
}
