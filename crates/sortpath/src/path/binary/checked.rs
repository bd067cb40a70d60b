//! The checked decoder: validation one step at a time, with an error naming the first
//! problem and its byte offset.

use super::error::{DecodeError, DecodeErrorKind};
use super::fast::{find_layout, validate_fast};
use super::ids::validate_id;
use super::layout::Layout;
use super::varint::varint_at;
use super::{SEPARATOR, TERMINATOR, TYPE_BITS, TYPE_MASK, TYPE_NAMESPACE};
use crate::path::namespace;

/// Checks that `bytes` is one canonical key path encoding, in one pass over its segments;
/// returns its layout. Errors name the first problem and its byte offset.
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> Result<Layout, DecodeError> {
    match validate_fast(bytes) {
        Some(layout) => Ok(layout),
        None => validate_checked(bytes),
    }
}

/// [`validate`] as a call, for callers that take a faster path first.
#[inline(never)]
pub(crate) fn validate_outlined(bytes: &[u8]) -> Result<Layout, DecodeError> {
    validate(bytes)
}

/// [`validate`] one step at a time, with an error for whatever is wrong.
#[cold]
pub(crate) fn validate_checked(bytes: &[u8]) -> Result<Layout, DecodeError> {
    let layout = find_layout(bytes)?;
    let mut offset = 0;
    let mut meta_at = layout.metadata_start;
    for index in 0..layout.count {
        // The metadata was read once already (backwards), so its varints are well formed;
        // they are read again here forwards, which for a one-byte varint is one load.
        let (value, used) = match bytes.get(meta_at) {
            Some(&b) if b & 0x80 == 0 => (u64::from(b), 1),
            _ => varint_at(bytes, meta_at)?,
        };
        meta_at += used;
        let len = (value >> TYPE_BITS) as usize;
        let type_code = (value & TYPE_MASK) as u8;
        let end = offset + len;
        let last = index + 1 == layout.count;
        let expected = if last { TERMINATOR } else { SEPARATOR };
        // find_layout checked that the lengths add up, so `end` is in bounds.
        let found = bytes.get(end).copied().unwrap_or(TERMINATOR);
        if found != expected {
            return Err(DecodeError::new(
                end,
                DecodeErrorKind::Separator { expected, found },
            ));
        }
        let content = &bytes[offset..end];
        if index % 2 == 0 {
            if type_code != TYPE_NAMESPACE {
                return Err(DecodeError::new(
                    offset,
                    DecodeErrorKind::SegmentType {
                        expected: "a namespace",
                        found: type_code,
                    },
                ));
            }
            if !namespace::is_valid(content) {
                return Err(DecodeError::new(
                    offset,
                    DecodeErrorKind::Namespace(String::from_utf8_lossy(content).into()),
                ));
            }
        } else {
            validate_id(content, type_code, offset)?;
        }
        offset = end + 1;
    }
    Ok(layout)
}
