//! Every method of the async store has its twin in the blocking store, and every method of
//! an async transaction its twin in the blocking transaction, with the same name: read from
//! the recorded public API (`api/sortpath-store.txt`, which `snapshot.rs` keeps equal to
//! the code), so a method added to one side only fails here.

use std::collections::BTreeSet;
use std::path::Path;

/// The methods of `owner` (a path such as `sortpath_store::Store`) in the recorded API.
fn methods(api: &str, owner: &str) -> BTreeSet<String> {
    let prefix = format!("{owner}::");
    api.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (path, decl) = line.split_once("  ")?;
            let name = path.strip_prefix(&prefix)?;
            let is_fn = decl.starts_with("pub fn ") || decl.starts_with("pub async fn ");
            (is_fn && !name.contains("::")).then(|| name.to_owned())
        })
        .collect()
}

fn recorded_api() -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../api/sortpath-store.txt");
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The two sides' method names, each missing name listed with the side that lacks it.
fn compare(
    api: &str,
    async_owner: &str,
    blocking_owner: &str,
    only_blocking: &[&str],
) -> Vec<String> {
    let a = methods(api, async_owner);
    let b = methods(api, blocking_owner);
    assert!(
        a.len() >= 5,
        "too few methods of {async_owner} in the recorded API: {a:?}"
    );
    let mut missing: Vec<String> = a
        .difference(&b)
        .map(|name| format!("{blocking_owner}::{name} (twin of {async_owner}::{name})"))
        .collect();
    missing.extend(
        b.difference(&a)
            .filter(|name| !only_blocking.contains(&name.as_str()))
            .map(|name| format!("{async_owner}::{name} (twin of {blocking_owner}::{name})")),
    );
    missing
}

#[test]
fn every_async_store_method_has_its_blocking_twin() {
    let api = recorded_api();
    // The blocking store's own: moving between the two APIs over one open file.
    let only_blocking = ["from_async", "to_async"];
    let missing = compare(
        &api,
        "sortpath_store::Store",
        "sortpath_store::blocking::Store",
        &only_blocking,
    );
    assert!(missing.is_empty(), "missing twins:\n{}", missing.join("\n"));
}

#[test]
fn every_async_transaction_method_has_its_blocking_twin() {
    let api = recorded_api();
    let missing = compare(
        &api,
        "sortpath_store::Transaction",
        "sortpath_store::blocking::Transaction",
        &[],
    );
    assert!(missing.is_empty(), "missing twins:\n{}", missing.join("\n"));
}

#[test]
fn every_builder_option_and_call_has_its_blocking_twin() {
    let api = recorded_api();
    let missing = compare(
        &api,
        "sortpath_store::Builder",
        "sortpath_store::blocking::Builder",
        &[],
    );
    assert!(missing.is_empty(), "missing twins:\n{}", missing.join("\n"));
}

#[test]
fn a_method_on_one_side_only_is_found() {
    let api = "\
sortpath_store::Store::get  pub async fn get(&self)
sortpath_store::Store::put  pub async fn put(&self)
sortpath_store::Store::list  pub async fn list(&self)
sortpath_store::Store::limits  pub fn limits(&self)
sortpath_store::Store::watch  pub async fn watch(&self)
sortpath_store::blocking::Store::get  pub fn get(&self)
sortpath_store::blocking::Store::put  pub fn put(&self)
sortpath_store::blocking::Store::list  pub fn list(&self)
sortpath_store::blocking::Store::limits  pub fn limits(&self)
sortpath_store::blocking::Store::to_async  pub fn to_async(&self)
sortpath_store::blocking::Store::extra  pub fn extra(&self)
";
    let missing = compare(
        api,
        "sortpath_store::Store",
        "sortpath_store::blocking::Store",
        &["to_async"],
    );
    assert_eq!(
        missing,
        [
            "sortpath_store::blocking::Store::watch (twin of sortpath_store::Store::watch)",
            "sortpath_store::Store::extra (twin of sortpath_store::blocking::Store::extra)",
        ]
    );
}
