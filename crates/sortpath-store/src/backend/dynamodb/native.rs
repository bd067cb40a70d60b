//! MessagePack payloads as native DynamoDB attribute values, and back, byte for byte.
//!
//! DynamoDB maps are unordered and numbers are decimals without a type, so a native value
//! alone cannot give back the exact MessagePack bytes. [`to_native`] therefore also returns a
//! *shape*: a pre-order walk of the value with one tag byte per node (which MessagePack type
//! it was) and, for maps, the position of every entry among the map's keys sorted as bytes.
//! [`from_native`] rebuilds the bytes from the attribute value and its shape.
//!
//! A payload is only made native when this round trip reproduces it exactly; the caller
//! checks that ([`to_native`] does it) and keeps the raw bytes otherwise. Values that have no
//! faithful DynamoDB form are refused: ext types, NaN and infinities, numbers outside
//! DynamoDB's range, map keys that are not non-empty strings, duplicate keys, nesting of
//! more than 30 levels below the top value (DynamoDB allows 32), and trailing bytes after
//! the value.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use rmpv::Value;

/// Shape tags, one per node.
const TAG_INT: u8 = b'i';
const TAG_F32: u8 = b'g';
const TAG_F64: u8 = b'f';
const TAG_STR: u8 = b's';
const TAG_BIN: u8 = b'b';
const TAG_BOOL: u8 = b't';
const TAG_NIL: u8 = b'n';
const TAG_ARRAY: u8 = b'a';
const TAG_MAP: u8 = b'm';

/// DynamoDB nests documents at most 32 levels deep; stay below it.
const MAX_DEPTH: usize = 30;
/// Smallest and largest magnitudes of a DynamoDB number.
const MIN_MAGNITUDE: f64 = 1e-130;
const MAX_MAGNITUDE: f64 = 9.99e125;

/// Longest attribute name DynamoDB accepts, in bytes (it must be less than 65,536).
const MAX_ATTRIBUTE_NAME: usize = 65_535;

/// The native form of `payload` and its shape, or `None` if the payload has no exact native
/// form.
pub(crate) fn to_native(payload: &[u8]) -> Option<(AttributeValue, Vec<u8>)> {
    let mut rd = payload;
    let value = rmpv::decode::read_value(&mut rd).ok()?;
    if !rd.is_empty() {
        return None;
    }
    let mut shape = Vec::new();
    let native = encode(&value, &mut shape, 0)?;
    // Only keep the native form when it gives back exactly these bytes.
    (from_native(&native, &shape)? == payload).then_some((native, shape))
}

/// Rebuilds the MessagePack bytes of a native value from its shape; `None` if they disagree.
pub(crate) fn from_native(native: &AttributeValue, shape: &[u8]) -> Option<Vec<u8>> {
    let mut pos = 0;
    let value = decode(native, shape, &mut pos)?;
    if pos != shape.len() {
        return None;
    }
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, &value).ok()?;
    Some(out)
}

fn encode(value: &Value, shape: &mut Vec<u8>, depth: usize) -> Option<AttributeValue> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match value {
        Value::Nil => {
            shape.push(TAG_NIL);
            AttributeValue::Null(true)
        }
        Value::Boolean(b) => {
            shape.push(TAG_BOOL);
            AttributeValue::Bool(*b)
        }
        Value::Integer(i) => {
            shape.push(TAG_INT);
            AttributeValue::N(i.to_string())
        }
        Value::F32(f) => {
            shape.push(TAG_F32);
            AttributeValue::N(float_text(f64::from(*f), format!("{f:e}"))?)
        }
        Value::F64(f) => {
            shape.push(TAG_F64);
            AttributeValue::N(float_text(*f, format!("{f:e}"))?)
        }
        Value::String(s) => {
            shape.push(TAG_STR);
            AttributeValue::S(s.as_str()?.to_owned())
        }
        Value::Binary(b) => {
            shape.push(TAG_BIN);
            AttributeValue::B(Blob::new(b.clone()))
        }
        Value::Array(items) => {
            shape.push(TAG_ARRAY);
            let list = items
                .iter()
                .map(|v| encode(v, shape, depth + 1))
                .collect::<Option<Vec<_>>>()?;
            AttributeValue::L(list)
        }
        Value::Map(entries) => {
            shape.push(TAG_MAP);
            // DynamoDB refuses empty attribute names and names of 64 KiB or more: such a
            // map has no native form (the value is then stored as bytes).
            let keys = entries
                .iter()
                .map(|(k, _)| {
                    k.as_str()
                        .filter(|k| !k.is_empty() && k.len() <= MAX_ATTRIBUTE_NAME)
                })
                .collect::<Option<Vec<&str>>>()?;
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            let mut map = HashMap::with_capacity(entries.len());
            for (key, (_, v)) in keys.iter().zip(entries) {
                let rank = sorted.binary_search(key).ok()?;
                write_varint(shape, rank);
                let native = encode(v, shape, depth + 1)?;
                if map.insert((*key).to_owned(), native).is_some() {
                    return None; // duplicate key
                }
            }
            AttributeValue::M(map)
        }
        Value::Ext(..) => return None,
    })
}

/// The decimal text of a float, if DynamoDB can hold it exactly (finite, not -0, within
/// its magnitude range; at most 17 significant digits, well under its 38).
fn float_text(f: f64, text: String) -> Option<String> {
    let m = f.abs();
    let in_range = f == 0.0 && f.is_sign_positive() || (MIN_MAGNITUDE..=MAX_MAGNITUDE).contains(&m);
    (f.is_finite() && in_range).then_some(text)
}

fn decode(native: &AttributeValue, shape: &[u8], pos: &mut usize) -> Option<Value> {
    let tag = *shape.get(*pos)?;
    *pos += 1;
    Some(match (tag, native) {
        (TAG_NIL, AttributeValue::Null(true)) => Value::Nil,
        (TAG_BOOL, AttributeValue::Bool(b)) => Value::Boolean(*b),
        (TAG_INT, AttributeValue::N(n)) => match n.strip_prefix('-') {
            Some(_) => Value::from(n.parse::<i64>().ok()?),
            None => Value::from(n.parse::<u64>().ok()?),
        },
        (TAG_F32, AttributeValue::N(n)) => Value::F32(n.parse().ok()?),
        (TAG_F64, AttributeValue::N(n)) => Value::F64(n.parse().ok()?),
        (TAG_STR, AttributeValue::S(s)) => Value::from(s.as_str()),
        (TAG_BIN, AttributeValue::B(b)) => Value::Binary(b.as_ref().to_vec()),
        (TAG_ARRAY, AttributeValue::L(items)) => Value::Array(
            items
                .iter()
                .map(|v| decode(v, shape, pos))
                .collect::<Option<_>>()?,
        ),
        (TAG_MAP, AttributeValue::M(map)) => {
            let mut sorted: Vec<&String> = map.keys().collect();
            sorted.sort_unstable();
            let mut entries = Vec::with_capacity(map.len());
            for _ in 0..map.len() {
                let key = *sorted.get(read_varint(shape, pos)?)?;
                let value = decode(&map[key], shape, pos)?;
                entries.push((Value::from(key.as_str()), value));
            }
            Value::Map(entries)
        }
        _ => return None,
    })
}

fn write_varint(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(bytes: &[u8], pos: &mut usize) -> Option<usize> {
    let mut n = 0usize;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        n |= usize::from(b & 0x7F).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}
