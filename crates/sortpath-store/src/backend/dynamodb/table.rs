//! Creating a table with the key schema the backend needs, and checking an existing one.

use std::time::Duration;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::create_table::CreateTableError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType,
    Projection, ProjectionType, ScalarAttributeType, TableDescription, TableStatus,
};
use aws_sdk_dynamodb::Client;

use super::attrs::{KeptIndex, PK, SK};
use super::{sdk_error, DynamoDbBackend};
use crate::backend::BackendError;

/// Why a DynamoDB table cannot be used (or made) for a store.
///
/// ```
/// use sortpath_store::backend::dynamodb::OpenError;
/// let e = OpenError::Schema { table: "t".into(), problems: vec!["no sort key".into()] };
/// assert!(e.to_string().contains("no sort key"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The table does not exist.
    #[error(
        "no DynamoDB table {table:?} (create it with `sortpath db --dynamodb {table} create-table`)"
    )]
    Missing {
        /// The table name.
        table: String,
    },
    /// Not a DynamoDB table name: 3 to 255 of `a-z A-Z 0-9 _ - .` (checked before any
    /// request).
    #[error(
        "{table:?} is not a DynamoDB table name: expected 3 to 255 of a-z, A-Z, 0-9, '_', '-', '.'"
    )]
    InvalidName {
        /// The name given.
        table: String,
    },
    /// `create_table` of a table that exists.
    #[error("DynamoDB table {table:?} exists already")]
    Exists {
        /// The table name.
        table: String,
    },
    /// The table's key schema is not `pk` (B, HASH) + `sk` (B, RANGE).
    #[error("DynamoDB table {table:?} has the wrong key schema: {}; expected {PK} (binary, HASH) and {SK} (binary, RANGE)", problems.join("; "))]
    Schema {
        /// The table name.
        table: String,
        /// Each difference found.
        problems: Vec<String>,
    },
    /// The table did not become `ACTIVE` in time.
    #[error("DynamoDB table {table:?} is {status} after {waited:?}")]
    NotActive {
        /// The table name.
        table: String,
        /// Its last status.
        status: String,
        /// How long was waited.
        waited: Duration,
    },
    /// A request failed.
    #[error("DynamoDB table {table:?}: {source}")]
    Request {
        /// The table name.
        table: String,
        /// What failed.
        source: BackendError,
    },
}

/// How long [`DynamoDbBackend::create_table`] waits for the table to become active.
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(120);

impl DynamoDbBackend {
    /// Creates `table` (on-demand capacity, `pk` binary HASH key, `sk` binary RANGE key, no
    /// secondary indexes: the store keeps its own index entries in the table) and waits until
    /// it is active.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// let sdk = client(Some("http://127.0.0.1:8000"), None).await;
    /// let backend = DynamoDbBackend::create_table(sdk, "sortpath").await?;
    /// # Ok(()) }
    /// ```
    pub async fn create_table(client: Client, table: &str) -> Result<Self, OpenError> {
        DynamoDbBackend::create_table_with(client, table, &[]).await
    }

