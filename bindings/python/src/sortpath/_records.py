"""Records as the table client reads and writes them: a stored record's version and value,
items and projected entries from them, the key a foreign record is named by, scan bounds,
and the pause between retries."""

from __future__ import annotations

import random
import time
from typing import Any, Dict, List, Optional, Tuple

from . import _msgpack
from ._errors import KeyPathError
from ._layout import MAX_SORT_KEY, is_placed_root, parse_header
from ._layout_error import LayoutError
from ._native import from_native
from ._path import KeyPath
from ._table_types import (
    KeyLike,
    Item,
    InvalidRequest,
    ForeignRecord,
)

_MAX_ATTEMPTS = 1000
"""Attempts of a write that keeps losing races (the Rust store's bound)."""
_SCAN_BATCH = 1000
"""The most records one scan of a list or index query reads."""
_MAX_BATCH_GET = 100
"""DynamoDB's limit of keys per ``BatchGetItem``."""
_ALL_OLD = "ALL_OLD"


class _Conflict(Exception):
    """The item changed between an update's read and its write."""


def _path(key: KeyLike) -> KeyPath:
    if isinstance(key, KeyPath):
        return key
    if isinstance(key, str):
        try:
            return KeyPath.parse(key)
        except KeyPathError as e:
            raise InvalidRequest(f"key path {key!r}: {e}") from None
    raise InvalidRequest(f"expected a KeyPath or its text, found {type(key).__name__}")


def _b(data: bytes) -> Dict[str, Any]:
    return {"B": data}


def _describe(pk: bytes, sk: bytes) -> str:
    try:
        return str(KeyPath.from_group(pk, sk))
    except KeyPathError:
        pass
    try:
        group = str(KeyPath.decode(pk))
    except KeyPathError:
        return f"pk {pk.hex()} sk {sk.hex()}"
    if is_placed_root(sk):
        return group
    return f"group {group}, sk {sk.hex()}"


def _foreign(pk: bytes, sk: bytes, why: str) -> ForeignRecord:
    return ForeignRecord(f"the record at {_describe(pk, sk)} is not a sortpath item: {why}")


def _stored_record(attrs: Dict[str, Any], pk: bytes, sk: bytes) -> Tuple[int, bytes]:
    """(version, value bytes) of a stored record, value from ``val`` or the native form
    (index key paths a GSI keeps still elided)."""
    ver = attrs.get("ver")
    if not isinstance(ver, dict) or "N" not in ver:
        raise _foreign(pk, sk, "no numeric ver attribute")
    text = ver["N"]
    if not (isinstance(text, str) and text.isdigit() and text.isascii()):
        raise _foreign(pk, sk, f"ver is {text!r}, not a u64")
    version = int(text)
    if version >= 1 << 64:
        raise _foreign(pk, sk, f"ver is {text}, not a u64")
    if "item" in attrs:
        hdr = attrs.get("hdr", {}).get("B") if isinstance(attrs.get("hdr"), dict) else None
        shape = attrs.get("shape", {}).get("B") if isinstance(attrs.get("shape"), dict) else None
        if hdr is None:
            raise _foreign(pk, sk, "item without hdr")
        if shape is None:
            raise _foreign(pk, sk, "item without shape")
        try:
            payload = _msgpack.encode(from_native(attrs["item"], bytes(shape)))
        except LayoutError as e:
            raise _foreign(pk, sk, str(e)) from None
        return version, bytes(hdr) + payload
    val = attrs.get("val")
    if val is None:
        return version, b""
    if not isinstance(val, dict) or "B" not in val:
        raise _foreign(pk, sk, "val is not binary")
    return version, bytes(val["B"])


def _item(path: KeyPath, version: int, value: bytes, pk: bytes, sk: bytes) -> Item:
    try:
        header = parse_header(value)
    except LayoutError as e:
        raise _foreign(pk, sk, str(e)) from None
    for name, _, index_path in header.indexes:
        if not index_path:
            raise _foreign(
                pk,
                sk,
                f"index {name} has no key path in the item's header (GSI mode, which this "
                "client does not read)",
            )
    try:
        decoded = _msgpack.decode(value[header.payload_start :])
    except LayoutError as e:
        raise _foreign(pk, sk, f"its payload: {e}") from None
    return {"key": path, "version": version, "type": header.item_type, "value": decoded}


def _projected(path: KeyPath, version: int, item_type: str, payload: bytes, where: str) -> Item:
    try:
        decoded = _msgpack.decode(payload)
    except LayoutError as e:
        raise ForeignRecord(f"the index entry {where}: its payload: {e}") from None
    return {"key": path, "version": version, "type": item_type, "value": decoded}


class _Scanned:
    __slots__ = ("earlier", "items", "records", "more", "passed_after_last", "passed")

    def __init__(self) -> None:
        # Items placed in what an earlier scan of the page read (an index entry that moved
        # behind the scans), in scan order; they count against the page's room first.
        self.earlier: List[Tuple[Item, bytes]] = []
        self.items: List[Tuple[Item, bytes]] = []
        self.records = 0
        self.more = False
        self.passed_after_last = False
        self.passed = b""

    def select(self, item: Item, sort: bytes) -> None:
        self.items.append((item, sort))
        self.passed_after_last = False

    def pass_over(self, sort: bytes) -> None:
        self.passed = sort
        self.passed_after_last = True


_Bound = Optional[Tuple[bytes, bool]]  # (bytes, inclusive) or None for unbounded


def _empty_range(start: _Bound, end: _Bound) -> bool:
    """Whether no byte string lies within the bounds (as the Rust backend's
    ``Scan::is_empty_range``: then no request is sent)."""
    if end is not None and not end[1] and not end[0]:
        return True
    if start is None or end is None:
        return False
    (s, s_in), (e, e_in) = start, end
    if s_in and e_in:
        return s > e
    if s_in or e_in:
        return s >= e
    return s >= e or (len(e) == len(s) + 1 and e.startswith(s) and e[-1] == 0)


def _clamp(bound: _Bound, lower: bool) -> Tuple[bool, _Bound]:
    """(whether any stored key can pass, the bound DynamoDB accepts)."""
    if bound is None:
        return True, None
    b, inclusive = bound
    if not b:
        return (True, None) if lower else (False, None)
    if len(b) > MAX_SORT_KEY:
        return True, (b[:MAX_SORT_KEY], not lower)
    return True, bound


def _counter_key(pk: bytes) -> Tuple[bytes, bytes]:
    """The key of an item group's counter (section 2.3)."""
    return bytes((0x00, 0x01)) + pk, b"\x00"


def _counter_version(record: Optional[Dict[str, Any]], key: Tuple[bytes, bytes]) -> Optional[int]:
    return None if record is None else _stored_record(record, key[0], key[1])[0]


def _pause(attempt: int) -> None:
    cap = min(20 << min(attempt, 8), 5000)  # microseconds, as the Rust store
    time.sleep(random.random() * cap / 1e6)
