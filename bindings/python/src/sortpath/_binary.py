"""The binary form of key paths (docs/FORMAT.md, "Binary form").

``{segment} 01 {segment} 01 ... {segment} 00 {varint} ... {varint}``: segments are the
namespaces and IDs in order, then one varint ``(length << 3) | type`` per segment. The
metadata comes last so it never decides the order. Decoding reads it backwards from the
end, since integer and UUID segments may hold ``00`` and ``01`` bytes.
"""

from __future__ import annotations

import operator
import re
from typing import Any, Dict, List, Optional, Tuple, Union
from uuid import UUID, SafeUUID

from ._errors import KeyPathError, rust_debug_str

__all__ = [
    "Id",
    "Components",
    "SEPARATOR",
    "TERMINATOR",
    "encode_components",
    "encode_segments",
    "encode_id",
    "decode_components",
    "is_valid_namespace",
]

Id = Union[int, str, bytes, UUID]
"""An ID: ``int`` (``-(2**64-1) ..= 2**64-1``), ``str``, ``bytes`` or ``uuid.UUID``."""

# Invariant of every Components value: valid namespaces; IDs of exactly the types int,
# str, bytes or UUID (no subclasses), ints in range; only the last ID may be None.
Components = Tuple[Tuple[str, Optional[Id]], ...]

SEPARATOR = 0x01
TERMINATOR = 0x00
TYPE_NAMESPACE = 0
TYPE_INT = 1
TYPE_STRING = 2
TYPE_BYTES = 3
TYPE_UUID = 4
TYPE_BITS = 3
ESCAPE = 0x10
ESCAPE_MAX_RAW = 0x10
ESCAPE_OFFSET = 0x02
EMPTY_STRING = b"\x10"
BYTES_MARKER = 0xFF
SORT_BYTE_ZERO = 0x07
SORT_BYTE_MAX = 0x0F
INT_MAX = 2**64 - 1
VARINT_MAX_LEN = 10

_NEEDS_ESCAPE = re.compile(b"[\x00-\x10]")
_ESCAPED = re.compile(b"\x10([\x02-\x12])")
_ESCAPES = {bytes([b]): bytes([ESCAPE, b + ESCAPE_OFFSET]) for b in range(ESCAPE_MAX_RAW + 1)}
_UNESCAPES = {bytes([b + ESCAPE_OFFSET]): bytes([b]) for b in range(ESCAPE_MAX_RAW + 1)}
_NAMESPACE = re.compile("[A-Za-z_]+")

# Namespace -> (its bytes, its metadata varint's bytes). Namespaces are few; the cache is
# bounded.
_NS_CACHE: Dict[str, Tuple[bytes, Tuple[int, ...]]] = {}
_NS_CACHE_MAX = 4096
_UUID_META = (0x84, 0x01)  # (16 << 3) | 4 = 132, two varint bytes


def is_valid_namespace(namespace: str) -> bool:
    """Whether ``namespace`` is one or more ASCII letters or ``_``."""
    return namespace in _NS_CACHE or _NAMESPACE.fullmatch(namespace) is not None


def escape(raw: bytes) -> bytes:
    """Raw bytes ``00..=10`` as ``10`` then ``byte + 02``; every other byte as itself."""
    if _NEEDS_ESCAPE.search(raw) is None:
        return raw
    return _NEEDS_ESCAPE.sub(lambda m: _ESCAPES[m.group()], raw)


def encode_int(v: int) -> bytes:
    """The sort-byte integer: one sort byte (``7+k`` positive, ``8-k`` negative or zero,
    ``k`` magnitude bytes), then the minimal big-endian magnitude, inverted if negative."""
    if v > 0:
        k = (v.bit_length() + 7) >> 3
        return (v | ((7 + k) << (k << 3))).to_bytes(k + 1, "big")
    m = -v
    k = ((m.bit_length() + 7) >> 3) or 1
    bits = k << 3
    return (((8 - k) << bits) | (((1 << bits) - 1) ^ m)).to_bytes(k + 1, "big")