    /// [`DynamoDbBackend::create_table`] with a GSI for each of `indexes` (a store index's
    /// name and projection) to keep the store indexes declared
    /// [`IndexMode::Table`](crate::IndexMode::Table): GSI [`gsi_name`](super::gsi_name)`(index)`
    /// on the binary attributes [`gsi_key_attributes`](super::gsi_key_attributes)`(n)` for the
    /// `n`-th index (HASH, then RANGE), projecting all attributes or keys only. DynamoDB
    /// allows 20 GSIs per table (see `docs/dynamodb-gsi.md` for what they cost).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// use sortpath_store::Projection;
    /// let sdk = client(Some("http://127.0.0.1:8000"), None).await;
    /// let backend =
    ///     DynamoDbBackend::create_table_with(sdk, "sortpath", &[("by_updated", Projection::All)]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn create_table_with(
        client: Client,
        table: &str,
        indexes: &[(&str, crate::Projection)],
    ) -> Result<Self, OpenError> {
        check_name(table)?;
        if let Some(bad) = indexes
            .iter()
            .find(|(n, _)| !crate::layout::is_valid_index_name(n))
        {
            return Err(OpenError::Schema {
                table: table.to_owned(),
                problems: vec![format!(
                    "index name {:?}: expected 1 to 64 ASCII letters, digits or '_'",
                    bad.0
                )],
            });
        }
        let request = |source| OpenError::Request {
            table: table.to_owned(),
            source,
        };
        let attr = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::B)
                .build()
                .map_err(|e| request(BackendError::storage(e)))
        };
        let key = |name: &str, kind| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
                .map_err(|e| request(BackendError::storage(e)))
        };
        let mut create = client
            .create_table()
            .table_name(table)
            .attribute_definitions(attr(PK)?)
            .attribute_definitions(attr(SK)?)
            .key_schema(key(PK, KeyType::Hash)?)
            .key_schema(key(SK, KeyType::Range)?)
            .billing_mode(BillingMode::PayPerRequest);
        for (n, (index, projection)) in indexes.iter().enumerate() {
            let (pk, sk) = super::gsi_key_attributes(n + 1);
            let projection = Projection::builder()
                .projection_type(match projection {
                    crate::Projection::All => ProjectionType::All,
                    _ => ProjectionType::KeysOnly,
                })
                .build();
            let gsi = GlobalSecondaryIndex::builder()
                .index_name(super::gsi_name(index))
                .key_schema(key(&pk, KeyType::Hash)?)
                .key_schema(key(&sk, KeyType::Range)?)
                .projection(projection)
                .build()
                .map_err(|e| request(BackendError::storage(e)))?;
            create = create
                .attribute_definitions(attr(&pk)?)
                .attribute_definitions(attr(&sk)?)
                .global_secondary_indexes(gsi);
        }
        create.send().await.map_err(|e| match e {
            SdkError::ServiceError(s)
                if matches!(s.err(), CreateTableError::ResourceInUseException(_)) =>
            {
                OpenError::Exists {
                    table: table.to_owned(),
                }
            }
            e => request(sdk_error("CreateTable", e)),
        })?;
        let start = std::time::Instant::now();
        loop {
            let description = describe(&client, table).await?;
            let status = description.table_status().cloned();
            let gsis_active = description
                .global_secondary_indexes()
                .iter()
                .all(|g| g.index_status() == Some(&IndexStatus::Active));
            if status == Some(TableStatus::Active) && gsis_active {
                let kept = check_schema(table, &description)?;
                return Ok(DynamoDbBackend::new_unchecked(client, table).keeping_found(kept));
            }
            if start.elapsed() > ACTIVE_TIMEOUT {
                return Err(OpenError::NotActive {
                    table: table.to_owned(),
                    status: status.map_or("unknown".to_owned(), |s| s.as_str().to_owned()),
                    waited: start.elapsed(),
                });
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Opens an existing table after checking its key schema with `DescribeTable`.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// let backend = DynamoDbBackend::open(client(None, None).await, "sortpath").await?;
    /// # Ok(()) }
    /// ```
    pub async fn open(client: Client, table: &str) -> Result<Self, OpenError> {
        check_name(table)?;
        let description = describe(&client, table).await?;
        let kept = check_schema(table, &description)?;
        Ok(DynamoDbBackend::new_unchecked(client, table).keeping_found(kept))
    }
}

/// The store indexes the table keeps: its GSIs named [`GSI_PREFIX`](super::GSI_PREFIX) and
/// an index name, with their key attributes and projections; each must have two binary key
/// attributes (HASH, RANGE) of its own, as [`DynamoDbBackend::create_table_with`] gives it
/// (other GSIs are the application's and are left alone).
fn kept_indexes(d: &TableDescription, problems: &mut Vec<String>) -> Vec<KeptIndex> {
    let mut kept: Vec<KeptIndex> = Vec::new();
    for g in d.global_secondary_indexes() {
        let Some(index) = g
            .index_name()
            .and_then(|n| n.strip_prefix(super::GSI_PREFIX))
            .filter(|n| crate::layout::is_valid_index_name(n))
        else {
            continue;
        };
        let schema: Vec<(&str, &KeyType)> = g
            .key_schema()
            .iter()
            .map(|k| (k.attribute_name(), k.key_type()))
            .collect();
        let binary = |name: &str| {
            d.attribute_definitions().iter().any(|a| {
                a.attribute_name() == name && *a.attribute_type() == ScalarAttributeType::B
            })
        };
        let reserved = |name: &str| {
            [
                PK,
                SK,
                super::VER,
                super::VAL,
                super::TYPE,
                super::HDR,
                super::ITEM,
                super::SHAPE,
            ]
            .contains(&name)
                || kept.iter().any(|k| k.pk == name || k.sk == name)
        };
        let (pk, sk) = match schema[..] {
            [(pk, KeyType::Hash), (sk, KeyType::Range)]
                if binary(pk) && binary(sk) && pk != sk && !reserved(pk) && !reserved(sk) =>
            {
                (pk, sk)
            }
            _ => {
                problems.push(format!(
                    "GSI {} has key schema {schema:?}, expected two binary attributes of its \
                     own (HASH, then RANGE; not a key attribute of the table, of the item's \
                     envelope or of another sortpath GSI)",
                    super::gsi_name(index)
                ));
                continue;
            }
        };
        let keys_only = match g.projection().and_then(|p| p.projection_type()) {
            Some(ProjectionType::All) => false,
            Some(ProjectionType::KeysOnly) => true,
            other => {
                problems.push(format!(
                    "GSI {} projects {other:?}, expected ALL or KEYS_ONLY",
                    super::gsi_name(index)
                ));
                continue;
            }
        };
        kept.push(KeptIndex {
            name: index.to_owned(),
            pk: pk.to_owned(),
            sk: sk.to_owned(),
            keys_only,
        });
    }
    kept
}

/// DynamoDB's rule for table names, checked before a request (its own error is a
/// validation exception that reads like a failed request).
fn check_name(table: &str) -> Result<(), OpenError> {
    let ok = (3..=255).contains(&table.len())
        && table
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(OpenError::InvalidName {
            table: table.to_owned(),
        })
    }
}

