//! Borrowed views over encoded key paths: [`KeyPathRef`] (a validated encoding) and the
//! [`Segment`]s read out of it.

use std::fmt;

use super::binary::{self, DecodeError, Seg, Walk};
use super::id::{IdRef, IdType};
use super::KeyPath;

/// A key path as borrowed, validated encoded bytes: what [`KeyPath`] is to `Vec<u8>`,
/// `KeyPathRef` is to `&[u8]` (as `&str` to `String`). Reads keys straight out of a
/// backend's buffer: [`KeyPathRef::decode`] validates without allocating, and
/// [`KeyPathRef::to_key_path`] is one copy.
///
/// Its order, equality and hash are those of the bytes, as for [`KeyPath`].
///
/// ```
/// use sortpath::{KeyPath, KeyPathRef};
/// let bytes = "/user-1/post-hello".parse::<KeyPath>().unwrap().encode();
/// let view = KeyPathRef::decode(&bytes).unwrap();
/// assert_eq!(view.len(), 2);
/// assert_eq!(view.to_string(), "/user-1/post-hello");
/// let names: Vec<&str> = view.segments().map(|s| s.namespace()).collect();
/// assert_eq!(names, ["user", "post"]);
/// assert_eq!(view.to_key_path(), KeyPath::decode(&bytes).unwrap());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyPathRef<'a> {
    // Invariant: one canonical encoding (see `binary::validate`).
    bytes: &'a [u8],
}

