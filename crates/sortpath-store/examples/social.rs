//! A single-table social app on the embedded store (redb): users, their posts, and each
//! post's comments, keyed as key paths so that every access pattern is one ordered read.
//!
//! ```sh
//! cargo run --release -p sortpath-store --example social
//! ```
//!
//! Keys:
//! - a user: `/user-{id}`, the root of the user's item collection;
//! - a post: `/user-{id}/post-{post}` (numbers sort as numbers: post 9 before post 42
//!   before post 100, which string keys such as `POST#9`, `POST#42`, `POST#100` get wrong);
//! - a comment: `/post-{post}/comment-{at}`, in the post's own collection, so listing a
//!   user's posts reads no comments and a post's comments come in time order.

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::{Item, Query, Store};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct User {
    id: u64,
    name: String,
}

impl Item for User {
    const TYPE: &'static str = "user";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new().push("user", self.id)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Post {
    user: u64,
    id: u64,
    title: String,
}

impl Item for Post {
    const TYPE: &'static str = "post";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("user", self.user)?
            .push("post", self.id)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Comment {
    post: u64,
    /// When it was written, in milliseconds since the Unix epoch.
    at: u64,
    author: u64,
    text: String,
}

impl Item for Comment {
    const TYPE: &'static str = "comment";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("post", self.post)?
            .push("comment", self.at)
    }
}

/// Builds the data set in the store at `dir` and reads it back through each access
/// pattern; returns the lines it prints.
async fn run(dir: &std::path::Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let store = Store::create(dir).await?;
    let mut out = Vec::new();
    store
        .put(&User {
            id: 1,
            name: "Ada".into(),
        })
        .await?;
    for (id, title) in [(100, "a hundred"), (9, "nine"), (42, "forty-two")] {
        store
            .put(&Post {
                user: 1,
                id,
                title: title.into(),
            })
            .await?;
    }
    for (at, author, text) in [
        (1_700_000_002_000, 2, "second"),
        (1_700_000_001_000, 3, "first"),
    ] {
        store
            .put(&Comment {
                post: 42,
                at,
                author,
                text: text.into(),
            })
            .await?;
    }

    // Get by key.
    let user: KeyPath = "/user-1".parse()?;
    let ada = store.get::<User>(&user).await?.ok_or("no user 1")?;
    out.push(format!(
        "user {} is {} (version {})",
        ada.item.id, ada.item.name, ada.version
    ));

    // A user's posts in ID order: one range read of the user's collection.
    let posts = store.list::<Post>(&Query::children(&user, "post")?).await?;
    let ids: Vec<u64> = posts.items.iter().map(|p| p.item.id).collect();
    assert_eq!(ids, [9, 42, 100], "numbers sort as numbers");
    out.push(format!("posts of user 1: {ids:?}"));

    // The newest (highest ID) two, then the page after them through the cursor.
    let newest = Query::children(&user, "post")?.reverse().limit(2);
    let page = store.list::<Post>(&newest).await?;
    let first: Vec<u64> = page.items.iter().map(|p| p.item.id).collect();
    assert_eq!(first, [100, 42]);
    let cursor = page.cursor.ok_or("a full page has a cursor")?;
    let rest = store.list::<Post>(&newest.clone().after(cursor)).await?;
    let rest: Vec<u64> = rest.items.iter().map(|p| p.item.id).collect();
    assert_eq!(rest, [9]);
    out.push(format!("newest two: {first:?}, then {rest:?}"));

    // A post's comments in time order.
    let post: KeyPath = "/post-42".parse()?;
    let comments = store
        .list::<Comment>(&Query::children(&post, "comment")?)
        .await?;
    let texts: Vec<&str> = comments
        .items
        .iter()
        .map(|c| c.item.text.as_str())
        .collect();
    assert_eq!(texts, ["first", "second"]);
    out.push(format!("comments on post 42: {texts:?}"));

    // Rename a post with a read-modify-write that retries on a conflicting writer.
    let path: KeyPath = "/user-1/post-9".parse()?;
    let renamed = store
        .update(&path, |p: Option<Post>| {
            p.map(|p| Post {
                title: "nine, renamed".into(),
                ..p
            })
        })
        .await?
        .ok_or("post 9 exists")?;
    assert_eq!(renamed.item.title, "nine, renamed");
    out.push(format!("post 9 is now {:?}", renamed.item.title));

    // Delete a post: gone from the list.
    assert!(store.delete(&"/user-1/post-100".parse()?).await?);
    let left = store.list::<Post>(&Query::children(&user, "post")?).await?;
    let left: Vec<u64> = left.items.iter().map(|p| p.item.id).collect();
    assert_eq!(left, [9, 42]);
    out.push(format!("after deleting post 100: {left:?}"));
    Ok(out)
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    for line in rt.block_on(run(dir.path()))? {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_access_pattern_answers_as_printed() {
        let dir = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        let lines = rt.block_on(super::run(dir.path())).unwrap();
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[1], "posts of user 1: [9, 42, 100]");
    }
}
