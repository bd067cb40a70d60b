//! A damaged store file: truncated at many lengths, a byte flipped at many offsets.
//! Opening and reading it (raw records, and lists and index queries through the store)
//! gives a clear error, or a successful read that is repeatable; never a panic that
//! reaches the caller.
//!
//! What redb 4.6 detects, as measured here: a file cut short fails to open (redb panics on
//! it internally; the store turns that into `OpenError::Damaged`), an empty file is refused
//! by the store (redb would take it for a new database), flips in the file header fail to
//! open. A flip inside a live page can change a record unnoticed: the store then reports
//! what it cannot decode (an item, an index entry) and otherwise reads the altered record.
//! Most flips land in free pages (redb is copy-on-write, so the file holds old page
//! versions) and change nothing.
//!
//! One thing the store cannot contain: redb writes to the file when a handle opened for
//! writing is closed (it records its allocator state), and a flip in the part of the file
//! that commit walks (the tree of freed pages) can make redb panic inside a destructor while
//! it unwinds from a first panic, which aborts the process. Each case therefore runs in a
//! child process, so an abort is an outcome the test counts: a handle opened read-only
//! writes nothing at close and must never abort, nor may a truncated file.

#![cfg(all(feature = "conformance", feature = "redb"))]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use sortpath_store::backend::redb::{RedbBackend, DATA_FILE_NAME};
use sortpath_store::backend::{Key, Record};
use sortpath_store::conformance::model::{diff, random_ops, run_ops, Ticket};
use sortpath_store::conformance::{check_consistency, dump_redb};
use sortpath_store::{Query, Store};

/// Where the child finds the damaged store, and the pristine one to compare with.
const CHILD_DAMAGED: &str = "SORTPATH_CORRUPT_CHILD_DAMAGED";
const CHILD_PRISTINE: &str = "SORTPATH_CORRUPT_CHILD_PRISTINE";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// `open` failed with an error.
    OpenError,
    /// It opened; reading failed with an error.
    ReadError,
    /// It opened and reads gave exactly the original records.
    Intact,
    /// It opened and reads gave other records (corruption redb did not detect).
    Altered,
    /// The process was killed by a signal (an abort inside redb) before it reported.
    Aborted,
}

impl Outcome {
    fn parse(word: &str) -> Option<Outcome> {
        [
            Outcome::OpenError,
            Outcome::ReadError,
            Outcome::Intact,
            Outcome::Altered,
        ]
        .into_iter()
        .find(|o| format!("{o:?}") == word)
    }
}

/// An error message names what is wrong, not only that something is.
fn clear(message: &str) -> bool {
    [
        "damaged",
        "corrupt",
        "invalid",
        "cannot decode",
        "storage error",
        "cannot open",
        "not an item this store wrote",
        // A flip inside the configuration record's JSON text that leaves it valid JSON
        // (an index's type name changed) declares other indexes than the items have: an
        // index query is then refused, saying the index lacks items, rather than answered.
        "is not built",
    ]
    .iter()
    .any(|w| message.contains(w))
}

