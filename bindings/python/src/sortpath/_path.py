"""KeyPath: a typed, hierarchical key whose order is the byte order of its encoding."""

from __future__ import annotations

import functools
from typing import Callable, Iterable, List, NamedTuple, Optional, Tuple, Union
from uuid import UUID

from ._binary import (
    INT_MAX,
    Components,
    Id,
    decode_components,
    encode_components,
    is_valid_namespace,
)
from ._errors import KeyPathError, rust_debug_str
from ._text import format_components, parse_components

__all__ = ["KeyPath", "Component", "IdLike", "normalize_id", "check_namespace"]

IdLike = Union[int, str, bytes, bytearray, memoryview, UUID]
"""What :meth:`KeyPath.push` takes as an ID; stored as ``int``, ``str``, ``bytes`` or
``uuid.UUID``."""


class Component(NamedTuple):
    """One ``/namespace-id`` step of a key path; ``id`` is ``None`` for a trailing
    namespace-only component (``/user-1/post``)."""

    namespace: str
    id: Optional[Id]


# Component from a (namespace, id) pair, without NamedTuple's Python-level __new__.
_component: Callable[[Tuple[str, Optional[Id]]], Component] = functools.partial(
    tuple.__new__, Component
)


def check_namespace(namespace: str) -> str:
    """``namespace`` if it is one or more ASCII letters or ``_``; raises otherwise."""
    if type(namespace) is not str:
        if not isinstance(namespace, str):
            raise TypeError(f"a namespace is a str, not {type(namespace).__name__}")
        namespace = str.__str__(namespace)
    if not is_valid_namespace(namespace):
        raise KeyPathError(
            None,
            f"invalid namespace {rust_debug_str(namespace)}: "
            "expected one or more ASCII letters or '_'",
        )
    return namespace


def _check_int(value: int) -> int:
    if -INT_MAX <= value <= INT_MAX:
        return value
    raise KeyPathError(None, f"integer {value} is out of range: IDs take -(2^64-1) ..= 2^64-1")


def _check_str(value: str) -> str:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise KeyPathError(
                None,
                f"expected a string ID of Unicode scalar values, found the lone surrogate "
                f"U+{ord(value[e.start]):04X} at index {e.start}",
            ) from None
    return value


def normalize_id(id: IdLike) -> Id:
    """``id`` as the exact type the path stores (``int``, ``str``, ``bytes``, ``UUID``)."""
    t = type(id)
    if t is int:
        return _check_int(id)  # type: ignore[arg-type]
    if t is str:
        return _check_str(id)  # type: ignore[arg-type]
    if t is UUID or t is bytes:
        return id  # type: ignore[return-value]
    if isinstance(id, bool):
        raise TypeError("a bool is not an ID: use an int, str, bytes or uuid.UUID")
    if isinstance(id, int):
        return _check_int(int(id))
    if isinstance(id, str):
        return _check_str(str.__str__(id))
    if isinstance(id, (bytes, bytearray, memoryview)):
        return bytes(id)
    if isinstance(id, UUID):
        return UUID(int=id.int)
    raise TypeError(f"an ID is an int, str, bytes or uuid.UUID, not {type(id).__name__}")


def _id_required(previous: str, namespace: str) -> KeyPathError:
    return KeyPathError(
        None,
        f"cannot add /{namespace} after the namespace-only component /{previous}: "
        "only the last component may lack an ID",
    )


