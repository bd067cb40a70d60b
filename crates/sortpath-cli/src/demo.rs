//! `sortpath demo`: a social app and a ticket board on the embedded store.
//!
//! Loads a generated data set (users, posts, comments, reactions; tickets with an
//! `updated_at` index), runs the queries such an app makes, prints results and timings, and
//! shows how the same data would have sorted with hand-made string keys.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::redb::RedbBackend;
use sortpath_store::backend::Backend;
use sortpath_store::{Index, Item, Query, RawItem, Store};
use uuid::Uuid;

use crate::progress::Progress;
use crate::Failure;

/// Sizes of the generated data set.
const USERS: u64 = 3_000;
const TICKETS: u64 = 600;
const BOARDS: u64 = 3;
/// Ticket updates after the initial load, to move tickets around the index.
const TICKET_UPDATES: u64 = 1_500;
/// First post/comment time (2023-03-15T17:00:34Z, Unix seconds).
const EPOCH: u64 = 1_678_899_634;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct User {
    id: Uuid,
    name: String,
}

impl Item for User {
    const TYPE: &'static str = "user";
    // `sortpath db` reads the demo's items by field name (and writes tickets).
    const SELF_DESCRIBING: bool = true;
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("user", self.id)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Post {
    user: Uuid,
    id: u64,
    title: String,
}

impl Item for Post {
    const TYPE: &'static str = "post";
    // `sortpath db` reads the demo's items by field name (and writes tickets).
    const SELF_DESCRIBING: bool = true;
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("user", self.user)?
            .push("post", self.id)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Comment {
    user: Uuid,
    post: u64,
    /// Unix seconds: comments sort chronologically.
    at: u64,
    text: String,
}

impl Item for Comment {
    const TYPE: &'static str = "comment";
    // `sortpath db` reads the demo's items by field name (and writes tickets).
    const SELF_DESCRIBING: bool = true;
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("user", self.user)?
            .push("post", self.post)?
            .push("comment", self.at)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Reaction {
    user: Uuid,
    post: u64,
    comment: u64,
    id: u64,
    emoji: String,
}

impl Item for Reaction {
    const TYPE: &'static str = "react";
    // `sortpath db` reads the demo's items by field name (and writes tickets).
    const SELF_DESCRIBING: bool = true;
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("user", self.user)?
            .push("post", self.post)?
            .push("comment", self.comment)?
            .push("react", self.id)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Ticket {
    id: u64,
    board: u64,
    title: String,
    updated_at: u64,
}

impl Item for Ticket {
    const TYPE: &'static str = "ticket";
    // `sortpath db` reads the demo's items by field name (and writes tickets).
    const SELF_DESCRIBING: bool = true;
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_updated", |t| {
        Ok(Some(
            KeyPath::new()
                .push("board", t.board)?
                .push("updated_at", t.updated_at)?,
        ))
    })];
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("ticket", self.id)
    }
}

/// [`Ticket`]'s index as `sortpath db` declares it (`init --index`): the same entries.
const TICKET_INDEX: &str = "by_updated=ticket.updated_at@/board-{board}";

/// A small deterministic generator (SplitMix64): the same data set on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn uuid(&mut self) -> Uuid {
        let bits = (u128::from(self.next()) << 64) | u128::from(self.next());
        uuid::Builder::from_random_bytes(bits.to_be_bytes()).into_uuid()
    }
}

const NAMES: &[&str] = &[
    "alligator",
    "Zoey",
    "bob",
    "Émile",
    "carol",
    "Dave",
    "erin",
    "Frank",
];
const EMOJI: &[&str] = &["👍", "🎉", "😂", "❤️"];

/// One user's whole item collection, written in one transaction.
struct Collection {
    user: User,
    posts: Vec<Post>,
    comments: Vec<Comment>,
    reactions: Vec<Reaction>,
}

impl Collection {
    fn len(&self) -> usize {
        1 + self.posts.len() + self.comments.len() + self.reactions.len()
    }
}

