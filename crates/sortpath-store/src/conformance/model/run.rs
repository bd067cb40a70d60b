//! Running operations on a store beside the model, and comparing their answers.

use super::*;

impl Model {
    /// Runs `op` on the store, checks its result against the model and moves the model on.
    ///
    /// Panics, naming `step` and the operation, if the store's answer differs from the
    /// model's. A backend error ([`StoreError::backend`]) is returned and leaves the model
    /// as it was: the caller decides what the store should hold then (see [`Model::after`]).
    ///
    /// ```
    /// use sortpath_store::conformance::model::{Model, Op};
    /// use sortpath_store::{backend::memory::MemoryBackend, Store};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// let mut m = Model::new(0);
    /// m.run_op(&store, &Op::Delete { owner: 0, id: 0 }, 0).await.unwrap();
    /// # });
    /// ```
    pub async fn run_op<B: Backend>(
        &mut self,
        store: &Store<B>,
        op: &Op,
        step: usize,
    ) -> Result<(), StoreError> {
        let plan = self.plan(op);
        match self.execute(store, op, plan.interference.as_ref()).await {
            Ok((got, interfered)) => {
                let mut plan = plan;
                // Learn the versions the store drew for new items from its answer.
                let mut learnt = BTreeMap::new();
                let mut learn = |model_v: u64, store_v: u64| {
                    if let Some((j, plus)) = unknown_parts(model_v) {
                        learnt.entry(j).or_insert(store_v.wrapping_sub(plus));
                    }
                };
                match (&plan.expected, &got) {
                    (Outcome::Put(Ok(m)), Outcome::Put(Ok(g))) => learn(*m, *g),
                    (Outcome::Txn(_, Ok(m)), Outcome::Txn(_, Ok(g))) => {
                        for (k, mv) in m {
                            if let (Some(mv), Some(Some(gv))) = (mv, g.get(k)) {
                                learn(*mv, *gv);
                            }
                        }
                    }
                    _ => {}
                }
                if let (Some(t), Some(gv)) = (&plan.interference, interfered) {
                    let k = t.key_path().map_err(invalid)?;
                    if let Some(mv) = plan.next.version(&k) {
                        learn(mv, gv);
                    }
                }
                plan.next = plan.next.learn(&learnt);
                plan.expected = plan.expected.learn(&learnt);
                if got != plan.expected {
                    panic!(
                        "model: step {step}: {op:?}: the store returned\n  {got:?}\nthe model expected\n  {:?}",
                        plan.expected
                    );
                }
                *self = plan.next;
                Ok(())
            }
            Err(e) if e.backend().is_some() => Err(e),
            Err(e) => panic!("model: step {step}: {op:?}: unexpected error: {e}"),
        }
    }

    /// Runs `op` on the store. Refusals the model predicts become outcomes; other errors
    /// are returned.
    async fn execute<B: Backend>(
        &self,
        store: &Store<B>,
        op: &Op,
        interference: Option<&Ticket>,
    ) -> Result<(Outcome, Option<u64>), StoreError> {
        let mut interfered = None;
        let outcome = match op {
            Op::Put { ticket, kind } => {
                let t = self.place(ticket);
                let current = self.version(&t.key_path().map_err(invalid)?);
                let mode = match kind {
                    PutKind::Upsert => PutMode::Upsert,
                    PutKind::IfAbsent => PutMode::IfAbsent,
                    PutKind::IfVersionCurrent => PutMode::IfVersion(current.unwrap_or(0)),
                    PutKind::IfVersionStale => PutMode::IfVersion(current.map_or(5, |v| v + 1)),
                };
                Outcome::Put(match store.put_with(&t, mode).await {
                    Ok(v) => Ok(v),
                    Err(WriteError::AlreadyExists { .. }) => Err(Refused::AlreadyExists),
                    Err(WriteError::VersionMismatch { .. }) => Err(Refused::VersionMismatch),
                    Err(e) => return Err(e.into()),
                })
            }
            Op::Delete { owner, id } => {
                Outcome::Deleted(store.delete(&self.key(*owner, *id)).await?)
            }
            Op::DeleteIfVersion { owner, id, current } => {
                let k = self.key(*owner, *id);
                let v = self.version(&k);
                let v = if *current {
                    v.unwrap_or(0)
                } else {
                    v.map_or(3, |v| v + 2)
                };
                match store.delete_if_version(&k, v).await {
                    Ok(()) => Outcome::DeletedIf(true),
                    Err(WriteError::VersionMismatch { .. }) => Outcome::DeletedIf(false),
                    Err(e) => return Err(e.into()),
                }
            }
            Op::Update {
                owner,
                id,
                updated_at,
                status,
            } => {
                let got = store
                    .update(&self.key(*owner, *id), |t: Option<Ticket>| {
                        t.map(|t| Ticket {
                            updated_at: *updated_at,
                            status: status.clone(),
                            ..t
                        })
                    })
                    .await?;
                Outcome::Updated(got.map(|v| (v.item, v.version)))
            }
            Op::Txn {
                reads,
                puts,
                deletes,
                ..
            } => {
                let mut txn = store.transaction();
                let mut seen = Vec::new();
                for &(o, i) in reads {
                    let got = txn.get::<Ticket>(&self.key(o, i)).await?;
                    seen.push(got.map(|v| (v.item, v.version)));
                }
                if let Some(t) = interference {
                    interfered = Some(store.put(t).await?);
                }
                for t in puts {
                    txn.put(&self.place(t))?;
                }
                for &(o, i) in deletes {
                    txn.delete(&self.key(o, i))?;
                }
                match txn.commit().await {
                    Ok(versions) => Outcome::Txn(seen, Ok(versions)),
                    Err(CommitError::Conflict { key }) => Outcome::Txn(seen, Err(key)),
                    Err(e) => return Err(e.into()),
                }
            }
            Op::List {
                owner,
                range,
                reverse,
                limit,
            } => {
                let parent = KeyPath::new()
                    .push("user", self.owner(*owner))
                    .map_err(invalid)?;
                let mut q = match range {
                    Some((a, b)) => Query::between(
                        &parent,
                        "ticket",
                        Bound::Included(Id::from(*a)),
                        Bound::Excluded(Id::from(*b)),
                    )?,
                    None => Query::prefix(&parent)?,
                };
                if *reverse {
                    q = q.reverse();
                }
                Outcome::Listed(page_all(store, None, q, *limit).await?)
            }
            Op::ByUpdated {
                from,
                reverse,
                limit,
            } => {
                let group = KeyPath::new()
                    .push("tickets", self.space)
                    .map_err(invalid)?;
                let mut q = Query::prefix(&group)?;
                if let Some(f) = from {
                    q = q.gte(&group.clone().push("updated", *f).map_err(invalid)?)?;
                }
                if *reverse {
                    q = q.reverse();
                }
                Outcome::Listed(page_all(store, Some("by_updated"), q, *limit).await?)
            }
            Op::ByStatus {
                status,
                reverse,
                limit,
            } => {
                let group = KeyPath::new()
                    .push("status", status_id(self.space, status).as_str())
                    .map_err(invalid)?;
                let mut q = Query::prefix(&group)?;
                if *reverse {
                    q = q.reverse();
                }
                Outcome::Listed(page_all(store, Some("by_status"), q, *limit).await?)
            }
        };
        Ok((outcome, interfered))
    }

