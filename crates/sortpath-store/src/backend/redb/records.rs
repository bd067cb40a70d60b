//! The [`Backend`] calls over the records table: reads, scans, atomic conditional writes.

use super::*;

/// Folds `records` into `acc` with `fold`, each run as the caller's code, up to the first
/// record whose `(group, sort key)` is not `within` the scan.
fn fold_records<'a, A, E, F>(
    records: impl Iterator<
        Item = Result<
            (
                redb::AccessGuard<'a, RecordKey>,
                redb::AccessGuard<'a, RecordValue>,
            ),
            redb::StorageError,
        >,
    >,
    within: impl Fn(&[u8], &[u8]) -> bool,
    caller: &mut CallerCode,
    acc: &mut A,
    fold: &mut F,
) -> Result<(), E>
where
    E: From<BackendError>,
    F: FnMut(&mut A, &[u8], u64, &[u8]) -> Result<(), E>,
{
    let mut records = records;
    loop {
        // Read where the iterator put it: moving the guards out copies them whole.
        let record = records.next();
        let (k, v) = match &record {
            None => break,
            Some(Ok(guards)) => guards,
            Some(Err(_)) => return Err(record_error(record).into()),
        };
        let (group, sort) = k.value();
        if !within(group, sort) {
            break;
        }
        let (version, value) = v.value();
        caller.run(|| fold(acc, sort, version, value))?;
    }
    Ok(())
}

/// The storage error of a record a scan could not read.
#[cold]
fn record_error<T>(record: Option<Result<T, redb::StorageError>>) -> BackendError {
    match record {
        Some(Err(e)) => storage(e),
        _ => unreachable!("called with a record that is an error"),
    }
}

/// Checks every condition of `writes` against `table`'s state, then applies them all, or
/// none if a condition fails ([`BackendError::ConditionFailed`] names the first).
///
/// `read` holds versions read earlier in the same write transaction, sorted by key; a key
/// found there is not read again: no other writer can come into the transaction, and every
/// condition is checked before the first write of the batch (keep the two loops apart). A
/// write with [`Condition::None`] reads nothing.
fn apply_writes(
    table: &mut redb::Table<RecordKey, RecordValue>,
    writes: &[Write],
    read: &[(&Key, Option<u64>)],
) -> Result<(), BackendError> {
    for (index, w) in writes.iter().enumerate() {
        let condition = w.condition();
        if condition == Condition::None {
            continue;
        }
        let k = w.key();
        let current = match read.binary_search_by(|(r, _)| (*r).cmp(k)) {
            Ok(at) => read[at].1,
            Err(_) => table
                .get(record_key(k))
                .map_err(storage)?
                .map(|g| g.value().0),
        };
        if !condition.holds(current) {
            return Err(BackendError::ConditionFailed { index, current });
        }
    }
    for w in writes {
        match w {
            Write::Put { key, record, .. } | Write::PutItem { key, record, .. } => {
                table
                    .insert(record_key(key), (record.version, record.value.as_slice()))
                    .map_err(storage)?;
            }
            Write::Delete { key, .. } => {
                table.remove(record_key(key)).map_err(storage)?;
            }
            Write::Check { .. } => {}
        }
    }
    Ok(())
}

/// A scan's bound, prepared for the comparison with every record's sort key.
fn as_far_bound(b: &Bound<Vec<u8>>) -> Bound<FarBound<'_>> {
    as_slices(b).map(FarBound::new)
}

