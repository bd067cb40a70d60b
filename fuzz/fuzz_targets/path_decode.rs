//! Arbitrary bytes never make `KeyPath::decode` (or `KeyPath::from_group_path`) panic;
//! whatever decodes re-encodes to the same bytes, decodes alike under a group, prints to text
//! that parses back, and its ranges contain it.
#![no_main]

use keypath::{KeyPath, KeyRange};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Decoding under a group decodes exactly what `decode` does.
    let group = KeyPath::new().push("g", 1u64).unwrap();
    let under_group = KeyPath::from_group_path(&group, data);
    let Ok(path) = KeyPath::decode(data) else {
        assert!(under_group.is_err());
        return;
    };
    assert_eq!(under_group.ok(), group.join(&path).ok());
    assert_eq!(path.encode(), data);
    let text = path.to_string();
    assert_eq!(text.parse::<KeyPath>().as_ref(), Ok(&path), "{text}");
    assert!(KeyRange::subtree(&path).contains_key(data));
    assert!(KeyPath::segment_spans(data).is_ok());
});
