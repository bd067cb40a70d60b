//! A [`Backend`] on one DynamoDB table (feature `dynamodb`), through the official AWS SDK.
//!
//! # Table
//! One table, created by [`DynamoDbBackend::create_table`] (or `sortpath db --dynamodb TABLE
//! create-table`): partition key `pk` (binary) = the backend group key, sort key `sk`
//! (binary) = the backend sort key, on-demand capacity. The store's exact index entries
//! (and group counters, where the store keeps them) are ordinary items of the same table
//! (see [`layout`](crate::layout)), written in the same `TransactWriteItems` as the item
//! they belong to, so exact indexes are exactly as consistent as the items. Item
//! collections, key ranges, `ScanIndexForward=false` and pagination map onto `Query` on
//! `pk`. [`DynamoDbBackend::open`] checks the key schema with `DescribeTable` and names
//! every difference.
//!
//! An index declared [`IndexMode::Table`](crate::IndexMode::Table) is instead a GSI named
//! [`gsi_name`]`(index)` that DynamoDB keeps ([`DynamoDbBackend::create_table_with`],
//! `create-table --gsi NAME`): its keys are two binary item attributes, `gpN` (the index
//! key path's group) and `gsN` (the sort key the exact entry would have), `N` numbering
//! the table's sortpath GSIs ([`gsi_key_attributes`]); an opener reads which attributes
//! each GSI uses from its key schema. Such an item's stored envelope header leaves that
//! index's key path out (its length is written as 0): the GSI key attributes hold it, and
//! a read puts it back, so values read back byte for byte. See `docs/dynamodb-gsi.md`.
//!
//! # Item layout
//! | attribute | type | present | holds |
//! |-----------|------|---------|-------|
//! | `pk`      | B    | always  | the group key |
//! | `sk`      | B    | always  | the sort key |
//! | `ver`     | N    | always  | the record's version |
//! | `type`    | S    | native items | the item type name (for people and tools) |
//! | `item`    | M (or L/S/N/B/BOOL/NULL) | native items | the item's fields as native attributes |
//! | `hdr`     | B    | native items | the envelope header: format, type, index key paths (not those of GSI-kept indexes) |
//! | `shape`   | B    | native items | MessagePack types and map key order of `item` |
//! | `val`     | B    | other non-empty values | the value bytes (the header as in `hdr`) |
//! | `gpN`, `gsN` | B | items with a key of a GSI-kept index | that GSI's partition and sort key |
//!
//! A record's value is opaque to a backend, but the store's item values are envelopes
//! (type, index keys, MessagePack payload), and the store says what each is made of
//! ([`Write::PutItem`] with its [`ItemParts`](super::ItemParts)):
//! writes never read the envelope; reads rebuild it from the stored attributes in one
//! module (`readback.rs`). A plain [`Write::Put`] is stored as bytes in
//! `val`. When an item's payload is
//! self-describing (a MessagePack map: an item type with
//! [`Item::SELF_DESCRIBING`](crate::Item::SELF_DESCRIBING), or written as data such as
//! `sortpath db`'s) and has an exact native form, the fields go into `item` (nested under one attribute, so a field
//! name can never clash with `pk`, `ver` and the rest), readable in the console and by any
//! DynamoDB tool. Everything else — index entries, counters, values that are not envelopes,
//! payloads with NaN or infinities, numbers outside DynamoDB's range, non-string map keys,
//! ext types, documents nested over 30 levels, or a native item over 400 KB — is stored as
//! bytes in `val`. Before a native form is used, it is converted back and compared with the
//! original bytes; reads always return byte-identical values.
//!
//! # Requests
//! - [`Backend::get`]: one `GetItem`; [`Backend::batch_get`]: `BatchGetItem` per 100
//!   distinct keys, unprocessed keys retried with exponential backoff and jitter.
//! - [`Backend::scan`]: `Query` with `pk = :g` and a sort key condition from the bounds
//!   (`BETWEEN` for two bounds, `>`/`>=`/`<`/`<=` for one; excluded endpoints of `BETWEEN`
//!   are dropped client-side), `ScanIndexForward=false` for reverse. It follows
//!   `LastEvaluatedKey` across DynamoDB's 1 MB pages until it has exactly
//!   `min(limit, records in range)` entries.
//! - [`Backend::write`]: one `PutItem`/`DeleteItem` for a single put or delete, one
//!   `TransactWriteItems` otherwise, with conditions as condition expressions and
//!   `ReturnValuesOnConditionCheckFailure=ALL_OLD` so a failure names the first failing
//!   write and its current version. Over 100 writes or 4 MB, a key over DynamoDB's limits
//!   (partition 2048 bytes, sort 1024) or an item over 400 KB is
//!   [`BackendError::LimitExceeded`] before anything is sent. Transaction conflicts and
//!   throttling are retried with bounded exponential backoff, by the backend (the SDK's own
//!   retries are off for writes). A request that may have been applied without an answer
//!   (a connection cut, a timeout, an `InternalServerError`) is sent again, at most 3 times
//!   for failures on the way; when its conditions then fail against exactly the records it
//!   puts, the earlier attempt was applied and the write succeeds.
//! - Reads are strongly consistent (`ConsistentRead=true`) unless the caller asks for
//!   [`Consistency::Eventual`](super::Consistency::Eventual) (`Query::consistency`,
//!   `Store::get_with`): half the read units, possibly a moment behind. The store's own
//!   reads before a write are always strongly consistent.
//!
//! What the store's operations cost in read and write units, beside a hand-made design
//! with a GSI, is in `docs/figures/dynamodb-cost.md`, counted by [`cost::CostMeter`].
//!
//! # TLS and credentials
//! The SDK crates are used with default features off; the HTTPS client is built explicitly
//! with `aws-smithy-http-client`'s `rustls-ring` provider, so the build has exactly one TLS
//! stack (rustls with ring: no aws-lc-rs, no OpenSSL). [`client`] loads region and
//! credentials from the environment as the AWS CLI does; with an endpoint URL (a local
//! server) and no `AWS_ACCESS_KEY_ID`/`AWS_PROFILE`, it uses dummy static credentials and
//! region `us-east-1` so local servers work out of the box.
//!
//! ```no_run
//! use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
//! use sortpath_store::Store;
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let sdk = client(Some("http://127.0.0.1:8000"), None).await;
//! let store = Store::new(DynamoDbBackend::open(sdk, "sortpath").await?);
//! # Ok(()) }
//! ```

