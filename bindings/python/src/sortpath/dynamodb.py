"""A DynamoDB table client for sortpath-store's table layout (docs/DYNAMODB_LAYOUT.md).

:class:`TableClient` reads and writes a table that the Rust store (or ``sortpath db
--dynamodb``) uses, over a boto3 low-level DynamoDB client: ``get``, ``batch_get``,
``list``, ``query_index``, and, for stores whose indexes are declared as data (``"kind":
"field"``), ``put``, ``update`` and ``delete``, sending the same requests the Rust store
sends, so that index entries stay exact whoever writes. Cursors are the Rust store's: a
page started in Rust resumes here and back.

Install with the ``dynamodb`` extra (``pip install 'sortpath[dynamodb]'``); ``import
sortpath`` works without boto3, and this module imports boto3 only in
:meth:`TableClient.connect`.

>>> from sortpath.dynamodb import TableClient, TableError
>>> issubclass(TableError, Exception)
True
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ._errors import KeyPathError
from ._layout import (
    MAX_PARTITION_KEY,
    Plan,
    cursor_text,
    entry_item,
    entry_sort_key,
    fingerprint,
    has_uuid,
    index_group,
    is_placed_root,
    is_valid_index_name,
    item_key,
    parse_cursor,
    parse_header,
    plan,
    split_entry_sort,
)
from ._layout_error import LayoutError
from ._path import KeyPath
from ._records import (
    _SCAN_BATCH,
    _path,
    _b,
    _foreign,
    _item,
    _projected,
    _Scanned,
    _Bound,
    _empty_range,
    _clamp,
)
from ._table_base import _describe
from ._table_write import _Writes
from ._table_types import (
    KeyLike,
    Item,
    TableError,
    ConditionFailed,
    ItemNotFound,
    InvalidRequest,
    ForeignRecord,
    Unsupported,
    UnrecordedConfig,
    DynamoDbError,
    Page,
    KeptIndex,
)

__all__ = [
    "TableClient",
    "Page",
    "TableError",
    "ConditionFailed",
    "ItemNotFound",
    "InvalidRequest",
    "ForeignRecord",
    "Unsupported",
    "UnrecordedConfig",
    "DynamoDbError",
    "KeptIndex",
    "KeyLike",
    "Item",
]


_ScanBounds = Tuple[_Bound, _Bound, int]  # a scan's start and end bounds and its limit


def _above(b: _Bound, sort: bytes) -> bool:
    """Whether ``sort`` is inside lower bound ``b``."""
    return b is None or (sort >= b[0] if b[1] else sort > b[0])


def _below(b: _Bound, sort: bytes) -> bool:
    """Whether ``sort`` is inside upper bound ``b``."""
    return b is None or (sort <= b[0] if b[1] else sort < b[0])


class _Reading:
    """One scan of an index query, as placing an item whose entry moved needs it
    (store/list.rs ``Reading``): the direction, where the call's first scan started, the
    scan's bounds, the sort key of the last entry it read, and whether it read its range to
    the end."""

    __slots__ = ("reverse", "start_of_call", "start", "end", "last", "exhausted")

    def __init__(
        self,
        reverse: bool,
        start_of_call: _Bound,
        start: _Bound,
        end: _Bound,
        last: Optional[bytes],
        exhausted: bool,
    ) -> None:
        self.reverse = reverse
        self.start_of_call = start_of_call
        self.start = start
        self.end = end
        self.last = last
        self.exhausted = exhausted

    def covers(self, sort: bytes) -> bool:
        """Whether the call has read the part of the range where ``sort`` is: after where it
        started, up to the last entry this scan read (to the end of the range if the scan
        read it all)."""
        if not self.reverse:
            if not _above(self.start_of_call, sort):
                return False
            if self.exhausted:
                return _below(self.end, sort)
            return self.last is not None and sort <= self.last
        if not _below(self.start_of_call, sort):
            return False
        if self.exhausted:
            return _above(self.start, sort)
        return self.last is not None and sort >= self.last

    def place(
        self,
        steps: List[Tuple[bytes, Optional[Item]]],
        moved: List[Tuple[bytes, Item]],
        returned: Set[bytes],
    ) -> Tuple[List[Tuple[Item, bytes]], List[Tuple[bytes, Optional[Item]]]]:
        """The scan's steps (one per entry) with the moved items (each at its new sort key)
        put in place: those before the scan's range apart (as (item, sort), in scan order),
        the others among the steps in scan order. Each item is given once in the call
        (``returned`` holds the key path encodings given so far, and gains these): one
        already given is not given again (an entry of it becomes a step passed over)."""
        moved.sort(key=lambda m: m[0], reverse=self.reverse)

        def precedes(a: bytes, b: bytes) -> bool:
            return a > b if self.reverse else a < b

        def before_scan(sort: bytes) -> bool:
            return not _below(self.end, sort) if self.reverse else not _above(self.start, sort)

        def fresh(item: Item) -> bool:
            key = item["key"].encode()
            if key in returned:
                return False
            returned.add(key)
            return True

        earlier: List[Tuple[Item, bytes]] = []
        m = 0
        while m < len(moved) and before_scan(moved[m][0]):
            if fresh(moved[m][1]):
                earlier.append((moved[m][1], moved[m][0]))
            m += 1
        out: List[Tuple[bytes, Optional[Item]]] = []
        for sort, item in steps:
            while m < len(moved) and precedes(moved[m][0], sort):
                if fresh(moved[m][1]):
                    out.append(moved[m])
                m += 1
            if item is None or fresh(item):
                out.append((sort, item))
            else:
                out.append((sort, None))
        for sort, item in moved[m:]:
            if fresh(item):
                out.append((sort, item))
        return earlier, out


class TableClient(_Writes):
    """A client of one sortpath-store table over a boto3 low-level DynamoDB client
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

    @classmethod
    def open(cls, client: Any, table: str) -> TableClient:
        """A client of ``table`` after one ``DescribeTable``, as the Rust store opens a
        table: refuses a table whose keys are not ``pk``/``sk`` of type ``B``, and learns
        the indexes it keeps as ``kp_`` GSIs (GSI mode)."""
        return cls(client, table, _describe(client, table))

    @classmethod
    def connect(cls, table: str, endpoint_url: Optional[str] = None, **kwargs: Any) -> TableClient:
        """:meth:`open` over ``boto3.client("dynamodb", endpoint_url=..., **kwargs)``
        (needs boto3: ``pip install 'sortpath[dynamodb]'``)."""
        try:
            import boto3  # type: ignore[import-untyped,unused-ignore]
        except ImportError as e:
            raise ImportError(
                f"TableClient.connect needs boto3 (pip install 'sortpath[dynamodb]'): {e}"
            ) from None

        try:
            client = boto3.client("dynamodb", endpoint_url=endpoint_url, **kwargs)
        except Exception as e:  # botocore's: no region, a bad endpoint URL, bad arguments
            raise DynamoDbError("the boto3 client", table, type(e).__name__, str(e)) from e
        return cls.open(client, table)

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
            out = self._call("Query", **request)
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
        resolve: Callable[[List[Tuple[bytes, Dict[str, Any]]], int, _ScanBounds], _Scanned],
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
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 0
        ):
            raise InvalidRequest(f"limit: expected an int of 0 or more, found {limit!r}")
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
            scanned = resolve(records, wanted - len(items), (start, end, batch))
            exhausted = scanned.records < batch
            more = scanned.more
            if scanned.passed_after_last:
                position = scanned.passed
            else:
                at_last_item = bool(scanned.items)
            # Items now placed in what an earlier scan of this page read (an index entry
            # that moved behind the scans) go where they are now, keeping the page in order.
            for late in scanned.earlier:
                slot = len(items)
                while slot > 0 and (
                    items[slot - 1][1] < late[1] if reverse else items[slot - 1][1] > late[1]
                ):
                    slot -= 1
                items.insert(slot, late)
            items.extend(scanned.items)
            if len(items) > wanted:
                # Only those late items overfill the page: it ends at its limit, the cursor
                # at its last item; the items cut are after it, for the next page.
                del items[wanted:]
                at_last_item = True
                more = True
            if more or exhausted:
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
        if children is not None and not isinstance(children, str):
            raise InvalidRequest(
                f"children: expected a namespace (a str), found {type(children).__name__}"
            )
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
        ``sortpath db list PREFIX`` with the same options answers. ``children="ticket"``
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

        def resolve(
            records: List[Tuple[bytes, Dict[str, Any]]], needed: int, _: _ScanBounds
        ) -> _Scanned:
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
        :meth:`list`: what ``sortpath db index NAME PREFIX`` answers. Keys-only entries are
        checked against their items' headers with one ``BatchGetItem``; projected entries
        are taken as they are. An item that moved to another key of the index between the
        two reads is returned at its new key when the query has read that part of the
        range, and each item at most once per page (docs/DYNAMODB_LAYOUT.md section 7.2); a
        cursor is a position (section 7.3). The first query of an index reads the configuration (one
        ``GetItem``) to refuse an unknown index or one being built.
        """
        if not isinstance(name, str) or not is_valid_index_name(name):
            raise InvalidRequest(
                f"invalid index name {name!r}: expected 1 to 64 ASCII letters, digits or '_'"
            )
        group, the_plan = self._query_plan(prefix, gt, gte, lt, lte, True)
        self._check_index(name)
        group_bytes = group.encode()
        gsi = self._kept_indexes().get(name)
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

        # What the call has read so far, shared by its scans (store/list.rs `CallMoves`):
        # where it started, and the items (their key path encodings) its page holds.
        call_from: List[_Bound] = []
        returned: Set[bytes] = set()

        def resolve(
            records: List[Tuple[bytes, Dict[str, Any]]], needed: int, bounds: _ScanBounds
        ) -> _Scanned:
            start, end, batch = bounds
            if not call_from:
                call_from.append(end if reverse else start)
            reading = _Reading(
                reverse,
                call_from[0],
                start,
                end,
                records[-1][0] if records else None,
                len(records) < batch,
            )
            moved: List[Tuple[bytes, Item]] = []
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
                    now = next((p for n, _, p in header.indexes if n == name), None)
                    if now is None:
                        continue
                    if now == full:
                        steps[i] = (steps[i][0], _item(base, version, value, ipk, isk))
                        continue
                    # The item moved to another key of this index after its entry was read:
                    # it is given at its new place if that place is in the query and the
                    # call has read it.
                    try:
                        group_now, rest_now = KeyPath.decode(now).split_group()
                        matches = group_now == group_bytes and the_plan.matches(
                            KeyPath.decode(rest_now)
                        )
                    except KeyPathError:
                        continue  # a key that does not decode is in no query's range
                    sort_now = entry_sort_key(rest_now, base.encode())
                    if matches and reading.covers(sort_now):
                        moved.append((sort_now, _item(base, version, value, ipk, isk)))
            earlier, placed = reading.place(steps, moved, returned)
            scanned = _Scanned()
            scanned.records = len(records)
            scanned.earlier = earlier
            room = needed - len(earlier)
            for sort, item in placed:
                if len(scanned.items) >= room:
                    scanned.more = True
                    break
                if item is None:
                    scanned.pass_over(sort)
                else:
                    scanned.select(item, sort)
            return scanned

        return self._paged(name, pk, group_bytes, the_plan, reverse, limit, cursor, resolve, gsi)
