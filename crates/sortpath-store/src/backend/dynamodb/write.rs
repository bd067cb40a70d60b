//! Atomic conditional batches: one `PutItem`/`DeleteItem` for a single write, one
//! `TransactWriteItems` for more; conditions become condition expressions.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, ConditionCheck, Delete, Put, ReturnValue,
    ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;

use super::attrs::{self, item_size, key_attrs, record_item, MAX_ITEM_SIZE, PK, SK, VER};
use super::readback::{self, ReadAs};
use super::{is_throttling, sdk_error, DynamoDbBackend, BACKOFF, DEADLINE_PASSED, MAX_ATTEMPTS};
use crate::backend::{duplicate_key, BackendError, Condition, Key, Write};

/// Attempts of a write whose request failed on the way (not sent, or sent and its answer
/// lost): as many as the SDK's standard retries make, which are off for writes (see
/// [`no_sdk_retries`]).
const TRANSPORT_ATTEMPTS: u32 = 3;

/// The configuration override that turns the SDK's own retries off for a write request:
/// the backend retries writes itself, because it must know whether an earlier attempt may
/// have been applied (see [`DynamoDbBackend::is_own_put`]).
fn no_sdk_retries() -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::config::Builder::default()
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
}

/// DynamoDB's most actions in one `TransactWriteItems`.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::MAX_TRANSACT_ITEMS, 100);
/// ```
pub const MAX_TRANSACT_ITEMS: usize = 100;
/// DynamoDB's largest `TransactWriteItems` request (4 MB).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::MAX_TRANSACT_BYTES, 4 * 1024 * 1024);
/// ```
pub const MAX_TRANSACT_BYTES: usize = 4 * 1024 * 1024;
/// DynamoDB's longest partition key.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::MAX_PARTITION_KEY, 2048);
/// ```
pub const MAX_PARTITION_KEY: usize = 2048;
/// DynamoDB's longest sort key.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::MAX_SORT_KEY, 1024);
/// ```
pub const MAX_SORT_KEY: usize = 1024;

/// A condition as an expression: `(expression, values)`; `None` for [`Condition::None`].
fn expression(c: Condition) -> Option<(String, Option<HashMap<String, AttributeValue>>)> {
    match c {
        Condition::None => None,
        Condition::Exists => Some((format!("attribute_exists({PK})"), None)),
        Condition::NotExists => Some((format!("attribute_not_exists({PK})"), None)),
        Condition::VersionEquals(v) => Some((
            format!("{VER} = :kp_ver"),
            Some(HashMap::from([(
                ":kp_ver".to_owned(),
                AttributeValue::N(v.to_string()),
            )])),
        )),
    }
}

/// Whether `key` is longer than DynamoDB takes (partition or sort key): no write can store
/// it, so reads answer that it is absent without a request.
pub(crate) fn beyond_key_limits(key: &Key) -> bool {
    key.group.len() > MAX_PARTITION_KEY || key.sort.len() > MAX_SORT_KEY
}

/// Checks DynamoDB's key limits (and that neither part is empty) before anything is sent.
pub(crate) fn check_key(key: &Key) -> Result<(), BackendError> {
    let too_long = |what, limit, found| BackendError::LimitExceeded { what, limit, found };
    if key.group.len() > MAX_PARTITION_KEY {
        return Err(too_long(
            "DynamoDB partition key bytes",
            MAX_PARTITION_KEY,
            key.group.len(),
        ));
    }
    if key.sort.len() > MAX_SORT_KEY {
        return Err(too_long(
            "DynamoDB sort key bytes",
            MAX_SORT_KEY,
            key.sort.len(),
        ));
    }
    if key.group.is_empty() || key.sort.is_empty() {
        return Err(BackendError::storage(format!(
            "DynamoDB rejects empty binary key attributes: {key:?}"
        )));
    }
    Ok(())
}

