//! `range`: the byte range of a query ([`KeyRange`]), from a TAB-separated spec per line.
//!
//! ```text
//! subtree     PATH
//! descendants PATH
//! children    PARENT NAMESPACE
//! between     PARENT NAMESPACE LOWER UPPER   bounds: *, [ID (included), (ID (excluded)
//! paths       LOWER UPPER                    bounds: *, [PATH, (PATH
//! ```
//!
//! An ID is written exactly as it appears after `NAMESPACE-` in a path's text form (`[42`,
//! `[-7`, `(abc`, `[` for the empty string, `[%31` for the string "1", `[~AAE` for bytes).
//! Each spec prints `START<TAB>END`, `END` being `-` when the range has no end.

use std::io::Write;
use std::ops::Bound;

use sortpath::{Id, KeyPath, KeyRange};

use crate::input::for_each_input;
use crate::paths::push_bytes;
use crate::Failure;

/// The query kinds, as the first field names them.
const KINDS: &str = "subtree, descendants, children, between or paths";

pub(crate) fn range(args: &[String], base64: bool, out: &mut impl Write) -> Result<(), Failure> {
    let mut line = String::with_capacity(512);
    for_each_input(args, |name, text| {
        let range = parse_spec(text).map_err(|e| Failure::BadInput(format!("{}: {e}", name())))?;
        line.clear();
        push_bytes(&mut line, range.start(), base64);
        line.push('\t');
        match range.end() {
            Some(end) => push_bytes(&mut line, end, base64),
            None => line.push('-'),
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
        Ok(())
    })
}

/// One field of a spec: its number (from 1), what it holds, and its text.
struct Field<'a> {
    number: usize,
    role: &'static str,
    text: &'a str,
}

impl Field<'_> {
    /// The message for a problem with this field; `problem` says where in the field.
    fn error(&self, problem: impl std::fmt::Display) -> String {
        format!(
            "field {} ({} {:?}): {problem}",
            self.number, self.role, self.text
        )
    }

    fn path(&self) -> Result<KeyPath, String> {
        self.text.parse().map_err(|e| self.error(e))
    }

    /// A namespace to add under `parent`.
    fn namespace(&self, parent: &KeyPath, parent_field: &Field) -> Result<(), String> {
        if let Err(e) = KeyPath::new().push_namespace(self.text) {
            let at = self
                .text
                .bytes()
                .position(|b| !(b.is_ascii_alphabetic() || b == b'_'))
                .unwrap_or(0);
            return Err(self.error(format_args!("at byte {at}: {e}")));
        }
        // The namespace is valid, so what can fail is the parent ending without an ID.
        parent
            .clone()
            .push_namespace(self.text)
            .map(drop)
            .map_err(|e| parent_field.error(e))
    }

    /// A bound of `paths`: `*`, `[PATH` or `(PATH`.
    fn path_bound(&self) -> Result<Bound<KeyPath>, String> {
        let (included, text) = self.bound_kind("a path")?;
        let Some(text) = text else {
            return Ok(Bound::Unbounded);
        };
        let path = text
            .parse::<KeyPath>()
            .map_err(|e| self.error(format_args!("at byte {}: {}", e.position() + 1, e.kind())))?;
        Ok(if included {
            Bound::Included(path)
        } else {
            Bound::Excluded(path)
        })
    }

    /// A bound of `between`: `*`, `[ID` or `(ID`, the ID being the text after `NAMESPACE-`
    /// in a path, read by parsing the path `/NAMESPACE-ID`.
    fn id_bound(&self, namespace: &str) -> Result<Bound<Id>, String> {
        let (included, id) = self.bound_kind("an ID")?;
        let Some(id) = id else {
            return Ok(Bound::Unbounded);
        };
        if let Some(at) = unescaped_slash(id) {
            return Err(self.error(format_args!(
                "at byte {}: expected an ID, found '/' (a '/' in a string ID is written %/)",
                at + 1
            )));
        }
        // `namespace` is valid (no '-' or '/'), so the component splits at the '-' after it
        // and the ID is read exactly as it is in a path.
        let text = format!("/{namespace}-{id}");
        let skipped = text.len() - id.len();
        let path = text.parse::<KeyPath>().map_err(|e| {
            let at = (e.position() + 1).saturating_sub(skipped);
            self.error(format_args!("at byte {at}: {}", e.kind()))
        })?;
        // One component with an ID: the text has one '/' and a '-' after the namespace.
        let id = path
            .segments()
            .next()
            .and_then(|s| s.id())
            .map(|id| id.to_id())
            .ok_or_else(|| self.error("expected an ID"))?;
        Ok(if included {
            Bound::Included(id)
        } else {
            Bound::Excluded(id)
        })
    }

    /// Whether the bound is included, and the text after its bracket (`None` for `*`).
    fn bound_kind(&self, what: &str) -> Result<(bool, Option<&str>), String> {
        if self.text == "*" {
            return Ok((false, None));
        }
        match self.text.as_bytes().first() {
            Some(b'[') => Ok((true, Some(&self.text[1..]))),
            Some(b'(') => Ok((false, Some(&self.text[1..]))),
            _ => Err(self.error(format_args!(
                "at byte 0: expected '*', or '[' (included) or '(' (excluded) and {what}"
            ))),
        }
    }
}