use sortpath::Order;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Bound;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Credentials, Intercept, Region, RuntimeComponents};
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
use aws_sdk_dynamodb::Client;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use aws_smithy_types::error::display::DisplayErrorContext;

use super::{Backend, BackendError, Entry, Key, Record, Scan, Write};
use crate::backoff::Backoff;

mod attrs;
mod audit;
pub mod cost;
mod native;
mod readback;
mod table;
mod write;

pub use attrs::{
    gsi_key_attributes, gsi_name, GSI_PREFIX, HDR, ITEM, PK, SHAPE, SK, TYPE, VAL, VER,
};
pub use table::OpenError;
pub use write::{MAX_PARTITION_KEY, MAX_SORT_KEY, MAX_TRANSACT_BYTES, MAX_TRANSACT_ITEMS};

/// Attempts of a write or read that keeps being throttled or conflicting.
const MAX_ATTEMPTS: u32 = 10;
/// Pauses between attempts: 10 ms doubling up to 10 times, at most 1 s.
const BACKOFF: Backoff = Backoff {
    first: Duration::from_millis(10),
    doublings: 10,
    max: Duration::from_secs(1),
};
/// DynamoDB's most keys in one `BatchGetItem`.
const MAX_BATCH_GET: usize = 100;

/// A store backend on one DynamoDB table. Cloning shares the SDK client.
///
/// ```no_run
/// use sortpath_store::backend::{dynamodb::{client, DynamoDbBackend}, Backend, Key};
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let backend = DynamoDbBackend::open(client(None, None).await, "sortpath").await?;
/// assert_eq!(backend.get(Key::new(b"g".to_vec(), b"s".to_vec())).await?, None);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct DynamoDbBackend {
    client: Client,
    table: Arc<str>,
    meter: Option<cost::CostMeter>,
    /// The store indexes the table keeps as GSIs (see [`attrs::gsi_name`]).
    kept: Arc<[attrs::KeptIndex]>,
    /// Their names.
    kept_names: Arc<[String]>,
    /// When every request gives up ([`DynamoDbBackend::with_deadline`]).
    deadline: Option<tokio::time::Instant>,
}

