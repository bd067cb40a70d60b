//! Byte ranges for prefix and range queries: of key path encodings, and of any keys that
//! share a byte prefix (the codec's tuple prefixes, [`KeyRange::from_prefix`]).
//!
//! Every range is half-open, `start <= key < end`, over full encodings (or over sort keys,
//! when built from the sort-key part of a path; see [`KeyPath::split_group`]). Because the
//! byte order is the logical order and string/byte IDs are escaped, a prefix range holds
//! exactly the paths that logically match: `/post-ab` does not match `/post-abc`, and a string
//! ID with a NUL byte does not leak into another ID's children.
//!
//! The one exception is a position where UUID IDs and IDs of other types both occur: a UUID
//! is stored as its raw 16 bytes, so a UUID whose bytes begin with another ID's encoding
//! followed by `00` or `01` falls inside that ID's byte range. [`KeyRange::matches`] filters
//! such keys out of prefix ranges exactly; `sortpath-store` applies it (as
//! [`KeyRange::matches_after`], on whole paths of a group) to every listed key when the key
//! or the query has a UUID ID, and only then, since without UUIDs the byte range is exact.
//! For [`KeyRange::between`] at such a position no order of IDs agrees with the bytes, so a
//! UUID against a non-UUID bound matches exactly when its key is inside the byte range: a
//! UUID whose bytes begin with the bound's encoding followed by `00` or `01` counts as that
//! ID (outside `Excluded(x)`, inside `Included(x)`). [`KeyRange::between_paths`] compares
//! whole paths instead, so for such a key the two can differ.

use std::borrow::Cow;
use std::ops::{Bound, RangeBounds};

use super::binary::{encode_id, SEPARATOR, TERMINATOR};
use super::id::{Id, IdType};
use super::{KeyPath, KeyPathRef};

/// First byte after every encoding that starts with a given segment section: a segment
/// section is followed by [`TERMINATOR`] (`00`) or [`SEPARATOR`] (`01`), so `02` ends it.
const AFTER_SEPARATOR: u8 = SEPARATOR + 1;

/// Whether comparing an ID (a UUID or not) with a bound pits a UUID against another ID type.
fn mixes_uuid(is_uuid: bool, lower: &Bound<Id>, upper: &Bound<Id>) -> bool {
    [lower, upper].iter().any(|b| match b {
        Bound::Included(x) | Bound::Excluded(x) => matches!(x, Id::Uuid(_)) != is_uuid,
        Bound::Unbounded => false,
    })
}

/// A bound on IDs as a bound on their encoded segments (for IDs that are not a UUID
/// against a non-UUID, the order of the segments is the order of the IDs).
fn encoded_bound(bound: &Bound<Id>) -> Bound<Vec<u8>> {
    let encode = |id: &Id| {
        let mut out = Vec::new();
        encode_id(id, &mut out);
        out
    };
    match bound {
        Bound::Included(id) => Bound::Included(encode(id)),
        Bound::Excluded(id) => Bound::Excluded(encode(id)),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// What a range selects, for [`KeyRange::matches`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Select {
    Subtree(KeyPath),
    Descendants(KeyPath),
    Children {
        parent: KeyPath,
        namespace: String,
        lower: Bound<Id>,
        upper: Bound<Id>,
        lower_segment: Bound<Vec<u8>>,
        upper_segment: Bound<Vec<u8>>,
    },
    Paths(Bound<KeyPath>, Bound<KeyPath>),
    /// Every key starting with the range's start ([`KeyRange::from_prefix`]).
    Prefix,
}

/// A half-open byte range `start <= key < end` of encoded key paths (`end` of `None` is
/// unbounded), and the logical selection it stands for.
///
/// ```
/// use sortpath::{KeyPath, KeyRange};
/// let range = KeyRange::subtree(&"/user-1/post-ab".parse().unwrap());
/// let inside: KeyPath = "/user-1/post-ab/comment-7".parse().unwrap();
/// let sibling: KeyPath = "/user-1/post-abc".parse().unwrap();
/// assert!(range.contains(&inside.encode()));
/// assert!(!range.contains(&sibling.encode()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    start: Vec<u8>,
    end: Option<Vec<u8>>,
    select: Select,
}

