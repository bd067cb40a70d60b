//! Arbitrary text never makes the key path parser panic; whatever parses prints to its
//! canonical text, which parses to the same path, and the binary form round-trips.
#![no_main]

use sortpath::KeyPath;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(path) = text.parse::<KeyPath>() else { return };
    let canonical = path.to_string();
    assert_eq!(canonical.parse::<KeyPath>().as_ref(), Ok(&path), "{text:?} -> {canonical:?}");
    assert_eq!(KeyPath::decode(&path.encode()).as_ref(), Ok(&path));
    assert_eq!(sortpath::KeyPathRef::decode(path.as_bytes()).map(|v| v.to_string()), Ok(canonical));
});
