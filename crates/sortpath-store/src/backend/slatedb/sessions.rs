//! Writer sessions: a record of each writer's log fence, and the check before every open
//! that an empty log file above the replay point is some writer's fence.
//!
//! SlateDB (0.18.0) fences the log at each writer open with an empty (zero-byte) log file
//! `wal/ID.sst`, at the first free ID, after it has raised the manifest's writer epoch. A
//! log file holding data is never empty. Nothing in SlateDB's files tells a fence from a
//! log file emptied by damage, and SlateDB replays both as empty: the acknowledged writes
//! of an emptied file above the replay point are dropped without a word.
//!
//! So each writer, once open, records its fence: the empty object
//! `sortpath/sessions/EPOCH-FENCE` (both 20 digits) beside SlateDB's directories. Before
//! every open (reader and writer, before SlateDB replays anything), the empty log files
//! above the replay point that no record claims must each fit in a writer epoch that left
//! no record. Fences are in epoch order (a writer's fence is above every earlier writer's
//! log file), so between the claimed fences of epochs `a < b` there is room for `b - a - 1`
//! unclaimed ones, above the last claimed fence (epoch `l`) for `E - l` (`E` the manifest's
//! epoch), below the first for those after the greatest recorded epoch whose fence is at or
//! below the replay point (no such record: no bound, as for a store written before
//! records). A writer killed before its record, or before its fence, only leaves more room.
//! The check lists the records, then the log, then reads the manifest: a writer opening
//! meanwhile can only add room.
//!
//! A writer, once its record is written, removes the records whose fence is at or below the
//! replay point but the greatest of them: the check reads the same bound without them, so
//! the records stay a handful instead of one per writer open.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use slatedb::object_store::path::Path;
use slatedb::object_store::{self, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use super::{EngineError, OpenError, Place};

/// How long the manifest read may take: SlateDB's admin client retries failed object store
/// requests without a bound.
const MANIFEST_READ_LIMIT: Duration = Duration::from_secs(60);

/// What the check saw of the manifest: the writer epoch (0 if there is no manifest yet).
pub(super) struct Seen {
    epoch: u64,
}

fn sessions_dir(place: &Place) -> Path {
    place.path.clone().join("sortpath").join("sessions")
}

fn wal_dir(place: &Place) -> Path {
    place.path.clone().join("wal")
}

fn listing_failed(place: &Place, what: &str, e: object_store::Error) -> OpenError {
    OpenError::Location {
        location: place.location.clone(),
        message: format!("listing its {what} failed: {e}"),
    }
}

/// The writer epoch and replay point of the latest manifest (`None`: no manifest).
async fn manifest(place: &Place) -> Result<Option<(u64, u64)>, OpenError> {
    let admin = slatedb::admin::Admin::builder(place.path.clone(), place.checked_store()).build();
    let read = tokio::time::timeout(MANIFEST_READ_LIMIT, admin.read_manifest(None))
        .await
        .map_err(|_| OpenError::Location {
            location: place.location.clone(),
            message: format!("reading its manifest took more than {MANIFEST_READ_LIMIT:?}"),
        })?
        .map_err(|source| EngineError {
            location: place.location.clone(),
            source,
        })?;
    Ok(read.map(|m| (m.writer_epoch(), m.replay_after_wal_id())))
}

/// The session records: epoch -> fence.
async fn records(place: &Place) -> Result<BTreeMap<u64, u64>, OpenError> {
    let listed = place
        .store
        .list_with_delimiter(Some(&sessions_dir(place)))
        .await
        .map_err(|e| listing_failed(place, "sortpath/sessions/", e))?;
    Ok(listed
        .objects
        .iter()
        .filter_map(|o| {
            let (epoch, fence) = o.location.filename()?.split_once('-')?;
            Some((epoch.parse().ok()?, fence.parse().ok()?))
        })
        .collect())
}

/// The IDs of the empty log files.
async fn empty_wals(place: &Place) -> Result<BTreeSet<u64>, OpenError> {
    let listed = place
        .store
        .list_with_delimiter(Some(&wal_dir(place)))
        .await
        .map_err(|e| listing_failed(place, "wal/", e))?;
    Ok(listed
        .objects
        .iter()
        .filter(|o| o.size == 0)
        .filter_map(|o| o.location.filename()?.strip_suffix(".sst")?.parse().ok())
        .collect())
}

/// The empty log files above `replay_after` that cannot all be fences: those of the first
/// stretch between claimed fences that holds more of them than writers without a record
/// could have written. Empty if every one fits.
pub(super) fn unaccounted(
    records: &BTreeMap<u64, u64>,
    empty: &BTreeSet<u64>,
    replay_after: u64,
    epoch: u64,
) -> Vec<u64> {
    // Fences rise with the epoch; records that do not are not a writer's own: decide nothing.
    if records
        .values()
        .zip(records.values().skip(1))
        .any(|(a, b)| a >= b)
    {
        return Vec::new();
    }
    let floor = records
        .iter()
        .filter(|(_, &fence)| fence <= replay_after)
        .map(|(&e, _)| e)
        .next_back();
    let claimed: Vec<(u64, u64)> = records
        .iter()
        .filter(|(_, &fence)| fence > replay_after)
        .map(|(&e, &f)| (e, f))
        .collect();
    // Stretch i: between claimed fence i - 1 (or the replay point) and claimed fence i (or
    // the end of the log).
    let mut stretches: Vec<Vec<u64>> = vec![Vec::new(); claimed.len() + 1];
    for &id in empty.range(replay_after + 1..) {
        if claimed.iter().any(|&(_, f)| f == id) {
            continue;
        }
        let i = claimed.iter().filter(|&&(_, f)| f < id).count();
        stretches[i].push(id);
    }
    for (i, ids) in stretches.into_iter().enumerate() {
        let below = if i == 0 {
            floor
        } else {
            Some(claimed[i - 1].0)
        };
        let Some(below) = below else { continue };
        // Epochs strictly between `below` and the next claimed epoch (or up to `epoch`).
        let room = match claimed.get(i) {
            Some(&(above, _)) => above.saturating_sub(below).saturating_sub(1),
            None => epoch.saturating_sub(below),
        };
        if ids.len() as u64 > room {
            return ids;
        }
    }
    Vec::new()
}

/// The check before an open: fails with [`OpenError::LostWrites`] if an empty log file
/// above the replay point is no writer's fence. Writes nothing.
pub(super) async fn check(place: &Place) -> Result<Seen, OpenError> {
    let records = records(place).await?;
    let empty = empty_wals(place).await?;
    let Some((epoch, replay_after)) = manifest(place).await? else {
        return Ok(Seen { epoch: 0 });
    };
    let lost = unaccounted(&records, &empty, replay_after, epoch);
    if !lost.is_empty() {
        let file = |id: u64| {
            let path = wal_dir(place).join(format!("{id:020}.sst").as_str());
            if place.root.is_empty() {
                path.to_string()
            } else {
                format!("{}/{path}", place.root.trim_end_matches('/'))
            }
        };
        return Err(OpenError::LostWrites {
            location: place.location.clone(),
            files: lost.into_iter().map(file).collect(),
        });
    }
    Ok(Seen { epoch })
}

/// After a writer opened (its fence written): records the fence as this writer's, if the
/// manifest's epoch is still the one this writer took (the check saw `seen`, this writer
/// raised it by one). Else another writer opened meanwhile and nothing is recorded (a
/// missing record only leaves the check more room).
pub(super) async fn record(place: &Place, seen: &Seen) -> Result<(), OpenError> {
    let empty = empty_wals(place).await?;
    let Some((epoch, replay_after)) = manifest(place).await? else {
        return Ok(());
    };
    prune(place, replay_after).await;
    // This writer's fence is the greatest empty log file: any above it is a later writer's,
    // which raised the epoch before writing it (the log was listed first).
    let (true, Some(&fence)) = (epoch == seen.epoch + 1, empty.last()) else {
        return Ok(());
    };
    let at = sessions_dir(place).join(format!("{epoch:020}-{fence:020}").as_str());
    let options = PutOptions {
        mode: PutMode::Create,
        ..PutOptions::default()
    };
    match place.store.put_opts(&at, PutPayload::new(), options).await {
        Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => Ok(()),
        Err(e) => Err(OpenError::Location {
            location: place.location.clone(),
            message: format!("writing its session record {at} failed: {e}"),
        }),
    }
}

/// The records the check no longer needs once the replay point is `replay_after`: those
/// whose fence is at or below it, but the greatest of them (the check's lower bound). The
/// replay point only rises, so the check reads the same bound without them.
pub(super) fn prunable(records: &BTreeMap<u64, u64>, replay_after: u64) -> Vec<(u64, u64)> {
    let mut below: Vec<(u64, u64)> = records
        .iter()
        .filter(|(_, &fence)| fence <= replay_after)
        .map(|(&e, &f)| (e, f))
        .collect();
    below.pop();
    below
}

/// Removes the records [`prunable`] names, so that they stay a handful (one per writer open
/// since the last flush, and one below), not one per writer open ever. Best effort: a record
/// left behind only costs its listing, and another writer may remove the same ones.
async fn prune(place: &Place, replay_after: u64) {
    let Ok(records) = records(place).await else {
        return;
    };
    for (epoch, fence) in prunable(&records, replay_after) {
        let at = sessions_dir(place).join(format!("{epoch:020}-{fence:020}").as_str());
        let _ = place.store.delete(&at).await;
    }
}

#[cfg(test)]
mod tests {
    use super::unaccounted;
    use std::collections::{BTreeMap, BTreeSet};

    fn run(records: &[(u64, u64)], empty: &[u64], replay_after: u64, epoch: u64) -> Vec<u64> {
        let records: BTreeMap<u64, u64> = records.iter().copied().collect();
        let empty: BTreeSet<u64> = empty.iter().copied().collect();
        unaccounted(&records, &empty, replay_after, epoch)
    }

    #[test]
    fn fences_of_writers_without_records_fit() {
        // No records (a store from before them): no bound.
        assert!(run(&[], &[1, 3, 5], 0, 3).is_empty());
        // Epochs 1 and 3 recorded, 2 killed before its record: its fence 3 fits.
        assert!(run(&[(1, 1), (3, 5)], &[1, 3, 5], 0, 3).is_empty());
        // Epoch 4 opened after the last record, not recorded: its fence 7 fits.
        assert!(run(&[(1, 1), (3, 5)], &[1, 3, 5, 7], 0, 4).is_empty());
        // Below the replay point nothing counts.
        assert!(run(&[(1, 1), (2, 3)], &[1, 2, 3], 2, 2).is_empty());
    }

    #[test]
    fn an_emptied_log_file_is_unaccounted() {
        // The last writer recorded fence 3, its data file 4 emptied.
        assert_eq!(run(&[(1, 1), (2, 3)], &[1, 3, 4], 0, 2), [4]);
        // Between two recorded fences of consecutive epochs.
        assert_eq!(run(&[(1, 1), (2, 3)], &[1, 2, 3], 0, 2), [2]);
        // Above a record at or below the replay point, with one writer since.
        assert_eq!(run(&[(1, 1), (2, 3)], &[3, 5, 6], 4, 3), [5, 6]);
    }

    #[test]
    fn pruning_keeps_the_bound_the_check_reads() {
        use super::prunable;
        let records: std::collections::BTreeMap<u64, u64> =
            [(1, 1), (2, 3), (3, 5), (5, 9)].into_iter().collect();
        // Replay point 5: the records of fences 1 and 3 go, the one of fence 5 (the check's
        // lower bound) and the one above stay.
        assert_eq!(prunable(&records, 5), [(1, 1), (2, 3)]);
        assert_eq!(prunable(&records, 0), []);
        assert_eq!(prunable(&records, 100), [(1, 1), (2, 3), (3, 5)]);
        // What the check decides is the same with the pruned records gone.
        let kept: std::collections::BTreeMap<u64, u64> = [(3, 5), (5, 9)].into_iter().collect();
        for (empty, epoch) in [(vec![7u64, 9], 5u64), (vec![6, 7, 9], 5), (vec![9, 11], 6)] {
            let empty = empty.into_iter().collect();
            assert_eq!(
                super::unaccounted(&records, &empty, 5, epoch),
                super::unaccounted(&kept, &empty, 5, epoch),
                "empty {empty:?}, epoch {epoch}"
            );
        }
    }
}
