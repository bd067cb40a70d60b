//! A leaderboard on a changing attribute: players keyed by ID, ranked by score through a
//! secondary index that the store keeps exact on every write (the entry moves in the same
//! atomic write as the item), read top-N with one ordered index query.
//!
//! ```sh
//! cargo run --release -p sortpath-store --example leaderboard
//! ```
//!
//! The index key is `/game-{game}/score-{score}/player-{id}`: scores are integers, so 1,000
//! ranks above 999 (a string key would need zero padding, and negative scores would sort
//! backwards); the player ID after the score keeps ties in one defined order.

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::redb::RedbBackend;
use sortpath_store::{Index, Item, Projection, Query, Store};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Player {
    game: u64,
    id: u64,
    name: String,
    score: i64,
}

impl Item for Player {
    const TYPE: &'static str = "player";
    // The entries carry the whole player (`Projection::All`): the top-N query reads the
    // index only, no item behind each entry.
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_score", |p: &Player| {
        Ok(Some(
            KeyPath::new()
                .push("game", p.game)?
                .push("score", p.score)?
                .push("player", p.id)?,
        ))
    })
    .projecting(Projection::All)];

    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("game", self.game)?
            .push("player", self.id)
    }
}

/// The names of the `n` best players of game 7, best first.
async fn top(
    store: &Store<RedbBackend>,
    n: usize,
) -> Result<Vec<(String, i64)>, Box<dyn std::error::Error>> {
    let q = Query::prefix(&"/game-7".parse()?)?.reverse().limit(n);
    let page = store.query_index::<Player>("by_score", &q).await?;
    Ok(page
        .items
        .into_iter()
        .map(|p| (p.item.name, p.item.score))
        .collect())
}

async fn run(dir: &std::path::Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let store = Store::create(dir).await?;
    let mut out = Vec::new();
    for (id, name, score) in [
        (1, "ann", 999),
        (2, "bob", 1_000),
        (3, "cy", -5),
        (4, "dee", 20),
        (5, "eve", 999),
    ] {
        store
            .put(&Player {
                game: 7,
                id,
                name: name.into(),
                score,
            })
            .await?;
    }
    let podium = top(&store, 3).await?;
    // 1,000 above 999; the tie at 999 in descending player ID (the reverse of the key).
    assert_eq!(
        podium,
        [
            ("bob".into(), 1_000),
            ("eve".into(), 999),
            ("ann".into(), 999)
        ]
    );
    out.push(format!("top 3: {podium:?}"));

    // Scores change: cy climbs from last to first. The old entry is gone in the same write.
    store
        .update(&"/game-7/player-3".parse()?, |p: Option<Player>| {
            p.map(|p| Player { score: 5_000, ..p })
        })
        .await?;
    let podium = top(&store, 2).await?;
    assert_eq!(podium, [("cy".into(), 5_000), ("bob".into(), 1_000)]);
    out.push(format!("after cy scores 5000: {podium:?}"));

    // The whole ranking, lowest first: every player exactly once.
    let all = Query::prefix(&"/game-7".parse()?)?;
    let ranking = store.query_index::<Player>("by_score", &all).await?;
    let scores: Vec<i64> = ranking.items.iter().map(|p| p.item.score).collect();
    assert_eq!(scores, [20, 999, 999, 1_000, 5_000]);
    out.push(format!("every score, lowest first: {scores:?}"));
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
    fn the_ranking_follows_every_score_change() {
        let dir = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        let lines = rt.block_on(super::run(dir.path())).unwrap();
        assert_eq!(lines.len(), 3);
    }
}
