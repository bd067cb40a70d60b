//! `encode`, `decode`, `sort`, `inspect` and `demo`: key path commands without a store.

use std::io::Write;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use sortpath::path::IdType;
use sortpath::{KeyPath, KeyPathRef};

use crate::input::for_each_input;
use crate::Failure;

/// Standard-alphabet base64 with exactly the padding it needs (DynamoDB JSON exports pad)...
const BASE64_PADDED: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);
/// ...or with none.
const BASE64_UNPADDED: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::RequireNone),
);

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    push_hex(&mut s, bytes);
    s
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
}

/// Appends `bytes` as lowercase hex, or as standard base64 with padding.
pub(crate) fn push_bytes(out: &mut String, bytes: &[u8], base64: bool) {
    if base64 {
        base64::engine::general_purpose::STANDARD.encode_string(bytes, out);
    } else {
        push_hex(out, bytes);
    }
}

fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    // Positions count characters, as a reader of the text does.
    let mut digits = Vec::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        let d = c
            .to_digit(16)
            .ok_or_else(|| format!("at character {i}: expected a hex digit, found {c:?}"))?;
        digits.push(d as u8);
    }
    if !digits.len().is_multiple_of(2) {
        return Err(format!(
            "at character {}: expected an even number of hex digits, found {}",
            digits.len(),
            digits.len()
        ));
    }
    Ok(digits.chunks(2).map(|p| p[0] * 16 + p[1]).collect())
}

pub(crate) fn parse_path(name: &dyn Fn() -> String, text: &str) -> Result<KeyPath, Failure> {
    text.parse::<KeyPath>()
        .map_err(|e| Failure::BadInput(format!("{}: {e}", name())))
}

/// The bytes that `text` spells in hex, or in standard base64 with `base64`.
fn parse_bytes(name: &dyn Fn() -> String, text: &str, base64: bool) -> Result<Vec<u8>, Failure> {
    if base64 {
        // Padding is optional, but where there is some it must be exactly right.
        let engine = if text.ends_with('=') {
            &BASE64_PADDED
        } else {
            &BASE64_UNPADDED
        };
        engine
            .decode(text)
            .map_err(|e| format!("expected base64: {e}"))
    } else {
        parse_hex(text)
    }
    .map_err(|e| Failure::BadInput(format!("{}: {e}", name())))
}

/// The key path that `bytes` encode, or an error naming `name` and where decoding failed,
/// which says so when the bytes are the group key of a record the store keeps for itself.
fn decode_path(name: &dyn Fn() -> String, bytes: &[u8]) -> Result<KeyPath, Failure> {
    KeyPath::decode(bytes).map_err(|e| {
        let hint = match store_record(bytes) {
            Some(_) => {
                " (not a key path: the group key of a record the store keeps for \
                         itself, which `sortpath inspect` describes)"
            }
            None => "",
        };
        Failure::BadInput(format!("{}: {e}{hint}", name()))
    })
}

