"""sortpath-store's DynamoDB table layout (docs/DYNAMODB_LAYOUT.md) without any I/O: record
keys, envelopes, index entries, cursors and query ranges. The native form is in
:mod:`sortpath._native`, the configuration record and field indexes in :mod:`sortpath._config`;
the client in :mod:`sortpath.dynamodb` sends what these compute.

>>> from sortpath import KeyPath
>>> [k.hex() for k in item_key(KeyPath.parse("/board-1/ticket-7"), {})]
['626f617264010801002811', '7469636b6574010807003011']
>>> item_key(KeyPath.parse("/customer-7"), {"customer": "last"})[1]
b'\\xff'
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from typing import Dict, List, Optional, Sequence, Tuple, Union
from uuid import UUID

from ._errors import KeyPathError
from ._layout_error import LayoutError
from ._path import KeyPath
from ._range import Excluded, Included, KeyRange

__all__ = ["LayoutError"]

# --- Keys (sections 1 and 2) -------------------------------------------------------------

MAX_PARTITION_KEY = 2048
"""DynamoDB's partition key limit, in bytes."""
MAX_SORT_KEY = 1024
"""DynamoDB's sort key limit, in bytes."""
MAX_ITEM_SIZE = 400 * 1024
"""DynamoDB's item size limit, in bytes (compared with an upper-bound estimate)."""

RESERVED_GROUP = 0x00
TAG_GROUP_COUNTER = 0x01
TAG_INDEX = 0x02
TAG_CONFIG = 0x03
CONFIG_PK = bytes((RESERVED_GROUP, TAG_CONFIG))
CONFIG_SK = b"\x00"
ROOT_FIRST = b"\x00"
ROOT_LAST = b"\xff"
ENTRY_FORMAT = 0x01
ENTRY_PROJECTED = 0x02
ESCAPED_ZERO = 0xFF
REST_END = b"\x00\x00"
AFTER_REST_END = b"\x00\x01"
ENVELOPE_FORMAT = 0x01
MAX_INDEX_NAME_LEN = 64

RootPlace = Union[str, Tuple[str, str]]
"""``"first"``, ``"last"`` or ``("before", NAMESPACE)``."""

_NAMESPACE = re.compile(r"[A-Za-z_]+\Z")
_INDEX_NAME = re.compile(r"[A-Za-z0-9_]{1,64}\Z")


def is_namespace(s: str) -> bool:
    """One or more ASCII letters or ``_``."""
    return bool(_NAMESPACE.match(s))


def is_valid_index_name(name: str) -> bool:
    """1 to 64 ASCII letters, digits or ``_``."""
    return bool(_INDEX_NAME.match(name))


def root_sort_key(place: RootPlace) -> bytes:
    """The sort key of a root item at ``place`` (section 2.1)."""
    if place == "first":
        return ROOT_FIRST
    if place == "last":
        return ROOT_LAST
    assert isinstance(place, tuple)
    return place[1].encode("ascii")


def is_placed_root(sort: bytes) -> bool:
    """Whether ``sort`` is a placed root item's sort key: ``FF`` alone, or one or more
    bytes that are all ASCII letters or ``_``."""
    if sort == ROOT_LAST:
        return True
    return bool(sort) and all(b == 0x5F or 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A for b in sort)


def item_key(path: KeyPath, roots: Dict[str, RootPlace]) -> Tuple[bytes, bytes]:
    """The ``(pk, sk)`` of the item at ``path``: its first component, and the rest (a root
    item where the configuration's ``roots`` place it)."""
    group, sort = path.split_group()
    components = path.components
    if components[-1].id is None:
        raise KeyPathError(None, f"the item key path {path} must end with an ID")
    if len(components) == 1:
        sort = root_sort_key(roots.get(components[0].namespace, "first"))
    return group, sort


def index_group(name: str, group: bytes) -> bytes:
    """The ``pk`` of index ``name``'s entries under the index group ``group`` (its
    encoding)."""
    encoded = name.encode("ascii")
    return bytes((RESERVED_GROUP, TAG_INDEX, len(encoded))) + encoded + group


def escape_rest(encoding: bytes) -> bytes:
    """Every ``00`` byte followed by ``FF`` (section 2.2)."""
    return encoding.replace(b"\x00", b"\x00\xff")


def entry_sort_key(rest: bytes, base: bytes) -> bytes:
    """An entry's ``sk``: the escaped rest ``rest``, ``00 00``, the item path ``base``."""
    return escape_rest(rest) + REST_END + base


def split_entry_sort(sort: bytes) -> Tuple[bytes, bytes]:
    """An entry's ``sk`` split back into (the rest's encoding, the item path's encoding)."""
    rest = bytearray()
    at = 0
    n = len(sort)
    while True:
        if at >= n:
            raise LayoutError("index entry: no end of the index path (00 00) in its sort key")
        b = sort[at]
        if b != 0:
            rest.append(b)
            at += 1
            continue
        nxt = sort[at + 1] if at + 1 < n else None
        if nxt == ESCAPED_ZERO:
            rest.append(0)
            at += 2
        elif nxt == 0:
            return bytes(rest), sort[at + 2 :]
        else:
            raise LayoutError(
                f"index entry: byte 00 at {at} of the sort key is neither the end of the "
                "index path (00 00) nor an escaped 00 (00 ff)"
            )


