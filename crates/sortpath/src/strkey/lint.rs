//! Finds where string keys sort, as bytes, differently from what they mean.
//!
//! A sorted store orders `POST#10` before `POST#9`, `Zoey` before `alligator`, `zoe` before
//! `Émile`, `-3` before `-5`, `2024-01-01T10:00:00+02:00` (08:00 UTC) after
//! `2024-01-01T09:30:00Z`, `12/31/2023` after `01/02/2024`, and `a b#1` before `a#1` (a
//! space sorts below `#`).
//! [`Lint::run`] reads a set of existing keys, sorts them the way a person reads them (the
//! *meant* order, below), and reports every kind of problem that makes the byte order
//! differ, each with its first example pair and how many neighbouring pairs it puts out of
//! order. It also flags keys that are empty, not UTF-8, contain control bytes, or are too
//! long for DynamoDB.
//!
//! ```
//! use sortpath::strkey::lint::{Lint, Problem};
//! let keys = ["POST#9", "POST#10", "USER#Zoey", "USER#alligator"];
//! let report = Lint::new().run(&keys);
//! let problems: Vec<Problem> = report.findings.iter().map(|f| f.problem).collect();
//! assert_eq!(problems, [Problem::NumberWidth, Problem::Case]);
//! // As bytes, "POST#10" (input 1) sorts before "POST#9" (input 0).
//! assert_eq!(report.findings[0].keys, [1, 0]);
//! ```
//!
//! # The meant order
//!
//! Keys are split into fields at the separators (by default `#`, `/`, `|` and `:`), and
//! compared field by field, a key before the keys it is a prefix of. A field that is wholly
//! a number (`42`, `-7`, `0.25`) compares as that number. A field that is wholly a
//! timestamp with a UTC offset (RFC 3339 or ISO 8601: `2024-01-01T10:00:00+02:00`,
//! `2024-01-01 08:00Z`, `2024-01-01T08:00:00.5+0000`; its `:` do not split it) compares as
//! the instant it names. One without an offset (`2024-01-05T10:00`, `2024-01-05 9:30:15`)
//! names no instant: it compares as the date and time written, with `T` and a space alike
//! and an hour of one digit read as its number, after every timestamp with an offset. A
//! field that is wholly a date with the year last (`12/31/2023`, `31.12.2023`, `1-2-2024`)
//! compares by year first, then its other two numbers as written (whether they are month
//! and day or day and month is not known); one with a two-digit year after `/` or `-`
//! (`12/30/17`, `1-2-18`) compares the same way, its year as written from `00` to `99` (the
//! century is not known), after every date with a four-digit year. Any other field is read
//! as runs: letters compare without case or accents (ASCII letters, and the letters of
//! Latin-1 and Latin Extended-A whose canonical decomposition is an ASCII letter with
//! marks, such as `é`, `Ñ` or `č`, read as that letter; Greek, Cyrillic and Armenian
//! letters without case only, so `Яна` after `анна` but `ё` still after `я`), digit runs as
//! numbers (`post9` before `post10`, `v1.9` before `v1.10`), other bytes as bytes (so `ß`,
//! `ø`, `ł` and letters of other scripts keep their byte order). A word that mixes letters
//! and digits in another way (`4c9d36e5`, base62 IDs) is an identifier and compares as
//! bytes, case included, and so does a field shaped like a negative
//! [`int_key`](super::int_key) or [`decimal_key`](super::decimal_key) (`-986` is
//! `int_key(-3)`), which sorts right as written. A field that reads as a random ID compares
//! as bytes too: one of ASCII letters, digits, `_` and `-` only, with a letter and a digit,
//! and a lower-case letter right before an upper-case one (`aB_1`, `x7kPq`), which written
//! words do not have (`Zoey`, `POST`, `Post9`); a camel-case name with a digit (`getItem2`)
//! reads as one too. In [`Lint::run`], where such a field is found, every field at the same
//! position (counted in separators) that has that alphabet and both a letter and a digit
//! compares as bytes as well (`Ab_9` beside `aB_1`), while plain words there (`Zoey`) are
//! still words. Keys equal in meaning (`007` and `7`, `Ann` and `ann`) keep their byte
//! order.
//! This order is total, so sorting by it never fails. [`Lint::meant_cmp`] compares two keys
//! in it; [`Lint::sort_key`] turns a key into bytes whose byte order is this order.
//!
//! Out-of-order pairs whose first difference mixes kinds of values (a number against an
//! identifier, say) are counted in [`Report::unjudged`] but not reported as a problem:
//! what the writer meant there is not clear.

