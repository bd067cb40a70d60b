//! The text form of key paths: `FromStr` and `Display`.
//!
//! ```text
//! path      = "/" component *( "/" component )      ; or "/" alone: the empty path
//! component = namespace [ "-" id ]
//! namespace = 1*( ALPHA / "_" )
//! id        = int / uuid / bytes / string            ; tried in this order, on the raw text
//! int       = "0" / [ "-" ] %x31-39 *DIGIT           ; out of range is an error
//! uuid      = 8HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 12HEXDIG
//! bytes     = "~" base64url without padding
//! string    = anything else; "%/" is "/", "%%" is "%", "%" 2HEXDIG (00-7F) is that character
//! ```

use std::fmt::{self, Write};
use std::str::FromStr;

use super::binary::{
    encode_id, encode_varint, meta, Walk, SEPARATOR, TERMINATOR, TYPE_BYTES, TYPE_INT,
    TYPE_NAMESPACE, TYPE_STRING, TYPE_UUID,
};
use super::escape::{
    self, Sink, BYTES_MARKER, BYTES_PREFIX, EMPTY_STRING, ESCAPE, ESCAPE_MAX_RAW, ESCAPE_OFFSET,
};
use super::id::Id;
use super::{namespace, KeyPath};
use crate::int::I65;

/// Where and why text is not a key path.
///
/// ```
/// let err = "/user-1/post-%zz".parse::<sortpath::KeyPath>().unwrap_err();
/// assert_eq!(err.position(), 13);
/// assert_eq!(err.to_string(), "at byte 13: expected '%/', '%%' or '%' and two hex digits 00-7F, found \"%zz\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {position}: {kind}")]
pub struct ParseError {
    position: usize,
    kind: ParseErrorKind,
}

/// The problem a [`ParseError`] reports.
///
/// ```
/// let err = "user-1".parse::<sortpath::KeyPath>().unwrap_err();
/// assert_eq!(err.kind(), &sortpath::path::ParseErrorKind::MissingSlash);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The text does not start with `/`.
    #[error("expected '/' at the start of a key path")]
    MissingSlash,
    /// A component's namespace is empty or has other characters than ASCII letters and `_`.
    #[error("expected a namespace of ASCII letters or '_', found {0:?}")]
    Namespace(String),
    /// A namespace-only component that is not the last one.
    #[error("expected an ID after namespace {0:?}: only the last component may lack one")]
    IdRequired(String),
    /// An integer ID outside `-(2^64-1) ..= 2^64-1`.
    #[error("integer ID {0} is out of range -(2^64-1) ..= 2^64-1")]
    IntRange(String),
    /// Text after `~` that is not base64url without padding.
    #[error("expected base64url without padding after '~', found {0:?}")]
    Base64(String),
    /// Base64url after `~` whose last digit has unused low bits set: each byte string has
    /// one text form (as the key path's text form round-trips), the one with those bits
    /// zero.
    ///
    /// ```
    /// let err = "/a-~AB".parse::<sortpath::KeyPath>().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "at byte 4: expected base64url whose last digit has its unused low bits zero, \
    ///      found \"AB\" (the same bytes are written \"AA\")"
    /// );
    /// ```
    #[error(
        "expected base64url whose last digit has its unused low bits zero, found {found:?} \
         (the same bytes are written {canonical:?})"
    )]
    Base64NotCanonical {
        /// The text after `~`.
        found: String,
        /// The text form of the bytes it spells.
        canonical: String,
    },
    /// A `%` that does not start `%/`, `%%` or `%` and two hex digits 00-7F.
    #[error("expected '%/', '%%' or '%' and two hex digits 00-7F, found {0:?}")]
    Percent(String),
}

impl ParseError {
    fn new(position: usize, kind: ParseErrorKind) -> ParseError {
        ParseError { position, kind }
    }

    /// Byte offset in the input where the problem starts.
    ///
    /// ```
    /// let err = "/a-1/b-2/".parse::<sortpath::KeyPath>().unwrap_err();
    /// assert_eq!(err.position(), 9);
    /// ```
    pub fn position(&self) -> usize {
        self.position
    }

    /// What the problem is.
    ///
    /// ```
    /// let err = "/a/b-1".parse::<sortpath::KeyPath>().unwrap_err();
    /// assert!(matches!(err.kind(), sortpath::path::ParseErrorKind::IdRequired(_)));
    /// ```
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

pub(super) const BASE64URL: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    }
}

