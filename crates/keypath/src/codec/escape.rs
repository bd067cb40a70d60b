//! Strings and byte strings: escaping plus a one-byte terminator.
//!
//! Invariant: the body of an encoded byte string never contains [`TERMINATOR`], so the
//! first `TERMINATOR` ends it. [`ESCAPE`] followed by [`ESCAPED_NUL`] stands for a `0x00`
//! byte, [`ESCAPE`] followed by [`ESCAPED_ESCAPE`] for a `0x01` byte; every other byte is
//! itself. The units `01 01 < 01 02 < 02 < ... < FF` are prefix-free and ordered like the
//! bytes they stand for, and the terminator sorts below all of them, so a string sorts
//! before its extensions and encoded strings compare like the strings.

/// Ends every encoded string or byte string.
pub const TERMINATOR: u8 = 0x00;
/// Starts a two-byte escape inside an encoded string.
pub const ESCAPE: u8 = 0x01;
/// After [`ESCAPE`]: the content byte `0x00`.
pub const ESCAPED_NUL: u8 = 0x01;
/// After [`ESCAPE`]: the content byte `0x01`.
pub const ESCAPED_ESCAPE: u8 = 0x02;

/// Appends the escaped `bytes` and the terminator.
#[inline]
pub(crate) fn encode_into(out: &mut Vec<u8>, bytes: &[u8]) {
    // Fast path: nothing to escape, so the content is copied as is.
    if !bytes.iter().any(|&b| b <= ESCAPE) {
        out.reserve(bytes.len() + 1);
        out.extend_from_slice(bytes);
        out.push(TERMINATOR);
        return;
    }
    encode_escaped(out, bytes);
}

/// The slow path of [`encode_into`], for content holding `0x00` or `0x01` bytes.
fn encode_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b <= ESCAPE {
            out.extend_from_slice(&bytes[start..i]);
            // 0x00 -> 01 01, 0x01 -> 01 02: the second byte is the content byte plus one.
            out.extend_from_slice(&[ESCAPE, b + ESCAPED_NUL]);
            start = i + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(TERMINATOR);
}

/// A decoded byte string: borrowed from the input when it needed no unescaping.
pub(crate) enum Decoded<'de> {
    Borrowed(&'de [u8]),
    Owned(Vec<u8>),
}

/// Why an escaped string could not be decoded: the offset (relative to the start of the
/// string) and what was found there.
pub(crate) struct Malformed {
    pub offset: usize,
    pub found: Option<u8>,
}

/// Decodes one escaped string from the start of `input`, whose bytes are XORed with
/// `mask` (`0xFF` inside a descending field). Returns the content and the bytes used.
#[inline]
pub(crate) fn decode(input: &[u8], mask: u8) -> Result<(Decoded<'_>, usize), Malformed> {
    let stop = input.iter().position(|&b| b ^ mask <= ESCAPE);
    match stop {
        Some(i) if mask == 0 && input[i] == TERMINATOR => {
            Ok((Decoded::Borrowed(&input[..i]), i + 1))
        }
        Some(i) => decode_slow(input, mask, i),
        None => Err(Malformed {
            offset: input.len(),
            found: None,
        }),
    }
}

/// Unescapes into a new buffer; `plain` bytes at the start need no unescaping.
/// The buffer never grows beyond the input length.
fn decode_slow(input: &[u8], mask: u8, plain: usize) -> Result<(Decoded<'_>, usize), Malformed> {
    let mut out = Vec::with_capacity(plain + 8);
    out.extend(input[..plain].iter().map(|b| b ^ mask));
    let mut i = plain;
    loop {
        let Some(&b) = input.get(i) else {
            return Err(Malformed {
                offset: i,
                found: None,
            });
        };
        match b ^ mask {
            TERMINATOR => return Ok((Decoded::Owned(out), i + 1)),
            ESCAPE => {
                let next = input.get(i + 1).map(|n| n ^ mask);
                match next {
                    Some(ESCAPED_NUL) => out.push(0x00),
                    Some(ESCAPED_ESCAPE) => out.push(0x01),
                    _ => {
                        return Err(Malformed {
                            offset: i + 1,
                            found: next,
                        })
                    }
                }
                i += 2;
            }
            plain => {
                out.push(plain);
                i += 1;
            }
        }
    }
}
