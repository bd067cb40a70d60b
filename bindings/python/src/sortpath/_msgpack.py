"""A small MessagePack codec for item payloads (docs/DYNAMODB_LAYOUT.md, section 3).

The encoder writes every value in MessagePack's smallest form, as the Rust store's writer
(rmp/rmpv) does: positive integers as positive fixint or the smallest unsigned width,
negative ones as negative fixint or the smallest signed width, strings as fixstr, str 8, 16
or 32, floats as float 64, maps in their insertion order. The decoder reads every form
(a payload another writer made need not be minimal) and raises only
:class:`~sortpath._layout.LayoutError`.

Values: ``None``, ``bool``, ``int`` (``-(2**63)`` to ``2**64 - 1``), ``float``, ``str``,
``bytes``, ``list`` (or ``tuple``) and ``dict`` with ``str`` keys (decoded maps may have
other keys: integers, for instance).

>>> from sortpath._msgpack import encode, decode
>>> encode({"board": 1, "title": "Fix", "updated": 20}).hex()
'83a5626f61726401a57469746c65a3466978a77570646174656414'
>>> decode(bytes.fromhex("9203d0d8"))
[3, -40]
"""

from __future__ import annotations

import struct
from typing import Any, Dict, List, Optional, Tuple

from ._layout_error import LayoutError

__all__ = ["encode", "decode", "decode_prefix", "MAX_DEPTH"]

MAX_DEPTH = 512
"""The deepest nesting of arrays and maps: the encoder writes at most this many nested (as
every writer of a store does, so that every reader reads the value back), and the decoder
follows them (a bound on recursion)."""

_U64_MAX = (1 << 64) - 1
_I64_MIN = -(1 << 63)


def encode(value: Any) -> bytes:
    """The MessagePack bytes of ``value`` in the smallest form.

    Raises :class:`LayoutError` for a value MessagePack cannot hold (an integer outside
    64 bits, a type other than those listed in the module doc, a string that is not
    Unicode text).
    """
    out = bytearray()
    _encode(value, out, 0)
    return bytes(out)


