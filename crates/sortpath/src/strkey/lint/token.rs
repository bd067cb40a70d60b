//! The tokenizer behind [`Lint`](super::Lint): how a key reads as separators, numbers,
//! timestamps, dates with the year last, letters, identifiers and other bytes, and how
//! each kind of token compares in the meant order.

use std::cmp::Ordering;

/// The kind of a token, with what the meant order compares.
#[derive(Debug, Clone, Copy)]
pub(super) enum Tok<'a> {
    /// The key ended (sorts first: a key before its extensions).
    End,
    /// A field separator.
    Sep,
    /// A whole-field number or a digit run: `int` without leading zeros, `frac` without
    /// trailing zeros; `neg` only for a non-zero value.
    Num {
        neg: bool,
        int: &'a [u8],
        frac: &'a [u8],
    },
    /// A whole-field timestamp (see [`timestamp`]): with a UTC offset, the instant it
    /// names as UTC seconds since 1970; without one (`local`), the date and time written,
    /// as if in UTC. Then fraction digits without trailing zeros.
    Time {
        secs: i64,
        frac: &'a [u8],
        local: bool,
    },
    /// A whole-field date with the year last (see [`year_last_date`]): the year, then its
    /// other two numbers in the order written (day and month, or month and day).
    /// With `short`, the year was written with two digits (`12/30/17`): it compares as
    /// written, 00 to 99, the century not being known.
    Date {
        year: u16,
        first: u8,
        second: u8,
        short: bool,
    },
    /// The fraction digits of a non-negative whole-field decimal (after its integer and
    /// its `.`), without trailing zeros: compared as bytes, so `.25` before `.5`.
    Frac(&'a [u8]),
    /// Letters (see [`letter_at`]), compared without case or accents.
    Text,
    /// Other bytes (punctuation, space, non-ASCII), compared as bytes.
    Punct,
    /// A word mixing letters and digits other than letters-then-digits, a field that reads
    /// as a random ID (see [`is_random_id`]), or a field shaped like a negative `int_key`
    /// or `decimal_key`: compared as bytes.
    Opaque,
}

/// A token and where its bytes are in the key.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token<'a> {
    pub(super) tok: Tok<'a>,
    pub(super) start: usize,
    pub(super) end: usize,
    key: &'a [u8],
}

impl<'a> Token<'a> {
    pub(super) fn raw(&self) -> &'a [u8] {
        &self.key[self.start..self.end]
    }
}

impl<'a> Tok<'a> {
    /// `(level, slot, class)`: tokens of different kinds compare by these. The slot is
    /// where the kind sits among first bytes (digits at `0`, letters at `a`, punctuation at
    /// its own first byte), so kinds interleave as their bytes would.
    pub(super) fn rank(&self, raw: &[u8]) -> (u8, u8, u8) {
        match self {
            Tok::End => (0, 0, 0),
            Tok::Sep => (1, raw[0], 0),
            Tok::Frac(_) => (2, b'0', 0),
            Tok::Num { neg: true, .. } => (2, b'-', 1),
            Tok::Num { neg: false, .. } => (2, b'0', 1),
            Tok::Time { local: false, .. } => (2, b'0', 5),
            Tok::Time { local: true, .. } => (2, b'0', 7),
            Tok::Date { short: false, .. } => (2, b'0', 6),
            Tok::Date { short: true, .. } => (2, b'0', 8),
            Tok::Punct => (2, raw[0], 2),
            Tok::Text => (2, b'a', 3),
            Tok::Opaque if raw[0].is_ascii_digit() => (2, b'0', 4),
            Tok::Opaque if letter_at(raw, 0).is_some() => (2, b'a', 4),
            Tok::Opaque => (2, raw[0], 4),
        }
    }

