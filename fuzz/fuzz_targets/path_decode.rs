//! Arbitrary bytes never make `KeyPath::decode`, `KeyPathRef::decode` (or
//! `KeyPath::from_group_path`) panic, and the owned and borrowed decoders accept the same
//! bytes; whatever decodes re-encodes to the same bytes (also rebuilt from its segments),
//! decodes alike under a group, prints to text that parses back, and its ranges contain it.
#![no_main]

use sortpath::{KeyPath, KeyPathRef, KeyRange};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Decoding under a group decodes exactly what `decode` does.
    let group = KeyPath::new().push("g", 1u64).unwrap();
    let under_group = KeyPath::from_group_path(&group, data);
    let view = KeyPathRef::decode(data);
    let Ok(path) = KeyPath::decode(data) else {
        assert!(under_group.is_err());
        assert_eq!(view.err(), KeyPath::decode(data).err());
        return;
    };
    let view = view.expect("the view accepts what the owned decoder accepts");
    assert_eq!(view, path);
    assert_eq!(view.to_string(), path.to_string());
    let mut rebuilt = KeyPath::new();
    for segment in view.segments() {
        rebuilt = match segment.id() {
            Some(id) => rebuilt.push(segment.namespace(), id.to_id()).unwrap(),
            None => rebuilt.push_namespace(segment.namespace()).unwrap(),
        };
    }
    assert_eq!(rebuilt.as_bytes(), data);
    assert_eq!(under_group.ok(), group.join(&path).ok());
    assert_eq!(path.encode(), data);
    let text = path.to_string();
    assert_eq!(text.parse::<KeyPath>().as_ref(), Ok(&path), "{text}");
    assert!(KeyRange::subtree(&path).contains_key(data));
    assert_eq!(
        view.segment_spans().last().map(|s| s.metadata.end),
        (!path.is_empty()).then_some(data.len())
    );
});
