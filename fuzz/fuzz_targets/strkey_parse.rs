//! Arbitrary text never makes the string-key parsers panic; whatever parses encodes back
//! to the same key.
#![no_main]

use sortpath::strkey;
use sortpath::time::Precision;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(n) = strkey::parse_int_key(text) {
        assert_eq!(strkey::int_key(n), text);
    }
    if let Ok(d) = strkey::parse_decimal_key(text) {
        assert_eq!(strkey::decimal_key(&d).as_deref(), Ok(text));
    }
    if let Ok(k) = strkey::decimal_key(text) {
        assert!(strkey::parse_decimal_key(&k).is_ok());
    }
    if let Ok(n) = strkey::parse_padded(text, 8) {
        assert_eq!(strkey::padded(n, 8).as_deref(), Ok(text));
    }
    if let Ok(n) = strkey::parse_inverted(text, 99_999) {
        assert_eq!(strkey::inverted(n, 99_999).as_deref(), Ok(text));
    }
    for precision in [Precision::Seconds, Precision::Millis, Precision::Nanos] {
        if let Ok(t) = strkey::parse_iso8601_key(text, precision) {
            assert_eq!(strkey::iso8601_key(t, precision).as_deref(), Ok(text));
        }
    }
});
