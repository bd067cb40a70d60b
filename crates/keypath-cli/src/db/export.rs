//! `export`: a store as JSON lines that `import` reads back.

use std::io::Write;

use keypath::KeyPath;
use keypath_store::backend::Backend;
use keypath_store::Query;
use serde_json::{json, Value};

use super::commands::item_line;
use super::failure::{report_skipped, store_failure, SKIP_HINT};
use super::open::Db;
use crate::Failure;

impl<B: Backend> Db<B> {
    /// `export`: the configuration line, then every item, group by group.
    pub(super) async fn export(
        &self,
        skip_foreign: bool,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        let db = self;
        // First the configuration, so `import` into a new store declares the same
        // indexes before the first item.
        let config: Value = serde_json::from_slice(&db.config.store.to_json())
            .map_err(|e| Failure::Store(format!("the store configuration: {e}")))?;
        writeln!(out, "{}", json!({ "config": config }))?;
        // Item groups are key path encodings, which start with a namespace letter;
        // the store's own records (counters, index entries) live in groups
        // starting `00`.
        let groups = db
            .store
            .backend()
            .groups(1)
            .await
            .map_err(|e| Failure::Store(e.to_string()))?;
        for bytes in groups {
            let group = match KeyPath::decode(&bytes) {
                Ok(group) => group,
                Err(e) => {
                    let record = keypath_store::ForeignRecord::new(bytes, Vec::new());
                    let what = format!("the group {} is not a key path: {e}", record.describe());
                    if !skip_foreign {
                        return Err(Failure::Store(format!("{what}{SKIP_HINT}")));
                    }
                    report_skipped(&what);
                    continue;
                }
            };
            let mut query = Query::prefix(&group).map_err(store_failure)?.limit(1000);
            loop {
                let page = db.list(&query, skip_foreign).await?;
                for raw in &page.items {
                    writeln!(out, "{}", item_line(raw)?)?;
                }
                match page.cursor {
                    Some(c) => query = query.after(c),
                    None => break,
                }
            }
        }
        Ok(())
    }
}
