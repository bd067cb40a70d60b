use proptest::prelude::*;

use super::*;

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(crate::test_cases(100_000))
}

/// Exact decimal value m / 10^s as text, the oracle's input.
fn decimal_text(m: i64, s: u32) -> String {
    let digits = format!("{:0>width$}", m.unsigned_abs(), width = s as usize + 1);
    let (int, frac) = digits.split_at(digits.len() - s as usize);
    let sign = if m < 0 { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Compares m1/10^s1 with m2/10^s2 exactly.
fn decimal_cmp((m1, s1): (i64, u32), (m2, s2): (i64, u32)) -> std::cmp::Ordering {
    (i128::from(m1) * 10i128.pow(s2)).cmp(&(i128::from(m2) * 10i128.pow(s1)))
}

fn decimals() -> impl Strategy<Value = (i64, u32)> {
    let m = prop_oneof![
        Just(0i64),
        Just(1),
        Just(-1),
        Just(i64::MAX),
        Just(i64::MIN + 1),
        -1000i64..1000,
        any::<i64>()
    ];
    (m, 0u32..=18).prop_filter("i64::MIN has no magnitude oracle", |(m, _)| *m != i64::MIN)
}

fn i128s() -> impl Strategy<Value = i128> {
    prop_oneof![
        Just(0i128),
        Just(i128::MIN),
        Just(i128::MAX),
        Just(-1),
        Just(1),
        Just(u64::MAX as i128),
        Just(i64::MIN as i128),
        -100_000i128..100_000,
        any::<i64>().prop_map(i128::from),
        any::<i128>(),
    ]
}

#[test]
fn padded_exhaustive_small_domain() {
    // Every value of the declared domain 0..=999 at width 3: string order == numeric order.
    let keys: Vec<String> = (0..1000).map(|n| padded(n, 3).unwrap()).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    assert!(keys
        .iter()
        .enumerate()
        .all(|(n, k)| parse_padded(k, 3) == Ok(n as u64)));
    assert_eq!(
        padded(1000, 3),
        Err(StrKeyError::TooWide {
            width: 3,
            value: "1000".into(),
            digits: 4
        })
    );
    assert!(padded(0, 0).is_err());
    assert_eq!(
        padded(u64::MAX, 19).unwrap_err().to_string(),
        "expected at most 19 digits, found 18446744073709551615 (20 digits)"
    );
    assert!(parse_padded("12a", 3).is_err());
    assert!(parse_padded("99999999999999999999", 20).is_err());
}

#[test]
fn inverted_exhaustive_small_domain() {
    let keys: Vec<String> = (0..=999).map(|n| inverted(n, 999).unwrap()).collect();
    assert!(keys.windows(2).all(|w| w[0] > w[1]));
    assert!(keys
        .iter()
        .enumerate()
        .all(|(n, k)| parse_inverted(k, 999) == Ok(n as u64)));
    assert_eq!(inverted(0, u64::MAX).unwrap(), u64::MAX.to_string());
    assert_eq!(
        inverted(5, 4),
        Err(StrKeyError::AboveMax { max: 4, value: 5 })
    );
    assert!(parse_inverted("5", 4).is_err());
    assert_eq!(parse_inverted("3", 4), Ok(1));
    assert!(parse_inverted("9", 8).is_err());
}

#[test]
fn int_key_exhaustive_small_domain() {
    let keys: Vec<String> = (-10_000i64..=10_000).map(int_key).collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "string order must be numeric order"
    );
    assert!(keys
        .iter()
        .zip(-10_000i128..)
        .all(|(k, n)| parse_int_key(k) == Ok(n)));
}

#[test]
fn key_vectors_and_rejections() {
    assert_eq!(
        int_key(i128::MIN),
        "-60829858816539530768268312696284115894271"
    );
    assert_eq!(int_key(u64::MAX), "2018446744073709551615");
    for bad in [
        "", "0", "-", "-99", "01", "010", "01a", "-988~", "00x", "+011", "0202", "99098", "-00",
    ] {
        assert!(parse_int_key(bad).is_err(), "{bad:?}");
    }
    for bad in ["", "1.", ".5", "1e5", "--1", "1.2.3", "0x10", "1,5", " 1"] {
        assert!(decimal_key(bad).is_err(), "{bad:?}");
    }
    assert!(decimal_key(&"9".repeat(1000)).is_err());
    assert_eq!(
        decimal_key(&"9".repeat(98)).unwrap(),
        format!("98{}", "9".repeat(98))
    );
    assert_eq!(
        decimal_key(&"9".repeat(99)).unwrap(),
        format!("99099{}", "9".repeat(99))
    );
    assert_eq!(
        decimal_key(&format!("-{}", "9".repeat(99))).unwrap(),
        format!("-00900{}~", "0".repeat(99))
    );
    assert_eq!(
        decimal_key(&"1".repeat(999)).unwrap(),
        format!("99999{}", "1".repeat(999))
    );
    // Around the switch to the long prefix, order still follows length.
    let lens = [97usize, 98, 99, 100, 998, 999];
    let pos: Vec<String> = lens
        .iter()
        .map(|&n| decimal_key(&"5".repeat(n)).unwrap())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]));
    let neg: Vec<String> = lens
        .iter()
        .map(|&n| decimal_key(&format!("-{}", "5".repeat(n))).unwrap())
        .collect();
    assert!(neg.windows(2).all(|w| w[0] > w[1]) && neg[0] < decimal_key("0").unwrap());
    for k in pos.iter().chain(&neg) {
        assert_eq!(decimal_key(&parse_decimal_key(k).unwrap()).unwrap(), *k);
    }
    for bad in [
        "011.50", "-988.79~", "-988.7", "-988", "011.", "-99~", "00.", "011x",
    ] {
        assert!(parse_decimal_key(bad).is_err(), "{bad:?}");
    }
    assert_eq!(decimal_key("+007.250").unwrap(), "017.25");
    // A fixed precision means exactly that many fraction digits: none at Seconds.
    assert!(parse_iso8601_key("2024-05-01T12:00:00.Z", Precision::Seconds).is_err());
    assert!(parse_iso8601_key("2024-05-01T12:00:00.0Z", Precision::Seconds).is_err());
    assert!(parse_iso8601_key("2024-05-01T12:00:00.00Z", Precision::Millis).is_err());
    let err = decimal_key("12.3x").unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a fraction digit at byte offset 4, found \"x\""
    );
}