/// The segment section of `path`: its encoding up to the terminator.
fn segments(path: &KeyPath) -> Vec<u8> {
    path.as_path_ref().sections().0.to_vec()
}

fn with(mut bytes: Vec<u8>, tail: &[u8]) -> Vec<u8> {
    bytes.extend_from_slice(tail);
    bytes
}

impl KeyRange {
    /// The path and everything under it. For a path ending in a namespace-only component
    /// (`/user-1/post`) that is every ID of that namespace under the parent, with their
    /// descendants. For the empty path, everything.
    ///
    /// ```
    /// use sortpath::{KeyPath, KeyRange};
    /// let posts = KeyRange::subtree(&"/user-1/post".parse().unwrap());
    /// assert!(posts.contains(&"/user-1/post-9".parse::<KeyPath>().unwrap().encode()));
    /// assert!(!posts.contains(&"/user-1/posts-9".parse::<KeyPath>().unwrap().encode()));
    /// ```
    pub fn subtree(path: &KeyPath) -> KeyRange {
        let (start, end) = if path.is_empty() {
            (vec![TERMINATOR], None)
        } else {
            let s = segments(path);
            (
                with(s.clone(), &[TERMINATOR]),
                Some(with(s, &[AFTER_SEPARATOR])),
            )
        };
        KeyRange {
            start,
            end,
            select: Select::Subtree(path.clone()),
        }
    }

    /// Everything under the path, without the path itself.
    ///
    /// ```
    /// use sortpath::{KeyPath, KeyRange};
    /// let post: KeyPath = "/user-1/post-2".parse().unwrap();
    /// let range = KeyRange::descendants(&post);
    /// assert!(!range.contains(&post.encode()));
    /// assert!(range.contains(&"/user-1/post-2/comment-3".parse::<KeyPath>().unwrap().encode()));
    /// ```
    pub fn descendants(path: &KeyPath) -> KeyRange {
        let (start, end) = if path.is_empty() {
            (vec![SEPARATOR], None)
        } else {
            let s = segments(path);
            (
                with(s.clone(), &[SEPARATOR]),
                Some(with(s, &[AFTER_SEPARATOR])),
            )
        };
        KeyRange {
            start,
            end,
            select: Select::Descendants(path.clone()),
        }
    }

    /// Every ID of `namespace` directly under `parent`, with their descendants: the same as
    /// [`KeyRange::subtree`] of `parent/namespace` without the namespace-only item itself.
    ///
    /// ```
    /// use sortpath::{KeyPath, KeyRange};
    /// let parent: KeyPath = "/user-1".parse().unwrap();
    /// let range = KeyRange::children(&parent, "post");
    /// assert!(range.contains(&"/user-1/post-x".parse::<KeyPath>().unwrap().encode()));
    /// assert!(!range.contains(&"/user-1/photo-x".parse::<KeyPath>().unwrap().encode()));
    /// ```
    pub fn children(parent: &KeyPath, namespace: &str) -> KeyRange {
        KeyRange::between(parent, namespace, Bound::Unbounded, Bound::Unbounded)
    }