impl std::fmt::Debug for DynamoDbBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamoDbBackend")
            .field("table", &self.table)
            .finish()
    }
}

/// Builds a DynamoDB client from the environment (region, credentials, profile), with the
/// rustls + ring HTTPS client. With `endpoint_url` (a local server such as DynamoDB Local),
/// requests go there, and when the environment has no credentials (`AWS_ACCESS_KEY_ID`,
/// `AWS_PROFILE`) or region (`AWS_REGION`, `AWS_DEFAULT_REGION`), dummy credentials and
/// `us-east-1` are used (DynamoDB Local accepts only letters and digits in the access key ID). `counter` counts every HTTP request the client sends.
///
/// ```no_run
/// # async fn demo() {
/// use sortpath_store::backend::dynamodb::{client, RequestCounter};
/// let counter = RequestCounter::default();
/// let sdk = client(Some("http://127.0.0.1:8000"), Some(&counter)).await;
/// sdk.list_tables().send().await.unwrap();
/// assert_eq!(counter.total(), 1);
/// # }
/// ```
pub async fn client(endpoint_url: Option<&str>, counter: Option<&RequestCounter>) -> Client {
    client_with_timeout(endpoint_url, counter, DEFAULT_TIMEOUT).await
}

/// How long a call of a [`client`] may take, retries included, unless
/// [`client_with_timeout`] says otherwise. Each attempt also gives up after at most 10
/// seconds, and connecting after at most 3, so an endpoint that never answers is an error,
/// not a hang.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::DEFAULT_TIMEOUT.as_secs(), 30);
/// ```
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// [`client`] whose calls give up after `timeout` (retries included; each attempt after at
/// most 10 seconds, connecting after at most 3).
///
/// ```no_run
/// # async fn demo() {
/// use sortpath_store::backend::dynamodb::client_with_timeout;
/// let sdk = client_with_timeout(Some("http://127.0.0.1:8000"), None, std::time::Duration::from_secs(5)).await;
/// sdk.list_tables().send().await.unwrap();
/// # }
/// ```
pub async fn client_with_timeout(
    endpoint_url: Option<&str>,
    counter: Option<&RequestCounter>,
    timeout: Duration,
) -> Client {
    use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
    let https = aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
        .build_https();
    let timeouts = aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(timeout.min(Duration::from_secs(3)))
        .operation_attempt_timeout(timeout.min(Duration::from_secs(10)))
        .operation_timeout(timeout)
        .build();
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(https)
        .timeout_config(timeouts);
    if let Some(url) = endpoint_url {
        loader = loader.endpoint_url(url);
        let unset = |names: &[&str]| names.iter().all(|n| std::env::var_os(n).is_none());
        if unset(&["AWS_ACCESS_KEY_ID", "AWS_PROFILE"]) {
            let dummy = Credentials::new("sortpathlocal", "sortpathlocal", None, None, "sortpath");
            loader = loader.credentials_provider(dummy);
        }
        if unset(&["AWS_REGION", "AWS_DEFAULT_REGION"]) {
            loader = loader.region(Region::new("us-east-1"));
        }
    }
    let sdk = loader.load().await;
    let mut config = aws_sdk_dynamodb::config::Builder::from(&sdk);
    if let Some(counter) = counter {
        config = config.interceptor(counter.clone());
    }
    Client::from_conf(config.build())
}

/// Counts the HTTP requests a [`client`] sends (retries included), per DynamoDB operation.
///
/// ```
/// let counter = sortpath_store::backend::dynamodb::RequestCounter::default();
/// assert_eq!(counter.total(), 0);
/// assert!(counter.take().is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct RequestCounter {
    counts: Arc<Mutex<BTreeMap<String, u64>>>,
}