use std::cmp::Ordering;
use std::fmt;

#[cfg(test)]
mod tests;
mod token;

use token::{case_pair, folded, is_accent_letter, letter_at, Tok, Tokens};

/// The separators [`Lint::new`] splits keys into fields at: `#`, `/`, `|` and `:`.
///
/// ```
/// assert_eq!(sortpath::strkey::lint::DEFAULT_SEPARATORS, b"#/|:");
/// ```
pub const DEFAULT_SEPARATORS: &[u8] = b"#/|:";

/// The longest key [`Lint::new`] accepts without a [`Problem::TooLong`]: 1024 bytes,
/// DynamoDB's limit for a sort key.
///
/// ```
/// assert_eq!(sortpath::strkey::lint::DEFAULT_MAX_LEN, 1024);
/// ```
pub const DEFAULT_MAX_LEN: usize = 1024;

/// A kind of sort bug in string keys.
///
/// ```
/// use sortpath::strkey::lint::Problem;
/// assert_eq!(Problem::NumberWidth.to_string(), "number-width");
/// assert!(Problem::NumberWidth.is_pair());
/// assert!(!Problem::Empty.is_pair());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Problem {
    /// Numbers of different lengths, or padded differently: `10` sorts before `9`.
    NumberWidth,
    /// Negative numbers: `-3` sorts before `-5`.
    NegativeNumber,
    /// Case: every upper-case letter sorts before every lower-case one, so `Zoey` comes
    /// before `alligator`.
    Case,
    /// Accents: every accented letter sorts after every ASCII letter, so `Émile` comes after
    /// `zoe`.
    Accent,
    /// Timestamps written in different forms: with different UTC offsets
    /// (`2024-01-01T10:00:00+02:00`, 08:00 UTC, sorts after `2024-01-01T09:30:00Z`), or with
    /// and without fractions of a second (`10:00:00Z` sorts after `10:00:00.5Z`, as Go's
    /// `RFC3339Nano` writes them), or, without an offset, with `T` and with a space
    /// (`2024-01-05T09:00` sorts after `2024-01-05 10:00`) or with an hour of one digit.
    Timestamp,
    /// Dates written with the year last: `12/31/2023` sorts after `01/02/2024`, and
    /// `31.12.2023` after `01.01.2024`.
    DateOrder,
    /// Dates with a two-digit year last: `12/30/17` sorts after `01/02/18`, padded or not,
    /// and no padding fixes it (nor the century: `99` sorts after `00`).
    TwoDigitYear,
    /// A value continues with a byte below the separator that ends a shorter value, so
    /// `a b#1` sorts before `a#1` and `/post-1/c` before `/post/c`.
    BelowSeparator,
    /// A key holds a control byte (NUL, tab, newline, ...): invisible when printed, and
    /// NUL ends the key for C string APIs.
    ControlByte,
    /// A key is not UTF-8, which DynamoDB string keys must be.
    NotUtf8,
    /// A key is empty, which stores reject (DynamoDB) or sort before everything.
    Empty,
    /// A key is longer than the limit (1024 bytes by default, DynamoDB's sort key limit).
    TooLong,
}

impl Problem {
    /// Whether the problem is found between two keys (otherwise it is found in one).
    ///
    /// ```
    /// assert!(sortpath::strkey::lint::Problem::Case.is_pair());
    /// ```
    pub fn is_pair(self) -> bool {
        matches!(
            self,
            Problem::NumberWidth
                | Problem::NegativeNumber
                | Problem::Case
                | Problem::Accent
                | Problem::Timestamp
                | Problem::DateOrder
                | Problem::TwoDigitYear
                | Problem::BelowSeparator
        )
    }

