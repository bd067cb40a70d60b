//! Key paths: typed, hierarchical keys such as
//! `/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234`.
//!
//! - [`KeyPath`] is the model: a list of [`Component`]s, each a namespace and an optional
//!   typed [`Id`] (only the last component may lack an ID).
//! - `text.rs` is the text form (`FromStr`/`Display`), `binary.rs` the binary form whose byte
//!   order is the logical order, `range.rs` the byte ranges for prefix and range queries, and
//!   the format itself is specified in `docs/FORMAT.md`.

mod binary;
mod escape;
mod id;
mod namespace;
mod order;
mod range;
#[cfg(feature = "serde")]
mod serde_impl;
mod text;

#[cfg(test)]
mod tests;

pub use binary::{DecodeError, DecodeErrorKind, SegmentSpan};

/// The key path format's named bytes, re-exported from [`crate::consts`].
pub(crate) mod consts {
    pub use super::binary::{
        SEPARATOR, TERMINATOR, TYPE_BITS, TYPE_BYTES, TYPE_INT, TYPE_NAMESPACE, TYPE_STRING,
        TYPE_UUID,
    };
    pub use super::escape::{BYTES_MARKER, EMPTY_STRING, ESCAPE, ESCAPE_MAX_RAW, ESCAPE_OFFSET};
    pub use super::text::BYTES_PREFIX;
}
pub use id::{Id, IdType};
pub use range::KeyRange;
pub use text::{ParseError, ParseErrorKind};

use std::convert::Infallible;

use crate::int::IntRangeError;
use namespace::Namespace;

/// One `/namespace-id` step of a key path.
///
/// ```
/// let path: keypath::KeyPath = "/user-7/post".parse().unwrap();
/// let first = &path.components()[0];
/// assert_eq!(first.namespace(), "user");
/// assert_eq!(first.id(), Some(&keypath::Id::from(7u64)));
/// assert_eq!(path.components()[1].id(), None);
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Component {
    // Invariant: a valid namespace (see `is_valid_namespace`).
    namespace: Namespace,
    id: Option<Id>,
}

impl Component {
    /// The namespace: one or more ASCII letters or `_`.
    ///
    /// ```
    /// let path: keypath::KeyPath = "/user_profile-1".parse().unwrap();
    /// assert_eq!(path.components()[0].namespace(), "user_profile");
    /// ```
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The ID, or `None` for a trailing namespace-only component (a prefix such as `/user-1/post`).
    ///
    /// ```
    /// let path: keypath::KeyPath = "/user-abc".parse().unwrap();
    /// assert_eq!(path.components()[0].id(), Some(&keypath::Id::from("abc")));
    /// ```
    pub fn id(&self) -> Option<&Id> {
        self.id.as_ref()
    }
}

/// A problem building a key path in code.
///
/// ```
/// let err = keypath::KeyPath::new().push("bad-name", 1u64).unwrap_err();
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
/// Its order ([`Ord`]) is the byte order of its binary encoding ([`KeyPath::encode`]):
/// component by component, namespaces by UTF-8 bytes, a component without ID before the same
/// namespace with any ID, integers numerically before strings, strings by UTF-8 bytes, byte IDs
/// bytewise after strings, and a path before every path that extends it. The full rules,
/// including UUIDs, are in `docs/FORMAT.md`.
///
/// ```
/// use keypath::KeyPath;
/// let a: KeyPath = "/user-1/post-9".parse().unwrap();
/// let b: KeyPath = "/user-1/post-42".parse().unwrap();
/// let c: KeyPath = "/user-1/post-100".parse().unwrap();
/// assert!(a < b && b < c);
/// assert!(a.encode() < b.encode() && b.encode() < c.encode());
///
/// let built = KeyPath::new().push("user", 1u64)?.push("post", 42i64)?;
/// assert_eq!(built, b);
/// assert_eq!(built.to_string(), "/user-1/post-42");
/// # Ok::<(), keypath::PathError>(())
/// ```
///
/// The empty path (`KeyPath::new()`, text `/`) has no components. It is not a key of its own:
/// it is the sort-key part of a group's root item (see [`KeyPath::split_group`]) and the
/// starting point of the builder.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct KeyPath {
    // Invariant: every component but the last has an ID.
    components: Vec<Component>,
}

/// [`KeyPath::starts_with`] for the paths made of `components` and `prefix`.
pub(crate) fn starts_with_components(components: &[Component], prefix: &[Component]) -> bool {
    prefix.len() <= components.len()
        && prefix
            .iter()
            .zip(components)
            .all(|(p, s)| p.namespace == s.namespace && (p.id.is_none() || p.id == s.id))
}

