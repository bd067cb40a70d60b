//! The serde `Deserializer`: reads values back from their order-preserving bytes.
//!
//! Invariants that keep arbitrary input harmless: every read checks bounds; nothing is
//! pre-allocated from a length found in the input (sequences report no size hint and
//! strings grow at most to the input length); every sequence element consumes at least
//! its marker byte; nesting deeper than [`MAX_DEPTH`] is rejected, so recursive types
//! cannot exhaust the stack.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::desc::{DESC_MASK, DESC_NAME};
use super::error::{Error, Found};
use super::escape::{self, Decoded};
use super::{float, int128, int64, FALSE, OPTION_NONE, OPTION_SOME, SEQ_ELEMENT, SEQ_END, TRUE};

/// Deepest nesting of containers (options, newtypes, sequences, tuples, structs, maps,
/// enums) the decoder follows; each of them is one level (a recursive
/// `struct List(Option<Box<List>>)` takes two per node). The encoder has no limit: a value
/// nested deeper encodes but does not decode, so keep keys shallower than this.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct List(Option<Box<List>>);
/// let mut list = List(None);
/// for _ in 0..64 { list = List(Some(Box::new(list))); } // 65 nodes, 130 levels
/// let key = sortpath::codec::to_vec(&list).unwrap();
/// assert!(sortpath::codec::from_slice::<List>(&key).is_err());
/// ```
pub const MAX_DEPTH: u32 = 128;

pub(crate) struct Deserializer<'de> {
    input: &'de [u8],
    pos: usize,
    /// `0x00`, or [`DESC_MASK`] while inside an odd number of descending fields.
    mask: u8,
    depth: u32,
}

