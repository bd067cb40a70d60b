//! Records as DynamoDB items (the attribute layout of the module doc), and item sizes.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::native;
use crate::backend::{BackendError, Key, Record};
use crate::envelope::Header;

/// Partition key attribute: the backend group key (B).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::PK, "pk");
/// ```
pub const PK: &str = "pk";
/// Sort key attribute: the backend sort key (B).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::SK, "sk");
/// ```
pub const SK: &str = "sk";
/// Version attribute (N).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::VER, "ver");
/// ```
pub const VER: &str = "ver";
/// The value bytes when they are not stored natively (B; absent for an empty value).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::VAL, "val");
/// ```
pub const VAL: &str = "val";
/// A native item's type name (S), for people and tools; the bytes come from `hdr`.
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::TYPE, "type");
/// ```
pub const TYPE: &str = "type";
/// A native item's envelope header: format, type and index key paths (B).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::HDR, "hdr");
/// ```
pub const HDR: &str = "hdr";
/// A native item's fields (usually M).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::ITEM, "item");
/// ```
pub const ITEM: &str = "item";
/// A native item's shape: MessagePack types and map key order (B).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::SHAPE, "shape");
/// ```
pub const SHAPE: &str = "shape";

/// First characters of the name of every GSI the backend keeps for a store index, and of
/// its key attributes: index `by_updated` is GSI `kp_by_updated` over the item attributes
/// `kp_by_updated_pk` and `kp_by_updated_sk`.
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::GSI_PREFIX, "kp_");
/// ```
pub const GSI_PREFIX: &str = "kp_";

/// The name of the GSI that keeps index `index`: [`GSI_PREFIX`] and the index name.
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::gsi_name("by_updated"), "kp_by_updated");
/// ```
pub fn gsi_name(index: &str) -> String {
    format!("{GSI_PREFIX}{index}")
}

/// The item attribute holding index `index`'s GSI partition key (B): the encoding of the
/// index key path's group (its first component).
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::gsi_pk("by_updated"), "kp_by_updated_pk");
/// ```
pub fn gsi_pk(index: &str) -> String {
    format!("{GSI_PREFIX}{index}_pk")
}

/// The item attribute holding index `index`'s GSI sort key (B): the sort key the index's
/// exact entry would have (the escaped encoding of the index path's rest, `00 00`, the
/// encoding of the item's path; see [`layout`](crate::layout)), so the GSI orders items
/// by index key, then by item path, as the exact index does.
///
/// ```
/// assert_eq!(keypath_store::backend::dynamodb::gsi_sk("by_updated"), "kp_by_updated_sk");
/// ```
pub fn gsi_sk(index: &str) -> String {
    format!("{GSI_PREFIX}{index}_sk")
}

/// One GSI's key attribute values for an item: `(index, pk value, sk value)`.
pub(crate) type GsiKey = (String, Vec<u8>, Vec<u8>);

/// The GSI key attributes of the kept indexes (`kept`) that the envelope `value` stored
/// under `key` has index keys for: `(index, pk value, sk value)`. Values that are not
/// envelopes, or items without keys of kept indexes, have none.
pub(crate) fn gsi_keys(
    key: &Key,
    value: &[u8],
    kept: &[String],
) -> Result<Vec<GsiKey>, BackendError> {
    if kept.is_empty() || key.group.first() == Some(&crate::layout::RESERVED_GROUP) {
        return Ok(Vec::new());
    }
    let Ok(header) = Header::parse(value) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut base = None;
    for (name, _, path) in header.indexes {
        if !kept.iter().any(|k| k == name) {
            continue;
        }
        let bad = |what: String| {
            BackendError::storage(format!(
                "index {name} of the item at {key:?} cannot be a GSI key: {what}"
            ))
        };
        let path = keypath::KeyPath::decode(path).map_err(|e| bad(e.to_string()))?;
        let (group, rest) = path.group_parts().map_err(|e| bad(e.to_string()))?;
        if base.is_none() {
            let group = keypath::KeyPath::decode(&key.group).map_err(|e| bad(e.to_string()))?;
            let item = keypath::KeyPath::from_group_path(&group, &key.sort)
                .map_err(|e| bad(e.to_string()))?;
            base = Some(item);
        }
        let sort = crate::layout::entry_sort_key(&rest, base.as_ref().expect("set above"));
        out.push((name.to_owned(), group.into_bytes(), sort));
    }
    Ok(out)
}

/// DynamoDB's item size limit.
pub(crate) const MAX_ITEM_SIZE: usize = 400 * 1024;

pub(crate) fn bytes(b: &[u8]) -> AttributeValue {
    AttributeValue::B(Blob::new(b.to_vec()))
}

/// The primary key attributes of `key`.
pub(crate) fn key_attrs(key: &Key) -> HashMap<String, AttributeValue> {
    HashMap::from([
        (PK.to_owned(), bytes(&key.group)),
        (SK.to_owned(), bytes(&key.sort)),
    ])
}

