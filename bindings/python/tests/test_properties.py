"""Property tests over generated trap-heavy paths: byte order == KeyPath order == logical
order, decode(encode(p)) == p, parse(str(p)) == p, group splits and ranges."""

from __future__ import annotations

import functools
import random
import uuid
from typing import List, Optional, Tuple

from hypothesis import given, settings
from hypothesis import strategies as st

import pathgen
import reference
from sortpath import Excluded, Included, KeyPath, KeyPathError, KeyRange

INT_MAX = 2**64 - 1

ints = st.one_of(st.sampled_from(pathgen.INT_BOUNDARIES), st.integers(-INT_MAX, INT_MAX))
texts = st.one_of(
    st.sampled_from(pathgen.TRAP_STRINGS),
    st.lists(
        st.one_of(st.sampled_from(pathgen.TRAP_CHARS), st.characters(codec="utf-8")), max_size=6
    ).map("".join),
)
blobs = st.one_of(
    st.sampled_from(pathgen.TRAP_BYTES),
    st.lists(st.sampled_from([0, 1, 2, 0x0F, 0x10, 0x11, 0x12, 0x7F, 0xFE, 0xFF]), max_size=6).map(bytes),
    st.binary(max_size=8),
)
uuids = st.one_of(st.sampled_from(pathgen.UUIDS), st.uuids())
ids = st.one_of(ints, texts, blobs, uuids)
namespaces = st.one_of(st.sampled_from(pathgen.NAMESPACES), st.from_regex(r"[A-Za-z_]{1,20}", fullmatch=True))


@st.composite
def components(draw: st.DrawFn, id_strategy: st.SearchStrategy[pathgen.Id] = ids) -> pathgen.Components:
    pairs = draw(st.lists(st.tuples(namespaces, id_strategy), max_size=4))
    comps: pathgen.Components = [(ns, id) for ns, id in pairs]
    drop_last_id = draw(st.booleans()) and draw(st.booleans())
    if comps and drop_last_id:
        comps[-1] = (comps[-1][0], None)
    return comps


def build(comps: pathgen.Components) -> KeyPath:
    path = KeyPath()
    for ns, id in comps:
        path = path.push_namespace(ns) if id is None else path.push(ns, id)
    return path


def same_components(path: KeyPath, comps: pathgen.Components) -> bool:
    got = [(c.namespace, c.id) for c in path.components]
    return len(got) == len(comps) and all(
        a[0] == b[0] and reference.same_id(a[1], b[1]) for a, b in zip(got, comps)
    )


@settings(max_examples=600, deadline=None)
@given(components())
def test_round_trips(comps: pathgen.Components) -> None:
    path = build(comps)
    assert KeyPath(comps) == path
    data = path.encode()
    decoded = KeyPath.decode(data)
    assert decoded == path and same_components(decoded, comps)
    assert decoded.encode() == data
    text = str(path)
    parsed = KeyPath.parse(text)
    assert parsed == path and same_components(parsed, comps)
    assert str(parsed) == text
    assert hash(parsed) == hash(path)
    assert eval(repr(path), {"KeyPath": _ParseOnly}) == path


class _ParseOnly:
    """repr(path) is KeyPath('<text>'); evaluating it with this stand-in parses the text."""

    def __new__(cls, text: str) -> KeyPath:  # type: ignore[misc]
        return KeyPath.parse(text)


@settings(max_examples=600, deadline=None)
@given(components(), components())
def test_order_is_byte_order_and_logical_order(a: pathgen.Components, b: pathgen.Components) -> None:
    pa, pb = build(a), build(b)
    by_bytes = (pa.encode() > pb.encode()) - (pa.encode() < pb.encode())
    assert ((pa > pb) - (pa < pb)) == by_bytes
    assert (pa == pb) == (by_bytes == 0) == (pa <= pb and pa >= pb)
    logical = reference.logical_cmp(a, b)
    if logical is not None:
        assert logical == by_bytes, (str(pa), str(pb))