fn generate_user(rng: &mut Rng, n: u64) -> Collection {
    let id = rng.uuid();
    let user = User {
        id,
        name: format!("{}{n}", NAMES[(n % NAMES.len() as u64) as usize]),
    };
    let (mut posts, mut comments, mut reactions) = (Vec::new(), Vec::new(), Vec::new());
    // Post IDs grow past one digit (9 < 42 < 100 is where string keys go wrong).
    let mut post_id = 0;
    for _ in 0..rng.below(5) {
        post_id += 1 + rng.below(60);
        posts.push(Post {
            user: id,
            id: post_id,
            title: format!("post {post_id} of {}", user.name),
        });
        let mut at = EPOCH - 400_000_000 + rng.below(800_000_000);
        for _ in 0..rng.below(5) {
            at += 1 + rng.below(50_000_000);
            comments.push(Comment {
                user: id,
                post: post_id,
                at,
                text: format!("comment at {at}"),
            });
            for r in 0..rng.below(3) {
                reactions.push(Reaction {
                    user: id,
                    post: post_id,
                    comment: at,
                    id: r * 7 + rng.below(7),
                    emoji: EMOJI[rng.below(EMOJI.len() as u64) as usize].to_owned(),
                });
            }
        }
    }
    reactions.sort_by_key(|r| (r.post, r.comment, r.id));
    reactions.dedup_by_key(|r| (r.post, r.comment, r.id));
    Collection {
        user,
        posts,
        comments,
        reactions,
    }
}

fn store_err<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> Failure + '_ {
    move |e| Failure::Store(format!("{what}: {e}"))
}

fn rate(count: usize, started: Instant) -> String {
    let secs = started.elapsed().as_secs_f64();
    format!(
        "{count} in {:.0} ms, {:.0}/s",
        secs * 1e3,
        count as f64 / secs.max(1e-9)
    )
}

fn show(out: &mut impl Write, items: &[RawItem], at_most: usize) -> Result<(), Failure> {
    for raw in items.iter().take(at_most) {
        writeln!(out, "    {:<8} {}", raw.item_type(), raw.key())?;
    }
    if items.len() > at_most {
        writeln!(out, "    ... {} more", items.len() - at_most)?;
    }
    Ok(())
}

/// Runs the demo in `dir`, or in a new temporary directory that is removed afterwards, or
/// on the SlateDB database at `slatedb` (feature `slatedb`).
pub(crate) async fn run(
    dir: Option<PathBuf>,
    slatedb: Option<String>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    #[cfg(feature = "slatedb")]
    if let Some(location) = slatedb {
        return run_on_slatedb(&location, out).await;
    }
    #[cfg(not(feature = "slatedb"))]
    let _ = slatedb;
    let temp;
    // A store at --path may hold items of its own.
    let existing = dir.as_ref().map(|d| d.display().to_string());
    let store: Store<RedbBackend> = match &dir {
        Some(d) => {
            // A kept store opens with `sortpath db --path DIR`, its ticket index included.
            let indexes = crate::db::parse_index_defs(&[TICKET_INDEX.to_owned()])?;
            crate::db::open_or_create_as(d, &crate::db::Config::new(indexes))
                .await?
                .store
        }
        None => {
            temp = tempfile::tempdir().map_err(Failure::Io)?;
            Store::create(temp.path()).await.map_err(|e| {
                Failure::Store(format!(
                    "opening the store in {}: {e}",
                    temp.path().display()
                ))
            })?
        }
    };
    let dir: &Path = store.backend().path().parent().unwrap_or(Path::new("."));
    writeln!(out, "sortpath demo: an embedded store in {}", dir.display())?;
    // A store at --path may hold items of its own.
    run_on(&store, existing.as_deref(), out).await
}

/// The demo on the SlateDB database at `location` (kept; `sortpath db --slatedb` opens it).
#[cfg(feature = "slatedb")]
async fn run_on_slatedb(location: &str, out: &mut impl Write) -> Result<(), Failure> {
    use sortpath_store::backend::slatedb::SlateDbBackend;
    let indexes = crate::db::parse_index_defs(&[TICKET_INDEX.to_owned()])?;
    let config = crate::db::Config::new(indexes);
    let backend = SlateDbBackend::open(location)
        .await
        .map_err(|e| Failure::Store(e.to_string()))?;
    let store = Store::new(backend);
    let ran = async {
        if !store
            .create_config(&config.store)
            .await
            .map_err(store_err("write the configuration"))?
            && store
                .config()
                .await
                .map_err(store_err("read the configuration"))?
                != config.store
        {
            return Err(crate::db::bad(format!(
                "a store with other indexes is at {location}: give the demo a new place"
            )));
        }
        writeln!(out, "sortpath demo: a store on SlateDB at {location}")?;
        run_on(&store, Some(location), out).await
    }
    .await;
    let closed = store
        .backend()
        .close()
        .await
        .map_err(|e| Failure::Store(e.to_string()));
    ran.and(closed)
}