/// A write ready to send: its item (puts) and its condition.
struct Prepared {
    key: Key,
    kind: Kind,
    condition: Option<(String, Option<HashMap<String, AttributeValue>>)>,
    size: usize,
}

enum Kind {
    Put(HashMap<String, AttributeValue>),
    Delete,
    Check,
}

fn prepare(writes: Vec<Write>, kept: &[attrs::KeptIndex]) -> Result<Vec<Prepared>, BackendError> {
    writes
        .into_iter()
        .map(|w| {
            check_key(w.key())?;
            let condition = expression(w.condition());
            let key_size = w.key().group.len() + w.key().sort.len() + PK.len() + SK.len();
            let put = match w {
                Write::Put { key, record, .. } => Ok((key, record, None)),
                Write::PutItem {
                    key, record, parts, ..
                } => Ok((key, record, Some(parts))),
                Write::Delete { key, .. } => Err((key, Kind::Delete)),
                Write::Check { key, .. } => Err((key, Kind::Check)),
            };
            let (key, kind) = match put {
                Ok((key, record, parts)) => {
                    let item = record_item(&key, &record, parts.as_ref(), kept)?;
                    let size = item_size(&item);
                    if size > MAX_ITEM_SIZE {
                        return Err(BackendError::LimitExceeded {
                            what: "DynamoDB item bytes",
                            limit: MAX_ITEM_SIZE,
                            found: size,
                        });
                    }
                    (key, Kind::Put(item))
                }
                Err(other) => other,
            };
            let size = match &kind {
                Kind::Put(item) => item_size(item),
                _ => key_size,
            } + condition.as_ref().map_or(0, |(e, _)| e.len() + 16);
            Ok(Prepared {
                key,
                kind,
                condition,
                size,
            })
        })
        .collect()
}

/// Why one attempt failed.
enum Failure {
    /// A condition did not hold: `(index, current version)`.
    Condition(usize, Option<u64>),
    /// Worth another attempt (transaction conflict, throttling, a server error, a request
    /// that failed on the way).
    Retry {
        error: BackendError,
        /// The attempt may have been applied: an `InternalServerError` (which AWS documents
        /// as possibly applied), or a request whose answer never came.
        maybe_applied: bool,
        /// It failed on the way (no answer from DynamoDB).
        transport: bool,
    },
    Fatal(BackendError),
}