impl RequestCounter {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, u64>> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Requests sent so far, all operations.
    ///
    /// ```
    /// assert_eq!(sortpath_store::backend::dynamodb::RequestCounter::default().total(), 0);
    /// ```
    pub fn total(&self) -> u64 {
        self.lock().values().sum()
    }

    /// Requests per operation (`"PutItem"`, `"Query"`, ...) since the last `take`, and
    /// resets the counts.
    ///
    /// ```
    /// let counter = sortpath_store::backend::dynamodb::RequestCounter::default();
    /// assert_eq!(counter.take().len(), 0);
    /// ```
    pub fn take(&self) -> BTreeMap<String, u64> {
        std::mem::take(&mut *self.lock())
    }
}

impl Intercept for RequestCounter {
    fn name(&self) -> &'static str {
        "sortpath RequestCounter"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        // `X-Amz-Target: DynamoDB_20120810.PutItem`.
        let target = context.request().headers().get("x-amz-target");
        let operation = target
            .and_then(|t| t.rsplit('.').next())
            .unwrap_or("unknown");
        *self.lock().entry(operation.to_owned()).or_default() += 1;
        Ok(())
    }
}

/// Whether a service error is throttling (worth a retry after a pause).
fn is_throttling(e: &impl ProvideErrorMetadata) -> bool {
    matches!(
        e.code(),
        Some(
            "ThrottlingException"
                | "ProvisionedThroughputExceededException"
                | "RequestLimitExceeded"
                | "InternalServerError"
        )
    )
}

/// A failed request as a storage error that says which operation failed and why.
fn sdk_error<E>(operation: &str, e: SdkError<E, HttpResponse>) -> BackendError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let detail = match &e {
        SdkError::ServiceError(s) => match (s.err().code(), s.err().message()) {
            (Some(code), message) => format!("{code}: {}", message.unwrap_or_default()),
            // Not an answer DynamoDB gives (another server at the endpoint, a proxy):
            // its HTTP status and the start of its body.
            (None, _) => {
                let body = s.raw().body().bytes().unwrap_or_default();
                let body = String::from_utf8_lossy(&body[..body.len().min(200)]);
                format!(
                    "HTTP status {} without a DynamoDB error, body {:?}",
                    s.raw().status().as_u16(),
                    body.trim()
                )
            }
        },
        // Timeouts, connection and endpoint failures: the error and its causes, one line.
        other => DisplayErrorContext(other).to_string(),
    };
    BackendError::storage(format!("DynamoDB {operation} failed: {detail}"))
}

impl DynamoDbBackend {
    /// A backend on `table` without checking that it exists or has the right key schema
    /// (see [`DynamoDbBackend::open`]).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// let backend = DynamoDbBackend::new_unchecked(client(None, None).await, "sortpath");
    /// assert_eq!(backend.table(), "sortpath");
    /// # }
    /// ```
    pub fn new_unchecked(client: Client, table: &str) -> Self {
        DynamoDbBackend {
            client,
            table: Arc::from(table),
            meter: None,
            kept: Arc::from([]),
            kept_names: Arc::from([]),
            deadline: None,
        }
    }

    /// This backend, giving up at `deadline` on whatever it is doing, retries included: a
    /// read then fails as [`BackendError::Storage`], and a write that was sent and not
    /// answered by then as [`BackendError::MaybeApplied`] (it may have been applied); a
    /// request is never sent after it. For a program that must answer within a time (the
    /// CLI's `--timeout`); the client's own timeouts still bound each request.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// use std::time::{Duration, Instant};
    /// let backend = DynamoDbBackend::new_unchecked(client(None, None).await, "sortpath")
    ///     .with_deadline(Instant::now() + Duration::from_secs(3));
    /// # }
    /// ```
    pub fn with_deadline(mut self, deadline: std::time::Instant) -> Self {
        self.deadline = Some(tokio::time::Instant::from_std(deadline));
        self
    }

    /// Whether the deadline ([`DynamoDbBackend::with_deadline`]) has passed.
    pub(crate) fn past_deadline(&self) -> bool {
        self.deadline
            .is_some_and(|d| tokio::time::Instant::now() >= d)
    }