    /// The meant order of two number, two time or two date tokens (`Equal` for anything
    /// else: [`Token::meant_cmp`] ranks kinds first).
    pub(super) fn meant_cmp(&self, other: &Tok<'a>) -> Ordering {
        match (self, other) {
            (
                Tok::Num {
                    neg: n1,
                    int: i1,
                    frac: f1,
                },
                Tok::Num {
                    neg: n2,
                    int: i2,
                    frac: f2,
                },
            ) => {
                let magnitude = i1.len().cmp(&i2.len()).then(i1.cmp(i2)).then(f1.cmp(f2));
                match (n1, n2) {
                    (false, false) => magnitude,
                    (true, true) => magnitude.reverse(),
                    (false, true) => Ordering::Greater,
                    (true, false) => Ordering::Less,
                }
            }
            (
                Tok::Time {
                    secs: s1, frac: f1, ..
                },
                Tok::Time {
                    secs: s2, frac: f2, ..
                },
            ) => s1.cmp(s2).then(f1.cmp(f2)),
            (
                Tok::Date {
                    year: y1,
                    first: a1,
                    second: b1,
                    ..
                },
                Tok::Date {
                    year: y2,
                    first: a2,
                    second: b2,
                    ..
                },
            ) => (y1, a1, b1).cmp(&(y2, a2, b2)),
            _ => Ordering::Equal,
        }
    }
}

impl<'a> Token<'a> {
    pub(super) fn meant_cmp(&self, other: &Token<'a>) -> Ordering {
        let (rx, ry) = (self.raw(), other.raw());
        self.tok
            .rank(rx)
            .cmp(&other.tok.rank(ry))
            .then_with(|| match (self.tok, other.tok) {
                (Tok::Num { .. }, Tok::Num { .. })
                | (Tok::Time { .. }, Tok::Time { .. })
                | (Tok::Date { .. }, Tok::Date { .. }) => self.tok.meant_cmp(&other.tok),
                (Tok::Frac(f1), Tok::Frac(f2)) => f1.cmp(f2),
                (Tok::Text, Tok::Text) => folded(rx).cmp(folded(ry)),
                (Tok::Punct, Tok::Punct) | (Tok::Opaque, Tok::Opaque) => rx.cmp(ry),
                _ => Ordering::Equal,
            })
    }
}

/// The tokens of one key, read lazily (a comparison usually stops at the first field).
pub(super) struct Tokens<'a> {
    key: &'a [u8],
    pos: usize,
    field_start: bool,
    /// Inside a non-negative whole-field decimal, after its integer: where its fraction
    /// ends (its `.` and its fraction digits come next).
    fraction_end: Option<usize>,
    pending: Option<Token<'a>>,
    separator: &'a [bool; 256],
    /// The field the next token is in, from 0.
    field: usize,
    /// The fields (by position, from 0) whose ID-shaped values (see [`is_id_shaped`]) are
    /// read as IDs, as bytes: those where some key of the set holds a random ID.
    id_fields: &'a [bool],
}