/// Decodes base64url without padding; rejects stray characters and impossible lengths
/// (`None`) and non-zero trailing bits (`Some(Err(bytes))`, with the bytes it spells), so
/// each byte string has exactly one text form.
fn base64_decode(text: &str) -> Option<Result<Vec<u8>, Vec<u8>>> {
    let digits = text
        .bytes()
        .map(base64_value)
        .collect::<Option<Vec<u8>>>()?;
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut canonical = true;
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut acc: u32 = 0;
        for &d in chunk {
            acc = (acc << 6) | u32::from(d);
        }
        let bits = chunk.len() * 6;
        let bytes = bits / 8;
        let spare = bits - bytes * 8;
        canonical &= acc & ((1 << spare) - 1) == 0;
        acc >>= spare;
        for i in (0..bytes).rev() {
            out.push((acc >> (8 * i)) as u8);
        }
    }
    Some(if canonical { Ok(out) } else { Err(out) })
}

fn base64_encode(bytes: &[u8], out: &mut impl Write) -> fmt::Result {
    for chunk in bytes.chunks(3) {
        let mut acc: u32 = 0;
        for &b in chunk {
            acc = (acc << 8) | u32::from(b);
        }
        let digits = (chunk.len() * 8).div_ceil(6);
        acc <<= digits * 6 - chunk.len() * 8;
        for i in (0..digits).rev() {
            out.write_char(char::from(BASE64URL[((acc >> (6 * i)) & 63) as usize]))?;
        }
    }
    Ok(())
}

/// Whether `s` is the text of an integer: `0`, or an optional `-` and digits not starting
/// with `0`.
fn is_int_text(s: &[u8]) -> bool {
    match s {
        [b'0'] => true,
        [b'-', b'0', ..] | [b'0', ..] => false,
        [b'-', digits @ ..] | digits => !digits.is_empty() && digits.iter().all(u8::is_ascii_digit),
    }
}

/// `HEX_VALUE[c]` is the value of hex digit `c` (either case), or `0xFF`.
const HEX_VALUE: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// `00` to `99`, for printing integers two digits at a time.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Lowercase hex digits.
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
/// Uppercase hex digits (for `%HH`).
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Where each byte's two hex digits start in a UUID's text.
const UUID_DIGITS: [usize; 16] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/// The 16 bytes of a UUID in text (8-4-4-4-12 hex digits, any case), or `None`.
#[inline]
pub(super) fn parse_uuid_text(b: &[u8]) -> Option<[u8; 16]> {
    let b: &[u8; 36] = b.try_into().ok()?;
    if b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let word = |at: usize| u64::from(u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]));
    // The 32 digits as four words of 8 (the groups of 4 joined in pairs).
    let words = [
        word(0) << 32 | word(4),
        word(9) << 32 | word(14),
        word(19) << 32 | word(24),
        word(28) << 32 | word(32),
    ];
    if (words[0] | words[1] | words[2] | words[3]) & 0x8080_8080_8080_8080 != 0 {
        return None; // a byte above 0x7F
    }
    let mut out = [0u8; 16];
    for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&hex_word(w)?.to_be_bytes());
    }
    Some(out)
}

/// The 4 bytes that 8 hex digits (any case; the first in the top byte of `digits`, every
/// byte below 0x80) spell, or `None` if one is not a hex digit. Eight digits at a time: per
/// byte (below 0x80, so no carry leaves it), adding `0x80 - lo` sets the high bit exactly
/// for bytes `>= lo`.
#[inline(always)]
fn hex_word(digits: u64) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let digit = (digits + ONES * (0x80 - 0x30)) & !(digits + ONES * (0x80 - 0x3A)) & HIGH;
    let lower = digits | (ONES * 0x20);
    let letter = (lower + ONES * (0x80 - 0x61)) & !(lower + ONES * (0x80 - 0x67)) & HIGH;
    if digit | letter != HIGH {
        return None;
    }
    // Digits are their low nibble; letters their low nibble plus 9 ('a' is 0x61).
    let nibbles = (digits & (ONES * 0x0F)) + (letter >> 7) * 9;
    // Pairs of nibbles into bytes, then the bytes together.
    let bytes = (nibbles | (nibbles >> 4)) & 0x00FF_00FF_00FF_00FF;
    let pairs = (bytes | (bytes >> 8)) & 0x0000_FFFF_0000_FFFF;
    Some(((pairs | (pairs >> 16)) & 0xFFFF_FFFF) as u32)
}