    /// IDs of `namespace` directly under `parent` whose ID is within the bounds, each with
    /// its descendants. An `Included` upper bound includes that ID's descendants; an
    /// `Excluded` lower bound excludes them.
    ///
    /// ```
    /// use std::ops::{Bound, RangeBounds};
    /// use sortpath::{Id, KeyPath, KeyRange};
    /// let parent: KeyPath = "/user-1".parse().unwrap();
    /// let range = KeyRange::between(&parent, "post", Bound::Included(Id::from(10u64)), Bound::Excluded(Id::from(100u64)));
    /// let key = |t: &str| t.parse::<KeyPath>().unwrap().encode();
    /// assert!(range.contains(&key("/user-1/post-42")));
    /// assert!(range.contains(&key("/user-1/post-10/comment-1")));
    /// assert!(!range.contains(&key("/user-1/post-100")));
    /// assert!(!range.contains(&key("/user-1/post-9")));
    /// ```
    pub fn between(
        parent: &KeyPath,
        namespace: &str,
        lower: Bound<Id>,
        upper: Bound<Id>,
    ) -> KeyRange {
        let mut base = segments(parent);
        if !parent.is_empty() {
            base.push(SEPARATOR);
        }
        base.extend_from_slice(namespace.as_bytes());
        let id_key = |id: &Id, tail: u8| {
            let mut key = with(base.clone(), &[SEPARATOR]);
            encode_id(id, &mut key);
            key.push(tail);
            key
        };
        let start = match &lower {
            Bound::Included(id) => id_key(id, TERMINATOR),
            Bound::Excluded(id) => id_key(id, AFTER_SEPARATOR),
            Bound::Unbounded => with(base.clone(), &[SEPARATOR]),
        };
        let end = match &upper {
            Bound::Included(id) => id_key(id, AFTER_SEPARATOR),
            Bound::Excluded(id) => id_key(id, TERMINATOR),
            Bound::Unbounded => with(base.clone(), &[AFTER_SEPARATOR]),
        };
        KeyRange {
            start,
            end: Some(end),
            select: Select::Children {
                parent: parent.clone(),
                namespace: namespace.to_owned(),
                lower_segment: encoded_bound(&lower),
                upper_segment: encoded_bound(&upper),
                lower,
                upper,
            },
        }
    }

    /// Paths between two paths in key order (`Excluded(p)` as a lower bound still includes
    /// p's descendants, which sort after p).
    ///
    /// ```
    /// use std::ops::{Bound, RangeBounds};
    /// use sortpath::{KeyPath, KeyRange};
    /// let p = |t: &str| t.parse::<KeyPath>().unwrap();
    /// let range = KeyRange::between_paths(Bound::Excluded(p("/a-1")), Bound::Included(p("/a-5")));
    /// assert!(!range.contains(&p("/a-1").encode()));
    /// assert!(range.contains(&p("/a-1/b-1").encode()));
    /// assert!(range.contains(&p("/a-5").encode()));
    /// assert!(!range.contains(&p("/a-5/b-1").encode()));
    /// ```
    pub fn between_paths(lower: Bound<KeyPath>, upper: Bound<KeyPath>) -> KeyRange {
        let start = match &lower {
            Bound::Included(p) => p.encode(),
            Bound::Excluded(p) => with(p.encode(), &[0]),
            Bound::Unbounded => Vec::new(),
        };
        let end = match &upper {
            Bound::Included(p) => Some(with(p.encode(), &[0])),
            Bound::Excluded(p) => Some(p.encode()),
            Bound::Unbounded => None,
        };
        KeyRange {
            start,
            end,
            select: Select::Paths(lower, upper),
        }
    }

    /// The range of all keys starting with the bytes `prefix`: `start` is the prefix itself,
    /// `end` the smallest byte string above every extension of it (`None` when there is
    /// none: the prefix is empty or all `0xFF`). The codec's
    /// [`prefix_range`](crate::codec::prefix_range) is this range of an encoded tuple prefix;
    /// [`KeyRange::matches`] of such a range is [`KeyRange::contains`] of the path's
    /// encoding.
    ///
    /// ```
    /// let r = sortpath::KeyRange::from_prefix(vec![0x61, 0xFF]);
    /// assert_eq!(r.start(), [0x61, 0xFF]);
    /// assert_eq!(r.end(), Some(&[0x62][..]));
    /// assert!(r.contains(&[0x61, 0xFF, 0x00]) && !r.contains(&[0x62]));
    /// assert_eq!(sortpath::KeyRange::from_prefix(vec![0xFF]).end(), None);
    /// ```
    pub fn from_prefix(prefix: Vec<u8>) -> KeyRange {
        let end = prefix.iter().rposition(|&b| b != 0xFF).map(|i| {
            let mut end = prefix[..=i].to_vec();
            end[i] += 1;
            end
        });
        KeyRange {
            start: prefix,
            end,
            select: Select::Prefix,
        }
    }