impl<'a> Tokens<'a> {
    /// The tokens of `key`, split into fields at the bytes marked in `separator`.
    /// IDs are looked for in the fields marked in `id_fields` (see [`Tokens::id_fields`]).
    pub(super) fn new(
        key: &'a [u8],
        separator: &'a [bool; 256],
        id_fields: &'a [bool],
    ) -> Tokens<'a> {
        Tokens {
            key,
            pos: 0,
            field_start: true,
            fraction_end: None,
            pending: None,
            separator,
            field: 0,
            id_fields,
        }
    }

    /// Marks in `id_fields` the fields (by position, from 0) of this key that hold a random
    /// ID (see [`is_random_id`]), growing it as needed.
    pub(super) fn id_fields(mut self, id_fields: &mut Vec<bool>) {
        let mut field_start = 0;
        loop {
            let token = self.next_token();
            if matches!(token.tok, Tok::Sep | Tok::End) {
                if is_random_id(&self.key[field_start..token.start]) {
                    let field = self.field - usize::from(matches!(token.tok, Tok::Sep));
                    if id_fields.len() <= field {
                        id_fields.resize(field + 1, false);
                    }
                    id_fields[field] = true;
                }
                if matches!(token.tok, Tok::End) {
                    return;
                }
                field_start = token.end;
            }
        }
    }

    fn token(&self, tok: Tok<'a>, start: usize, end: usize) -> Token<'a> {
        Token {
            tok,
            start,
            end,
            key: self.key,
        }
    }

    fn is_sep(&self, b: u8) -> bool {
        self.separator[usize::from(b)]
    }

    /// The next token; `End` from the end on.
    pub(super) fn next_token(&mut self) -> Token<'a> {
        if let Some(t) = self.pending.take() {
            return t;
        }
        let key = self.key;
        let start = self.pos;
        if let Some(end) = self.fraction_end {
            if key[start] == b'.' {
                self.pos += 1;
                return self.token(Tok::Punct, start, start + 1);
            }
            (self.pos, self.fraction_end) = (end, None);
            let frac = trim_trailing_zeros(&key[start..end]);
            return self.token(Tok::Frac(frac), start, end);
        }
        let Some(&first) = key.get(start) else {
            return self.token(Tok::End, start, start);
        };
        if self.is_sep(first) {
            self.pos += 1;
            self.field_start = true;
            self.field += 1;
            return self.token(Tok::Sep, start, start + 1);
        }
        if first.is_ascii_hexdigit() && uuid_at(key, start) {
            // Before numbers and words: one that starts with 8 decimal digits would read as
            // a number, its neighbours as words, and the two kinds could not be compared.
            self.field_start = false;
            self.pos = start + UUID_TEXT_LEN;
            return self.token(Tok::Opaque, start, self.pos);
        }
        if std::mem::take(&mut self.field_start) {
            // Before splitting at separators: a timestamp holds `:`, a date may hold `/`.
            if let Some((tok, len)) =
                timestamp(&key[start..]).or_else(|| year_last_date(&key[start..]))
            {
                if key.get(start + len).is_none_or(|&b| self.is_sep(b)) {
                    self.pos = start + len;
                    return self.token(tok, start, start + len);
                }
            }
            let end = key[start..]
                .iter()
                .position(|&b| self.is_sep(b))
                .map_or(key.len(), |n| start + n);
            let digits = match first {
                b'-' => run_end(key, start + 1, u8::is_ascii_digit),
                _ => start,
            };
            let id_field = self.id_fields.get(self.field) == Some(&true);
            if is_random_id(&key[start..end]) || id_field && is_id_shaped(&key[start..end]) {
                self.pos = end;
                return self.token(Tok::Opaque, start, end);
            }
            if is_negative_strkey(&key[start..end]) {
                self.pos = end;
                return self.token(Tok::Opaque, start, end);
            }
            if let Some(tok) = whole_number(&key[start..end]) {
                // A non-negative decimal reads as its integer, `.` and fraction, so that
                // it and a field that only starts like it (`1.5`, `1.5rc1`) agree on the
                // integer; a negative one stays one token (its fraction sorts reversed).
                if let (
                    Tok::Num {
                        neg: false, int, ..
                    },
                    Some(dot),
                ) = (tok, key[start..end].iter().position(|&b| b == b'.'))
                {
                    (self.pos, self.fraction_end) = (start + dot, Some(end));
                    return self.token(
                        Tok::Num {
                            neg: false,
                            int,
                            frac: &[],
                        },
                        start,
                        start + dot,
                    );
                }
                self.pos = end;
                return self.token(tok, start, end);
            }
            // A field that starts with a negative integer (`-5 apples`): that integer.
            if digits > start + 1 {
                let int = trim_leading_zeros(&key[start + 1..digits]);
                self.pos = digits;
                let neg = !int.is_empty();
                return self.token(
                    Tok::Num {
                        neg,
                        int,
                        frac: &[],
                    },
                    start,
                    digits,
                );
            }
        }
        if first.is_ascii_digit() || letter_at(key, start).is_some() {
            let end = word_end(key, start);
            let word = &key[start..end];
            let letters = letters_len(word);
            let digits_after = word[letters..].iter().all(u8::is_ascii_digit);
            self.pos = end;
            return if letters == 0 && digits_after {
                self.token(digit_run(word), start, end)
            } else if letters == word.len() {
                self.token(Tok::Text, start, end)
            } else if letters > 0 && digits_after {
                let split = start + letters;
                self.pending = Some(self.token(digit_run(&key[split..end]), split, end));
                self.token(Tok::Text, start, split)
            } else {
                self.token(Tok::Opaque, start, end)
            };
        }
        // Up to a digit, a letter or a separator.
        let mut end = start + 1;
        while end < key.len()
            && !key[end].is_ascii_digit()
            && !self.is_sep(key[end])
            && letter_at(key, end).is_none()
        {
            end += 1;
        }
        self.pos = end;
        self.token(Tok::Punct, start, end)
    }
}