impl<'a> KeyPathRef<'a> {
    /// Checks that `bytes` is one canonical key path encoding (the whole input) and views
    /// it, without allocating. Fails exactly when [`KeyPath::decode`] fails, with the same
    /// error; arbitrary bytes give an error, never a panic.
    ///
    /// ```
    /// use sortpath::KeyPathRef;
    /// let view = KeyPathRef::decode(&[0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x11]).unwrap();
    /// assert_eq!(view.to_string(), "/a-1");
    /// assert!(KeyPathRef::decode(b"not a key").is_err());
    /// ```
    pub fn decode(bytes: &'a [u8]) -> Result<KeyPathRef<'a>, DecodeError> {
        binary::validate(bytes)?;
        Ok(KeyPathRef { bytes })
    }

    /// Views `bytes` without checking them, for bytes known to be a valid encoding: ones a
    /// [`KeyPath`] or [`KeyPathRef`] gave out (through `as_bytes`), kept aside and read
    /// again by the same program. Use [`KeyPathRef::decode`] for anything else, such as
    /// bytes read back from a store or a file.
    ///
    /// Debug builds check the bytes and panic if they are not a valid encoding. Release
    /// builds do not check: for other bytes the view's answers (its text, its segments)
    /// are unspecified and reading them may panic, but nothing is unsafe.
    ///
    /// ```
    /// use sortpath::{KeyPath, KeyPathRef};
    /// let mut keys = Vec::new();
    /// for text in ["/user-2", "/user-1/post-7"] {
    ///     keys.push(text.parse::<KeyPath>().unwrap().encode());
    /// }
    /// keys.sort();
    /// let texts: Vec<String> = keys.iter().map(|k| KeyPathRef::new_unchecked(k).to_string()).collect();
    /// assert_eq!(texts, ["/user-1/post-7", "/user-2"]);
    /// ```
    #[inline]
    pub fn new_unchecked(bytes: &'a [u8]) -> KeyPathRef<'a> {
        // (Inside the crate, `new_valid` views the bytes of a `KeyPath`, whose
        // constructors check them in debug builds already.)
        debug_assert!(
            binary::validate(bytes).is_ok(),
            "not a key path: {bytes:02x?}"
        );
        KeyPathRef { bytes }
    }

    /// Views the bytes of a [`KeyPath`] (valid by its invariant).
    #[inline]
    pub(crate) fn new_valid(bytes: &'a [u8]) -> KeyPathRef<'a> {
        KeyPathRef { bytes }
    }

    /// The encoded bytes.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1".parse().unwrap();
    /// assert_eq!(path.as_path_ref().as_bytes(), path.as_bytes());
    /// ```
    pub fn as_bytes(self) -> &'a [u8] {
        self.bytes
    }

    /// The owned path: one allocation and one copy of the bytes.
    ///
    /// ```
    /// use sortpath::{KeyPath, KeyPathRef};
    /// let path: KeyPath = "/a-1/b".parse().unwrap();
    /// let bytes = path.encode();
    /// assert_eq!(KeyPathRef::decode(&bytes).unwrap().to_key_path(), path);
    /// ```
    pub fn to_key_path(self) -> KeyPath {
        KeyPath::from_valid_slice(self.bytes)
    }

    /// The components in order, as borrowed [`Segment`]s.
    ///
    /// ```
    /// use sortpath::{path::IdRef, KeyPath};
    /// let path: KeyPath = "/user-7/post".parse().unwrap();
    /// let view = path.as_path_ref();
    /// let mut segments = view.segments();
    /// let user = segments.next().unwrap();
    /// assert_eq!((user.namespace(), user.id()), ("user", Some(IdRef::Int(7u64.into()))));
    /// assert_eq!(segments.next().unwrap().id(), None);
    /// assert!(segments.next().is_none());
    /// ```
    pub fn segments(self) -> Segments<'a> {
        Segments {
            bytes: self.bytes,
            walk: Walk::new(self.bytes),
        }
    }

    /// Number of components.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1/b".parse().unwrap();
    /// assert_eq!(path.as_path_ref().len(), 2);
    /// ```
    pub fn len(self) -> usize {
        binary::find_layout(self.bytes).map_or(0, |l| l.count.div_ceil(2))
    }

    /// Whether the path has no components (the encoding is the single byte `00`).
    ///
    /// ```
    /// assert!(sortpath::KeyPath::new().as_path_ref().is_empty());
    /// ```
    pub fn is_empty(self) -> bool {
        self.bytes == [binary::TERMINATOR]
    }

    /// The segment section (segments and separators, without the terminator) and the
    /// metadata.
    pub(crate) fn sections(self) -> (&'a [u8], &'a [u8]) {
        let start = binary::metadata_start(self.bytes);
        (
            self.bytes
                .get(..start.saturating_sub(1))
                .unwrap_or_default(),
            self.bytes.get(start..).unwrap_or_default(),
        )
    }

    /// The path made of components `from..to` (which the caller keeps in range): the
    /// slices of the segment section and the metadata that hold them, copied once.
    pub(crate) fn sub_path(self, from: usize, to: usize) -> KeyPath {
        let (first, last) = (2 * from, 2 * to);
        let mut span: Option<(Seg, Seg)> = None;
        for (i, seg) in Walk::new(self.bytes).enumerate().take(last) {
            if i >= first {
                span = Some((span.map_or(seg, |(f, _)| f), seg));
            }
        }
        let Some((f, l)) = span else {
            return KeyPath::new();
        };
        let segments = self
            .bytes
            .get(f.offset..l.offset + l.len)
            .unwrap_or_default();
        let metas = self.bytes.get(f.meta_start..l.meta_end).unwrap_or_default();
        KeyPath::from_valid_parts(&[segments, &[binary::TERMINATOR], metas])
    }

    /// Whether the components of `self` from index `skip` on start with those of `prefix`
    /// (a namespace-only last component of `prefix` matching that namespace with any ID),
    /// and whether they are exactly those of `prefix`.
    pub(crate) fn prefix_match(self, skip: usize, prefix: KeyPathRef<'_>) -> (bool, bool) {
        let mut mine = Walk::new(self.bytes).skip(2 * skip);
        // Both walks start at a namespace, so segments pair up namespace with namespace and
        // ID with ID; equal type and bytes is equal segment (each has one encoding).
        for p in Walk::new(prefix.bytes) {
            match mine.next() {
                Some(m)
                    if m.type_code == p.type_code
                        && m.content(self.bytes) == p.content(prefix.bytes) => {}
                _ => return (false, false),
            }
        }
        (true, mine.next().is_none())
    }

    /// Whether `prefix`'s components are the first components of `self`; a namespace-only
    /// last component of `prefix` matches that namespace with any ID.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let path: KeyPath = "/user-1/post-ab/comment-3".parse().unwrap();
    /// let prefix: KeyPath = "/user-1/post".parse().unwrap();
    /// assert!(path.as_path_ref().starts_with(prefix.as_path_ref()));
    /// ```
    pub fn starts_with(self, prefix: KeyPathRef<'_>) -> bool {
        self.prefix_match(0, prefix).0
    }
}

impl<'a> From<&'a KeyPath> for KeyPathRef<'a> {
    fn from(path: &'a KeyPath) -> KeyPathRef<'a> {
        path.as_path_ref()
    }
}

impl From<KeyPathRef<'_>> for KeyPath {
    fn from(view: KeyPathRef<'_>) -> KeyPath {
        view.to_key_path()
    }
}