/// The item stored for a record: native attributes when the value is an envelope whose
/// payload has an exact native form and the item fits, the value bytes otherwise; with the
/// GSI key attributes of the kept indexes (`kept`) the item has keys of.
pub(crate) fn record_item(
    key: &Key,
    record: &Record,
    kept: &[String],
) -> Result<HashMap<String, AttributeValue>, BackendError> {
    let mut item = key_attrs(key);
    item.insert(
        VER.to_owned(),
        AttributeValue::N(record.version.to_string()),
    );
    for (index, pk, sk) in gsi_keys(key, &record.value, kept)? {
        let limit = |what, limit, found| BackendError::LimitExceeded { what, limit, found };
        if pk.len() > super::MAX_PARTITION_KEY {
            let found = pk.len();
            return Err(limit(
                "DynamoDB GSI partition key bytes",
                super::MAX_PARTITION_KEY,
                found,
            ));
        }
        if sk.len() > super::MAX_SORT_KEY {
            let found = sk.len();
            return Err(limit(
                "DynamoDB GSI sort key bytes",
                super::MAX_SORT_KEY,
                found,
            ));
        }
        item.insert(gsi_pk(&index), bytes(&pk));
        item.insert(gsi_sk(&index), bytes(&sk));
    }
    Ok(record_item_with(item, record))
}

fn record_item_with(
    mut item: HashMap<String, AttributeValue>,
    record: &Record,
) -> HashMap<String, AttributeValue> {
    if let Some(native) = native_attrs(&record.value) {
        let mut with_native = item.clone();
        with_native.extend(native);
        if item_size(&with_native) <= MAX_ITEM_SIZE {
            return with_native;
        }
    }
    if !record.value.is_empty() {
        item.insert(VAL.to_owned(), bytes(&record.value));
    }
    item
}

fn native_attrs(value: &[u8]) -> Option<Vec<(String, AttributeValue)>> {
    let header = Header::parse(value).ok()?;
    let payload = &value[header.payload_start..];
    // Only self-describing items (a MessagePack map: fixmap, map 16, map 32): a compact
    // item is a list of values without names, smaller as bytes than as attributes.
    if !matches!(payload.first(), Some(0x80..=0x8f | 0xde | 0xdf)) {
        return None;
    }
    let (fields, shape) = native::to_native(payload)?;
    Some(vec![
        (
            TYPE.to_owned(),
            AttributeValue::S(header.item_type.to_owned()),
        ),
        (HDR.to_owned(), bytes(&value[..header.payload_start])),
        (ITEM.to_owned(), fields),
        (SHAPE.to_owned(), bytes(&shape)),
    ])
}

fn corrupt(what: String) -> BackendError {
    BackendError::storage(format!("DynamoDB item is not a keypath record: {what}"))
}

fn blob<'a>(item: &'a HashMap<String, AttributeValue>, name: &str) -> Option<&'a [u8]> {
    match item.get(name) {
        Some(AttributeValue::B(b)) => Some(b.as_ref()),
        _ => None,
    }
}

/// The sort key of a stored item.
pub(crate) fn sort_key(item: &HashMap<String, AttributeValue>) -> Result<Vec<u8>, BackendError> {
    blob(item, SK)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| corrupt(format!("no binary {SK} attribute")))
}

/// The version of a stored item, `None` if it has no `ver` attribute.
pub(crate) fn version(item: &HashMap<String, AttributeValue>) -> Result<Option<u64>, BackendError> {
    match item.get(VER) {
        None => Ok(None),
        Some(AttributeValue::N(n)) => n
            .parse()
            .map(Some)
            .map_err(|_| corrupt(format!("{VER} is {n:?}, not a u64"))),
        Some(other) => Err(corrupt(format!("{VER} is {other:?}, not a number"))),
    }
}

/// The record stored in an item, value bytes exactly as written.
pub(crate) fn record(item: &HashMap<String, AttributeValue>) -> Result<Record, BackendError> {
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

/// What an exact index entry would hold, from an item a GSI query returned: the item as a
/// projected entry ([`ENTRY_PROJECTED`](crate::layout::ENTRY_PROJECTED)) at its version
/// where the GSI projects it, [`ENTRY_FORMAT`](crate::layout::ENTRY_FORMAT) where it
/// projects keys only (no `ver`).
pub(crate) fn gsi_entry_record(
    item: &HashMap<String, AttributeValue>,
) -> Result<Record, BackendError> {
    if !item.contains_key(VER) {
        return Ok(Record {
            value: vec![crate::layout::ENTRY_FORMAT],
            version: 0,
        });
    }
    let record = record(item)?;
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

/// An upper bound of DynamoDB's size of an item: attribute names plus values.
pub(crate) fn item_size(item: &HashMap<String, AttributeValue>) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

pub(crate) fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        // DynamoDB: one byte per two significant digits, plus one (and one more for a
        // negative number); the text length plus one bounds that (`5` takes 2 bytes).
        AttributeValue::N(n) => n.len() + 1,
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| 1 + k.len() + value_size(v))
                .sum::<usize>()
        }
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(s) => s.iter().map(|n| n.len() + 1).sum(),
        AttributeValue::Bs(s) => s.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}
