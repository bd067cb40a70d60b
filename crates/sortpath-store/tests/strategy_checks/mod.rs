//! The sorting strategies of docs/MODELING.md ("Sorting strategies of single-table designs"),
//! one check each: the list (or index query) of each access pattern returns exactly the
//! items, in the order the strategy promises, and (where the backend counts them) in the
//! requests the guide states. `strategies.rs` runs them on the in-memory and the redb
//! backend, `dynamodb.rs` on DynamoDB Local with a request counter.
#![allow(dead_code)]

use serde::{Deserialize, Serialize};
use sortpath::collate::{Collation, SortKey, Strength};
use sortpath::idgen::{Ksuid, KsuidGenerator};
use sortpath::time::Timestamp;
use sortpath::{codec, Id, KeyPath, I65};
use sortpath_store::backend::Backend;
use sortpath_store::{
    Index, Item, Page, Projection, PutMode, Query, RawItem, RootPlace, Store, StoreConfig,
};

/// What each access pattern costs in requests, where the backend counts them.
pub trait Requests {
    /// Forgets the requests made so far (the writes that set a check up).
    fn reset(&self);
    /// Checks the requests made since the last `reset` or `check`: `(operation, count)`.
    fn check(&self, pattern: &str, expected: &[(&str, u64)]);
}

/// For backends that make no requests.
pub struct Uncounted;

impl Requests for Uncounted {
    fn reset(&self) {}
    fn check(&self, _pattern: &str, _expected: &[(&str, u64)]) {}
}

const QUERY: &[(&str, u64)] = &[("Query", 1)];
/// A handle's first list bounded by the root item, and its first query of each index,
/// read the configuration first.
const CONFIG_AND_QUERY: &[(&str, u64)] = &[("GetItem", 1), ("Query", 1)];

fn p(text: &str) -> KeyPath {
    text.parse()
        .unwrap_or_else(|e| panic!("bad test path {text}: {e}"))
}

async fn put<B: Backend>(store: &Store<B>, path: &KeyPath) {
    store
        .put_raw(path, "x", &path.to_string(), vec![], PutMode::Upsert)
        .await
        .unwrap_or_else(|e| panic!("put {path}: {e}"));
}

async fn list<B: Backend>(store: &Store<B>, query: &Query) -> Vec<KeyPath> {
    let page: Page<RawItem> = store.list_raw(query).await.unwrap();
    page.items.iter().map(|i| i.key().clone()).collect()
}

/// Lists `query` in pages of `limit`, resuming from each page's cursor: one request a page.
async fn paged<B: Backend>(
    store: &Store<B>,
    query: &Query,
    limit: usize,
    requests: &dyn Requests,
) -> Vec<KeyPath> {
    let mut out = Vec::new();
    let mut next = query.clone().limit(limit);
    loop {
        let page = store.list_raw(&next).await.unwrap();
        requests.check("a page", QUERY);
        assert!(page.items.len() <= limit);
        out.extend(page.items.iter().map(|i| i.key().clone()));
        match page.cursor {
            Some(cursor) => next = query.clone().limit(limit).after(cursor),
            None => return out,
        }
    }
}

fn texts(paths: &[KeyPath]) -> Vec<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

/// A handle that has not read the store's configuration, as another process would have.
fn new_handle<B: Backend + Clone>(store: &Store<B>) -> Store<B> {
    Store::new(store.backend().clone())
}

/// Lexicographical order and case: string IDs sort by their UTF-8 bytes (upper case before
/// lower case, accented letters after `z`); a normalized ID sorts case-blind, a collation
/// sort key (with the name after it, in one codec tuple) sorts as people read.
pub async fn case<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    let names = ["bob", "Zoey", "Émile", "alligator"];
    let collation = Collation::new("en", Strength::Tertiary).unwrap();
    let people_id = |name: &str| codec::to_vec(&(collation.sort_key(name), name)).unwrap();
    for name in names {
        put(&store, &p("/plain-1").push("user", name).unwrap()).await;
        put(
            &store,
            &p("/lower-1").push("user", name.to_lowercase()).unwrap(),
        )
        .await;
        put(
            &store,
            &p("/people-1").push("user", people_id(name)).unwrap(),
        )
        .await;
    }
    let reader = new_handle(&store);
    requests.reset();
    let plain = list(&reader, &Query::children(&p("/plain-1"), "user").unwrap()).await;
    requests.check("string IDs", QUERY);
    assert_eq!(
        texts(&plain),
        [
            "/plain-1/user-Zoey",
            "/plain-1/user-alligator",
            "/plain-1/user-bob",
            "/plain-1/user-Émile"
        ]
    );
    let lower = list(&reader, &Query::children(&p("/lower-1"), "user").unwrap()).await;
    requests.check("lower-case IDs", QUERY);
    assert_eq!(
        texts(&lower),
        [
            "/lower-1/user-alligator",
            "/lower-1/user-bob",
            "/lower-1/user-zoey",
            "/lower-1/user-émile"
        ]
    );
    let people = list(&reader, &Query::children(&p("/people-1"), "user").unwrap()).await;
    requests.check("collation IDs", QUERY);
    let read_back: Vec<String> = people
        .iter()
        .map(|path| {
            let Some(sortpath::path::IdRef::Bytes(id)) = path.segments().last().unwrap().id()
            else {
                panic!("{path}: not a bytes ID")
            };
            let (_, name): (SortKey, String) = codec::from_slice(&id).unwrap();
            name
        })
        .collect();
    assert_eq!(read_back, ["alligator", "bob", "Émile", "Zoey"]);
}

