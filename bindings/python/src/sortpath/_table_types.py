"""The table client's public types: its errors, pages of results, the indexes a table keeps
as GSIs (re-exported by :mod:`sortpath.dynamodb`)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from ._path import KeyPath

__all__ = [
    "KeyLike",
    "Item",
    "TableError",
    "ConditionFailed",
    "ItemNotFound",
    "InvalidRequest",
    "ForeignRecord",
    "Unsupported",
    "UnrecordedConfig",
    "DynamoDbError",
    "Page",
    "KeptIndex",
]

KeyLike = Union[KeyPath, str]
"""A key path, or its text form."""


Item = Dict[str, Any]
"""An item: ``{"key": KeyPath, "version": int, "type": str, "value": ...}``."""


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
    index being built); nothing was written."""


class UnrecordedConfig(TableError):
    """The table holds items but no configuration record, and a write would have given it
    one (the Rust store's ``ConfigError::Unrecorded``): its record may have been lost to
    damage, and a new one would drop the indexes and settings it declared. Nothing was
    written. A table an earlier release wrote without a record is taken over explicitly
    with :meth:`TableClient.create_config_over_items
    <sortpath.dynamodb.TableClient.create_config_over_items>` (``sortpath db --dynamodb
    TABLE init --over-items``). ``table`` names the table, ``where`` the key path written.

    >>> e = UnrecordedConfig("t", "/board-1/ticket-1")
    >>> "holds items but no configuration record" in str(e), e.table
    (True, 't')
    """

    def __init__(self, table: str, where: str) -> None:
        super().__init__(
            f"{where}: table {table!r}: store configuration: the store holds items but no "
            "configuration record, so nothing was written: its record may have been lost to "
            "damage, and writing a new one would drop the indexes and settings it declared. "
            "If the record was lost, restore the table from a backup or an export (or take "
            "its items over as below, export them, and import them into a new store created "
            "with its indexes); if an earlier release wrote the table without a record, "
            "record a configuration for its items explicitly with "
            "TableClient.create_config_over_items (`sortpath db --dynamodb TABLE init "
            "--over-items`)"
        )
        self.table = table
        self.where = where

    def __reduce__(self) -> Any:
        return (UnrecordedConfig, (self.table, self.where))


class DynamoDbError(TableError):
    """DynamoDB (or the boto3 client) failed a request: a missing table, a table whose keys
    are not ``pk``/``sk`` of type ``B``, wrong credentials, an unreachable endpoint,
    throttling; or :meth:`TableClient.connect` could not make the boto3 client (no region,
    a bad endpoint URL). The message names the operation, the table and the error; ``code``
    is DynamoDB's error code (``"ResourceNotFoundException"``), or the exception's class
    name when there is none; ``__cause__`` is the exception boto3 raised.

    >>> e = DynamoDbError("GetItem", "t", "ResourceNotFoundException", "no such table")
    >>> (e.code, str(e))
    ('ResourceNotFoundException', "GetItem on table 't': ResourceNotFoundException: no such table")
    """

    def __init__(self, operation: str, table: str, code: str, message: str) -> None:
        super().__init__(f"{operation} on table {table!r}: {code}: {message}")
        self.operation = operation
        self.code = code


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