/// Appends raw content byte `b` to an escaped ID segment.
#[inline]
fn push_escaped(b: u8, out: &mut Out) {
    if b <= ESCAPE_MAX_RAW {
        out.put(&[ESCAPE, b + ESCAPE_OFFSET]);
    } else {
        out.byte(b);
    }
}

/// Bytes of the binary form a parse keeps on the stack before it moves them to the heap.
const OUT_INLINE: usize = 64;

/// The binary form as it is parsed: on the stack while it fits (so a short path is made
/// without a heap allocation), else on the heap.
struct Out {
    buf: [u8; OUT_INLINE],
    len: usize,
    heap: Option<Vec<u8>>,
}

impl Out {
    /// A buffer for the encoding of `text`: on the stack when the path is likely to be
    /// held inline, else on the heap from the start (so a long path is not copied there).
    fn for_text(text: &str) -> Out {
        Out {
            buf: [0; OUT_INLINE],
            len: 0,
            heap: (text.len() > super::INLINE).then(|| Vec::with_capacity(text.len() + 16)),
        }
    }

    fn len(&self) -> usize {
        self.heap.as_ref().map_or(self.len, Vec::len)
    }

    fn finish(self) -> KeyPath {
        match self.heap {
            Some(heap) => KeyPath::from_valid(heap),
            None => KeyPath::from_valid_slice(&self.buf[..self.len]),
        }
    }
}

impl Out {
    /// Appends one byte.
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        match (&mut self.heap, self.buf.get_mut(self.len)) {
            (None, Some(slot)) => {
                *slot = b;
                self.len += 1;
            }
            _ => self.put(&[b]),
        }
    }
}

impl Sink for Out {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        if let Some(heap) = &mut self.heap {
            return heap.extend_from_slice(bytes);
        }
        match self.buf.get_mut(self.len..self.len + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.len += bytes.len();
            }
            None => {
                let mut heap = Vec::with_capacity(2 * (self.len + bytes.len()));
                heap.extend_from_slice(&self.buf[..self.len]);
                heap.extend_from_slice(bytes);
                self.heap = Some(heap);
            }
        }
    }
}

/// Parses an ID from its raw text into its segment bytes; `at` is its byte offset in the
/// whole input. Returns the segment's type code.
fn parse_id_into(raw: &str, at: usize, out: &mut Out) -> Result<u8, ParseError> {
    let text = raw.as_bytes();
    if is_int_text(text) {
        let (negative, digits) = match text.split_first() {
            Some((b'-', digits)) => (true, digits),
            _ => (false, text),
        };
        let range = || ParseError::new(at, ParseErrorKind::IntRange(raw.into()));
        let mut magnitude: u64 = 0;
        for &d in digits {
            magnitude = magnitude
                .checked_mul(10)
                .and_then(|m| m.checked_add(u64::from(d - b'0')))
                .ok_or_else(range)?;
        }
        let (buf, start) = I65::from_sign_magnitude(negative, magnitude).encoded();
        out.put(&buf[start..]);
        return Ok(TYPE_INT);
    }
    if let Some(uuid) = parse_uuid_text(text) {
        out.put(&uuid);
        return Ok(TYPE_UUID);
    }
    if let Some(b64) = raw.strip_prefix(BYTES_PREFIX) {
        return match base64_decode(b64) {
            Some(Ok(bytes)) => {
                out.byte(BYTES_MARKER);
                escape::escape_into(&bytes, out);
                Ok(TYPE_BYTES)
            }
            Some(Err(bytes)) => {
                let mut canonical = String::with_capacity(b64.len());
                base64_encode(&bytes, &mut canonical).expect("a String takes any text");
                let kind = ParseErrorKind::Base64NotCanonical {
                    found: b64.into(),
                    canonical,
                };
                Err(ParseError::new(at + 1, kind))
            }
            None => Err(ParseError::new(at + 1, ParseErrorKind::Base64(b64.into()))),
        };
    }
    string_into(raw, at, out)?;
    Ok(TYPE_STRING)
}