impl PartialEq<KeyPath> for KeyPathRef<'_> {
    fn eq(&self, other: &KeyPath) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<KeyPathRef<'_>> for KeyPath {
    fn eq(&self, other: &KeyPathRef<'_>) -> bool {
        self.as_bytes() == other.bytes
    }
}

impl fmt::Display for KeyPathRef<'_> {
    /// The canonical text form, the same as the owned path's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::text::write_path(self.bytes, f)
    }
}

impl fmt::Debug for KeyPathRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyPathRef({self})")
    }
}

/// One `/namespace-id` step of a key path, borrowed from its encoding.
///
/// ```
/// use sortpath::{path::IdRef, KeyPath};
/// let path: KeyPath = "/user-7/post".parse().unwrap();
/// let first = path.segments().next().unwrap();
/// assert_eq!(first.namespace(), "user");
/// assert_eq!(first.id(), Some(IdRef::Int(7u64.into())));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Segment<'a> {
    namespace: &'a str,
    // The ID's type code and encoded bytes (valid for that type).
    id: Option<(u8, &'a [u8])>,
}

impl<'a> Segment<'a> {
    /// The namespace: one or more ASCII letters or `_`.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/user_profile-1".parse().unwrap();
    /// assert_eq!(path.segments().next().unwrap().namespace(), "user_profile");
    /// ```
    pub fn namespace(&self) -> &'a str {
        self.namespace
    }

    /// The ID, or `None` for a trailing namespace-only component (a prefix such as
    /// `/user-1/post`). Integers, UUIDs and strings or bytes without escaped bytes are read
    /// without allocating.
    ///
    /// ```
    /// use sortpath::path::IdRef;
    /// let path: sortpath::KeyPath = "/user-abc".parse().unwrap();
    /// assert_eq!(path.segments().next().unwrap().id(), Some(IdRef::Str("abc".into())));
    /// ```
    pub fn id(&self) -> Option<IdRef<'a>> {
        self.id
            .map(|(type_code, bytes)| IdRef::from_encoded(type_code, bytes))
    }

    /// The ID's type, or `None` without an ID (without decoding the ID).
    ///
    /// ```
    /// use sortpath::path::IdType;
    /// let path: sortpath::KeyPath = "/user-abc/post".parse().unwrap();
    /// let types: Vec<_> = path.segments().map(|s| s.id_type()).collect();
    /// assert_eq!(types, [Some(IdType::Str), None]);
    /// ```
    pub fn id_type(&self) -> Option<IdType> {
        self.id
            .and_then(|(type_code, _)| binary::id_type_of(type_code))
    }

    /// The ID's bytes as they are in the encoding (the ID segment), or `None` without an ID.
    /// Two IDs of the same type are equal exactly when these are.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/post-1234".parse().unwrap();
    /// assert_eq!(path.segments().next().unwrap().encoded_id(), Some(&[0x09, 0x04, 0xD2][..]));
    /// ```
    pub fn encoded_id(&self) -> Option<&'a [u8]> {
        self.id.map(|(_, bytes)| bytes)
    }
}

/// The [`Segment`]s of a key path, in order ([`KeyPath::segments`], [`KeyPathRef::segments`]).
///
/// ```
/// let path: sortpath::KeyPath = "/a-1/b-2".parse().unwrap();
/// assert_eq!(path.segments().count(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Segments<'a> {
    bytes: &'a [u8],
    walk: Walk<'a>,
}

impl<'a> Iterator for Segments<'a> {
    type Item = Segment<'a>;

    #[inline]
    fn next(&mut self) -> Option<Segment<'a>> {
        // Namespaces and IDs alternate, and only the last namespace may lack an ID.
        let ns = self.walk.next()?;
        let namespace = std::str::from_utf8(ns.content(self.bytes)).unwrap_or_default();
        let id = self
            .walk
            .next()
            .map(|seg| (seg.type_code, seg.content(self.bytes)));
        Some(Segment { namespace, id })
    }
}

impl std::iter::FusedIterator for Segments<'_> {}
