//! Key paths: typed, hierarchical keys such as
//! `/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234`.
//!
//! - [`KeyPath`] owns a path's canonical binary encoding: the bytes are the representation,
//!   and its order, equality and hash are the bytes'. [`KeyPathRef`] is the same borrowed
//!   (a validated `&[u8]`, read straight out of a store's buffer without allocating).
//! - Components are read as borrowed [`Segment`]s (a namespace and an optional [`IdRef`]);
//!   [`Id`] is the owned ID for building paths.
//! - `text.rs` is the text form (`FromStr`/`Display`, written from and to the bytes),
//!   `binary.rs` validation of the binary form, `view.rs` the borrowed views, `range.rs` the
//!   byte ranges for prefix and range queries ([`KeyRange`]); the format itself is specified
//!   in `docs/FORMAT.md`.
//!
//! ```
//! use sortpath::{path::IdRef, KeyPath, KeyPathRef};
//! let path: KeyPath = "/user-1/post-42".parse().unwrap();
//! let view = KeyPathRef::decode(path.as_bytes()).unwrap();
//! let ids: Vec<IdRef<'_>> = view.segments().filter_map(|s| s.id()).collect();
//! assert_eq!(ids, [IdRef::Int(1u64.into()), IdRef::Int(42u64.into())]);
//! ```

mod binary;
mod escape;
mod id;
mod namespace;
mod order;
mod parse_fast;
mod range;
#[cfg(feature = "serde")]
mod serde_impl;
mod text;
mod view;

#[cfg(test)]
mod tests;

pub use binary::{DecodeError, DecodeErrorKind, SegmentSpan};

/// The key path format's named bytes (also at [`crate::consts::path`]).
pub mod consts {
    pub use super::binary::{
        SEPARATOR, TERMINATOR, TYPE_BITS, TYPE_BYTES, TYPE_INT, TYPE_NAMESPACE, TYPE_STRING,
        TYPE_UUID,
    };
    pub use super::escape::{
        BYTES_MARKER, BYTES_PREFIX, EMPTY_STRING, ESCAPE, ESCAPE_MAX_RAW, ESCAPE_OFFSET,
    };
}
pub use id::{Id, IdRef, IdType};
pub use range::KeyRange;
pub use text::{ParseError, ParseErrorKind};
pub use view::{KeyPathRef, Segment, Segments};

use std::convert::Infallible;

use crate::int::IntRangeError;
use binary::{encode_id, encode_varint, id_type_code, meta, SEPARATOR, TERMINATOR, TYPE_NAMESPACE};

/// A problem building a key path in code.
///
/// ```
/// let err = sortpath::KeyPath::new().push("bad-name", 1u64).unwrap_err();
/// assert!(err.to_string().contains("namespace"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The namespace is empty or has a character other than an ASCII letter or `_`.
    #[error("invalid namespace {namespace:?}: expected one or more ASCII letters or '_'")]
    InvalidNamespace {
        /// The rejected namespace.
        namespace: String,
    },
    /// An integer ID outside `-(2^64-1) ..= 2^64-1`.
    #[error(transparent)]
    IntRange(#[from] IntRangeError),
    /// A component was added after a namespace-only component; only the last may lack an ID.
    #[error("cannot add /{namespace} after the namespace-only component /{previous}: only the last component may lack an ID")]
    IdRequired {
        /// The namespace-only component.
        previous: String,
        /// The namespace being added.
        namespace: String,
    },
    /// The operation needs a first component with an ID (the group key) and the path has none.
    #[error("key path {path:?} has no group key: its first component needs an ID")]
    NoGroupKey {
        /// The path in text form.
        path: String,
    },
}

impl From<Infallible> for PathError {
    fn from(never: Infallible) -> PathError {
        match never {}
    }
}