    /// The kebab-case name, as printed.
    ///
    /// ```
    /// assert_eq!(sortpath::strkey::lint::Problem::BelowSeparator.name(), "below-separator");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Problem::NumberWidth => "number-width",
            Problem::NegativeNumber => "negative-number",
            Problem::Case => "case",
            Problem::Accent => "accent",
            Problem::Timestamp => "timestamp",
            Problem::DateOrder => "date-order",
            Problem::TwoDigitYear => "two-digit-year",
            Problem::BelowSeparator => "below-separator",
            Problem::ControlByte => "control-byte",
            Problem::NotUtf8 => "not-utf8",
            Problem::Empty => "empty",
            Problem::TooLong => "too-long",
        }
    }

    /// How to fix it, in one sentence.
    ///
    /// ```
    /// assert!(sortpath::strkey::lint::Problem::NumberWidth.fix().contains("padded"));
    /// ```
    pub fn fix(self) -> &'static str {
        match self {
            Problem::NumberWidth => {
                "pad numbers to one fixed width (sortpath::strkey::padded), give them a length \
                 prefix (strkey::int_key; strkey::decimal_key for numbers with a fraction), or \
                 use key paths, whose integer IDs sort by value"
            }
            Problem::NegativeNumber => {
                "write numbers with sortpath::strkey::int_key or decimal_key, or use key paths, \
                 whose integer IDs sort by value"
            }
            Problem::Case => {
                "sort on a lower-cased or collation copy of the field (sortpath::collate), kept \
                 next to the original"
            }
            Problem::Accent => {
                "sort on a collation copy of the field (sortpath::collate) or one with accents \
                 removed, kept next to the original"
            }
            Problem::Timestamp => {
                "write every timestamp in one form: in UTC, with seconds and one fixed number \
                 of fraction digits (sortpath::strkey::iso8601_key), or use sortpath::time keys"
            }
            Problem::DateOrder => {
                "write dates year first with two-digit months and days (ISO 8601: 2023-12-31)"
            }
            Problem::TwoDigitYear => {
                "write dates as ISO 8601, with a four-digit year first and two-digit months and \
                 days (YYYY-MM-DD: 2017-12-30)"
            }
            Problem::BelowSeparator => {
                "use a separator that sorts below every byte of the values, or key paths, whose \
                 binary form keeps a shorter value first"
            }
            Problem::ControlByte => {
                "escape control bytes, or use key paths, whose binary form takes any bytes"
            }
            Problem::NotUtf8 => "use a binary key (a key path's binary form) for non-text bytes",
            Problem::Empty => "give every key at least one byte",
            Problem::TooLong => "shorten the key, or move data from the key into the item",
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One kind of problem, with its first example.
///
/// ```
/// let report = sortpath::strkey::lint::Lint::new().run(&["a", ""]);
/// let empty = &report.findings[0];
/// assert_eq!((empty.count, empty.keys.as_slice(), empty.field), (1, &[1][..], None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The kind of problem.
    pub problem: Problem,
    /// How often: for a pair problem, the neighbouring pairs (in the meant order) it puts
    /// out of order; for a key problem, the keys that have it.
    pub count: usize,
    /// The example, as positions in the input: for a pair problem, the key that sorts
    /// first as bytes and the one it should follow; for a key problem, the key.
    pub keys: Vec<usize>,
    /// For a pair problem, the field (from 1) where the example pair first differs.
    pub field: Option<usize>,
    /// What is wrong in the example, e.g. `10 is more than 9`.
    pub detail: String,
}

/// What [`Lint::run`] found.
///
/// ```
/// let report = sortpath::strkey::lint::Lint::new().run(&["POST#09", "POST#10"]);
/// assert!(report.is_clean());
/// assert_eq!((report.keys, report.out_of_order), (2, 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Keys read.
    pub keys: usize,
    /// Neighbouring pairs, in the meant order, that sort the other way round as bytes.
    pub out_of_order: usize,
    /// Of those, the pairs put down to no problem: their first difference mixes kinds of
    /// values (a number and an identifier, say).
    pub unjudged: usize,
    /// One finding per kind of problem, pair problems first (in meant order of their
    /// first example), then key problems.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Whether no problem was found.
    ///
    /// ```
    /// assert!(!sortpath::strkey::lint::Lint::new().run(&["b#2", "b#10"]).is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The linter's settings: the field separators and the longest key allowed.
///
/// ```
/// use sortpath::strkey::lint::Lint;
/// let lint = Lint::new().separators(b"#")?.max_len(2048);
/// assert!(lint.run(&["a:10", "a:9"]).is_clean() == false); // digits still compare as numbers
/// # Ok::<(), sortpath::strkey::lint::LintError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Lint {
    separator: [bool; 256],
    max_len: usize,
}