/// Length of a UUID's text form, 8-4-4-4-12 hex digits.
pub(super) const UUID_TEXT_LEN: usize = 36;

/// Whether a UUID's text form starts at `key[start..]` and ends there (no letter or digit
/// follows). Its hex digits order as bytes when they share a case, so it is one opaque
/// token, compared as bytes.
pub(super) fn uuid_at(key: &[u8], start: usize) -> bool {
    let Some(text) = key.get(start..start + UUID_TEXT_LEN) else {
        return false;
    };
    let shaped = text.iter().enumerate().all(|(i, b)| match i {
        8 | 13 | 18 | 23 => *b == b'-',
        _ => b.is_ascii_hexdigit(),
    });
    shaped
        && !key
            .get(start + UUID_TEXT_LEN)
            .is_some_and(u8::is_ascii_alphanumeric)
}

/// Where the run of bytes satisfying `f` that starts at `start` ends.
pub(super) fn run_end(key: &[u8], start: usize, f: impl Fn(&u8) -> bool) -> usize {
    key[start..]
        .iter()
        .position(|b| !f(b))
        .map_or(key.len(), |n| start + n)
}

/// The lower-case ASCII base letter of each code point from U+00C0 to U+017F (Latin-1's
/// letters and Latin Extended-A, `À` to `ſ`), 64 per UTF-8 lead byte `C3`, `C4` and `C5`:
/// the first character of its canonical decomposition, or `0` where that is not an ASCII
/// letter (`Æ`, `Ð`, `×`, `Ø`, `ß`, `Đ`, `Ħ`, `ı`, `Ł`, `Œ`, `ſ`, ...).
pub(super) const BASE_LETTERS: [&[u8; 64]; 3] = [
    b"aaaaaa\0ceeeeiiii\0nooooo\0\0uuuuy\0\0aaaaaa\0ceeeeiiii\0nooooo\0\0uuuuy\0y",
    b"aaaaaaccccccccdd\0\0eeeeeeeeeegggggggghh\0\0iiiiiiiii\0\0\0jjkk\0llllll\0",
    b"\0\0\0nnnnnn\0\0\0oooooo\0\0rrrrrrsssssssstttt\0\0uuuuuuuuuuuuwwyyyzzzzzz\0",
];

/// The letter at `key[i]`: its length in bytes and the code point it compares as. An ASCII
/// letter, or a letter from U+00C0 to U+017F with an ASCII base letter (UTF-8 `C3 80` to
/// `C5 BF`, see [`BASE_LETTERS`]), as its lower-case ASCII base letter; or a Greek,
/// Cyrillic or Armenian letter (U+0370 to U+058F, lead bytes `CD` to `D6`), as its lower
/// case (accents stay: `ё` is not `е`); `None` for anything else.
pub(super) fn letter_at(key: &[u8], i: usize) -> Option<(usize, u32)> {
    match *key.get(i)? {
        b if b.is_ascii_alphabetic() => Some((1, u32::from(b.to_ascii_lowercase()))),
        lead @ 0xC3..=0xC5 => {
            let table = BASE_LETTERS[usize::from(lead - 0xC3)];
            let next = *key.get(i + 1)?;
            let base = *table.get(usize::from(next.checked_sub(0x80)?))?;
            (base != 0).then_some((2, u32::from(base)))
        }
        lead @ 0xCD..=0xD6 => Some((2, other_script_letter(lead, *key.get(i + 1)?)?)),
        _ => None,
    }
}

/// The first code point [`other_script_letter`] reads (Greek and Coptic start here).
pub(super) const OTHER_SCRIPTS_START: u32 = 0x370;
/// The last one (Armenian ends here; Hebrew follows).
pub(super) const OTHER_SCRIPTS_END: u32 = 0x58F;

