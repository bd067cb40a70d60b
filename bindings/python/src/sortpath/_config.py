"""The store's configuration record (docs/DYNAMODB_LAYOUT.md, section 2.4) and the entries of
its field indexes (section 2.4.1).

>>> config = parse_config(b'{"format":1,"indexes":[{"name":"by_updated","type":"ticket",'
...     b'"kind":"field","field":"updated","group":"/board-{board}"}],"types":[]}')
>>> from sortpath import KeyPath
>>> [(n, str(p)) for n, p in field_index_keys(config, KeyPath.parse("/board-1/ticket-7"),
...                                           "ticket", {"board": 1, "updated": 20})]
[('by_updated', '/board-1/updated-20')]
>>> field_index_keys(config, KeyPath.parse("/board-1/note-7"), "note", {"board": 1, "updated": 20})
[]
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple, Union
from uuid import UUID

from ._errors import KeyPathError
from ._layout import RootPlace, is_namespace, is_valid_index_name
from ._layout_error import LayoutError
from ._path import KeyPath

__all__ = ["Config", "IndexDecl", "InvalidValue", "parse_config", "field_index_keys"]


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
        raise _config_error(f"not a sortpath store configuration: {e}") from None
    if not isinstance(raw, dict):
        raise _config_error("not a sortpath store configuration: not a JSON object")
    fmt = raw.get("format")
    if type(fmt) is not int:
        raise _config_error("not a sortpath store configuration: no integer format")
    if not 1 <= fmt <= 2:
        raise _config_error(
            f"configuration format {fmt}, this release reads formats 1 to 2 (written by "
            "another release of sortpath-store)"
        )
    indexes_raw = raw.get("indexes")
    if not isinstance(indexes_raw, list):
        raise _config_error("not a sortpath store configuration: no indexes list")
    indexes: List[IndexDecl] = []
    for d in indexes_raw:
        if not isinstance(d, dict):
            raise _config_error("not a sortpath store configuration: an index is not an object")
        name, item_type, kind = d.get("name"), d.get("type"), d.get("kind")
        if not isinstance(name, str) or not isinstance(item_type, str):
            raise _config_error("not a sortpath store configuration: an index without name or type")
        building = d.get("building", False)
        if not isinstance(building, bool):
            raise _config_error("not a sortpath store configuration: building is not a boolean")
        if kind == "field":
            field, group = d.get("field"), d.get("group")
            if not isinstance(field, str) or not isinstance(group, str):
                raise _config_error(
                    "not a sortpath store configuration: a field index without field or group"
                )
            decl = IndexDecl(name, item_type, "field", field, group, building)
        elif kind == "program":
            decl = IndexDecl(name, item_type, "program", building=building)
        else:
            raise _config_error(f"not a sortpath store configuration: index kind {kind!r}")
        if not is_valid_index_name(name):
            raise _config_error(
                f"invalid index name {name!r}: expected 1 to 64 ASCII letters, digits or '_'"
            )
        if any(e.name == name and e.item_type == item_type for e in indexes):
            raise _config_error(f"index {name} of type {item_type} is declared twice")
        indexes.append(decl)
    group_versions = raw.get("group_versions", False)
    if not isinstance(group_versions, bool):
        raise _config_error("not a sortpath store configuration: group_versions is not a boolean")
    types = raw.get("types")
    if types is not None and (
        not isinstance(types, list) or not all(isinstance(t, str) for t in types)
    ):
        raise _config_error("not a sortpath store configuration: types is not a list of strings")
    roots_raw = raw.get("roots", {})
    if not isinstance(roots_raw, dict):
        raise _config_error("not a sortpath store configuration: roots is not an object")
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


def field_index_keys(
    config: Config, path: KeyPath, item_type: str, value: Any
) -> List[Tuple[str, KeyPath]]:
    """The index keys of the field indexes of the item at ``path`` of type ``item_type`` with
    ``value``, in declaration order: an index takes the items whose stored type is its type
    (section 2.4.1 rule 1), which need not be the namespace of the path's last component
    (an import can give another, and an update keeps the stored one)."""
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


