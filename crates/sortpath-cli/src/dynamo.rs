//! `sortpath db --dynamodb TABLE`: the `db` commands on a DynamoDB table (feature `dynamodb`).
//!
//! `create-table` makes the table (`pk`/`sk` binary keys, on-demand) and the store in it.
//! The index definitions live in the table as the store's configuration record
//! ([`sortpath_store::StoreConfig`]), as in a directory store, written once with a condition
//! that no other is there.

use std::io::Write;

use serde_json::json;
use sortpath_store::backend::dynamodb::{client_with_timeout, DynamoDbBackend, OpenError};
use sortpath_store::{Projection, Store};

use crate::db::{
    bad, parse_index_defs, precheck, store_failure, try_first_write, Config, Db, DbCommand,
};
use crate::Failure;

fn open_failure(e: OpenError) -> Failure {
    match e {
        OpenError::Request { .. } | OpenError::NotActive { .. } => Failure::Store(e.to_string()),
        other => bad(other.to_string()),
    }
}

/// Writes the configuration for `init` and `create-table`, where a store already there is
/// an error (`over_items`: also over items written without a record; `init --over-items`).
async fn create_new_config(
    store: &Store<DynamoDbBackend>,
    config: &Config,
    over_items: bool,
) -> Result<(), Failure> {
    let created = match over_items {
        true => store.create_config_over_items(&config.store).await,
        false => store.create_config(&config.store).await,
    };
    if created.map_err(store_failure)? {
        Ok(())
    } else {
        Err(bad(format!(
            "a store already exists in table {}; its indexes are fixed",
            store.backend().table()
        )))
    }
}

/// Most indexes one namespace may have on DynamoDB: an update writes the item, its group
/// counter, and for each index whose key changed one delete and one put, all in one
/// `TransactWriteItems` of at most 100 writes (2 + 2 * 49 = 100).
const MAX_INDEXES_PER_NAMESPACE: usize = 49;

fn parse_indexes(texts: &[String]) -> Result<Vec<crate::db::IndexDef>, Failure> {
    let defs = parse_index_defs(texts)?;
    for def in &defs {
        let count = defs
            .iter()
            .filter(|d| d.item_type() == def.item_type())
            .count();
        if count > MAX_INDEXES_PER_NAMESPACE {
            return Err(bad(format!(
                "namespace {} has {count} indexes; on DynamoDB an update of an item writes it, \
                 its group counter and two entries per index in one transaction of at most 100 \
                 writes, so at most {MAX_INDEXES_PER_NAMESPACE}",
                def.item_type()
            )));
        }
    }
    Ok(defs)
}

/// Parses the `--gsi NAME[:keys]` arguments of `create-table`: each index once.
fn parse_gsis(texts: &[String]) -> Result<Vec<(&str, Projection)>, Failure> {
    let mut out: Vec<(&str, Projection)> = Vec::with_capacity(texts.len());
    for text in texts {
        let (name, projection) = match text.split_once(':') {
            None => (text.as_str(), Projection::All),
            Some((name, "keys")) => (name, Projection::KeysOnly),
            Some((_, other)) => {
                return Err(bad(format!(
                    "--gsi {text:?}: expected NAME (the GSI projects the item) or NAME:keys \
                     (keys only), found the projection {other:?}"
                )))
            }
        };
        let valid = (1..=64).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(bad(format!(
                "--gsi {text:?}: NAME must be 1 to 64 ASCII letters, digits or '_'"
            )));
        }
        if out.iter().any(|(n, _)| *n == name) {
            return Err(bad(format!("--gsi {text:?}: index {name} is given twice")));
        }
        out.push((name, projection));
    }
    Ok(out)
}

pub(crate) async fn run(
    table: &str,
    endpoint_url: Option<&str>,
    timeout: std::time::Duration,
    command: DbCommand,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if let Some(url) = endpoint_url {
        let host = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"));
        if host.is_none_or(|h| h.is_empty() || h.contains(char::is_whitespace)) {
            return Err(bad(format!(
                "--endpoint-url {url:?}: expected http://HOST[:PORT] or https://HOST[:PORT]"
            )));
        }
    }
    // One request, or the whole command for those that make a handful (`put`, `get`,
    // `delete`, `list`, `index`), ends by `timeout` from now, retries included.
    let deadline = std::time::Instant::now() + timeout;
    let sdk = client_with_timeout(endpoint_url, None, timeout).await;
    match command {
        DbCommand::CreateTable {
            indexes,
            gsis,
            group_versions,
            roots,
        } => {
            let indexes = parse_indexes(&indexes)?;
            let config = Config::new(indexes)
                .with_group_versions(group_versions)
                .with_roots(&roots)?;
            let gsis = parse_gsis(&gsis)?;
            let backend = DynamoDbBackend::create_table_with(sdk, table, &gsis)
                .await
                .map_err(open_failure)?;
            create_new_config(&Store::new(backend), &config, false).await?;
            writeln!(out, "{}", json!({"created": table}))?;
            Ok(())
        }
        DbCommand::Init {
            indexes,
            group_versions,
            roots,
            over_items,
        } => {
            let indexes = parse_indexes(&indexes)?;
            let config = Config::new(indexes)
                .with_group_versions(group_versions)
                .with_roots(&roots)?;
            let backend = DynamoDbBackend::open(sdk, table)
                .await
                .map_err(open_failure)?;
            create_new_config(&Store::new(backend), &config, over_items).await?;
            writeln!(out, "{}", json!({"created": table}))?;
            Ok(())
        }
        command => {
            precheck(&command)?;
            let backend = DynamoDbBackend::open(sdk, table)
                .await
                .map_err(open_failure)?;
            let one_shot = matches!(
                command,
                DbCommand::Put { .. }
                    | DbCommand::Get { .. }
                    | DbCommand::Delete { .. }
                    | DbCommand::List(_)
                    | DbCommand::Index { .. }
            );
            let backend = match one_shot {
                true => backend.with_deadline(deadline),
                false => backend,
            };
            let store = Store::new(backend);
            // Read once: the commands and the store's writes use this reading.
            let recorded = store.recorded_config().await.map_err(store_failure)?;
            let Some(config) = recorded else {
                if !matches!(command, DbCommand::Put { .. } | DbCommand::Import { .. }) {
                    return Err(bad(format!(
                        "no sortpath store in table {table} (create one with `sortpath db --dynamodb {table} create-table`, or put an item)"
                    )));
                }
                // The write is tried first, so a refused one makes no store; the store an
                // import makes takes the export's indexes. Another client may make the store
                // first (a table is shared): then theirs is used, read below.
                let (config, write) = try_first_write(command).await?;
                store
                    .create_config(&config.store)
                    .await
                    .map_err(store_failure)?;
                let db = Db::with_store(store).await?;
                return write.run(&db, out).await;
            };
            let db = Db::with_config(store, config)?;
            db.run(command, out).await
        }
    }
}