    /// `read` (a read of `what`), failing at the deadline, and never started past it.
    async fn bounded<T>(
        &self,
        what: &str,
        read: impl std::future::Future<Output = Result<T, BackendError>>,
    ) -> Result<T, BackendError> {
        let Some(deadline) = self.deadline else {
            return read.await;
        };
        let late = || BackendError::storage(format!("DynamoDB {what}: {}", DEADLINE_PASSED));
        if self.past_deadline() {
            return Err(late());
        }
        tokio::time::timeout_at(deadline, read)
            .await
            .unwrap_or_else(|_| Err(late()))
    }

    /// This backend, recording what each request it sends costs into `meter` (see
    /// [`cost`]).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use sortpath_store::backend::dynamodb::{client, cost::CostMeter, DynamoDbBackend};
    /// let meter = CostMeter::default();
    /// let backend = DynamoDbBackend::new_unchecked(client(None, None).await, "t").metered(&meter);
    /// # }
    /// ```
    pub fn metered(mut self, meter: &cost::CostMeter) -> Self {
        self.meter = Some(meter.clone());
        self
    }

    /// This backend, keeping `indexes` (name and projection) as the table's GSIs, without
    /// checking that the table has them ([`DynamoDbBackend::open`] finds them itself, with
    /// the key attributes their key schemas name): the `n`-th index's GSI keys are the
    /// attributes [`gsi_key_attributes`]`(n)`, as
    /// [`DynamoDbBackend::create_table_with`] creates them.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use sortpath_store::backend::{dynamodb::{client, DynamoDbBackend}, Backend};
    /// use sortpath_store::Projection;
    /// let backend = DynamoDbBackend::new_unchecked(client(None, None).await, "t")
    ///     .keeping(&[("by_updated", Projection::All)]);
    /// assert_eq!(backend.maintained_indexes(), Some(&["by_updated".to_owned()][..]));
    /// # }
    /// ```
    pub fn keeping(self, indexes: &[(&str, crate::Projection)]) -> Self {
        let kept = indexes
            .iter()
            .enumerate()
            .map(|(i, (name, projection))| {
                let (pk, sk) = gsi_key_attributes(i + 1);
                attrs::KeptIndex {
                    name: (*name).to_owned(),
                    pk,
                    sk,
                    keys_only: *projection == crate::Projection::KeysOnly,
                }
            })
            .collect();
        self.keeping_found(kept)
    }

    /// This backend, keeping the GSIs `kept` (as found in the table's description).
    fn keeping_found(mut self, kept: Vec<attrs::KeptIndex>) -> Self {
        self.kept_names = kept.iter().map(|k| k.name.clone()).collect();
        self.kept = Arc::from(kept);
        self
    }

    /// Records a request's cost, if metered.
    fn meter(&self, operation: &'static str, write_units: f64, read_units: f64) {
        if let Some(m) = &self.meter {
            m.record(operation, write_units, read_units);
        }
    }