def encode_id(id: Id) -> Tuple[bytes, int]:
    """An ID's segment bytes and type code."""
    t = type(id)
    if t is int:
        return encode_int(id), TYPE_INT  # type: ignore[arg-type]
    if t is str:
        if not id:
            return EMPTY_STRING, TYPE_STRING
        raw = id.encode("utf-8")  # type: ignore[union-attr]
        if _NEEDS_ESCAPE.search(raw) is None:
            return raw, TYPE_STRING
        return escape(raw), TYPE_STRING
    if t is UUID:
        return id.bytes, TYPE_UUID  # type: ignore[union-attr]
    return b"\xff" + escape(id), TYPE_BYTES  # type: ignore[arg-type]


def varint(value: int) -> Tuple[int, ...]:
    """Protobuf-style varint: 7 bits a byte, least significant first, high bit = more."""
    out = []
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return tuple(out)


def _namespace_info(namespace: str) -> Tuple[bytes, Tuple[int, ...]]:
    info = _NS_CACHE.get(namespace)
    if info is None:
        data = namespace.encode("ascii")
        info = (data, varint(len(data) << TYPE_BITS))
        if len(_NS_CACHE) < _NS_CACHE_MAX:
            _NS_CACHE[namespace] = info
    return info


def encode_components(components: Components) -> bytes:
    """The binary form of a (valid) list of components."""
    segments: List[bytes] = []
    metas: List[int] = []
    append_segment = segments.append
    append_meta = metas.append
    extend_meta = metas.extend
    for namespace, id in components:
        info = _NS_CACHE.get(namespace) or _namespace_info(namespace)
        append_segment(info[0])
        extend_meta(info[1])
        if id is not None:
            t = type(id)
            if t is int:
                data = encode_int(id)  # type: ignore[arg-type]
                append_segment(data)
                append_meta((len(data) << TYPE_BITS) | TYPE_INT)  # at most 9 bytes
            elif t is UUID:
                append_segment(id.bytes)  # type: ignore[union-attr]
                extend_meta(_UUID_META)
            else:
                data, code = encode_id(id)
                append_segment(data)
                meta = (len(data) << TYPE_BITS) | code
                if meta < 0x80:
                    append_meta(meta)
                else:
                    extend_meta(varint(meta))
    return b"\x01".join(segments) + b"\x00" + bytes(metas)


def encode_segments(components: Components) -> bytes:
    """The segment section alone: segments joined by ``01``, no terminator or metadata."""
    segments: List[bytes] = []
    for namespace, id in components:
        segments.append(_namespace_info(namespace)[0])
        if id is not None:
            segments.append(encode_id(id)[0])
    return b"\x01".join(segments)


# --- decoding ---------------------------------------------------------------------------

_METADATA = "expected segment metadata (varints) that accounts for every byte, found "


def _metadata_error(offset: int, what: str) -> KeyPathError:
    return KeyPathError(offset, _METADATA + what)


def _varint_at(data: bytes, start: int) -> Tuple[int, int]:
    """The varint that starts at ``start``: its value and length. Rejects overlong forms
    and values of 2**64 and above, so each value has one encoding."""
    value = 0
    for i in range(min(VARINT_MAX_LEN, len(data) - start)):
        b = data[start + i]
        chunk = b & 0x7F
        shift = 7 * i
        if shift and chunk >> (64 - shift):
            raise _metadata_error(start, "a varint above 2^64")
        value |= chunk << shift
        if not b & 0x80:
            if i and not b:
                raise _metadata_error(start, "an overlong varint")
            return value, i + 1
    raise _metadata_error(start, "an unterminated varint")


def _varint_ending_at(data: bytes, end: int) -> Tuple[int, int]:
    """The varint that ends just before ``end``: its value and where it starts."""
    last = data[end - 1] if end else 0x80
    if last & 0x80:
        raise _metadata_error(max(end - 1, 0), "a varint whose last byte has the continuation bit")
    if end < 2 or not data[end - 2] & 0x80:
        return last, end - 1
    start = end - 1
    while start > 0 and data[start - 1] & 0x80:
        start -= 1
        if end - start > VARINT_MAX_LEN:
            raise _metadata_error(end - 1, "a varint longer than 10 bytes")
    return _varint_at(data, start)[0], start


