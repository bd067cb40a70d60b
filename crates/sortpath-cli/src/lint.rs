//! `lint`: reads existing string keys and reports where their byte order differs from
//! what they mean (see `sortpath::strkey::lint`).

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use serde_json::json;
use sortpath::strkey::lint::{Finding, Lint, Report};

use crate::input::read_line;
use crate::Failure;

/// The `lint` command's arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct LintArgs {
    /// Files of keys, one per line (stdin without files). Lines are split on `\n` with one
    /// trailing `\r` removed; keys need not be UTF-8.
    files: Vec<PathBuf>,
    /// Bytes that separate fields (ASCII punctuation or space; empty for none).
    #[arg(long, default_value = "#/|:", value_name = "CHARS")]
    separators: String,
    /// Report keys longer than this many bytes (DynamoDB's sort key limit by default).
    #[arg(long, default_value_t = sortpath::strkey::lint::DEFAULT_MAX_LEN, value_name = "BYTES")]
    max_len: usize,
    /// Print JSON lines: one object per problem, then a summary object.
    #[arg(long)]
    json: bool,
}

/// Where a key came from, for messages: `line 3` or `keys.txt:3`.
struct Origin {
    file: Option<usize>,
    line: usize,
}

pub(crate) fn run(args: LintArgs, out: &mut impl Write) -> Result<(), Failure> {
    if let Some(c) = args.separators.chars().find(|c| !c.is_ascii()) {
        return Err(Failure::BadInput(format!(
            "--separators: expected ASCII punctuation or space as a separator, found {c:?}"
        )));
    }
    let lint = Lint::new()
        .separators(args.separators.as_bytes())
        .map_err(|e| Failure::BadInput(format!("--separators: {e}")))?
        .max_len(args.max_len);
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut origins: Vec<Origin> = Vec::new();
    if args.files.is_empty() {
        read_lines(io::stdin().lock(), None, &mut keys, &mut origins)
            .map_err(|e| Failure::BadInput(format!("cannot read stdin: {e}")))?;
    } else {
        for (i, path) in args.files.iter().enumerate() {
            let cannot =
                |e: io::Error| Failure::BadInput(format!("cannot read {}: {e}", path.display()));
            let file = std::fs::File::open(path).map_err(cannot)?;
            read_lines(io::BufReader::new(file), Some(i), &mut keys, &mut origins)
                .map_err(cannot)?;
        }
    }
    let report = lint.run(&keys);
    let place = |i: usize| match origins[i].file {
        Some(f) => format!("{}:{}", args.files[f].display(), origins[i].line),
        None => format!("line {}", origins[i].line),
    };
    let shown = |i: usize| match excerpt(&keys[i]) {
        (text, None) => format!("{text:?}"),
        (text, Some(len)) => format!("{text:?}... ({len} bytes)"),
    };
    let mut write = || -> io::Result<()> {
        if args.json {
            for f in &report.findings {
                let examples: Vec<_> = f
                    .keys
                    .iter()
                    .map(|&i| match excerpt(&keys[i]) {
                        (text, None) => json!({"at": place(i), "key": text}),
                        // Cut: the first bytes, and the whole key's length.
                        (text, Some(len)) => json!({"at": place(i), "key": text, "key_bytes": len}),
                    })
                    .collect();
                let line = json!({
                    "problem": f.problem.name(),
                    "count": f.count,
                    "field": f.field,
                    "examples": examples,
                    "detail": cut_detail(&f.detail),
                    "fix": f.problem.fix(),
                });
                writeln!(out, "{line}")?;
            }
            let summary = json!({
                "keys": report.keys,
                "out_of_order": report.out_of_order,
                "unjudged": report.unjudged,
                "problems": report.findings.len(),
            });
            writeln!(out, "{summary}")?;
        } else {
            writeln!(out, "{}", summary(&report))?;
            for f in &report.findings {
                writeln!(out, "{}", describe(f, &place, &shown))?;
                writeln!(out, "  fix: {}", f.problem.fix())?;
            }
        }
        out.flush()
    };
    match write() {
        // A reader that left (`sortpath lint keys.txt | head -1`) does not change the verdict.
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::Io(e)),
        _ if report.is_clean() => Ok(()),
        _ => Err(Failure::Problems(report.findings.len())),
    }
}