/// Opens `dir` read-only or for writing, reads everything through the backend, the async
/// store and the blocking store, and compares with `expected`.
async fn classify(
    dir: &Path,
    read_only: bool,
    expected: &BTreeMap<Key, Record>,
) -> (Outcome, String) {
    let opened = if read_only {
        RedbBackend::open_read_only(dir).await
    } else {
        RedbBackend::open(dir).await
    };
    let backend = match opened {
        Ok(b) => b,
        Err(e) => return (Outcome::OpenError, e.to_string()),
    };
    let all = match dump_redb(&backend).await {
        Ok(all) => all,
        Err(e) => return (Outcome::ReadError, e.to_string()),
    };
    // Store-level reads of everything: errors allowed, panics not.
    let store = Store::new(backend);
    let mut read_error = None;
    for o in 0..3u64 {
        let q = Query::prefix(&format!("/user-{o}").parse().unwrap()).unwrap();
        if let Err(e) = store.list::<Ticket>(&q).await {
            read_error.get_or_insert(e.to_string());
        }
        if let Err(e) = store.list::<Ticket>(&q.reverse()).await {
            read_error.get_or_insert(e.to_string());
        }
    }
    let q = Query::prefix(&"/tickets-0".parse().unwrap()).unwrap();
    if let Err(e) = store.query_index::<Ticket>("by_updated", &q).await {
        read_error.get_or_insert(e.to_string());
    }
    // The same through the blocking API (redb's work on this thread): errors, not panics.
    let blocking = sortpath_store::blocking::Store::from_async(&store);
    if let Err(e) = blocking.query_index::<Ticket>("by_updated", &q) {
        read_error.get_or_insert(e.to_string());
    }
    for o in 0..3u64 {
        let q = Query::prefix(&format!("/user-{o}").parse().unwrap()).unwrap();
        if let Err(e) = blocking.list::<Ticket>(&q.reverse()) {
            read_error.get_or_insert(e.to_string());
        }
    }
    match diff(&all, expected) {
        None => (Outcome::Intact, String::new()),
        Some(d) => match read_error {
            Some(e) => (Outcome::ReadError, e),
            None => (
                Outcome::Altered,
                format!("{d}consistency: {:?}", check_consistency(&all).err()),
            ),
        },
    }
}

/// The child, not a test of its own (ignored; the parent runs it with `--ignored`): it
/// classifies the damaged store opened read-only, then opened for writing (closing each
/// handle before the next), and prints one line per classification as it finishes:
/// `<ro|rw> <Outcome> <first line of the detail>`.
#[test]
#[ignore = "the child process of truncated_and_flipped_files"]
fn corrupt_child() {
    use std::io::Write;
    let damaged = std::env::var(CHILD_DAMAGED).expect("run by the parent test");
    let pristine = std::env::var(CHILD_PRISTINE).expect("run by the parent test");
    // redb's internal panics are caught and reported by the store; do not print each.
    std::panic::set_hook(Box::new(|_| {}));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let expected = rt.block_on(async {
        let backend = RedbBackend::open_read_only(&pristine).await.unwrap();
        dump_redb(&backend).await.unwrap()
    });
    let mut out = std::io::stdout().lock();
    for (label, read_only) in [("ro", true), ("rw", false)] {
        let (outcome, detail) = rt.block_on(classify(Path::new(&damaged), read_only, &expected));
        let first = detail.lines().next().unwrap_or("");
        writeln!(out, "{label} {outcome:?} {first}").unwrap();
        out.flush().unwrap();
    }
}

/// Runs the child on the store in `damaged`: the outcome read-only, and for writing (an
/// abort where the child died before reporting).
fn run_child(damaged: &Path, pristine: &Path) -> [(Outcome, String); 2] {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "corrupt_child", "--ignored", "--nocapture"])
        .args(["--test-threads=1", "-q"])
        .env(CHILD_DAMAGED, damaged)
        .env(CHILD_PRISTINE, pristine)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Where the child died before reporting, what it printed last says why.
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().rev().take(3).collect::<Vec<_>>().join(" / ");
    let died = format!("{} ({last})", output.status);
    let mut got = [(Outcome::Aborted, died.clone()), (Outcome::Aborted, died)];
    for line in stdout.lines() {
        let mut words = line.splitn(3, ' ');
        let slot = match words.next() {
            Some("ro") => 0,
            Some("rw") => 1,
            _ => continue,
        };
        let outcome = words.next().and_then(Outcome::parse).expect("an outcome");
        got[slot] = (outcome, words.next().unwrap_or("").to_owned());
    }
    if got[1].0 != Outcome::Aborted {
        assert!(
            output.status.success(),
            "the child reported both outcomes, then failed: {output:?}"
        );
    } else {
        assert!(
            !output.status.success(),
            "the child succeeded without reporting: {output:?}"
        );
    }
    got
}