impl<'de> Deserializer<'de> {
    #[inline]
    pub(crate) fn new(input: &'de [u8]) -> Self {
        Deserializer {
            input,
            pos: 0,
            mask: 0,
            depth: 0,
        }
    }

    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    fn rest(&self) -> &'de [u8] {
        &self.input[self.pos..]
    }

    #[cold]
    fn err(&self, expected: &'static str, at: usize) -> Error {
        let found = match self.input.get(at) {
            // `expected` speaks of ascending bytes; a descending field's are stored inverted.
            Some(&b) if self.mask != 0 => Found::DescByte { stored: b },
            Some(&b) => Found::Byte(b),
            None => Found::End,
        };
        Error::unexpected(expected, found, at)
    }

    #[inline(always)]
    pub(crate) fn byte(&mut self, expected: &'static str) -> Result<u8, Error> {
        // Through the rest of the input rather than `pos + 1`: the new position is then known
        // not to pass the end, so after a check that `n` bytes are left (see
        // `deserialize_tuple`) the compiler can drop the checks of the next `n` single bytes.
        match self.input.get(self.pos..).and_then(<[u8]>::split_first) {
            Some((b, rest)) => {
                self.pos = self.input.len() - rest.len();
                Ok(b ^ self.mask)
            }
            // Built from values only (the input ended), so the error path reads nothing
            // back from `self`.
            None => Err(Error::unexpected(expected, Found::End, self.pos)),
        }
    }

    /// The next `N` bytes, unmasked.
    #[inline]
    pub(crate) fn array<const N: usize>(
        &mut self,
        expected: &'static str,
    ) -> Result<[u8; N], Error> {
        let Some(bytes) = self.rest().get(..N) else {
            return Err(Error::unexpected(expected, Found::End, self.input.len()));
        };
        let mut out = [0u8; N];
        for (o, b) in out.iter_mut().zip(bytes) {
            *o = b ^ self.mask;
        }
        self.pos += N;
        Ok(out)
    }

    /// Reads a sort-byte integer as (negative, magnitude).
    #[inline]
    fn int(&mut self) -> Result<(bool, u64), Error> {
        match int64::decode_at(self.input, self.pos, self.mask) {
            Ok((negative, magnitude, used)) => {
                self.pos += used;
                Ok((negative, magnitude))
            }
            Err(bad) => Err(self.int_error(bad)),
        }
    }

    /// Reads a sort-byte integer that must fit the unsigned type `T`.
    #[inline(always)]
    pub(crate) fn uint<T: TryFrom<u64>>(&mut self, expected: &'static str) -> Result<T, Error> {
        // The common case inline: ascending, positive, minimal, in range.
        if self.mask == 0 {
            if let Some((magnitude, end)) = int64::decode_positive(self.input, self.pos) {
                if let Ok(v) = T::try_from(magnitude) {
                    self.pos = end;
                    return Ok(v);
                }
            }
        }
        // The rest gets copies of the fields, not `self`: a reference to `self` would keep
        // the whole decoder in memory instead of registers on the fast path too.
        let (v, end) = uint_general(self.input, self.pos, self.mask, expected)?;
        self.pos = end;
        Ok(v)
    }

    /// Reads a sort-byte integer that must fit the signed type `T`.
    #[inline]
    pub(crate) fn sint<T: TryFrom<i64>>(&mut self, expected: &'static str) -> Result<T, Error> {
        let start = self.pos;
        let (negative, magnitude) = self.int()?;
        let value = if negative {
            // -magnitude fits i64 for magnitudes up to 2^63.
            0i64.checked_sub_unsigned(magnitude)
        } else {
            i64::try_from(magnitude).ok()
        };
        match value.map(T::try_from) {
            Some(Ok(v)) => Ok(v),
            _ => Err(out_of_range(expected, negative, magnitude, start)),
        }
    }

    #[cold]
    fn int_error(&self, bad: int64::Bad) -> Error {
        match bad {
            int64::Bad::NotMinimal => Error::unexpected(
                "a minimal integer magnitude",
                Found::Text("a leading zero byte".into()),
                self.pos + 1,
            ),
            int64::Bad::Truncated => {
                Error::unexpected("a sort-byte integer", Found::End, self.input.len())
            }
            int64::Bad::SortByte => self.err("a sort-byte integer", self.pos),
        }
    }

    #[inline]
    fn wide(&mut self, expected: &'static str, zero: u8) -> Result<(bool, u128), Error> {
        match int128::decode(self.rest(), self.mask, zero) {
            Ok((negative, magnitude, used)) => {
                self.pos += used;
                Ok((negative, magnitude))
            }
            Err(int128::Bad::At(rel)) => Err(self.err(expected, self.pos + rel)),
            Err(int128::Bad::NotMinimal) => Err(Error::unexpected(
                "a minimal integer magnitude",
                Found::Text("a leading zero byte".into()),
                self.pos + 1,
            )),
        }
    }

    #[inline]
    fn escaped(&mut self) -> Result<escape::Scanned<'de>, Error> {
        let start = self.pos;
        match escape::decode(self.rest(), self.mask) {
            Ok(scanned) => {
                self.pos += scanned.used;
                Ok(scanned)
            }
            Err(bad) => Err(self.err(
                "an escape (01 01 or 01 02) or the string terminator 00",
                start + bad.offset,
            )),
        }
    }

    /// The fast path for the common string: ascending, ASCII, at most 7 bytes with the
    /// terminator in the next 8 input bytes. Takes it if so (the general path would
    /// borrow the same bytes and find them ASCII), returning those 8 bytes and the
    /// content length.
    #[inline(always)]
    pub(crate) fn short_ascii(&mut self) -> Option<([u8; 8], usize)> {
        if self.mask != 0 {
            return None;
        }
        let bytes = *self.input.get(self.pos..)?.first_chunk::<8>()?;
        let word = u64::from_le_bytes(bytes);
        let flags = escape::escape_flags(word);
        // The lowest flag is a true one: `stop` is the low bit of the first byte below 0x02,
        // or 0 if there is none.
        let stop = (flags & flags.wrapping_neg()) >> 7;
        // That byte is the terminator 0x00 (an escape 0x01 has the low bit), and no byte
        // before it has the high bit.
        const _: () = assert!(escape::TERMINATOR == 0 && escape::ESCAPE == 1);
        if stop == 0 || word & (stop | (stop.wrapping_sub(1) & escape::HIGHS)) != 0 {
            return None;
        }
        let len = stop.trailing_zeros() as usize / 8;
        self.pos += len + 1;
        Some((bytes, len))
    }

    /// [`de::Deserializer::deserialize_string`] for every string.
    #[inline(never)]
    fn string_general<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let start = self.pos;
        let scanned = self.escaped()?;
        match scanned.content {
            Decoded::Borrowed(bytes) if scanned.ascii => visitor.visit_string(ascii_string(bytes)),
            Decoded::Borrowed(bytes) => match std::str::from_utf8(bytes) {
                Ok(s) => visitor.visit_borrowed_str(s),
                Err(e) => Err(self.utf8_error(start, e.valid_up_to())),
            },
            Decoded::Owned(bytes) => self.owned_string(start, bytes, visitor),
        }
    }

    /// An unescaped string: checked as UTF-8 in place, then handed over.
    fn owned_string<V: Visitor<'de>>(
        &self,
        start: usize,
        bytes: Vec<u8>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match String::from_utf8(bytes) {
            Ok(s) => visitor.visit_string(s),
            Err(e) => {
                Err(self.utf8_error(start, self.escaped_len(start, e.utf8_error().valid_up_to())))
            }
        }
    }

    /// How many input bytes from `start` hold the first `content` bytes of an escaped
    /// string: an escape pair stands for one byte. For error offsets (cold).
    #[cold]
    fn escaped_len(&self, start: usize, content: usize) -> usize {
        let mut at = start;
        for _ in 0..content {
            let escape = self
                .input
                .get(at)
                .is_some_and(|b| b ^ self.mask == escape::ESCAPE);
            at += if escape { 2 } else { 1 };
        }
        at - start
    }

    #[cold]
    fn utf8_error(&self, start: usize, valid_up_to: usize) -> Error {
        Error::unexpected("a UTF-8 string", Found::InvalidUtf8, start + valid_up_to)
    }

    #[inline]
    #[cold]
    fn too_deep(&self) -> Error {
        Error::unexpected(
            "at most 128 levels of nesting",
            Found::Text("deeper nesting".into()),
            self.pos,
        )
    }

    /// Runs `f` one nesting level deeper, refusing to go past [`MAX_DEPTH`].
    #[inline]
    pub(crate) fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.enter()?;
        let result = f(self);
        self.leave();
        result
    }

    /// Goes one nesting level deeper, refusing to go past [`MAX_DEPTH`]; [`Self::leave`]
    /// comes back (after an error too).
    #[inline(always)]
    pub(crate) fn enter(&mut self) -> Result<(), Error> {
        if self.depth >= MAX_DEPTH {
            return Err(self.too_deep());
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves the level [`Self::enter`] went into.
    #[inline(always)]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// [`de::Deserializer::deserialize_tuple`] when fewer input bytes are left than
    /// elements: the same reads, out of line.
    #[inline(never)]
    fn tuple_short<V: Visitor<'de>>(&mut self, len: usize, visitor: V) -> Result<V::Value, Error> {
        self.nested(|de| visitor.visit_seq(FixedAccess { de, left: len }))
    }

    /// A `bool`: `0x00` or `0x01`.
    #[inline]
    pub(crate) fn bool(&mut self) -> Result<bool, Error> {
        self.flag("a bool (0x00 or 0x01)", FALSE, TRUE)
    }

    /// An option's tag: `true` for `Some`.
    #[inline]
    pub(crate) fn option_tag(&mut self) -> Result<bool, Error> {
        self.flag("an option tag (0x00 or 0x01)", OPTION_NONE, OPTION_SOME)
    }

    /// A byte that must be `no` (false) or `yes` (true).
    #[inline(always)]
    fn flag(&mut self, expected: &'static str, no: u8, yes: u8) -> Result<bool, Error> {
        match self.byte(expected)? {
            b if b == no => Ok(false),
            b if b == yes => Ok(true),
            _ => Err(self.err(expected, self.pos - 1)),
        }
    }

    /// Enters a descending field or leaves it: its bytes are stored inverted.
    #[inline(always)]
    pub(crate) fn flip_mask(&mut self) {
        self.mask ^= DESC_MASK;
    }

    #[inline]
    pub(crate) fn seq_marker(&mut self) -> Result<bool, Error> {
        match self.byte("an element marker 0x01 or the end marker 0x00")? {
            SEQ_ELEMENT => Ok(true),
            SEQ_END => Ok(false),
            _ => Err(self.err(
                "an element marker 0x01 or the end marker 0x00",
                self.pos - 1,
            )),
        }
    }
}

