//! What to list: a group, a key path range inside it, a direction, a limit and a cursor.

use std::fmt;
use std::ops::Bound;
use std::sync::{Arc, OnceLock};

use sortpath::path::{IdType, Segment};
use sortpath::{Id, KeyPath, KeyRange};

use crate::cursor::{fnv1a, Cursor, FNV_OFFSET};
use crate::error::{InvalidKeyError, ListError};
use crate::layout::{escape_rest, AFTER_REST_END};
use sortpath::Order;

/// A list query over one group: of items ([`crate::Store::list`]) or of an index's entries
/// ([`crate::Store::query_index`]). Every query names its group (the first component of
/// the prefix, with its ID), as StatelyDB and DynamoDB queries do.
///
/// ```
/// use sortpath::KeyPath;
/// use sortpath_store::Query;
/// let p = |t: &str| t.parse::<KeyPath>().unwrap();
/// let timeline = Query::prefix(&p("/user-1"))?;                  // everything of user 1
/// let posts = Query::children(&p("/user-1"), "post")?.reverse();  // newest posts first
/// let some = Query::prefix(&p("/user-1/post"))?.gte(&p("/user-1/post-10"))?.limit(20);
/// assert!(Query::prefix(&p("/user")).is_err()); // no group ID
/// # Ok::<(), sortpath_store::ListError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Query {
    pub(crate) group: KeyPath,
    pub(crate) constraints: Vec<Constraint>,
    pub(crate) direction: Order,
    pub(crate) limit: Option<usize>,
    pub(crate) cursor: Option<Cursor>,
    /// `None`: the index's own (strong, or eventual for an index the table keeps).
    pub(crate) consistency: Option<crate::backend::Consistency>,
    /// Made from `group` and `constraints` when the query first lists items; a change to
    /// the constraints starts it afresh.
    list_plan: PlanCache,
}

impl fmt::Debug for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("group", &self.group)
            .field("constraints", &self.constraints)
            .field("direction", &self.direction)
            .field("limit", &self.limit)
            .field("cursor", &self.cursor)
            .field("consistency", &self.consistency)
            .finish()
    }
}

/// What an item list needs of its query that stays the same from run to run: the group
/// (as a path and encoded) and the plan. A query listed again (page after page, or the
/// same list polled) reuses it instead of building it again.
#[derive(Debug)]
pub(crate) struct ListPlan {
    pub group: KeyPath,
    pub group_bytes: Vec<u8>,
    pub plan: Plan,
    /// The sort key of the group's root item the plan was made with.
    pub root_sort: Vec<u8>,
}

/// A query's [`ListPlan`], once made. Derived from the query's other fields, so it takes
/// no part in comparing queries.
#[derive(Clone, Default)]
struct PlanCache(OnceLock<Arc<ListPlan>>);

impl PartialEq for PlanCache {
    fn eq(&self, _: &PlanCache) -> bool {
        true
    }
}

impl Eq for PlanCache {}

/// One restriction on the paths after the group (the sort-key paths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Constraint {
    Subtree(KeyPath),
    Children {
        parent: KeyPath,
        namespace: String,
        lower: Bound<Id>,
        upper: Bound<Id>,
    },
    Lower(Bound<KeyPath>),
    Upper(Bound<KeyPath>),
    /// From the group's root item on, wherever the store places it.
    FromRoot,
    /// Up to the group's root item, wherever the store places it.
    ToRoot,
}

impl Constraint {
    /// Whether any path or ID bound of the constraint has a UUID ID.
    fn names_uuid(&self) -> bool {
        let path = |p: &KeyPath| has_uuid(p.segments());
        let bound_path = |b: &Bound<KeyPath>| match b {
            Bound::Included(p) | Bound::Excluded(p) => path(p),
            Bound::Unbounded => false,
        };
        let bound_id = |b: &Bound<Id>| match b {
            Bound::Included(id) | Bound::Excluded(id) => is_uuid(id),
            Bound::Unbounded => false,
        };
        match self {
            Constraint::Subtree(p) => path(p),
            Constraint::Children {
                parent,
                lower,
                upper,
                ..
            } => path(parent) || bound_id(lower) || bound_id(upper),
            Constraint::Lower(b) | Constraint::Upper(b) => bound_path(b),
            Constraint::FromRoot | Constraint::ToRoot => false,
        }
    }
}

