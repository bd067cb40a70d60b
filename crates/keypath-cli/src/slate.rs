//! `keypath db --slatedb URL_OR_DIR`: the `db` commands on a SlateDB database (feature
//! `slatedb`), in a local directory or an object store URL.
//!
//! Commands that write (`init`, `put`, `delete`, `import`) open the database as its writer,
//! which fences any other writer; the others (`get`, `list`, `index`, `export`, `check`)
//! open it as a SlateDB reader, which writes nothing and fences nobody, so they run while a
//! writer works elsewhere. The index definitions live in the database as the store's
//! configuration record ([`keypath_store::StoreConfig`]), as in a directory store.

use std::io::Write;

use keypath_store::backend::slatedb::{OpenError, SlateDbBackend, SlateDbOptions};
use keypath_store::backend::Backend;
use keypath_store::layout::config_key;
use keypath_store::{Store, StoreConfig};
use serde_json::json;

use crate::db::{bad, parse_index_defs, precheck, store_failure, Config, Db, DbCommand};
use crate::Failure;

fn open_failure(location: &str, e: OpenError) -> Failure {
    match e {
        OpenError::Missing(_) => bad(format!(
            "no keypath store at {location} (create one with `keypath db --slatedb {location} init`, or put an item)"
        )),
        OpenError::Engine(_) | OpenError::Io { .. } => Failure::Store(e.to_string()),
        other => bad(other.to_string()),
    }
}

/// Runs `command` on `store`, then closes the database whatever the outcome (a writer
/// writes SlateDB's in-memory state out; every acknowledged write is durable already).
async fn run_and_close(
    store: Store<SlateDbBackend>,
    command: Option<DbCommand>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let ran = match command {
        Some(command) => match Db::with_store(store.clone()).await {
            Ok(db) => db.run(command, out).await,
            Err(e) => Err(e),
        },
        None => Ok(()),
    };
    let closed = store
        .backend()
        .close()
        .await
        .map_err(|e| Failure::Store(e.to_string()));
    ran.and(closed)
}

/// The configuration a new store takes for an import: the export's first line, if it is a
/// configuration the CLI reads (the import itself reports any other first line).
fn import_config(file: &std::path::Path) -> Result<StoreConfig, Failure> {
    use std::io::BufRead;
    let opened = std::fs::File::open(file)
        .map_err(|e| bad(format!("cannot read {}: {e}", file.display())))?;
    for line in std::io::BufReader::new(opened).lines() {
        let line = line.map_err(|e| bad(format!("cannot read {}: {e}", file.display())))?;
        if line.trim().is_empty() {
            continue;
        }
        let config = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|v| serde_json::to_vec(v.get("config")?).ok())
            .and_then(|json| StoreConfig::from_json(&json).ok())
            .filter(|c| Config::from_store(c.clone()).is_ok());
        return Ok(config.unwrap_or_default());
    }
    Ok(StoreConfig::default())
}

pub(crate) async fn run(
    location: &str,
    command: DbCommand,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let options = SlateDbOptions::default();
    match command {
        #[cfg(feature = "dynamodb")]
        DbCommand::CreateTable { .. } => Err(bad("create-table needs --dynamodb TABLE")),
        DbCommand::Init {
            indexes,
            group_versions,
        } => {
            let config =
                Config::new(parse_index_defs(&indexes)?).with_group_versions(group_versions);
            let backend = SlateDbBackend::open_with_options(location, options)
                .await
                .map_err(|e| open_failure(location, e))?;
            let store = Store::new(backend);
            let created = store.create_config(&config.store).await;
            run_and_close(store, None, out).await?;
            if !created.map_err(store_failure)? {
                return Err(bad(format!(
                    "a store already exists at {location}; its indexes are fixed"
                )));
            }
            writeln!(out, "{}", json!({"created": location}))?;
            Ok(())
        }
        command => {
            precheck(&command)?;
            let creates = matches!(command, DbCommand::Put { .. } | DbCommand::Import { .. });
            let writes = creates || matches!(command, DbCommand::Delete { .. });
            let backend = if creates {
                SlateDbBackend::open_with_options(location, options).await
            } else if writes {
                SlateDbBackend::open_existing(location, options).await
            } else {
                SlateDbBackend::open_read_only(location).await
            }
            .map_err(|e| open_failure(location, e))?;
            let store = Store::new(backend);
            let has_config = match store.backend().get(config_key()).await {
                Ok(found) => found.is_some(),
                Err(e) => {
                    let _ = store.backend().close().await;
                    return Err(Failure::Store(e.to_string()));
                }
            };
            if !has_config {
                if !creates {
                    let _ = store.backend().close().await;
                    return Err(open_failure(
                        location,
                        OpenError::Missing(location.to_owned()),
                    ));
                }
                let config = match &command {
                    DbCommand::Import { file } => import_config(file)?,
                    _ => StoreConfig::default(),
                };
                if let Err(e) = store.create_config(&config).await {
                    let _ = store.backend().close().await;
                    return Err(store_failure(e));
                }
            }
            run_and_close(store, Some(command), out).await
        }
    }
}
