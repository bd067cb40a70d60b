"""A DynamoDB table client for keypath-store's table layout (docs/DYNAMODB_LAYOUT.md).

:class:`TableClient` reads and writes a table that the Rust store (or ``keypath db
--dynamodb``) uses, over a boto3 low-level DynamoDB client: ``get``, ``batch_get``,
``list``, ``query_index``, and, for stores whose indexes are declared as data (``"kind":
"field"``), ``put``, ``update`` and ``delete``, sending the same requests the Rust store
sends, so that index entries stay exact whoever writes. Cursors are the Rust store's: a
page started in Rust resumes here and back.

Install with the ``dynamodb`` extra (``pip install 'keypath[dynamodb]'``); ``import
keypath`` works without boto3, and this module imports boto3 only in
:meth:`TableClient.connect`.

>>> from keypath.dynamodb import TableClient, TableError
>>> issubclass(TableError, Exception)
True
"""

from __future__ import annotations

import random
import struct
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _msgpack
from ._errors import KeyPathError
from ._layout import (
    CONFIG_PK,
    CONFIG_SK,
    MAX_ITEM_SIZE,
    MAX_PARTITION_KEY,
    MAX_SORT_KEY,
    Config,
    InvalidValue,
    LayoutError,
    Plan,
    cursor_text,
    encode_header,
    entry_item,
    entry_sort_key,
    estimated_size,
    field_index_keys,
    fingerprint,
    from_native,
    has_uuid,
    index_group,
    is_placed_root,
    is_valid_index_name,
    item_key,
    parse_config,
    parse_cursor,
    parse_header,
    plan,
    split_entry_sort,
    to_native,
)
from ._path import KeyPath

__all__ = [
    "TableClient",
    "Page",
    "TableError",
    "ConditionFailed",
    "ItemNotFound",
    "InvalidRequest",
    "ForeignRecord",
    "Unsupported",
    "KeptIndex",
]

KeyLike = Union[KeyPath, str]
"""A key path, or its text form."""

Item = Dict[str, Any]
"""An item: ``{"key": KeyPath, "version": int, "type": str, "value": ...}``."""

_MAX_ATTEMPTS = 1000
_SCAN_BATCH = 1000
_MAX_BATCH_GET = 100
_ALL_OLD = "ALL_OLD"


class TableError(Exception):
    """The base of the client's errors; its message says what was expected, what was
    found, and where."""


class ConditionFailed(TableError):
    """A conditional put failed: ``if_absent`` on an existing item, or ``if_version`` on
    an absent item or one at another version. Nothing was written."""


class ItemNotFound(TableError):
    """:meth:`TableClient.update` of an absent item."""


class InvalidRequest(TableError):
    """Bad input: a bad key path, a value a field index refuses, a bad cursor, a query the
    store refuses."""


class ForeignRecord(TableError):
    """A record the client does not understand (docs/DYNAMODB_LAYOUT.md section 10); the
    message names its key."""


class Unsupported(TableError):
    """A write this client does not make (an item type with a ``"program"`` index, an
    index being built, a store without a configuration record); nothing was written."""


class Page:
    """One page of a list or index query: its items, and the cursor of the next page
    (``None`` when there is none)."""

    __slots__ = ("items", "cursor")

    def __init__(self, items: List[Item], cursor: Optional[str]) -> None:
        self.items = items
        self.cursor = cursor

    def __repr__(self) -> str:
        return f"Page(items={self.items!r}, cursor={self.cursor!r})"


class KeptIndex:
    """An index the table keeps as a GSI (GSI mode, docs/DYNAMODB_LAYOUT.md section 5): its
    name (the GSI is ``kp_`` + name), the GSI's partition and sort key attributes, and
    whether it projects only keys.

    >>> KeptIndex("by_updated", "gp1", "gs1", False).gsi
    'kp_by_updated'
    """

    __slots__ = ("name", "pk", "sk", "keys_only")

    def __init__(self, name: str, pk: str, sk: str, keys_only: bool) -> None:
        self.name = name
        self.pk = pk
        self.sk = sk
        self.keys_only = keys_only

    @property
    def gsi(self) -> str:
        """The GSI's name."""
        return "kp_" + self.name

    def __repr__(self) -> str:
        return f"KeptIndex({self.name!r}, {self.pk!r}, {self.sk!r}, {self.keys_only!r})"


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
    return ForeignRecord(f"the record at {_describe(pk, sk)} is not a keypath item: {why}")


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
    __slots__ = ("items", "records", "more", "passed_after_last", "passed")

    def __init__(self) -> None:
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


