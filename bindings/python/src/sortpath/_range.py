"""KeyRange: half-open byte ranges ``[start, end)`` of encoded key paths for prefix and
range queries (docs/FORMAT.md, "Ranges")."""

from __future__ import annotations

from typing import Generic, Optional, Tuple, TypeVar, Union
from uuid import UUID

from ._errors import KeyPathError
from ._binary import SEPARATOR, TERMINATOR, Components, Id, encode_id, encode_segments
from ._path import IdLike, KeyPath, check_namespace, normalize_id, starts_with_components

__all__ = ["KeyRange", "Included", "Excluded", "Bound"]

T = TypeVar("T")

_AFTER_SEPARATOR = bytes([SEPARATOR + 1])
_SEP = bytes([SEPARATOR])
_TERM = bytes([TERMINATOR])


class Included(Generic[T]):
    """A bound that includes its value."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Included({self.value!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is Included and other.value == self.value

    def __hash__(self) -> int:
        return hash((Included, self.value))


class Excluded(Generic[T]):
    """A bound that excludes its value."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Excluded({self.value!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is Excluded and other.value == self.value

    def __hash__(self) -> int:
        return hash((Excluded, self.value))


Bound = Union[Included[T], Excluded[T], None]
"""``Included(x)``, ``Excluded(x)``, or ``None`` for unbounded."""

_RANK = {int: 0, str: 1, bytes: 2}


def _id_order_key(id: Id) -> Tuple[int, object]:
    """Orders IDs of which neither or both are UUIDs as their encodings do: integers
    numerically, then strings (code point order is UTF-8 byte order), then bytes."""
    if type(id) is UUID:
        return (3, id.bytes)
    return (_RANK[type(id)], id)


def _id_bound(bound: Bound[IdLike]) -> Bound[Id]:
    if bound is None:
        return None
    if isinstance(bound, Included):
        return Included(normalize_id(bound.value))
    if isinstance(bound, Excluded):
        return Excluded(normalize_id(bound.value))
    raise TypeError(f"a bound is Included(x), Excluded(x) or None, not {type(bound).__name__}")


def _path_bound(bound: Bound[KeyPath]) -> Bound[KeyPath]:
    if bound is None or (
        isinstance(bound, (Included, Excluded)) and isinstance(bound.value, KeyPath)
    ):
        return bound
    raise TypeError("a path bound is Included(path), Excluded(path) or None")


