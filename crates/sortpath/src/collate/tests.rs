use proptest::prelude::*;

use super::*;

fn texts() -> impl Strategy<Value = String> {
    // Letters in both cases, accents (precomposed and combining), NUL and 0x01, spaces,
    // digits, and some CJK and emoji.
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![
                'a', 'A', 'b', 'B', 'e', 'é', 'E', 'É', 'o', 'ö', 'Ö', 'z', 'Z', 'ß', 's', 'S'
            ]),
            prop::sample::select(vec![
                '\u{0}', '\u{1}', ' ', '-', '1', '2', '\u{301}', '\u{308}', 'ı', 'İ', 'å', '語',
                '😀', '\u{FFFF}'
            ]),
            any::<char>(),
        ],
        0..8,
    )
    .prop_map(|v| v.into_iter().collect())
}

const LOCALES: [&str; 5] = ["und", "de", "sv", "tr", "en-u-kn"];
const STRENGTHS: [Strength; 5] = [
    Strength::Primary,
    Strength::Secondary,
    Strength::Tertiary,
    Strength::Quaternary,
    Strength::Identical,
];

#[test]
fn known_orders() {
    let primary = Collation::new("und", Strength::Primary).unwrap();
    assert_eq!(primary.sort_key("resume"), primary.sort_key("RÉSUMÉ"));
    let tertiary = Collation::new("und", Strength::Tertiary).unwrap();
    assert!(tertiary.sort_key("resume") < tertiary.sort_key("Resume"));
    assert!(tertiary.sort_key("Resume") < tertiary.sort_key("résumé"));
    // Canonically equivalent strings (precomposed vs combining) collate equal.
    let identical = Collation::new("und", Strength::Identical).unwrap();
    assert_eq!(identical.sort_key("e\u{301}"), identical.sort_key("é"));
    assert!(matches!(
        Collation::new("12345678901", Strength::Primary),
        Err(CollateError::Locale(_))
    ));
}

#[test]
fn hex_text() {
    let key = SortKey::from_bytes(vec![0x00, 0xAB, 0xFF]);
    assert_eq!(key.to_string(), "00ABFF");
    assert_eq!("00ABFF".parse::<SortKey>().unwrap(), key);
    assert_eq!("00abFF".parse::<SortKey>(), Err(CollateError::Hex(2)));
    assert_eq!("0AB".parse::<SortKey>(), Err(CollateError::Hex(2)));
    assert_eq!("".parse::<SortKey>().unwrap(), SortKey::default());
}

#[cfg(feature = "serde")]
#[test]
fn serde_text_and_bytes() {
    use serde::de::value::{BytesDeserializer, Error};
    use serde::Deserialize;
    let key = Collation::new("de", Strength::Secondary)
        .unwrap()
        .sort_key("Äpfel");
    let json = serde_json::to_string(&key).unwrap();
    assert_eq!(json, format!("\"{key}\""));
    assert_eq!(serde_json::from_str::<SortKey>(&json).unwrap(), key);
    assert_eq!(
        SortKey::deserialize(BytesDeserializer::<Error>::new(key.as_bytes())).unwrap(),
        key
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(20_000)))]

    #[test]
    fn key_order_is_collation_order(a in texts(), b in texts(), locale in prop::sample::select(LOCALES.to_vec()), strength in prop::sample::select(STRENGTHS.to_vec())) {
        let c = Collation::new(locale, strength).unwrap();
        let (ka, kb) = (c.sort_key(&a), c.sort_key(&b));
        prop_assert_eq!(ka.cmp(&kb), c.compare(&a, &b), "{} {:?} {:?} {:?}", locale, strength, a, b);
        prop_assert!(!ka.as_bytes().contains(&0), "no NUL in keys: {:?}", ka);
        prop_assert_eq!(ka.to_string().parse::<SortKey>().unwrap(), ka.clone());
        prop_assert_eq!(ka.to_string().cmp(&kb.to_string()), ka.cmp(&kb));
    }

    #[test]
    fn hex_parser_never_panics(text in "[0-9A-Fa-fxé]{0,12}") {
        if let Ok(k) = text.parse::<SortKey>() {
            prop_assert_eq!(k.to_string(), text);
        }
    }
}
