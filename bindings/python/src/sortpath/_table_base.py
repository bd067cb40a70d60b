"""The table client's core: its state, the configuration record, item keys, and
``BatchGetItem`` reads (the base of :class:`sortpath.dynamodb.TableClient`)."""

from __future__ import annotations

import random
import struct
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ._config import Config, parse_config
from ._errors import KeyPathError
from ._layout import (
    CONFIG_PK,
    CONFIG_SK,
    MAX_PARTITION_KEY,
    MAX_SORT_KEY,
    is_valid_index_name,
    item_key,
    parse_header,
    split_entry_sort,
)
from ._layout_error import LayoutError
from ._path import KeyPath
from ._table_types import (
    KeyLike,
    Item,
    TableError,
    InvalidRequest,
    ForeignRecord,
    KeptIndex,
    DynamoDbError,
    Unsupported,
)
from ._records import (
    _MAX_BATCH_GET,
    _path,
    _b,
    _foreign,
    _stored_record,
    _item,
)


_METHODS = {
    "BatchGetItem": "batch_get_item",
    "DeleteItem": "delete_item",
    "DescribeTable": "describe_table",
    "GetItem": "get_item",
    "PutItem": "put_item",
    "Query": "query",
    "Scan": "scan",
    "TransactWriteItems": "transact_write_items",
}


def _request(client: Any, table: str, operation: str, **request: Any) -> Dict[str, Any]:
    """One request through the boto3 client; whatever it raises (botocore's errors: a
    missing table, a refused key, an unreachable endpoint) as a :class:`DynamoDbError`
    naming the operation and the table."""
    try:
        out: Dict[str, Any] = getattr(client, _METHODS[operation])(**request)
    except TableError:
        raise
    except Exception as e:
        response = getattr(e, "response", None)
        error = response.get("Error") if isinstance(response, dict) else None
        if isinstance(error, dict) and error.get("Code"):
            code, message = str(error["Code"]), str(error.get("Message") or e)
        else:
            code, message = type(e).__name__, str(e)
        raise DynamoDbError(operation, table, code, message) from e
    return out


def _describe(client: Any, table: str) -> List[KeptIndex]:
    """The indexes ``table`` keeps as ``kp_`` GSIs (GSI mode), after one ``DescribeTable``,
    as the Rust store opens a table: refuses a table whose keys are not ``pk``/``sk`` of
    type ``B``."""
    out = _request(client, table, "DescribeTable", TableName=table)["Table"]
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
                f"DynamoDB table {table!r}: GSI {name} is not a sortpath index (two binary "
                "keys, HASH then RANGE, projecting ALL or KEYS_ONLY)"
            )
        kept.append(
            KeptIndex(name[3:], keys[0]["AttributeName"], keys[1]["AttributeName"], projection == "KEYS_ONLY")
        )
    return kept


class _TableBase:
    """The client's state and its point reads."""

    def __init__(
        self, client: Any, table: str, gsis: Optional[Sequence[KeptIndex]] = None
    ) -> None:
        """A client of ``table``; ``gsis``: the indexes the table keeps as GSIs (GSI mode),
        as :meth:`open` finds them; if not given, learned with one ``DescribeTable`` when a
        write with index entries, an index query or a stored header first needs them."""
        self._client = client
        self._table = table
        # None until known: learned with one DescribeTable when first needed.
        self._kept: Optional[Dict[str, KeptIndex]] = (
            None if gsis is None else {k.name: k for k in gsis}
        )
        self._config: Optional[Config] = None
        self._config_read = False
        self._ready: set[str] = set()
        # A new item's version: random, 1 to 2^52 - 1 (section 6.1). Tests fix it.
        self._fresh_version: Callable[[], int] = lambda: random.randint(1, (1 << 52) - 1)

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
            index = self._kept_indexes().get(name)
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

    def _kept_indexes(self) -> Dict[str, KeptIndex]:
        """The indexes the table keeps as GSIs: as given to the constructor, else learned
        with one ``DescribeTable`` the first time a write, an index query or a header
        needs them."""
        if self._kept is None:
            self._kept = {k.name: k for k in _describe(self._client, self._table)}
        return self._kept

    def _call(self, operation: str, **request: Any) -> Dict[str, Any]:
        return _request(self._client, self._table, operation, **request)

    def _read_config(self) -> Optional[Config]:
        out = self._call(
            "GetItem",
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
                out = self._call(
                    "BatchGetItem",
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
        if isinstance(keys, (str, bytes, bytearray, KeyPath)):
            raise InvalidRequest(
                f"batch_get: expected a sequence of keys (KeyPaths or their text), found one "
                f"{type(keys).__name__}; for one key use get"
            )
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