def entry_item(value: bytes) -> Optional[Tuple[str, bytes]]:
    """``None`` for a keys-only entry's value (``01``), (type, payload) for a projected
    one (``02 len type payload``)."""
    if value == bytes((ENTRY_FORMAT,)):
        return None
    if len(value) >= 2 and value[0] == ENTRY_PROJECTED and value[1] > 0 and len(value) >= 2 + value[1]:
        n = value[1]
        try:
            item_type = value[2 : 2 + n].decode("utf-8")
        except UnicodeDecodeError:
            raise LayoutError("index entry: the item type is not UTF-8") from None
        return item_type, value[2 + n :]
    if len(value) == 2 and value[0] == 0 and value[1] > 0:
        raise LayoutError(
            f"index entry: value 00 {value[1]:02x} is an index entry of an earlier store "
            "layout (copy the items into a new store)"
        )
    raise LayoutError(
        f"index entry: value of {len(value)} bytes, expected the one byte 01 or 02, a type "
        "and an item"
    )


# --- Envelopes (section 3) ---------------------------------------------------------------


class Header:
    """A parsed envelope header: the item type, the index keys as (name, offset of the
    path, path bytes), and where the payload starts."""

    __slots__ = ("item_type", "indexes", "payload_start")

    def __init__(
        self, item_type: str, indexes: List[Tuple[str, int, bytes]], payload_start: int
    ) -> None:
        self.item_type = item_type
        self.indexes = indexes
        self.payload_start = payload_start


def parse_header(value: bytes) -> Header:
    """Parses an envelope's header; raises :class:`LayoutError` naming the byte."""
    pos = 0

    def take(n: int, expected: str) -> bytes:
        nonlocal pos
        if len(value) - pos < n:
            raise LayoutError(
                f"stored item is corrupt at byte {pos}: expected {expected}, found the end "
                f"after {len(value) - pos} bytes"
            )
        out = value[pos : pos + n]
        pos += n
        return out

    def utf8(raw: bytes, at: int, expected: str) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise LayoutError(
                f"stored item is corrupt at byte {at}: expected {expected}, found {e}"
            ) from None

    fmt = take(1, "envelope format 01")[0]
    if fmt != ENVELOPE_FORMAT:
        raise LayoutError(
            f"stored item is corrupt at byte 0: expected envelope format 01, found {fmt:02x}"
        )
    n = take(1, "type name length")[0]
    at = pos
    item_type = utf8(take(n, "item type name"), at, "item type name")
    count = take(1, "index count")[0]
    indexes: List[Tuple[str, int, bytes]] = []
    for _ in range(count):
        n = take(1, "index name length")[0]
        at = pos
        name = utf8(take(n, "index name"), at, "index name")
        length = struct.unpack(">H", take(2, "index key length"))[0]
        at = pos
        indexes.append((name, at, take(length, "index key path")))
    return Header(item_type, indexes, pos)


def encode_header(
    item_type: str, indexes: Sequence[Tuple[str, KeyPath]], elide: Sequence[str] = ()
) -> bytes:
    """An envelope header: the index keys are written sorted by name (byte order); the key
    paths of the indexes in ``elide`` (kept by GSIs, section 5) as the length ``00 00``."""
    type_bytes = item_type.encode("utf-8")
    if not 1 <= len(type_bytes) <= 255:
        raise LayoutError(f"item type {item_type!r} must be 1 to 255 bytes")
    if len(indexes) > 255:
        raise LayoutError(f"{len(indexes)} index keys; at most 255 per item")
    out = bytearray((ENVELOPE_FORMAT, len(type_bytes)))
    out += type_bytes
    out.append(len(indexes))
    for name, path in sorted(indexes, key=lambda e: e[0].encode("utf-8")):
        name_bytes = name.encode("utf-8")
        encoded = path.encode()
        if len(encoded) > 0xFFFF:
            raise LayoutError(f"index {name}'s key path is over 65535 bytes")
        if name in elide:
            encoded = b""
        out.append(len(name_bytes))
        out += name_bytes
        out += struct.pack(">H", len(encoded))
        out += encoded
    return bytes(out)


# --- Cursors (section 7.3) ---------------------------------------------------------------

CURSOR_FORMAT = 0x01
CURSOR_CHECK_SEED = 0x6B65797061746801
FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1


def fnv1a(state: int, data: bytes) -> int:
    """FNV-1a 64 of ``data`` from ``state``."""
    for b in data:
        state = ((state ^ b) * _FNV_PRIME) & _MASK
    return state