/// A typed, hierarchical key: `/namespace-id/namespace-id/...`.
///
/// A `KeyPath` is its binary encoding ([`KeyPath::as_bytes`]): building, parsing and
/// decoding write or check those bytes once, and encoding, comparing and hashing use them as
/// they are. Its order ([`Ord`]) is the byte order of the encoding, which is the logical
/// order: component by component, namespaces by UTF-8 bytes, a component without ID before
/// the same namespace with any ID, integers numerically before strings, strings by UTF-8
/// bytes, byte IDs bytewise after strings, and a path before every path that extends it.
/// The full rules, including UUIDs, are in `docs/FORMAT.md`.
///
/// ```
/// use sortpath::KeyPath;
/// let a: KeyPath = "/user-1/post-9".parse().unwrap();
/// let b: KeyPath = "/user-1/post-42".parse().unwrap();
/// let c: KeyPath = "/user-1/post-100".parse().unwrap();
/// assert!(a < b && b < c);
/// assert!(a.as_bytes() < b.as_bytes() && b.as_bytes() < c.as_bytes());
///
/// let built = KeyPath::new().push("user", 1u64)?.push("post", 42i64)?;
/// assert_eq!(built, b);
/// assert_eq!(built.to_string(), "/user-1/post-42");
/// # Ok::<(), sortpath::path::PathError>(())
/// ```
///
/// The empty path (`KeyPath::new()`, text `/`, the single byte `00`) has no components. It
/// is not a key of its own: it is the sort-key part of a group's root item (see
/// [`KeyPath::split_group`]) and the starting point of the builder.
#[derive(Clone)]
pub struct KeyPath {
    // Invariant: one canonical encoding (see `binary::validate`).
    repr: Repr,
}

/// Longest encoding a [`KeyPath`] holds inline, without a heap allocation: group keys and
/// most item keys under a group (`/user-1/post-1234` is 21 bytes), while a `KeyPath` stays
/// 32 bytes. Inline or not is not part of a path's value: equality, order and hash are the
/// bytes'.
pub(crate) const INLINE: usize = 30;

/// A path's bytes: inline when short, else on the heap.
#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Vec<u8>),
}