/// A setting [`Lint`] cannot use.
///
/// ```
/// let err = sortpath::strkey::lint::Lint::new().separators(b"a").unwrap_err();
/// assert_eq!(err.to_string(), "expected ASCII punctuation or space as a separator, found 'a' (0x61)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LintError {
    /// A separator that is not ASCII punctuation or space.
    #[error("expected ASCII punctuation or space as a separator, found {}", describe_byte(*byte))]
    Separator {
        /// The byte.
        byte: u8,
    },
}

impl Default for Lint {
    fn default() -> Lint {
        Lint::new()
    }
}

impl Lint {
    /// Separators [`DEFAULT_SEPARATORS`], longest key [`DEFAULT_MAX_LEN`].
    ///
    /// ```
    /// assert!(sortpath::strkey::lint::Lint::new().run(&["USER#1", "USER#2"]).is_clean());
    /// ```
    pub fn new() -> Lint {
        let mut separator = [false; 256];
        for &b in DEFAULT_SEPARATORS {
            separator[usize::from(b)] = true;
        }
        Lint {
            separator,
            max_len: DEFAULT_MAX_LEN,
        }
    }

    /// Splits fields at these bytes instead (none at all if empty). Each must be ASCII
    /// punctuation or a space.
    ///
    /// ```
    /// let lint = sortpath::strkey::lint::Lint::new().separators(b"#-")?;
    /// assert!(!lint.run(&["a-b", "a b-c"]).is_clean()); // ' ' sorts below '-'
    /// # Ok::<(), sortpath::strkey::lint::LintError>(())
    /// ```
    pub fn separators(mut self, separators: &[u8]) -> Result<Lint, LintError> {
        self.separator = [false; 256];
        for &byte in separators {
            if !(byte.is_ascii_punctuation() || byte == b' ') {
                return Err(LintError::Separator { byte });
            }
            self.separator[usize::from(byte)] = true;
        }
        Ok(self)
    }

    /// Reports keys longer than `max_len` bytes.
    ///
    /// ```
    /// let report = sortpath::strkey::lint::Lint::new().max_len(3).run(&["abcd"]);
    /// assert_eq!(report.findings[0].problem, sortpath::strkey::lint::Problem::TooLong);
    /// ```
    pub fn max_len(mut self, max_len: usize) -> Lint {
        self.max_len = max_len;
        self
    }