    /// Inclusive start of the range.
    ///
    /// ```
    /// let range = sortpath::KeyRange::subtree(&sortpath::KeyPath::new());
    /// assert_eq!(range.start(), [0x00]);
    /// ```
    pub fn start(&self) -> &[u8] {
        &self.start
    }

    /// Exclusive end of the range, or `None` when unbounded.
    ///
    /// ```
    /// let range = sortpath::KeyRange::subtree(&"/a-1".parse().unwrap());
    /// assert_eq!(range.end(), Some(&[0x61, 0x01, 0x08, 0x01, 0x02][..]));
    /// ```
    pub fn end(&self) -> Option<&[u8]> {
        self.end.as_deref()
    }

    /// Whether no key can be in the range (its start is not below its end).
    ///
    /// ```
    /// use std::ops::{Bound, RangeBounds};
    /// use sortpath::{Id, KeyRange};
    /// let r = KeyRange::between(&sortpath::KeyPath::new(), "a", Bound::Included(Id::from(5u64)), Bound::Excluded(Id::from(5u64)));
    /// assert!(r.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        matches!(&self.end, Some(end) if *end <= self.start)
    }

    /// Whether an encoded key is in the byte range.
    ///
    /// ```
    /// let range = sortpath::KeyRange::subtree(&"/a-1".parse().unwrap());
    /// assert!(range.contains(&"/a-1".parse::<sortpath::KeyPath>().unwrap().encode()));
    /// ```
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && self.end.as_ref().is_none_or(|end| key < end.as_slice())
    }

    /// Whether a path logically matches the selection. For keys inside the byte range this
    /// differs from [`KeyRange::contains`] only for UUIDs mixed with other ID types at
    /// one position (see the module docs).
    ///
    /// ```
    /// let range = sortpath::KeyRange::subtree(&"/a-1".parse().unwrap());
    /// assert!(range.matches(&"/a-1/b-2".parse().unwrap()));
    /// assert!(!range.matches(&"/a-2".parse().unwrap()));
    /// ```
    pub fn matches(&self, path: &KeyPath) -> bool {
        self.matches_tail(path.as_path_ref(), 0)
    }

    /// [`KeyRange::matches`] for a borrowed path, such as a key read out of a store.
    ///
    /// ```
    /// use sortpath::{KeyPath, KeyPathRef, KeyRange};
    /// let range = KeyRange::subtree(&"/a-1".parse().unwrap());
    /// let key = "/a-1/b-2".parse::<KeyPath>().unwrap().encode();
    /// assert!(range.matches_ref(KeyPathRef::decode(&key).unwrap()));
    /// ```
    pub fn matches_ref(&self, path: KeyPathRef<'_>) -> bool {
        self.matches_tail(path, 0)
    }

    /// Whether `path` without its first `skip` components matches (`false` if it has
    /// fewer): [`KeyRange::matches`] of that tail, without building it. For ranges over the
    /// part of paths after a group key, applied to whole paths of that group.
    ///
    /// ```
    /// let range = sortpath::KeyRange::subtree(&"/post-2".parse().unwrap());
    /// let path: sortpath::KeyPath = "/user-1/post-2/comment-3".parse().unwrap();
    /// assert!(range.matches_after(&path, 1));
    /// assert!(!range.matches_after(&path, 0));
    /// assert!(!range.matches_after(&path, 4));
    /// ```
    pub fn matches_after(&self, path: &KeyPath, skip: usize) -> bool {
        let path = path.as_path_ref();
        skip <= path.len() && self.matches_tail(path, skip)
    }

    /// The encoding of `path` without its first `skip` components (borrowed when `skip`
    /// is 0).
    fn tail_bytes<'a>(path: KeyPathRef<'a>, skip: usize) -> Cow<'a, [u8]> {
        if skip == 0 {
            Cow::Borrowed(path.as_bytes())
        } else {
            Cow::Owned(path.sub_path(skip, path.len()).into_bytes())
        }
    }

    /// [`KeyRange::matches`] for the components of `path` from index `skip` on (which
    /// exist).
    fn matches_tail(&self, path: KeyPathRef<'_>, skip: usize) -> bool {
        match &self.select {
            Select::Subtree(prefix) => path.prefix_match(skip, prefix.as_path_ref()).0,
            Select::Descendants(prefix) => {
                let (is_prefix, exact) = path.prefix_match(skip, prefix.as_path_ref());
                is_prefix && !exact
            }
            Select::Children {
                parent,
                namespace,
                lower,
                upper,
                lower_segment,
                upper_segment,
            } => {
                if !path.prefix_match(skip, parent.as_path_ref()).0 {
                    return false;
                }
                let Some(c) = path.segments().nth(skip + parent.len()) else {
                    return false;
                };
                let (Some(id_type), Some(id)) = (c.id_type(), c.encoded_id()) else {
                    return false;
                };
                if c.namespace() != namespace {
                    return false;
                }
                if mixes_uuid(id_type == IdType::Uuid, lower, upper) {
                    // No ID order agrees with the bytes here: the byte range decides.
                    self.contains(&Self::tail_bytes(path, skip))
                } else {
                    in_bounds(id, lower_segment, upper_segment)
                }
            }
            Select::Prefix => self.contains(&Self::tail_bytes(path, skip)),
            Select::Paths(lower, upper) => {
                let key = Self::tail_bytes(path, skip);
                let bounds = (
                    lower.as_ref().map(KeyPath::as_bytes),
                    upper.as_ref().map(KeyPath::as_bytes),
                );
                in_bounds(&key, &bounds.0, &bounds.1)
            }
        }
    }
}