/// Timestamps: a `Timestamp` ID sorts by time (before 1970 too), oldest first forwards,
/// newest first backwards.
pub async fn timestamps<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    let device = p("/device-1");
    let millis = [
        1_700_000_000_000,
        -86_400_000,
        999,
        1_000,
        0,
        1_700_000_000_001,
        -1,
    ];
    let event = |ms: i64| {
        device
            .clone()
            .push("event", Timestamp::from_unix_millis(ms))
    };
    for ms in millis {
        put(&store, &event(ms).unwrap()).await;
    }
    let mut sorted = millis;
    sorted.sort();
    let expected: Vec<KeyPath> = sorted.iter().map(|&ms| event(ms).unwrap()).collect();
    let reader = new_handle(&store);
    requests.reset();
    let events = Query::children(&device, "event").unwrap();
    assert_eq!(list(&reader, &events).await, expected);
    requests.check("events, oldest first", QUERY);
    let newest = list(&reader, &events.clone().reverse().limit(2)).await;
    requests.check("newest 2 events", QUERY);
    assert_eq!(
        newest,
        [event(1_700_000_000_001), event(1_700_000_000_000)].map(Result::unwrap)
    );
    // The ID reads back as the time.
    let ids: Vec<i128> = newest
        .iter()
        .map(|path| {
            let id = Id::from(path.segments().last().unwrap().id().unwrap());
            Timestamp::try_from(&id).unwrap().unix_millis()
        })
        .collect();
    assert_eq!(ids, [1_700_000_000_001, 1_700_000_000_000]);
}

/// KSUIDs: unique IDs that sort by creation time (their text sorts the same way).
pub async fn ksuids<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    let mut generator = KsuidGenerator::new();
    let mut random = 0u8;
    let mut rng = |buf: &mut [u8]| {
        // Payloads that fall as the IDs are made: only the time and the generator's
        // increments within a second order them.
        random = random.wrapping_sub(37);
        buf.fill(random);
    };
    // Two in one second, then the clock steps back: still in creation order.
    let mut made: Vec<Ksuid> = Vec::new();
    for second in [
        1_700_000_000,
        1_700_000_000,
        1_700_000_001,
        1_699_999_999,
        1_700_000_005,
    ] {
        made.push(generator.generate(second, &mut rng).unwrap());
    }
    let account = p("/account-1");
    let order = |id: Ksuid| account.clone().push("order", id).unwrap();
    for &id in made.iter().rev() {
        put(&store, &order(id)).await;
    }
    let reader = new_handle(&store);
    requests.reset();
    let listed = list(&reader, &Query::children(&account, "order").unwrap()).await;
    requests.check("orders in creation order", QUERY);
    assert_eq!(listed, made.iter().map(|&id| order(id)).collect::<Vec<_>>());
    let text: Vec<String> = made.iter().map(|id| id.to_string()).collect();
    let mut sorted_text = text.clone();
    sorted_text.sort();
    assert_eq!(text, sorted_text, "KSUID text sorts as their bytes do");
}

/// A ticket whose `updated_at` changes: kept out of its key, in two exact indexes (one
/// keys-only, one projecting the whole ticket).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ticket {
    pub id: u64,
    pub updated_at: i64,
}

fn by_updated(t: &Ticket) -> Result<Option<KeyPath>, sortpath::path::PathError> {
    Ok(Some(
        KeyPath::new()
            .push("tickets", 0u64)?
            .push("updated", t.updated_at)?,
    ))
}

