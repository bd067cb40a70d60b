//! Arbitrary text and bytes never make the KSUID/ULID parsers panic; whatever parses
//! prints back to the same text (ULID: up to case) and bytes.
#![no_main]

use sortpath::idgen::{Ksuid, Ulid};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(k) = Ksuid::try_from(data) {
        assert_eq!(k.as_bytes(), data);
        assert_eq!(k.to_string().parse::<Ksuid>(), Ok(k));
    }
    if let Ok(u) = Ulid::try_from(data) {
        assert_eq!(u.to_bytes(), data);
        assert_eq!(u.to_string().parse::<Ulid>(), Ok(u));
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(k) = text.parse::<Ksuid>() {
        assert_eq!(k.to_string(), text);
    }
    if let Ok(u) = text.parse::<Ulid>() {
        assert_eq!(u.to_string(), text.to_ascii_uppercase());
    }
});