    /// Compares two keys in the meant order (see the [module docs](self)).
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// let lint = sortpath::strkey::lint::Lint::new();
    /// assert_eq!(lint.meant_cmp(b"POST#9", b"POST#10"), Ordering::Less);
    /// assert_eq!(lint.meant_cmp(b"alligator", b"Zoey"), Ordering::Less);
    /// assert_eq!(lint.meant_cmp(b"-5", b"-3"), Ordering::Less);
    /// ```
    pub fn meant_cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        let (mut ta, mut tb) = (self.tokens(a), self.tokens(b));
        loop {
            let (x, y) = (ta.next_token(), tb.next_token());
            match x.meant_cmp(&y) {
                Ordering::Equal if matches!(x.tok, Tok::End) => return a.cmp(b),
                Ordering::Equal => {}
                other => return other,
            }
        }
    }

    /// A byte string whose byte order is the meant order: for any keys `a` and `b`,
    /// `sort_key(a).cmp(&sort_key(b))` is `meant_cmp(a, b)`. Sorting many keys by it
    /// (e.g. with `sort_by_cached_key`) reads each key once instead of once per comparison.
    ///
    /// Each token of the key is written as its kind and first byte, then what the meant
    /// order compares of it, in a form where a shorter value never prefixes a longer one: a
    /// number as the length of its integer, its digits and fraction digits and a `0x00` (all
    /// bytes inverted when negative), letters lower-cased with a `0x00`, other bytes with
    /// `0x00` escaped as `0x00 0xFF` and a `0x00 0x00`. The key's own bytes follow the last
    /// token, for keys equal in meaning.
    ///
    /// The format follows how the lint reads keys, which may change between versions: sort
    /// with it in memory, but do not store it as a key (use [`crate::strkey`]'s forms or key
    /// paths for that).
    ///
    /// ```
    /// let lint = sortpath::strkey::lint::Lint::new();
    /// let mut keys = ["POST#10", "post#9", "POST#-2", "POST#9"];
    /// keys.sort_by_cached_key(|k| lint.sort_key(k.as_bytes()));
    /// assert_eq!(keys, ["POST#-2", "POST#9", "post#9", "POST#10"]);
    /// ```
    pub fn sort_key(&self, key: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 * key.len() + 8);
        self.write_sort_key(key, &[], &mut out);
        out
    }

    /// Appends [`Lint::sort_key`]`(key)` to `out`.
    fn write_sort_key(&self, key: &[u8], id_fields: &[bool], out: &mut Vec<u8>) {
        let mut tokens = Tokens::new(key, &self.separator, id_fields);
        loop {
            let token = tokens.next_token();
            let raw = token.raw();
            let (level, slot, class) = token.tok.rank(raw);
            out.extend_from_slice(&[level, slot, class]);
            match token.tok {
                Tok::End => break,
                Tok::Sep => {}
                Tok::Num { neg, int, frac } => {
                    let start = out.len();
                    // The integer's length first (it has no leading zeros): one byte below
                    // 255, else 0xFF and eight bytes.
                    match u8::try_from(int.len()) {
                        Ok(n) if n < u8::MAX => out.push(n),
                        _ => {
                            out.push(u8::MAX);
                            out.extend_from_slice(&(int.len() as u64).to_be_bytes());
                        }
                    }
                    out.extend_from_slice(int);
                    out.extend_from_slice(frac);
                    out.push(0x00);
                    if neg {
                        out[start..].iter_mut().for_each(|b| *b = !*b);
                    }
                }
                Tok::Time { secs, frac, .. } => {
                    // Offset binary: eight bytes in the order of the signed seconds.
                    out.extend_from_slice(&((secs as u64) ^ (1 << 63)).to_be_bytes());
                    out.extend_from_slice(frac);
                    out.push(0x00);
                }
                Tok::Date {
                    year,
                    first,
                    second,
                    ..
                } => {
                    out.extend_from_slice(&year.to_be_bytes());
                    out.extend_from_slice(&[first, second]);
                }
                Tok::Frac(digits) => {
                    out.extend_from_slice(digits);
                    out.push(0x00);
                }
                Tok::Text => {
                    // UTF-8 keeps the order of code points (all of them valid chars).
                    for c in folded(raw).filter_map(char::from_u32) {
                        if c.is_ascii() {
                            out.push(c as u8);
                        } else {
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                    }
                    out.push(0x00);
                }
                Tok::Punct | Tok::Opaque => {
                    for &b in raw {
                        out.push(b);
                        if b == 0x00 {
                            out.push(0xFF);
                        }
                    }
                    out.extend_from_slice(&[0x00, 0x00]);
                }
            }
        }
        out.extend_from_slice(key);
    }

    /// Lints `keys`.
    ///
    /// ```
    /// let report = sortpath::strkey::lint::Lint::new().run(&["-3", "-5"]);
    /// assert_eq!(report.findings[0].detail, "-3 is more than -5");
    /// ```
    pub fn run<K: AsRef<[u8]>>(&self, keys: &[K]) -> Report {
        // Each key's sort key, made once, all in one buffer; equal ones (only for equal
        // keys) by input position.
        // The fields (by position) where some key holds a random ID: there, every value
        // shaped like an ID compares as bytes.
        let mut id_fields = Vec::new();
        for key in keys {
            let key = key.as_ref();
            // Such a field holds no separator: most keys are passed over without reading
            // their tokens.
            if key
                .split(|&b| self.separator[usize::from(b)])
                .any(token::is_random_id)
            {
                Tokens::new(key, &self.separator, &[]).id_fields(&mut id_fields);
            }
        }
        let mut arena = Vec::new();
        let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            let start = arena.len();
            self.write_sort_key(key.as_ref(), &id_fields, &mut arena);
            spans.push((start, arena.len(), i));
        }
        spans.sort_unstable_by(|&(s1, e1, i), &(s2, e2, j)| {
            arena[s1..e1].cmp(&arena[s2..e2]).then(i.cmp(&j))
        });
        drop(arena);
        let order: Vec<usize> = spans.into_iter().map(|(_, _, i)| i).collect();

        let mut findings: Vec<Finding> = Vec::new();
        let mut record = |problem: Problem, keys: Vec<usize>, field, detail: String| match findings
            .iter_mut()
            .find(|f| f.problem == problem)
        {
            Some(f) => f.count += 1,
            None => findings.push(Finding {
                problem,
                count: 1,
                keys,
                field,
                detail,
            }),
        };

        let (mut out_of_order, mut unjudged) = (0, 0);
        for pair in order.windows(2) {
            let (i, j) = (pair[0], pair[1]);
            let (a, b) = (keys[i].as_ref(), keys[j].as_ref());
            if a <= b {
                continue;
            }
            out_of_order += 1;
            match self.cause(a, b, &id_fields) {
                Some((problem, field, detail)) => record(problem, vec![j, i], Some(field), detail),
                None => unjudged += 1,
            }
        }
        for (i, key) in keys.iter().enumerate() {
            let key = key.as_ref();
            if key.is_empty() {
                record(Problem::Empty, vec![i], None, "an empty key".to_owned());
            }
            if key.len() > self.max_len {
                let detail = format!("{} bytes, more than {}", key.len(), self.max_len);
                record(Problem::TooLong, vec![i], None, detail);
            }
            if let Err(e) = std::str::from_utf8(key) {
                let detail = format!("not UTF-8 at byte {}", e.valid_up_to());
                record(Problem::NotUtf8, vec![i], None, detail);
            }
            if let Some(at) = key.iter().position(u8::is_ascii_control) {
                let detail = format!("byte 0x{:02X} at byte {at}", key[at]);
                record(Problem::ControlByte, vec![i], None, detail);
            }
        }
        findings.sort_by_key(|f| !f.problem.is_pair());
        Report {
            keys: keys.len(),
            out_of_order,
            unjudged,
            findings,
        }
    }

    fn tokens<'a>(&'a self, key: &'a [u8]) -> Tokens<'a> {
        Tokens::new(key, &self.separator, &[])
    }

    /// Why `a`, which comes before `b` in the meant order, sorts after it as bytes; `None`
    /// when the first difference mixes kinds of values. Returns the problem, the field (from
    /// 1) and the detail.
    fn cause(&self, a: &[u8], b: &[u8], id_fields: &[bool]) -> Option<(Problem, usize, String)> {
        let (mut ta, mut tb) = (
            Tokens::new(a, &self.separator, id_fields),
            Tokens::new(b, &self.separator, id_fields),
        );
        let mut field = 1;
        // Bytes decide at the first pair of tokens whose bytes differ (all before are the
        // same bytes, so both tokens start at the same offset).
        let (x, y) = loop {
            let (x, y) = (ta.next_token(), tb.next_token());
            if x.raw() != y.raw() || matches!(x.tok, Tok::End) {
                break (x, y);
            }
            if matches!(x.tok, Tok::Sep) {
                field += 1;
            }
        };
        let (rx, ry) = (x.raw(), y.raw());
        let problem = match (x.tok, y.tok) {
            (Tok::Num { neg: nx, .. }, Tok::Num { neg: ny, .. }) => {
                let problem = if nx || ny {
                    Problem::NegativeNumber
                } else {
                    Problem::NumberWidth
                };
                let detail = if x.meant_cmp(&y) == Ordering::Equal {
                    format!("{} and {} are the same number", text(ry), text(rx))
                } else {
                    format!("{} is more than {}", text(ry), text(rx))
                };
                return Some((problem, field, detail));
            }
            (Tok::Time { local: lx, .. }, Tok::Time { local: ly, .. }) if lx == ly => {
                let detail = if x.meant_cmp(&y) == Ordering::Equal {
                    format!("{} and {} are the same time", text(rx), text(ry))
                } else {
                    format!("{} is earlier than {}", text(rx), text(ry))
                };
                return Some((Problem::Timestamp, field, detail));
            }
            (
                Tok::Date {
                    year: y1,
                    short: s1,
                    ..
                },
                Tok::Date {
                    year: y2,
                    short: s2,
                    ..
                },
            ) if s1 || s2 => {
                let detail = match (s1, s2) {
                    (true, true) if y1 == y2 => format!("{} is before {}", text(rx), text(ry)),
                    (true, true) => format!(
                        "{} is in year {y1:02}, before {} in year {y2:02}",
                        text(rx),
                        text(ry)
                    ),
                    _ => {
                        let (short, long) = if s1 { (rx, ry) } else { (ry, rx) };
                        format!(
                            "{} has a two-digit year, {} four digits",
                            text(short),
                            text(long)
                        )
                    }
                };
                return Some((Problem::TwoDigitYear, field, detail));
            }
            (Tok::Date { year: y1, .. }, Tok::Date { year: y2, .. }) => {
                let detail = if y1 == y2 {
                    format!("{} is before {}", text(rx), text(ry))
                } else {
                    format!("{} is in {y1}, before {} in {y2}", text(rx), text(ry))
                };
                return Some((Problem::DateOrder, field, detail));
            }
            (Tok::Frac(_), Tok::Frac(_)) => {
                // Only trailing zeros tell them apart (fractions compare as bytes). The
                // whole numbers start at the field's start, the same in both keys.
                let start = a[..x.start]
                    .iter()
                    .rposition(|&s| self.separator[usize::from(s)])
                    .map_or(0, |at| at + 1);
                let detail = format!(
                    "{} and {} are the same number",
                    text(&b[start..y.end]),
                    text(&a[start..x.end])
                );
                return Some((Problem::NumberWidth, field, detail));
            }
            (Tok::Text, Tok::Text) if !rx.starts_with(ry) && !ry.starts_with(rx) => {
                // At the first letters that differ (both tokens hold the same bytes up to
                // there): one letter in two cases (`é`, `É`), or a Latin accented one, or else
                // case (ASCII, Greek, Cyrillic and Armenian letters only fold case).
                let mut i = 0;
                loop {
                    match (letter_at(rx, i), letter_at(ry, i)) {
                        (Some((n, _)), Some((m, _))) if rx[i..i + n] == ry[i..i + m] => i += n,
                        (Some((2, _)), Some((2, _))) if case_pair(&rx[i..i + 2], &ry[i..i + 2]) => {
                            break Problem::Case
                        }
                        _ if [rx, ry]
                            .iter()
                            .any(|r| r.get(i).is_some_and(|&b| is_accent_letter(b))) =>
                        {
                            break Problem::Accent
                        }
                        _ => break Problem::Case,
                    }
                }
            }
            (Tok::Text, Tok::Punct) | (Tok::Punct, Tok::Text) => {
                let letter = if matches!(x.tok, Tok::Text) { rx } else { ry };
                match letter_at(letter, 0) {
                    Some((2, _)) if is_accent_letter(letter[0]) => Problem::Accent,
                    _ if letter[0].is_ascii_uppercase() => Problem::Case,
                    // Other scripts against punctuation: not a matter of case.
                    _ => return None,
                }
            }
            (Tok::Sep, _) => Problem::BelowSeparator,
            (Tok::Text, Tok::Text) | (Tok::Punct, Tok::Punct) | (Tok::Opaque, Tok::Opaque)
                if ry.starts_with(rx) =>
            {
                // `x` ends where `y` goes on: what follows `x` must be a separator.
                if !a
                    .get(x.end)
                    .is_some_and(|&s| self.separator[usize::from(s)])
                {
                    return None;
                }
                Problem::BelowSeparator
            }
            _ => return None,
        };
        // The first byte where the keys differ: `b`'s is the smaller one.
        let at = a.iter().zip(b).position(|(p, q)| p != q)?;
        let (big, small) = (a[at], b[at]);
        let detail = match problem {
            Problem::Case | Problem::Accent => {
                format!("{} sorts before {}", char_at(b, at), char_at(a, at))
            }
            _ => format!(
                "{} sorts below the separator {}",
                describe_byte(small),
                describe_byte(big)
            ),
        };
        Some((problem, field, detail))
    }
}

/// A byte as a quoted character when printable ASCII, else as hex.
fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", char::from(b))
    } else {
        format!("0x{b:02X}")
    }
}

/// A byte for an error message: `'a' (0x61)` when printable, else `0xC3`.
fn describe_byte(b: u8) -> String {
    match show_byte(b) {
        shown if shown.starts_with('\'') => format!("{shown} (0x{b:02X})"),
        hex => hex,
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The character of `key` that holds byte `at`, for messages.
fn char_at(key: &[u8], at: usize) -> String {
    let start = (0..=at)
        .rev()
        .find(|&i| key[i] & 0xC0 != 0x80)
        .unwrap_or(at);
    match String::from_utf8_lossy(&key[start..key.len().min(start + 4)])
        .chars()
        .next()
    {
        Some(c) if !c.is_control() && c != char::REPLACEMENT_CHARACTER => format!("'{c}'"),
        _ => show_byte(key[at]),
    }
}