/// Writes the string ID whose text is `raw` (with its `%` escapes) as its escaped segment.
fn string_into(raw: &str, at: usize, out: &mut Out) -> Result<(), ParseError> {
    if raw.is_empty() {
        out.byte(EMPTY_STRING);
        return Ok(());
    }
    let bytes = raw.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while let Some(pos) = bytes[i..].iter().position(|&b| b == b'%') {
        let pct = i + pos;
        escape::escape_into(&bytes[run..pct], out);
        let after = &raw[pct + 1..];
        let bad = || {
            let end = after.char_indices().nth(2).map_or(after.len(), |(i, _)| i);
            ParseError::new(
                at + pct,
                ParseErrorKind::Percent(format!("%{}", &after[..end])),
            )
        };
        let (raw_byte, used) = match after.as_bytes() {
            [b'/', ..] => (b'/', 1),
            [b'%', ..] => (b'%', 1),
            [hi, lo, ..] => {
                let (hi, lo) = (HEX_VALUE[usize::from(*hi)], HEX_VALUE[usize::from(*lo)]);
                if (hi | lo) & 0xF0 != 0 || hi > 7 {
                    return Err(bad());
                }
                ((hi << 4) | lo, 2)
            }
            _ => return Err(bad()),
        };
        push_escaped(raw_byte, out);
        i = pct + 1 + used;
        run = i;
    }
    escape::escape_into(&bytes[run..], out);
    Ok(())
}

/// The metadata varints of the segments parsed so far: on the stack for the first 64 bytes.
struct Metas {
    inline: [u8; 64],
    len: usize,
    spill: Vec<u8>,
}

impl Metas {
    fn new() -> Metas {
        Metas {
            inline: [0; 64],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, mut m: u64) {
        // Room for the longest varint (10 bytes), or the rest goes to the heap.
        if self.len + 10 > self.inline.len() || !self.spill.is_empty() {
            return encode_varint(m, &mut self.spill);
        }
        while m >= 0x80 {
            self.inline[self.len] = (m as u8) | 0x80;
            self.len += 1;
            m >>= 7;
        }
        self.inline[self.len] = m as u8;
        self.len += 1;
    }

    fn write(&self, out: &mut Out) {
        out.put(&self.inline[..self.len]);
        out.put(&self.spill);
    }
}

/// End of the component that starts at `start`: the next unescaped `/` or the end ("%/"
/// and "%%" are two-byte escapes, and "%HH" has no '/' after its '%').
fn component_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while let Some(&c) = b.get(i) {
        match c {
            b'%' => i += 2,
            b'/' => break,
            _ => i += 1,
        }
    }
    i.min(b.len())
}

/// The error for the component at `start`, whose namespace is not valid.
#[cold]
fn namespace_error(text: &str, start: usize) -> ParseError {
    let part = &text[start..component_end(text.as_bytes(), start)];
    let namespace = part.split_once('-').map_or(part, |(ns, _)| ns);
    ParseError::new(start, ParseErrorKind::Namespace(namespace.into()))
}