fn as_slices(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Backend for RedbBackend {
    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        RedbBackend::groups(self, from).await
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        Ok(self.batch_get(vec![key]).await?.pop().flatten())
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        self.batch_get_map(keys, |_, version, value| {
            Ok::<_, BackendError>(Record {
                value: value.to_vec(),
                version,
            })
        })
        .await
    }

    /// Runs `map` inside the read transaction (where [`Threads`] says), over the bytes redb
    /// lends, like [`RedbBackend::scan_fold`]; a panic in `map` is resumed in the calling task.
    async fn batch_get_map<T, E, F>(&self, keys: Vec<Key>, mut map: F) -> Result<Vec<Option<T>>, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(usize, u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.blocking_calling(Work::Read(keys.len()), move |db, caller| {
            let table = db.snapshot()?;
            let mut out = Vec::with_capacity(keys.len());
            for (slot, k) in keys.iter().enumerate() {
                let got = table.get(record_key(k)).map_err(storage)?;
                out.push(match got {
                    Some(got) => {
                        let (version, value) = got.value();
                        Some(caller.run(|| map(slot, version, value))?)
                    }
                    None => None,
                });
            }
            Ok(out)
        })
        .await
    }

    /// One key's read, without the vectors of a batch around it.
    async fn get_map_with<T, E, F>(
        &self,
        key: Key,
        _consistency: crate::backend::Consistency,
        mut map: F,
    ) -> Result<Option<T>, E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(u64, &[u8]) -> Result<T, E> + Send + 'static,
    {
        self.blocking_calling(Work::Read(1), move |db, caller| {
            let table = db.snapshot()?;
            match table.get(record_key(&key)).map_err(storage)? {
                Some(got) => {
                    let (version, value) = got.value();
                    Ok(Some(caller.run(|| map(version, value))?))
                }
                None => Ok(None),
            }
        })
        .await
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        self.scan_map(scan, |sort, version, value| {
            Ok::<_, BackendError>(Entry {
                sort: sort.to_vec(),
                record: Record {
                    value: value.to_vec(),
                    version,
                },
            })
        })
        .await
    }

    /// Runs `fold` inside the read transaction (where [`Threads`] says), over the bytes redb
    /// lends: records are not copied unless `fold` copies them. A panic in `fold` (the
    /// caller's code, e.g. a `Deserialize` impl) is resumed in the calling task, as if `fold`
    /// had run there, rather than reported as a failure of the store file.
    async fn scan_fold<A, E, F>(&self, scan: Scan, mut acc: A, mut fold: F) -> Result<A, E>
    where
        A: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnMut(&mut A, &[u8], u64, &[u8]) -> Result<(), E> + Send + 'static,
    {
        let limit = scan.limit.unwrap_or(usize::MAX);
        if limit == 0 || scan.is_empty_range() {
            return Ok(acc);
        }
        self.blocking_calling(Work::Read(limit), move |db, caller| {
            let table = db.snapshot()?;
            let g = scan.group.as_slice();
            // `group ++ [0x00]` is the next group in byte order: excluding it ends `group`.
            let next_group: Vec<u8>;
            let lower: Bound<(&[u8], &[u8])> = match as_slices(&scan.start) {
                Bound::Included(s) => Bound::Included((g, s)),
                Bound::Excluded(s) => Bound::Excluded((g, s)),
                Bound::Unbounded => Bound::Included((g, &[])),
            };
            let upper: Bound<(&[u8], &[u8])> = match as_slices(&scan.end) {
                Bound::Included(e) => Bound::Included((g, e)),
                Bound::Excluded(e) => Bound::Excluded((g, e)),
                Bound::Unbounded => {
                    next_group = [g, &[0u8]].concat();
                    Bound::Excluded((next_group.as_slice(), &[]))
                }
            };
            // redb checks every record it returns against the range's far bound by comparing
            // tuple keys (both elements' lengths read again): the range is left open on that
            // side instead, and the fold stops at the first record past the bound, checked
            // on the group and sort key it reads anyway.
            match scan.order {
                Order::Ascending => {
                    let range = table
                        .range::<(&[u8], &[u8])>((lower, Bound::Unbounded))
                        .map_err(storage)?;
                    let end = as_far_bound(&scan.end);
                    let within = |group: &[u8], sort: &[u8]| {
                        same_group(group, g)
                            && match end {
                                Bound::Included(e) => e.cmp(sort).is_le(),
                                Bound::Excluded(e) => e.cmp(sort).is_lt(),
                                Bound::Unbounded => true,
                            }
                    };
                    fold_records(range.take(limit), within, caller, &mut acc, &mut fold)?
                }
                Order::Descending => {
                    let range = table
                        .range::<(&[u8], &[u8])>((Bound::Unbounded, upper))
                        .map_err(storage)?;
                    let start = as_far_bound(&scan.start);
                    let within = |group: &[u8], sort: &[u8]| {
                        same_group(group, g)
                            && match start {
                                Bound::Included(s) => s.cmp(sort).is_ge(),
                                Bound::Excluded(s) => s.cmp(sort).is_gt(),
                                Bound::Unbounded => true,
                            }
                    };
                    fold_records(range.rev().take(limit), within, caller, &mut acc, &mut fold)?
                }
            }
            Ok(acc)
        })
        .await
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        if let Some((first, second)) = duplicate_key(&writes) {
            return Err(BackendError::DuplicateKey { first, second });
        }
        if writes.is_empty() {
            return Ok(());
        }
        self.blocking(Work::Write, move |db| {
            let txn = db.begin_write()?;
            {
                let mut table = txn.open_table(RECORDS).map_err(storage)?;
                apply_writes(&mut table, &writes, &[])?;
            }
            db.commit(txn)
        })
        .await
    }

    /// Reads, plans and writes in one write transaction (on the blocking pool unless
    /// [`Threads::Caller`]): one trip to the pool, and no other write can come between the
    /// reads and the writes. A panic in
    /// `plan` is resumed in the calling task.
    async fn read_then_write<T, E, F>(
        &self,
        keys: Vec<Key>,
        plan: F,
    ) -> Result<(T, Result<(), BackendError>), E>
    where
        T: Send + 'static,
        E: From<BackendError> + Send + 'static,
        F: FnOnce(Vec<Option<Record>>) -> Result<(Vec<Write>, T), E> + Send + 'static,
    {
        self.blocking_calling(Work::Write, move |db, caller| {
            let txn = db.begin_write()?;
            // One table for the reads and the writes.
            let mut table = txn.open_table(RECORDS).map_err(storage)?;
            let mut got = Vec::with_capacity(keys.len());
            for k in &keys {
                let record = table.get(record_key(k)).map_err(storage)?.map(|g| {
                    let (version, value) = g.value();
                    Record {
                        value: value.to_vec(),
                        version,
                    }
                });
                got.push(record);
            }
            let versions: Vec<Option<u64>> =
                got.iter().map(|r| r.as_ref().map(|r| r.version)).collect();
            let planned =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| caller.run(|| plan(got))));
            let (writes, made) = match planned {
                Ok(planned) => planned?,
                Err(panic) => {
                    // redb does not abort a write transaction dropped while its thread
                    // unwinds: end it here (nothing was written yet), then let the panic go
                    // on to the caller.
                    drop(table);
                    let _ = txn.abort();
                    std::panic::resume_unwind(panic)
                }
            };
            if writes.is_empty() {
                // Dropping the transaction unused ends it; nothing was written.
                return Ok((made, Ok(())));
            }
            if let Some((first, second)) = duplicate_key(&writes) {
                return Ok((made, Err(BackendError::DuplicateKey { first, second })));
            }
            // What was read, for the writes' conditions: the same transaction, so still true.
            let mut read: Vec<(&Key, Option<u64>)> = keys.iter().zip(versions).collect();
            read.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let applied = apply_writes(&mut table, &writes, &read);
            drop(table);
            let written = match applied {
                Ok(()) => db.commit(txn),
                // Dropping the uncommitted transaction discards it: nothing is written.
                Err(e) => Err(e),
            };
            Ok((made, written))
        })
        .await
    }
}
