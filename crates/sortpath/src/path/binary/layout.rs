//! Where an encoding's metadata starts and how many segments it has: read backwards from
//! the end (see the module docs of `binary`).

use super::error::{DecodeError, DecodeErrorKind};
use super::varint::varint_ending_at;
use super::{TERMINATOR, TYPE_BITS};

/// Where the metadata of an encoding starts, and how many segments it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) count: usize,
    pub(crate) metadata_start: usize,
}

/// Finds the metadata by reading varints backwards from the end until the segment lengths,
/// separators, terminator and metadata account for every byte (see the module docs).
pub(crate) fn find_metadata(bytes: &[u8]) -> Result<Layout, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::new(0, DecodeErrorKind::Empty));
    }
    if bytes == [TERMINATOR] {
        return Ok(Layout {
            count: 0,
            metadata_start: 1,
        }); // the empty path
    }
    let total = bytes.len() as u128;
    let mut seg_bytes: u128 = 0;
    let mut count: u128 = 0;
    let mut end = bytes.len();
    loop {
        let (value, start) = varint_ending_at(bytes, end)?;
        seg_bytes += u128::from(value >> TYPE_BITS);
        count += 1;
        // segments + (count - 1) separators + terminator + metadata
        let needed = seg_bytes + count + (bytes.len() - start) as u128;
        if needed == total {
            return Ok(Layout {
                count: count as usize,
                metadata_start: start,
            });
        }
        if needed > total || start == 0 {
            return Err(DecodeError::new(
                start,
                DecodeErrorKind::Metadata("lengths that do not add up to the input length"),
            ));
        }
        end = start;
    }
}
