//! The binary form of key paths (specified in `docs/FORMAT.md`).
//!
//! ```text
//! {segment}(01){segment}(01)...{segment}(00){varint}{varint}...{varint}
//! ```
//! Segments are the namespaces and IDs in order; each varint is `(length << 3) | type` of
//! one segment, protobuf style (7 bits per byte, least significant group first, high bit =
//! more). The metadata sits after the terminator so it never decides the order.
//!
//! Decoding reads the metadata backwards from the end: the last byte ends the last varint,
//! and varints are added until `segment bytes + separators + terminator + metadata bytes`
//! equals the input length. That sum grows by at least two with every segment, so at most
//! one segment count fits, and the segment section is found without scanning it (integer and
//! UUID segments may contain `00` and `01` bytes). The fast validator
//! ([`validate_fast`](fast::validate_fast)) uses an equivalent fact instead: no metadata byte
//! of a valid encoding is `00`, so the terminator is the last `00` byte.
//!
//! The files: `encode.rs` (type codes, ID segments, metadata values), `varint.rs` (writing
//! and reading varints), `layout.rs` (finding the metadata), `fast.rs` (the fast decoder),
//! `checked.rs` (the checked decoder), `ids.rs` (the check of one ID segment, which both
//! decoders use), `error.rs` (the error type),
//! `spans.rs` (walking and reporting segments).

/// Separates segments (a namespace from its ID, and one component from the next).
pub const SEPARATOR: u8 = 0x01;
/// Ends the segment section; the metadata follows.
pub const TERMINATOR: u8 = 0x00;
/// Metadata type of a namespace segment.
pub const TYPE_NAMESPACE: u8 = 0;
/// Metadata type of an integer ID segment.
pub const TYPE_INT: u8 = 1;
/// Metadata type of a string ID segment.
pub const TYPE_STRING: u8 = 2;
/// Metadata type of a byte-string ID segment.
pub const TYPE_BYTES: u8 = 3;
/// Metadata type of a UUID ID segment.
pub const TYPE_UUID: u8 = 4;
/// Bits of a metadata varint that hold the type; the rest hold the length.
pub const TYPE_BITS: u32 = 3;
pub(crate) const TYPE_MASK: u64 = (1 << TYPE_BITS) - 1;

mod checked;
mod encode;
mod error;
mod fast;
mod ids;
mod layout;
mod spans;
mod varint;

pub use error::{DecodeError, DecodeErrorKind};
pub use spans::SegmentSpan;

pub(crate) use checked::{validate, validate_outlined};
pub(crate) use encode::{encode_id, id_type_code, id_type_of, meta};
pub(crate) use fast::{find_layout, metadata_start, one_component};
pub(crate) use layout::Layout;
pub(crate) use spans::{Seg, Walk};
pub(crate) use varint::encode_varint;

#[cfg(test)]
pub(crate) use checked::validate_checked;
#[cfg(test)]
pub(crate) use fast::{scan_metadata, validate_fast, FAST_SEGMENTS};
#[cfg(test)]
pub(crate) use layout::find_metadata;