fn summary(report: &Report) -> String {
    // Pairs that mix kinds of values have an order by the meant rules (kinds rank in a
    // fixed order) but no meaning: they are counted apart, not as out of order.
    let judged = report.out_of_order - report.unjudged;
    let (pairs, verb) = match judged {
        1 => ("pair", "sorts"),
        _ => ("pairs", "sort"),
    };
    let mut s = format!(
        "{} {}; {judged} neighbouring {pairs} (in the order meant) {verb} the other way as bytes",
        report.keys,
        if report.keys == 1 { "key" } else { "keys" },
    );
    if report.unjudged > 0 {
        let (pairs, verb) = match report.unjudged {
            1 => ("pair", "mixes"),
            _ => ("pairs", "mix"),
        };
        s.push_str(&format!(
            "; {} more {pairs} {verb} kinds of values (such as a number and a word, or \
             timestamps with and without a UTC offset) and {} not judged",
            report.unjudged,
            if report.unjudged == 1 { "is" } else { "are" }
        ));
    }
    s
}

fn describe(
    f: &Finding,
    place: &dyn Fn(usize) -> String,
    shown: &dyn Fn(usize) -> String,
) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (f.keys.as_slice(), f.field) {
        ([first, second], Some(field)) => format!(
            "{}: {} ({}) sorts before {} ({}); field {field}: {} ({})",
            f.problem,
            shown(*first),
            place(*first),
            shown(*second),
            place(*second),
            cut_detail(&f.detail),
            plural(f.count, "pair"),
        ),
        _ => {
            let at = f
                .keys
                .first()
                .map(|&i| format!("{} {}", place(i), shown(i)));
            format!(
                "{}: {}: {} ({})",
                f.problem,
                at.unwrap_or_default(),
                cut_detail(&f.detail),
                plural(f.count, "key")
            )
        }
    }
}

fn read_lines(
    mut reader: impl BufRead,
    file: Option<usize>,
    keys: &mut Vec<Vec<u8>>,
    origins: &mut Vec<Origin>,
) -> io::Result<()> {
    let mut key = Vec::new();
    let mut line = 0;
    while read_line(&mut reader, &mut key)? {
        line += 1;
        keys.push(std::mem::take(&mut key));
        origins.push(Origin { file, line });
    }
    Ok(())
}

/// A finding's detail, which quotes field values (a 100,000-digit number), cut like an
/// example key: the first [`EXCERPT_BYTES`] bytes and the full length.
fn cut_detail(detail: &str) -> std::borrow::Cow<'_, str> {
    match excerpt(detail.as_bytes()) {
        (_, None) => detail.into(),
        (text, Some(len)) => format!("{text}... ({len} bytes)").into(),
    }
}

/// Longest example key printed whole; longer ones are cut (a finding about a 30 MB key need
/// not print it).
const EXCERPT_BYTES: usize = 256;

/// A key as text for a report: whole if at most [`EXCERPT_BYTES`] long, else its first
/// bytes (cut at a character boundary) and its full length.
fn excerpt(key: &[u8]) -> (String, Option<usize>) {
    if key.len() <= EXCERPT_BYTES {
        return (String::from_utf8_lossy(key).into_owned(), None);
    }
    let mut text = String::from_utf8_lossy(&key[..EXCERPT_BYTES]).into_owned();
    // A multi-byte character cut in two shows as U+FFFD; drop it.
    if text.ends_with('\u{FFFD}') && std::str::from_utf8(&key[..EXCERPT_BYTES]).is_err() {
        text.pop();
    }
    (text, Some(key.len()))
}