/// The demo's data set: every item it writes, in the order it writes them.
struct DataSet {
    collections: Vec<Collection>,
    /// The tickets as first written.
    tickets: Vec<Ticket>,
    /// The ticket updates after them: which ticket, and how far its `updated_at` moves.
    updates: Vec<(usize, u64)>,
}

impl DataSet {
    /// The data set, the same on every run.
    fn generate() -> DataSet {
        let mut rng = Rng(42);
        let collections = (0..USERS).map(|n| generate_user(&mut rng, n)).collect();
        let tickets = (0..TICKETS)
            .map(|id| Ticket {
                id,
                board: id % BOARDS,
                title: format!("ticket {id}"),
                updated_at: EPOCH + rng.below(1_000_000),
            })
            .collect();
        let updates = (0..TICKET_UPDATES)
            .map(|_| {
                let ticket = rng.below(TICKETS) as usize;
                (ticket, 1 + rng.below(2_000_000))
            })
            .collect();
        DataSet {
            collections,
            tickets,
            updates,
        }
    }

    /// Fails if `store` holds, at a key the demo writes, an item the demo never writes there
    /// (someone's own `/ticket-7`): the load would replace it. Items an earlier run of the
    /// demo wrote, whole or in part, are its own.
    async fn check_keys_free<B: Backend>(&self, store: &Store<B>) -> Result<(), String> {
        let mut users = Vec::new();
        let mut posts = Vec::new();
        let mut comments = Vec::new();
        let mut reactions = Vec::new();
        for col in &self.collections {
            users.push(vec![col.user.clone()]);
            posts.extend(col.posts.iter().map(|p| vec![p.clone()]));
            comments.extend(col.comments.iter().map(|c| vec![c.clone()]));
            reactions.extend(col.reactions.iter().map(|r| vec![r.clone()]));
        }
        // Every state each ticket is written in.
        let mut tickets: Vec<Vec<Ticket>> = self.tickets.iter().map(|t| vec![t.clone()]).collect();
        for &(ticket, step) in &self.updates {
            let states = &mut tickets[ticket];
            let mut next = states.last().expect("the first state").clone();
            next.updated_at += step;
            states.push(next);
        }
        only_own_items(store, &users).await?;
        only_own_items(store, &posts).await?;
        only_own_items(store, &comments).await?;
        only_own_items(store, &reactions).await?;
        only_own_items(store, &tickets).await
    }
}

/// Fails if an item is stored at the key of one of `states` (every state an item of the
/// demo takes, item by item) that is none of them.
async fn only_own_items<B: Backend, T: Item + PartialEq>(
    store: &Store<B>,
    states: &[Vec<T>],
) -> Result<(), String> {
    for chunk in states.chunks(1000) {
        let paths = chunk
            .iter()
            .map(|s| s[0].key_path())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let found = store
            .batch_get_raw(&paths)
            .await
            .map_err(|e| format!("reading the keys the demo writes: {e}"))?;
        for ((path, own), raw) in paths.iter().zip(chunk).zip(found) {
            let Some(raw) = raw else { continue };
            let is_own = raw
                .decode_item::<T>()
                .is_ok_and(|stored| own.contains(&stored.item));
            if !is_own {
                return Err(format!(
                    "holds an item at {path} that the demo did not write (someone's own, or \
                     the demo's changed since), which the demo would replace: give the demo \
                     a directory without a store"
                ));
            }
        }
    }
    Ok(())
}