/// `bytes`, known to be ASCII, as a `String` of exactly their length, without a UTF-8 check.
/// Short strings are pushed byte by byte (no validation pass, no copy call); longer
/// ones are copied after the standard check, which is fast on long runs of ASCII.
#[inline(always)]
fn ascii_string(bytes: &[u8]) -> String {
    debug_assert!(bytes.is_ascii());
    if bytes.len() > 16 {
        return long_ascii_string(bytes);
    }
    let mut s = String::with_capacity(bytes.len());
    // `& 0x7F` changes no ASCII byte; it tells the compiler each char is one byte.
    s.extend(bytes.iter().map(|&b| char::from(b & 0x7F)));
    s
}

/// The first `len` (at most 7) of `bytes`, known to be ASCII, as a `String`. All 8 bytes
/// are pushed and the string is then cut to `len`: a loop of constant length, which the
/// compiler unrolls into one masked word store with no capacity checks (a loop over `len`
/// bytes checks capacity and stores the length on every byte). The capacity is 8, which
/// takes no more memory than an exact one with common allocators (glibc's smallest chunk
/// holds 24 bytes).
///
/// Out of line, and taking only values (not the decoder): serde's `String::deserialize`
/// is then small enough to be inlined into a derived struct's decoder, where the input
/// position stays in a register across the string fields instead of being written back
/// for a call per field (about 10% off the benchmark struct's decode).
#[inline(never)]
fn short_ascii_string(bytes: [u8; 8], len: usize) -> String {
    // Clearing the high bits changes no byte of the content; it makes every byte a one-byte
    // char, also the ones after the content, which are cut off.
    let ascii = (u64::from_le_bytes(bytes) & !escape::HIGHS).to_le_bytes();
    let mut s = String::with_capacity(8);
    for b in ascii {
        s.push(char::from(b));
    }
    s.truncate(len);
    s
}