    /// The table name.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// # use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// let backend = DynamoDbBackend::new_unchecked(client(None, None).await, "t");
    /// assert_eq!(backend.table(), "t");
    /// # }
    /// ```
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The SDK client.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// # use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// let backend = DynamoDbBackend::new_unchecked(client(None, None).await, "t");
    /// backend.client().list_tables().send().await.unwrap();
    /// # }
    /// ```
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Every group key in the table whose first byte is at least `from`, in byte order.
    /// This is a full table `Scan` (projecting only `pk`): meant for exports, not hot
    /// paths. The store's own records live in groups starting with `00`, so `groups(1)`
    /// lists the item groups.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// # use sortpath_store::backend::dynamodb::{client, DynamoDbBackend};
    /// let backend = DynamoDbBackend::open(client(None, None).await, "sortpath").await?;
    /// for group in backend.groups(1).await? {
    ///     println!("{group:02x?}");
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut groups = std::collections::BTreeSet::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let out = self
                .client
                .scan()
                .table_name(self.table.as_ref())
                .projection_expression(PK)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_error("Scan", e))?;
            for item in out.items() {
                if let Some(AttributeValue::B(g)) = item.get(PK) {
                    if g.as_ref().first().is_some_and(|b| *b >= from) {
                        groups.insert(g.as_ref().to_vec());
                    }
                }
            }
            match out.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => break,
            }
        }
        Ok(groups.into_iter().collect())
    }

    async fn batch_get_unique(
        &self,
        keys: &[&Key],
        consistent: bool,
        found: &mut HashMap<Key, Record>,
    ) -> Result<(), BackendError> {
        let mut pending: Vec<HashMap<String, AttributeValue>> =
            keys.iter().map(|k| attrs::key_attrs(k)).collect();
        let mut attempt = 0;
        while !pending.is_empty() {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(std::mem::take(&mut pending)))
                .consistent_read(consistent)
                .build()
                .map_err(BackendError::storage)?;
            let sent = self
                .client
                .batch_get_item()
                .request_items(self.table.as_ref(), request.clone())
                .send()
                .await;
            let out = match sent {
                Ok(out) => out,
                Err(SdkError::ServiceError(e))
                    if is_throttling(e.err()) && attempt < MAX_ATTEMPTS =>
                {
                    pending = request.keys().to_vec();
                    tokio::time::sleep(BACKOFF.pause(attempt)).await;
                    attempt += 1;
                    continue;
                }
                Err(e) => return Err(sdk_error("BatchGetItem", e)),
            };
            let items = out.responses().and_then(|r| r.get(self.table.as_ref()));
            if self.meter.is_some() {
                let asked = request.keys().len();
                let unprocessed = out
                    .unprocessed_keys()
                    .and_then(|u| u.get(self.table.as_ref()))
                    .map_or(0, |u| u.keys().len());
                let found: Vec<usize> = items
                    .into_iter()
                    .flatten()
                    .map(attrs::billed_size)
                    .collect();
                let absent = (asked - unprocessed).saturating_sub(found.len());
                let units = found
                    .iter()
                    .map(|&s| cost::read_units(s, consistent))
                    .sum::<f64>()
                    + absent as f64 * cost::read_units(0, consistent);
                self.meter("BatchGetItem", 0.0, units);
            }
            for item in items.into_iter().flatten() {
                let group = match item.get(PK) {
                    Some(AttributeValue::B(g)) => g.as_ref().to_vec(),
                    _ => return Err(BackendError::storage("BatchGetItem: item without pk")),
                };
                found.insert(
                    Key::new(group, attrs::sort_key(item)?),
                    readback::read(item, &self.kept, readback::ReadAs::Record)?,
                );
            }
            if let Some(rest) = out
                .unprocessed_keys()
                .and_then(|u| u.get(self.table.as_ref()))
            {
                pending = rest.keys().to_vec();
            }
            if !pending.is_empty() {
                if attempt >= MAX_ATTEMPTS {
                    return Err(BackendError::storage(format!(
                        "DynamoDB BatchGetItem: {} keys still unprocessed after {MAX_ATTEMPTS} attempts",
                        pending.len()
                    )));
                }
                tokio::time::sleep(BACKOFF.pause(attempt)).await;
                attempt += 1;
            }
        }
        Ok(())
    }
}

/// A sort key bound that DynamoDB accepts: no empty values, no values over the sort key
/// limit. `None` for a bound that excludes every storable key. Stored sort keys are 1 to
/// [`MAX_SORT_KEY`] bytes, so an empty lower bound is no bound, and a bound `b` longer than
/// the limit acts like its prefix `p = b[..limit]` (for a stored `k`: `k >= b` iff `k > p`,
/// and `k <= b` iff `k <= p`).
fn clamp(bound: Bound<Vec<u8>>, lower: bool) -> Option<Bound<Vec<u8>>> {
    Some(match bound {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(b) | Bound::Excluded(b) if b.is_empty() => {
            if lower {
                Bound::Unbounded
            } else {
                return None;
            }
        }
        Bound::Included(b) | Bound::Excluded(b) if b.len() > MAX_SORT_KEY => {
            let p = b[..MAX_SORT_KEY].to_vec();
            if lower {
                Bound::Excluded(p)
            } else {
                Bound::Included(p)
            }
        }
        other => other,
    })
}