/// The common ID texts that end a component, parsed without finding the component's end
/// first: an integer or a UUID followed by `/` or the end of the text. Writes the segment
/// and returns its type code and the end of its text, or `None` (writing nothing) for
/// anything else, which [`parse_id_into`] then parses from the whole ID text.
#[inline]
fn parse_common_id(text: &[u8], out: &mut Out) -> Option<(u8, usize)> {
    let ends = |at: usize| matches!(text.get(at), None | Some(b'/'));
    // An integer: "0", or an optional '-' and digits not starting with '0'; at most 19
    // digits, which cannot overflow (longer ones go to the full parser, which checks).
    let negative = text.first() == Some(&b'-');
    let digits_at = usize::from(negative);
    let digits = text
        .get(digits_at..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits > 0 && ends(digits_at + digits) {
        let d = &text[digits_at..digits_at + digits];
        if digits > 19 || (d[0] == b'0' && (digits > 1 || negative)) {
            return None;
        }
        let magnitude = d.iter().fold(0u64, |m, &c| m * 10 + u64::from(c - b'0'));
        let (buf, start) = I65::from_sign_magnitude(negative, magnitude).encoded();
        out.put(&buf[start..]);
        return Some((TYPE_INT, digits_at + digits));
    }
    if ends(36) {
        if let Some(uuid) = text.get(..36).and_then(parse_uuid_text) {
            out.put(&uuid);
            return Some((TYPE_UUID, 36));
        }
    }
    None
}

impl FromStr for KeyPath {
    type Err = ParseError;

    /// Parses the text form; `/` alone is the empty path. Writes the binary form as it
    /// reads the text.
    fn from_str(text: &str) -> Result<KeyPath, ParseError> {
        if !text.starts_with('/') {
            return Err(ParseError::new(0, ParseErrorKind::MissingSlash));
        }
        if text == "/" {
            return Ok(KeyPath::new());
        }
        match super::parse_fast::parse(text) {
            Some(path) => Ok(path),
            None => parse_full(text),
        }
    }
}

impl KeyPath {
    /// Parses the text form and appends its binary form to `out`: what
    /// `text.parse::<KeyPath>()?.encode_into(out)` does, with the same errors, without
    /// making the path (for a program that keeps many encodings in one buffer). On error,
    /// `out` is unchanged.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let mut all = Vec::new();
    /// KeyPath::parse_into("/user-1/post-42", &mut all)?;
    /// assert_eq!(all, "/user-1/post-42".parse::<KeyPath>()?.encode());
    /// let before = all.clone();
    /// assert!(KeyPath::parse_into("/user-1/", &mut all).is_err());
    /// assert_eq!(all, before);
    /// # Ok::<(), sortpath::path::ParseError>(())
    /// ```
    pub fn parse_into(text: &str, out: &mut Vec<u8>) -> Result<(), ParseError> {
        if text.starts_with('/') && text != "/" {
            let fast = super::parse_fast::parse_with(text, |b| out.extend_from_slice(b));
            if fast.is_some() {
                return Ok(());
            }
        }
        text.parse::<KeyPath>().map(|path| path.encode_into(out))
    }
}

/// Parses the text of a non-empty path (starting with `/`, not `/` alone) one piece at a
/// time, every form and every error; [`super::parse_fast`] takes the common forms first.
pub(super) fn parse_full(text: &str) -> Result<KeyPath, ParseError> {
    {
        let b = text.as_bytes();
        let mut out = Out::for_text(text);
        let mut metas = Metas::new();
        let mut start = 1;
        loop {
            // A component: its namespace, then '-' and an ID, or '/' or the end.
            let after = start + namespace::prefix_len(&b[start..]);
            let next = b.get(after).copied();
            if after == start || !matches!(next, None | Some(b'-' | b'/')) {
                return Err(namespace_error(text, start));
            }
            if start > 1 {
                out.byte(SEPARATOR);
            }
            out.put(&b[start..after]);
            metas.push(meta(after - start, TYPE_NAMESPACE));
            let end = match next {
                Some(b'-') => {
                    let id_at = after + 1;
                    out.byte(SEPARATOR);
                    let id_start = out.len();
                    let (type_code, end) = match parse_common_id(&b[id_at..], &mut out) {
                        Some((type_code, len)) => (type_code, id_at + len),
                        None => {
                            let end = component_end(b, id_at);
                            (parse_id_into(&text[id_at..end], id_at, &mut out)?, end)
                        }
                    };
                    metas.push(meta(out.len() - id_start, type_code));
                    end
                }
                Some(_) => {
                    let namespace = &text[start..after];
                    return Err(ParseError::new(
                        start,
                        ParseErrorKind::IdRequired(namespace.into()),
                    ));
                }
                None => after,
            };
            if end >= b.len() {
                break;
            }
            start = end + 1;
        }
        out.byte(TERMINATOR);
        metas.write(&mut out);
        Ok(out.finish())
    }
}

/// A writer that gathers text in a stack buffer and passes it on in few, large pieces.
/// Everything put in is whole UTF-8 characters, so the buffer always holds valid text.
struct TextOut<'w, W: Write> {
    out: &'w mut W,
    buf: [u8; 128],
    len: usize,
}