/// [`ascii_string`] for longer strings: the standard check is fast on long ASCII runs.
#[inline(never)]
fn long_ascii_string(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Passes on the error of a field or element that starts at `start`, marking that path as
/// unlikely. Without the mark the compiler takes every field's success for a coin toss, so
/// by the sixth field of a struct the code looks rarely reached and the field readers are
/// not inlined.
#[cold]
#[inline(never)]
pub(crate) fn field_failed(e: Error, start: usize) -> Error {
    // An error without an offset comes from serde or the field's type (a `NonZeroU32` of
    // 0, a missing enum variant): it is about the field that starts at `start`.
    e.or_at(start)
}

/// The error for a well-formed integer that does not fit the requested type.
#[cold]
fn out_of_range(expected: &'static str, negative: bool, magnitude: u64, at: usize) -> Error {
    let sign = if negative { "-" } else { "" };
    Error::unexpected(
        expected,
        Found::Text(format!("integer {sign}{magnitude}")),
        at,
    )
}

/// [`Deserializer::uint`] for every case (descending, zero, negative, malformed, too
/// large), on a decoder at `pos`: the value and the position after it.
#[inline(never)]
fn uint_general<T: TryFrom<u64>>(
    input: &[u8],
    pos: usize,
    mask: u8,
    expected: &'static str,
) -> Result<(T, usize), Error> {
    let mut de = Deserializer {
        input,
        pos,
        mask,
        depth: 0,
    };
    match de.int()? {
        (false, magnitude) => match T::try_from(magnitude) {
            Ok(v) => Ok((v, de.pos)),
            Err(_) => Err(out_of_range(expected, false, magnitude, pos)),
        },
        (true, magnitude) => Err(out_of_range(expected, true, magnitude, pos)),
    }
}

/// Implements the integer methods that read a sort-byte integer (`$read` is `uint`/`sint`).
macro_rules! int_methods {
    ($($method:ident $visit:ident $read:ident $t:ty, $what:literal;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.$visit(self.$read::<$t>($what)?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    /// The format is not self-describing: the type must say what to read.
    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(Error::unexpected(
            "a known type (the sortpath codec is not self-describing)",
            Found::Text("a request for any type".into()),
            self.pos,
        ))
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_bool(self.bool()?)
    }

    int_methods! {
        deserialize_i8 visit_i8 sint i8, "an i8";
        deserialize_i16 visit_i16 sint i16, "an i16";
        deserialize_i32 visit_i32 sint i32, "an i32";
        deserialize_i64 visit_i64 sint i64, "an i64";
        deserialize_u16 visit_u16 uint u16, "a u16";
        deserialize_u32 visit_u32 uint u32, "a u32";
        deserialize_u64 visit_u64 uint u64, "a u64";
    }

    #[inline(always)]
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_u8(self.byte("a u8 byte")?)
    }

    #[inline]
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let start = self.pos;
        let (negative, magnitude) =
            self.wide("a 128-bit sort-byte integer", int128::WIDE_SORT_BYTE_ZERO)?;
        let v = if negative {
            0i128.checked_sub_unsigned(magnitude)
        } else {
            i128::try_from(magnitude).ok()
        };
        let v = v.ok_or_else(|| {
            let sign = if negative { "-" } else { "" };
            Error::unexpected(
                "an i128",
                Found::Text(format!("integer {sign}{magnitude}")),
                start,
            )
        })?;
        visitor.visit_i128(v)
    }

    #[inline]
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let start = self.pos;
        let (negative, magnitude) =
            self.wide("a sort-byte integer", int128::U128_SORT_BYTE_ZERO)?;
        if negative {
            return Err(Error::unexpected(
                "a u128",
                Found::Text(format!("integer -{magnitude}")),
                start,
            ));
        }
        visitor.visit_u128(magnitude)
    }

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let key = u32::from_be_bytes(self.array("4 bytes of an f32")?);
        visitor.visit_f32(float::f32_from_key(key))
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let key = u64::from_be_bytes(self.array("8 bytes of an f64")?);
        visitor.visit_f64(float::f64_from_key(key))
    }

    #[inline]
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        const EXPECTED: &str = "a UTF-8 encoded char";
        let start = self.pos;
        let lead = self.byte(EXPECTED)?;
        let len = match lead {
            0x00..=0x7F => 1,
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return Err(self.err(EXPECTED, start)),
        };
        let mut buf = [lead, 0, 0, 0];
        for slot in &mut buf[1..len] {
            *slot = self.byte(EXPECTED)?;
        }
        match std::str::from_utf8(&buf[..len]) {
            Ok(s) => visitor.visit_char(s.chars().next().unwrap_or_default()),
            Err(_) => Err(Error::unexpected(EXPECTED, Found::InvalidUtf8, start)),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let start = self.pos;
        match self.escaped()?.content {
            Decoded::Borrowed(bytes) => match std::str::from_utf8(bytes) {
                Ok(s) => visitor.visit_borrowed_str(s),
                Err(e) => Err(self.utf8_error(start, e.valid_up_to())),
            },
            Decoded::Owned(bytes) => self.owned_string(start, bytes, visitor),
        }
    }

    /// Like [`Self::deserialize_str`], but hands the visitor an owned `String`, built
    /// without a second UTF-8 check when the scan found only ASCII. Small when inlined:
    /// the check for the common short string here, building it and everything else out
    /// of line.
    #[inline(always)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.short_ascii() {
            Some((bytes, len)) => visitor.visit_string(short_ascii_string(bytes, len)),
            None => self.string_general(visitor),
        }
    }

    #[inline]
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.escaped()?.content {
            Decoded::Borrowed(bytes) => visitor.visit_borrowed_bytes(bytes),
            Decoded::Owned(bytes) => visitor.visit_byte_buf(bytes),
        }
    }

    #[inline]
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.option_tag()? {
            self.nested(|de| visitor.visit_some(de))
        } else {
            visitor.visit_none()
        }
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == DESC_NAME {
            self.nested(|de| {
                de.flip_mask();
                let result = visitor.visit_newtype_struct(&mut *de);
                de.flip_mask();
                result
            })
        } else {
            self.nested(|de| visitor.visit_newtype_struct(de))
        }
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.nested(|de| visitor.visit_seq(FramedAccess(de)))
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        // Both branches read the same way. In the first, at least one byte per element is
        // left, so the bounds checks of one-byte elements fold away: serde's `[u8; N]` reads
        // element by element, and this turns it into one N-byte load and store instead of N
        // checked byte reads and byte stores (which a later wide read of the array would
        // wait on). Elements that take fewer bytes (units) still work in either branch.
        if self.input.get(self.pos..).is_some_and(|r| r.len() >= len) {
            self.nested(|de| visitor.visit_seq(FixedAccess { de, left: len }))
        } else {
            self.tuple_short(len, visitor)
        }
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, visitor)
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.nested(|de| visitor.visit_map(FramedAccess(de)))
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_tuple(fields.len(), visitor)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.nested(|de| visitor.visit_enum(de))
    }

    /// A field or variant identifier, written as its index. Derived structs are read by
    /// position and enum variants through `variant_seed`, but an adjacently tagged enum's
    /// tag comes here. A type that reads itself as a map with field names, as
    /// `#[serde(flatten)]` does, finds a name where an index belongs: the error says so.
    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        const EXPECTED: &str = "a field or variant index (the sortpath codec has no field \
                                names: #[serde(flatten)] and other structs that read \
                                themselves as maps are not supported)";
        let start = self.pos;
        match self.uint::<u32>(EXPECTED) {
            Ok(index) => visitor.visit_u32(index),
            Err(_) => Err(self.err(EXPECTED, start)),
        }
    }
}

