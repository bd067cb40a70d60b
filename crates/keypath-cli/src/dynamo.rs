//! `keypath db --dynamodb TABLE`: the `db` commands on a DynamoDB table (feature `dynamodb`).
//!
//! `create-table` makes the table (`pk`/`sk` binary keys, on-demand) and the store in it.
//! The index definitions that a directory store keeps in `keypath-db.json` live in the table
//! as one record in a group the store reserves for itself ([`CONFIG_GROUP`], starting `00`,
//! so it never meets an item), holding the same JSON.

use std::io::Write;

use keypath_store::backend::dynamodb::{client_with_timeout, DynamoDbBackend, OpenError};
use keypath_store::backend::{
    Backend, BackendError, Condition, Key, Record, Write as BackendWrite,
};
use keypath_store::Store;
use serde_json::json;

use crate::db::{bad, parse_index_defs, precheck, Config, Db, DbBackend, DbCommand};
use crate::Failure;

/// Group key of the CLI's configuration record.
const CONFIG_GROUP: &[u8] = b"\x00\xffkeypath-db";
/// Sort key of the CLI's configuration record.
const CONFIG_SORT: &[u8] = &[0x00];

impl DbBackend for DynamoDbBackend {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        DynamoDbBackend::groups(self, from).await
    }
}

fn config_key() -> Key {
    Key::new(CONFIG_GROUP, CONFIG_SORT)
}

fn open_failure(e: OpenError) -> Failure {
    match e {
        OpenError::Request { .. } | OpenError::NotActive { .. } => Failure::Store(e.to_string()),
        other => bad(other.to_string()),
    }
}

async fn read_config(backend: &DynamoDbBackend) -> Result<Option<Config>, Failure> {
    let record = backend
        .get(config_key())
        .await
        .map_err(|e| Failure::Store(e.to_string()))?;
    record
        .map(|r| {
            serde_json::from_slice(&r.value).map_err(|e| {
                bad(format!(
                    "table {}: not a keypath store configuration: {e}",
                    backend.table()
                ))
            })
        })
        .transpose()
}

/// Writes the configuration if the table has none yet; `false` if it has one.
async fn create_config(backend: &DynamoDbBackend, config: &Config) -> Result<bool, Failure> {
    let put = BackendWrite::Put {
        key: config_key(),
        record: Record {
            value: serde_json::to_vec(config).expect("config serializes"),
            version: 1,
        },
        condition: Condition::NotExists,
    };
    match backend.write(vec![put]).await {
        Ok(()) => Ok(true),
        Err(BackendError::ConditionFailed { .. }) => Ok(false),
        Err(e) => Err(Failure::Store(e.to_string())),
    }
}

/// [`create_config`] for `init` and `create-table`, where a store already there is an error.
async fn create_new_config(backend: &DynamoDbBackend, config: &Config) -> Result<(), Failure> {
    if create_config(backend, config).await? {
        Ok(())
    } else {
        Err(bad(format!(
            "a store already exists in table {}; its indexes are fixed",
            backend.table()
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
            .filter(|d| d.namespace() == def.namespace())
            .count();
        if count > MAX_INDEXES_PER_NAMESPACE {
            return Err(bad(format!(
                "namespace {} has {count} indexes; on DynamoDB an update of an item writes it, \
                 its group counter and two entries per index in one transaction of at most 100 \
                 writes, so at most {MAX_INDEXES_PER_NAMESPACE}",
                def.namespace()
            )));
        }
    }
    Ok(defs)
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
    let sdk = client_with_timeout(endpoint_url, None, timeout).await;
    match command {
        DbCommand::CreateTable { indexes } => {
            let indexes = parse_indexes(&indexes)?;
            let backend = DynamoDbBackend::create_table(sdk, table)
                .await
                .map_err(open_failure)?;
            create_new_config(&backend, &Config { indexes }).await?;
            writeln!(out, "{}", json!({"created": table}))?;
            Ok(())
        }
        DbCommand::Init { indexes } => {
            let indexes = parse_indexes(&indexes)?;
            let backend = DynamoDbBackend::open(sdk, table)
                .await
                .map_err(open_failure)?;
            create_new_config(&backend, &Config { indexes }).await?;
            writeln!(out, "{}", json!({"created": table}))?;
            Ok(())
        }
        command => {
            precheck(&command)?;
            let backend = DynamoDbBackend::open(sdk, table)
                .await
                .map_err(open_failure)?;
            let config = match read_config(&backend).await? {
                Some(config) => config,
                None if matches!(command, DbCommand::Put { .. } | DbCommand::Import { .. }) => {
                    let config = Config::default();
                    if create_config(&backend, &config).await? {
                        config
                    } else {
                        // Another client made the store first (a table is shared): use it.
                        read_config(&backend).await?.ok_or_else(|| {
                            Failure::Store(format!(
                                "table {table}: the store configuration was written and is gone"
                            ))
                        })?
                    }
                }
                None => {
                    return Err(bad(format!(
                        "no keypath store in table {table} (create one with `keypath db --dynamodb {table} create-table`, or put an item)"
                    )))
                }
            };
            let db = Db {
                store: Store::new(backend),
                config,
            };
            db.run(command, out).await
        }
    }
}