impl DynamoDbBackend {
    pub(crate) async fn write_batch(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        if let Some((first, second)) = duplicate_key(&writes) {
            return Err(BackendError::DuplicateKey { first, second });
        }
        // Checks without a condition check nothing: they need no request.
        let prepared: Vec<(usize, Prepared)> = prepare(writes, &self.kept)?
            .into_iter()
            .enumerate()
            .filter(|(_, p)| !(matches!(p.kind, Kind::Check) && p.condition.is_none()))
            .collect();
        if prepared.is_empty() {
            return Ok(());
        }
        if prepared.len() > MAX_TRANSACT_ITEMS {
            return Err(BackendError::LimitExceeded {
                what: "writes in one DynamoDB TransactWriteItems",
                limit: MAX_TRANSACT_ITEMS,
                found: prepared.len(),
            });
        }
        let total: usize = prepared.iter().map(|(_, p)| p.size).sum();
        if total > MAX_TRANSACT_BYTES {
            return Err(BackendError::LimitExceeded {
                what: "bytes in one DynamoDB TransactWriteItems",
                limit: MAX_TRANSACT_BYTES,
                found: total,
            });
        }
        let mut last = None;
        // Whether an earlier attempt may have been applied: then a condition failing against
        // exactly what this batch puts means it was (and only then: two writers that compute
        // the same record from the same version write identical records), and giving up
        // says that it may have been applied.
        let mut maybe_applied = false;
        let give_up = |maybe_applied: bool, error: BackendError| match maybe_applied {
            true => BackendError::MaybeApplied(Box::new(error)),
            false => error,
        };
        let late = || BackendError::storage(format!("DynamoDB write: {DEADLINE_PASSED}"));
        let mut transport_failures = 0;
        for attempt in 0..MAX_ATTEMPTS {
            if self.past_deadline() {
                // Never sent past the deadline.
                return Err(give_up(maybe_applied, last.unwrap_or_else(late)));
            }
            let sent = async {
                match prepared.as_slice() {
                    [(_, p)] if !matches!(p.kind, Kind::Check) => {
                        self.single(p, maybe_applied).await
                    }
                    _ => self.transact(&prepared, maybe_applied).await,
                }
            };
            let result = match self.deadline {
                // Sent, and not answered by the deadline: it may have been applied.
                Some(deadline) => tokio::time::timeout_at(deadline, sent)
                    .await
                    .unwrap_or_else(|_| {
                        Err(Failure::Retry {
                            error: late(),
                            maybe_applied: true,
                            transport: true,
                        })
                    }),
                None => sent.await,
            };
            match result {
                Ok(()) => {
                    self.meter_writes(&prepared);
                    return Ok(());
                }
                Err(Failure::Condition(at, current)) => {
                    return Err(BackendError::ConditionFailed {
                        index: prepared[at].0,
                        current,
                    })
                }
                Err(Failure::Fatal(e)) => return Err(give_up(maybe_applied, e)),
                Err(Failure::Retry {
                    error,
                    maybe_applied: applied,
                    transport,
                }) => {
                    maybe_applied |= applied;
                    transport_failures += u32::from(transport);
                    if transport_failures >= TRANSPORT_ATTEMPTS || self.past_deadline() {
                        return Err(give_up(maybe_applied, error));
                    }
                    last = Some(error);
                    let pause = tokio::time::sleep(BACKOFF.pause(attempt));
                    match self.deadline {
                        Some(deadline) => {
                            let _ = tokio::time::timeout_at(deadline, pause).await;
                        }
                        None => pause.await,
                    }
                }
            }
        }
        Err(give_up(
            maybe_applied,
            last.unwrap_or_else(|| BackendError::storage("DynamoDB write retries exhausted")),
        ))
    }

    /// Records what a successful batch cost (see [`super::cost`]).
    fn meter_writes(&self, prepared: &[(usize, Prepared)]) {
        if self.meter.is_none() {
            return;
        }
        let units = |p: &Prepared| match &p.kind {
            Kind::Put(item) => super::cost::write_units(attrs::billed_size(item)),
            Kind::Delete | Kind::Check => 1.0,
        };
        match prepared {
            [(_, p)] if !matches!(p.kind, Kind::Check) => {
                let op = match p.kind {
                    Kind::Put(_) => "PutItem",
                    _ => "DeleteItem",
                };
                self.meter(op, units(p), 0.0);
            }
            _ => {
                let total = prepared.iter().map(|(_, p)| 2.0 * units(p)).sum();
                self.meter("TransactWriteItems", total, 0.0);
            }
        }
    }

