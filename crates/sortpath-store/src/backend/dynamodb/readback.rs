//! The one place where the DynamoDB backend reads the store's item envelope: when it
//! rebuilds a value from what a table holds. Writes never read it (the store hands each
//! item's parts over with [`Write::PutItem`](crate::backend::Write::PutItem)), but a read has
//! only the stored attributes, and two things there need the envelope's header:
//!
//! - an item whose header leaves out the key paths of the indexes the table keeps as GSIs
//!   (written so to keep them once, in the GSI key attributes) reads back whole: the paths
//!   are put back from the GSI key attributes, where the header has a zero length;
//! - an item a GSI query returns becomes what an exact entry holds: the item type and the
//!   payload, split at the header's end.
//!
//! [`read`] is the entry point; everything else here serves it.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::attrs::{blob, corrupt, version, KeptIndex, HDR, ITEM, SHAPE, VAL, VER};
use super::native;
use crate::backend::{BackendError, Record};
use crate::envelope::Header;

/// What [`read`] makes of an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadAs {
    /// The record stored: value bytes exactly as written (index key paths left out of the
    /// header for kept indexes restored from the GSI key attributes).
    Record,
    /// What an exact index entry would hold, from an item a GSI query returned: the item as
    /// a projected entry ([`ENTRY_PROJECTED`](crate::layout::ENTRY_PROJECTED)) at its
    /// version where the GSI projects it, [`ENTRY_FORMAT`](crate::layout::ENTRY_FORMAT)
    /// where it projects keys only (no `ver`). The entry keeps only the item's type and
    /// payload, which a header with index key paths left out has as they were: the paths
    /// are not rebuilt.
    GsiEntry,
}

/// The record an item of the table stands for, read as `what` says, with the GSIs the
/// table keeps (`kept`, for the key attributes of left-out paths).
pub(crate) fn read(
    item: &HashMap<String, AttributeValue>,
    kept: &[KeptIndex],
    what: ReadAs,
) -> Result<Record, BackendError> {
    match what {
        ReadAs::Record => {
            let Record { value, version } = stored_record(item)?;
            // Always looked at: an item whose header lacks a path must not read as a
            // record without it, even through a backend that was not told of the table's
            // GSIs.
            let value = restore_elided(item, value, kept)?;
            Ok(Record { value, version })
        }
        ReadAs::GsiEntry => gsi_entry_record(item),
    }
}

/// The record in an item as stored: index key paths left out of the header stay out.
fn stored_record(item: &HashMap<String, AttributeValue>) -> Result<Record, BackendError> {
    let version = version(item)?.ok_or_else(|| corrupt(format!("no {VER} attribute")))?;
    let value = if let Some(fields) = item.get(ITEM) {
        let hdr = blob(item, HDR).ok_or_else(|| corrupt(format!("{ITEM} without {HDR}")))?;
        let shape = blob(item, SHAPE).ok_or_else(|| corrupt(format!("{ITEM} without {SHAPE}")))?;
        let payload = native::from_native(fields, shape)
            .ok_or_else(|| corrupt(format!("{ITEM} does not match its {SHAPE}")))?;
        [hdr, &payload].concat()
    } else {
        match item.get(VAL) {
            None => Vec::new(),
            Some(AttributeValue::B(b)) => b.as_ref().to_vec(),
            Some(other) => return Err(corrupt(format!("{VAL} is {other:?}, not binary"))),
        }
    };
    Ok(Record { value, version })
}

/// See [`ReadAs::GsiEntry`].
fn gsi_entry_record(item: &HashMap<String, AttributeValue>) -> Result<Record, BackendError> {
    if !item.contains_key(VER) {
        return Ok(Record {
            value: vec![crate::layout::ENTRY_FORMAT],
            version: 0,
        });
    }
    let record = stored_record(item)?;
    let header = Header::parse(&record.value).map_err(|e| {
        corrupt(format!(
            "a GSI returned an item that is not an envelope: {e}"
        ))
    })?;
    let item_type = header.item_type.as_bytes();
    let payload = &record.value[header.payload_start..];
    let mut value = Vec::with_capacity(2 + item_type.len() + payload.len());
    value.push(crate::layout::ENTRY_PROJECTED);
    value.push(item_type.len() as u8);
    value.extend_from_slice(item_type);
    value.extend_from_slice(payload);
    Ok(Record {
        value,
        version: record.version,
    })
}

/// The value `value` (read from `item`) with the index key paths `attrs::elide_paths` left out
/// rebuilt from the item's GSI key attributes: the group from the GSI partition key, the
/// rest from the GSI sort key (before its `00 00`).
fn restore_elided(
    item: &HashMap<String, AttributeValue>,
    value: Vec<u8>,
    kept: &[KeptIndex],
) -> Result<Vec<u8>, BackendError> {
    let Ok(header) = Header::parse(&value) else {
        return Ok(value);
    };
    if header.indexes.iter().all(|(_, _, path)| !path.is_empty()) {
        return Ok(value);
    }
    let mut out = Vec::with_capacity(value.len() + 64);
    let mut copied = 0;
    for (name, at, path) in &header.indexes {
        if !path.is_empty() {
            continue;
        }
        let index = kept.iter().find(|k| k.name == *name).ok_or_else(|| {
            corrupt(format!(
                "index {name} has no key path in the item's header and the table keeps no \
                 GSI for it"
            ))
        })?;
        let (Some(group), Some(sort)) = (blob(item, &index.pk), blob(item, &index.sk)) else {
            return Err(corrupt(format!(
                "index {name} has no key path in the item's header and the item no GSI key \
                 attributes {} and {}",
                index.pk, index.sk
            )));
        };
        let restored = (|| {
            let group =
                sortpath::KeyPath::decode(group).map_err(|e| format!("{}: {e}", index.pk))?;
            let rest = crate::layout::entry_rest(sort).map_err(|e| format!("{}: {e}", index.sk))?;
            group
                .join(&rest)
                .map(sortpath::KeyPath::into_bytes)
                .map_err(|e| e.to_string())
        })()
        .map_err(|e| corrupt(format!("index {name}'s key path from the GSI keys: {e}")))?;
        let len = u16::try_from(restored.len())
            .map_err(|_| corrupt(format!("index {name}'s key path is over 65535 bytes")))?;
        out.extend_from_slice(&value[copied..at - 2]);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&restored);
        copied = *at;
    }
    out.extend_from_slice(&value[copied..]);
    Ok(out)
}