impl Backend for DynamoDbBackend {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        DynamoDbBackend::groups(self, from).await
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        self.bounded("GetItem", self.get_item(key)).await
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        self.bounded("BatchGetItem", self.batch_get_at(keys, true))
            .await
    }

    async fn batch_get_map_with<T, E, F>(
        &self,
        keys: Vec<Key>,
        consistency: super::Consistency,
        map: F,
    ) -> Result<Vec<Option<T>>, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(usize, u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        let strong = consistency == super::Consistency::Strong;
        let records = self
            .bounded("BatchGetItem", self.batch_get_at(keys, strong))
            .await?;
        super::map_records(&records, map)
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.bounded("Query", self.scan_at(scan, None)).await
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        self.write_batch(writes).await
    }

    fn maintained_indexes(&self) -> Option<&[String]> {
        Some(&self.kept_names)
    }

    fn wants_item_parts(&self) -> bool {
        true
    }

    fn shared_by_processes(&self) -> bool {
        true
    }

    async fn maintained_index_keys(&self) -> Result<Option<super::MaintainedKeys>, BackendError> {
        self.stored_gsi_keys().await
    }

    async fn scan_index(&self, index: &str, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        if !self.kept.iter().any(|k| k.name == index) {
            return Err(BackendError::storage(format!(
                "table {} keeps no index {index} (its sortpath GSIs: {:?})",
                self.table, self.kept_names
            )));
        }
        if scan.consistency == super::Consistency::Strong {
            return Err(BackendError::storage(format!(
                "index {index} is the GSI {} of table {}: a GSI reads only eventually \
                 consistent, a strongly consistent scan was asked for",
                gsi_name(index),
                self.table
            )));
        }
        self.bounded("Query", self.scan_at(scan, Some(index))).await
    }
}

/// How a request that the deadline ended is described.
pub(crate) const DEADLINE_PASSED: &str =
    "no answer before the deadline (the time allowed, retries included)";