@settings(max_examples=400, deadline=None)
@given(components(), components(), st.sampled_from(["x", "post"]))
def test_order_of_siblings_and_extensions(a: pathgen.Components, b: pathgen.Components, ns: str) -> None:
    # Paths sharing a prefix: the first difference decides, a prefix sorts first.
    base = [c for c in a if c[1] is not None]
    pa, pb = build(base + b), build(base)
    if b:
        assert pb < pa
        assert pa.starts_with(pb)
    assert KeyRange.subtree(pb).contains_key(pa.encode())


def test_bulk_order_three_ways() -> None:
    # 20,000 seeded paths, many near each other: sorted by KeyPath, by bytes and by the
    # logical rules give the same list.
    rng = random.Random(20291)
    comps = pathgen.random_paths(rng, 20_000)
    paths = [KeyPath(c) for c in comps]
    by_path = sorted(range(len(paths)), key=lambda i: paths[i])
    by_bytes = sorted(range(len(paths)), key=lambda i: paths[i].encode())
    assert [paths[i].encode() for i in by_path] == [paths[i].encode() for i in by_bytes]
    # Without UUIDs the logical rules order every pair on their own.
    plain = pathgen.random_paths(random.Random(7), 20_000, kinds="isb")

    def cmp(x: pathgen.Components, y: pathgen.Components) -> int:
        r = reference.logical_cmp(x, y)
        assert r is not None
        return r

    logical = sorted(plain, key=functools.cmp_to_key(cmp))
    assert [KeyPath(c).encode() for c in logical] == sorted(KeyPath(c).encode() for c in plain)


@settings(max_examples=400, deadline=None)
@given(components())
def test_group_split(comps: pathgen.Components) -> None:
    path = build(comps)
    if not comps or comps[0][1] is None:
        try:
            path.split_group()
        except KeyPathError as e:
            assert e.position is None and "has no group key" in e.problem
        else:
            raise AssertionError("split_group of a path without a group key")
        return
    group, sort = path.split_group()
    assert KeyPath.decode(group) == KeyPath(comps[:1])
    assert KeyPath.decode(sort) == KeyPath(comps[1:])
    assert KeyPath.from_group(group, sort) == path
    assert len(sort) >= 1


def test_sort_keys_in_a_group_sort_as_paths() -> None:
    rng = random.Random(99)
    user = uuid.UUID("4c9d36e5-6b19-4e6a-828c-226ed667458a")
    head: pathgen.Components = [("user", user)]
    paths = [KeyPath(head + c) for c in pathgen.random_paths(rng, 3000)]
    by_sort = sorted(paths, key=lambda p: p.split_group()[1])
    assert by_sort == sorted(paths)


Bound = Optional[Tuple[str, pathgen.Id]]


def _in_bounds(id: pathgen.Id, low: Bound, high: Bound) -> Optional[bool]:
    """Reference bound check; None where a UUID meets another type (bytes decide)."""
    for kind, value, want in ((low and low[0], low and low[1], 1), (high and high[0], high and high[1], -1)):
        if kind is None:
            continue
        c = reference.cmp_ids(id, value)  # type: ignore[arg-type]
        if c is None:
            return None
        if kind == "in" and c == -want:
            return False
        if kind == "ex" and c != want:
            return False
    return True


def _bound(b: Bound) -> object:
    if b is None:
        return None
    return Included(b[1]) if b[0] == "in" else Excluded(b[1])


