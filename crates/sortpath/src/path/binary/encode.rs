//! The encoder's pieces: an ID's type code and segment bytes, and a segment's metadata value.

use super::{TYPE_BITS, TYPE_BYTES, TYPE_INT, TYPE_STRING, TYPE_UUID};
use crate::path::escape::{self, BYTES_MARKER, EMPTY_STRING};
use crate::path::id::{Id, IdType};

/// The type code of an ID, as its segment's metadata carries it.
pub(crate) fn id_type_code(id: &Id) -> u8 {
    match id {
        Id::Int(_) => TYPE_INT,
        Id::Str(_) => TYPE_STRING,
        Id::Bytes(_) => TYPE_BYTES,
        Id::Uuid(_) => TYPE_UUID,
    }
}

/// The ID type of a segment type code, `None` for a namespace (or a code no segment has).
pub(crate) fn id_type_of(type_code: u8) -> Option<IdType> {
    match type_code {
        TYPE_INT => Some(IdType::Int),
        TYPE_STRING => Some(IdType::Str),
        TYPE_BYTES => Some(IdType::Bytes),
        TYPE_UUID => Some(IdType::Uuid),
        _ => None,
    }
}

/// Appends an ID segment.
pub(crate) fn encode_id(id: &Id, out: &mut Vec<u8>) {
    match id {
        Id::Int(v) => v.encode_into(out),
        Id::Str(s) if s.is_empty() => out.push(EMPTY_STRING),
        Id::Str(s) => escape::escape_into(s.as_bytes(), out),
        Id::Bytes(b) => {
            out.push(BYTES_MARKER);
            escape::escape_into(b, out);
        }
        Id::Uuid(u) => out.extend_from_slice(u),
    }
}

/// The metadata value of a segment: `(len << 3) | type`.
pub(crate) fn meta(len: usize, type_code: u8) -> u64 {
    ((len as u64) << TYPE_BITS) | u64::from(type_code)
}
