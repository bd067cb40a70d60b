//! Records as DynamoDB items (the attribute layout of the module doc), and item sizes.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::native;
use crate::backend::{BackendError, IndexKeyParts, ItemParts, Key, Record};

/// Partition key attribute: the backend group key (B).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::PK, "pk");
/// ```
pub const PK: &str = "pk";
/// Sort key attribute: the backend sort key (B).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::SK, "sk");
/// ```
pub const SK: &str = "sk";
/// Version attribute (N).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::VER, "ver");
/// ```
pub const VER: &str = "ver";
/// The value bytes when they are not stored natively (B; absent for an empty value).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::VAL, "val");
/// ```
pub const VAL: &str = "val";
/// A native item's type name (S), for people and tools; the bytes come from `hdr`.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::TYPE, "type");
/// ```
pub const TYPE: &str = "type";
/// A native item's envelope header: format, type and index key paths (B).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::HDR, "hdr");
/// ```
pub const HDR: &str = "hdr";
/// A native item's fields (usually M).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::ITEM, "item");
/// ```
pub const ITEM: &str = "item";
/// A native item's shape: MessagePack types and map key order (B).
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::SHAPE, "shape");
/// ```
pub const SHAPE: &str = "shape";

/// First characters of the name of every GSI the backend keeps for a store index: index
/// `by_updated` is GSI `kp_by_updated`.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::GSI_PREFIX, "kp_");
/// ```
pub const GSI_PREFIX: &str = "kp_";

/// The name of the GSI that keeps index `index`: [`GSI_PREFIX`] and the index name.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::gsi_name("by_updated"), "kp_by_updated");
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
/// let (pk, sk) = sortpath_store::backend::dynamodb::gsi_key_attributes(1);
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
pub(crate) type GsiKey<'k> = (&'k KeptIndex, &'k IndexKeyParts);

/// The index keys of `parts` whose index the table keeps (`kept`), with the GSI: their
/// partition and sort parts are the GSI's key attribute values.
pub(crate) fn gsi_keys<'k>(parts: &'k ItemParts, kept: &'k [KeptIndex]) -> Vec<GsiKey<'k>> {
    parts
        .index_keys
        .iter()
        .filter_map(|k| Some((kept.iter().find(|g| g.name == k.index)?, k)))
        .collect()
}

/// `value` with the key paths of the index keys `elided` (spans of `value`, in order) left
/// out of its envelope header, their length written as 0: the item's GSI key attributes
/// hold them already, and a read puts them back ([`super::readback`]).
fn elide_paths(value: &[u8], elided: &[&IndexKeyParts]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    let mut copied = 0;
    for k in elided {
        if k.path.is_empty() {
            continue;
        }
        // The u16 length sits right before the path.
        out.extend_from_slice(&value[copied..k.path.start - 2]);
        out.extend_from_slice(&[0, 0]);
        copied = k.path.end;
    }
    out.extend_from_slice(&value[copied..]);
    out
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

/// The item stored for a record: for an item the store wrote (`parts`, what its envelope
/// is made of), native attributes when its payload has an exact native form and the item
/// fits, with the GSI key attributes of the kept indexes (`kept`) the item has keys of,
/// whose key paths are then left out of the stored header (see [`elide_paths`]); the value
/// bytes otherwise, and for every other record (`parts: None`): values are opaque to the
/// backend unless the store says what they are made of.
pub(crate) fn record_item(
    key: &Key,
    record: &Record,
    parts: Option<&ItemParts>,
    kept: &[KeptIndex],
) -> Result<HashMap<String, AttributeValue>, BackendError> {
    let mut item = key_attrs(key);
    item.insert(
        VER.to_owned(),
        AttributeValue::N(record.version.to_string()),
    );
    let Some(parts) = parts else {
        if !record.value.is_empty() {
            item.insert(VAL.to_owned(), bytes(&record.value));
        }
        return Ok(item);
    };
    let gsi = gsi_keys(parts, kept);
    for (index, k) in &gsi {
        let limit = |what, limit, found| BackendError::LimitExceeded { what, limit, found };
        if k.partition.len() > super::MAX_PARTITION_KEY {
            let found = k.partition.len();
            return Err(limit(
                "DynamoDB GSI partition key bytes",
                super::MAX_PARTITION_KEY,
                found,
            ));
        }
        if k.sort.len() > super::MAX_SORT_KEY {
            let found = k.sort.len();
            return Err(limit(
                "DynamoDB GSI sort key bytes",
                super::MAX_SORT_KEY,
                found,
            ));
        }
        item.insert(index.pk.clone(), bytes(&k.partition));
        item.insert(index.sk.clone(), bytes(&k.sort));
    }
    if gsi.is_empty() {
        return Ok(record_item_with(item, &record.value, parts, 0));
    }
    let elided: Vec<&IndexKeyParts> = gsi.iter().map(|(_, k)| *k).collect();
    let removed: usize = elided.iter().map(|k| k.path.len()).sum();
    Ok(record_item_with(
        item,
        &elide_paths(&record.value, &elided),
        parts,
        removed,
    ))
}

/// `item` with `value`, the envelope of `parts` with `removed` bytes of index key paths
/// left out of its header, natively if it has an exact native form that fits, else in
/// `val`.
fn record_item_with(
    mut item: HashMap<String, AttributeValue>,
    value: &[u8],
    parts: &ItemParts,
    removed: usize,
) -> HashMap<String, AttributeValue> {
    if let Some(native) = native_attrs(value, parts, removed) {
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

/// The native attributes of `value`, the envelope of `parts` with `removed` bytes left
/// out of its header: `None` unless its payload is a MessagePack map with an exact native
/// form.
fn native_attrs(
    value: &[u8],
    parts: &ItemParts,
    removed: usize,
) -> Option<Vec<(String, AttributeValue)>> {
    let header_len = parts.payload_start.checked_sub(removed)?;
    let (header, payload) = (value.get(..header_len)?, value.get(header_len..)?);
    // Only self-describing items (a MessagePack map: fixmap, map 16, map 32): a compact
    // item is a list of values without names, smaller as bytes than as attributes.
    if !matches!(payload.first(), Some(0x80..=0x8f | 0xde | 0xdf)) {
        return None;
    }
    let (fields, shape) = native::to_native(payload)?;
    Some(vec![
        (TYPE.to_owned(), AttributeValue::S(parts.item_type.clone())),
        (HDR.to_owned(), bytes(header)),
        (ITEM.to_owned(), fields),
        (SHAPE.to_owned(), bytes(&shape)),
    ])
}

pub(super) fn corrupt(what: String) -> BackendError {
    BackendError::storage(format!("DynamoDB item is not a sortpath record: {what}"))
}

pub(super) fn blob<'a>(item: &'a HashMap<String, AttributeValue>, name: &str) -> Option<&'a [u8]> {
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
