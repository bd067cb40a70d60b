//! Golden vectors of the key path format, written by an independent reference encoder
//! (`tests/golden/path_reference.py`). These bytes are the format: they never change.

use sortpath::KeyPath;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn golden_path_vectors() {
    let text = include_str!("golden/path.txt");
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (canonical, expected) = line.split_once('\t').expect("text<TAB>hex");
        let path: KeyPath = canonical
            .parse()
            .unwrap_or_else(|e| panic!("{canonical}: {e}"));
        assert_eq!(hex(&path.encode()), expected, "encoding of {canonical}");
        assert_eq!(path.to_string(), canonical, "canonical text");
        let bytes: Vec<u8> = (0..expected.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&expected[i..i + 2], 16).unwrap())
            .collect();
        assert_eq!(
            KeyPath::decode(&bytes).unwrap(),
            path,
            "decoding of {expected}"
        );
        count += 1;
    }
    assert_eq!(count, 28);
}

#[test]
fn published_example_is_63_bytes() {
    let path: KeyPath =
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42"
            .parse()
            .unwrap();
    assert_eq!(path.encode().len(), 63);
}