/// Loads the data set into `store` and runs the queries. With `existing`, the store may
/// hold items already: the load is refused if it would replace any that are not the demo's.
async fn run_on<B: Backend>(
    store: &Store<B>,
    existing: Option<&str>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let data = DataSet::generate();
    if let Some(place) = existing {
        data.check_keys_free(store)
            .await
            .map_err(|e| Failure::BadInput(format!("{place} {e}")))?;
    }
    writeln!(out)?;

    // ---- load ----
    let DataSet {
        collections,
        mut tickets,
        updates,
    } = data;
    let total: usize = collections.iter().map(Collection::len).sum();
    let (posts, comments, reactions) = collections.iter().fold((0, 0, 0), |(p, c, r), col| {
        (
            p + col.posts.len(),
            c + col.comments.len(),
            r + col.reactions.len(),
        )
    });
    writeln!(
        out,
        "Loading {USERS} users, {posts} posts, {comments} comments and {reactions} reactions \
         ({total} items, one transaction per user's item collection)..."
    )?;
    // Shown before the load, which takes seconds, also when stdout is a pipe (buffered).
    out.flush()?;
    let started = Instant::now();
    let mut progress = Progress::new("items", total as u64);
    for col in &collections {
        let mut txn = store.transaction();
        txn.put(&col.user).map_err(store_err("put user"))?;
        for p in &col.posts {
            txn.put(p).map_err(store_err("put post"))?;
        }
        for c in &col.comments {
            txn.put(c).map_err(store_err("put comment"))?;
        }
        for r in &col.reactions {
            txn.put(r).map_err(store_err("put reaction"))?;
        }
        txn.commit().await.map_err(store_err("commit"))?;
        progress.add(col.len() as u64);
    }
    progress.finish();
    writeln!(out, "  loaded {}", rate(total, started))?;
    out.flush()?;

    let started = Instant::now();
    let mut progress = Progress::new("tickets", TICKETS + TICKET_UPDATES);
    for t in &tickets {
        store.put(t).await.map_err(store_err("put ticket"))?;
        progress.add(1);
    }
    // Updates move tickets in the index: the old entry goes in the same atomic write.
    for (ticket, step) in updates {
        let t = &mut tickets[ticket];
        t.updated_at += step;
        store.put(&*t).await.map_err(store_err("update ticket"))?;
        progress.add(1);
    }
    progress.finish();
    writeln!(
        out,
        "  {TICKETS} tickets with a by_updated index, then {TICKET_UPDATES} updates: {}",
        rate((TICKETS + TICKET_UPDATES) as usize, started)
    )?;
    writeln!(out)?;

    // ---- queries ----
    let busiest = collections
        .iter()
        .max_by_key(|c| (c.len(), c.user.id))
        .expect("users were generated");
    let user_path = busiest
        .user
        .key_path()
        .map_err(|e| Failure::Store(e.to_string()))?;

    let started = Instant::now();
    let timeline = store
        .list_raw(&Query::prefix(&user_path).map_err(store_err("query"))?)
        .await
        .map_err(store_err("timeline"))?;
    writeln!(
        out,
        "Timeline of {} ({}): {} items in one ordered list call, {:.2} ms",
        busiest.user.name,
        user_path,
        timeline.items.len(),
        started.elapsed().as_secs_f64() * 1e3
    )?;
    show(out, &timeline.items, 12)?;
    writeln!(out)?;

    let post = busiest
        .posts
        .iter()
        .max_by_key(|p| p.id)
        .expect("busiest user has posts");
    let post_path = post.key_path().map_err(|e| Failure::Store(e.to_string()))?;
    let started = Instant::now();
    let thread = store
        .list_raw(&Query::prefix(&post_path).map_err(store_err("query"))?)
        .await
        .map_err(store_err("post"))?;
    writeln!(
        out,
        "One post with its comments and reactions ({post_path}): {} items, {:.2} ms",
        thread.items.len(),
        started.elapsed().as_secs_f64() * 1e3
    )?;
    show(out, &thread.items, 10)?;
    writeln!(out)?;

    let comments_path = post_path
        .clone()
        .push_namespace("comment")
        .map_err(|e| Failure::Store(e.to_string()))?;
    let started = Instant::now();
    let latest = store
        .list_raw(
            &Query::prefix(&comments_path)
                .map_err(store_err("query"))?
                .reverse()
                .limit(6),
        )
        .await
        .map_err(store_err("latest comments"))?;
    writeln!(
        out,
        "Latest first: the newest comment threads on that post (reverse list, limit 6), {:.2} ms",
        started.elapsed().as_secs_f64() * 1e3
    )?;
    show(out, &latest.items, 6)?;
    writeln!(out)?;

    // Paging: forwards through the whole timeline 7 items at a time, then backwards.
    let started = Instant::now();
    let mut forward = Vec::new();
    let mut pages = 0;
    let mut query = Query::prefix(&user_path)
        .map_err(store_err("query"))?
        .limit(7);
    loop {
        let page = store.list_raw(&query).await.map_err(store_err("page"))?;
        pages += 1;
        forward.extend(page.items.into_iter().map(|i| i.key().clone()));
        match page.cursor {
            Some(cursor) => query = query.after(cursor),
            None => break,
        }
    }
    let mut backward = Vec::new();
    let mut query = Query::prefix(&user_path)
        .map_err(store_err("query"))?
        .reverse()
        .limit(7);
    loop {
        let page = store.list_raw(&query).await.map_err(store_err("page"))?;
        backward.extend(page.items.into_iter().map(|i| i.key().clone()));
        match page.cursor {
            Some(cursor) => query = query.after(cursor),
            None => break,
        }
    }
    backward.reverse();
    let whole: Vec<KeyPath> = timeline.items.iter().map(|i| i.key().clone()).collect();
    writeln!(
        out,
        "Paging: the timeline in {pages} pages of 7 via opaque cursors, forwards and backwards: \
         {} and {} items, {} ({:.2} ms)",
        forward.len(),
        backward.len(),
        if forward == whole && backward == whole {
            "both exactly the single list"
        } else {
            "MISMATCH"
        },
        started.elapsed().as_secs_f64() * 1e3
    )?;
    if forward != whole || backward != whole {
        return Err(Failure::Store(
            "paging did not reproduce the single list".into(),
        ));
    }
    writeln!(out)?;

    let board: KeyPath = "/board-1".parse().expect("valid path");
    let started = Instant::now();
    let recent = store
        .query_index::<Ticket>(
            "by_updated",
            &Query::prefix(&board)
                .map_err(store_err("query"))?
                .reverse()
                .limit(5),
        )
        .await
        .map_err(store_err("index"))?;
    writeln!(
        out,
        "Index by_updated: the 5 most recently updated tickets on board 1, {:.2} ms",
        started.elapsed().as_secs_f64() * 1e3
    )?;
    for t in &recent.items {
        writeln!(out, "    {}  updated_at {}", t.key, t.item.updated_at)?;
    }
    let all = store
        .query_index::<Ticket>(
            "by_updated",
            &Query::prefix(&board).map_err(store_err("query"))?,
        )
        .await
        .map_err(store_err("index"))?;
    let expected: Vec<(u64, u64)> = {
        let mut v: Vec<(u64, u64)> = tickets
            .iter()
            .filter(|t| t.board == 1)
            .map(|t| (t.updated_at, t.id))
            .collect();
        v.sort();
        v
    };
    let got: Vec<(u64, u64)> = all
        .items
        .iter()
        .map(|t| (t.item.updated_at, t.item.id))
        .collect();
    writeln!(
        out,
        "  {} index entries for board 1 after {TICKET_UPDATES} updates: {}",
        got.len(),
        if got == expected {
            "exactly one per ticket, at its latest updated_at (no stale entries)"
        } else {
            "MISMATCH"
        }
    )?;
    if got != expected {
        return Err(Failure::Store(
            "the index does not match the tickets".into(),
        ));
    }
    writeln!(out)?;

    string_keys(busiest, out)?;
    Ok(())
}

