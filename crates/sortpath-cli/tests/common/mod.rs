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

/// Processes that keep writing while a test reads: each of its threads runs the command
/// its `spawn` makes again and again (each run a process of its own) until the writers
/// are stopped, which kills the runs under way.
#[allow(dead_code)] // not every test file that shares this module runs writers
pub struct Writers {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<u64>>,
}

#[allow(dead_code)] // not every test file that shares this module runs writers
impl Writers {
    /// Starts `count` writers; writer `w` runs `spawn(w)` over and over.
    pub fn start(count: u64, spawn: impl Fn(u64) -> Command + Send + Sync + 'static) -> Self {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let stop = Arc::new(AtomicBool::new(false));
        let spawn = Arc::new(spawn);
        let threads = (0..count)
            .map(|w| {
                let (stop, spawn) = (stop.clone(), spawn.clone());
                std::thread::spawn(move || {
                    let mut runs = 0;
                    while !stop.load(Ordering::SeqCst) {
                        let mut child = spawn(w)
                            .stdout(std::process::Stdio::null())
                            .stderr(std::process::Stdio::null())
                            .spawn()
                            .expect("a writer starts");
                        while child.try_wait().expect("a writer runs").is_none() {
                            if stop.load(Ordering::SeqCst) {
                                let _ = child.kill();
                                break;
                            }
                            std::thread::sleep(std::time::Duration::from_millis(10));
                        }
                        let _ = child.wait();
                        runs += 1;
                    }
                    runs
                })
            })
            .collect();
        Writers { stop, threads }
    }

    /// Stops every writer (killing the runs under way) and returns how many runs each
    /// writer started.
    pub fn stop(self) -> Vec<u64> {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.threads
            .into_iter()
            .map(|t| t.join().expect("a writer thread ends"))
            .collect()
    }
}

/// An import file that moves items `/t-{first}` to `/t-{first + items - 1}` (type `t`) to a
/// new field `n` at each of its `lines` lines.
#[allow(dead_code)] // not every test file that shares this module writes one
pub fn moves_file(path: &Path, first: u64, items: u64, lines: u64) {
    let text: String = (0..lines)
        .map(|i| {
            format!(
                "{{\"key\":\"/t-{}\",\"value\":{{\"n\":{i}}}}}\n",
                first + i % items
            )
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

/// How many `db check` runs the tests under writes make: `SORTPATH_CHECK_ROUNDS`, else 40
/// (a check that read no finding again failed 99 of 100 such runs on DynamoDB; the longer
/// campaign is `SORTPATH_CHECK_ROUNDS=100`, docs/RELIABILITY.md).
#[allow(dead_code)] // not every test file that shares this module checks under writes
pub fn check_rounds() -> usize {
    std::env::var("SORTPATH_CHECK_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

/// Runs `check` `rounds` times and sorts what each run said: the lines of runs that
/// reported problems, and the lines of runs that could not decide. A run that fails
/// otherwise fails the test.
#[allow(dead_code)] // not every test file that shares this module checks under writes
pub fn checks(rounds: usize, check: impl Fn() -> Output) -> (Vec<String>, Vec<String>) {
    let (mut problems, mut undecided) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let out = check();
        if out.status.success() {
            continue;
        }
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let last = err.lines().last().unwrap_or_default();
        if last.contains("check could not decide") {
            undecided.push(format!("round {round}: {err}"));
        } else if last.contains("check found") {
            problems.push(format!("round {round}: {err}"));
        } else {
            panic!("round {round}: check failed: {err}");
        }
    }
    (problems, undecided)
}