async fn describe(client: &Client, table: &str) -> Result<TableDescription, OpenError> {
    use aws_sdk_dynamodb::operation::describe_table::DescribeTableError;
    match client.describe_table().table_name(table).send().await {
        Ok(out) => out.table.ok_or_else(|| OpenError::Missing {
            table: table.to_owned(),
        }),
        Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
            if matches!(e.err(), DescribeTableError::ResourceNotFoundException(_)) =>
        {
            Err(OpenError::Missing {
                table: table.to_owned(),
            })
        }
        Err(e) => Err(OpenError::Request {
            table: table.to_owned(),
            source: sdk_error("DescribeTable", e),
        }),
    }
}

/// Every way the table's key schema differs from the backend's; the indexes it keeps.
fn check_schema(table: &str, d: &TableDescription) -> Result<Vec<KeptIndex>, OpenError> {
    let mut problems = Vec::new();
    let kept = kept_indexes(d, &mut problems);
    let type_of = |name: &str| {
        d.attribute_definitions()
            .iter()
            .find(|a| a.attribute_name() == name)
            .map(|a| a.attribute_type().as_str().to_owned())
    };
    for (kind, want) in [(KeyType::Hash, PK), (KeyType::Range, SK)] {
        let found = d.key_schema().iter().find(|k| *k.key_type() == kind);
        match found {
            None => problems.push(format!("no {} key", kind.as_str())),
            Some(k) if k.attribute_name() != want => problems.push(format!(
                "{} key is {:?}, expected {want:?}",
                kind.as_str(),
                k.attribute_name()
            )),
            Some(_) => match type_of(want) {
                Some(t) if t == "B" => {}
                Some(t) => problems.push(format!("{want} has type {t}, expected B (binary)")),
                None => problems.push(format!("{want} has no attribute definition")),
            },
        }
    }
    if problems.is_empty() {
        Ok(kept)
    } else {
        Err(OpenError::Schema {
            table: table.to_owned(),
            problems,
        })
    }
}