/// Shows how hand-made string keys for the same items sort, against the key paths.
fn string_keys(col: &Collection, out: &mut impl Write) -> Result<(), Failure> {
    let short = &col.user.id.simple().to_string()[..8];
    let mut rows: Vec<(String, KeyPath)> = Vec::new();
    for p in &col.posts {
        rows.push((
            format!("USER#{short}#POST#{}", p.id),
            p.key_path().map_err(|e| Failure::Store(e.to_string()))?,
        ));
    }
    for c in &col.comments {
        rows.push((
            format!("USER#{short}#POST#{}#COMMENT#{}", c.post, c.at),
            c.key_path().map_err(|e| Failure::Store(e.to_string()))?,
        ));
    }
    let mut by_string = rows.clone();
    by_string.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_path = rows;
    by_path.sort_by_key(|row| row.1.encode());
    let misplaced = by_string
        .iter()
        .zip(&by_path)
        .filter(|(s, p)| s.0 != p.0)
        .count();
    writeln!(
        out,
        "The same posts and comments with string keys (USER#..#POST#n#COMMENT#ts), sorted as a store sorts them:"
    )?;
    for (s, _) in by_string.iter().take(8) {
        writeln!(out, "    {s}")?;
    }
    writeln!(out, "  and as key paths:")?;
    for (_, p) in by_path.iter().take(8) {
        writeln!(out, "    {p}")?;
    }
    writeln!(
        out,
        "  {misplaced} of {} items would sit at a different position with string keys \
         (post numbers compare digit by digit).",
        by_path.len()
    )?;
    Ok(())
}
