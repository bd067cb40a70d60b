//! Model-based fuzzing of the store: the input bytes decode (every input is valid) into a
//! sequence of puts, conditional puts, deletes, updates, transactions, lists and index
//! queries, run against an in-memory store and `sortpath_store::conformance::model::Model`.
//! Every result, and the exact backend records (items, counters, index entries), must match
//! the model after every step; any divergence panics with the step and operation.
#![no_main]

use std::collections::BTreeMap;

use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::conformance::model::{diff, ops_from_bytes, run_ops};
use sortpath_store::conformance::check_consistency;
use sortpath_store::Store;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ops = ops_from_bytes(data);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let store = Store::new(MemoryBackend::new());
        let model = run_ops(&store, &ops).await;
        let all: BTreeMap<_, _> = store.backend().snapshot().into_iter().collect();
        if let Some(d) = diff(&all, &model.records()) {
            panic!("records outside the model:\n{d}");
        }
        if let Err(e) = check_consistency(&all) {
            panic!("inconsistent store:\n{e}");
        }
    });
});
