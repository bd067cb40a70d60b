"""The table client's writes (docs/DYNAMODB_LAYOUT.md section 6): the one consistent
``BatchGetItem``, then the one ``PutItem``, ``DeleteItem`` or ``TransactWriteItems`` the Rust
store sends, retried on a lost race."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import _msgpack
from ._config import (
    Config,
    InvalidValue,
    field_index_keys,
    parse_config,
)
from ._errors import KeyPathError
from ._layout import (
    CONFIG_PK,
    CONFIG_SK,
    MAX_ITEM_SIZE,
    MAX_PARTITION_KEY,
    MAX_SORT_KEY,
    encode_header,
    entry_sort_key,
    index_group,
    parse_header,
)
from ._layout_error import LayoutError
from ._native import estimated_size, to_native
from ._path import KeyPath
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
)
from ._records import (
    _MAX_ATTEMPTS,
    _ALL_OLD,
    _Conflict,
    _path,
    _b,
    _foreign,
    _counter_key,
    _counter_version,
    _pause,
    _stored_record,
)
from ._table_base import _TableBase


def _applied_before(members: List[Dict[str, Any]], reasons: List[Dict[str, Any]]) -> bool:
    """Whether a write that failed its conditions, on a request botocore sent again, had
    been applied by an earlier attempt whose answer was lost (a connection cut after
    DynamoDB applied it, or an ``InternalServerError``, which may or may not have been
    applied): every conditional put failed against exactly the record it puts, every
    conditional delete against no record, and there was at least one such put. Without this
    the failure would read as another writer's and the write be planned again (an update
    applied twice, an only-if-absent put refused after it wrote). Asked only after a retry:
    otherwise an equal record is another writer's (two updates computing the same record
    from the same version, as two increments do), and the loser must read again."""
    if len(reasons) != len(members):
        return False
    puts = 0
    for member, reason in zip(members, reasons):
        ((kind, body),) = member.items()
        if "ConditionExpression" not in body:
            continue
        if not isinstance(reason, dict) or reason.get("Code") != "ConditionalCheckFailed":
            return False
        found = reason.get("Item")
        if kind == "Delete":
            if found is not None:
                return False
            continue
        if not isinstance(found, dict) or not _same_record(body["Item"], found):
            return False
        puts += 1
    return puts > 0


def _same_record(sent: Dict[str, Any], found: Dict[str, Any]) -> bool:
    """Whether two items are the same record: version and value bytes."""
    try:
        pk, sk = bytes(sent["pk"]["B"]), bytes(sent["sk"]["B"])
        return _stored_record(sent, pk, sk) == _stored_record(found, pk, sk)
    except (ForeignRecord, KeyError, TypeError, ValueError):
        return False


class _Writes(_TableBase):
    """``put``, ``update`` and ``delete`` of :class:`sortpath.dynamodb.TableClient`."""

    def _send(self, members: List[Dict[str, Any]]) -> bool:
        """Sends a write batch (section 6.2): nothing, one ``PutItem``/``DeleteItem``, or
        one ``TransactWriteItems``. ``False`` when a condition failed (or a transaction
        conflicted): read again and retry; ``True`` when done, also when the conditions
        failed against exactly what the batch writes (:func:`_applied_before`)."""
        if not members:
            return True
        try:
            if len(members) == 1:
                ((kind, body),) = members[0].items()
                self._call("PutItem" if kind == "Put" else "DeleteItem", **body)
            else:
                self._call("TransactWriteItems", TransactItems=members)
        except DynamoDbError as e:
            code = e.code
            response = getattr(e.__cause__, "response", None)
            if not isinstance(response, dict):
                response = {}
            metadata = response.get("ResponseMetadata")
            retried = isinstance(metadata, dict) and (metadata.get("RetryAttempts") or 0) > 0
            if code == "ConditionalCheckFailedException":
                failed = {"Code": "ConditionalCheckFailed", "Item": response.get("Item")}
                return retried and len(members) == 1 and _applied_before(members, [failed])
            if code == "TransactionCanceledException":
                listed = response.get("CancellationReasons")
                if retried and _applied_before(members, listed or []):
                    return True
                reasons = [r.get("Code") for r in listed or []]
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
            if name in self._kept_indexes():
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

    def _encode(
        self, path: KeyPath, item_type: str, value: Any, payload: bytes, config: Config
    ) -> Tuple[
        bytes,
        List[Tuple[str, KeyPath]],
        List[Optional[Tuple[bytes, bytes]]],
        Dict[str, Any],
    ]:
        """The stored header of the item at ``path``, its index keys, the keys of its
        entries (``None`` for an index a GSI keeps) and its GSI key attributes; refuses (with
        :class:`InvalidRequest`) a value a field index refuses and keys or values over
        DynamoDB's limits."""
        try:
            indexes = field_index_keys(config, path, item_type, value)
        except InvalidValue as e:
            raise InvalidRequest(str(e)) from None
        try:
            # The store's header elides the key paths its GSIs keep (section 5).
            kept = self._kept_indexes() if indexes else {}
            header = encode_header(item_type, indexes, [n for n, _ in indexes if n in kept])
        except LayoutError as e:
            raise InvalidRequest(f"{path}: {e}") from None
        if len(header) + len(payload) > MAX_ITEM_SIZE:
            raise InvalidRequest(
                f"{path}: the value is {len(header) + len(payload)} bytes, over the store's "
                f"limit of {MAX_ITEM_SIZE} (DynamoDB's item size)"
            )
        entries: List[Optional[Tuple[bytes, bytes]]] = []
        gsi_attrs: Dict[str, Any] = {}
        for name, ipath in indexes:
            epk, esk = self._entry_key(name, ipath, path)
            if len(epk) > MAX_PARTITION_KEY or len(esk) > MAX_SORT_KEY:
                raise InvalidRequest(f"{path}: index {name}'s entry key is over DynamoDB's key limits")
            gsi = kept.get(name)
            if gsi is None:
                entries.append((epk, esk))
                continue
            entries.append(None)  # DynamoDB keeps the GSI from the item's attributes
            gsi_attrs[gsi.pk] = _b(KeyPath(ipath.components[:1]).encode())
            gsi_attrs[gsi.sk] = _b(esk)
        return header, indexes, entries, gsi_attrs

    def _commit_put(
        self,
        path: KeyPath,
        value: Any,
        expect: Tuple[str, Optional[int]],
        item_type: Optional[str] = None,
    ) -> int:
        """Writes ``value`` at ``path`` as the Rust store's ``put_raw`` does. ``expect``:
        ``("any", None)``, ``("absent", None)``, ``("version", v)`` or ``("read", v)``
        (an update: the version read, ``None`` for absent; a mismatch raises _Conflict).
        ``item_type``: the type to store (an update's: the type read, which the item keeps;
        a stored item of another type is a mismatch); by default the namespace of the key's
        last component."""
        self._ensure_config()
        pk, sk = self._key(path)
        if len(pk) + 2 > MAX_PARTITION_KEY or len(sk) > MAX_SORT_KEY:
            raise InvalidRequest(f"{path}: its key is over DynamoDB's key limits")
        if item_type is None:
            item_type = path.components[-1].namespace
        try:
            payload = _msgpack.encode(value)
        except LayoutError as e:
            raise InvalidRequest(f"{path}: the value: {e}") from None
        if self._config is not None:
            # Bad values are refused before anything is sent, as `sortpath db put` computes
            # the index keys before writing; the write computes them again from the
            # configuration it reads.
            self._encode(path, item_type, value, payload, self._config)
        # Whether the table held items when it had no configuration record (a Scan tells,
        # once, when a write finds no record): then the write is refused, as the Rust
        # store's (its record may have been lost; see :meth:`create_config_over_items`).
        roots_unknown = self._config is None
        unrecorded_items = self._holds_items() if self._config is None else None
        for attempt in range(_MAX_ATTEMPTS):
            counted = self._config is not None and self._config.group_versions
            counter_key = _counter_key(pk)
            got = self._batch_get(
                ([counter_key] if counted else []) + [(pk, sk), (CONFIG_PK, CONFIG_SK)]
            )
            counter = got[0] if counted else None
            old, config_record = got[-2:]
            cfg_version: Optional[int] = None
            if config_record is None:
                # No configuration record: on a table without items the write creates it,
                # listing the type, as the Rust store's first write does. A table that holds
                # items but no record is refused, writing nothing: the record may have been
                # lost, and a new one would drop the indexes it declared.
                if unrecorded_items is None:
                    unrecorded_items = self._holds_items()
                if unrecorded_items:
                    raise UnrecordedConfig(self._table, str(path))
                config = Config([], types=[])
            else:
                cfg_version, cfg_value = self._record(config_record, CONFIG_PK, CONFIG_SK)
                try:
                    config = parse_config(cfg_value)
                except LayoutError as e:
                    raise ForeignRecord(str(e)) from None
                self._config = config
                if roots_unknown and len(path) == 1:
                    place = config.roots.get(path.components[0].namespace, "first")
                    if place != "first":
                        raise TableError(
                            f"the store's configuration, created while this write was "
                            f"prepared, places the root item {path} elsewhere; nothing was "
                            "written: write again"
                        )
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
            if kind == "read" and (found != want or old_type != item_type):
                raise _Conflict()
            header, indexes, entries, gsi_attrs = self._encode(path, item_type, value, payload, config)
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
            declared: Optional[Config] = None
            if config.types is not None and item_type not in config.types:
                declared = Config(config.indexes, config.group_versions, config.types + [item_type], config.roots)
                record = {
                    "pk": _b(CONFIG_PK),
                    "sk": _b(CONFIG_SK),
                    "val": _b(declared.to_json()),
                    "ver": {"N": str(1 if cfg_version is None else cfg_version + 1)},
                }
                members.append(self._put_member(record, cfg_version))
            if self._send(members):
                if cfg_version is None and declared is not None:
                    self._config = declared  # the record this write created
                return version
            _pause(attempt)
        raise TableError(f"{path}: gave up after {_MAX_ATTEMPTS} attempts (contention)")

    def _holds_items(self) -> bool:
        """Whether the table holds an item (a record whose ``pk`` does not start ``00``):
        a consistent ``Scan`` of the ``pk`` attribute, page after page until a page has
        one (docs/DYNAMODB_LAYOUT.md section 2.4: the Rust store reads every page, with the
        same answer; an empty table is one request)."""
        exclusive: Optional[Dict[str, Any]] = None
        while True:
            request: Dict[str, Any] = {
                "TableName": self._table,
                "ProjectionExpression": "pk",
                "ConsistentRead": True,
            }
            if exclusive is not None:
                request["ExclusiveStartKey"] = exclusive
            out = self._call("Scan", **request)
            for attrs in out.get("Items", []):
                group = attrs.get("pk", {}).get("B") if isinstance(attrs.get("pk"), dict) else None
                if group and group[0] >= 1:
                    return True
            exclusive = out.get("LastEvaluatedKey")
            if not exclusive:
                return False

    def create_config_over_items(self, *, group_versions: bool = False) -> bool:
        """Records a configuration if the table has none, also over items written without
        one, as the Rust store's ``Store::create_config_over_items`` (``sortpath db
        --dynamodb TABLE init --over-items``); ``False``, changing nothing, if the table has
        a record. A write to a table that holds items but no record raises
        :class:`UnrecordedConfig` instead: the record may have been lost to damage, and a
        new one would drop the indexes it declared. This is the explicit take-over of a
        table an earlier release wrote without a record (and the first step of recovering
        one whose record was lost: take its items over, export them, import them into a new
        store created with its indexes).

        Over items the record declares no index and no root place (nothing would give the
        items there their entries or places) and lists no ``types`` (unknown: an index
        declared later is built before it answers); on a table without items it is the
        record the first write would create, listing the types written. ``group_versions``:
        the store keeps a version counter per group. One consistent ``Scan`` (until an
        item), then one conditional ``PutItem``.

        >>> from sortpath.dynamodb import TableClient
        >>> class Table:  # a table holding one item and no configuration record
        ...     def __init__(self):
        ...         self.put = []
        ...     def scan(self, **request):
        ...         return {"Items": [{"pk": {"B": b"items"}}]}
        ...     def put_item(self, **request):
        ...         self.put.append(request["Item"]["val"]["B"])
        ...         return {}
        >>> table = Table()
        >>> TableClient(table, "T").create_config_over_items()
        True
        >>> table.put
        [b'{"format":1,"indexes":[]}']
        """
        if not isinstance(group_versions, bool):
            raise InvalidRequest(
                f"group_versions: expected True or False, found {group_versions!r}"
            )
        config = Config([], group_versions, types=None if self._holds_items() else [])
        record = {
            "pk": _b(CONFIG_PK),
            "sk": _b(CONFIG_SK),
            "val": _b(config.to_json()),
            "ver": {"N": "1"},
        }
        if not self._send([self._put_member(record, None)]):
            self._read_config()
            return False
        self._config = config
        self._config_read = True
        return True

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
        if if_version is not None and (
            not isinstance(if_version, int)
            or isinstance(if_version, bool)
            or not 0 <= if_version < 1 << 64
        ):
            raise InvalidRequest(
                f"if_version: expected a version, an int from 0 to 2**64-1, found {if_version!r}"
            )
        expect: Tuple[str, Optional[int]] = ("any", None)
        if if_absent:
            expect = ("absent", None)
        elif if_version is not None:
            expect = ("version", if_version)
        return self._commit_put(path, value, expect)

    def update(self, key: KeyLike, fn: Callable[[Any], Any]) -> Item:
        """Reads the item at ``key``, calls ``fn`` on its value and writes what it returns,
        only if the item is still at the version read; on a conflict, reads again and calls
        ``fn`` again. The item keeps its stored type (and so the field indexes of that
        type). Returns the item written. Raises :class:`ItemNotFound` if no item is at
        ``key``.

        ``fn`` must return the new value: a function that changes the value in place must
        also return it. A ``None`` return raises :class:`InvalidRequest` and writes nothing;
        to store a JSON ``null``, ``put(key, None)``.
        """
        path = _path(key)
        for attempt in range(_MAX_ATTEMPTS):
            current = self.get(path)
            if current is None:
                raise ItemNotFound(f"no item at {path}")
            value = fn(current["value"])
            if value is None:
                raise InvalidRequest(
                    f"{path}: the update function returned None; it must return the item's "
                    "new value (a function that changes the value in place must also return "
                    "it); nothing was written (to store a JSON null, put(key, None))"
                )
            item_type = current["type"]
            try:
                version = self._commit_put(
                    path, value, ("read", current["version"]), item_type
                )
            except _Conflict:
                _pause(attempt)
                continue
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