def fingerprint(
    index: Optional[str], reverse: bool, group: bytes, start: bytes, end: Optional[bytes]
) -> int:
    """A query's fingerprint: what a cursor must carry to resume it."""
    h = fnv1a(FNV_OFFSET, bytes((1 if index is not None else 0, 1 if reverse else 0)))
    for part in ((index or "").encode("ascii"), group, start, end or b""):
        h = fnv1a(h, struct.pack(">Q", len(part)))
        h = fnv1a(h, part)
    return fnv1a(h, bytes((1 if end is not None else 0,)))


def cursor_bytes(query: int, position: bytes) -> bytes:
    """The cursor of a query's fingerprint and a position, as bytes."""
    body = bytes((CURSOR_FORMAT,)) + struct.pack(">Q", query) + position
    return body + struct.pack(">Q", fnv1a(CURSOR_CHECK_SEED, body))


def cursor_text(query: int, position: bytes) -> str:
    """The cursor's text: its bytes in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(cursor_bytes(query, position)).decode("ascii").rstrip("=")


_BASE64URL = re.compile(r"[A-Za-z0-9_-]*\Z")


def parse_cursor(text: str) -> Tuple[int, bytes]:
    """(the query fingerprint, the position) of a cursor's text; :class:`LayoutError` for
    anything else."""
    if not isinstance(text, str):
        raise LayoutError(f"invalid cursor: expected a string, found {type(text).__name__}")
    t = text.strip()
    if not _BASE64URL.match(t) or len(t) % 4 == 1:
        raise LayoutError("invalid cursor: expected URL-safe base64, found other characters")
    try:
        data = base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))
    except (binascii.Error, ValueError) as e:
        raise LayoutError(f"invalid cursor: expected URL-safe base64, found {e}") from None
    if len(data) < 17:
        raise LayoutError("invalid cursor: too short (was it truncated or altered?)")
    body, check = data[:-8], data[-8:]
    if struct.pack(">Q", fnv1a(CURSOR_CHECK_SEED, body)) != check:
        raise LayoutError("invalid cursor: integrity check failed (was it truncated or altered?)")
    if body[0] != CURSOR_FORMAT:
        raise LayoutError("invalid cursor: unknown cursor format (was it truncated or altered?)")
    return struct.unpack(">Q", body[1:9])[0], body[9:]


# --- Query ranges (section 7.2) ----------------------------------------------------------


class Plan:
    """A query's byte range ``[start, end)`` over ``sk`` and the path filters of its
    constraints (records outside them by path order are passed over)."""

    __slots__ = ("start", "end", "filters", "filters_have_uuid")

    def __init__(
        self, start: bytes, end: Optional[bytes], filters: List[KeyRange], uuid: bool
    ) -> None:
        self.start = start
        self.end = end
        self.filters = filters
        self.filters_have_uuid = uuid

    def matches(self, rest: KeyPath) -> bool:
        """Whether a path after the group is in every constraint by path order."""
        return all(r.matches(rest) for r in self.filters)


def has_uuid(path: KeyPath) -> bool:
    """Whether a component of ``path`` has a UUID ID."""
    return any(isinstance(c.id, UUID) for c in path.components)


PathBound = Tuple[str, KeyPath]
"""``("gt"|"gte"|"lt"|"lte", the bound's path after the group)``."""


def plan(
    prefix_rest: KeyPath,
    bounds: Sequence[PathBound],
    index: bool,
    children: Optional[str] = None,
) -> Plan:
    """The plan of a query: the subtree of ``prefix_rest`` (the prefix after its group;
    with ``children``, the IDs of that namespace directly under it, as ``Query::children``),
    narrowed by path bounds, for an item list or (``index``) an index query."""
    start = b"\x00"
    end: Optional[bytes] = None
    filters: List[KeyRange] = []

    def narrow(s: bytes, e: Optional[bytes]) -> None:
        nonlocal start, end
        if s > start:
            start = s
        if e is not None and (end is None or e < end):
            end = e

    def image(b: bytes) -> bytes:
        return escape_rest(b) if index else b

    if children is None:
        subtree = KeyRange.subtree(prefix_rest)
    else:
        try:
            subtree = KeyRange.children(prefix_rest, children)
        except KeyPathError as e:
            raise LayoutError(f"children {children!r} of {prefix_rest}: {e}") from None
    narrow(image(subtree.start), None if subtree.end is None else image(subtree.end))
    filters.append(subtree)
    uuid = has_uuid(prefix_rest)
    for op, p in bounds:
        uuid = uuid or has_uuid(p)
        lower = op in ("gt", "gte")
        bound = Included(p) if op in ("gte", "lte") else Excluded(p)
        r = KeyRange.between_paths(bound, None) if lower else KeyRange.between_paths(None, bound)
        if index:
            at = escape_rest(p.encode())
            after = at + AFTER_REST_END
            if op == "gte":
                narrow(at, None)
            elif op == "gt":
                narrow(after, None)
            elif op == "lte":
                narrow(b"", after)
            else:
                narrow(b"", at)
        else:
            narrow(r.start, r.end)
        filters.append(r)
    return Plan(start, end, filters, uuid)