#[test]
fn casing_makes_hex_sort_by_value() {
    // Mixed-case hex does not sort by value; one casing does.
    assert!("0xB" < "0xa"); // 11 before 10
    assert!(Casing::Lower.apply("0xB") > Casing::Lower.apply("0xa"));
    assert!(Casing::Preserve.check("AbC").is_ok());
    assert!(matches!(Casing::Upper.apply("ABC"), Cow::Borrowed(_)));
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn padded_order(a in any::<u64>(), b in any::<u64>()) {
        let (ka, kb) = (padded(a, 20).unwrap(), padded(b, 20).unwrap());
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        prop_assert_eq!(parse_padded(&ka, 20), Ok(a));
        let (ia, ib) = (inverted(a, u64::MAX).unwrap(), inverted(b, u64::MAX).unwrap());
        prop_assert_eq!(ia.cmp(&ib), b.cmp(&a));
        prop_assert_eq!(parse_inverted(&ia, u64::MAX), Ok(a));
    }

    #[test]
    fn int_key_order(a in i128s(), b in i128s()) {
        let (ka, kb) = (int_key(a), int_key(b));
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b), "{} {}", ka, kb);
        prop_assert_eq!(parse_int_key(&ka), Ok(a));
    }

    #[test]
    fn decimal_key_order(a in decimals(), b in decimals()) {
        let (ta, tb) = (decimal_text(a.0, a.1), decimal_text(b.0, b.1));
        let (ka, kb) = (decimal_key(&ta).unwrap(), decimal_key(&tb).unwrap());
        prop_assert_eq!(ka.cmp(&kb), decimal_cmp(a, b), "{} {} -> {} {}", ta, tb, ka, kb);
        let back = parse_decimal_key(&ka).unwrap();
        prop_assert_eq!(decimal_key(&back).unwrap(), ka.clone());
        // Integers agree with the integer form's order too.
        if a.1 == 0 && a.0 >= 0 {
            prop_assert_eq!(ka, int_key(a.0));
        }
    }

    #[test]
    fn float_key_order(a in any::<f64>(), b in any::<f64>()) {
        prop_assume!(a.is_finite() && b.is_finite());
        let (ka, kb) = (float_key(a).unwrap(), float_key(b).unwrap());
        prop_assert_eq!(ka.cmp(&kb), a.partial_cmp(&b).unwrap(), "{} {}", a, b);
        prop_assert_eq!(parse_decimal_key(&ka).unwrap().parse::<f64>().unwrap(), a);
    }

    #[test]
    fn iso8601_key_order(a in -62_167_219_200i64..253_402_300_800, an in 0u32..1_000_000_000,
                         b in -62_167_219_200i64..253_402_300_800, bn in 0u32..1_000_000_000) {
        let (ta, tb) = (Timestamp::new(a, an).unwrap(), Timestamp::new(b, bn).unwrap());
        for p in [Precision::Seconds, Precision::Millis, Precision::Nanos] {
            let (ka, kb) = (iso8601_key(ta, p).unwrap(), iso8601_key(tb, p).unwrap());
            prop_assert_eq!(ka.cmp(&kb), ta.truncate(p).cmp(&tb.truncate(p)));
            prop_assert_eq!(parse_iso8601_key(&ka, p), Ok(ta.truncate(p)));
        }
    }

    #[test]
    fn casing_orders_hex_by_value(a in any::<u64>(), b in any::<u64>(), mask_a in any::<u16>(), mask_b in any::<u16>()) {
        let mixed = |v: u64, mask: u16| -> String {
            format!("{v:016x}").chars().enumerate()
                .map(|(i, c)| if mask >> i & 1 == 1 { c.to_ascii_uppercase() } else { c })
                .collect()
        };
        let (ma, mb) = (mixed(a, mask_a), mixed(b, mask_b));
        for casing in [Casing::Lower, Casing::Upper] {
            let (ca, cb) = (casing.apply(&ma), casing.apply(&mb));
            prop_assert_eq!(ca.cmp(&cb), a.cmp(&b));
            prop_assert!(casing.check(&ca).is_ok());
        }
    }

    #[test]
    fn parsers_never_panic(text in "[-+0-9.~a-z]{0,30}") {
        if let Ok(n) = parse_int_key(&text) { prop_assert_eq!(int_key(n), text.clone()); }
        if let Ok(d) = parse_decimal_key(&text) { prop_assert_eq!(decimal_key(&d).unwrap(), text.clone()); }
        if let Ok(k) = decimal_key(&text) { prop_assert!(parse_decimal_key(&k).is_ok()); }
        let _ = parse_padded(&text, 5);
        let _ = parse_inverted(&text, 99_999);
        let _ = parse_iso8601_key(&text, Precision::Millis);
    }
}