def find_metadata(data: bytes) -> Tuple[List[int], int]:
    """The metadata varints in order, and where the metadata starts: varints are read
    backwards from the end until segments, separators, terminator and metadata account
    for every byte (the sum grows by two or more per segment, so one count fits at most)."""
    total = len(data)
    if total < 2:
        if total == 0:
            raise KeyPathError(0, "expected a key path encoding, found no bytes")
        if data[0] == TERMINATOR:
            return [], 1  # the empty path
    metas: List[int] = []
    append = metas.append
    segment_bytes = 0
    end = total
    while True:
        last = data[end - 1]
        before = data[end - 2] if end >= 2 else 0
        if not (last | before) & 0x80:
            value = last  # a one-byte varint (a segment shorter than 16 bytes)
            start = end - 1
        elif 0 < last < 0x80 and before & 0x80 and end >= 3 and not data[end - 3] & 0x80:
            value = (before & 0x7F) | (last << 7)  # a two-byte varint, not overlong
            start = end - 2
        else:
            value, start = _varint_ending_at(data, end)
        append(value)
        segment_bytes += value >> TYPE_BITS
        # segments + (count - 1) separators + terminator + metadata
        needed = segment_bytes + len(metas) + total - start
        if needed >= total or start == 0:
            if needed == total:
                metas.reverse()
                return metas, start
            raise _metadata_error(start, "lengths that do not add up to the input length")
        end = start


def _escape_error(offset: int, found: int) -> KeyPathError:
    return KeyPathError(
        offset,
        "expected an escaped ID byte (0x10 then 0x02..=0x12, or a byte >= 0x11), "
        f"found 0x{found:02X}",
    )


def _unescape(data: bytes, start: int, end: int) -> bytes:
    """The raw bytes of escaped content ``data[start:end]``; rejects anything the escaper
    does not produce, with the offset of the bad byte."""
    content = data[start:end]
    if _NEEDS_ESCAPE.search(content) is None:
        return content
    i = 0
    n = len(content)
    while i < n:
        b = content[i]
        if b == ESCAPE:
            if i + 1 < n and ESCAPE_OFFSET <= content[i + 1] <= ESCAPE_MAX_RAW + ESCAPE_OFFSET:
                i += 2
                continue
            found = content[i + 1] if i + 1 < n else b
            raise _escape_error(start + i, found)
        if b < ESCAPE:
            raise _escape_error(start + i, b)
        i += 1
    return _ESCAPED.sub(lambda m: _UNESCAPES[m.group(1)], content)


_INT_ERROR = "invalid integer ID: "


def decode_int(data: bytes, start: int, end: int) -> int:
    """The sort-byte integer that is exactly ``data[start:end]`` (canonical form only)."""
    if start >= end:
        raise KeyPathError(start, _INT_ERROR + "expected an integer sort byte, found the end of input")
    sort = data[start]
    if sort > SORT_BYTE_MAX:
        raise KeyPathError(
            start, _INT_ERROR + f"expected an integer sort byte 0x00..=0x0F, found 0x{sort:02X}"
        )
    negative_or_zero = sort <= SORT_BYTE_ZERO
    k = 8 - sort if negative_or_zero else sort - 7
    needed = 1 + k
    if end - start < needed:
        raise KeyPathError(start, _INT_ERROR + f"integer needs {needed} bytes, found {end - start}")
    stored = int.from_bytes(data[start + 1 : start + needed], "big")
    magnitude = stored ^ ((1 << (k << 3)) - 1) if negative_or_zero else stored
    if magnitude >> ((k - 1) << 3) == 0 and not (sort == SORT_BYTE_ZERO and magnitude == 0):
        raise KeyPathError(start, _INT_ERROR + "integer magnitude is not minimal (leading zero byte)")
    if needed != end - start:
        raise _metadata_error(start, "an integer shorter than its segment")
    return -magnitude if negative_or_zero else magnitude


def _decode_id(data: bytes, offset: int, length: int, code: int) -> Id:
    end = offset + length
    if code == TYPE_INT:
        return decode_int(data, offset, end)
    if code == TYPE_UUID:
        if length != 16:
            raise KeyPathError(offset, f"expected a 16-byte UUID, found {length} bytes")
        return UUID(bytes=data[offset:end])
    if code == TYPE_STRING:
        if length == 1 and data[offset] == ESCAPE:
            return ""
        raw = _unescape(data, offset, end)
        if not raw:
            raise _metadata_error(offset, "an empty string segment")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise KeyPathError(offset, "expected a UTF-8 string ID, found invalid UTF-8") from None
    if code == TYPE_BYTES:
        if length == 0:
            raise KeyPathError(offset, "expected the byte-string marker 0xFF, found an empty segment")
        if data[offset] != BYTES_MARKER:
            raise KeyPathError(
                offset, f"expected the byte-string marker 0xFF, found 0x{data[offset]:02X}"
            )
        return bytes(_unescape(data, offset + 1, end))
    raise KeyPathError(offset, f"expected an ID segment, found type code {code}")