    /// One put or delete: `PutItem`/`DeleteItem`, one request.
    async fn single(&self, p: &Prepared, maybe_applied: bool) -> Result<(), Failure> {
        let all_old = ReturnValuesOnConditionCheckFailure::AllOld;
        let (expr, values) = match &p.condition {
            Some((e, v)) => (Some(e.clone()), v.clone()),
            None => (None, None),
        };
        let condition_failed = |item: Option<&HashMap<String, AttributeValue>>| {
            if maybe_applied && self.is_own_put(p, item) {
                return Ok(());
            }
            match item.map(attrs::version).transpose() {
                Ok(v) => Err(Failure::Condition(0, v.flatten())),
                Err(e) => Err(Failure::Fatal(e)),
            }
        };
        match &p.kind {
            Kind::Put(item) => {
                let sent = self
                    .client
                    .put_item()
                    .table_name(self.table.as_ref())
                    .set_item(Some(item.clone()))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .return_values_on_condition_check_failure(all_old)
                    .set_return_values(self.metering_gsis().then_some(ReturnValue::AllOld))
                    .customize()
                    .config_override(no_sdk_retries())
                    .send()
                    .await;
                let old = sent.as_ref().ok().and_then(|o| o.attributes().cloned());
                let outcome = single_outcome("PutItem", sent, |e| match e {
                    PutItemError::ConditionalCheckFailedException(c) => {
                        Some(condition_failed(c.item()))
                    }
                    _ => None,
                });
                if outcome.is_ok() {
                    self.meter_gsi_writes(old.as_ref(), Some(item));
                }
                outcome
            }
            Kind::Delete => {
                let sent = self
                    .client
                    .delete_item()
                    .table_name(self.table.as_ref())
                    .set_key(Some(key_attrs(&p.key)))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .return_values_on_condition_check_failure(all_old)
                    .set_return_values(self.metering_gsis().then_some(ReturnValue::AllOld))
                    .customize()
                    .config_override(no_sdk_retries())
                    .send()
                    .await;
                let old = sent.as_ref().ok().and_then(|o| o.attributes().cloned());
                let outcome = single_outcome("DeleteItem", sent, |e| match e {
                    DeleteItemError::ConditionalCheckFailedException(c) => {
                        Some(condition_failed(c.item()))
                    }
                    _ => None,
                });
                if outcome.is_ok() {
                    self.meter_gsi_writes(old.as_ref(), None);
                }
                outcome
            }
            Kind::Check => unreachable!("a lone check goes through transact"),
        }
    }

    /// Whether single writes ask for the item they replace, to cost their GSI writes: only
    /// when metered and the table keeps indexes (the old item is free to return, but not
    /// to transfer).
    fn metering_gsis(&self) -> bool {
        self.meter.is_some() && !self.kept.is_empty()
    }

