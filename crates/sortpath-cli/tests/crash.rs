//! `sortpath db put` processes killed with SIGKILL mid-flight: every put that printed its
//! version is in the store afterwards, the put that was killed is there whole or not at all,
//! the store always reopens, and its secondary indexes stay exact (every entry points at an
//! item that has it, every indexed item has its entries), as `sortpath db get` and
//! `sortpath db index` then show too.

#![cfg(unix)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sortpath_store::backend::redb::RedbBackend;
use sortpath_store::conformance::{check_consistency, dump_redb};
use sortpath_store::Store;

use common::ok;

fn db(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sortpath"));
    c.args(["db", "--path", dir.to_str().unwrap()]).args(args);
    c
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

fn rounds() -> u64 {
    std::env::var("SORTPATH_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

const COLORS: [&str; 3] = ["red", "green", ""];

/// Every item of the store as JSON, by key path, after checking the store's invariants.
fn read_store(dir: &Path, ctx: &str) -> BTreeMap<String, Value> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let backend = RedbBackend::open(dir)
            .await
            .unwrap_or_else(|e| panic!("{ctx}: reopening: {e}"));
        let all = dump_redb(&backend).await.unwrap();
        let census =
            check_consistency(&all).unwrap_or_else(|e| panic!("{ctx}: inconsistent store:\n{e}"));
        let store = Store::new(backend);
        let mut items = BTreeMap::new();
        for (key, _) in all.iter().filter(|(k, _)| k.group[0] != 0) {
            let path = sortpath::KeyPath::from_group(&key.group, &key.sort).unwrap();
            let raw = store.get_raw(&path).await.unwrap().unwrap();
            items.insert(path.to_string(), raw.decode::<Value>().unwrap());
        }
        assert_eq!(census.items, items.len());
        items
    })
}

#[test]
fn killed_puts_lose_nothing_and_keep_indexes_exact() {
    use std::os::unix::process::ExitStatusExt;
    let seed = std::env::var("SORTPATH_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xC11_0001u64);
    let rounds = rounds();
    println!("crash seed {seed} (set SORTPATH_CRASH_SEED to repeat), {rounds} rounds");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&db(
        d,
        &[
            "init",
            "--index",
            "by_n=doc.n@/ns-1",
            "--index",
            "by_color=doc.color@/colors-1",
        ],
    )
    .output()
    .unwrap());
    // The time of one put scales the kill delays (nothing is asserted about it).
    let started = Instant::now();
    ok(
        &db(d, &["put", "/acct-0/doc-0", r#"{"n": -1, "color": "red"}"#])
            .output()
            .unwrap(),
    );
    let put_time = started.elapsed();
    let mut acked: BTreeMap<String, Value> =
        BTreeMap::from([("/acct-0/doc-0".to_owned(), json!({"n": -1, "color": "red"}))]);
    let (mut killed, mut landed_anyway) = (0, 0);
    for round in 0..rounds {
        let ctx = format!("seed {seed}, round {round}");
        let key = format!("/acct-{}/doc-{}", rng.below(3), rng.below(4));
        let mut value = json!({"n": round, "pad": "x".repeat(rng.below(2000) as usize)});
        if let Some(color) = COLORS.get(rng.below(4) as usize) {
            value["color"] = json!(color);
        }
        let delay = match round % 4 {
            0 => Duration::ZERO,
            _ => put_time.mul_f64(rng.below(1500) as f64 / 1000.0),
        };
        let mut child = db(d, &["put", &key, &value.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // it may have finished
        let out = child.wait_with_output().unwrap();
        let pending = if out.status.success() {
            let line: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(line["key"], json!(key), "{ctx}");
            acked.insert(key.clone(), value.clone());
            None
        } else {
            assert_eq!(
                out.status.signal(),
                Some(9),
                "{ctx}: the put failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            killed += 1;
            Some((key, value))
        };
        let items = read_store(d, &ctx);
        for (k, v) in &acked {
            let got = items.get(k);
            let is_pending = pending
                .as_ref()
                .is_some_and(|(pk, pv)| pk == k && got == Some(pv));
            assert!(
                got == Some(v) || is_pending,
                "{ctx}: {k} is {got:?}, the last acknowledged put wrote {v}"
            );
        }
        if let Some((k, v)) = pending {
            match items.get(&k) {
                Some(got) if *got == v => {
                    landed_anyway += 1;
                    acked.insert(k, v);
                }
                None => assert!(!acked.contains_key(&k), "{ctx}: {k} vanished"),
                Some(_) => {}
            }
        }
        assert_eq!(
            items.keys().collect::<Vec<_>>(),
            acked.keys().collect::<Vec<_>>(),
            "{ctx}: items"
        );
    }
    println!(
        "{rounds} rounds: {killed} puts killed ({landed_anyway} of them had committed), {} items",
        acked.len()
    );
    assert!(killed > 0, "no put was killed");

    // The CLI agrees: every acknowledged item, and the indexes hold exactly the items.
    for (k, v) in &acked {
        let got = ok(&db(d, &["get", k]).output().unwrap());
        assert_eq!(got[0]["value"], *v, "{k}");
    }
    let by_n: Vec<String> = ok(&db(d, &["index", "by_n", "/ns-1"]).output().unwrap())
        .iter()
        .map(|l| l["key"].as_str().unwrap().to_owned())
        .collect();
    let mut want: Vec<(i64, &String)> = acked
        .iter()
        .map(|(k, v)| (v["n"].as_i64().unwrap(), k))
        .collect();
    want.sort();
    assert_eq!(
        by_n,
        want.iter().map(|(_, k)| (*k).clone()).collect::<Vec<_>>()
    );
    let by_color: Vec<String> = ok(&db(d, &["index", "by_color", "/colors-1"]).output().unwrap())
        .iter()
        .map(|l| l["key"].as_str().unwrap().to_owned())
        .collect();
    let mut want: Vec<(String, &String)> = acked
        .iter()
        .filter_map(|(k, v)| v["color"].as_str().map(|c| (c.to_owned(), k)))
        .collect();
    want.sort();
    assert_eq!(
        by_color,
        want.iter().map(|(_, k)| (*k).clone()).collect::<Vec<_>>()
    );
}
