//! A `put` or `import` where there is no store yet: the write is tried on an empty
//! in-memory store first, so a refused write leaves nothing behind.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sortpath_store::backend::memory::MemoryBackend;
use sortpath_store::backend::redb::RedbBackend;
use sortpath_store::backend::Backend;
use sortpath_store::Store;

use super::args::DbCommand;
use super::config::Config;
use super::failure::{bad, store_failure};
use super::import::{
    first_import_records, import_from, import_reader, write_item, ImportLine, ImportReader,
};
use super::open::{check_dir, open_failure, open_or_create_as, Db};
use crate::Failure;

/// An empty in-memory store with `config`: where a first write is tried.
async fn memory_db(config: &Config) -> Result<Db<MemoryBackend>, Failure> {
    let memory = Store::new(MemoryBackend::new());
    memory
        .create_config(&config.store)
        .await
        .map_err(store_failure)?;
    Db::with_store(memory).await
}

/// A refused trial of an import's first item, said as the import says it, naming the
/// file and line.
fn in_import(e: Failure, line: u64, file: &Path) -> Failure {
    match e {
        Failure::BadInput(m) => bad(format!(
            "{}: line {line}: {m} (imported before it: 0 items)",
            file.display()
        )),
        e => e,
    }
}

/// The store a first write goes to: created with `config` (one without indexes, placed
/// roots or group counters through `Store::create`, which opens a store another process made
/// meanwhile; any other through `open_or_create_as`, which writes the configuration with
/// the store and refuses a store with other indexes).
async fn create_for_first_write(dir: &Path, config: &Config) -> Result<Db<RedbBackend>, Failure> {
    let store = &config.store;
    if store.indexes.is_empty() && store.roots.is_empty() && !store.group_versions {
        check_dir(dir)?;
        let store = Store::create(dir).await.map_err(|e| open_failure(dir, e))?;
        Db::with_store(store).await
    } else {
        open_or_create_as(dir, config).await
    }
}

/// Whether a command makes a store where there is none (`put` and `import` do).
pub(super) fn creates_store(command: &DbCommand) -> bool {
    matches!(command, DbCommand::Put { .. } | DbCommand::Import { .. })
}

/// Runs a `put` or `import` where there is no store. The store is created only for a write
/// that succeeds: the write (for an import, its configuration line and first item) is first
/// tried on an empty in-memory store, so a refused write leaves nothing behind, and nothing
/// is ever deleted. Then the store is created (or, if another process created it meanwhile,
/// opened: its configuration is the one used) and the command runs on it.
pub(super) async fn first_write(
    dir: &Path,
    command: DbCommand,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let (config, write) = try_first_write(command).await?;
    let db = create_for_first_write(dir, &config).await?;
    write.run(&db, out).await
}

/// A `put` or `import` that [`try_first_write`] found a new store would take (or, as
/// `Run`, any command to run on an existing store).
pub(crate) enum FirstWrite {
    Run(DbCommand),
    Import {
        file: PathBuf,
        reader: ImportReader<std::io::BufReader<fs::File>>,
        size: u64,
        pending: Vec<(ImportLine, u64, u64)>,
    },
}

impl FirstWrite {
    /// Runs the write on `db`, the store made with the configuration it came with.
    pub(crate) async fn run<B: Backend>(
        self,
        db: &Db<B>,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        match self {
            FirstWrite::Run(command) => db.run(command, out).await,
            FirstWrite::Import {
                file,
                reader,
                size,
                pending,
            } => import_from(db, &file, reader, size, pending, out).await,
        }
    }
}

/// For a `put` or `import` where there is no store yet (a directory, a DynamoDB table or a
/// SlateDB database without a configuration record): the configuration a new store takes
/// (the export's for an import, none for a put), after trying the write (an import's
/// configuration line and first item) on an empty in-memory store, so that a refused write
/// is refused before anything is made.
pub(crate) async fn try_first_write(command: DbCommand) -> Result<(Config, FirstWrite), Failure> {
    if let DbCommand::Import { file } = command {
        let (mut reader, size) = import_reader(&file)?;
        let first = first_import_records(&mut reader)?;
        let config = first.config.clone().unwrap_or_default();
        if let Some((item, line)) = &first.item {
            let db = memory_db(&config).await?;
            write_item(&db, item)
                .await
                .map_err(|e| in_import(e, *line, &file))?;
        }
        let write = FirstWrite::Import {
            file,
            reader,
            size,
            pending: first.pending,
        };
        return Ok((config, write));
    }
    let DbCommand::Put {
        path,
        json,
        if_absent,
        if_version,
    } = &command
    else {
        unreachable!("only put and import create a store")
    };
    let trial = DbCommand::Put {
        path: path.clone(),
        json: json.clone(),
        if_absent: *if_absent,
        if_version: *if_version,
    };
    let config = Config::default();
    memory_db(&config)
        .await?
        .run(trial, &mut std::io::sink())
        .await?;
    Ok((config, FirstWrite::Run(command)))
}
