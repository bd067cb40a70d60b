//! The common text forms parsed in one pass into stack buffers: components whose IDs are
//! integers, UUIDs, or strings that need no escape in either form. Anything else (byte IDs,
//! `%` escapes, empty or escaped string IDs, namespace-only components before the last,
//! errors, long texts) is left to the full parser in `text.rs`, which gives the same result
//! for everything this accepts (a property test compares them) and reports errors.

use super::binary::{
    meta, SEPARATOR, TERMINATOR, TYPE_INT, TYPE_NAMESPACE, TYPE_STRING, TYPE_UUID,
};
use super::escape::ESCAPE_MAX_RAW;
use super::namespace;
use super::text::{parse_uuid_text, BYTES_PREFIX};
use super::KeyPath;
use crate::int::SORT_BYTE_ZERO;

/// Longest text this parser takes. Its encoding fits the buffers below: each separator
/// stands for a `/` or `-`, a namespace or string for its own bytes, an integer of `d`
/// digits takes at most `d + 1` bytes (with the `-` or `/` before it, no more than its
/// text), a UUID 16 of its 36; so the segments take at most the text's length plus one.
/// Each segment takes at least two bytes of text (itself and the `/` or `-` before it) and
/// at most two bytes of metadata (its length is below 2^8).
const MAX_TEXT: usize = 128;
/// Room for the segments, with slack for the fixed-size stores of integers and namespaces.
const SEGMENTS: usize = MAX_TEXT + 24;
/// Room for the metadata varints.
const METAS: usize = MAX_TEXT + 8;

/// Parses `text` (which starts with `/` and is not `/` alone) if it has one of the common
/// shapes; `None` for anything else, which the full parser then parses or reports.
#[inline]
pub(super) fn parse(text: &str) -> Option<KeyPath> {
    parse_with(text, KeyPath::from_valid_slice)
}

/// [`parse`], handing the encoding to `take` (which the caller copies where it keeps it)
/// instead of making a path of it.
#[inline(always)]
pub(super) fn parse_with<R>(text: &str, take: impl FnOnce(&[u8]) -> R) -> Option<R> {
    let t = text.as_bytes();
    if t.len() > MAX_TEXT {
        return None;
    }
    // The segments, then the terminator and the metadata (copied there at the end).
    let mut seg = [0u8; SEGMENTS + 1 + METAS];
    let mut metas = [0u8; METAS];
    let (mut pos, mut meta_len) = (0usize, 0usize);
    let mut i = 1; // after the leading '/'
    loop {
        // The namespace: ASCII letters or '_', copied as it is.
        let ns_len = namespace_len(t, i);
        if ns_len == 0 {
            return None;
        }
        if pos > 0 {
            *seg.get_mut(pos)? = SEPARATOR;
            pos += 1;
        }
        // Eight bytes at once where the text has them (the buffer has the slack; the bytes
        // past the namespace are overwritten next or cut off).
        match t.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            Some(word) if ns_len <= 8 => seg.get_mut(pos..pos + 8)?.copy_from_slice(word),
            _ => seg
                .get_mut(pos..pos + ns_len)?
                .copy_from_slice(t.get(i..i + ns_len)?),
        }
        pos += ns_len;
        push_meta(&mut metas, &mut meta_len, meta(ns_len, TYPE_NAMESPACE))?;
        i += ns_len;
        match t.get(i) {
            None => break, // a namespace-only last component
            Some(b'-') => i += 1,
            Some(_) => return None,
        }
        // The ID, up to the next '/' or the end.
        *seg.get_mut(pos)? = SEPARATOR;
        pos += 1;
        let rest = t.get(i..)?;
        let ends_at = |n: usize| matches!(rest.get(n), None | Some(b'/'));
        // A UUID first when the ID has the dash of one at its place (no integer has: an
        // integer's digits would end there without a '/').
        let uuid = match rest.get(8) {
            Some(b'-') => rest
                .get(..36)
                .filter(|_| ends_at(36))
                .and_then(parse_uuid_text),
            _ => None,
        };
        let (type_code, id_len, written) = match uuid {
            Some(uuid) => {
                seg.get_mut(pos..pos + 16)?.copy_from_slice(&uuid);
                (TYPE_UUID, 36, 16)
            }
            None => {
                // An integer: an optional '-' and digits up to '/' or the end, read in one
                // pass.
                let negative = rest.first() == Some(&b'-');
                let mut n = usize::from(negative);
                let mut magnitude = 0u64;
                while let Some(&c) = rest.get(n) {
                    let d = c.wrapping_sub(b'0');
                    if d > 9 {
                        break;
                    }
                    magnitude = magnitude.wrapping_mul(10).wrapping_add(u64::from(d));
                    n += 1;
                }
                match int_shape(rest, negative, n) {
                    IntShape::Int if ends_at(n) => {
                        let written = write_int(&mut seg, pos, negative, magnitude)?;
                        (TYPE_INT, n, written)
                    }
                    // Digits that may be out of range: the full parser reads and checks them.
                    IntShape::TooLong if ends_at(n) => return None,
                    // Not an integer, and not a UUID (tried above): a string.
                    _ => {
                        let len = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
                        let id = &rest[..len];
                        if !is_plain_string(id) {
                            return None;
                        }
                        seg.get_mut(pos..pos + len)?.copy_from_slice(id);
                        (TYPE_STRING, len, len)
                    }
                }
            }
        };
        pos += written;
        push_meta(&mut metas, &mut meta_len, meta(written, type_code))?;
        i += id_len;
        match t.get(i) {
            None => break,
            // '/' and at least a namespace after it (a trailing '/' is an error).
            Some(_) => i += 1,
        }
    }
    // The terminator and the metadata after the segments: one fixed-size copy of 16 bytes
    // when the metadata fits it (the bytes past it are cut off), so the encoding is one
    // slice, copied once into the path.
    let after = seg.get_mut(pos..pos + 1 + METAS)?;
    after[0] = TERMINATOR;
    match metas.first_chunk::<16>() {
        Some(first) if meta_len <= 16 => after[1..17].copy_from_slice(first),
        _ => after[1..1 + meta_len].copy_from_slice(metas.get(..meta_len)?),
    }
    Some(take(seg.get(..pos + 1 + meta_len)?))
}