impl DynamoDbBackend {
    /// [`Backend::get`]: one `GetItem`.
    async fn get_item(&self, key: Key) -> Result<Option<Record>, BackendError> {
        if write::beyond_key_limits(&key) {
            return Ok(None); // no write can store it, so it is not there
        }
        write::check_key(&key)?;
        let out = self
            .client
            .get_item()
            .table_name(self.table.as_ref())
            .set_key(Some(attrs::key_attrs(&key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| sdk_error("GetItem", e))?;
        let size = out.item().map_or(0, attrs::billed_size);
        self.meter("GetItem", 0.0, cost::read_units(size, true));
        out.item()
            .map(|i| readback::read(i, &self.kept, readback::ReadAs::Record))
            .transpose()
    }

    /// [`Backend::batch_get`], strongly consistent or not.
    async fn batch_get_at(
        &self,
        keys: Vec<Key>,
        consistent: bool,
    ) -> Result<Vec<Option<Record>>, BackendError> {
        let mut seen = HashSet::with_capacity(keys.len());
        let mut unique = Vec::with_capacity(keys.len());
        for k in &keys {
            if write::beyond_key_limits(k) {
                continue; // never stored: absent
            }
            write::check_key(k)?;
            if seen.insert(k) {
                unique.push(k);
            }
        }
        let mut found = HashMap::with_capacity(unique.len());
        for chunk in unique.chunks(MAX_BATCH_GET) {
            self.batch_get_unique(chunk, consistent, &mut found).await?;
        }
        Ok(keys.iter().map(|k| found.get(k).cloned()).collect())
    }

    /// [`Backend::scan`] (`gsi: None`) or [`Backend::scan_index`] of the index `gsi`, at
    /// the scan's consistency.
    async fn scan_at(&self, scan: Scan, gsi: Option<&str>) -> Result<Vec<Entry>, BackendError> {
        let consistent = scan.consistency == super::Consistency::Strong;
        let (pk_name, sk_name) = match gsi {
            Some(index) => match self.kept.iter().find(|k| k.name == index) {
                Some(k) => (k.pk.clone(), k.sk.clone()),
                None => {
                    return Err(BackendError::storage(format!(
                        "table {} keeps no index {index}",
                        self.table
                    )))
                }
            },
            None => (PK.to_owned(), SK.to_owned()),
        };
        let (pk, sk) = (pk_name.as_str(), sk_name.as_str());
        let limit = scan.limit.unwrap_or(usize::MAX);
        if limit == 0 || scan.is_empty_range() || scan.group.is_empty() {
            return Ok(Vec::new());
        }
        if scan.group.len() > MAX_PARTITION_KEY {
            return Ok(Vec::new()); // no write can store a record in this group
        }
        let (Some(lo), Some(hi)) = (
            clamp(scan.start.clone(), true),
            clamp(scan.end.clone(), false),
        ) else {
            return Ok(Vec::new());
        };
        let mut values = HashMap::from([(":g".to_owned(), attrs::bytes(&scan.group))]);
        let value = |b: &Vec<u8>| attrs::bytes(b);
        let (condition, slack) = match (&lo, &hi) {
            (Bound::Unbounded, Bound::Unbounded) => (format!("{pk} = :g"), 0),
            (Bound::Included(l) | Bound::Excluded(l), Bound::Unbounded) => {
                values.insert(":lo".into(), value(l));
                let op = if matches!(lo, Bound::Included(_)) {
                    ">="
                } else {
                    ">"
                };
                (format!("{pk} = :g AND {sk} {op} :lo"), 0)
            }
            (Bound::Unbounded, Bound::Included(h) | Bound::Excluded(h)) => {
                values.insert(":hi".into(), value(h));
                let op = if matches!(hi, Bound::Included(_)) {
                    "<="
                } else {
                    "<"
                };
                (format!("{pk} = :g AND {sk} {op} :hi"), 0)
            }
            (Bound::Included(l) | Bound::Excluded(l), Bound::Included(h) | Bound::Excluded(h)) => {
                if l > h {
                    return Ok(Vec::new());
                }
                values.insert(":lo".into(), value(l));
                values.insert(":hi".into(), value(h));
                // BETWEEN includes both ends; excluded ends are dropped below, and each
                // may use up one place of a page's Limit.
                let slack = usize::from(matches!(lo, Bound::Excluded(_)))
                    + usize::from(matches!(hi, Bound::Excluded(_)));
                (format!("{pk} = :g AND {sk} BETWEEN :lo AND :hi"), slack)
            }
        };
        let bounds = Scan {
            start: lo,
            end: hi,
            ..scan.clone()
        };
        let mut entries = Vec::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let want = (limit - entries.len()).saturating_add(slack);
            let out = self
                .client
                .query()
                .table_name(self.table.as_ref())
                .set_index_name(gsi.map(gsi_name))
                .key_condition_expression(&condition)
                .set_expression_attribute_values(Some(values.clone()))
                .scan_index_forward(scan.order == Order::Ascending)
                .consistent_read(consistent)
                .set_limit((limit != usize::MAX).then(|| i32::try_from(want).unwrap_or(i32::MAX)))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_error("Query", e))?;
            let page_bytes: usize = out.items().iter().map(attrs::billed_size).sum();
            self.meter("Query", 0.0, cost::read_units(page_bytes, consistent));
            for item in out.items() {
                let sort = match gsi {
                    None => attrs::sort_key(item)?,
                    Some(_) => match item.get(sk) {
                        Some(AttributeValue::B(b)) => b.as_ref().to_vec(),
                        _ => return Err(BackendError::storage(format!("GSI item without {sk}"))),
                    },
                };
                if bounds.contains(&sort) {
                    let record = match gsi {
                        None => readback::read(item, &self.kept, readback::ReadAs::Record)?,
                        Some(_) => readback::read(item, &self.kept, readback::ReadAs::GsiEntry)?,
                    };
                    entries.push(Entry { sort, record });
                    if entries.len() == limit {
                        return Ok(entries);
                    }
                }
            }
            match out.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return Ok(entries),
            }
        }
    }
}

#[cfg(test)]
mod tests;