    /// Records the GSI writes a single write of `new` over `old` (`None`: absent) made, by
    /// AWS's rules: per kept index, an item entering or leaving the GSI is one write of its
    /// projected size, an item whose GSI key changes is two (a delete and a put), and one
    /// whose key stays is one write of the larger projected size, none for a keys-only GSI
    /// (no projected attribute changed).
    fn meter_gsi_writes(
        &self,
        old: Option<&HashMap<String, AttributeValue>>,
        new: Option<&HashMap<String, AttributeValue>>,
    ) {
        let Some(meter) = &self.meter else {
            return;
        };
        let mut units = 0.0;
        for index in self.kept.iter() {
            let keys_only = index.keys_only;
            let (pk, sk) = (&index.pk, &index.sk);
            let projected = |item: &HashMap<String, AttributeValue>| match keys_only {
                true => [PK, SK, pk.as_str(), sk.as_str()]
                    .iter()
                    .filter_map(|a| item.get(*a).map(|v| (*a, v)))
                    .map(|(a, v)| a.len() + attrs::billed_value_size(v))
                    .sum(),
                false => attrs::billed_size(item),
            };
            /// An item and its GSI key attribute values.
            type Keyed<'a> = (
                &'a HashMap<String, AttributeValue>,
                (&'a AttributeValue, &'a AttributeValue),
            );
            fn key_of<'a>(
                item: Option<&'a HashMap<String, AttributeValue>>,
                pk: &str,
                sk: &str,
            ) -> Option<Keyed<'a>> {
                let i = item?;
                Some((i, (i.get(pk)?, i.get(sk)?)))
            }
            units += match (key_of(old, pk, sk), key_of(new, pk, sk)) {
                (None, None) => 0.0,
                (None, Some((i, _))) | (Some((i, _)), None) => {
                    super::cost::write_units(projected(i))
                }
                (Some((o, a)), Some((n, b))) if a == b => match keys_only {
                    true => 0.0,
                    false => super::cost::write_units(projected(o).max(projected(n))),
                },
                (Some((o, _)), Some((n, _))) => {
                    super::cost::write_units(projected(o)) + super::cost::write_units(projected(n))
                }
            };
        }
        if units > 0.0 {
            meter.record_units("GSI writes", units, 0.0);
        }
    }

    /// Several writes (or a check): one `TransactWriteItems`.
    async fn transact(
        &self,
        prepared: &[(usize, Prepared)],
        maybe_applied: bool,
    ) -> Result<(), Failure> {
        let items = prepared
            .iter()
            .map(|(_, p)| self.transact_item(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::Fatal)?;
        let sent = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .customize()
            .config_override(no_sdk_retries())
            .send()
            .await;
        let err = match sent {
            Ok(_) => return Ok(()),
            Err(SdkError::ServiceError(e)) => e.into_err(),
            Err(e) => return Err(transport_failure("TransactWriteItems", e)),
        };
        let TransactWriteItemsError::TransactionCanceledException(cancel) = err else {
            let retry = is_throttling(&err)
                || matches!(
                    err,
                    TransactWriteItemsError::TransactionInProgressException(_)
                );
            return Err(classify(&err.to_string(), retry, err));
        };
        let reasons = cancel.cancellation_reasons();
        if maybe_applied && self.applied_before(prepared, reasons) {
            return Ok(());
        }
        for (at, reason) in reasons.iter().enumerate() {
            if reason.code() == Some("ConditionalCheckFailed") {
                let current = reason.item().map(attrs::version).transpose();
                return match current {
                    Ok(v) => Err(Failure::Condition(at, v.flatten())),
                    Err(e) => Err(Failure::Fatal(e)),
                };
            }
        }
        let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code()).collect();
        let retry = codes.iter().all(|c| {
            matches!(
                *c,
                "None"
                    | "TransactionConflict"
                    | "ThrottlingError"
                    | "ProvisionedThroughputExceeded"
                    | "RequestLimitExceeded"
            )
        });
        let e = BackendError::storage(format!(
            "DynamoDB TransactWriteItems cancelled: {codes:?} ({})",
            cancel.message().unwrap_or_default()
        ));
        Err(if retry {
            Failure::Retry {
                error: e,
                maybe_applied: false,
                transport: false,
            }
        } else {
            Failure::Fatal(e)
        })
    }

    /// Whether the record `current` that failed `p`'s condition is the one `p` puts. Asked
    /// only after an attempt that may have been applied (an `InternalServerError`, which
    /// AWS documents as possibly applied, or a request whose answer never came), when
    /// [`DynamoDbBackend::write_batch`] sent the request again: every put the store makes
    /// has a condition, so the second attempt fails against the first one's record, which
    /// the store would take for another writer's and plan the write again (an `update`
    /// applied twice, an only-if-absent put refused after it wrote). Never asked otherwise:
    /// two writers that compute the same record from the same version (two increments of
    /// a counter) write identical records, and the loser must read again.
    fn is_own_put(&self, p: &Prepared, current: Option<&HashMap<String, AttributeValue>>) -> bool {
        let (Kind::Put(item), Some(current)) = (&p.kind, current) else {
            return false;
        };
        match (
            readback::read(item, &self.kept, ReadAs::Record),
            readback::read(current, &self.kept, ReadAs::Record),
        ) {
            (Ok(sent), Ok(found)) => sent == found,
            _ => false,
        }
    }

    /// Whether a cancelled transaction had been applied by an earlier attempt (see
    /// [`Self::is_own_put`]): every conditional put failed against exactly its own record,
    /// every conditional delete against no record, and there was at least one such put.
    fn applied_before(
        &self,
        prepared: &[(usize, Prepared)],
        reasons: &[CancellationReason],
    ) -> bool {
        if reasons.len() != prepared.len() {
            return false;
        }
        let mut puts = 0;
        for ((_, p), reason) in prepared.iter().zip(reasons) {
            if p.condition.is_none() || matches!(p.kind, Kind::Check) {
                continue;
            }
            if reason.code() != Some("ConditionalCheckFailed") {
                return false;
            }
            match p.kind {
                Kind::Put(_) if self.is_own_put(p, reason.item()) => puts += 1,
                Kind::Delete if reason.item().is_none() => {}
                _ => return false,
            }
        }
        puts > 0
    }

    fn transact_item(&self, p: &Prepared) -> Result<TransactWriteItem, BackendError> {
        let all_old = ReturnValuesOnConditionCheckFailure::AllOld;
        let build = |e: aws_sdk_dynamodb::error::BuildError| BackendError::storage(e);
        let (expr, values) = match &p.condition {
            Some((e, v)) => (Some(e.clone()), v.clone()),
            None => (None, None),
        };
        let table = self.table.to_string();
        let item = match &p.kind {
            Kind::Put(item) => TransactWriteItem::builder().put(
                Put::builder()
                    .table_name(table)
                    .set_item(Some(item.clone()))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .return_values_on_condition_check_failure(all_old)
                    .build()
                    .map_err(build)?,
            ),
            Kind::Delete => TransactWriteItem::builder().delete(
                Delete::builder()
                    .table_name(table)
                    .set_key(Some(key_attrs(&p.key)))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .return_values_on_condition_check_failure(all_old)
                    .build()
                    .map_err(build)?,
            ),
            Kind::Check => TransactWriteItem::builder().condition_check(
                ConditionCheck::builder()
                    .table_name(table)
                    .set_key(Some(key_attrs(&p.key)))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .return_values_on_condition_check_failure(all_old)
                    .build()
                    .map_err(build)?,
            ),
        };
        Ok(item.build())
    }
}