/// How many bytes from `t[i..]` are namespace bytes.
#[inline(always)]
fn namespace_len(t: &[u8], i: usize) -> usize {
    // Whole words while they are all namespace bytes, then byte by byte.
    let mut n = 0;
    while let Some(word) = t.get(i + n..).and_then(|rest| rest.first_chunk::<8>()) {
        let run = namespace::word_prefix_len(u64::from_le_bytes(*word));
        n += run;
        if run < 8 {
            return n;
        }
    }
    n + namespace::prefix_len(t.get(i + n..).unwrap_or_default())
}

/// What the text `rest[..end]` (an optional `-`, then digits) is as an integer ID, when it
/// is the whole ID: one (`0`, or digits not starting with `0`), not one (no digits, a
/// leading `0`, `-0`: a string ID), or one of 20 or more digits, which may be out of range.
#[derive(PartialEq)]
enum IntShape {
    Int,
    NotInt,
    TooLong,
}

#[inline(always)]
fn int_shape(rest: &[u8], negative: bool, end: usize) -> IntShape {
    let digits = rest.get(usize::from(negative)..end).unwrap_or_default();
    match digits {
        [] => IntShape::NotInt,
        [b'0'] if !negative => IntShape::Int,
        [b'0', ..] => IntShape::NotInt,
        _ if digits.len() > 19 => IntShape::TooLong,
        _ => IntShape::Int,
    }
}

/// Writes the sort-byte integer (the layout of [`crate::I65`]) at `seg[pos..]`: the sort
/// byte and the magnitude bytes, inverted for a negative number or zero, stored as one word;
/// returns its length.
#[inline(always)]
fn write_int(seg: &mut [u8], pos: usize, negative: bool, magnitude: u64) -> Option<usize> {
    // Magnitude bytes: 1..=8 (zero takes one, as 1 does).
    let k = 8 - (magnitude | 1).leading_zeros() as usize / 8;
    let (sort, stored) = if negative || magnitude == 0 {
        (SORT_BYTE_ZERO + 1 - k as u8, !magnitude)
    } else {
        (SORT_BYTE_ZERO + k as u8, magnitude)
    };
    let out = seg.get_mut(pos..pos + 9)?;
    out[0] = sort;
    out[1..].copy_from_slice(&(stored << (8 * (8 - k))).to_be_bytes());
    Some(1 + k)
}

/// Whether `id` is a string ID whose text is its content and whose segment is that content:
/// not empty, no `%` escape, no byte the binary form escapes, and not read as another ID
/// type (integers and UUIDs were tried first; a leading `~` is a byte ID).
#[inline(always)]
fn is_plain_string(id: &[u8]) -> bool {
    id.first().is_some_and(|&b| b != BYTES_PREFIX as u8)
        && id.iter().all(|&b| b > ESCAPE_MAX_RAW && b != b'%')
}

/// Appends the metadata varint `m`.
#[inline(always)]
fn push_meta(metas: &mut [u8], len: &mut usize, mut m: u64) -> Option<()> {
    while m >= 0x80 {
        *metas.get_mut(*len)? = (m as u8) | 0x80;
        *len += 1;
        m >>= 7;
    }
    *metas.get_mut(*len)? = m as u8;
    *len += 1;
    Some(())
}