impl<'w, W: Write> TextOut<'w, W> {
    fn new(out: &'w mut W) -> TextOut<'w, W> {
        TextOut {
            out,
            buf: [0; 128],
            len: 0,
        }
    }

    /// Appends `s`, which is whole UTF-8 characters.
    #[inline(always)]
    fn put(&mut self, s: &[u8]) -> fmt::Result {
        if s.len() > self.buf.len() - self.len {
            self.flush()?;
            if s.len() > self.buf.len() {
                return self
                    .out
                    .write_str(std::str::from_utf8(s).map_err(|_| fmt::Error)?);
            }
        }
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
        Ok(())
    }

    fn flush(&mut self) -> fmt::Result {
        let text = std::str::from_utf8(&self.buf[..self.len]).map_err(|_| fmt::Error)?;
        self.out.write_str(text)?;
        self.len = 0;
        Ok(())
    }
}

/// Writes the text form of the valid encoding `bytes`.
pub(crate) fn write_path(bytes: &[u8], f: &mut impl Write) -> fmt::Result {
    if bytes == [TERMINATOR] {
        return f.write_char('/');
    }
    let mut t = TextOut::new(f);
    let mut walk = Walk::new(bytes);
    while let Some(ns) = walk.next() {
        t.put(b"/")?;
        t.put(ns.content(bytes))?;
        if let Some(id) = walk.next() {
            t.put(b"-")?;
            write_id_segment(id.type_code, id.content(bytes), &mut t)?;
        }
    }
    t.flush()
}

/// Writes the canonical text of a valid ID segment of type `type_code`.
fn write_id_segment<W: Write>(
    type_code: u8,
    content: &[u8],
    t: &mut TextOut<'_, W>,
) -> fmt::Result {
    match type_code {
        TYPE_INT => {
            let v = I65::decode_prefix(content).map_or(I65::ZERO, |(v, _)| v);
            let mut digits = [0u8; 21];
            let mut at = digits.len();
            let mut m = v.magnitude();
            // Two digits at a time, from a table.
            while m >= 100 {
                let pair = 2 * (m % 100) as usize;
                m /= 100;
                at -= 2;
                digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            }
            if m >= 10 {
                let pair = 2 * m as usize;
                at -= 2;
                digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            } else {
                at -= 1;
                digits[at] = b'0' + m as u8;
            }
            if v.is_negative() {
                at -= 1;
                digits[at] = b'-';
            }
            t.put(&digits[at..])
        }
        TYPE_UUID => {
            let mut text = [b'-'; 36];
            for (&b, &at) in content.iter().zip(&UUID_DIGITS) {
                text[at] = HEX_LOWER[usize::from(b >> 4)];
                text[at + 1] = HEX_LOWER[usize::from(b & 0x0F)];
            }
            t.put(&text)
        }
        TYPE_BYTES => {
            t.put(b"~")?;
            let raw = escape::unescape(content.get(1..).unwrap_or_default()).unwrap_or_default();
            for chunk in raw.chunks(3) {
                let mut acc: u32 = 0;
                for &b in chunk {
                    acc = (acc << 8) | u32::from(b);
                }
                let digits = (chunk.len() * 8).div_ceil(6);
                acc <<= digits * 6 - chunk.len() * 8;
                let mut text = [0u8; 4];
                for (i, d) in text[..digits].iter_mut().enumerate() {
                    *d = BASE64URL[((acc >> (6 * (digits - 1 - i))) & 63) as usize];
                }
                t.put(&text[..digits])?;
            }
            Ok(())
        }
        _ => write_string_segment(content, t),
    }
}

/// Writes a string ID from its escaped segment: `/` as `%/`, `%` as `%%`, controls as
/// `%HH`, and the first character escaped when the text would otherwise read as another ID
/// type.
fn write_string_segment<W: Write>(content: &[u8], t: &mut TextOut<'_, W>) -> fmt::Result {
    if content == [EMPTY_STRING] {
        return Ok(());
    }
    let pct = |b: u8, t: &mut TextOut<'_, W>| {
        t.put(&[
            b'%',
            HEX_UPPER[usize::from(b >> 4)],
            HEX_UPPER[usize::from(b & 0x0F)],
        ])
    };
    // Text that reads as an integer, a UUID or bytes has no escaped bytes, so its segment
    // is the text itself.
    let ambiguous = is_int_text(content)
        || parse_uuid_text(content).is_some()
        || content.first() == Some(&(BYTES_PREFIX as u8));
    let mut i = 0;
    if ambiguous {
        pct(content[0], t)?;
        i = 1;
    }
    let mut run = i;
    while i < content.len() {
        let b = content[i];
        if b > 0x1F && b != b'/' && b != b'%' && b != 0x7F {
            i += 1;
            continue;
        }
        // Runs end at ASCII bytes, so each is whole characters.
        t.put(&content[run..i])?;
        match b {
            ESCAPE => {
                let raw = content
                    .get(i + 1)
                    .map_or(0, |e| e.wrapping_sub(ESCAPE_OFFSET));
                pct(raw, t)?;
                i += 2;
            }
            b'/' => {
                t.put(b"%/")?;
                i += 1;
            }
            b'%' => {
                t.put(b"%%")?;
                i += 1;
            }
            _ => {
                pct(b, t)?;
                i += 1;
            }
        }
        run = i;
    }
    t.put(content.get(run..).unwrap_or_default())
}

impl fmt::Display for Id {
    /// The ID's canonical text, as it appears after `namespace-` in a key path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut segment = Vec::new();
        encode_id(self, &mut segment);
        let mut t = TextOut::new(f);
        write_id_segment(super::binary::id_type_code(self), &segment, &mut t)?;
        t.flush()
    }
}

impl fmt::Display for KeyPath {
    /// The canonical text form; `parse(print(p)) == p` for every key path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_path(self.as_bytes(), f)
    }
}