/// Checks the namespace rule: one or more ASCII letters or `_`.
pub(crate) fn is_valid_namespace(namespace: &str) -> bool {
    namespace::is_valid(namespace.as_bytes())
}

impl KeyPath {
    /// The empty path, to build on with [`KeyPath::push`].
    ///
    /// ```
    /// assert!(keypath::KeyPath::new().is_empty());
    /// ```
    pub fn new() -> KeyPath {
        KeyPath::default()
    }

    /// Appends `/namespace-id`. The ID may be any integer type in range, `&str`/`String`,
    /// a byte slice or `Vec<u8>`, a `uuid::Uuid`, an [`crate::I65`] or an [`Id`].
    ///
    /// ```
    /// # #[cfg(feature = "uuid")] {
    /// use keypath::KeyPath;
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
    /// # Ok::<(), keypath::PathError>(())
    /// ```
    pub fn push<T>(mut self, namespace: &str, id: T) -> Result<KeyPath, PathError>
    where
        T: TryInto<Id>,
        PathError: From<T::Error>,
    {
        let id = id.try_into()?;
        self.push_component(namespace, Some(id))?;
        Ok(self)
    }

    /// Appends a namespace-only component, `/namespace`, which must stay the last one.
    /// Such a path names all IDs of that namespace under its parent, as a query prefix.
    ///
    /// ```
    /// let posts = keypath::KeyPath::new().push("user", 1u64)?.push_namespace("post")?;
    /// assert_eq!(posts.to_string(), "/user-1/post");
    /// # Ok::<(), keypath::PathError>(())
    /// ```
    pub fn push_namespace(mut self, namespace: &str) -> Result<KeyPath, PathError> {
        self.push_component(namespace, None)?;
        Ok(self)
    }

    fn push_component(&mut self, namespace: &str, id: Option<Id>) -> Result<(), PathError> {
        if !is_valid_namespace(namespace) {
            return Err(PathError::InvalidNamespace {
                namespace: namespace.to_owned(),
            });
        }
        if let Some(last) = self.components.last() {
            if last.id.is_none() {
                return Err(PathError::IdRequired {
                    previous: last.namespace.to_string(),
                    namespace: namespace.to_owned(),
                });
            }
        }
        self.components.push(Component {
            namespace: Namespace::new(namespace),
            id,
        });
        Ok(())
    }