fn is_uuid(id: &Id) -> bool {
    matches!(id, Id::Uuid(_))
}

/// Whether any of `segments` has a UUID ID.
#[inline]
fn has_uuid<'a>(mut segments: impl Iterator<Item = Segment<'a>>) -> bool {
    segments.any(|c| c.id_type() == Some(IdType::Uuid))
}

fn split(path: &KeyPath) -> Result<(KeyPath, KeyPath), ListError> {
    path.split_group_paths()
        .map_err(|e| InvalidKeyError::path(path.to_string(), e).into())
}

impl Query {
    /// Every item whose path starts with `prefix` (the item itself and its descendants; for a
    /// namespace-only last component such as `/user-1/post`, every post of user 1).
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/user-1/post".parse().unwrap());
    /// assert!(q.is_ok());
    /// ```
    pub fn prefix(prefix: &KeyPath) -> Result<Query, ListError> {
        let (group, rest) = split(prefix)?;
        Ok(Query::new(group, Constraint::Subtree(rest)))
    }

    /// Every item of `namespace` directly under `parent` (with their descendants).
    ///
    /// ```
    /// let q = sortpath_store::Query::children(&"/user-1".parse().unwrap(), "post");
    /// assert!(q.is_ok());
    /// ```
    pub fn children(parent: &KeyPath, namespace: &str) -> Result<Query, ListError> {
        Query::between(parent, namespace, Bound::Unbounded, Bound::Unbounded)
    }

    /// Items of `namespace` directly under `parent` whose ID is within the bounds (with their
    /// descendants).
    ///
    /// ```
    /// use std::ops::Bound;
    /// let q = sortpath_store::Query::between(&"/user-1".parse().unwrap(), "post",
    ///     Bound::Included(10u64.into()), Bound::Excluded(20u64.into()));
    /// assert!(q.is_ok());
    /// ```
    pub fn between(
        parent: &KeyPath,
        namespace: &str,
        lower: Bound<Id>,
        upper: Bound<Id>,
    ) -> Result<Query, ListError> {
        let (group, rest) = split(parent)?;
        if let Some(last) = parent.segments().last() {
            if last.id_type().is_none() {
                return Err(ListError::InvalidQuery(format!(
                    "parent {parent} ends without an ID; list its namespace with Query::prefix"
                )));
            }
        }
        sortpath::KeyPath::new()
            .push_namespace(namespace)
            .map_err(|e| InvalidKeyError::path(format!("{parent}/{namespace}"), e))?;
        Ok(Query::new(
            group,
            Constraint::Children {
                parent: rest,
                namespace: namespace.to_owned(),
                lower,
                upper,
            },
        ))
    }

    fn new(group: KeyPath, c: Constraint) -> Query {
        Query {
            group,
            constraints: vec![c],
            direction: Order::Ascending,
            limit: None,
            cursor: None,
            consistency: None,
            list_plan: PlanCache::default(),
        }
    }

    fn bound(
        mut self,
        path: &KeyPath,
        c: impl FnOnce(KeyPath) -> Constraint,
    ) -> Result<Query, ListError> {
        let (group, rest) = split(path)?;
        if group != self.group {
            return Err(ListError::InvalidQuery(format!(
                "bound {path} is not in the query's group {}",
                self.group
            )));
        }
        self.constraints.push(c(rest));
        self.list_plan = PlanCache::default();
        Ok(self)
    }