/// Sequences and maps: a marker byte before each element, an end marker after the last.
struct FramedAccess<'a, 'de>(&'a mut Deserializer<'de>);

impl<'de> de::SeqAccess<'de> for FramedAccess<'_, 'de> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.0.seq_marker()? {
            let start = self.0.pos;
            match seed.deserialize(&mut *self.0) {
                Ok(value) => Ok(Some(value)),
                Err(e) => Err(field_failed(e, start)),
            }
        } else {
            Ok(None)
        }
    }
}

impl<'de> de::MapAccess<'de> for FramedAccess<'_, 'de> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        de::SeqAccess::next_element_seed(self, seed)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let start = self.0.pos;
        seed.deserialize(&mut *self.0)
            .map_err(|e| field_failed(e, start))
    }
}

/// Tuples and structs: exactly `left` more fields, no markers.
struct FixedAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for FixedAccess<'_, 'de> {
    type Error = Error;
    // Forced inline (with `next_element_seed`): a derived struct or an array reads every
    // field through here, and inlined the field count folds away and each field's result
    // stays in registers. It calls `T::deserialize` itself rather than going through a
    // `PhantomData` seed: one generic layer fewer for the compiler to inline, which with one
    // codegen unit it otherwise leaves as a call per field.
    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let start = self.de.pos;
        match T::deserialize(&mut *self.de) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(field_failed(e, start)),
        }
    }
    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let start = self.de.pos;
        match seed.deserialize(&mut *self.de) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(field_failed(e, start)),
        }
    }
    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::EnumAccess<'de> for &mut Deserializer<'de> {
    type Error = Error;
    type Variant = Self;
    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let start = self.pos;
        let index: u32 = self.uint("a variant index")?;
        let de: de::value::U32Deserializer<Error> = index.into_deserializer();
        let value = seed.deserialize(de).map_err(|e| e.or_at(start))?;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Deserializer<'de> {
    type Error = Error;
    #[inline]
    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }
    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let start = self.pos;
        seed.deserialize(self).map_err(|e| field_failed(e, start))
    }
    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(FixedAccess {
            de: self,
            left: len,
        })
    }
    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_seq(FixedAccess {
            de: self,
            left: fields.len(),
        })
    }
}