class TableClient:
    """A client of one keypath-store table over a boto3 low-level DynamoDB client
    (``boto3.client("dynamodb")``; any object with its methods ``get_item``,
    ``batch_get_item``, ``query``, ``put_item``, ``delete_item`` and
    ``transact_write_items`` will do).

    Items are dicts ``{"key": KeyPath, "version": int, "type": str, "value": ...}``;
    values are MessagePack values as Python values (``dict``, ``list``, ``str``,
    ``bytes``, ``int``, ``float``, ``bool``, ``None``). Reads are strongly consistent.
    The configuration record is read once (one consistent ``GetItem``) when a read or
    write first needs it, as the Rust store does.

    >>> class Empty:
    ...     def batch_get_item(self, **request):
    ...         return {"Responses": {"T": []}}
    >>> TableClient(Empty(), "T").get("/board-1/ticket-7") is None
    True
    """

    def __init__(
        self, client: Any, table: str, gsis: Optional[Sequence[KeptIndex]] = None
    ) -> None:
        """A client of ``table``; ``gsis``: the indexes the table keeps as GSIs (GSI mode),
        as :meth:`open` finds them (none if not given)."""
        self._client = client
        self._table = table
        self._kept: Dict[str, KeptIndex] = {k.name: k for k in (gsis or [])}
        self._config: Optional[Config] = None
        self._config_read = False
        self._ready: set[str] = set()
        # A new item's version: random, 1 to 2^52 - 1 (section 6.1). Tests fix it.
        self._fresh_version: Callable[[], int] = lambda: random.randint(1, (1 << 52) - 1)

    @classmethod
    def open(cls, client: Any, table: str) -> TableClient:
        """A client of ``table`` after one ``DescribeTable``, as the Rust store opens a
        table: refuses a table whose keys are not ``pk``/``sk`` of type ``B``, and learns
        the indexes it keeps as ``kp_`` GSIs (GSI mode)."""
        out = client.describe_table(TableName=table)["Table"]
        types = {a["AttributeName"]: a["AttributeType"] for a in out.get("AttributeDefinitions", [])}
        schema = {k["KeyType"]: k["AttributeName"] for k in out.get("KeySchema", [])}
        problems = []
        for kind, name in (("HASH", "pk"), ("RANGE", "sk")):
            if schema.get(kind) != name or types.get(name) != "B":
                problems.append(
                    f"{kind} is {schema.get(kind)!r} of type {types.get(schema.get(kind, ''))!r}"
                )
        if problems:
            raise Unsupported(
                f"DynamoDB table {table!r} has the wrong key schema: {'; '.join(problems)}; "
                "expected pk (binary, HASH) and sk (binary, RANGE)"
            )
        kept = []
        for gsi in out.get("GlobalSecondaryIndexes", []) or []:
            name = gsi.get("IndexName", "")
            if not name.startswith("kp_") or not is_valid_index_name(name[3:]):
                continue
            keys = gsi.get("KeySchema", [])
            projection = gsi.get("Projection", {}).get("ProjectionType")
            if (
                len(keys) != 2
                or [k["KeyType"] for k in keys] != ["HASH", "RANGE"]
                or any(types.get(k["AttributeName"]) != "B" for k in keys)
                or projection not in ("ALL", "KEYS_ONLY")
            ):
                raise Unsupported(
                    f"DynamoDB table {table!r}: GSI {name} is not a keypath index (two binary "
                    "keys, HASH then RANGE, projecting ALL or KEYS_ONLY)"
                )
            kept.append(
                KeptIndex(name[3:], keys[0]["AttributeName"], keys[1]["AttributeName"], projection == "KEYS_ONLY")
            )
        return cls(client, table, kept)

    @classmethod
    def connect(cls, table: str, endpoint_url: Optional[str] = None, **kwargs: Any) -> TableClient:
        """:meth:`open` over ``boto3.client("dynamodb", endpoint_url=..., **kwargs)``
        (needs boto3: ``pip install 'keypath[dynamodb]'``)."""
        try:
            import boto3  # type: ignore[import-untyped,unused-ignore]
        except ImportError as e:
            raise ImportError(
                f"TableClient.connect needs boto3 (pip install 'keypath[dynamodb]'): {e}"
            ) from None

        return cls.open(boto3.client("dynamodb", endpoint_url=endpoint_url, **kwargs), table)

    def _record(self, attrs: Dict[str, Any], pk: bytes, sk: bytes) -> Tuple[int, bytes]:
        """(version, value bytes) of a stored record, with the index key paths a GSI keeps
        put back into an envelope's header from the item's GSI key attributes."""
        version, value = _stored_record(attrs, pk, sk)
        if not value or value[0] != 0x01:
            return version, value
        try:
            header = parse_header(value)
        except LayoutError:
            return version, value
        if all(p for _, _, p in header.indexes):
            return version, value
        out = bytearray()
        copied = 0
        for name, at, path in header.indexes:
            if path:
                continue
            index = self._kept.get(name)
            if index is None:
                raise _foreign(
                    pk,
                    sk,
                    f"index {name} has no key path in the item's header and the table keeps "
                    "no GSI for it",
                )
            group = attrs.get(index.pk, {}).get("B") if isinstance(attrs.get(index.pk), dict) else None
            sort = attrs.get(index.sk, {}).get("B") if isinstance(attrs.get(index.sk), dict) else None
            if group is None or sort is None:
                raise _foreign(
                    pk,
                    sk,
                    f"index {name} has no key path in the item's header and the item no GSI "
                    f"key attributes {index.pk} and {index.sk}",
                )
            try:
                g = KeyPath.decode(bytes(group)).components
                rest = KeyPath.decode(split_entry_sort(bytes(sort))[0]).components
                restored = KeyPath(list(g) + list(rest)).encode()
            except (KeyPathError, LayoutError) as e:
                raise _foreign(pk, sk, f"index {name}'s key path from the GSI keys: {e}") from None
            if len(restored) > 0xFFFF:
                raise _foreign(pk, sk, f"index {name}'s key path is over 65535 bytes")
            out += value[copied : at - 2]
            out += struct.pack(">H", len(restored))
            out += restored
            copied = at
        out += value[copied:]
        return version, bytes(out)

    @property
    def client(self) -> Any:
        """The boto3 client the requests go through."""
        return self._client

    @property
    def table(self) -> str:
        """The table's name."""
        return self._table

    # --- The configuration ------------------------------------------------------------

    def _read_config(self) -> Optional[Config]:
        out = self._client.get_item(
            TableName=self._table,
            Key={"pk": _b(CONFIG_PK), "sk": _b(CONFIG_SK)},
            ConsistentRead=True,
        )
        found = out.get("Item")
        self._config_read = True
        if found is None:
            self._config = None
            return None
        _, value = self._record(found, CONFIG_PK, CONFIG_SK)
        try:
            self._config = parse_config(value)
        except LayoutError as e:
            raise ForeignRecord(str(e)) from None
        return self._config

    def _roots(self) -> Dict[str, Any]:
        if not self._config_read:
            self._read_config()
        return self._config.roots if self._config is not None else {}

    def _key(self, path: KeyPath) -> Tuple[bytes, bytes]:
        try:
            if len(path) == 1:
                return item_key(path, self._roots())
            return item_key(path, {})
        except KeyPathError as e:
            raise InvalidRequest(f"key path {path}: {e}") from None

    # --- Reads ------------------------------------------------------------------------

    def _batch_get(
        self, keys: Sequence[Tuple[bytes, bytes]], consistent: bool = True
    ) -> List[Optional[Dict[str, Any]]]:
        """The records at ``keys`` (``None`` where absent), with ``BatchGetItem``s of at
        most 100 distinct keys, unprocessed keys asked again."""
        unique: List[Tuple[bytes, bytes]] = []
        seen = set()
        for k in keys:
            if len(k[0]) > MAX_PARTITION_KEY or len(k[1]) > MAX_SORT_KEY:
                continue  # no write can store it
            if k not in seen:
                seen.add(k)
                unique.append(k)
        found: Dict[Tuple[bytes, bytes], Dict[str, Any]] = {}
        for i in range(0, len(unique), _MAX_BATCH_GET):
            pending: List[Dict[str, Any]] = [
                {"pk": _b(pk), "sk": _b(sk)} for pk, sk in unique[i : i + _MAX_BATCH_GET]
            ]
            attempt = 0
            while pending:
                out = self._client.batch_get_item(
                    RequestItems={self._table: {"Keys": pending, "ConsistentRead": consistent}}
                )
                for attrs in out.get("Responses", {}).get(self._table, []):
                    pk = attrs.get("pk", {}).get("B")
                    sk = attrs.get("sk", {}).get("B")
                    if pk is None or sk is None:
                        raise ForeignRecord("BatchGetItem returned an item without binary pk and sk")
                    found[(bytes(pk), bytes(sk))] = attrs
                pending = (
                    out.get("UnprocessedKeys", {}).get(self._table, {}).get("Keys", [])
                )
                if pending:
                    attempt += 1
                    if attempt > 10:
                        raise TableError(
                            f"BatchGetItem: {len(pending)} keys still unprocessed after 10 attempts"
                        )
                    time.sleep(min(0.5, 0.01 * 2**attempt) * random.random())
        return [found.get(k) for k in keys]

    def get(self, key: KeyLike) -> Optional[Item]:
        """The item at ``key``, or ``None``. One ``BatchGetItem`` (and, for a root item,
        the configuration once).

        Raises :class:`ForeignRecord` for a record there that is not an item.
        """
        return self.batch_get([key])[0]

    def batch_get(self, keys: Sequence[KeyLike]) -> List[Optional[Item]]:
        """The items at ``keys``, one item or ``None`` per key in the order asked."""
        paths = [_path(k) for k in keys]
        located = [self._key(p) for p in paths]
        records = self._batch_get(located)
        out: List[Optional[Item]] = []
        for p, (pk, sk), attrs in zip(paths, located, records):
            if attrs is None:
                out.append(None)
                continue
            version, value = self._record(attrs, pk, sk)
            out.append(_item(p, version, value, pk, sk))
        return out

    def _scan(
        self,
        pk: bytes,
        start: _Bound,
        end: _Bound,
        reverse: bool,
        limit: int,
        consistent: bool,
        gsi: Optional[KeptIndex] = None,
    ) -> List[Tuple[bytes, Dict[str, Any]]]:
        """Up to ``limit`` records of partition ``pk`` within the bounds, in order: one
        ``Query`` and its ``LastEvaluatedKey`` pages (section 7.2); on ``gsi``, its items
        by its keys."""
        pk_name, sk_name = ("pk", "sk") if gsi is None else (gsi.pk, gsi.sk)
        if limit == 0 or not pk or len(pk) > MAX_PARTITION_KEY or _empty_range(start, end):
            return []
        ok_lo, lo = _clamp(start, True)
        ok_hi, hi = _clamp(end, False)
        if not ok_lo or not ok_hi:
            return []
        values: Dict[str, Any] = {":g": _b(pk)}
        slack = 0
        if lo is None and hi is None:
            condition = f"{pk_name} = :g"
        elif hi is None:
            assert lo is not None
            values[":lo"] = _b(lo[0])
            condition = f"{pk_name} = :g AND {sk_name} {'>=' if lo[1] else '>'} :lo"
        elif lo is None:
            values[":hi"] = _b(hi[0])
            condition = f"{pk_name} = :g AND {sk_name} {'<=' if hi[1] else '<'} :hi"
        else:
            if lo[0] > hi[0]:
                return []
            values[":lo"] = _b(lo[0])
            values[":hi"] = _b(hi[0])
            condition = f"{pk_name} = :g AND {sk_name} BETWEEN :lo AND :hi"
            slack = (0 if lo[1] else 1) + (0 if hi[1] else 1)

        def inside(sort: bytes) -> bool:
            if lo is not None and (sort < lo[0] or (sort == lo[0] and not lo[1])):
                return False
            if hi is not None and (sort > hi[0] or (sort == hi[0] and not hi[1])):
                return False
            return True

        entries: List[Tuple[bytes, Dict[str, Any]]] = []
        exclusive: Optional[Dict[str, Any]] = None
        while True:
            request: Dict[str, Any] = {
                "TableName": self._table,
                **({} if gsi is None else {"IndexName": gsi.gsi}),
                "KeyConditionExpression": condition,
                "ExpressionAttributeValues": values,
                "ScanIndexForward": not reverse,
                "ConsistentRead": consistent,
                "Limit": min(limit - len(entries) + slack, 2**31 - 1),
            }
            if exclusive is not None:
                request["ExclusiveStartKey"] = exclusive
            out = self._client.query(**request)
            for attrs in out.get("Items", []):
                sk = attrs.get(sk_name, {}).get("B") if isinstance(attrs.get(sk_name), dict) else None
                if sk is None:
                    raise _foreign(pk, b"", f"no binary {sk_name} attribute")
                sort = bytes(sk)
                if inside(sort):
                    entries.append((sort, attrs))
                    if len(entries) == limit:
                        return entries
            exclusive = out.get("LastEvaluatedKey")
            if not exclusive:
                return entries

    def _paged(
        self,
        index: Optional[str],
        pk: bytes,
        query_group: bytes,
        the_plan: Plan,
        reverse: bool,
        limit: Optional[int],
        cursor: Optional[str],
        resolve: Callable[[List[Tuple[bytes, Dict[str, Any]]], int], _Scanned],
        gsi: Optional[KeptIndex] = None,
    ) -> Page:
        fp = fingerprint(index, reverse, query_group, the_plan.start, the_plan.end)
        position: Optional[bytes] = None
        if cursor is not None:
            try:
                query, at = parse_cursor(cursor)
            except LayoutError as e:
                raise InvalidRequest(str(e)) from None
            if query != fp:
                raise InvalidRequest(
                    "cursor belongs to a different query: resume a list with the query that "
                    "returned the cursor"
                )
            position = at
        if limit is not None and limit < 0:
            raise InvalidRequest(f"limit {limit}: expected 0 or more")
        wanted = limit if limit is not None else 1 << 62
        items: List[Tuple[Item, bytes]] = []
        if wanted == 0:
            return Page([], None)
        at_last_item = False
        while True:
            if at_last_item:
                position = items[-1][1]
                at_last_item = False
            batch = min(wanted - len(items) + 1, _SCAN_BATCH)
            start: _Bound = (the_plan.start, True)
            end: _Bound = None if the_plan.end is None else (the_plan.end, False)
            if position is not None:
                if not reverse and position >= the_plan.start:
                    start = (position, False)
                elif reverse and (the_plan.end is None or position < the_plan.end):
                    end = (position, False)
            records = self._scan(pk, start, end, reverse, batch, gsi is None, gsi)
            scanned = resolve(records, wanted - len(items))
            exhausted = scanned.records < batch
            if scanned.passed_after_last:
                position = scanned.passed
            else:
                at_last_item = bool(scanned.items)
            items.extend(scanned.items)
            if scanned.more or exhausted:
                more = scanned.more
                break
        found = [item for item, _ in items]
        if not more:
            return Page(found, None)
        if at_last_item:
            position = items[-1][1]
        return Page(found, None if position is None else cursor_text(fp, position))

    def _query_plan(
        self,
        prefix: KeyLike,
        gt: Optional[KeyLike],
        gte: Optional[KeyLike],
        lt: Optional[KeyLike],
        lte: Optional[KeyLike],
        index: bool,
        children: Optional[str] = None,
    ) -> Tuple[KeyPath, Plan]:
        p = _path(prefix)
        components = p.components
        if not components or components[0].id is None:
            raise InvalidRequest(
                f"prefix {p}: its first component needs an ID (the group)"
            )
        group = KeyPath([(components[0].namespace, components[0].id)])
        rest = KeyPath(list(components[1:]))
        bounds: List[Tuple[str, KeyPath]] = []
        for op, b in (("gt", gt), ("gte", gte), ("lt", lt), ("lte", lte)):
            if b is None:
                continue
            bp = _path(b)
            bc = bp.components
            if not bc or bc[0].id is None or KeyPath([(bc[0].namespace, bc[0].id)]) != group:
                raise InvalidRequest(f"--{op} {str(bp)!r}: bound {bp} is not in the query's group {group}")
            bounds.append((op, KeyPath(list(bc[1:]))))
        if children is not None and components[-1].id is None:
            raise InvalidRequest(
                f"parent {p} ends without an ID; list its namespace with a prefix"
            )
        try:
            return group, plan(rest, bounds, index, children)
        except LayoutError as e:
            raise InvalidRequest(str(e)) from None

    def list(
        self,
        prefix: KeyLike,
        *,
        gt: Optional[KeyLike] = None,
        gte: Optional[KeyLike] = None,
        lt: Optional[KeyLike] = None,
        lte: Optional[KeyLike] = None,
        reverse: bool = False,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        children: Optional[str] = None,
        from_root: bool = False,
        to_root: bool = False,
    ) -> Page:
        """A page of the items under ``prefix`` (its first component is the group; a deeper
        prefix narrows the range), within the path bounds, in key order (``reverse``:
        largest first), at most ``limit`` of them, resuming after ``cursor``: what
        ``keypath db list PREFIX`` with the same options answers. ``children="ticket"``
        lists the ``ticket`` IDs directly under ``prefix`` (with their descendants)
        instead, as the Rust store's ``Query::children``. ``from_root``: only the group's
        root item and what sorts after it, wherever the configuration places the root item;
        ``to_root``: only what sorts before it, and the root item (these read the
        configuration once). Each scan is a ``Query``
        of one record more than the page needs.

        Raises :class:`ForeignRecord` for a record in the range that is not an item.
        """
        group, the_plan = self._query_plan(prefix, gt, gte, lt, lte, False, children)
        group_bytes = group.encode()
        if from_root or to_root:
            root = item_key(group, self._roots())[1]
            if from_root and root > the_plan.start:
                the_plan.start = root
            if to_root:
                end = root + b"\x00"
                if the_plan.end is None or end < the_plan.end:
                    the_plan.end = end

        def resolve(records: List[Tuple[bytes, Dict[str, Any]]], needed: int) -> _Scanned:
            scanned = _Scanned()
            for sort, attrs in records:
                scanned.records += 1
                if len(scanned.items) == needed:
                    scanned.more = True
                    continue
                version, value = self._record(attrs, group_bytes, sort)
                try:
                    rest = KeyPath.decode(sort)
                    path = KeyPath.from_group(group_bytes, sort)
                except KeyPathError as e:
                    if not is_placed_root(sort):
                        raise _foreign(group_bytes, sort, f"its key is not a key path: {e}") from None
                    scanned.select(_item(group, version, value, group_bytes, sort), sort)
                    continue
                if (the_plan.filters_have_uuid or has_uuid(rest)) and not the_plan.matches(rest):
                    scanned.pass_over(sort)
                    continue
                scanned.select(_item(path, version, value, group_bytes, sort), sort)
            return scanned

        return self._paged(None, group_bytes, group_bytes, the_plan, reverse, limit, cursor, resolve)

    def _check_index(self, name: str) -> None:
        if name in self._ready:
            return
        config = self._read_config()
        declared = [d for d in (config.indexes if config is not None else []) if d.name == name]
        if not declared:
            names = sorted({d.name for d in config.indexes}) if config is not None else []
            raise InvalidRequest(f"unknown index {name!r}; this store has {names}")
        building = [d for d in declared if d.building]
        if building:
            raise Unsupported(
                f"index {name} of type {building[0].item_type} is being built: it lacks items "
                "written before it was declared"
            )
        self._ready.add(name)

    def query_index(
        self,
        name: str,
        prefix: KeyLike,
        *,
        gt: Optional[KeyLike] = None,
        gte: Optional[KeyLike] = None,
        lt: Optional[KeyLike] = None,
        lte: Optional[KeyLike] = None,
        reverse: bool = False,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Page:
        """A page of the items of index ``name`` under ``prefix`` (an index key path
        prefix: its first component is the index group), with the options of
        :meth:`list`: what ``keypath db index NAME PREFIX`` answers. Keys-only entries are
        checked against their items' headers with one ``BatchGetItem``; projected entries
        are taken as they are. The first query of an index reads the configuration (one
        ``GetItem``) to refuse an unknown index or one being built.
        """
        if not isinstance(name, str) or not is_valid_index_name(name):
            raise InvalidRequest(
                f"invalid index name {name!r}: expected 1 to 64 ASCII letters, digits or '_'"
            )
        group, the_plan = self._query_plan(prefix, gt, gte, lt, lte, True)
        self._check_index(name)
        group_bytes = group.encode()
        gsi = self._kept.get(name)
        pk = index_group(name, group_bytes) if gsi is None else group_bytes

        def entry(attrs: Dict[str, Any], sort: bytes) -> Tuple[int, bytes]:
            """An entry's (version, value); a GSI's item as the entry it stands for."""
            if gsi is None:
                return self._record(attrs, pk, sort)
            if "ver" not in attrs:
                return 0, bytes((1,))  # KEYS_ONLY: resolved like a keys-only entry
            ipk = attrs.get("pk", {}).get("B", b"")
            isk = attrs.get("sk", {}).get("B", b"")
            version, value = self._record(attrs, bytes(ipk), bytes(isk))
            try:
                header = parse_header(value)
            except LayoutError as e:
                raise _foreign(bytes(ipk), bytes(isk), f"a GSI returned an item that is not an envelope: {e}") from None
            type_bytes = header.item_type.encode("utf-8")
            return version, bytes((2, len(type_bytes))) + type_bytes + value[header.payload_start :]

        def resolve(records: List[Tuple[bytes, Dict[str, Any]]], needed: int) -> _Scanned:
            steps: List[Tuple[bytes, Optional[Item]]] = []
            wanted: List[Tuple[int, KeyPath, bytes]] = []
            keys: List[Tuple[bytes, bytes]] = []
            for sort, attrs in records:
                where = f"of index {name} in group {group} (sk {sort.hex()})"
                version, value = entry(attrs, sort)
                try:
                    rest_bytes, base_bytes = split_entry_sort(sort)
                    rest = KeyPath.decode(rest_bytes)
                    base = KeyPath.decode(base_bytes)
                    projected = entry_item(value)
                except (LayoutError, KeyPathError) as e:
                    raise ForeignRecord(f"the index entry {where} is corrupt: {e}") from None
                steps.append((sort, None))
                if not the_plan.matches(rest):
                    continue
                if projected is not None:
                    item_type, payload = projected
                    steps[-1] = (sort, _projected(base, version, item_type, payload, where))
                    continue
                full = KeyPath(list(group.components) + list(rest.components)).encode()
                keys.append(self._key(base))
                wanted.append((len(steps) - 1, base, full))
            if keys:
                records_found = self._batch_get(keys, gsi is None)
                for (i, base, full), (ipk, isk), found in zip(wanted, keys, records_found):
                    if found is None:
                        continue
                    version, value = self._record(found, ipk, isk)
                    try:
                        header = parse_header(value)
                    except LayoutError as e:
                        raise _foreign(ipk, isk, str(e)) from None
                    if any(n == name and p == full for n, _, p in header.indexes):
                        steps[i] = (steps[i][0], _item(base, version, value, ipk, isk))
            scanned = _Scanned()
            scanned.records = len(steps)
            for sort, item in steps:
                if len(scanned.items) >= needed:
                    scanned.more = True
                    break
                if item is None:
                    scanned.pass_over(sort)
                else:
                    scanned.select(item, sort)
            return scanned

        return self._paged(name, pk, group_bytes, the_plan, reverse, limit, cursor, resolve, gsi)

    # --- Writes -----------------------------------------------------------------------

    def _send(self, members: List[Dict[str, Any]]) -> bool:
        """Sends a write batch (section 6.2): nothing, one ``PutItem``/``DeleteItem``, or
        one ``TransactWriteItems``. ``False`` when a condition failed (or a transaction
        conflicted): read again and retry."""
        if not members:
            return True
        try:
            if len(members) == 1:
                ((kind, body),) = members[0].items()
                if kind == "Put":
                    self._client.put_item(**body)
                else:
                    self._client.delete_item(**body)
            else:
                self._client.transact_write_items(TransactItems=members)
        except Exception as e:
            response = getattr(e, "response", None)
            if not isinstance(response, dict):
                raise
            code = response.get("Error", {}).get("Code")
            if code == "ConditionalCheckFailedException":
                return False
            if code == "TransactionCanceledException":
                reasons = [r.get("Code") for r in response.get("CancellationReasons", []) or []]
                if any(r in ("ConditionalCheckFailed", "TransactionConflict") for r in reasons) or not reasons:
                    return False
            if code == "TransactionConflictException":
                return False
            raise
        return True

    def _put_member(
        self, item: Dict[str, Any], expected: Optional[int], conditioned: bool = True
    ) -> Dict[str, Any]:
        body: Dict[str, Any] = {"TableName": self._table, "Item": item}
        if conditioned:
            self._condition(body, expected)
        body["ReturnValuesOnConditionCheckFailure"] = _ALL_OLD
        return {"Put": body}

    def _delete_member(
        self, pk: bytes, sk: bytes, expected: Optional[int], conditioned: bool
    ) -> Dict[str, Any]:
        body: Dict[str, Any] = {"TableName": self._table, "Key": {"pk": _b(pk), "sk": _b(sk)}}
        if conditioned:
            self._condition(body, expected)
        body["ReturnValuesOnConditionCheckFailure"] = _ALL_OLD
        return {"Delete": body}

    def _counter_member(
        self, key: Tuple[bytes, bytes], version: int, expected: Optional[int]
    ) -> Dict[str, Any]:
        record = {"pk": _b(key[0]), "sk": _b(key[1]), "ver": {"N": str(version)}}
        return self._put_member(record, expected)

    @staticmethod
    def _condition(body: Dict[str, Any], expected: Optional[int]) -> None:
        if expected is None:
            body["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            body["ConditionExpression"] = "ver = :kp_ver"
            body["ExpressionAttributeValues"] = {":kp_ver": {"N": str(expected)}}

    @staticmethod
    def _record_attrs(
        pk: bytes,
        sk: bytes,
        version: int,
        envelope: bytes,
        header_len: int,
        item_type: str,
        value: Any,
        gsi_attrs: Dict[str, Any],
    ) -> Dict[str, Any]:
        item: Dict[str, Any] = {"pk": _b(pk), "sk": _b(sk), "ver": {"N": str(version)}, **gsi_attrs}
        if isinstance(value, dict):
            native = to_native(value)
            if native is not None:
                with_native = dict(item)
                with_native["type"] = {"S": item_type}
                with_native["hdr"] = _b(envelope[:header_len])
                with_native["item"] = native[0]
                with_native["shape"] = _b(native[1])
                if estimated_size(with_native) <= MAX_ITEM_SIZE:
                    return with_native
        item["val"] = _b(envelope)
        return item

    def _stale_entries(
        self,
        old: bytes,
        new: Sequence[Tuple[str, KeyPath]],
        base: KeyPath,
        pk: bytes,
        sk: bytes,
    ) -> Tuple[List[Tuple[bytes, bytes]], List[bool]]:
        header = parse_header(old)
        kept = [False] * len(new)
        stale: List[Tuple[bytes, bytes]] = []
        encoded_new = [p.encode() for _, p in new]
        for name, _, old_path in header.indexes:
            if not old_path:
                raise Unsupported(
                    f"the item at {base} keeps index {name} in a GSI (GSI mode), which this "
                    "client does not write"
                )
            same = next(
                (i for i, (n, _) in enumerate(new) if n == name and encoded_new[i] == old_path),
                None,
            )
            if same is not None:
                kept[same] = True
                continue
            if name in self._kept:
                continue  # a GSI's: DynamoDB removes it with the item's attributes
            try:
                path = KeyPath.decode(old_path)
                stale.append(self._entry_key(name, path, base))
            except KeyPathError as e:
                raise _foreign(pk, sk, f"index {name}'s key path: {e}") from None
        return stale, kept

    @staticmethod
    def _entry_key(name: str, index_path: KeyPath, base: KeyPath) -> Tuple[bytes, bytes]:
        components = index_path.components
        if not components or components[0].id is None or any(c.id is None for c in components):
            raise InvalidRequest(
                f"{index_path} (index {name} of item {base}): every component of an index "
                "key path needs an ID"
            )
        group = KeyPath(components[:1]).encode()
        rest = KeyPath(list(components[1:])).encode()
        return index_group(name, group), entry_sort_key(rest, base.encode())

    def _ensure_config(self) -> None:
        if not self._config_read:
            self._read_config()

    def _commit_put(
        self, path: KeyPath, value: Any, expect: Tuple[str, Optional[int]]
    ) -> int:
        """Writes ``value`` at ``path`` as the Rust store's ``put_raw`` does. ``expect``:
        ``("any", None)``, ``("absent", None)``, ``("version", v)`` or ``("read", v)``
        (an update: the version read, ``None`` for absent; a mismatch raises _Conflict)."""
        self._ensure_config()
        pk, sk = self._key(path)
        if len(pk) + 2 > MAX_PARTITION_KEY or len(sk) > MAX_SORT_KEY:
            raise InvalidRequest(f"{path}: its key is over DynamoDB's key limits")
        item_type = path.components[-1].namespace
        try:
            payload = _msgpack.encode(value)
        except LayoutError as e:
            raise InvalidRequest(f"{path}: the value: {e}") from None
        for attempt in range(_MAX_ATTEMPTS):
            counted = self._config is not None and self._config.group_versions
            counter_key = _counter_key(pk)
            got = self._batch_get(
                ([counter_key] if counted else []) + [(pk, sk), (CONFIG_PK, CONFIG_SK)]
            )
            counter = got[0] if counted else None
            old, config_record = got[-2:]
            if config_record is None:
                raise Unsupported(
                    "the table has no configuration record (create it with keypath db "
                    "create-table or Store::create_config); this client writes only to "
                    "configured stores"
                )
            cfg_version, cfg_value = self._record(config_record, CONFIG_PK, CONFIG_SK)
            try:
                config = parse_config(cfg_value)
            except LayoutError as e:
                raise ForeignRecord(str(e)) from None
            self._config = config
            if config.group_versions != counted:
                continue  # learnt with this read: read the group's counter too
            found: Optional[int] = None
            old_value = b""
            old_type: Optional[str] = None
            if old is not None:
                found, old_value = self._record(old, pk, sk)
                try:
                    old_type = parse_header(old_value).item_type
                except LayoutError as e:
                    raise _foreign(pk, sk, f"{e}; a put does not replace it") from None
            for t in [item_type] + ([old_type] if old_type is not None else []):
                program = [d.name for d in config.indexes if d.item_type == t and d.kind != "field"]
                if program:
                    raise Unsupported(
                        f"{path}: items of type {t} have the program indexes {program}, which "
                        "only the Rust program that declares them computes"
                    )
                building = [d.name for d in config.indexes if d.item_type == t and d.building]
                if building:
                    raise Unsupported(f"{path}: the indexes {building} of type {t} are being built")
            kind, want = expect
            if kind == "absent" and found is not None:
                raise ConditionFailed(f"{path}: an item exists (version {found}); put if absent")
            if kind == "version" and found != want:
                raise ConditionFailed(
                    f"{path}: expected version {want}, found "
                    + ("no item" if found is None else f"version {found}")
                )
            if kind == "read" and found != want:
                raise _Conflict()
            try:
                indexes = field_index_keys(config, path, value)
            except InvalidValue as e:
                raise InvalidRequest(str(e)) from None
            try:
                # The store's header elides the key paths its GSIs keep (section 5).
                header = encode_header(item_type, indexes, [n for n, _ in indexes if n in self._kept])
            except LayoutError as e:
                raise InvalidRequest(f"{path}: {e}") from None
            entries: List[Optional[Tuple[bytes, bytes]]] = []
            gsi_attrs: Dict[str, Any] = {}
            for name, ipath in indexes:
                epk, esk = self._entry_key(name, ipath, path)
                if len(epk) > MAX_PARTITION_KEY or len(esk) > MAX_SORT_KEY:
                    raise InvalidRequest(f"{path}: index {name}'s entry key is over DynamoDB's key limits")
                gsi = self._kept.get(name)
                if gsi is None:
                    entries.append((epk, esk))
                    continue
                entries.append(None)  # DynamoDB keeps the GSI from the item's attributes
                gsi_attrs[gsi.pk] = _b(KeyPath(ipath.components[:1]).encode())
                gsi_attrs[gsi.sk] = _b(esk)
            counter_version = _counter_version(counter, counter_key) if counted else None
            if counted:
                version = (counter_version or 0) + 1
            elif found is None:
                version = self._fresh_version()
            else:
                version = (found + 1) % (1 << 64) or 1
            members: List[Dict[str, Any]] = []
            kept = [False] * len(indexes)
            if old is not None:
                stale, kept = self._stale_entries(old_value, indexes, path, pk, sk)
                for epk, esk in stale:
                    members.append(self._delete_member(epk, esk, None, False))
            for new_entry, same in zip(entries, kept):
                if same or new_entry is None:
                    continue
                epk, esk = new_entry
                entry = {"pk": _b(epk), "sk": _b(esk), "val": _b(b"\x01"), "ver": {"N": str(version)}}
                members.append(self._put_member(entry, None, conditioned=False))
            envelope = header + payload
            members.append(
                self._put_member(self._record_attrs(pk, sk, version, envelope, len(header), item_type, value, gsi_attrs), found)
            )
            if counted:
                members.append(self._counter_member(counter_key, version, counter_version))
            if config.types is not None and item_type not in config.types:
                declared = Config(config.indexes, config.group_versions, config.types + [item_type], config.roots)
                record = {
                    "pk": _b(CONFIG_PK),
                    "sk": _b(CONFIG_SK),
                    "val": _b(declared.to_json()),
                    "ver": {"N": str(cfg_version + 1)},
                }
                members.append(self._put_member(record, cfg_version))
            if self._send(members):
                return version
            _pause(attempt)
        raise TableError(f"{path}: gave up after {_MAX_ATTEMPTS} attempts (contention)")

    def put(
        self,
        key: KeyLike,
        value: Any,
        *,
        if_absent: bool = False,
        if_version: Optional[int] = None,
    ) -> int:
        """Writes ``value`` at ``key`` (an upsert; ``if_absent``: only if no item is there;
        ``if_version``: only if the item is at that version) with its field index entries,
        in the one ``PutItem`` or ``TransactWriteItems`` the Rust store sends after one
        consistent ``BatchGetItem``; returns the new version. A write that loses a race is
        read again and retried; a failed ``if_absent``/``if_version`` raises
        :class:`ConditionFailed`.
        """
        path = _path(key)
        if if_absent and if_version is not None:
            raise InvalidRequest("give if_absent or if_version, not both")
        expect: Tuple[str, Optional[int]] = ("any", None)
        if if_absent:
            expect = ("absent", None)
        elif if_version is not None:
            expect = ("version", if_version)
        return self._commit_put(path, value, expect)

    def update(self, key: KeyLike, fn: Callable[[Any], Any]) -> Item:
        """Reads the item at ``key``, calls ``fn`` on its value and writes what it returns,
        only if the item is still at the version read; on a conflict, reads again and calls
        ``fn`` again. Returns the item written. Raises :class:`ItemNotFound` if no item is
        at ``key``.
        """
        path = _path(key)
        for attempt in range(_MAX_ATTEMPTS):
            current = self.get(path)
            if current is None:
                raise ItemNotFound(f"no item at {path}")
            value = fn(current["value"])
            try:
                version = self._commit_put(path, value, ("read", current["version"]))
            except _Conflict:
                _pause(attempt)
                continue
            item_type = path.components[-1].namespace
            return {"key": path, "version": version, "type": item_type, "value": value}
        raise TableError(f"{path}: gave up after {_MAX_ATTEMPTS} attempts (contention)")

    def delete(self, key: KeyLike) -> bool:
        """Deletes the item at ``key`` and its index entries; whether an item was there.
        One ``BatchGetItem``, then one ``DeleteItem`` or ``TransactWriteItems`` (nothing for
        an absent item)."""
        path = _path(key)
        self._ensure_config()
        pk, sk = self._key(path)
        for attempt in range(_MAX_ATTEMPTS):
            counted = self._config is not None and self._config.group_versions
            counter_key = _counter_key(pk)
            got = self._batch_get(([counter_key] if counted else []) + [(pk, sk)])
            old = got[-1]
            if old is None:
                return False
            found, old_value = self._record(old, pk, sk)
            members: List[Dict[str, Any]] = []
            try:
                stale, _ = self._stale_entries(old_value, [], path, pk, sk)
            except LayoutError:
                stale = []  # not an envelope: it has no entries; delete just it
            for epk, esk in stale:
                members.append(self._delete_member(epk, esk, None, False))
            members.append(self._delete_member(pk, sk, found, True))
            if counted:
                counter_version = _counter_version(got[0], counter_key)
                members.append(
                    self._counter_member(counter_key, (counter_version or 0) + 1, counter_version)
                )
            if self._send(members):
                return True
            _pause(attempt)
        raise TableError(f"{path}: gave up after {_MAX_ATTEMPTS} attempts (contention)")


def _counter_key(pk: bytes) -> Tuple[bytes, bytes]:
    """The key of an item group's counter (section 2.3)."""
    return bytes((0x00, 0x01)) + pk, b"\x00"


def _counter_version(record: Optional[Dict[str, Any]], key: Tuple[bytes, bytes]) -> Optional[int]:
    return None if record is None else _stored_record(record, key[0], key[1])[0]


def _pause(attempt: int) -> None:
    cap = min(20 << min(attempt, 8), 5000)  # microseconds, as the Rust store
    time.sleep(random.random() * cap / 1e6)

