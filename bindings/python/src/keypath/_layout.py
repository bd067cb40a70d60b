"""keypath-store's DynamoDB table layout (docs/DYNAMODB_LAYOUT.md) without any I/O: record
keys, envelopes, index entries, the native form and its shape, the configuration record,
field indexes, query ranges and cursors. The client in :mod:`keypath.dynamodb` sends what
these functions compute.

>>> from keypath import KeyPath
>>> [k.hex() for k in item_key(KeyPath.parse("/board-1/ticket-7"), {})]
['626f617264010801002811', '7469636b6574010807003011']
>>> item_key(KeyPath.parse("/customer-7"), {"customer": "last"})[1]
b'\\xff'
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from decimal import Decimal
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union
from uuid import UUID

from ._errors import KeyPathError
from ._layout_error import LayoutError
from ._msgpack import Float32
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


# --- The native form (section 4.2) -------------------------------------------------------

TAG_INT = ord("i")
TAG_F32 = ord("g")
TAG_F64 = ord("f")
TAG_STR = ord("s")
TAG_BIN = ord("b")
TAG_BOOL = ord("t")
TAG_NIL = ord("n")
TAG_ARRAY = ord("a")
TAG_MAP = ord("m")
MAX_NATIVE_DEPTH = 30
_MIN_MAGNITUDE = 1e-130
_MAX_MAGNITUDE = 9.99e125

Attr = Dict[str, Any]
"""A DynamoDB attribute value as boto3's low-level client has it (``{"N": "1"}``)."""