class KeyRange:
    """A half-open range ``start <= key < end`` of encoded key paths (``end`` is ``None``
    when unbounded), and the selection it stands for. Because IDs are escaped and
    prefix-free, a range holds exactly the paths that logically match: ``/post-ab`` is
    not in the subtree of ``/post-a``.

    In DynamoDB, a range over sort keys is ``sk BETWEEN :start AND :end`` when ``end`` can
    never be a key (every range but :meth:`between_paths` with an ``Excluded`` upper
    bound, whose ``end`` is that path's key), ``sk >= :start`` when ``end`` is ``None``.

    >>> from sortpath import KeyPath, KeyRange
    >>> r = KeyRange.subtree(KeyPath.parse("/user-1/post-ab"))
    >>> r.contains_key(KeyPath.parse("/user-1/post-ab/comment-7").encode())
    True
    >>> r.contains_key(KeyPath.parse("/user-1/post-abc").encode())
    False
    """

    __slots__ = ("_start", "_end", "_kind", "_args")

    _start: bytes
    _end: Optional[bytes]

    def __init__(self, start: bytes, end: Optional[bytes]) -> None:
        """A plain byte range (no logical selection: :meth:`matches` uses the bytes)."""
        self._start = bytes(start)
        self._end = None if end is None else bytes(end)
        self._kind = "bytes"
        self._args: Tuple[object, ...] = ()

    @classmethod
    def _make(cls, start: bytes, end: Optional[bytes], kind: str, *args: object) -> KeyRange:
        r = object.__new__(cls)
        r._start = start
        r._end = end
        r._kind = kind
        r._args = args
        return r

    @property
    def start(self) -> bytes:
        """Inclusive start of the range."""
        return self._start

    @property
    def end(self) -> Optional[bytes]:
        """Exclusive end of the range, or ``None`` when unbounded."""
        return self._end

    @classmethod
    def subtree(cls, path: KeyPath) -> KeyRange:
        """The path and everything under it. For a path ending in a namespace-only
        component (``/user-1/post``): every ID of that namespace under the parent, with
        their descendants. For the empty path, everything.

        >>> KeyRange.subtree(KeyPath.parse("/a-1"))
        KeyRange(start='6101080100', end='6101080102')
        """
        if not path._components:
            return cls._make(_TERM, None, "subtree", path)
        s = encode_segments(path._components)
        return cls._make(s + _TERM, s + _AFTER_SEPARATOR, "subtree", path)

    @classmethod
    def descendants(cls, path: KeyPath) -> KeyRange:
        """Everything under the path, without the path itself.

        >>> KeyRange.descendants(KeyPath.parse("/a-1"))
        KeyRange(start='6101080101', end='6101080102')
        """
        if not path._components:
            return cls._make(_SEP, None, "descendants", path)
        s = encode_segments(path._components)
        return cls._make(s + _SEP, s + _AFTER_SEPARATOR, "descendants", path)

    @classmethod
    def children(cls, parent: KeyPath, namespace: str) -> KeyRange:
        """Every ID of ``namespace`` directly under ``parent``, with their descendants.

        >>> KeyRange.children(KeyPath(), "post")
        KeyRange(start='706f737401', end='706f737402')
        """
        return cls.between(parent, namespace, None, None)

    @classmethod
    def between(
        cls,
        parent: KeyPath,
        namespace: str,
        lower: Bound[IdLike] = None,
        upper: Bound[IdLike] = None,
    ) -> KeyRange:
        """IDs of ``namespace`` directly under ``parent`` within the bounds, each with its
        descendants: an ``Included`` upper bound includes that ID's descendants, an
        ``Excluded`` lower bound excludes them.

        >>> from sortpath import Included, Excluded
        >>> r = KeyRange.between(KeyPath.parse("/user-1"), "post", Included(10), Excluded(100))
        >>> [r.contains_key(KeyPath.parse(t).encode()) for t in
        ...  ["/user-1/post-9", "/user-1/post-10/comment-1", "/user-1/post-99", "/user-1/post-100"]]
        [False, True, True, False]
        """
        namespace = check_namespace(namespace)
        if parent._components and parent._components[-1][1] is None:
            raise KeyPathError(
                None,
                f"cannot add /{namespace} after the namespace-only component "
                f"/{parent._components[-1][0]}: only the last component may lack an ID",
            )
        low = _id_bound(lower)
        high = _id_bound(upper)
        base = encode_segments(parent._components)
        if parent._components:
            base += _SEP
        base += namespace.encode("ascii") + _SEP

        def id_key(id: Id, tail: bytes) -> bytes:
            return base + encode_id(id)[0] + tail

        if low is None:
            start = base
        elif isinstance(low, Included):
            start = id_key(low.value, _TERM)
        else:
            start = id_key(low.value, _AFTER_SEPARATOR)
        if high is None:
            end = base[:-1] + _AFTER_SEPARATOR
        elif isinstance(high, Included):
            end = id_key(high.value, _AFTER_SEPARATOR)
        else:
            end = id_key(high.value, _TERM)
        return cls._make(start, end, "children", parent, namespace, low, high)

    @classmethod
    def between_paths(
        cls, lower: Bound[KeyPath] = None, upper: Bound[KeyPath] = None
    ) -> KeyRange:
        """Paths between two paths in key order (an ``Excluded`` lower bound still
        includes that path's descendants, which sort after it).

        >>> from sortpath import Included, Excluded
        >>> r = KeyRange.between_paths(Excluded(KeyPath.parse("/a-1")), Included(KeyPath.parse("/a-5")))
        >>> [r.contains_key(KeyPath.parse(t).encode()) for t in ["/a-1", "/a-1/b-1", "/a-5", "/a-5/b-1"]]
        [False, True, True, False]
        """
        low = _path_bound(lower)
        high = _path_bound(upper)
        if low is None:
            start = b""
        elif isinstance(low, Included):
            start = low.value.encode()
        else:
            start = low.value.encode() + _TERM
        end: Optional[bytes]
        if high is None:
            end = None
        elif isinstance(high, Included):
            end = high.value.encode() + _TERM
        else:
            end = high.value.encode()
        return cls._make(start, end, "paths", low, high)

    def is_empty(self) -> bool:
        """Whether no key can be in the range (its start is not below its end)."""
        return self._end is not None and self._end <= self._start

    def contains_key(self, key: bytes) -> bool:
        """Whether an encoded key is inside the byte range."""
        return self._start <= key and (self._end is None or key < self._end)

    def matches(self, path: KeyPath) -> bool:
        """Whether a path logically matches the selection. For keys in the byte range this
        differs from :meth:`contains_key` only where UUID IDs and IDs of other types share a
        position (docs/FORMAT.md, "Ranges").

        >>> KeyRange.subtree(KeyPath.parse("/a-1")).matches(KeyPath.parse("/a-1/b-2"))
        True
        """
        kind = self._kind
        components = path._components
        if kind == "subtree":
            prefix: KeyPath = self._args[0]  # type: ignore[assignment]
            return starts_with_components(components, prefix._components)
        if kind == "descendants":
            prefix = self._args[0]  # type: ignore[assignment]
            # A namespace-only prefix (/user-1/post) has every /user-1/post-ID below it.
            return path.encode() != prefix.encode() and starts_with_components(
                components, prefix._components
            )
        if kind == "children":
            return self._matches_children(path)
        if kind == "paths":
            low, high = self._args
            above = (
                low is None
                or (isinstance(low, Included) and path >= low.value)
                or (isinstance(low, Excluded) and path > low.value)
            )
            below = (
                high is None
                or (isinstance(high, Included) and path <= high.value)
                or (isinstance(high, Excluded) and path < high.value)
            )
            return above and below
        return self.contains_key(path.encode())

    def _matches_children(self, path: KeyPath) -> bool:
        parent, namespace, low, high = self._args
        assert isinstance(parent, KeyPath) and isinstance(namespace, str)
        components: Components = path._components
        at = len(parent._components)
        if len(components) <= at:
            return False
        ns, id = components[at]
        if id is None or ns != namespace:
            return False
        if not starts_with_components(components, parent._components):
            return False
        is_uuid = type(id) is UUID
        bounds = [b for b in (low, high) if isinstance(b, (Included, Excluded))]
        if any((type(b.value) is UUID) != is_uuid for b in bounds):
            # No order of IDs agrees with the bytes here: the byte range decides.
            return self.contains_key(path.encode())
        key = _id_order_key(id)
        if isinstance(low, Included) and not key >= _id_order_key(low.value):
            return False
        if isinstance(low, Excluded) and not key > _id_order_key(low.value):
            return False
        if isinstance(high, Included) and not key <= _id_order_key(high.value):
            return False
        if isinstance(high, Excluded) and not key < _id_order_key(high.value):
            return False
        return True

    def __repr__(self) -> str:
        end = None if self._end is None else self._end.hex()
        return f"KeyRange(start={self._start.hex()!r}, end={end!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeyRange):
            return (self._start, self._end) == (other._start, other._end)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._start, self._end))