def _separator_error(offset: int, expected: int, found: int) -> KeyPathError:
    return KeyPathError(
        offset, f"expected separator 0x{expected:02X} after a segment, found 0x{found:02X}"
    )


# Namespace bytes -> the namespace, for namespaces already seen valid.
_NS_DECODED: Dict[bytes, str] = {}


def _decode_namespace(data: bytes, offset: int, length: int) -> str:
    raw = data[offset : offset + length]
    try:
        namespace = raw.decode("ascii")
    except UnicodeDecodeError:
        namespace = ""
    if _NAMESPACE.fullmatch(namespace) is None:
        lossy = raw.decode("utf-8", "replace")
        raise KeyPathError(
            offset,
            f"expected a namespace of ASCII letters or '_', found {rust_debug_str(lossy)}",
        )
    if len(_NS_DECODED) < _NS_CACHE_MAX:
        _NS_DECODED[raw] = namespace
    return namespace


# A layout: where an encoding's segments lie, as its metadata says. Step i is
# (namespace start, namespace end, ID start, ID end, ID type code), the ID fields -1 for
# a namespace-only component; the getter reads the separator and terminator bytes, which
# must equal the expected tuple.
_Step = Tuple[int, int, int, int, int]
_Layout = Tuple[int, bytes, "operator.itemgetter[Any]", Tuple[int, ...], Tuple[_Step, ...]]
# Layouts by input length, for inputs whose metadata bytes match: the backward reading of
# the metadata depends only on those bytes and on the terminator before them, so equal
# bytes there give the same layout.
_LAYOUTS: Dict[int, List[_Layout]] = {}
_LAYOUTS_MAX = 4096
_layout_count = 0


def _make_layout(data: bytes, metas: List[int], metadata_start: int) -> Optional[_Layout]:
    steps: List[_Step] = []
    marks: List[int] = []
    offset = 0
    count = len(metas)
    for i in range(0, count, 2):
        ns_end = offset + (metas[i] >> TYPE_BITS)
        if metas[i] & 7 != TYPE_NAMESPACE:
            return None
        marks.append(ns_end)
        if i + 1 == count:
            steps.append((offset, ns_end, -1, -1, -1))
            break
        id_end = ns_end + 1 + (metas[i + 1] >> TYPE_BITS)
        marks.append(id_end)
        steps.append((offset, ns_end, ns_end + 1, id_end, metas[i + 1] & 7))
        offset = id_end + 1
    if len(marks) < 2:
        return None  # itemgetter of one index returns the byte, not a tuple: not worth it
    expected = (SEPARATOR,) * (len(marks) - 1) + (TERMINATOR,)
    return (metadata_start, data[metadata_start:], operator.itemgetter(*marks), expected, tuple(steps))


def decode_components(data: bytes) -> Components:
    """The components of an encoding; only canonical encodings decode, and anything else
    raises :class:`KeyPathError` with the byte offset of the first problem."""
    global _layout_count
    known = False
    for layout in _LAYOUTS.get(len(data), ()):
        if data[layout[0] :] == layout[1]:
            found = _decode_layout(data, layout)
            if found is not None:
                return found
            known = True
            break
    metas, metadata_start = find_metadata(data)
    if not metas:
        return ()
    made = _make_layout(data, metas, metadata_start)
    if made is not None:
        # The layout follows from the metadata alone, whether or not the rest is valid.
        if not known and _layout_count < _LAYOUTS_MAX:
            _LAYOUTS.setdefault(len(data), []).append(made)
            _layout_count += 1
        found = _decode_layout(data, made)
        if found is not None:
            return found
    return _decode_checked(data, metas)