def float_text(f: float) -> str:
    """``f`` as Rust's ``{:e}`` writes an ``f64``: the shortest digits that read back as
    ``f``, one before the point, the exponent without ``+`` (``1.5e0``, ``2e1``)."""
    if f == 0.0:
        return "-0e0" if str(f).startswith("-") else "0e0"
    sign, digits, exponent = Decimal(repr(f)).as_tuple()
    assert isinstance(exponent, int)
    ds = list(digits)
    while len(ds) > 1 and ds[-1] == 0:
        ds.pop()
        exponent += 1
    while len(ds) > 1 and ds[0] == 0:
        ds.pop(0)
    exp10 = exponent + len(ds) - 1
    mantissa = str(ds[0]) + ("." + "".join(map(str, ds[1:])) if len(ds) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{exp10}"


def _write_varint(out: bytearray, n: int) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def to_native(value: Any) -> Optional[Tuple[Attr, bytes]]:
    """The native form of a payload value and its shape, or ``None`` when it has none
    that gives back exactly the bytes the value encodes to (section 4.1, rule 3)."""
    shape = bytearray()
    native = _to_native(value, shape, 0)
    if native is None:
        return None
    return native, bytes(shape)


def _to_native(value: Any, shape: bytearray, depth: int) -> Optional[Attr]:
    if depth > MAX_NATIVE_DEPTH:
        return None
    if value is None:
        shape.append(TAG_NIL)
        return {"NULL": True}
    if value is True or value is False:
        shape.append(TAG_BOOL)
        return {"BOOL": value}
    if isinstance(value, int):
        shape.append(TAG_INT)
        return {"N": str(value)}
    if isinstance(value, Float32):
        return None  # the f32 text is not the f64 one; kept as bytes
    if isinstance(value, float):
        m = abs(value)
        positive_zero = value == 0.0 and not str(value).startswith("-")
        if not (positive_zero or _MIN_MAGNITUDE <= m <= _MAX_MAGNITUDE):
            return None
        text = float_text(value)
        if float(text) != value:
            return None
        shape.append(TAG_F64)
        return {"N": text}
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        shape.append(TAG_STR)
        return {"S": value}
    if isinstance(value, (bytes, bytearray)):
        shape.append(TAG_BIN)
        return {"B": bytes(value)}
    if isinstance(value, (list, tuple)):
        shape.append(TAG_ARRAY)
        items = []
        for v in value:
            native = _to_native(v, shape, depth + 1)
            if native is None:
                return None
            items.append(native)
        return {"L": items}
    if isinstance(value, dict):
        shape.append(TAG_MAP)
        keys = list(value.keys())
        for k in keys:
            if not isinstance(k, str) or not k:
                return None
            try:
                if len(k.encode("utf-8")) > 65535:
                    return None
            except UnicodeEncodeError:
                return None
        ranks = {k: i for i, k in enumerate(sorted(keys, key=lambda k: k.encode("utf-8")))}
        out: Dict[str, Attr] = {}
        for k in keys:
            _write_varint(shape, ranks[k])
            native = _to_native(value[k], shape, depth + 1)
            if native is None:
                return None
            out[k] = native
        return {"M": out}
    return None


_UNSIGNED = re.compile(r"\+?[0-9]+\Z")
_SIGNED = re.compile(r"-[0-9]+\Z")


def from_native(native: Attr, shape: bytes) -> Any:
    """The payload value of a native ``item`` and its ``shape``; :class:`LayoutError` when
    they disagree (a tag against another attribute type, a rank out of range, shape bytes
    left over or missing)."""
    pos = [0]
    value = _from_native(native, shape, pos, 0)
    if pos[0] != len(shape):
        raise LayoutError(f"item does not match its shape: {len(shape) - pos[0]} shape bytes left over")
    return value


def _mismatch(what: str) -> LayoutError:
    return LayoutError(f"item does not match its shape: {what}")


def _from_native(native: Any, shape: bytes, pos: List[int], depth: int) -> Any:
    if depth > 64:
        raise _mismatch("nested too deep")
    if pos[0] >= len(shape):
        raise _mismatch("the shape ends early")
    tag = shape[pos[0]]
    pos[0] += 1
    if not isinstance(native, dict) or len(native) != 1:
        raise _mismatch(f"an attribute value that is not one type: {native!r:.80}")
    (kind, v), = native.items()
    if tag == TAG_NIL and kind == "NULL" and v is True:
        return None
    if tag == TAG_BOOL and kind == "BOOL" and isinstance(v, bool):
        return v
    if tag == TAG_INT and kind == "N" and isinstance(v, str):
        if _SIGNED.match(v):
            n = int(v)
            if n < -(1 << 63):
                raise _mismatch(f"the integer {v} is not an i64")
            return n
        if _UNSIGNED.match(v):
            n = int(v)
            if n > (1 << 64) - 1:
                raise _mismatch(f"the integer {v} is not a u64")
            return n
        raise _mismatch(f"the integer {v!r} is not an integer")
    if tag in (TAG_F32, TAG_F64) and kind == "N" and isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            raise _mismatch(f"the number {v!r} is not a float") from None
        if tag == TAG_F32:
            try:
                return Float32(struct.unpack(">f", struct.pack(">f", f))[0])
            except OverflowError:
                raise _mismatch(f"the number {v!r} is not an f32") from None
        return f
    if tag == TAG_STR and kind == "S" and isinstance(v, str):
        return v
    if tag == TAG_BIN and kind == "B" and isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if tag == TAG_ARRAY and kind == "L" and isinstance(v, list):
        return [_from_native(x, shape, pos, depth + 1) for x in v]
    if tag == TAG_MAP and kind == "M" and isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-8", "surrogatepass"))
        out: Dict[str, Any] = {}
        for _ in range(len(keys)):
            rank = 0
            shift = 0
            while True:
                if pos[0] >= len(shape):
                    raise _mismatch("the shape ends in a map key's rank")
                b = shape[pos[0]]
                pos[0] += 1
                rank |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
                if shift > 63:
                    raise _mismatch("a map key's rank is too long")
            if rank >= len(keys):
                raise _mismatch(f"rank {rank} in a map of {len(keys)} keys")
            key = keys[rank]
            out[key] = _from_native(v[key], shape, pos, depth + 1)
        return out
    raise _mismatch(f"tag {chr(tag)!r} against the attribute type {kind}")


def estimated_size(item: Dict[str, Attr]) -> int:
    """An upper bound of DynamoDB's size of an item, as the Rust writer estimates it."""
    return sum(len(k.encode("utf-8")) + _value_size(v) for k, v in item.items())


def _value_size(v: Attr) -> int:
    (kind, x), = v.items()
    if kind == "S":
        return len(x.encode("utf-8"))
    if kind == "B":
        return len(x)
    if kind == "N":
        return len(x) + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + _value_size(e) for e in x)
    if kind == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + _value_size(e) for k, e in x.items())
    return 0


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