/// What a `PutItem` or `DeleteItem` request came to: done, its condition failed
/// (`conditional` recognizes that error of the operation and reads the current record from
/// it: the write's own record means done), or another failure, retried if DynamoDB says it
/// may be.
fn single_outcome<O, E>(
    operation: &str,
    sent: Result<O, SdkError<E, HttpResponse>>,
    conditional: impl FnOnce(&E) -> Option<Result<(), Failure>>,
) -> Result<(), Failure>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    match sent {
        Ok(_) => Ok(()),
        Err(SdkError::ServiceError(e)) => {
            let err = e.into_err();
            conditional(&err)
                .unwrap_or_else(|| Err(classify(&err.to_string(), is_throttling(&err), err)))
        }
        Err(e) => Err(transport_failure(operation, e)),
    }
}

/// A request that got no answer from DynamoDB: sent or not, its answer lost or late (an I/O
/// error, a timeout, a cut or unreadable answer: retried, as possibly applied, as the SDK's
/// standard retries would), or a failure before it left (fatal).
fn transport_failure<E>(operation: &str, e: SdkError<E, HttpResponse>) -> Failure
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let retry = match &e {
        SdkError::DispatchFailure(d) => {
            d.is_io()
                || d.is_timeout()
                || d.as_other() == Some(aws_smithy_types::retry::ErrorKind::TransientError)
        }
        SdkError::TimeoutError(_) | SdkError::ResponseError(_) => true,
        _ => false,
    };
    let error = sdk_error(operation, e);
    match retry {
        true => Failure::Retry {
            error,
            maybe_applied: true,
            transport: true,
        },
        false => Failure::Fatal(error),
    }
}

/// A service error: retried if `retry` (throttling, a server error, a transaction in
/// progress), as possibly applied if DynamoDB says so (`InternalServerError`).
fn classify(
    message: &str,
    retry: bool,
    err: impl std::error::Error + ProvideErrorMetadata + Send + Sync + 'static,
) -> Failure {
    let maybe_applied = err.code() == Some("InternalServerError");
    let e = BackendError::storage(format!("DynamoDB: {message}: {err:?}"));
    if retry {
        Failure::Retry {
            error: e,
            maybe_applied,
            transport: false,
        }
    } else {
        Failure::Fatal(e)
    }
}