def test_ranges_against_a_reference_filter() -> None:
    # Seeded path sets; every range's byte bounds select exactly the paths the reference
    # filter selects (for keys without a UUID against another type at the range's
    # position, where the bytes are the definition), and matches() agrees with both.
    rng = random.Random(4242)
    checked = 0
    for _ in range(60):
        comps = pathgen.random_paths(rng, 150)
        keys = [(c, KeyPath(c), KeyPath(c).encode()) for c in comps]
        for _ in range(8):
            base = rng.choice(comps)
            prefix = [c for c in base[: rng.randint(0, len(base))]]
            if prefix and prefix[-1][1] is None and len(prefix) > 1:
                prefix = prefix[:-1]
            ppath = KeyPath(prefix)
            parent = [c for c in prefix if c[1] is not None]
            ns = rng.choice(["a", "b", "post", "user"])
            bounds: List[Bound] = [None]
            for _ in range(2):
                ids = [c[len(parent)][1] for c in comps if len(c) > len(parent) and c[len(parent)][1] is not None]
                value = rng.choice(ids) if ids and rng.random() < 0.7 else pathgen.random_id(rng)
                bounds.append((rng.choice(["in", "ex"]), value))  # type: ignore[arg-type]
            low, high = rng.choice(bounds), rng.choice(bounds)
            ranges = [
                ("subtree", KeyRange.subtree(ppath)),
                ("descendants", KeyRange.descendants(ppath)),
                ("between", KeyRange.between(KeyPath(parent), ns, _bound(low), _bound(high))),  # type: ignore[arg-type]
            ]
            for kind, r in ranges:
                for c, p, key in keys:
                    inside = r.contains_key(key)
                    if kind == "subtree":
                        want: Optional[bool] = reference.starts_with(c, prefix)
                    elif kind == "descendants":
                        want = reference.starts_with(c, prefix) and not reference.same_path(c, prefix)
                    else:
                        at = len(parent)
                        if len(c) <= at or c[at][1] is None or c[at][0] != ns or not reference.starts_with(c, parent):
                            want = False
                        else:
                            want = _in_bounds(c[at][1], low, high)  # type: ignore[arg-type]
                    mixes_uuid = kind != "between" and any(
                        isinstance(c[i][1], uuid.UUID) != isinstance(prefix[i][1], uuid.UUID)
                        for i in range(min(len(c), len(prefix)))
                        if prefix[i][1] is not None and c[i][1] is not None
                    )
                    if want is None:
                        assert r.matches(p) == inside
                    elif mixes_uuid:
                        # A UUID may fall inside the bytes of another ID's range; matches()
                        # removes it exactly.
                        assert r.matches(p) == want
                        if not want and inside:
                            continue
                        assert inside == want
                    else:
                        assert inside == want, (kind, str(ppath), str(p))
                        assert r.matches(p) == want
                    checked += 1
    assert checked > 100_000, checked
    print("range checks:", checked)


no_uuid_ids = st.one_of(ints, texts, blobs)


@settings(max_examples=400, deadline=None)
@given(
    components(no_uuid_ids),
    components(no_uuid_ids),
    st.lists(components(no_uuid_ids), max_size=4),
    st.sampled_from(["in", "ex", None]),
    st.sampled_from(["in", "ex", None]),
)
def test_between_paths(
    a: pathgen.Components,
    b: pathgen.Components,
    others: List[pathgen.Components],
    lk: Optional[str],
    hk: Optional[str],
) -> None:
    pa, pb = build(a), build(b)
    low = None if lk is None else (Included(pa) if lk == "in" else Excluded(pa))
    high = None if hk is None else (Included(pb) if hk == "in" else Excluded(pb))
    r = KeyRange.between_paths(low, high)
    extend = [c for c in (a, b) if not c or c[-1][1] is not None]
    candidates = [pa, pb] + [build(c) for c in others] + [build(c + [("zz", 1)]) for c in extend]
    for p in candidates:
        above = low is None or (p >= pa if lk == "in" else p > pa)
        below = high is None or (p <= pb if hk == "in" else p < pb)
        # Without UUIDs no encoding extends another's bytes, so the byte range is exact.
        assert r.matches(p) == (above and below)
        assert r.contains_key(p.encode()) == (above and below), (str(pa), str(pb), str(p))
