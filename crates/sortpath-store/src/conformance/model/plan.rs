//! What the model predicts for one operation: its outcome and the model after it.

use super::*;

/// The model's prediction for one operation.
pub(super) struct Plan {
    pub(super) next: Model,
    pub(super) expected: Outcome,
    /// The interfering write of a conflicting transaction.
    pub(super) interference: Option<Ticket>,
}

impl Model {
    pub(super) fn listed<'a>(
        &'a self,
        keep: impl Fn(&KeyPath, &Ticket) -> bool + 'a,
    ) -> Vec<(KeyPath, Ticket, u64)> {
        self.items
            .iter()
            .filter(|(k, (t, _))| keep(k, t))
            .map(|(k, (t, v))| (k.clone(), t.clone(), *v))
            .collect()
    }

    /// What `op` should return and the model after it.
    pub(super) fn plan(&self, op: &Op) -> Plan {
        let mut next = self.clone();
        let mut interference = None;
        let expected = match op {
            Op::Put { ticket, kind } => {
                let t = self.place(ticket);
                let k = t.key_path().expect("model key paths are valid");
                let current = self.version(&k);
                let ok = match kind {
                    PutKind::Upsert => Ok(()),
                    PutKind::IfAbsent if current.is_none() => Ok(()),
                    PutKind::IfAbsent => Err(Refused::AlreadyExists),
                    PutKind::IfVersionCurrent if current.is_some() => Ok(()),
                    PutKind::IfVersionCurrent | PutKind::IfVersionStale => {
                        Err(Refused::VersionMismatch)
                    }
                };
                Outcome::Put(ok.map(|()| {
                    next.commit([(k.clone(), Some(t))].into());
                    next.version(&k).expect("just written")
                }))
            }
            Op::Delete { owner, id } => {
                let k = self.key(*owner, *id);
                next.commit([(k.clone(), None)].into());
                Outcome::Deleted(self.items.contains_key(&k))
            }
            Op::DeleteIfVersion { owner, id, current } => {
                let k = self.key(*owner, *id);
                let done = *current && self.items.contains_key(&k);
                if done {
                    next.commit([(k, None)].into());
                }
                Outcome::DeletedIf(done)
            }
            Op::Update {
                owner,
                id,
                updated_at,
                status,
            } => {
                let k = self.key(*owner, *id);
                match self.items.get(&k) {
                    Some((t, _)) => {
                        let t = Ticket {
                            updated_at: *updated_at,
                            status: status.clone(),
                            ..t.clone()
                        };
                        next.commit([(k.clone(), Some(t.clone()))].into());
                        Outcome::Updated(Some((t, next.version(&k).expect("just written"))))
                    }
                    None => Outcome::Updated(None),
                }
            }
            Op::Txn {
                reads,
                puts,
                deletes,
                interfere,
            } => {
                let keys: Vec<KeyPath> = reads.iter().map(|&(o, i)| self.key(o, i)).collect();
                let seen = keys.iter().map(|k| self.items.get(k).cloned()).collect();
                match keys.first().filter(|_| *interfere) {
                    Some(k) => {
                        let changed = match self.items.get(k) {
                            Some((t, _)) => Ticket {
                                title: format!("{}!", t.title),
                                ..t.clone()
                            },
                            None => Ticket {
                                owner: Self::owner_of(k),
                                id: match k.segments().nth(1).and_then(|c| c.id()) {
                                    Some(IdRef::Int(i)) => i.to_i128() as i64,
                                    other => panic!("model: unexpected ticket ID {other:?}"),
                                },
                                updated_at: 0,
                                status: None,
                                title: "!".into(),
                            },
                        };
                        next.commit([(k.clone(), Some(changed.clone()))].into());
                        interference = Some(changed);
                        Outcome::Txn(seen, Err(k.clone()))
                    }
                    None => {
                        let mut writes = BTreeMap::new();
                        for t in puts {
                            let t = self.place(t);
                            writes.insert(t.key_path().expect("valid"), Some(t));
                        }
                        for &(o, i) in deletes {
                            writes.insert(self.key(o, i), None);
                        }
                        let written: Vec<KeyPath> = writes.keys().cloned().collect();
                        next.commit(writes);
                        let versions = written
                            .into_iter()
                            .map(|k| {
                                let v = next.version(&k);
                                (k, v)
                            })
                            .collect();
                        Outcome::Txn(seen, Ok(versions))
                    }
                }
            }
            Op::List {
                owner,
                range,
                reverse,
                ..
            } => {
                let abs = self.owner(*owner);
                let mut got = self.listed(|k, t| {
                    Self::owner_of(k) == abs && range.is_none_or(|(a, b)| a <= t.id && t.id < b)
                });
                if *reverse {
                    got.reverse();
                }
                Outcome::Listed(got)
            }
            Op::ByUpdated { from, reverse, .. } => {
                // Index order: never updated (0, at the index group itself) first, then by
                // `updated_at`; a `from` bound (a longer index path) leaves the first out.
                let rank = |t: &Ticket| (t.updated_at != 0, t.updated_at);
                let mut got =
                    self.listed(|_, t| from.is_none_or(|f| t.updated_at != 0 && t.updated_at >= f));
                got.sort_by(|a, b| (rank(&a.1), &a.0).cmp(&(rank(&b.1), &b.0)));
                if *reverse {
                    got.reverse();
                }
                Outcome::Listed(got)
            }
            Op::ByStatus {
                status, reverse, ..
            } => {
                let mut got = self.listed(|_, t| t.status.as_deref() == Some(status.as_str()));
                got.sort_by(|a, b| (a.1.id, &a.0).cmp(&(b.1.id, &b.0)));
                if *reverse {
                    got.reverse();
                }
                Outcome::Listed(got)
            }
        };
        Plan {
            next,
            expected,
            interference,
        }
    }
}
