"""An independent statement of the ordering rules of docs/FORMAT.md ("Ordering", rules
1-6) over plain (namespace, id) lists, for checking the package's order against."""

from __future__ import annotations

import uuid
from typing import Optional, Sequence, Tuple

from pathgen import Id

Components = Sequence[Tuple[str, Optional[Id]]]


def _rank(id: Id) -> int:
    if isinstance(id, int):
        return 0
    if isinstance(id, str):
        return 1
    return 2  # bytes


def _sign(x: object, y: object) -> int:
    return int((x > y) - (x < y))  # type: ignore[operator]


def cmp_ids(a: Id, b: Id) -> Optional[int]:
    """-1/0/1, or None when a UUID meets another type (rule 6: the bytes decide)."""
    if isinstance(a, uuid.UUID) or isinstance(b, uuid.UUID):
        if isinstance(a, uuid.UUID) and isinstance(b, uuid.UUID):
            return _sign(a.bytes, b.bytes)
        return None
    if type(a) is type(b):
        if isinstance(a, str):
            return _sign(a.encode("utf-8"), b.encode("utf-8"))  # type: ignore[union-attr]
        return _sign(a, b)
    return _sign(_rank(a), _rank(b))


def logical_cmp(x: Components, y: Components) -> Optional[int]:
    """Rules 1-5: component by component, namespaces by bytes, no ID before any ID, IDs by
    type rules (integers < strings < bytes), a path before its extensions. None where a
    UUID meets another ID type at the first differing position (rule 6)."""
    for (ans, aid), (bns, bid) in zip(x, y):
        c = _sign(ans.encode("ascii"), bns.encode("ascii"))
        if c:
            return c
        if aid is None or bid is None:
            c = (aid is not None) - (bid is not None)
        else:
            r = cmp_ids(aid, bid)
            if r is None:
                return None
            c = r
        if c:
            return c
    return _sign(len(x), len(y))


def same_id(a: Optional[Id], b: Optional[Id]) -> bool:
    return type(a) is type(b) and a == b


def starts_with(path: Components, prefix: Components) -> bool:
    return len(prefix) <= len(path) and all(
        pn == n and (pid is None or same_id(pid, id)) for (pn, pid), (n, id) in zip(prefix, path)
    )


def same_path(x: Components, y: Components) -> bool:
    return len(x) == len(y) and all(a[0] == b[0] and same_id(a[1], b[1]) for a, b in zip(x, y))