def _encode(value: Any, out: bytearray, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise LayoutError(f"a value nested more than {MAX_DEPTH} levels deep")
    if value is None:
        out.append(0xC0)
    elif value is True:
        out.append(0xC3)
    elif value is False:
        out.append(0xC2)
    elif isinstance(value, int):
        _encode_int(value, out)
    elif isinstance(value, Float32):
        out.append(0xCA)
        out += struct.pack(">f", value)
    elif isinstance(value, float):
        out.append(0xCB)
        out += struct.pack(">d", value)
    elif isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise LayoutError(f"a string that is not Unicode text: {e}") from None
        n = len(data)
        if n < 32:
            out.append(0xA0 | n)
        elif n < 0x100:
            out += bytes((0xD9, n))
        elif n < 0x10000:
            out.append(0xDA)
            out += struct.pack(">H", n)
        else:
            out.append(0xDB)
            out += struct.pack(">I", n)
        out += data
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        n = len(data)
        if n < 0x100:
            out += bytes((0xC4, n))
        elif n < 0x10000:
            out.append(0xC5)
            out += struct.pack(">H", n)
        else:
            out.append(0xC6)
            out += struct.pack(">I", n)
        out += data
    elif isinstance(value, (list, tuple)):
        _check_nesting(depth)
        n = len(value)
        if n < 16:
            out.append(0x90 | n)
        elif n < 0x10000:
            out.append(0xDC)
            out += struct.pack(">H", n)
        else:
            out.append(0xDD)
            out += struct.pack(">I", n)
        for v in value:
            _encode(v, out, depth + 1)
    elif isinstance(value, dict):
        _check_nesting(depth)
        n = len(value)
        if n < 16:
            out.append(0x80 | n)
        elif n < 0x10000:
            out.append(0xDE)
            out += struct.pack(">H", n)
        else:
            out.append(0xDF)
            out += struct.pack(">I", n)
        for k, v in value.items():
            _encode(k, out, depth + 1)
            _encode(v, out, depth + 1)
    else:
        raise LayoutError(f"a value of type {type(value).__name__} has no MessagePack form")


def _check_nesting(depth: int) -> None:
    """An array or map inside ``depth`` others: refused past :data:`MAX_DEPTH` levels."""
    if depth >= MAX_DEPTH:
        raise LayoutError(f"a value nested more than {MAX_DEPTH} levels deep")


def _encode_int(v: int, out: bytearray) -> None:
    if v < _I64_MIN or v > _U64_MAX:
        raise LayoutError(f"the integer {v} does not fit in 64 bits")
    if v >= 0:
        if v < 0x80:
            out.append(v)
        elif v < 0x100:
            out += bytes((0xCC, v))
        elif v < 0x10000:
            out.append(0xCD)
            out += struct.pack(">H", v)
        elif v < 0x1_0000_0000:
            out.append(0xCE)
            out += struct.pack(">I", v)
        else:
            out.append(0xCF)
            out += struct.pack(">Q", v)
    elif v >= -32:
        out.append(v & 0xFF)
    elif v >= -0x80:
        out.append(0xD0)
        out += struct.pack(">b", v)
    elif v >= -0x8000:
        out.append(0xD1)
        out += struct.pack(">h", v)
    elif v >= -0x8000_0000:
        out.append(0xD2)
        out += struct.pack(">i", v)
    else:
        out.append(0xD3)
        out += struct.pack(">q", v)


class Float32(float):
    """A float that was a MessagePack float 32 (so that it is written back as one)."""

    __slots__ = ()


def decode(data: bytes) -> Any:
    """The value of the MessagePack bytes ``data``, which must hold exactly one value.

    Maps become ``dict`` (in their order; a later duplicate key replaces an earlier one),
    arrays ``list`` (``tuple`` in a map key), binary ``bytes``, float 32 a :class:`Float32`.
    A map key that is or holds a map, ext types, truncated
    input, invalid UTF-8 and trailing bytes raise :class:`LayoutError`.
    """
    value, end = decode_prefix(data, 0)
    if end != len(data):
        raise LayoutError(
            f"MessagePack: expected the end of the value at byte {end}, "
            f"found {len(data) - end} more bytes"
        )
    return value


def decode_prefix(data: bytes, start: int) -> Tuple[Any, int]:
    """The value starting at ``start`` and the offset after it."""
    return _decode(data, start, 0)


def _take(data: bytes, at: int, n: int) -> bytes:
    if at + n > len(data):
        raise LayoutError(
            f"MessagePack: expected {n} bytes at byte {at}, found the end after "
            f"{max(0, len(data) - at)}"
        )
    return data[at : at + n]


def _str(data: bytes, at: int, n: int) -> Tuple[str, int]:
    raw = _take(data, at, n)
    try:
        return raw.decode("utf-8"), at + n
    except UnicodeDecodeError:
        raise LayoutError(f"MessagePack: the string at byte {at} is not UTF-8") from None


_FIXED = {
    0xCC: ">B",
    0xCD: ">H",
    0xCE: ">I",
    0xCF: ">Q",
    0xD0: ">b",
    0xD1: ">h",
    0xD2: ">i",
    0xD3: ">q",
}


def _decode(data: bytes, at: int, depth: int) -> Tuple[Any, int]:
    """The value at ``at`` (nested ``depth`` deep) and the offset after it: a loop over an
    explicit stack of the arrays and maps being filled, so that a value nested
    :data:`MAX_DEPTH` deep decodes on any Python stack (no recursion). An array that is a
    map key (or inside one) becomes a ``tuple``, hashable as a ``dict`` key must be."""
    # Each open container: [the list or dict, the values or entries still to read, the key
    # read of the entry being read or _NO_KEY, the offset where that key started, whether
    # the container is (inside) a map key].
    stack: List[List[Any]] = []
    while True:
        in_key = False
        if stack:
            parent = stack[-1]
            if isinstance(parent[0], dict) and parent[2] is _NO_KEY:
                parent[3] = at
                in_key = True
            else:
                in_key = parent[4]
        if depth + len(stack) > MAX_DEPTH:
            raise LayoutError(f"MessagePack: nested more than {MAX_DEPTH} levels at byte {at}")
        value, at, count = _decode_one(data, at)
        if count is not None and count > 0:
            stack.append([value, count, _NO_KEY, 0, in_key])
            continue
        if in_key and isinstance(value, list):
            value = ()
        # A complete value: place it in the open containers, closing those it fills.
        while True:
            if not stack:
                return value, at
            frame = stack[-1]
            container = frame[0]
            if isinstance(container, list):
                container.append(value)
            elif frame[2] is _NO_KEY:
                try:
                    hash(value)
                except TypeError:
                    raise LayoutError(
                        f"MessagePack: the map key at byte {frame[3]} is a map or holds one"
                    ) from None
                frame[2] = value
                break
            else:
                container[frame[2]] = value
                frame[2] = _NO_KEY
            frame[1] -= 1
            if frame[1] > 0:
                break
            stack.pop()
            value = tuple(container) if frame[4] and isinstance(container, list) else container


_NO_KEY = object()


def _decode_one(data: bytes, at: int) -> Tuple[Any, int, Optional[int]]:
    """One value at ``at`` and the offset after it; for an array or a map, an empty
    ``list``/``dict`` and the number of values or entries that follow, else
    ``None`` as that number."""
    b = _take(data, at, 1)[0]
    at += 1
    if b < 0x80:
        return b, at, None
    if b >= 0xE0:
        return b - 0x100, at, None
    if 0xA0 <= b <= 0xBF:
        text, at = _str(data, at, b & 0x1F)
        return text, at, None
    if 0x90 <= b <= 0x9F:
        return _array(data, at, b & 0x0F)
    if 0x80 <= b <= 0x8F:
        return _map(data, at, b & 0x0F)
    if b == 0xC0:
        return None, at, None
    if b == 0xC2:
        return False, at, None
    if b == 0xC3:
        return True, at, None
    fmt = _FIXED.get(b)
    if fmt is not None:
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, _take(data, at, size))[0], at + size, None
    if b == 0xCA:
        return Float32(struct.unpack(">f", _take(data, at, 4))[0]), at + 4, None
    if b == 0xCB:
        return struct.unpack(">d", _take(data, at, 8))[0], at + 8, None
    if b in (0xD9, 0xDA, 0xDB, 0xC4, 0xC5, 0xC6, 0xDC, 0xDD, 0xDE, 0xDF):
        width = {0xD9: 1, 0xC4: 1, 0xDA: 2, 0xC5: 2, 0xDC: 2, 0xDE: 2}.get(b, 4)
        n = int.from_bytes(_take(data, at, width), "big")
        at += width
        if b in (0xD9, 0xDA, 0xDB):
            text, at = _str(data, at, n)
            return text, at, None
        if b in (0xC4, 0xC5, 0xC6):
            return _take(data, at, n), at + n, None
        if b in (0xDC, 0xDD):
            return _array(data, at, n)
        return _map(data, at, n)
    raise LayoutError(
        f"MessagePack: expected a value at byte {at - 1}, found the marker {b:02x} "
        "(an ext type or a reserved byte)"
    )


def _array(data: bytes, at: int, n: int) -> Tuple[List[Any], int, int]:
    if n > len(data) - at:
        raise LayoutError(f"MessagePack: an array of {n} values in {len(data) - at} bytes")
    return [], at, n


def _map(data: bytes, at: int, n: int) -> Tuple[Dict[Any, Any], int, int]:
    if 2 * n > len(data) - at:
        raise LayoutError(f"MessagePack: a map of {n} entries in {len(data) - at} bytes")
    return {}, at, n
