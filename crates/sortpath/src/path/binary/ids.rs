//! The check of one ID segment's bytes, which both decoders use: a canonical integer, a
//! string or byte string written as the escaping writes it, or a UUID.

use super::error::{DecodeError, DecodeErrorKind};
use super::{TYPE_BYTES, TYPE_INT, TYPE_STRING, TYPE_UUID};
use crate::int::I65;
use crate::path::escape::{BYTES_MARKER, EMPTY_STRING, ESCAPE, ESCAPE_MAX_RAW, ESCAPE_OFFSET};

/// Checks one ID segment, `content` at `offset`, of type `type_code`.
pub(super) fn validate_id(content: &[u8], type_code: u8, offset: usize) -> Result<(), DecodeError> {
    let at = |pos: usize, kind| DecodeError::new(offset + pos, kind);
    match type_code {
        TYPE_INT => match I65::decode_prefix(content) {
            Ok((_, used)) if used == content.len() => Ok(()),
            Ok(_) => Err(at(
                0,
                DecodeErrorKind::Metadata("an integer shorter than its segment"),
            )),
            Err(e) => Err(at(0, DecodeErrorKind::Int(e))),
        },
        TYPE_STRING => {
            if content == [EMPTY_STRING] {
                return Ok(());
            }
            check_escapes(content).map_err(|(pos, b)| at(pos, DecodeErrorKind::Escape(b)))?;
            if content.is_empty() {
                return Err(at(0, DecodeErrorKind::Metadata("an empty string segment")));
            }
            if escaped_is_utf8(content) {
                Ok(())
            } else {
                Err(at(0, DecodeErrorKind::Utf8))
            }
        }
        TYPE_BYTES => match content.split_first() {
            Some((&BYTES_MARKER, rest)) => {
                check_escapes(rest).map_err(|(pos, b)| at(1 + pos, DecodeErrorKind::Escape(b)))
            }
            Some((&b, _)) => Err(at(0, DecodeErrorKind::BytesMarker(format!("0x{b:02X}")))),
            None => Err(at(
                0,
                DecodeErrorKind::BytesMarker("an empty segment".into()),
            )),
        },
        TYPE_UUID if content.len() == 16 => Ok(()),
        TYPE_UUID => Err(at(0, DecodeErrorKind::UuidLength(content.len()))),
        other => Err(at(
            0,
            DecodeErrorKind::SegmentType {
                expected: "an ID",
                found: other,
            },
        )),
    }
}

/// Checks that `escaped` is what [`escape::escape_into`](crate::path::escape::escape_into)
/// writes: every byte `<= 0x10` is an escape followed by a byte in `0x02..=0x12`. The error is the offset of the bad byte (of
/// the escape, for a bad escape) and the byte to report.
fn check_escapes(escaped: &[u8]) -> Result<(), (usize, u8)> {
    let mut i = 0;
    while let Some(pos) = escaped[i..].iter().position(|&b| b <= ESCAPE) {
        let at = i + pos;
        let b = escaped[at];
        if b < ESCAPE {
            return Err((at, b));
        }
        match escaped.get(at + 1) {
            Some(&e) if (ESCAPE_OFFSET..=ESCAPE_MAX_RAW + ESCAPE_OFFSET).contains(&e) => {
                i = at + 2;
            }
            Some(&e) => return Err((at, e)),
            None => return Err((at, b)),
        }
    }
    Ok(())
}

/// Whether the raw text of `escaped` (whose escapes [`check_escapes`] accepted) is UTF-8.
/// Escapes stand for ASCII characters, so it is exactly when every run between them is.
fn escaped_is_utf8(escaped: &[u8]) -> bool {
    let mut rest = escaped;
    loop {
        let end = rest.iter().position(|&b| b == ESCAPE).unwrap_or(rest.len());
        if std::str::from_utf8(&rest[..end]).is_err() {
            return false;
        }
        match rest.get(end + 2..) {
            Some(after) => rest = after,
            None => return true,
        }
    }
}
