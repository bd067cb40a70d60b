//! Arbitrary bytes never make `KeyPath::decode` panic; whatever decodes re-encodes to the
//! same bytes, prints to text that parses back, and its ranges contain it.
#![no_main]

use keypath::{KeyPath, KeyRange};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(path) = KeyPath::decode(data) else { return };
    assert_eq!(path.encode(), data);
    let text = path.to_string();
    assert_eq!(text.parse::<KeyPath>().as_ref(), Ok(&path), "{text}");
    assert!(KeyRange::subtree(&path).contains_key(data));
    assert!(KeyPath::segment_spans(data).is_ok());
});
