//! What the CLI test files share.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// The JSON lines a successful `sortpath` run printed; fails the test, with its stderr, if
/// the run did not succeed.
#[allow(dead_code)] // not every test file that shares this module reads JSON lines
pub fn ok(o: &Output) -> Vec<Value> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

/// A failed `sortpath` run: exit status `status` and one line on stderr, `sortpath: ...`,
/// holding `needle`.
#[allow(dead_code)] // not every test file that shares this module checks failures
pub fn fails(o: &Output, status: i32, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(status), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("sortpath: ") && err.contains(needle),
        "{err}"
    );
}

/// Runs the `sortpath` binary with `args` and `stdin` (written from another thread, so a large
/// input cannot deadlock against a full stdout pipe).
#[allow(dead_code)] // not every test file that shares this module runs the binary this way
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_sortpath"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sortpath binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let output = child
        .wait_with_output()
        .expect("the sortpath binary finishes");
    writer.join().expect("the stdin writer finishes");
    output
}

/// Runs the `sortpath` binary with `args`.
#[allow(dead_code)] // not every test file that shares this module runs the binary this way
pub fn sortpath(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sortpath"))
        .args(args)
        .output()
        .expect("the sortpath binary runs")
}

/// Runs `sortpath db --path DIR` with `args`.
#[allow(dead_code)] // not every test file that shares this module runs the binary this way
pub fn db(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["db", "--path", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    sortpath(&all)
}