# --- The configuration record (section 2.4) ----------------------------------------------


class IndexDecl:
    """One declared index: ``kind`` is ``"field"`` (with ``field`` and ``group``) or
    ``"program"``."""

    __slots__ = ("name", "item_type", "kind", "field", "group", "building")

    def __init__(
        self,
        name: str,
        item_type: str,
        kind: str,
        field: Optional[str] = None,
        group: Optional[str] = None,
        building: bool = False,
    ) -> None:
        self.name = name
        self.item_type = item_type
        self.kind = kind
        self.field = field
        self.group = group
        self.building = building

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"name": self.name, "type": self.item_type, "kind": self.kind}
        if self.kind == "field":
            out["field"] = self.field
            out["group"] = self.group
        if self.building:
            out["building"] = True
        return out


class Config:
    """The store's configuration record."""

    __slots__ = ("indexes", "group_versions", "types", "roots")

    def __init__(
        self,
        indexes: List[IndexDecl],
        group_versions: bool = False,
        types: Optional[List[str]] = None,
        roots: Optional[Dict[str, RootPlace]] = None,
    ) -> None:
        self.indexes = indexes
        self.group_versions = group_versions
        self.types = types
        self.roots: Dict[str, RootPlace] = roots or {}

    def to_json(self) -> bytes:
        """The record's bytes, as the Rust store writes them (fields in its order, compact
        JSON, UTF-8)."""
        out: Dict[str, Any] = {
            "format": 2 if self.roots else 1,
            "indexes": [d.to_json() for d in self.indexes],
        }
        if self.group_versions:
            out["group_versions"] = True
        if self.types is not None:
            out["types"] = list(self.types)
        if self.roots:
            out["roots"] = {
                ns: (place if isinstance(place, str) else {"before": place[1]})
                for ns, place in sorted(self.roots.items())
            }
        return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _config_error(what: str) -> LayoutError:
    return LayoutError(
        "the store's configuration record cannot be used (damaged, or written by another "
        f"release): {what}"
    )


