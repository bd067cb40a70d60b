"""The native form of an item payload and its shape (docs/DYNAMODB_LAYOUT.md, section
4.2): a MessagePack value as DynamoDB attributes, with what they cannot say (integer or
float, map key order) in a pre-order walk of tag bytes.

>>> to_native({"board": 1, "title": "Fix"})
({'M': {'board': {'N': '1'}, 'title': {'S': 'Fix'}}}, b'm\\x00i\\x01s')
>>> from_native({"M": {"board": {"N": "1"}}}, b"m\\x00f")
{'board': 1.0}
"""

from __future__ import annotations

import re
import struct
from decimal import Decimal
from typing import Any, Dict, List, Optional, Tuple

from ._layout_error import LayoutError
from ._msgpack import Float32

__all__ = ["to_native", "from_native", "float_text", "estimated_size"]

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