/// [`letter_at`] for a Greek, Cyrillic or Armenian letter in UTF-8 `lead`, `next`: its lower
/// case (the letter itself where that is more than one character). Out of line, so that
/// `letter_at` stays small where it is inlined; a table made once from std's case mapping.
#[inline(never)]
pub(super) fn other_script_letter(lead: u8, next: u8) -> Option<u32> {
    static FOLDS: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
    if next & 0xC0 != 0x80 {
        return None;
    }
    let c = u32::from(lead & 0x1F) << 6 | u32::from(next & 0x3F);
    let folds = FOLDS.get_or_init(|| {
        (OTHER_SCRIPTS_START..=OTHER_SCRIPTS_END)
            .map(|c| match char::from_u32(c).filter(|c| c.is_alphabetic()) {
                Some(c) => {
                    let mut lower = c.to_lowercase();
                    let fold = match (lower.next(), lower.next()) {
                        (Some(l), None) => l,
                        _ => c,
                    };
                    u16::try_from(u32::from(fold)).unwrap_or(0)
                }
                None => 0,
            })
            .collect()
    });
    let fold = *folds.get(usize::try_from(c.checked_sub(OTHER_SCRIPTS_START)?).ok()?)?;
    (fold != 0).then_some(u32::from(fold))
}

/// Whether a letter (as [`letter_at`] finds it) starting with byte `lead` is a Latin letter
/// that reads as its base letter, accents removed.
pub(super) fn is_accent_letter(lead: u8) -> bool {
    (0xC3..=0xC5).contains(&lead)
}

/// Whether two two-byte letters (as [`letter_at`] finds them) are one letter in two cases.
pub(super) fn case_pair(x: &[u8], y: &[u8]) -> bool {
    let lower = |l: &[u8]| {
        std::str::from_utf8(l)
            .ok()
            .and_then(|s| s.chars().next())
            .map(char::to_lowercase)
    };
    match (lower(x), lower(y)) {
        (Some(a), Some(b)) => a.eq(b),
        _ => false,
    }
}

/// Where the word (letters and ASCII digits) that starts at `start` ends.
pub(super) fn word_end(key: &[u8], mut end: usize) -> usize {
    while let Some(&b) = key.get(end) {
        end += match letter_at(key, end) {
            Some((len, _)) => len,
            None if b.is_ascii_digit() => 1,
            None => break,
        };
    }
    end
}

/// The length in bytes of the letters `word` starts with.
pub(super) fn letters_len(word: &[u8]) -> usize {
    let mut len = 0;
    while let Some((n, _)) = letter_at(word, len) {
        len += n;
    }
    len
}

/// The letters of `letters` (a text token) as [`letter_at`] reads them: code points.
pub(super) fn folded(letters: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let (len, base) =
            letter_at(letters, i).or_else(|| letters.get(i).map(|&b| (1, u32::from(b))))?;
        i += len;
        Some(base)
    })
}

