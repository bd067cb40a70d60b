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

use super::id::Id;
use super::{is_valid_namespace, Component, KeyPath};
use crate::int::I65;

/// Where and why text is not a key path.
///
/// ```
/// let err = "/user-1/post-%zz".parse::<keypath::KeyPath>().unwrap_err();
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
/// let err = "user-1".parse::<keypath::KeyPath>().unwrap_err();
/// assert_eq!(err.kind(), &keypath::ParseErrorKind::MissingSlash);
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
    /// let err = "/a-~AB".parse::<keypath::KeyPath>().unwrap_err();
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
    /// let err = "/a-1/b-2/".parse::<keypath::KeyPath>().unwrap_err();
    /// assert_eq!(err.position(), 9);
    /// ```
    pub fn position(&self) -> usize {
        self.position
    }

    /// What the problem is.
    ///
    /// ```
    /// let err = "/a/b-1".parse::<keypath::KeyPath>().unwrap_err();
    /// assert!(matches!(err.kind(), keypath::ParseErrorKind::IdRequired(_)));
    /// ```
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

pub(super) const BASE64URL: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// Prefix of a byte-string ID in text form.
pub const BYTES_PREFIX: char = '~';

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

fn is_int_text(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    match digits.as_bytes() {
        [b'0'] => s == "0",
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
        [] => false,
    }
}

fn parse_uuid_text(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
        return None;
    }
    let mut out = [0u8; 16];
    let mut hex = b.iter().filter(|&&c| c != b'-');
    for byte in &mut out {
        let hi = (*hex.next()? as char).to_digit(16)?;
        let lo = (*hex.next()? as char).to_digit(16)?;
        *byte = (hi * 16 + lo) as u8;
    }
    Some(out)
}

/// Parses an ID from its raw text; `at` is its byte offset in the whole input.
fn parse_id(raw: &str, at: usize) -> Result<Id, ParseError> {
    if is_int_text(raw) {
        let v: i128 = raw
            .parse()
            .map_err(|_| ParseError::new(at, ParseErrorKind::IntRange(raw.into())))?;
        return I65::try_from(v)
            .map(Id::Int)
            .map_err(|_| ParseError::new(at, ParseErrorKind::IntRange(raw.into())));
    }
    if let Some(uuid) = parse_uuid_text(raw) {
        return Ok(Id::Uuid(uuid));
    }
    if let Some(b64) = raw.strip_prefix(BYTES_PREFIX) {
        return match base64_decode(b64) {
            Some(Ok(bytes)) => Ok(Id::Bytes(bytes)),
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
    unescape_string(raw, at).map(Id::Str)
}

fn unescape_string(raw: &str, at: usize) -> Result<String, ParseError> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(pos) = rest.find('%') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let bad = || {
            let end = after.char_indices().nth(2).map_or(after.len(), |(i, _)| i);
            let offset = at + (raw.len() - rest.len()) + pos;
            ParseError::new(
                offset,
                ParseErrorKind::Percent(format!("%{}", &after[..end])),
            )
        };
        let (ch, used) = match after.as_bytes() {
            [b'/', ..] => ('/', 1),
            [b'%', ..] => ('%', 1),
            [hi, lo, ..] => {
                let hi = (*hi as char).to_digit(16).ok_or_else(bad)?;
                let lo = (*lo as char).to_digit(16).ok_or_else(bad)?;
                let v = hi * 16 + lo;
                if v > 0x7F {
                    return Err(bad());
                }
                (char::from(v as u8), 2)
            }
            _ => return Err(bad()),
        };
        out.push(ch);
        rest = &after[used..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Splits the text after the leading `/` into components at unescaped `/`s, with offsets.
fn split_components(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut start = 1;
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => i += 2, // "%/" and "%%" are two-byte escapes; "%HH" has no '/' after.
            b'/' => {
                parts.push((start, &text[start..i]));
                start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    parts.push((start, &text[start.min(text.len())..]));
    parts
}

impl FromStr for KeyPath {
    type Err = ParseError;

    /// Parses the text form; `/` alone is the empty path.
    fn from_str(text: &str) -> Result<KeyPath, ParseError> {
        if !text.starts_with('/') {
            return Err(ParseError::new(0, ParseErrorKind::MissingSlash));
        }
        if text == "/" {
            return Ok(KeyPath::new());
        }
        let parts = split_components(text);
        let mut components = Vec::with_capacity(parts.len());
        for (index, &(at, part)) in parts.iter().enumerate() {
            let (namespace, id) = match part.split_once('-') {
                Some((ns, id)) => (ns, Some(id)),
                None => (part, None),
            };
            if !is_valid_namespace(namespace) {
                return Err(ParseError::new(
                    at,
                    ParseErrorKind::Namespace(namespace.into()),
                ));
            }
            let id = match id {
                Some(raw) => Some(parse_id(raw, at + namespace.len() + 1)?),
                None if index + 1 < parts.len() => {
                    return Err(ParseError::new(
                        at,
                        ParseErrorKind::IdRequired(namespace.into()),
                    ))
                }
                None => None,
            };
            components.push(Component {
                namespace: super::Namespace::new(namespace),
                id,
            });
        }
        Ok(KeyPath { components })
    }
}

/// Writes a string ID in canonical text: `/` as `%/`, `%` as `%%`, controls as `%HH`, and the
/// first character escaped when the text would otherwise read as another ID type.
fn write_string_id(s: &str, f: &mut impl Write) -> fmt::Result {
    let ambiguous = is_int_text(s) || parse_uuid_text(s).is_some() || s.starts_with(BYTES_PREFIX);
    for (i, ch) in s.char_indices() {
        match ch {
            '/' => f.write_str("%/")?,
            '%' => f.write_str("%%")?,
            '\u{0}'..='\u{1F}' | '\u{7F}' => write!(f, "%{:02X}", ch as u32)?,
            _ if i == 0 && ambiguous => write!(f, "%{:02X}", ch as u32)?,
            _ => f.write_char(ch)?,
        }
    }
    Ok(())
}

/// Writes an ID in canonical text.
pub(crate) fn write_id(id: &Id, f: &mut impl Write) -> fmt::Result {
    match id {
        Id::Int(v) => write!(f, "{v}"),
        Id::Str(s) => write_string_id(s, f),
        Id::Uuid(u) => {
            for (i, b) in u.iter().enumerate() {
                if matches!(i, 4 | 6 | 8 | 10) {
                    f.write_char('-')?;
                }
                write!(f, "{b:02x}")?;
            }
            Ok(())
        }
        Id::Bytes(b) => {
            f.write_char(BYTES_PREFIX)?;
            base64_encode(b, f)
        }
    }
}

impl fmt::Display for Id {
    /// The ID's canonical text, as it appears after `namespace-` in a key path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_id(self, f)
    }
}

impl fmt::Display for KeyPath {
    /// The canonical text form; `parse(print(p)) == p` for every key path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.components.is_empty() {
            return f.write_char('/');
        }
        for c in &self.components {
            f.write_char('/')?;
            f.write_str(&c.namespace)?;
            if let Some(id) = &c.id {
                f.write_char('-')?;
                write_id(id, f)?;
            }
        }
        Ok(())
    }
}
