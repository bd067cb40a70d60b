//! The sorting strategies of docs/MODELING.md, each checked on the in-memory and the redb
//! backend: every access pattern lists exactly the items, in the order the strategy
//! promises. `dynamodb.rs` runs the same checks on DynamoDB Local, counting requests.

#![cfg(feature = "redb")]

mod strategy_checks;

use std::future::Future;

use sortpath_store::backend::{memory::MemoryBackend, redb::RedbBackend};
use sortpath_store::Store;
use strategy_checks::{Requests, Uncounted};

async fn on_both<F1, F2>(
    mem: impl FnOnce(Store<MemoryBackend>, &'static dyn Requests) -> F1,
    redb: impl FnOnce(Store<RedbBackend>, &'static dyn Requests) -> F2,
) where
    F1: Future<Output = ()>,
    F2: Future<Output = ()>,
{
    mem(Store::new(MemoryBackend::new()), &Uncounted).await;
    let dir = tempfile::tempdir().unwrap();
    redb(Store::create(dir.path()).await.unwrap(), &Uncounted).await;
}

#[tokio::test]
async fn case_and_collation() {
    on_both(strategy_checks::case, strategy_checks::case).await;
}

#[tokio::test]
async fn timestamps() {
    on_both(strategy_checks::timestamps, strategy_checks::timestamps).await;
}

#[tokio::test]
async fn ksuids() {
    on_both(strategy_checks::ksuids, strategy_checks::ksuids).await;
}

#[tokio::test]
async fn changing_attribute() {
    on_both(
        strategy_checks::changing_attribute,
        strategy_checks::changing_attribute,
    )
    .await;
}

#[tokio::test]
async fn ascending_descending() {
    on_both(
        strategy_checks::ascending_descending,
        strategy_checks::ascending_descending,
    )
    .await;
}

#[tokio::test]
async fn parent_first() {
    on_both(strategy_checks::parent_first, strategy_checks::parent_first).await;
}

#[tokio::test]
async fn parent_last() {
    on_both(strategy_checks::parent_last, strategy_checks::parent_last).await;
}

#[tokio::test]
async fn two_relations() {
    on_both(
        strategy_checks::two_relations,
        strategy_checks::two_relations,
    )
    .await;
}

#[tokio::test]
async fn numbers() {
    on_both(strategy_checks::numbers, strategy_checks::numbers).await;
}

#[tokio::test]
async fn descending_ids() {
    on_both(
        strategy_checks::descending_ids,
        strategy_checks::descending_ids,
    )
    .await;
}