/// The timestamp at the start of `field` and its length in bytes, if there is one:
/// `YYYY-MM-DD`, `T` (or `t` or a space), `hh:mm` (an hour of one digit too), optionally
/// `:ss` and a fraction after `.` or `,`, then the UTC offset: `Z` (or `z`) or `+hh:mm`,
/// `+hhmm` or `+hh` (or `-`), as RFC 3339 and ISO 8601 write them, or none (a local time:
/// the date and time written, as if in UTC). Fields are checked (a real date, hours below
/// 24, seconds up to 60 for a leap second), so other digits and dashes are left alone.
pub(super) fn timestamp(field: &[u8]) -> Option<(Tok<'_>, usize)> {
    // Two ASCII digits at `at` as a number.
    let two = |at: usize| -> Option<i64> {
        match field.get(at..at + 2)? {
            &[a @ b'0'..=b'9', b @ b'0'..=b'9'] => Some(i64::from((a - b'0') * 10 + (b - b'0'))),
            _ => None,
        }
    };
    // The common rejection first: no `-` where a date has it.
    if field.get(4) != Some(&b'-') || field.get(7) != Some(&b'-') {
        return None;
    }
    let year = two(0)? * 100 + two(2)?;
    let (month, day) = (two(5)?, two(8)?);
    if !(1..=12).contains(&month) || !matches!(field.get(10)?, b'T' | b't' | b' ') {
        return None;
    }
    // The hour: two digits, or one.
    let (hour, colon) = match two(11) {
        Some(hour) => (hour, 13),
        None => match *field.get(11)? {
            d @ b'0'..=b'9' => (i64::from(d - b'0'), 12),
            _ => return None,
        },
    };
    if field.get(colon) != Some(&b':') {
        return None;
    }
    let month = month as u32;
    let days_in_month = i64::from(crate::time::civil::days_in_month(year, month));
    let minute = two(colon + 1)?;
    if !(1..=days_in_month).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    let mut at = colon + 3;
    let mut second = 0;
    let mut frac: &[u8] = &[];
    if field.get(at) == Some(&b':') {
        second = two(at + 1).filter(|&s| s <= 60)?;
        at += 3;
        if matches!(field.get(at), Some(b'.' | b',')) {
            let digits = run_end(field, at + 1, u8::is_ascii_digit);
            if digits == at + 1 {
                return None;
            }
            frac = trim_trailing_zeros(&field[at + 1..digits]);
            at = digits;
        }
    }
    let offset = match field.get(at) {
        Some(b'Z' | b'z') => {
            at += 1;
            Some(0)
        }
        Some(&sign @ (b'+' | b'-')) => {
            let hours = two(at + 1).filter(|&h| h <= 23)?;
            at += 3;
            let minutes = match field.get(at) {
                Some(b':') => {
                    at += 3;
                    two(at - 2)?
                }
                Some(b'0'..=b'9') => {
                    at += 2;
                    two(at - 2)?
                }
                _ => 0,
            };
            if minutes > 59 {
                return None;
            }
            let offset = hours * 3600 + minutes * 60;
            Some(if sign == b'-' { -offset } else { offset })
        }
        _ => None,
    };
    let days = crate::time::civil::days_from_civil(year, month, day as u32);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset.unwrap_or(0);
    let local = offset.is_none();
    Some((Tok::Time { secs, frac, local }, at))
}

/// The date with the year last at the start of `field` and its length in bytes, if there
/// is one: one or two digits, `-`, `/` or `.`, one or two digits, the same mark, four
/// digits of a year (`12/31/2023`, `31.12.2023`, `1-2-2024`), or two after `/` or `-`
/// (`12/30/17`, `1-2-18`: a short year). The two first numbers must
/// make a real date read as month and day or as day and month; which one is not decided,
/// so they compare in the order written, after the year.
pub(super) fn year_last_date(field: &[u8]) -> Option<(Tok<'_>, usize)> {
    // One or two digits from `at`: the number and where it ends.
    let part = |at: usize| -> Option<(u8, usize)> {
        let end = run_end(field, at, u8::is_ascii_digit);
        let digits = field.get(at..end).filter(|d| (1..=2).contains(&d.len()))?;
        Some((digits.iter().fold(0, |n, &d| n * 10 + (d - b'0')), end))
    };
    // The common rejection first: no mark after one or two digits.
    if !matches!(
        field,
        [b'0'..=b'9', b'-' | b'/' | b'.', ..] | [b'0'..=b'9', b'0'..=b'9', b'-' | b'/' | b'.', ..]
    ) {
        return None;
    }
    let (first, at) = part(0)?;
    let mark = *field
        .get(at)
        .filter(|&&b| matches!(b, b'-' | b'/' | b'.'))?;
    let (second, at) = part(at + 1)?;
    if field.get(at) != Some(&mark) {
        return None;
    }
    let digits = run_end(field, at + 1, u8::is_ascii_digit) - (at + 1);
    // Four digits, or two after `/` or `-` (after `.`, `1.2.18` is more likely a version).
    let short = match digits {
        4 => false,
        2 if mark != b'.' => true,
        _ => return None,
    };
    let year = field[at + 1..at + 1 + digits]
        .iter()
        .fold(0, |n, &d| n * 10 + u16::from(d - b'0'));
    // A two-digit year's leap years are those of 2000 to 2099 (so `02/29/00` is a date).
    let full_year = if short { 2000 + year } else { year };
    let fits = |month: u8, day: u8| {
        (1..=12).contains(&month)
            && day >= 1
            && u32::from(day)
                <= crate::time::civil::days_in_month(i64::from(full_year), month.into())
    };
    if !fits(first, second) && !fits(second, first) {
        return None;
    }
    Some((
        Tok::Date {
            year,
            first,
            second,
            short,
        },
        at + 1 + digits,
    ))
}