    /// Only paths after `path` (in item lists, `path`'s descendants follow it and are kept;
    /// in index queries, `path` is an index key and all its entries are skipped).
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap())?.gt(&"/u-1/p-5".parse().unwrap())?;
    /// assert!(q.clone().gt(&"/u-2/p-5".parse().unwrap()).is_err()); // another group
    /// # Ok::<(), sortpath_store::ListError>(())
    /// ```
    pub fn gt(self, path: &KeyPath) -> Result<Query, ListError> {
        self.bound(path, |p| Constraint::Lower(Bound::Excluded(p)))
    }

    /// Only paths from `path` on.
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap())?.gte(&"/u-1/p-5".parse().unwrap());
    /// assert!(q.is_ok());
    /// # Ok::<(), sortpath_store::ListError>(())
    /// ```
    pub fn gte(self, path: &KeyPath) -> Result<Query, ListError> {
        self.bound(path, |p| Constraint::Lower(Bound::Included(p)))
    }

    /// Only paths before `path`.
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap())?.lt(&"/u-1/p-5".parse().unwrap());
    /// assert!(q.is_ok());
    /// # Ok::<(), sortpath_store::ListError>(())
    /// ```
    pub fn lt(self, path: &KeyPath) -> Result<Query, ListError> {
        self.bound(path, |p| Constraint::Upper(Bound::Excluded(p)))
    }

    /// Only paths up to `path` (in item lists `path` itself but not its descendants; in index
    /// queries all entries of index key `path`).
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap())?.lte(&"/u-1/p-5".parse().unwrap());
    /// assert!(q.is_ok());
    /// # Ok::<(), sortpath_store::ListError>(())
    /// ```
    pub fn lte(self, path: &KeyPath) -> Result<Query, ListError> {
        self.bound(path, |p| Constraint::Upper(Bound::Included(p)))
    }

    /// Only the group's root item and what sorts after it, wherever the store places the
    /// root item ([`RootPlace`](crate::RootPlace)): with the root items of `org` groups placed
    /// before namespace `user`, `Query::prefix(&org)?.from_root()` lists the org and then
    /// its users, and adding `.to_root()` instead, with [`Query::reverse`], lists the org
    /// and then its teams (which sort before it), each in one ordered read. With the root
    /// first, it is the whole group; with the root last, the root alone. Item lists only:
    /// an index query with it is [`ListError::InvalidQuery`].
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Query, RootPlace, Store, StoreConfig};
    /// let store = Store::new(MemoryBackend::new());
    /// store.create_config(&StoreConfig::default().with_root("org", RootPlace::Before("user".into()))).await?;
    /// for path in ["/org-1", "/org-1/team-7", "/org-1/user-ann", "/org-1/user-bob"] {
    ///     store.put_raw(&path.parse()?, "x", &0, vec![], PutMode::Upsert).await?;
    /// }
    /// let org = "/org-1".parse()?;
    /// let keys = |page: sortpath_store::Page<sortpath_store::RawItem>| {
    ///     page.items.iter().map(|i| i.key().to_string()).collect::<Vec<_>>()
    /// };
    /// let users = store.list_raw(&Query::prefix(&org)?.from_root().limit(2)).await?;
    /// assert_eq!(keys(users), ["/org-1", "/org-1/user-ann"]);
    /// let teams = store.list_raw(&Query::prefix(&org)?.to_root().reverse()).await?;
    /// assert_eq!(keys(teams), ["/org-1", "/org-1/team-7"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn from_root(mut self) -> Self {
        self.constraints.push(Constraint::FromRoot);
        self.list_plan = PlanCache::default();
        self
    }

    /// Only what sorts before the group's root item, and the root item itself, wherever the
    /// store places it; see [`Query::from_root`].
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap()).unwrap().to_root().reverse();
    /// assert!(q.is_reverse());
    /// ```
    pub fn to_root(mut self) -> Self {
        self.constraints.push(Constraint::ToRoot);
        self.list_plan = PlanCache::default();
        self
    }

    /// Whether the query is bounded by its group's root item ([`Query::from_root`],
    /// [`Query::to_root`]).
    pub(crate) fn bounded_by_root(&self) -> bool {
        self.constraints
            .iter()
            .any(|c| matches!(c, Constraint::FromRoot | Constraint::ToRoot))
    }

    /// Descending order.
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap()).unwrap().reverse();
    /// assert!(q.is_reverse());
    /// ```
    pub fn reverse(mut self) -> Self {
        self.direction = Order::Descending;
        self
    }

    /// Whether the order is descending.
    ///
    /// ```
    /// assert!(!sortpath_store::Query::prefix(&"/u-1".parse().unwrap()).unwrap().is_reverse());
    /// ```
    pub fn is_reverse(&self) -> bool {
        self.direction == Order::Descending
    }

    /// Returns at most `limit` items per page (at least 1: a list with `limit(0)` is refused
    /// with [`ListError::InvalidQuery`](crate::ListError::InvalidQuery), since an empty page without a cursor says the
    /// listing is complete).
    ///
    /// ```
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap()).unwrap().limit(10);
    /// ```
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Reads at `consistency` ([`Consistency::Strong`](crate::backend::Consistency::Strong)
    /// unless set: a list sees every write acknowledged before it; but an index the table
    /// keeps ([`IndexMode::Table`](crate::IndexMode::Table), a DynamoDB GSI) is read
    /// eventually unless set, and setting `Strong` for it is an error). On DynamoDB
    /// [`Consistency::Eventual`](crate::backend::Consistency::Eventual) costs half the read
    /// units and may miss the last second's writes; the embedded backends read their latest
    /// state either way. It is not part of the query a cursor belongs to.
    ///
    /// ```
    /// use sortpath_store::{backend::Consistency, Query};
    /// let q = Query::prefix(&"/u-1".parse().unwrap()).unwrap().consistency(Consistency::Eventual);
    /// ```
    pub fn consistency(mut self, consistency: crate::backend::Consistency) -> Self {
        self.consistency = Some(consistency);
        self
    }

    /// Resumes after the last item of the page that returned `cursor` (which must come from
    /// the same query; checked when the query runs).
    ///
    /// A cursor is a position in the query's order (an item's sort key, or for an index
    /// query its entry's), not a snapshot: the next page lists what is after that position
    /// when it runs. An item whose key (or index key) changes between two pages can cross
    /// it: one moved from after the cursor to before it is in none of the later pages, and
    /// one moved from before it to after it, already returned, is returned again at its new
    /// place. Within one page each item is returned at most once (see
    /// [`Store::query_index_raw`](crate::Store::query_index_raw) for index queries).
    ///
    /// ```
    /// # let cursor: Option<sortpath_store::Cursor> = None;
    /// let q = sortpath_store::Query::prefix(&"/u-1".parse().unwrap()).unwrap();
    /// let q = match cursor { Some(c) => q.after(c), None => q };
    /// ```
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.cursor = Some(cursor);
        self
    }

    /// The group and plan of the query as an item list ([`Query::plan`] not in index
    /// mode), made on first use and kept with the query (and its clones).
    /// `root_sort` is the sort key of the group's root item (only a query bounded by the
    /// root item uses it).
    pub(crate) fn list_plan(&self, root_sort: &[u8]) -> Arc<ListPlan> {
        let make = || {
            Arc::new(ListPlan {
                group: self.group.clone(),
                group_bytes: self.group.encode(),
                plan: self.plan(false, root_sort),
                root_sort: root_sort.to_vec(),
            })
        };
        let made = self.list_plan.0.get_or_init(make);
        match made.root_sort == root_sort {
            true => made.clone(),
            // The same query on a store that places its root items elsewhere.
            false => make(),
        }
    }

    /// The byte plan of the query over sort keys: `[start, end)` and the ranges to match.
    /// In `index` mode the ranges apply to an entry's index path after the group (see
    /// `layout`): their byte bounds are escaped as rests are in entry keys, and each path
    /// bound covers a whole index key's entries.
    pub(crate) fn plan(&self, index: bool, root_sort: &[u8]) -> Plan {
        let mut start = vec![0x00];
        let mut end: Option<Vec<u8>> = None;
        let mut filters = Vec::new();
        let mut narrow = |s: Vec<u8>, e: Option<Vec<u8>>| {
            if s > start {
                start = s;
            }
            if let Some(e) = e {
                if end.as_ref().is_none_or(|cur| e < *cur) {
                    end = Some(e);
                }
            }
        };
        // Where a byte bound over rests (or item sort keys) lies among the keys scanned.
        let image = |b: &[u8]| if index { escape_rest(b) } else { b.to_vec() };
        for c in &self.constraints {
            let range = match c {
                // By the root item's sort key alone: nothing between it and its successor.
                Constraint::FromRoot => {
                    narrow(root_sort.to_vec(), None);
                    continue;
                }
                Constraint::ToRoot => {
                    narrow(Vec::new(), Some([root_sort, &[0x00]].concat()));
                    continue;
                }
                Constraint::Subtree(rest) => KeyRange::subtree(rest),
                Constraint::Children {
                    parent,
                    namespace,
                    lower,
                    upper,
                } => KeyRange::between(parent, namespace, lower.clone(), upper.clone()),
                Constraint::Lower(b) | Constraint::Upper(b) if index => {
                    // The entries of index path rest `p` are the keys that start with its
                    // escaped encoding and `REST_END`; `AFTER_REST_END` comes after them and
                    // before the rests that extend `p`'s encoding.
                    let (Bound::Included(p) | Bound::Excluded(p)) = b else {
                        continue;
                    };
                    let at = escape_rest(&p.encode());
                    let after = [at.as_slice(), &AFTER_REST_END].concat();
                    let (s, e) = match (c, b) {
                        (Constraint::Lower(_), Bound::Included(_)) => (at, None),
                        (Constraint::Lower(_), _) => (after, None),
                        (_, Bound::Included(_)) => (vec![], Some(after)),
                        _ => (vec![], Some(at)),
                    };
                    narrow(s, e);
                    // Entries are matched on their rest, by path order (which the bytes
                    // follow but for UUIDs among other ID types, see `sortpath::KeyRange`).
                    filters.push(match c {
                        Constraint::Lower(_) => {
                            KeyRange::between_paths(b.clone(), Bound::Unbounded)
                        }
                        _ => KeyRange::between_paths(Bound::Unbounded, b.clone()),
                    });
                    continue;
                }
                Constraint::Lower(b) => KeyRange::between_paths(b.clone(), Bound::Unbounded),
                Constraint::Upper(b) => KeyRange::between_paths(Bound::Unbounded, b.clone()),
            };
            narrow(image(range.start()), range.end().map(image));
            filters.push(range);
        }
        Plan {
            start,
            end,
            filters,
            filters_have_uuid: self.constraints.iter().any(Constraint::names_uuid),
        }
    }

    /// A fingerprint of what the query lists and in which order (not its limit or cursor);
    /// `group` is the encoding of the query's group.
    pub(crate) fn fingerprint(&self, index: Option<&str>, group: &[u8], plan: &Plan) -> u64 {
        let mut h = fnv1a(
            FNV_OFFSET,
            &[u8::from(index.is_some()), self.direction as u8],
        );
        for part in [
            index.unwrap_or("").as_bytes(),
            group,
            &plan.start,
            plan.end.as_deref().unwrap_or(&[]),
        ] {
            h = fnv1a(h, &(part.len() as u64).to_be_bytes());
            h = fnv1a(h, part);
        }
        fnv1a(h, &[u8::from(plan.end.is_some())])
    }
}