impl PartialEq for KeyPath {
    fn eq(&self, other: &KeyPath) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for KeyPath {}

impl PartialOrd for KeyPath {
    fn partial_cmp(&self, other: &KeyPath) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KeyPath {
    /// The byte order of the encodings, which is the logical order (`docs/FORMAT.md`).
    #[inline]
    fn cmp(&self, other: &KeyPath) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl std::hash::Hash for KeyPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl Default for KeyPath {
    fn default() -> KeyPath {
        KeyPath::new()
    }
}

/// Checks the namespace rule: one or more ASCII letters or `_`.
pub(crate) fn is_valid_namespace(namespace: &str) -> bool {
    namespace::is_valid(namespace.as_bytes())
}

/// Copies `src` into `dst` (of the same length) as at most two overlapping fixed-size
/// moves: the parts of a path held inline are a few bytes each, and a call to `memcpy`
/// (or a loop over the bytes) for each costs more than the copy itself.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    #[inline(always)]
    fn two<const N: usize>(dst: &mut [u8], src: &[u8]) {
        // `N <= len <= 2N`: the first N bytes and the last N bytes cover all of them.
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<N>(), src.first_chunk::<N>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<N>(), src.last_chunk::<N>()) {
            *d = *s;
        }
    }
    debug_assert_eq!(dst.len(), src.len());
    match src.len() {
        0 => {}
        1 => {
            if let (Some(d), Some(&s)) = (dst.first_mut(), src.first()) {
                *d = s;
            }
        }
        2..=3 => two::<2>(dst, src),
        4..=7 => two::<4>(dst, src),
        8..=15 => two::<8>(dst, src),
        16..=32 => two::<16>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// The path `head` followed by the components of `tail` (both valid encodings, `head` not
/// ending in a namespace-only component unless `tail` is empty).
fn concat(head: KeyPathRef<'_>, tail: KeyPathRef<'_>) -> KeyPath {
    if tail.is_empty() || head.is_empty() {
        let whole = if tail.is_empty() { head } else { tail };
        return whole.to_key_path();
    }
    let (head_segments, head_metas) = head.sections();
    let (tail_segments, tail_metas) = tail.sections();
    KeyPath::from_valid_parts(&[
        head_segments,
        &[SEPARATOR],
        tail_segments,
        &[TERMINATOR],
        head_metas,
        tail_metas,
    ])
}

impl KeyPath {
    /// The empty path, to build on with [`KeyPath::push`].
    ///
    /// ```
    /// assert!(sortpath::KeyPath::new().is_empty());
    /// ```
    pub fn new() -> KeyPath {
        KeyPath::from_valid_slice(&[TERMINATOR])
    }

    /// The path whose encoding is `bytes`, which the caller has made or validated.
    pub(crate) fn from_valid(bytes: Vec<u8>) -> KeyPath {
        debug_assert!(binary::validate(&bytes).is_ok(), "{bytes:02x?}");
        KeyPath {
            repr: Repr::Heap(bytes),
        }
    }

    /// The path whose encoding is the concatenation of `parts`, which the caller has made
    /// valid: written inline when short enough (no allocation), else to the heap.
    #[inline]
    pub(crate) fn from_valid_parts(parts: &[&[u8]]) -> KeyPath {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let repr = match u8::try_from(total) {
            Ok(len) if total <= INLINE => {
                let mut inline = [0u8; INLINE];
                let mut at = 0;
                for part in parts {
                    // `total` fits, so every part does.
                    if let Some(slot) = inline.get_mut(at..at + part.len()) {
                        copy_short(slot, part);
                    }
                    at += part.len();
                }
                Repr::Inline { len, bytes: inline }
            }
            _ => {
                let mut heap = Vec::with_capacity(total);
                for part in parts {
                    heap.extend_from_slice(part);
                }
                Repr::Heap(heap)
            }
        };
        let path = KeyPath { repr };
        debug_assert!(binary::validate(path.as_bytes()).is_ok(), "{path:?}");
        path
    }

    /// The path whose encoding is `bytes`, which the caller has validated: copied inline
    /// when short enough, else to the heap.
    #[inline]
    pub(crate) fn from_valid_slice(bytes: &[u8]) -> KeyPath {
        debug_assert!(binary::validate(bytes).is_ok(), "{bytes:02x?}");
        let repr = match u8::try_from(bytes.len()) {
            Ok(len) if bytes.len() <= INLINE => {
                let mut inline = [0u8; INLINE];
                inline[..bytes.len()].copy_from_slice(bytes);
                Repr::Inline { len, bytes: inline }
            }
            _ => Repr::Heap(bytes.to_vec()),
        };
        KeyPath { repr }
    }

    /// Appends `/namespace-id`. The ID may be any integer type in range, `&str`/`String`,
    /// a byte slice or `Vec<u8>`, a `uuid::Uuid`, an [`crate::I65`] or an [`Id`].
    ///
    /// ```
    /// # #[cfg(feature = "uuid")] {
    /// use sortpath::KeyPath;
    /// let uuid = uuid::Uuid::parse_str("4c9d36e5-6b19-4e6a-828c-226ed667458a").unwrap();
    /// let path = KeyPath::new()
    ///     .push("user", uuid)?
    ///     .push("post", 1234u64)?
    ///     .push("tag", "rust")?
    ///     .push("blob", &b"\x00\x01"[..])?
    ///     .push("delta", -17i128)?;
    /// assert_eq!(
    ///     path.to_string(),
    ///     "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/tag-rust/blob-~AAE/delta--17"
    /// );
    /// # }
    /// # Ok::<(), sortpath::path::PathError>(())
    /// ```
    pub fn push<T>(mut self, namespace: &str, id: T) -> Result<KeyPath, PathError>
    where
        T: TryInto<Id>,
        PathError: From<T::Error>,
    {
        let id = id.try_into()?;
        self.push_component(namespace, Some(&id))?;
        Ok(self)
    }

    /// Appends a namespace-only component, `/namespace`, which must stay the last one.
    /// Such a path names all IDs of that namespace under its parent, as a query prefix.
    ///
    /// ```
    /// let posts = sortpath::KeyPath::new().push("user", 1u64)?.push_namespace("post")?;
    /// assert_eq!(posts.to_string(), "/user-1/post");
    /// # Ok::<(), sortpath::path::PathError>(())
    /// ```
    pub fn push_namespace(mut self, namespace: &str) -> Result<KeyPath, PathError> {
        self.push_component(namespace, None)?;
        Ok(self)
    }

    fn push_component(&mut self, namespace: &str, id: Option<&Id>) -> Result<(), PathError> {
        if !is_valid_namespace(namespace) {
            return Err(PathError::InvalidNamespace {
                namespace: namespace.to_owned(),
            });
        }
        let view = self.as_path_ref();
        if let Some(last) = view.segments().last() {
            if last.id().is_none() {
                return Err(PathError::IdRequired {
                    previous: last.namespace().to_owned(),
                    namespace: namespace.to_owned(),
                });
            }
        }
        let (segments, metas) = view.sections();
        let mut out = Vec::with_capacity(self.as_bytes().len() + namespace.len() + 16);
        out.extend_from_slice(segments);
        if !segments.is_empty() {
            out.push(SEPARATOR);
        }
        out.extend_from_slice(namespace.as_bytes());
        let id_meta = id.map(|id| {
            out.push(SEPARATOR);
            let start = out.len();
            encode_id(id, &mut out);
            meta(out.len() - start, id_type_code(id))
        });
        out.push(TERMINATOR);
        out.extend_from_slice(metas);
        encode_varint(meta(namespace.len(), TYPE_NAMESPACE), &mut out);
        if let Some(m) = id_meta {
            encode_varint(m, &mut out);
        }
        *self = KeyPath::from_valid_slice(&out);
        Ok(())
    }

    /// The borrowed view of this path (free: it borrows the bytes).
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1".parse().unwrap();
    /// assert_eq!(path.as_path_ref().to_string(), "/a-1");
    /// ```
    pub fn as_path_ref(&self) -> KeyPathRef<'_> {
        KeyPathRef::new_valid(self.as_bytes())
    }

    /// The components in order, as borrowed [`Segment`]s.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1/b-2".parse().unwrap();
    /// let names: Vec<_> = path.segments().map(|s| s.namespace()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    pub fn segments(&self) -> Segments<'_> {
        self.as_path_ref().segments()
    }