impl Item for Ticket {
    const TYPE: &'static str = "ticket";
    const INDEXES: &'static [Index<Self>] = &[
        Index::new("by_updated", by_updated),
        Index::new("by_updated_all", by_updated).projecting(Projection::All),
    ];
    fn key_path(&self) -> Result<KeyPath, sortpath::path::PathError> {
        KeyPath::new().push("ticket", self.id)
    }
}

/// Sorting on a changing attribute: the most recently updated tickets, from an index the
/// store moves entries in when `updated_at` changes.
pub async fn changing_attribute<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    for (id, updated_at) in [(1, 10), (2, 20), (3, 30), (4, 40)] {
        store.put(&Ticket { id, updated_at }).await.unwrap();
    }
    // Ticket 1 is updated last, ticket 3 again: each moves in the indexes.
    store
        .put(&Ticket {
            id: 1,
            updated_at: 50,
        })
        .await
        .unwrap();
    store
        .put(&Ticket {
            id: 3,
            updated_at: 60,
        })
        .await
        .unwrap();
    let latest = Query::prefix(&p("/tickets-0")).unwrap().reverse().limit(3);
    let ids = |page: Page<sortpath_store::Versioned<Ticket>>| -> Vec<(u64, i64)> {
        page.items
            .iter()
            .map(|t| (t.item.id, t.item.updated_at))
            .collect()
    };
    let expected = [(3, 60), (1, 50), (4, 40)];
    let reader = new_handle(&store);
    requests.reset();
    let page = reader.query_index::<Ticket>("by_updated", &latest).await;
    // A handle's first index query reads the configuration (is the index built?).
    requests.check(
        "latest tickets, keys-only index, new handle",
        &[("GetItem", 1), ("Query", 1), ("BatchGetItem", 1)],
    );
    assert_eq!(ids(page.unwrap()), expected);
    let page = reader.query_index::<Ticket>("by_updated", &latest).await;
    requests.check(
        "latest tickets, keys-only index",
        &[("Query", 1), ("BatchGetItem", 1)],
    );
    assert_eq!(ids(page.unwrap()), expected);
    // The first query of each index, per handle.
    let page = reader
        .query_index::<Ticket>("by_updated_all", &latest)
        .await;
    requests.check(
        "latest tickets, projected index, first query",
        CONFIG_AND_QUERY,
    );
    assert_eq!(ids(page.unwrap()), expected);
    let page = reader
        .query_index::<Ticket>("by_updated_all", &latest)
        .await;
    requests.check("latest tickets, projected index", QUERY);
    assert_eq!(ids(page.unwrap()), expected);
    // Every ticket once: no entry of an old value is left.
    let all = reader
        .query_index::<Ticket>("by_updated_all", &Query::prefix(&p("/tickets-0")).unwrap())
        .await
        .unwrap();
    assert_eq!(ids(all), [(2, 20), (4, 40), (1, 50), (3, 60)]);
    requests.reset();
}

/// Ascending and descending: one key, read forwards or backwards, with limits and cursors.
pub async fn ascending_descending<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    let user = p("/user-1");
    for id in [3u64, 1, 5, 2, 4] {
        put(&store, &user.clone().push("order", id).unwrap()).await;
    }
    let order = |id: u64| format!("/user-1/order-{id}");
    let orders = Query::children(&user, "order").unwrap();
    let reader = new_handle(&store);
    requests.reset();
    let oldest = list(&reader, &orders.clone().limit(3)).await;
    requests.check("first 3 orders", QUERY);
    assert_eq!(texts(&oldest), [1, 2, 3].map(order));
    let newest = reader
        .list_raw(&orders.clone().reverse().limit(3))
        .await
        .unwrap();
    requests.check("last 3 orders", QUERY);
    let keys: Vec<String> = newest.items.iter().map(|i| i.key().to_string()).collect();
    assert_eq!(keys, [5, 4, 3].map(order));
    let rest = list(
        &reader,
        &orders
            .clone()
            .reverse()
            .limit(3)
            .after(newest.cursor.unwrap()),
    )
    .await;
    requests.check("next page, backwards", QUERY);
    assert_eq!(texts(&rest), [2, 1].map(order));
}

/// The parent item first (`$ORDER#` before `ITEM#`): the default place of a group's root
/// item, and the place of any parent item before its children.
pub async fn parent_first<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    for path in [
        "/order-1/item-3",
        "/order-1/item-1",
        "/order-1",
        "/order-1/item-2",
        "/customer-1/order-7/item-2",
        "/customer-1/order-7",
        "/customer-1/order-7/item-1",
        "/customer-1/order-8",
    ] {
        put(&store, &p(path)).await;
    }
    let reader = new_handle(&store);
    requests.reset();
    let first = list(&reader, &Query::prefix(&p("/order-1")).unwrap().limit(3)).await;
    // A list of the whole group never needs the configuration: one request from the start.
    requests.check("order and its first items", QUERY);
    assert_eq!(
        texts(&first),
        ["/order-1", "/order-1/item-1", "/order-1/item-2"]
    );
    let nested = list(
        &reader,
        &Query::prefix(&p("/customer-1/order-7")).unwrap().limit(2),
    )
    .await;
    requests.check("nested order and its first item", QUERY);
    assert_eq!(
        texts(&nested),
        ["/customer-1/order-7", "/customer-1/order-7/item-1"]
    );
}