/// The sort-key byte range of a query and the key ranges every listed path must match.
#[derive(Debug)]
pub(crate) struct Plan {
    pub start: Vec<u8>,
    pub end: Option<Vec<u8>>,
    pub filters: Vec<KeyRange>,
    /// Whether a filter names a UUID ID. Only UUIDs mixed with other ID types at one
    /// position make a key inside the byte range fail a filter (see `sortpath::KeyRange`),
    /// so keys without UUIDs under filters without UUIDs need no check.
    pub filters_have_uuid: bool,
}

impl Plan {
    pub fn matches(&self, sort_path: &KeyPath) -> bool {
        self.filters.iter().all(|r| r.matches(sort_path))
    }

    /// [`Plan::matches`] for the part of `path` after its first `group_len` components, for
    /// a path whose encoding is inside the plan's byte range.
    #[inline]
    pub fn matches_after(&self, path: &KeyPath, group_len: usize) -> bool {
        if group_len > path.len() {
            return false;
        }
        if !self.filters_have_uuid && !has_uuid(path.segments().skip(group_len)) {
            return true;
        }
        self.filters
            .iter()
            .all(|r| r.matches_after(path, group_len))
    }
}

/// One page of a list: the items and, if more may follow, the cursor to resume after them.
///
/// ```
/// let page: sortpath_store::Page<u8> = sortpath_store::Page { items: vec![1], cursor: None };
/// assert_eq!(page.items.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    /// The items, in the query's order.
    pub items: Vec<T>,
    /// Set when the page is full and more records follow in the range; pass it to
    /// [`Query::after`] to continue. A following page may still turn out empty.
    pub cursor: Option<Cursor>,
}

#[cfg(test)]
pub(crate) mod tests;
