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

/// First characters of the name of every GSI the backend keeps for a store index: index
/// `by_updated` is GSI `kp_by_updated`.
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

/// The item attributes holding the keys of the `n`-th GSI (from 1) that
/// [`DynamoDbBackend::create_table_with`](super::DynamoDbBackend::create_table_with)
/// creates: `gpN` (HASH, binary: the index key path's group, encoded as the store's group
/// keys are) and `gsN` (RANGE, binary: the sort key the index's exact entry would have, see
/// [`layout`](crate::layout)). Names are short because DynamoDB bills every attribute
/// name in every item it stores and returns; which attributes a GSI uses is read from the
/// table's own key schema (`DescribeTable`) when it is opened.
///
/// ```
/// let (pk, sk) = keypath_store::backend::dynamodb::gsi_key_attributes(1);
/// assert_eq!((pk.as_str(), sk.as_str()), ("gp1", "gs1"));
/// ```
pub fn gsi_key_attributes(n: usize) -> (String, String) {
    (format!("gp{n}"), format!("gs{n}"))
}

/// A store index the table keeps as a GSI: the index name, the item attributes of the
/// GSI's keys, and whether the GSI projects keys only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeptIndex {
    pub name: String,
    pub pk: String,
    pub sk: String,
    pub keys_only: bool,
}

/// One GSI's key attribute values for an item: `(kept index, pk value, sk value)`.
pub(crate) type GsiKey<'k> = (&'k KeptIndex, Vec<u8>, Vec<u8>);

/// The GSI key attributes of the kept indexes (`kept`) that the envelope `value` stored
/// under `key` has index keys for. Values that are not envelopes, or items without keys of
/// kept indexes, have none.
pub(crate) fn gsi_keys<'k>(
    key: &Key,
    value: &[u8],
    kept: &'k [KeptIndex],
) -> Result<Vec<GsiKey<'k>>, BackendError> {
    if kept.is_empty() || key.group.first() == Some(&crate::layout::RESERVED_GROUP) {
        return Ok(Vec::new());
    }
    let Ok(header) = Header::parse(value) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut base = None;
    for (name, _, path) in header.indexes {
        let Some(index) = kept.iter().find(|k| k.name == name) else {
            continue;
        };
        let bad = |what: String| {
            BackendError::storage(format!(
                "index {name} of the item at {key:?} cannot be a GSI key: {what}"
            ))
        };
        let path = keypath::KeyPath::decode(path).map_err(|e| bad(e.to_string()))?;
        let (group, rest) = path.split_group_paths().map_err(|e| bad(e.to_string()))?;
        if base.is_none() {
            let item = crate::layout::item_path_at(&key.group, &key.sort)
                .map_err(|e| bad(e.to_string()))?;
            base = Some(item);
        }
        let sort = crate::layout::entry_sort_key(&rest, base.as_ref().expect("set above"));
        out.push((index, group.into_bytes(), sort));
    }
    Ok(out)
}

/// `value` with the key paths of the indexes in `elided` left out of its envelope header
/// (their length written as 0): the item's GSI key attributes hold them already, and
/// [`restore_elided`] puts them back when the item is read. A value that is not an envelope
/// is returned as it is.
fn elide_paths(value: &[u8], elided: &[&str]) -> Vec<u8> {
    let Ok(header) = Header::parse(value) else {
        return value.to_vec();
    };
    let mut out = Vec::with_capacity(value.len());
    let mut copied = 0;
    for (name, at, path) in &header.indexes {
        if elided.contains(name) && !path.is_empty() {
            // The u16 length sits right before the path.
            out.extend_from_slice(&value[copied..at - 2]);
            out.extend_from_slice(&[0, 0]);
            copied = at + path.len();
        }
    }
    out.extend_from_slice(&value[copied..]);
    out
}