/// The fields of a spec, checked to be `roles.len()` of them after the kind.
fn fields<'a>(
    kind: &str,
    rest: &[&'a str],
    roles: &[&'static str],
) -> Result<Vec<Field<'a>>, String> {
    if rest.len() != roles.len() {
        return Err(format!(
            "expected {} TAB-separated fields for {kind} ({kind}<TAB>{}), found {}",
            roles.len() + 1,
            roles.join("<TAB>"),
            rest.len() + 1
        ));
    }
    Ok(rest
        .iter()
        .zip(roles)
        .enumerate()
        .map(|(i, (text, role))| Field {
            number: i + 2,
            role,
            text,
        })
        .collect())
}

fn parse_spec(text: &str) -> Result<KeyRange, String> {
    let all: Vec<&str> = text.split('\t').collect();
    let (kind, rest) = (all[0], &all[1..]);
    match kind {
        "subtree" | "descendants" => {
            let f = fields(kind, rest, &["PATH"])?;
            let path = f[0].path()?;
            Ok(if kind == "subtree" {
                KeyRange::subtree(&path)
            } else {
                KeyRange::descendants(&path)
            })
        }
        "children" => {
            let f = fields(kind, rest, &["PARENT", "NAMESPACE"])?;
            let parent = f[0].path()?;
            f[1].namespace(&parent, &f[0])?;
            Ok(KeyRange::children(&parent, f[1].text))
        }
        "between" => {
            let f = fields(kind, rest, &["PARENT", "NAMESPACE", "LOWER", "UPPER"])?;
            let parent = f[0].path()?;
            f[1].namespace(&parent, &f[0])?;
            let lower = f[2].id_bound(f[1].text)?;
            let upper = f[3].id_bound(f[1].text)?;
            Ok(KeyRange::between(&parent, f[1].text, lower, upper))
        }
        "paths" => {
            let f = fields(kind, rest, &["LOWER", "UPPER"])?;
            Ok(KeyRange::between_paths(
                f[0].path_bound()?,
                f[1].path_bound()?,
            ))
        }
        _ => Err(format!(
            "field 1 ({kind:?}): expected the kind of range: {KINDS}"
        )),
    }
}

/// Where `id` has a `/` that is not part of a `%/` escape (as a path's text splits its
/// components: `%/` and `%%` are two-character escapes).
fn unescaped_slash(id: &str) -> Option<usize> {
    let bytes = id.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => i += 2,
            b'/' => return Some(i),
            _ => i += 1,
        }
    }
    None
}