class KeyPath:
    """A typed, hierarchical key: ``/namespace-id/namespace-id/...``.

    A namespace is one or more ASCII letters or ``_``; an ID is an ``int``
    (``-(2**64-1) ..= 2**64-1``), a ``str``, ``bytes`` or a ``uuid.UUID``; only the last
    component may lack an ID. Paths are immutable. Their order (``<``, ``sorted``) and
    equality are the byte order of :meth:`encode`, and so are their hashes'.

    >>> from sortpath import KeyPath
    >>> a = KeyPath.parse("/user-1/post-9")
    >>> b = KeyPath().push("user", 1).push("post", 42)
    >>> a < b, str(b), b.encode().hex()
    (True, '/user-1/post-42', '7573657201080101706f737401082a0020112011')
    """

    __slots__ = ("_components", "_encoded")

    _components: Components
    _encoded: Optional[bytes]

    def __init__(self, components: Iterable[Tuple[str, Optional[IdLike]]] = ()) -> None:
        """A path of ``(namespace, id)`` pairs (``id`` ``None`` for a last, namespace-only
        component); ``KeyPath()`` is the empty path."""
        built: List[Tuple[str, Optional[Id]]] = []
        previous: Optional[str] = None
        for namespace, id in components:
            namespace = check_namespace(namespace)
            if previous is not None:
                raise _id_required(previous, namespace)
            if id is None:
                previous = namespace
                built.append((namespace, None))
            else:
                built.append((namespace, normalize_id(id)))
        self._components = tuple(built)
        self._encoded = None

    @classmethod
    def _of(cls, components: Components, encoded: Optional[bytes] = None) -> KeyPath:
        path = object.__new__(cls)
        path._components = components
        path._encoded = encoded
        return path

    @classmethod
    def parse(cls, text: str) -> KeyPath:
        """Parses the text form (``/`` alone is the empty path); raises
        :class:`KeyPathError` with the byte offset of the problem in the UTF-8 text.

        >>> KeyPath.parse("/user-4c9d36e5-6B19-4e6a-828c-226ed667458a/tag-%31")
        KeyPath('/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/tag-%31')
        """
        if not isinstance(text, str):
            raise TypeError(f"KeyPath.parse takes a str, not {type(text).__name__}")
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                at = len(text[: e.start].encode("utf-8"))
                raise KeyPathError(
                    at,
                    f"expected Unicode text, found the lone surrogate U+{ord(text[e.start]):04X}",
                ) from None
        return cls._of(parse_components(text))

    @classmethod
    def decode(cls, data: Union[bytes, bytearray, memoryview]) -> KeyPath:
        """Decodes the binary form. Only canonical encodings decode (whatever decodes
        re-encodes to the same bytes); anything else raises :class:`KeyPathError` with
        the byte offset of the problem, never another exception.

        >>> KeyPath.decode(bytes.fromhex("610108ff000811"))
        KeyPath('/a-255')
        """
        if type(data) is not bytes:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise TypeError(f"KeyPath.decode takes bytes, not {type(data).__name__}")
            data = bytes(data)
        return cls._of(decode_components(data), data)

    def encode(self) -> bytes:
        """The binary form; its byte order is the order of key paths.

        >>> KeyPath.parse("/post-1234").encode().hex()
        '706f7374010904d2002019'
        """
        encoded = self._encoded
        if encoded is None:
            encoded = self._encoded = encode_components(self._components)
        return encoded

    def push(self, namespace: str, id: IdLike) -> KeyPath:
        """A new path: this one followed by ``/namespace-id``.

        >>> KeyPath().push("user", 7).push("tag", "a/b").push("blob", b"\\x00")
        KeyPath('/user-7/tag-a%/b/blob-~AA')
        """
        namespace = check_namespace(namespace)
        components = self._components
        if components and components[-1][1] is None:
            raise _id_required(components[-1][0], namespace)
        return KeyPath._of(components + ((namespace, normalize_id(id)),))

    def push_namespace(self, namespace: str) -> KeyPath:
        """A new path: this one followed by the namespace-only ``/namespace``, which
        names all IDs of that namespace under this path and must stay last.

        >>> KeyPath().push("user", 1).push_namespace("post")
        KeyPath('/user-1/post')
        """
        namespace = check_namespace(namespace)
        components = self._components
        if components and components[-1][1] is None:
            raise _id_required(components[-1][0], namespace)
        return KeyPath._of(components + ((namespace, None),))

    @property
    def components(self) -> Tuple[Component, ...]:
        """The components in order.

        >>> KeyPath.parse("/user-1/post").components
        (Component(namespace='user', id=1), Component(namespace='post', id=None))
        """
        return tuple(map(_component, self._components))

    @property
    def parent(self) -> Optional[KeyPath]:
        """The path without its last component; ``None`` for the empty path.

        >>> KeyPath.parse("/user-1/post-2").parent
        KeyPath('/user-1')
        """
        if not self._components:
            return None
        return KeyPath._of(self._components[:-1])

    def starts_with(self, prefix: KeyPath) -> bool:
        """Whether ``prefix``'s components are the first components of this path; a
        namespace-only last component of ``prefix`` matches that namespace with any ID.

        >>> p = KeyPath.parse("/user-1/post-ab/comment-3")
        >>> p.starts_with(KeyPath.parse("/user-1/post")), p.starts_with(KeyPath.parse("/user-1/post-a"))
        (True, False)
        """
        return starts_with_components(self._components, prefix._components)

    def split_group(self) -> Tuple[bytes, bytes]:
        """The group (partition) key and the sort key, each a valid encoding: the first
        component, which must have an ID, and the rest. A root item's sort key is the
        empty path, the single byte ``00``.

        >>> group, sort = KeyPath.parse("/user-1/post-2").split_group()
        >>> KeyPath.decode(group), KeyPath.decode(sort)
        (KeyPath('/user-1'), KeyPath('/post-2'))
        """
        components = self._components
        if not components or components[0][1] is None:
            raise KeyPathError(
                None,
                f"key path {rust_debug_str(str(self))} has no group key: "
                "its first component needs an ID",
            )
        return encode_components(components[:1]), encode_components(components[1:])

    @classmethod
    def from_group(
        cls,
        group: Union[bytes, bytearray, memoryview],
        sort: Union[bytes, bytearray, memoryview],
    ) -> KeyPath:
        """Joins a group key and a sort key (as :meth:`split_group` makes them).

        >>> KeyPath.from_group(bytes.fromhex("61010801000811"), b"\\x00")
        KeyPath('/a-1')
        """
        head = cls.decode(group)._components
        if len(head) != 1 or head[0][1] is None:
            raise KeyPathError(0, "expected a group key (one component with an ID)")
        return cls._of(head + cls.decode(sort)._components)

    def __len__(self) -> int:
        return len(self._components)

    def __str__(self) -> str:
        return format_components(self._components)

    def __repr__(self) -> str:
        return f"KeyPath({format_components(self._components)!r})"

    def __hash__(self) -> int:
        return hash(self.encode())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeyPath):
            return self.encode() == other.encode()
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, KeyPath):
            return self.encode() != other.encode()
        return NotImplemented

    def __lt__(self, other: KeyPath) -> bool:
        if isinstance(other, KeyPath):
            return self.encode() < other.encode()
        return NotImplemented

    def __le__(self, other: KeyPath) -> bool:
        if isinstance(other, KeyPath):
            return self.encode() <= other.encode()
        return NotImplemented

    def __gt__(self, other: KeyPath) -> bool:
        if isinstance(other, KeyPath):
            return self.encode() > other.encode()
        return NotImplemented

    def __ge__(self, other: KeyPath) -> bool:
        if isinstance(other, KeyPath):
            return self.encode() >= other.encode()
        return NotImplemented


def starts_with_components(components: Components, prefix: Components) -> bool:
    """Whether ``prefix`` is a component-wise prefix of ``components``."""
    if len(prefix) > len(components):
        return False
    for (p_ns, p_id), (ns, id) in zip(prefix, components):
        if p_ns != ns or (p_id is not None and not _same_id(p_id, id)):
            return False
    return True


def _same_id(a: Id, b: Optional[Id]) -> bool:
    return type(a) is type(b) and a == b