/// The parent item last (`~USER#` after `VOUCHER#`): the root of `user` groups placed
/// last, so a reverse list with a limit reads the user and then its newest vouchers.
pub async fn parent_last<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    store
        .create_config(&StoreConfig::default().with_root("user", RootPlace::Last))
        .await
        .unwrap();
    for path in [
        "/user-1/voucher-20",
        "/user-1",
        "/user-1/voucher-5",
        "/user-1/voucher-300",
        "/user-1/voucher-100",
        "/user-2/voucher-1",
        "/user-2",
    ] {
        put(&store, &p(path)).await;
    }
    let user = Query::prefix(&p("/user-1")).unwrap();
    let reader = new_handle(&store);
    requests.reset();
    let newest = list(&reader, &user.clone().reverse().limit(3)).await;
    // Not bounded by the root: one request even from a handle that never read the
    // configuration.
    requests.check("user and its 2 newest vouchers", QUERY);
    assert_eq!(
        texts(&newest),
        ["/user-1", "/user-1/voucher-300", "/user-1/voucher-100"]
    );
    let whole = list(&reader, &user).await;
    requests.check("the whole group, forwards", QUERY);
    assert_eq!(
        texts(&whole),
        [
            "/user-1/voucher-5",
            "/user-1/voucher-20",
            "/user-1/voucher-100",
            "/user-1/voucher-300",
            "/user-1"
        ]
    );
    // Page by page across the placed root, both ways.
    for limit in [1, 2, 4] {
        assert_eq!(paged(&reader, &user, limit, requests).await, whole);
        let mut backwards = whole.clone();
        backwards.reverse();
        let reverse = user.clone().reverse();
        assert_eq!(paged(&reader, &reverse, limit, requests).await, backwards);
    }
    let vouchers = list(&reader, &Query::children(&p("/user-1"), "voucher").unwrap()).await;
    requests.check("vouchers only", QUERY);
    assert_eq!(vouchers.len(), 4);
    // The user alone at its place.
    let only = reader.get_raw(&p("/user-2")).await.unwrap();
    assert_eq!(only.map(|i| i.key().clone()), Some(p("/user-2")));
    requests.reset();
}

/// Two relational access patterns in one item collection (teams | org | users): the org's
/// root placed before namespace `user`, so "the org and its users alphabetically" is one
/// list from the root, "the org and its teams" one reverse list up to it.
pub async fn two_relations<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    store
        .create_config(&StoreConfig::default().with_root("org", RootPlace::Before("user".into())))
        .await
        .unwrap();
    for path in [
        "/org-acme/user-cy",
        "/org-acme/team-red",
        "/org-acme/user-ann",
        "/org-acme",
        "/org-acme/team-blue",
        "/org-acme/user-bob",
        "/org-acme/user-dee",
        "/org-other/team-x",
        "/org-other/user-x",
    ] {
        put(&store, &p(path)).await;
    }
    let org = Query::prefix(&p("/org-acme")).unwrap();
    let reader = new_handle(&store);
    requests.reset();
    let users = list(&reader, &org.clone().from_root().limit(3)).await;
    requests.check("org and its first users (new handle)", CONFIG_AND_QUERY);
    assert_eq!(
        texts(&users),
        ["/org-acme", "/org-acme/user-ann", "/org-acme/user-bob"]
    );
    let teams = list(&reader, &org.clone().to_root().reverse()).await;
    requests.check("org and its teams", QUERY);
    assert_eq!(
        texts(&teams),
        ["/org-acme", "/org-acme/team-red", "/org-acme/team-blue"]
    );
    let all_users = list(&reader, &org.clone().from_root()).await;
    requests.check("org and all its users", QUERY);
    assert_eq!(
        texts(&all_users),
        [
            "/org-acme",
            "/org-acme/user-ann",
            "/org-acme/user-bob",
            "/org-acme/user-cy",
            "/org-acme/user-dee"
        ]
    );
    for limit in [1, 2, 3] {
        assert_eq!(
            paged(&reader, &org.clone().from_root(), limit, requests).await,
            all_users
        );
        let teams_paged = paged(&reader, &org.clone().to_root().reverse(), limit, requests).await;
        assert_eq!(teams_paged, teams);
    }
    let whole = list(&reader, &org).await;
    requests.check("the whole group", QUERY);
    assert_eq!(
        texts(&whole),
        [
            "/org-acme/team-blue",
            "/org-acme/team-red",
            "/org-acme",
            "/org-acme/user-ann",
            "/org-acme/user-bob",
            "/org-acme/user-cy",
            "/org-acme/user-dee"
        ]
    );
}

