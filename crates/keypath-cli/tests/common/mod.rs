//! What the CLI test files share.

use std::process::Output;

use serde_json::Value;

/// The JSON lines a successful `keypath` run printed; fails the test, with its stderr, if
/// the run did not succeed.
pub fn ok(o: &Output) -> Vec<Value> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}