/// `encode`: each path's binary form, or with `split` its group and sort keys separated by
/// a TAB, in hex or base64.
pub(crate) fn encode(
    args: &[String],
    base64: bool,
    split: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut buf = Vec::with_capacity(256);
    let mut line = String::with_capacity(512);
    for_each_input(args, |name, text| {
        let path = parse_path(name, text)?;
        line.clear();
        if split {
            let (group, sort) = path
                .split_group()
                .map_err(|e| Failure::BadInput(format!("{}: {e}", name())))?;
            push_bytes(&mut line, &group, base64);
            line.push('\t');
            push_bytes(&mut line, &sort, base64);
        } else {
            buf.clear();
            path.encode_into(&mut buf);
            push_bytes(&mut line, &buf, base64);
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
        Ok(())
    })
}

/// `decode`: the canonical text of each encoding, or with `split` of each group key and
/// sort key pair (`GROUP<TAB>SORT` lines, or arguments taken two at a time).
pub(crate) fn decode(
    args: &[String],
    base64: bool,
    split: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if !split {
        return for_each_input(args, |name, text| {
            let bytes = parse_bytes(name, text, base64)?;
            writeln!(out, "{}", decode_path(name, &bytes)?)?;
            Ok(())
        });
    }
    if !args.is_empty() {
        if let [.., last] = args {
            if !args.len().is_multiple_of(2) {
                return Err(Failure::BadInput(format!(
                    "argument {} ({last:?}, group key): expected a SORT argument after it, \
                     found none (arguments are GROUP SORT pairs)",
                    args.len()
                )));
            }
        }
        for (i, pair) in args.chunks(2).enumerate() {
            let (g, s) = (&pair[0], &pair[1]);
            let group_name = || format!("argument {} ({g:?}, group key)", 2 * i + 1);
            let sort_name = || format!("argument {} ({s:?}, sort key)", 2 * i + 2);
            let path = decode_split(&group_name, g, &sort_name, s, base64)?;
            writeln!(out, "{path}")?;
        }
        return Ok(());
    }
    for_each_input(&[], |name, text| {
        let Some((g, s)) = text.split_once('\t') else {
            return Err(Failure::BadInput(format!(
                "{}: at character {}: expected GROUP<TAB>SORT, found no TAB",
                name(),
                text.chars().count()
            )));
        };
        let group_name = || format!("{}: field 1 (group key)", name());
        let sort_name = || format!("{}: field 2 (sort key)", name());
        let path = decode_split(&group_name, g, &sort_name, s, base64)?;
        writeln!(out, "{path}")?;
        Ok(())
    })
}

fn decode_split(
    group_name: &dyn Fn() -> String,
    group: &str,
    sort_name: &dyn Fn() -> String,
    sort: &str,
    base64: bool,
) -> Result<KeyPath, Failure> {
    let bad = |name: &dyn Fn() -> String, e: &dyn std::fmt::Display| {
        Failure::BadInput(format!("{}: {e}", name()))
    };
    let group = parse_bytes(group_name, group, base64)?;
    let sort = parse_bytes(sort_name, sort, base64)?;
    // Each part is checked on its own first, so the message says which one is wrong.
    decode_path(group_name, &group)?;
    // A root item placed elsewhere than first (`sortpath db init --root`) is its group.
    let sort = match sortpath_store::layout::placed_root(&sort) {
        Some(_) => sortpath_store::layout::ROOT_FIRST.to_vec(),
        None => {
            KeyPath::decode(&sort).map_err(|e| bad(sort_name, &e))?;
            sort
        }
    };
    // Both decode: what is left to fail is the group key not being one component with an ID.
    KeyPath::from_group(&group, &sort).map_err(|e| bad(group_name, &e))
}

/// Names a group key of the store's own records (sortpath_store::layout), such as a
/// DynamoDB export holds beside the items: `(store record: ...)`, for `inspect` (`decode`
/// only decodes key paths). `None` for anything else.
fn store_record(group: &[u8]) -> Option<String> {
    use sortpath_store::layout::{
        RESERVED_GROUP, TAG_APPLICATION, TAG_CONFIG, TAG_GROUP_COUNTER, TAG_INDEX,
    };
    let what = match group {
        [RESERVED_GROUP, TAG_GROUP_COUNTER, item_group @ ..] => {
            format!(
                "the version counter of group {}",
                KeyPath::decode(item_group).ok()?
            )
        }
        [RESERVED_GROUP, TAG_INDEX, len, rest @ ..] => {
            let name = std::str::from_utf8(rest.get(..usize::from(*len))?).ok()?;
            let index_group = KeyPath::decode(&rest[usize::from(*len)..]).ok()?;
            if name.is_empty() {
                return None;
            }
            format!("entries of index {name} under {index_group}")
        }
        [RESERVED_GROUP, TAG_CONFIG] => "the store's configuration".to_owned(),
        [RESERVED_GROUP, TAG_APPLICATION, ..] => "an application's own record".to_owned(),
        _ => return None,
    };
    Some(format!("(store record: {what})"))
}

/// One key of `sortpath sort`: where its encoding lies in the buffer that holds them all, and
/// its first 8 bytes (big-endian, zero after a shorter key), which decide most comparisons
/// without reading the buffer.
#[derive(Clone, Copy)]
struct SortKey {
    head: u64,
    start: u32,
    len: u32,
}

impl SortKey {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// The most encoded bytes `sortpath sort` holds (offsets are 32 bits, to keep each key's
/// entry at 16 bytes).
const SORT_MAX_BYTES: usize = u32::MAX as usize;

pub(crate) fn sort(out: &mut impl Write) -> Result<(), Failure> {
    // All encodings back to back in one buffer, and a small entry per key: no allocation
    // per key, and the entries sort without touching the buffer until the heads tie.
    let mut all: Vec<u8> = Vec::new();
    let mut keys: Vec<SortKey> = Vec::new();
    for_each_input(&[], |name, text| {
        // Parsed straight to the end of the buffer (no path made and dropped per line).
        let start = all.len();
        KeyPath::parse_into(text, &mut all)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", name())))?;
        let bytes = &all[start..];
        if all.len() > SORT_MAX_BYTES {
            return Err(Failure::BadInput(format!(
                "{}: the input's key paths take more than {SORT_MAX_BYTES} bytes encoded, \
                 more than sort holds",
                name()
            )));
        }
        let mut head = [0u8; 8];
        let n = bytes.len().min(8);
        head[..n].copy_from_slice(&bytes[..n]);
        keys.push(SortKey {
            head: u64::from_be_bytes(head),
            // Both fit: checked against SORT_MAX_BYTES above.
            start: start as u32,
            len: bytes.len() as u32,
        });
        Ok(())
    })?;
    // Equal heads are equal first 8 bytes (or a key of fewer than 8 bytes and one that
    // extends it with zeros), so the whole encodings decide; different heads order as the
    // encodings do.
    keys.sort_unstable_by(|a, b| {
        a.head
            .cmp(&b.head)
            .then_with(|| all[a.range()].cmp(&all[b.range()]))
    });
    let mut text = String::with_capacity(256);
    for key in keys {
        // Each range holds the bytes of a path parsed above: valid, and not checked again.
        let path = KeyPathRef::new_unchecked(&all[key.range()]);
        text.clear();
        std::fmt::Write::write_fmt(&mut text, format_args!("{path}\n"))
            .expect("a String takes any text");
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

pub(crate) fn inspect(key: &str, out: &mut impl Write) -> Result<(), Failure> {
    let name = || format!("argument 1 ({key:?})");
    let (bytes, path) = if key.starts_with('/') {
        let path = parse_path(&name, key)?;
        (path.encode(), path)
    } else if key.chars().next().is_none_or(|c| c.is_ascii_hexdigit()) {
        let bytes = parse_bytes(&name, key, false)?;
        if KeyPath::decode(&bytes).is_err() {
            if let Some(what) = store_record(&bytes) {
                writeln!(out, "record    {what}")?;
                writeln!(out, "encoding  {} bytes: {}", bytes.len(), hex(&bytes))?;
                return Ok(());
            }
        }
        let path = decode_path(&name, &bytes)?;
        (bytes, path)
    } else {
        return Err(Failure::BadInput(format!(
            "{}: expected a key path (text starting with '/') or its binary form in hex",
            name()
        )));
    };
    let spans = KeyPathRef::decode(&bytes)
        .map_err(|e| Failure::BadInput(format!("{}: {e}", name())))?
        .segment_spans();
    writeln!(out, "path      {path}")?;
    writeln!(out, "encoding  {} bytes: {}", bytes.len(), hex(&bytes))?;
    writeln!(
        out,
        "{:<7} {:<36} {:<9} {:<8} value",
        "offset", "bytes", "type", "metadata"
    )?;
    let values = path.segments().flat_map(|c| {
        [
            Some(c.namespace().to_owned()),
            c.id().map(|id| id.to_string()),
        ]
    });
    for (span, value) in spans.iter().zip(values) {
        let kind = match span.id_type {
            None => "namespace".to_owned(),
            Some(IdType::Int) => "int".to_owned(),
            Some(t) => t.to_string(),
        };
        writeln!(
            out,
            "{:<7} {:<36} {:<9} {:<8} {}",
            span.range.start,
            hex(&bytes[span.range.clone()]),
            kind,
            hex(&bytes[span.metadata.clone()]),
            value.unwrap_or_default()
        )?;
    }
    let terminator = spans.last().map_or(0, |s| s.range.end);
    writeln!(out, "{terminator:<7} {:<36} terminator", "00")?;
    writeln!(
        out,
        "metadata  {} bytes at offset {}: {}",
        bytes.len() - terminator - 1,
        terminator + 1,
        hex(&bytes[terminator + 1..])
    )?;
    Ok(())
}

/// The string keys people write for the demo data, and the key paths for the same items.
const DEMO_ITEMS: &[(&str, &str)] = &[
    (
        "USER#4c9d36e5",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a",
    ),
    (
        "USER#4c9d36e5#POST#9",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-9",
    ),
    (
        "USER#4c9d36e5#POST#42",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-42",
    ),
    (
        "USER#4c9d36e5#POST#100",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-100",
    ),
    (
        "USER#4c9d36e5#POST#42#COMMENT#1678901234",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-42/comment-1678901234",
    ),
    (
        "USER#4c9d36e5#POST#42#COMMENT#999999999",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-42/comment-999999999",
    ),
    (
        "USER#4c9d36e5#BALANCE#-5",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/balance--5",
    ),
    (
        "USER#4c9d36e5#BALANCE#-3",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/balance--3",
    ),
    (
        "USER#4c9d36e5#BALANCE#3",
        "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/balance-3",
    ),
];

pub(crate) fn demo(out: &mut impl Write) -> Result<(), Failure> {
    writeln!(
        out,
        "String keys, sorted as a store sorts them (by UTF-8 bytes):"
    )?;
    let mut strings: Vec<&str> = DEMO_ITEMS.iter().map(|(s, _)| *s).collect();
    strings.sort_unstable();
    for s in &strings {
        writeln!(out, "  {s}")?;
    }
    writeln!(
        out,
        "  -> POST#100 before POST#42 before POST#9, BALANCE#-3 before -5, a comment"
    )?;
    writeln!(
        out,
        "     from 2001 (999999999) after one from 2023, and the parent item first only by luck."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "The same items as key paths, sorted by their binary form:"
    )?;
    let mut keys: Vec<(Vec<u8>, KeyPath)> = DEMO_ITEMS
        .iter()
        .map(|(_, p)| {
            let path: KeyPath = p.parse().expect("demo paths are valid");
            (path.encode(), path)
        })
        .collect();
    keys.sort();
    for (bytes, path) in &keys {
        writeln!(out, "  {path}  ({} bytes)", bytes.len())?;
    }
    writeln!(out)?;
    inspect(DEMO_ITEMS[4].1, out)?;
    Ok(())
}