    /// Number of components.
    ///
    /// ```
    /// assert_eq!("/a-1/b-2".parse::<sortpath::KeyPath>().unwrap().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.as_path_ref().len()
    }

    /// Whether the path has no components.
    ///
    /// ```
    /// assert!("/".parse::<sortpath::KeyPath>().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.as_path_ref().is_empty()
    }

    /// The path without its last component, or `None` for the empty path.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/user-1/post-2".parse().unwrap();
    /// assert_eq!(path.parent().unwrap().to_string(), "/user-1");
    /// ```
    pub fn parent(&self) -> Option<KeyPath> {
        let n = self.len().checked_sub(1)?;
        Some(self.as_path_ref().sub_path(0, n))
    }

    /// The first `n` components and the rest, as two paths (both always valid: only a
    /// path's last component may lack an ID, and it stays last), or `None` if the path has
    /// fewer than `n` components. The inverse of [`KeyPath::join`].
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/user-1/post-2/comment".parse().unwrap();
    /// let (head, tail) = path.split_at(1).unwrap();
    /// assert_eq!((head.to_string(), tail.to_string()), ("/user-1".into(), "/post-2/comment".into()));
    /// assert_eq!(head.join(&tail).unwrap(), path);
    /// assert!(path.split_at(4).is_none());
    /// ```
    pub fn split_at(&self, n: usize) -> Option<(KeyPath, KeyPath)> {
        let len = self.len();
        if n > len {
            return None;
        }
        let view = self.as_path_ref();
        Some((view.sub_path(0, n), view.sub_path(n, len)))
    }

    /// `self` followed by the components of `tail`: `/user-1` joined with `/post-2` is
    /// `/user-1/post-2`. Fails when `self` ends in a namespace-only component and `tail` is
    /// not empty (only the last component may lack an ID).
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let user: KeyPath = "/user-1".parse()?;
    /// let joined = user.join(&"/post-2/comment".parse()?)?;
    /// assert_eq!(joined.to_string(), "/user-1/post-2/comment");
    /// assert!("/user".parse::<KeyPath>()?.join(&joined).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn join(&self, tail: &KeyPath) -> Result<KeyPath, PathError> {
        if let (Some(last), Some(next)) = (self.segments().last(), tail.segments().next()) {
            if last.id().is_none() {
                return Err(PathError::IdRequired {
                    previous: last.namespace().to_owned(),
                    namespace: next.namespace().to_owned(),
                });
            }
        }
        Ok(concat(self.as_path_ref(), tail.as_path_ref()))
    }

    /// Whether `prefix`'s components are the first components of `self` (every path starts
    /// with itself and with the empty path). A namespace-only last component of `prefix`
    /// matches that namespace with any ID.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let path: KeyPath = "/user-1/post-ab/comment-3".parse().unwrap();
    /// assert!(path.starts_with(&"/user-1/post-ab".parse().unwrap()));
    /// assert!(path.starts_with(&"/user-1/post".parse().unwrap()));
    /// assert!(!path.starts_with(&"/user-1/post-a".parse().unwrap()));
    /// ```
    pub fn starts_with(&self, prefix: &KeyPath) -> bool {
        self.as_path_ref().starts_with(prefix.as_path_ref())
    }

    /// Splits into the group (partition) key and the sort key, as two encodings: the first
    /// component, which must have an ID, and the rest. Both are non-empty and each is a
    /// valid encoding on its own; a root item's sort key is the empty path, one byte `00`,
    /// which sorts before every child in the group.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let path: KeyPath = "/user-1/post-2".parse().unwrap();
    /// let (group, sort) = path.split_group()?;
    /// assert_eq!(KeyPath::decode(&group).unwrap().to_string(), "/user-1");
    /// assert_eq!(KeyPath::decode(&sort).unwrap().to_string(), "/post-2");
    /// assert_eq!(KeyPath::from_group(&group, &sort).unwrap(), path);
    ///
    /// let (_, root_sort) = "/user-1".parse::<KeyPath>().unwrap().split_group()?;
    /// assert_eq!(root_sort, [0x00]);
    /// # Ok::<(), sortpath::path::PathError>(())
    /// ```
    pub fn split_group(&self) -> Result<(Vec<u8>, Vec<u8>), PathError> {
        // One walk over the segments, each part copied once: the slices `split_group_paths` makes
        // paths of (a property test checks that both agree).
        let bytes = self.as_bytes();
        let metadata_start = binary::find_layout(bytes).map_or(bytes.len(), |l| l.metadata_start);
        let mut walk = binary::Walk::with_layout(bytes, metadata_start);
        let (Some(ns), Some(id)) = (walk.next(), walk.next()) else {
            return Err(self.no_group_key());
        };
        if binary::id_type_of(id.type_code).is_none() {
            return Err(self.no_group_key());
        }
        let part = |segments: std::ops::Range<usize>, metas: std::ops::Range<usize>| {
            let segments = bytes.get(segments).unwrap_or_default();
            let metas = bytes.get(metas).unwrap_or_default();
            let mut out = Vec::with_capacity(segments.len() + 1 + metas.len());
            out.extend_from_slice(segments);
            out.push(TERMINATOR);
            out.extend_from_slice(metas);
            out
        };
        let group = part(ns.offset..id.offset + id.len, ns.meta_start..id.meta_end);
        let sort = match walk.next() {
            // The rest runs to the terminator (the byte before the metadata) and to the end.
            Some(first) => part(
                first.offset..metadata_start.saturating_sub(1),
                first.meta_start..bytes.len(),
            ),
            None => vec![TERMINATOR],
        };
        Ok((group, sort))
    }

    /// Like [`KeyPath::split_group`], as paths: the first component and the rest.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/user-1/post-2".parse().unwrap();
    /// let (group, rest) = path.split_group_paths()?;
    /// assert_eq!((group.to_string(), rest.to_string()), ("/user-1".into(), "/post-2".into()));
    /// # Ok::<(), sortpath::path::PathError>(())
    /// ```
    pub fn split_group_paths(&self) -> Result<(KeyPath, KeyPath), PathError> {
        match self.segments().next() {
            Some(first) if first.id_type().is_some() => {
                let view = self.as_path_ref();
                Ok((view.sub_path(0, 1), view.sub_path(1, view.len())))
            }
            _ => Err(self.no_group_key()),
        }
    }

    #[cold]
    fn no_group_key(&self) -> PathError {
        PathError::NoGroupKey {
            path: self.to_string(),
        }
    }

    /// Joins a group key and a sort key (as made by [`KeyPath::split_group`]) into one path.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let joined = KeyPath::from_group(&[0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x11], &[0x00]).unwrap();
    /// assert_eq!(joined.to_string(), "/a-1");
    /// ```
    pub fn from_group(group: &[u8], sort: &[u8]) -> Result<KeyPath, DecodeError> {
        KeyPath::from_group_ref(KeyPathRef::decode(group)?, sort)
    }

    /// Like [`KeyPath::from_group`], with the group key already decoded: validates the sort
    /// key and copies both into one allocation, which is what listing many keys of one group
    /// needs.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let group: KeyPath = "/user-1".parse().unwrap();
    /// let path: KeyPath = "/user-1/post-2".parse().unwrap();
    /// let (_, sort) = path.split_group().unwrap();
    /// assert_eq!(KeyPath::from_group_path(&group, &sort).unwrap(), path);
    /// assert!(KeyPath::from_group_path(&"/a".parse().unwrap(), &sort).is_err());
    /// ```
    pub fn from_group_path(group: &KeyPath, sort: &[u8]) -> Result<KeyPath, DecodeError> {
        match KeyPath::join_short_group(group, sort) {
            Some(path) => Ok(path),
            None => KeyPath::from_group_ref(group.as_path_ref(), sort),
        }
    }

    /// [`KeyPath::from_group_path`] for its commonest case, the one a store list takes for
    /// every item: a group held inline whose two segments are shorter than 16 bytes, and a
    /// sort key of one such component, which together fit inline. `None` for anything else
    /// (including every invalid sort key), which the general path then decides and reports.
    ///
    /// The group is `gs 00 a b` (its segments, the terminator, two one-byte metadata
    /// varints) and the sort key `ss 00 c d`; the path is `gs 01 ss 00 a b c d`, exactly as
    /// long as both together. It is written as three fixed-size moves: the group's whole
    /// inline array, the sort key after the group's segments and the separator, and the
    /// four metadata bytes over the end.
    #[inline]
    fn join_short_group(group: &KeyPath, sort: &[u8]) -> Option<KeyPath> {
        let Repr::Inline { len, bytes } = &group.repr else {
            return None;
        };
        let group_len = usize::from(*len);
        let [.., TERMINATOR, a, b] = *bytes.get(..group_len)? else {
            return None;
        };
        // Two one-byte varints that account for every byte of a valid encoding are its
        // whole layout: two segments, a namespace and an ID (only one count fits).
        if (a | b) & 0x80 != 0 || usize::from(a >> 3) + usize::from(b >> 3) + 4 != group_len {
            return None;
        }
        let total = group_len + sort.len();
        if total > INLINE {
            return None;
        }
        // Validates the sort key (`ss 00 c d`, one component); `None` sends anything else,
        // valid or not, to the general path.
        binary::one_component(sort)?;
        let [.., c, d] = *sort else {
            return None;
        };
        let mut out = *bytes;
        let at = group_len - 3;
        *out.get_mut(at)? = SEPARATOR;
        copy_short(out.get_mut(at + 1..total - 4)?, sort.get(..sort.len() - 2)?);
        *out.get_mut(total - 4..total)?.first_chunk_mut::<4>()? = [a, b, c, d];
        let path = KeyPath {
            repr: Repr::Inline {
                len: total as u8,
                bytes: out,
            },
        };
        debug_assert!(binary::validate(path.as_bytes()).is_ok(), "{path:?}");
        Some(path)
    }

    fn from_group_ref(group: KeyPathRef<'_>, sort: &[u8]) -> Result<KeyPath, DecodeError> {
        let group = group.as_bytes();
        // One component with an ID is two segments (a valid encoding alternates them).
        // The group is valid: only its segment count is in question, and two one-byte
        // metadata varints that account for every byte are its whole layout (there is only
        // one count that fits).
        let group_layout = match group {
            [.., TERMINATOR, a, b]
                if (a | b) & 0x80 == 0
                    && usize::from(a >> 3) + usize::from(b >> 3) + 4 == group.len() =>
            {
                binary::Layout {
                    count: 2,
                    metadata_start: group.len() - 2,
                }
            }
            _ => match binary::find_layout(group) {
                Ok(layout) if layout.count == 2 => layout,
                _ => return Err(DecodeError::new(0, DecodeErrorKind::NotAGroupKey)),
            },
        };
        let sort_layout = match binary::one_component(sort) {
            Some(layout) => layout,
            // Out of line: the one-component reader above takes the common sort keys.
            None => binary::validate_outlined(sort)?,
        };
        if sort_layout.count == 0 {
            return Ok(KeyPath::from_valid_slice(group));
        }
        let (g, s) = (group_layout.metadata_start, sort_layout.metadata_start);
        let (Some(group_segments), Some(sort_segments)) = (group.get(..g - 1), sort.get(..s - 1))
        else {
            return Err(DecodeError::new(0, DecodeErrorKind::NotAGroupKey));
        };
        Ok(KeyPath::from_valid_parts(&[
            group_segments,
            &[SEPARATOR],
            sort_segments,
            &[TERMINATOR],
            &group[g..],
            &sort[s..],
        ]))
    }

    /// The binary form: the bytes the path holds (free).
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/post-1234".parse().unwrap();
    /// assert_eq!(path.as_bytes(), [0x70, 0x6F, 0x73, 0x74, 0x01, 0x09, 0x04, 0xD2, 0x00, 0x20, 0x19]);
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.repr {
            Repr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Repr::Heap(bytes) => bytes,
        }
    }

    /// The binary form as a vector (without a copy when the path is held on the heap).
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1".parse().unwrap();
    /// assert_eq!(path.clone().into_bytes(), path.encode());
    /// ```
    pub fn into_bytes(self) -> Vec<u8> {
        match self.repr {
            Repr::Inline { len, bytes } => bytes[..usize::from(len)].to_vec(),
            Repr::Heap(bytes) => bytes,
        }
    }

    /// The binary form as a new vector (one allocation). Its byte order is the order of
    /// [`KeyPath`].
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/post-1234".parse().unwrap();
    /// assert_eq!(path.encode(), [0x70, 0x6F, 0x73, 0x74, 0x01, 0x09, 0x04, 0xD2, 0x00, 0x20, 0x19]);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }

    /// Appends the binary form to `out` (one copy); allocates nothing when `out` has the
    /// capacity.
    ///
    /// ```
    /// let path: sortpath::KeyPath = "/a-1".parse().unwrap();
    /// let mut buf = Vec::with_capacity(64);
    /// path.encode_into(&mut buf);
    /// assert_eq!(buf, path.encode());
    /// ```
    #[inline]
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
    }

    /// Length of the binary form in bytes.
    ///
    /// ```
    /// let path: sortpath::KeyPath =
    ///     "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42"
    ///         .parse()
    ///         .unwrap();
    /// assert_eq!(path.encoded_len(), 63);
    /// ```
    pub fn encoded_len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Decodes a binary form (the whole input): checks it in one pass and copies it once.
    /// Only canonical encodings decode, so whatever decodes re-encodes to the same bytes;
    /// arbitrary bytes give an error, never a panic.
    ///
    /// ```
    /// use sortpath::KeyPath;
    /// let path: KeyPath = "/user-1/post-hello/blob-~AAE".parse().unwrap();
    /// assert_eq!(KeyPath::decode(&path.encode()).unwrap(), path);
    /// assert!(KeyPath::decode(b"not a key").is_err());
    /// ```
    pub fn decode(bytes: &[u8]) -> Result<KeyPath, DecodeError> {
        binary::validate(bytes)?;
        Ok(KeyPath::from_valid_slice(bytes))
    }
}

impl AsRef<[u8]> for KeyPath {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl std::fmt::Debug for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyPath({self})")
    }
}