/// A range is the byte range `start..end`, for `BTreeMap<Vec<u8>, _>::range` and friends.
///
/// ```
/// use std::collections::BTreeMap;
/// use sortpath::{KeyPath, KeyRange};
/// let mut map = BTreeMap::new();
/// for text in ["/user-1", "/user-1/post-2", "/user-2"] {
///     map.insert(text.parse::<KeyPath>().unwrap().encode(), text);
/// }
/// let range = KeyRange::subtree(&"/user-1".parse().unwrap());
/// let hits: Vec<_> = map.range::<[u8], _>(range).map(|(_, t)| *t).collect();
/// assert_eq!(hits, ["/user-1", "/user-1/post-2"]);
/// ```
impl RangeBounds<[u8]> for KeyRange {
    fn start_bound(&self) -> Bound<&[u8]> {
        Bound::Included(&self.start)
    }
    fn end_bound(&self) -> Bound<&[u8]> {
        self.end
            .as_deref()
            .map_or(Bound::Unbounded, Bound::Excluded)
    }
}

/// Whether `key` is within `lower` and `upper`.
fn in_bounds<B: AsRef<[u8]>>(key: &[u8], lower: &Bound<B>, upper: &Bound<B>) -> bool {
    let above = match lower {
        Bound::Included(l) => key >= l.as_ref(),
        Bound::Excluded(l) => key > l.as_ref(),
        Bound::Unbounded => true,
    };
    let below = match upper {
        Bound::Included(u) => key <= u.as_ref(),
        Bound::Excluded(u) => key < u.as_ref(),
        Bound::Unbounded => true,
    };
    above && below
}