    /// Runs every operation with [`Model::run_op`], checking the backend with
    /// [`Model::check`] after each; a backend error panics.
    ///
    /// ```
    /// use sortpath_store::conformance::model::{random_ops, Model};
    /// use sortpath_store::{backend::memory::MemoryBackend, Store};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let store = Store::new(MemoryBackend::new());
    /// let mut m = Model::new(0);
    /// m.run(&store, &random_ops(1, 10)).await;
    /// # });
    /// ```
    pub async fn run<B: Backend>(&mut self, store: &Store<B>, ops: &[Op]) {
        for (step, op) in ops.iter().enumerate() {
            if let Err(e) = self.run_op(store, op, step).await {
                panic!("model: step {step}: {op:?}: {e}");
            }
            self.check(store.backend(), &format!("step {step}: {op:?}"))
                .await;
        }
    }
}

/// Runs `ops` on `store` (which must hold nothing in space 0's groups) against a fresh
/// [`Model`] of space 0, checking results and the exact backend records after every step;
/// panics with the step and operation on the first divergence. Returns the final model.
///
/// ```
/// use sortpath_store::conformance::model::{ops_from_bytes, run_ops};
/// use sortpath_store::{backend::memory::MemoryBackend, Store};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = run_ops(&Store::new(MemoryBackend::new()), &ops_from_bytes(b"any bytes at all")).await;
/// # let _ = model;
/// # });
/// ```
pub async fn run_ops<B: Backend>(store: &Store<B>, ops: &[Op]) -> Model {
    // A model of the store's kind: with group counters if its configuration keeps them.
    let counted = match store.config().await {
        Ok(config) => config.group_versions,
        Err(e) => panic!("model: reading the store's configuration: {e}"),
    };
    let mut model = if counted {
        Model::counted(0)
    } else {
        Model::new(0)
    };
    model.run(store, ops).await;
    model
}

/// Pages through a list or index query, checking that only full pages carry a cursor.
async fn page_all<B: Backend>(
    store: &Store<B>,
    index: Option<&str>,
    q: Query,
    limit: usize,
) -> Result<Vec<(KeyPath, Ticket, u64)>, StoreError> {
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..1000 {
        let mut page_q = q.clone().limit(limit);
        if let Some(c) = cursor.take() {
            page_q = page_q.after(c);
        }
        let page = match index {
            Some(name) => store.query_index::<Ticket>(name, &page_q).await?,
            None => store.list::<Ticket>(&page_q).await?,
        };
        assert!(
            page.items.len() <= limit,
            "model: a page of {} items for a limit of {limit}",
            page.items.len()
        );
        if page.cursor.is_some() {
            assert_eq!(
                page.items.len(),
                limit,
                "model: a cursor comes only with a full page"
            );
        }
        out.extend(page.items.into_iter().map(|v| (v.key, v.item, v.version)));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
    panic!("model: paging did not end");
}