def parse_config(data: bytes) -> Config:
    """Reads a configuration record's value (section 2.4), refusing what section 10
    lists."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _config_error(f"not a keypath store configuration: {e}") from None
    if not isinstance(raw, dict):
        raise _config_error("not a keypath store configuration: not a JSON object")
    fmt = raw.get("format")
    if type(fmt) is not int:
        raise _config_error("not a keypath store configuration: no integer format")
    if not 1 <= fmt <= 2:
        raise _config_error(
            f"configuration format {fmt}, this release reads formats 1 to 2 (written by "
            "another release of keypath-store)"
        )
    indexes_raw = raw.get("indexes")
    if not isinstance(indexes_raw, list):
        raise _config_error("not a keypath store configuration: no indexes list")
    indexes: List[IndexDecl] = []
    for d in indexes_raw:
        if not isinstance(d, dict):
            raise _config_error("not a keypath store configuration: an index is not an object")
        name, item_type, kind = d.get("name"), d.get("type"), d.get("kind")
        if not isinstance(name, str) or not isinstance(item_type, str):
            raise _config_error("not a keypath store configuration: an index without name or type")
        building = d.get("building", False)
        if not isinstance(building, bool):
            raise _config_error("not a keypath store configuration: building is not a boolean")
        if kind == "field":
            field, group = d.get("field"), d.get("group")
            if not isinstance(field, str) or not isinstance(group, str):
                raise _config_error(
                    "not a keypath store configuration: a field index without field or group"
                )
            decl = IndexDecl(name, item_type, "field", field, group, building)
        elif kind == "program":
            decl = IndexDecl(name, item_type, "program", building=building)
        else:
            raise _config_error(f"not a keypath store configuration: index kind {kind!r}")
        if not is_valid_index_name(name):
            raise _config_error(
                f"invalid index name {name!r}: expected 1 to 64 ASCII letters, digits or '_'"
            )
        if any(e.name == name and e.item_type == item_type for e in indexes):
            raise _config_error(f"index {name} of type {item_type} is declared twice")
        indexes.append(decl)
    group_versions = raw.get("group_versions", False)
    if not isinstance(group_versions, bool):
        raise _config_error("not a keypath store configuration: group_versions is not a boolean")
    types = raw.get("types")
    if types is not None and (
        not isinstance(types, list) or not all(isinstance(t, str) for t in types)
    ):
        raise _config_error("not a keypath store configuration: types is not a list of strings")
    roots_raw = raw.get("roots", {})
    if not isinstance(roots_raw, dict):
        raise _config_error("not a keypath store configuration: roots is not an object")
    roots: Dict[str, RootPlace] = {}
    for ns, place in roots_raw.items():
        if not is_namespace(ns):
            raise _config_error(f"invalid namespace {ns!r} for a root place")
        if place in ("first", "last"):
            roots[ns] = place
        elif (
            isinstance(place, dict)
            and list(place) == ["before"]
            and isinstance(place["before"], str)
            and is_namespace(place["before"])
        ):
            roots[ns] = ("before", place["before"])
        else:
            raise _config_error(f"invalid root place {place!r} for namespace {ns}")
    if roots and fmt < 2:
        raise _config_error("configuration format 1 with root placements, which need format 2")
    return Config(indexes, group_versions, None if types is None else list(types), roots)


# --- Field indexes (section 2.4.1) -------------------------------------------------------

_GROUP_FROM_FIELD = re.compile(r"/([A-Za-z_]+)-\{([A-Za-z_]+)\}\Z")


def _id_in_text(namespace: str, text: str) -> Optional[Union[int, UUID]]:
    try:
        probe = KeyPath.parse(f"/{namespace}-{text}")
    except KeyPathError:
        return None
    components = probe.components
    if len(components) != 1:
        return None
    found = components[0].id
    if isinstance(found, (int, UUID)) and not isinstance(found, bool):
        return found
    return None


class InvalidValue(LayoutError):
    """A value a field index refuses (the write is refused, nothing is written)."""


def _with_id(
    path: KeyPath, namespace: str, field: str, value: Any, index: str, item: KeyPath
) -> Optional[KeyPath]:
    got = value.get(field) if isinstance(value, dict) else None

    def wrong(what: str) -> InvalidValue:
        return InvalidValue(
            f"{item}: field {json.dumps(field)} is {what}; index {index} takes integers or strings"
        )

    if got is None:
        return None
    try:
        if got is True or got is False:
            raise wrong("a boolean")
        if isinstance(got, int):
            if not -(1 << 63) <= got <= (1 << 64) - 1:
                raise wrong(str(got))
            return path.push(namespace, got)
        if isinstance(got, float):
            raise wrong(json.dumps(got))
        if isinstance(got, str):
            found = _id_in_text(namespace, got)
            return path.push(namespace, found if found is not None else got)
        if isinstance(got, (list, tuple)):
            raise wrong("an array")
        if isinstance(got, dict):
            raise wrong("an object")
        raise wrong(f"a {type(got).__name__}")
    except KeyPathError as e:
        raise InvalidValue(f"{item}: index {index}: {e}") from None


def field_index_keys(config: Config, path: KeyPath, value: Any) -> List[Tuple[str, KeyPath]]:
    """The index keys of the field indexes of the item at ``path`` with ``value`` (its type
    the namespace of the path's last component), in declaration order."""
    item_type = path.components[-1].namespace if len(path) else ""
    out: List[Tuple[str, KeyPath]] = []
    for d in config.indexes:
        if d.item_type != item_type or d.kind != "field":
            continue
        assert d.group is not None and d.field is not None
        m = _GROUP_FROM_FIELD.match(d.group)
        if m:
            group = _with_id(KeyPath(), m.group(1), m.group(2), value, d.name, path)
            if group is None:
                continue
        else:
            group = KeyPath.parse(d.group)
        key = _with_id(group, d.field, d.field, value, d.name, path)
        if key is not None:
            out.append((d.name, key))
    return out


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