/// Zero-padding: integer IDs sort numerically at every width, no padding to outgrow.
pub async fn numbers<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    let repo = p("/repo-1");
    let numbers = [10u64, 2, 100, 9, 1_000_000, u64::MAX, 0, 99_999];
    for n in numbers {
        put(&store, &repo.clone().push("issue", n).unwrap()).await;
    }
    let mut sorted = numbers;
    sorted.sort();
    let reader = new_handle(&store);
    requests.reset();
    let issues = list(&reader, &Query::children(&repo, "issue").unwrap()).await;
    requests.check("issues by number", QUERY);
    let expected: Vec<KeyPath> = sorted
        .iter()
        .map(|&n| repo.clone().push("issue", n).unwrap())
        .collect();
    assert_eq!(issues, expected);
    // A range of numbers, as the padded strings' BETWEEN would be.
    let q = Query::between(
        &repo,
        "issue",
        std::ops::Bound::Included(9u64.into()),
        std::ops::Bound::Excluded(1_000u64.into()),
    )
    .unwrap();
    let some = list(&reader, &q).await;
    requests.check("issues 9 to 999", QUERY);
    assert_eq!(
        texts(&some),
        ["/repo-1/issue-9", "/repo-1/issue-10", "/repo-1/issue-100"]
    );
}

/// A pull request's ID: its number negated, so pull requests sort newest first.
pub fn pull(number: u64) -> Id {
    Id::from(I65::from_sign_magnitude(true, number))
}

/// Faking ascending order (the zero-padded difference): a repository between its issues
/// (read backwards from it: newest first) and its pull requests, whose IDs are negated
/// numbers so that reading forwards from the repository gives the newest first too.
pub async fn descending_ids<B: Backend + Clone>(store: Store<B>, requests: &dyn Requests) {
    store
        .create_config(&StoreConfig::default().with_root("repo", RootPlace::Before("pr".into())))
        .await
        .unwrap();
    let repo = p("/repo-kp");
    put(&store, &repo).await;
    for n in [157u64, 158, 9, 1_000] {
        put(&store, &repo.clone().push("issue", n).unwrap()).await;
    }
    for n in [157u64, 0, 158, 9, u64::MAX] {
        put(&store, &repo.clone().push("pr", pull(n)).unwrap()).await;
    }
    let group = Query::prefix(&repo).unwrap();
    let reader = new_handle(&store);
    requests.reset();
    let issues = list(&reader, &group.clone().to_root().reverse().limit(3)).await;
    requests.check("repo and its newest issues (new handle)", CONFIG_AND_QUERY);
    assert_eq!(
        texts(&issues),
        ["/repo-kp", "/repo-kp/issue-1000", "/repo-kp/issue-158"]
    );
    let pulls = list(&reader, &group.clone().from_root().limit(4)).await;
    requests.check("repo and its newest pull requests", QUERY);
    assert_eq!(
        texts(&pulls),
        [
            "/repo-kp",
            "/repo-kp/pr--18446744073709551615",
            "/repo-kp/pr--158",
            "/repo-kp/pr--157"
        ]
    );
    let all_pulls = list(&reader, &group.clone().from_root()).await;
    requests.check("repo and all its pull requests", QUERY);
    let numbers: Vec<u64> = all_pulls[1..]
        .iter()
        .map(|path| match path.segments().last().unwrap().id() {
            Some(sortpath::path::IdRef::Int(id)) => {
                assert!(id.is_negative() || id.magnitude() == 0);
                id.magnitude()
            }
            other => panic!("{path}: {other:?}"),
        })
        .collect();
    assert_eq!(numbers, [u64::MAX, 158, 157, 9, 0]);
    let all_issues = list(&reader, &group.clone().to_root().reverse()).await;
    requests.check("repo and all its issues", QUERY);
    assert_eq!(
        texts(&all_issues),
        [
            "/repo-kp",
            "/repo-kp/issue-1000",
            "/repo-kp/issue-158",
            "/repo-kp/issue-157",
            "/repo-kp/issue-9"
        ]
    );
}