/// A run of ASCII digits as a number token.
pub(super) fn digit_run(digits: &[u8]) -> Tok<'_> {
    Tok::Num {
        neg: false,
        int: trim_leading_zeros(digits),
        frac: &[],
    }
}

/// Integer digits without their leading zeros (empty for zero).
pub(super) fn trim_leading_zeros(digits: &[u8]) -> &[u8] {
    &digits[digits.iter().take_while(|&&d| d == b'0').count()..]
}

/// Fraction digits without their trailing zeros (empty for zero).
pub(super) fn trim_trailing_zeros(digits: &[u8]) -> &[u8] {
    &digits[..digits.len() - digits.iter().rev().take_while(|&&d| d == b'0').count()]
}

/// `field` as a number token if it is wholly one: `-?[0-9]+(\.[0-9]+)?`.
pub(super) fn whole_number(field: &[u8]) -> Option<Tok<'_>> {
    let (neg, rest) = match field.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, field),
    };
    let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if int_len == 0 {
        return None;
    }
    let (int, tail) = rest.split_at(int_len);
    let frac = match tail.split_first() {
        None => &[][..],
        Some((b'.', frac)) if !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) => frac,
        _ => return None,
    };
    let (int, frac) = (trim_leading_zeros(int), trim_trailing_zeros(frac));
    Some(Tok::Num {
        neg: neg && !(int.is_empty() && frac.is_empty()),
        int,
        frac,
    })
}

/// Whether `field` has the shape of a negative [`int_key`](super::int_key) or
/// [`decimal_key`](super::decimal_key): `-`, the nines' complement of the length prefix
/// (`99 - n`, or `00` and `999 - n` for long numbers), `n` digits, and for a decimal an
/// optional `.` and digits and a final `~`. Such a field sorts by the number it encodes,
/// not by the number it reads as, so it is left to compare as bytes. (A plain negative
/// integer of that shape, 1 in 100 or so, is then not judged.)
pub(super) fn is_negative_strkey(field: &[u8]) -> bool {
    let Some(rest) = field.strip_prefix(b"-") else {
        return false;
    };
    let (digits, tail) = rest.split_at(rest.iter().take_while(|b| b.is_ascii_digit()).count());
    let value = |d: &[u8]| d.iter().fold(0, |n, &b| n * 10 + usize::from(b - b'0'));
    let (head, len) = match digits {
        [b'0', b'0', long @ ..] if long.len() >= 3 => (5, 999 - value(&long[..3])),
        [_, _, ..] => (2, 99 - value(&digits[..2])),
        _ => return false,
    };
    if digits.len() != head + len {
        return false;
    }
    match tail {
        [] => len > 0,
        [mid @ .., b'~'] => match mid {
            [] => true,
            [b'.', frac @ ..] => !frac.is_empty() && frac.iter().all(u8::is_ascii_digit),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `field` has the shape of an ID token: only ASCII letters, digits, `_` and `-`
/// (the alphabet of base64url and of most generated IDs), at least one letter and at least
/// one digit (`Ab_9`, `post_9`, `x7Kp`).
pub(super) fn is_id_shaped(field: &[u8]) -> bool {
    field
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
        && field.iter().any(u8::is_ascii_alphabetic)
        && field.iter().any(u8::is_ascii_digit)
}

/// Whether `field` reads as a random, case-sensitive ID: ID-shaped (see [`is_id_shaped`])
/// with a lower-case letter right before an upper-case one (`aB_1`, `x7kPq`), a change of
/// case inside a word that written words (`Zoey`, `POST`, `Post9`) do not make. Its letters
/// are not words, so it compares as bytes, case included, like a UUID or KSUID.
pub(super) fn is_random_id(field: &[u8]) -> bool {
    is_id_shaped(field)
        && field
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}
