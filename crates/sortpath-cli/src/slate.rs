//! `sortpath db --slatedb URL_OR_DIR`: the `db` commands on a SlateDB database (feature
//! `slatedb`), in a local directory or an object store URL.
//!
//! Commands that write (`init`, `put`, `delete`, `import`) open the database as its writer,
//! which fences any other writer; the others (`get`, `list`, `index`, `export`, `check`)
//! open it as a SlateDB reader, which writes nothing and fences nobody, so they run while a
//! writer works elsewhere. The index definitions live in the database as the store's
//! configuration record ([`sortpath_store::StoreConfig`]), as in a directory store.

use std::io::Write;

use serde_json::json;
use sortpath_store::backend::slatedb::{OpenError, SlateDbBackend, SlateDbOptions};
use sortpath_store::backend::Backend;
use sortpath_store::layout::config_key;
use sortpath_store::Store;

use crate::db::{
    bad, parse_index_defs, precheck, store_failure, try_first_write, Config, Db, DbCommand,
    FirstWrite,
};
use crate::Failure;

fn open_failure(location: &str, e: OpenError) -> Failure {
    match e {
        OpenError::Missing(_) => bad(format!(
            "no sortpath store at {location} (create one with `sortpath db --slatedb {location} init`, or put an item)"
        )),
        OpenError::Engine(_) | OpenError::Io { .. } | OpenError::LostWrites { .. } => {
            Failure::Store(e.to_string())
        }
        other => bad(other.to_string()),
    }
}

/// Runs `write` on `store`, then closes the database whatever the outcome (a writer
/// writes SlateDB's in-memory state out; every acknowledged write is durable already).
async fn run_and_close(
    store: Store<SlateDbBackend>,
    write: Option<FirstWrite>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let ran = match write {
        Some(write) => match Db::with_store(store.clone()).await {
            Ok(db) => write.run(&db, out).await,
            Err(e) => Err(e),
        },
        None => Ok(()),
    };
    let closed = match store.backend().close().await {
        Ok(()) => Ok(()),
        // Each write was durable before it was acknowledged, so a close failing after
        // everything the command did succeeded takes nothing back: most often this writer
        // was fenced since (another process opened the database to write).
        Err(_) if ran.is_ok() => Ok(()),
        Err(e) => Err(Failure::Store(e.to_string())),
    };
    ran.and(closed)
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
            roots,
            over_items,
        } => {
            let config = Config::new(parse_index_defs(&indexes)?)
                .with_group_versions(group_versions)
                .with_roots(&roots)?;
            let backend = SlateDbBackend::open_with_options(location, options)
                .await
                .map_err(|e| open_failure(location, e))?;
            let store = Store::new(backend);
            let created = match over_items {
                true => store.create_config_over_items(&config.store).await,
                false => store.create_config(&config.store).await,
            };
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
                    // Items without a record: not a missing store, but one whose record was
                    // lost (or an earlier release's): say so, with what to do.
                    let holds_items = store.backend().groups(1).await.map(|g| !g.is_empty());
                    let _ = store.backend().close().await;
                    return Err(match holds_items {
                        Ok(false) => {
                            open_failure(location, OpenError::Missing(location.to_owned()))
                        }
                        Ok(true) => bad(format!(
                            "{location}: {}",
                            sortpath_store::ConfigError::Unrecorded
                        )),
                        Err(e) => Failure::Store(e.to_string()),
                    });
                }
                // The write is tried first, so a refused one makes no store (its database
                // may stay, empty: SlateDB made it when it was opened for writing); the
                // store an import makes takes the export's indexes.
                let (config, write) = match try_first_write(command).await {
                    Ok(tried) => tried,
                    Err(e) => {
                        let _ = store.backend().close().await;
                        return Err(e);
                    }
                };
                if let Err(e) = store.create_config(&config.store).await {
                    let _ = store.backend().close().await;
                    return Err(store_failure(e));
                }
                return run_and_close(store, Some(write), out).await;
            }
            run_and_close(store, Some(FirstWrite::Run(command)), out).await
        }
    }
}