def _decode_layout(data: bytes, layout: _Layout) -> Optional[Components]:
    """The components, for encodings of a known layout whose namespaces were seen before
    and whose IDs are integers, UUIDs, or strings and bytes without escapes; ``None`` for
    anything else or anything wrong, which :func:`_decode_checked` then decodes or reports.
    Accepts exactly what that accepts for these shapes (the fuzz tests compare
    re-encodings)."""
    _, _, getter, expected, steps = layout
    if getter(data) != expected:
        return None
    components: List[Tuple[str, Optional[Id]]] = []
    append = components.append
    ns_get = _NS_DECODED.get
    id: Id
    for ns_start, ns_end, start, end, code in steps:
        namespace = ns_get(data[ns_start:ns_end])
        if namespace is None:
            return None
        if code == 1:
            sort = data[start]
            # A positive integer (sort byte 08..0F) of exactly its segment, minimal.
            if 7 < sort <= 15 and end - start == sort - 6 and data[start + 1]:
                id = int.from_bytes(data[start + 1 : end], "big")
            else:
                try:
                    id = decode_int(data, start, end)
                except KeyPathError:
                    return None
        elif code == 4:
            if end - start != 16:
                return None
            id = _uuid_from_bytes(data[start:end])
        elif code == 2:
            raw = data[start:end]
            if raw == EMPTY_STRING:
                id = ""
            elif not raw or _NEEDS_ESCAPE.search(raw) is not None:
                return None
            else:
                try:
                    id = raw.decode("utf-8")
                except UnicodeDecodeError:
                    return None
        elif code == 3:
            raw = data[start:end]
            if raw[:1] != b"\xff" or _NEEDS_ESCAPE.search(raw, 1) is not None:
                return None
            id = raw[1:]
        elif code < 0:
            append((namespace, None))
            break
        else:
            return None
        append((namespace, id))
    return tuple(components)


def _decode_checked(data: bytes, metas: List[int]) -> Components:
    """The components, one segment at a time, with an error for whatever is wrong."""
    count = len(metas)
    components: List[Tuple[str, Optional[Id]]] = []
    append = components.append
    offset = 0
    index = 0
    # Segments come in (namespace, ID) pairs; the byte after each segment is checked
    # before the segment itself, in the order the Rust decoder reports problems.
    while index < count:
        meta = metas[index]
        length = meta >> TYPE_BITS
        ns_offset = offset
        offset += length
        index += 1
        expected = SEPARATOR if index < count else TERMINATOR
        if data[offset] != expected:
            raise _separator_error(offset, expected, data[offset])
        offset += 1
        if meta & 7 != TYPE_NAMESPACE:
            raise KeyPathError(ns_offset, f"expected a namespace segment, found type code {meta & 7}")
        namespace = _NS_DECODED.get(data[ns_offset : ns_offset + length])
        if namespace is None:
            namespace = _decode_namespace(data, ns_offset, length)
        if index == count:
            append((namespace, None))
            break
        meta = metas[index]
        length = meta >> TYPE_BITS
        id_offset = offset
        offset += length
        index += 1
        expected = SEPARATOR if index < count else TERMINATOR
        if data[offset] != expected:
            raise _separator_error(offset, expected, data[offset])
        offset += 1
        code = meta & 7
        if code == TYPE_INT:
            sort = data[id_offset]
            # A positive integer (sort byte 08..0F) of exactly its segment, minimal.
            if 7 < sort <= SORT_BYTE_MAX and length == sort - 6 and data[id_offset + 1]:
                append((namespace, int.from_bytes(data[id_offset + 1 : offset - 1], "big")))
                continue
        elif code == TYPE_UUID and length == 16:
            append((namespace, _uuid_from_bytes(data[id_offset : offset - 1])))
            continue
        append((namespace, _decode_id(data, id_offset, length, code)))
    return tuple(components)


def _uuid_checked(raw: bytes) -> UUID:
    return UUID(bytes=raw)


def _uuid_unchecked(raw: bytes) -> UUID:
    # What UUID(bytes=raw) does (uuid.UUID.__init__ sets these two slots the same way),
    # without its argument checks: raw is 16 bytes.
    u = object.__new__(UUID)
    object.__setattr__(u, "int", int.from_bytes(raw, "big"))
    object.__setattr__(u, "is_safe", SafeUUID.unknown)
    return u


# The fast way where UUID stores exactly these slots (CPython 3.9 to 3.14 do).
_uuid_from_bytes = (
    _uuid_unchecked
    if set(getattr(UUID, "__slots__", ())) == {"int", "is_safe", "__weakref__"}
    else _uuid_checked
)