    /// The components in order.
    ///
    /// ```
    /// let path: keypath::KeyPath = "/a-1/b-2".parse().unwrap();
    /// let names: Vec<_> = path.components().iter().map(|c| c.namespace()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// Number of components.
    ///
    /// ```
    /// assert_eq!("/a-1/b-2".parse::<keypath::KeyPath>().unwrap().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.components.len()
    }

    /// Whether the path has no components.
    ///
    /// ```
    /// assert!("/".parse::<keypath::KeyPath>().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }

    /// The path without its last component, or `None` for the empty path.
    ///
    /// ```
    /// let path: keypath::KeyPath = "/user-1/post-2".parse().unwrap();
    /// assert_eq!(path.parent().unwrap().to_string(), "/user-1");
    /// ```
    pub fn parent(&self) -> Option<KeyPath> {
        let (_, rest) = self.components.split_last()?;
        Some(KeyPath {
            components: rest.to_vec(),
        })
    }

    /// The first `n` components and the rest, as two paths (both always valid: only a
    /// path's last component may lack an ID, and it stays last), or `None` if the path has
    /// fewer than `n` components. The inverse of [`KeyPath::join`].
    ///
    /// ```
    /// let path: keypath::KeyPath = "/user-1/post-2/comment".parse().unwrap();
    /// let (head, tail) = path.split_at(1).unwrap();
    /// assert_eq!((head.to_string(), tail.to_string()), ("/user-1".into(), "/post-2/comment".into()));
    /// assert_eq!(head.join(&tail).unwrap(), path);
    /// assert!(path.split_at(4).is_none());
    /// ```
    pub fn split_at(&self, n: usize) -> Option<(KeyPath, KeyPath)> {
        if n > self.components.len() {
            return None;
        }
        let (head, tail) = self.components.split_at(n);
        Some((
            KeyPath {
                components: head.to_vec(),
            },
            KeyPath {
                components: tail.to_vec(),
            },
        ))
    }

    /// `self` followed by the components of `tail`: `/user-1` joined with `/post-2` is
    /// `/user-1/post-2`. Fails when `self` ends in a namespace-only component and `tail` is
    /// not empty (only the last component may lack an ID).
    ///
    /// ```
    /// use keypath::KeyPath;
    /// let user: KeyPath = "/user-1".parse()?;
    /// let joined = user.join(&"/post-2/comment".parse()?)?;
    /// assert_eq!(joined.to_string(), "/user-1/post-2/comment");
    /// assert!("/user".parse::<KeyPath>()?.join(&joined).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn join(&self, tail: &KeyPath) -> Result<KeyPath, PathError> {
        if let (Some(last), Some(next)) = (self.components.last(), tail.components.first()) {
            if last.id.is_none() {
                return Err(PathError::IdRequired {
                    previous: last.namespace.to_string(),
                    namespace: next.namespace.to_string(),
                });
            }
        }
        let mut components = Vec::with_capacity(self.len() + tail.len());
        components.extend_from_slice(&self.components);
        components.extend_from_slice(&tail.components);
        Ok(KeyPath { components })
    }

    /// Whether `prefix`'s components are the first components of `self` (every path starts
    /// with itself and with the empty path). A namespace-only last component of `prefix`
    /// matches that namespace with any ID.
    ///
    /// ```
    /// use keypath::KeyPath;
    /// let path: KeyPath = "/user-1/post-ab/comment-3".parse().unwrap();
    /// assert!(path.starts_with(&"/user-1/post-ab".parse().unwrap()));
    /// assert!(path.starts_with(&"/user-1/post".parse().unwrap()));
    /// assert!(!path.starts_with(&"/user-1/post-a".parse().unwrap()));
    /// ```
    pub fn starts_with(&self, prefix: &KeyPath) -> bool {
        starts_with_components(&self.components, &prefix.components)
    }

    /// Splits into the group (partition) key and the sort key, as two encodings: the first
    /// component, which must have an ID, and the rest. Both are non-empty and each is a
    /// valid encoding on its own; a root item's sort key is the empty path, one byte `00`,
    /// which sorts before every child in the group.
    ///
    /// ```
    /// use keypath::KeyPath;
    /// let path: KeyPath = "/user-1/post-2".parse().unwrap();
    /// let (group, sort) = path.split_group()?;
    /// assert_eq!(KeyPath::decode(&group).unwrap().to_string(), "/user-1");
    /// assert_eq!(KeyPath::decode(&sort).unwrap().to_string(), "/post-2");
    /// assert_eq!(KeyPath::from_group(&group, &sort).unwrap(), path);
    ///
    /// let (_, root_sort) = "/user-1".parse::<KeyPath>().unwrap().split_group()?;
    /// assert_eq!(root_sort, [0x00]);
    /// # Ok::<(), keypath::PathError>(())
    /// ```
    pub fn split_group(&self) -> Result<(Vec<u8>, Vec<u8>), PathError> {
        match self.components.split_first() {
            Some((first, rest)) if first.id.is_some() => Ok((
                binary::encode_components(std::slice::from_ref(first)),
                binary::encode_components(rest),
            )),
            _ => Err(self.no_group_key()),
        }
    }

    /// Like [`KeyPath::split_group`], as paths: the first component and the rest.
    ///
    /// ```
    /// let path: keypath::KeyPath = "/user-1/post-2".parse().unwrap();
    /// let (group, rest) = path.group_parts()?;
    /// assert_eq!((group.to_string(), rest.to_string()), ("/user-1".into(), "/post-2".into()));
    /// # Ok::<(), keypath::PathError>(())
    /// ```
    pub fn group_parts(&self) -> Result<(KeyPath, KeyPath), PathError> {
        match self.components.split_first() {
            Some((first, rest)) if first.id.is_some() => Ok((
                KeyPath {
                    components: vec![first.clone()],
                },
                KeyPath {
                    components: rest.to_vec(),
                },
            )),
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
    /// use keypath::KeyPath;
    /// let joined = KeyPath::from_group(&[0x61, 0x01, 0x08, 0x01, 0x00, 0x08, 0x11], &[0x00]).unwrap();
    /// assert_eq!(joined.to_string(), "/a-1");
    /// ```
    pub fn from_group(group: &[u8], sort: &[u8]) -> Result<KeyPath, DecodeError> {
        KeyPath::from_group_path(&KeyPath::decode(group)?, sort)
    }
}