#[test]
fn truncated_and_flipped_files() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let src = tempfile::tempdir().unwrap();
    let model = rt.block_on(async {
        let store = Store::create(src.path()).await.unwrap();
        run_ops(&store, &random_ops(0xBAD_F11E, 80)).await
    });
    // The original file opens with every record, read-only and for writing.
    for read_only in [true, false] {
        let (outcome, detail) = rt.block_on(classify(src.path(), read_only, &model.records()));
        assert_eq!(outcome, Outcome::Intact, "{detail}");
    }
    let original = std::fs::read(src.path().join(DATA_FILE_NAME)).unwrap();
    println!("file of {} bytes, {} tickets", original.len(), model.len());
    let mut counts: BTreeMap<(&str, &str, Outcome), usize> = BTreeMap::new();
    let mut examples: BTreeMap<(&str, &str, Outcome), String> = BTreeMap::new();
    let len = original.len();
    let mut cases: Vec<(&str, usize)> = Vec::new();
    let mut unclear: Vec<String> = Vec::new();
    for i in 0..64 {
        cases.push(("truncate", len * i / 64));
    }
    cases.extend([
        ("truncate", 1),
        ("truncate", 4095),
        ("truncate", 4096),
        ("truncate", len - 1),
    ]);
    // Flip bytes where the data is (the file is mostly preallocated zeros), and some zeros.
    let used: Vec<usize> = (0..len).filter(|&i| original[i] != 0).collect();
    println!("{} non-zero bytes", used.len());
    for i in 0..400 {
        cases.push(("flip", used[(i * 7919 + i * i * 31) % used.len()]));
    }
    for i in 0..40 {
        cases.push(("flip", (i * 104_729) % len));
    }
    for i in 0..64 {
        cases.push(("flip", i * 8 % 512));
    }
    for (kind, at) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = original.clone();
        match kind {
            "truncate" => bytes.truncate(at),
            _ => bytes[at] ^= 0x5A,
        }
        std::fs::write(dir.path().join(DATA_FILE_NAME), &bytes).unwrap();
        for ((outcome, detail), mode) in run_child(dir.path(), src.path())
            .into_iter()
            .zip(["read-only", "writable"])
        {
            *counts.entry((kind, mode, outcome)).or_default() += 1;
            if matches!(outcome, Outcome::OpenError | Outcome::ReadError) && !clear(&detail) {
                unclear.push(format!("{kind} at {at}, {mode}: {detail}"));
            }
            examples
                .entry((kind, mode, outcome))
                .or_insert_with(|| format!("at {at}: {detail}"));
        }
    }
    for ((kind, mode, outcome), n) in &counts {
        let example = &examples[&(*kind, *mode, *outcome)];
        let shown: String = example.chars().take(240).collect();
        println!("{kind} {mode} {outcome:?}: {n}   e.g. {shown}");
    }
    // Every error says what is wrong, whichever case it came from.
    assert!(unclear.is_empty(), "unclear errors: {unclear:#?}");
    // A handle that writes nothing never aborts, nor does any handle on a cut file.
    for ((kind, mode, outcome), example) in &examples {
        assert!(
            *outcome != Outcome::Aborted || (*kind, *mode) == ("flip", "writable"),
            "{kind} {mode}: the process aborted ({example})"
        );
    }
    // Every truncation is detected, including to zero bytes.
    for mode in ["read-only", "writable"] {
        for outcome in [Outcome::Intact, Outcome::Altered, Outcome::ReadError] {
            assert_eq!(counts.get(&("truncate", mode, outcome)), None);
        }
    }
    // The original file is unchanged by every case (each ran on a copy) and still opens with
    // every record.
    assert_eq!(
        std::fs::read(src.path().join(DATA_FILE_NAME)).unwrap(),
        original
    );
    let (outcome, _) = rt.block_on(classify(src.path(), false, &model.records()));
    assert_eq!(outcome, Outcome::Intact);
}