/// The value `value` (read from `item`) with the index key paths [`elide_paths`] left out
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
                keypath::KeyPath::decode(group).map_err(|e| format!("{}: {e}", index.pk))?;
            let rest = crate::layout::entry_rest(sort).map_err(|e| format!("{}: {e}", index.sk))?;
            group
                .join(&rest)
                .map(keypath::KeyPath::into_bytes)
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
/// GSI key attributes of the kept indexes (`kept`) the item has keys of, whose key paths
/// are then left out of the stored header (see [`elide_paths`]).
pub(crate) fn record_item(
    key: &Key,
    record: &Record,
    kept: &[KeptIndex],
) -> Result<HashMap<String, AttributeValue>, BackendError> {
    let mut item = key_attrs(key);
    item.insert(
        VER.to_owned(),
        AttributeValue::N(record.version.to_string()),
    );
    let gsi = gsi_keys(key, &record.value, kept)?;
    for (index, pk, sk) in &gsi {
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
        item.insert(index.pk.clone(), bytes(pk));
        item.insert(index.sk.clone(), bytes(sk));
    }
    if gsi.is_empty() {
        return Ok(record_item_with(item, &record.value));
    }
    let elided: Vec<&str> = gsi
        .iter()
        .map(|(index, _, _)| index.name.as_str())
        .collect();
    Ok(record_item_with(item, &elide_paths(&record.value, &elided)))
}

fn record_item_with(
    mut item: HashMap<String, AttributeValue>,
    value: &[u8],
) -> HashMap<String, AttributeValue> {
    if let Some(native) = native_attrs(value) {
        let mut with_native = item.clone();
        with_native.extend(native);
        if item_size(&with_native) <= MAX_ITEM_SIZE {
            return with_native;
        }
    }
    if !value.is_empty() {
        item.insert(VAL.to_owned(), bytes(value));
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

/// The record stored in an item, value bytes exactly as written (index key paths left out
/// of the header for the kept indexes `kept` restored from the GSI key attributes).
pub(crate) fn record(
    item: &HashMap<String, AttributeValue>,
    kept: &[KeptIndex],
) -> Result<Record, BackendError> {
    let Record { value, version } = stored_record(item)?;
    // Always looked at: an item whose header lacks a path must not read as a record
    // without it, even through a backend that was not told of the table's GSIs.
    let value = restore_elided(item, value, kept)?;
    Ok(Record { value, version })
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

/// What an exact index entry would hold, from an item a GSI query returned: the item as a
/// projected entry ([`ENTRY_PROJECTED`](crate::layout::ENTRY_PROJECTED)) at its version
/// where the GSI projects it, [`ENTRY_FORMAT`](crate::layout::ENTRY_FORMAT) where it
/// projects keys only (no `ver`).
///
/// The entry keeps only the item's type and payload, which a header with index key paths
/// left out has as they were: the paths are not rebuilt here.
pub(crate) fn gsi_entry_record(
    item: &HashMap<String, AttributeValue>,
) -> Result<Record, BackendError> {
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

/// An upper bound of DynamoDB's size of an item: attribute names plus values, numbers
/// counted as their digits plus one. For DynamoDB's limits (400 KB an item, 4 MB a
/// transaction), where a low estimate would turn into a refused request.
pub(crate) fn item_size(item: &HashMap<String, AttributeValue>) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// DynamoDB's billed size of an item by its documented rule: attribute names plus values,
/// a number one byte per two significant digits (leading and trailing zeros trimmed) plus
/// one. For the cost meter.
pub(crate) fn billed_size(item: &HashMap<String, AttributeValue>) -> usize {
    item.iter()
        .map(|(k, v)| k.len() + billed_value_size(v))
        .sum()
}

/// An upper bound of a value's size (see [`item_size`]): a number's text length plus one
/// bounds DynamoDB's one byte per two significant digits plus one (`5` takes 2 bytes).
pub(crate) fn value_size(v: &AttributeValue) -> usize {
    sized(v, |n| n.len() + 1)
}

/// A value's billed size (see [`billed_size`]).
pub(crate) fn billed_value_size(v: &AttributeValue) -> usize {
    sized(v, billed_number_size)
}

/// A number's size by DynamoDB's documented rule: one byte per two significant digits of
/// the mantissa, leading and trailing zeros trimmed, plus one (and one for the sign of a
/// negative number).
fn billed_number_size(n: &str) -> usize {
    let mantissa = n.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
    significant.max(1).div_ceil(2) + 1 + usize::from(mantissa.starts_with('-'))
}

fn sized(v: &AttributeValue, number: fn(&str) -> usize) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::N(n) => number(n),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.iter().map(|v| 1 + sized(v, number)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| 1 + k.len() + sized(v, number))
                .sum::<usize>()
        }
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(s) => s.iter().map(|n| number(n)).sum(),
        AttributeValue::Bs(s) => s.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}
