//! A damaged store file: truncated at many lengths, a byte flipped at many offsets.
//! Opening and reading it (raw records, and lists and index queries through the store)
//! gives a clear error, or a successful read that is repeatable; never a panic that
//! reaches the caller.
//!
//! What redb 2.6 detects, as measured here: a file cut short fails to open (redb panics on
//! it internally; the store turns that into `OpenError::Damaged`), an empty file is refused
//! by the store (redb would take it for a new database), flips in the file header fail to
//! open. redb keeps no checksums on data pages, so a flip inside a live page can change a
//! record unnoticed: the store then reports what it cannot decode (an item, an index entry)
//! and otherwise reads the altered record. Most flips land in free pages (redb is
//! copy-on-write, so the file holds old page versions) and change nothing.

#![cfg(all(feature = "conformance", feature = "redb"))]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use keypath_store::backend::redb::{RedbBackend, DATA_FILE_NAME};
use keypath_store::conformance::model::{diff, random_ops, run_ops, Model, Ticket};
use keypath_store::conformance::{check_consistency, dump_redb};
use keypath_store::{Query, Store};

static PANICS: AtomicUsize = AtomicUsize::new(0);

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
    ]
    .iter()
    .any(|w| message.contains(w))
}

async fn classify(dir: &Path, model: &Model) -> (Outcome, String) {
    let backend = match RedbBackend::open_existing(dir).await {
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
    let blocking = keypath_store::blocking::Store::from_async(&store);
    if let Err(e) = blocking.query_index::<Ticket>("by_updated", &q) {
        read_error.get_or_insert(e.to_string());
    }
    for o in 0..3u64 {
        let q = Query::prefix(&format!("/user-{o}").parse().unwrap()).unwrap();
        if let Err(e) = blocking.list::<Ticket>(&q.reverse()) {
            read_error.get_or_insert(e.to_string());
        }
    }
    match diff(&all, &model.records()) {
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

#[test]
fn truncated_and_flipped_files() {
    // Count redb's internal panics (caught where redb ran: on the blocking pool, or around
    // a read on the calling thread) instead of printing each.
    std::panic::set_hook(Box::new(|info| {
        let redb_frame = info.location().is_some_and(|l| l.file().contains("redb"));
        if std::thread::current().name() == Some("truncated_and_flipped_files") && !redb_frame {
            eprintln!("{info}"); // the test's own failure
        } else if PANICS.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("first panic inside redb (caught): {info}");
        }
    }));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let src = tempfile::tempdir().unwrap();
    let model = rt.block_on(async {
        let store = Store::open(src.path()).await.unwrap();
        run_ops(&store, &random_ops(0xBAD_F11E, 80)).await
    });
    let original = std::fs::read(src.path().join(DATA_FILE_NAME)).unwrap();
    println!("file of {} bytes, {} tickets", original.len(), model.len());
    let mut counts: BTreeMap<(&str, Outcome), usize> = BTreeMap::new();
    let mut examples: BTreeMap<(&str, Outcome), String> = BTreeMap::new();
    let len = original.len();
    let mut cases: Vec<(&str, usize)> = Vec::new();
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
        let (outcome, detail) = rt.block_on(classify(dir.path(), &model));
        *counts.entry((kind, outcome)).or_default() += 1;
        examples
            .entry((kind, outcome))
            .or_insert_with(|| format!("at {at}: {detail}"));
    }
    for ((kind, outcome), n) in &counts {
        println!(
            "{kind} {outcome:?}: {n}   e.g. {}",
            examples[&(*kind, *outcome)].lines().next().unwrap_or("")
        );
    }
    println!(
        "{} panics inside redb, each caught and reported as an error",
        PANICS.load(Ordering::SeqCst)
    );
    for ((kind, outcome), example) in &examples {
        if matches!(outcome, Outcome::OpenError | Outcome::ReadError) {
            assert!(
                clear(example),
                "{kind} {outcome:?}: unclear error {example}"
            );
        }
    }
    // Every truncation is detected, including to zero bytes.
    assert_eq!(counts.get(&("truncate", Outcome::Intact)), None);
    assert_eq!(counts.get(&("truncate", Outcome::Altered)), None);
    assert_eq!(counts.get(&("truncate", Outcome::ReadError)), None);
    // The original file still opens with every record.
    let (outcome, _) = rt.block_on(classify(src.path(), &model));
    assert_eq!(outcome, Outcome::Intact);
}
