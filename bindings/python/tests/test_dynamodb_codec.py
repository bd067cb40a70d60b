"""Property and fuzz tests of the table client's codecs: MessagePack, the native form and
its shape, envelopes, index entry keys, cursors, configuration records."""

from __future__ import annotations

import math
import struct
from typing import Any, List

from hypothesis import given, settings
from hypothesis import strategies as st

from sortpath import KeyPath
from sortpath import _config as configs
from sortpath import _layout as layout
from sortpath import _native as native_form
from sortpath import _msgpack as msgpack
from sortpath._layout_error import LayoutError
from sortpath.dynamodb import TableClient

from pathgen import random_components


def paths() -> st.SearchStrategy[KeyPath]:
    """Key paths from the package's trap-heavy generator."""
    return st.builds(lambda r: KeyPath._of(tuple(random_components(r))), st.randoms(use_true_random=False))

INT_EDGES = [
    0, 1, 31, 32, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**63,
    2**64 - 1, -1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63),
]

ints = st.one_of(st.sampled_from(INT_EDGES), st.integers(-(2**63), 2**64 - 1))
floats = st.floats(allow_nan=False, allow_infinity=False)
texts = st.text(alphabet=st.characters(blacklist_categories=["Cs"]))
scalars = st.one_of(st.none(), st.booleans(), ints, floats, texts, st.binary())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(texts, inner, max_size=5)
    ),
    max_leaves=30,
)


def same(a: Any, b: Any) -> bool:
    """Equality that tells 1 from 1.0 and True from 1, and keeps dict order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    return bool(a == b)


def test_integers_take_the_smallest_form() -> None:
    expected = {
        0: "00", 127: "7f", 128: "cc80", 255: "ccff", 256: "cd0100", 65535: "cdffff",
        65536: "ce00010000", 2**32: "cf0000000100000000", -1: "ff", -32: "e0", -33: "d0df",
        -128: "d080", -129: "d1ff7f", -32769: "d2ffff7fff", -(2**31) - 1: "d3ffffffff7fffffff",
        2**64 - 1: "cfffffffffffffffff",
    }
    for value, hexed in expected.items():
        assert msgpack.encode(value).hex() == hexed, value
    assert msgpack.encode("a" * 31)[:1] == b"\xbf"
    assert msgpack.encode("a" * 32)[:2] == b"\xd9\x20"
    assert msgpack.encode("a" * 256)[:3] == b"\xda\x01\x00"
    assert msgpack.encode([0] * 15)[:1] == b"\x9f"
    assert msgpack.encode([0] * 16)[:3] == b"\xdc\x00\x10"
    assert msgpack.encode({str(i): 0 for i in range(16)})[:3] == b"\xde\x00\x10"
    assert msgpack.encode(1.5).hex() == "cb3ff8000000000000"


@given(values)
def test_msgpack_round_trips(value: Any) -> None:
    assert same(msgpack.decode(msgpack.encode(value)), value)


@given(values)
def test_native_form_round_trips(value: Any) -> None:
    doc = {"v": value}
    native = native_form.to_native(doc)
    if native is None:
        # Only values with no exact native form are refused.
        assert _has_no_native_form(value)
        return
    back = native_form.from_native(native[0], native[1])
    assert same(back, doc)
    assert msgpack.encode(back) == msgpack.encode(doc)


def _has_no_native_form(value: Any, depth: int = 1) -> bool:
    if depth > native_form.MAX_NATIVE_DEPTH:
        return True
    if isinstance(value, float):
        return (value == 0.0 and math.copysign(1, value) < 0) or (
            value != 0.0 and not 1e-130 <= abs(value) <= 9.99e125
        )
    if isinstance(value, list):
        return any(_has_no_native_form(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(k == "" for k in value) or any(
            _has_no_native_form(v, depth + 1) for v in value.values()
        )
    return False


@given(floats)
def test_float_text_is_rusts(f: float) -> None:
    """Rust's `{:e}`: one nonzero digit before the point, no trailing zeros, no `+`, and the
    shortest digits that read back (as many as Python's `repr` has)."""
    import re

    text = native_form.float_text(f)
    assert float(text) == f
    assert re.fullmatch(r"-?(0e0|[1-9](\.[0-9]*[1-9])?e-?[1-9][0-9]*|[1-9](\.[0-9]*[1-9])?e0)", text), text
    shortest = re.sub(r"e.*|[-.]", "", repr(abs(f))).strip("0") or "0"
    assert len(text.lstrip("-").split("e")[0].replace(".", "")) == len(shortest.replace(".", "")), (text, repr(f))


def test_float_text_examples() -> None:
    for f, text in [(1.5, "1.5e0"), (20.0, "2e1"), (0.1, "1e-1"), (123.456, "1.23456e2"),
                    (-2.5e-7, "-2.5e-7"), (0.0, "0e0"), (1e21, "1e21"), (5e-324, "5e-324")]:
        assert native_form.float_text(f) == text


@given(st.binary(max_size=64))
def test_msgpack_decoder_raises_only_its_error(data: bytes) -> None:
    try:
        msgpack.decode(data)
    except LayoutError:
        pass


@given(st.binary(max_size=80))
def test_envelope_and_entry_decoders_raise_only_their_error(data: bytes) -> None:
    for decode in (layout.parse_header, layout.split_entry_sort, layout.entry_item):
        try:
            decode(data)
        except LayoutError:
            pass


@given(st.binary(max_size=64))
def test_cursor_decoder_raises_only_its_error(data: bytes) -> None:
    import base64

    for text in (base64.urlsafe_b64encode(data).decode().rstrip("="), data.decode("latin-1")):
        try:
            layout.parse_cursor(text)
        except LayoutError:
            pass


@given(st.binary(max_size=64))
def test_config_decoder_raises_only_its_error(data: bytes) -> None:
    try:
        configs.parse_config(data)
    except LayoutError:
        pass


@given(st.recursive(scalars, lambda i: st.lists(i, max_size=3), max_leaves=8), st.binary(max_size=12))
def test_native_decoder_raises_only_its_error(value: Any, shape: bytes) -> None:
    native = native_form.to_native({"k": value})
    attr = native[0] if native is not None else {"N": "1"}
    try:
        native_form.from_native(attr, shape)
    except LayoutError:
        pass


@given(st.integers(0, 2**64 - 1), st.binary(max_size=40))
def test_cursors_round_trip_and_detect_changes(query: int, position: bytes) -> None:
    text = layout.cursor_text(query, position)
    assert layout.parse_cursor(" " + text + "\n") == (query, position)
    raw = bytearray(layout.cursor_bytes(query, position))
    raw[len(raw) // 2] ^= 0x01
    import base64

    altered = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    try:
        layout.parse_cursor(altered)
        raise AssertionError("an altered cursor was accepted")
    except LayoutError:
        pass


@settings(max_examples=200)
@given(paths(), paths())
def test_entry_keys_split_back_and_keep_order(a: KeyPath, b: KeyPath) -> None:
    base = KeyPath.parse("/u-1/p-2")
    ka = layout.entry_sort_key(a.encode(), base.encode())
    kb = layout.entry_sort_key(b.encode(), base.encode())
    assert layout.split_entry_sort(ka) == (a.encode(), base.encode())
    if a.encode() != b.encode():
        assert (ka < kb) == (a.encode() < b.encode())


@given(st.lists(st.tuples(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), paths()), max_size=4, unique_by=lambda e: e[0]), values)
def test_envelopes_round_trip(indexes: List[Any], value: Any) -> None:
    header = layout.encode_header("ticket", indexes)
    parsed = layout.parse_header(header + msgpack.encode(value))
    assert parsed.item_type == "ticket"
    names = sorted(n for n, _ in indexes)
    assert [n for n, _, _ in parsed.indexes] == names
    by_name = dict(indexes)
    assert all(by_name[n].encode() == p for n, _, p in parsed.indexes)
    assert same(msgpack.decode((header + msgpack.encode(value))[parsed.payload_start :]), value)


def test_field_index_ids_follow_the_cli() -> None:
    config = configs.parse_config(
        b'{"format":1,"indexes":[{"name":"by_u","type":"t","kind":"field","field":"u","group":"/g-{g}"},'
        b'{"name":"fixed","type":"t","kind":"field","field":"u","group":"/all-%7Bx}"}],"types":[]}'
    )
    path = KeyPath.parse("/a-1/t-2")
    keys = configs.field_index_keys(config, path, "t", {"g": "7", "u": "007"})
    assert keys == [("by_u", KeyPath([("g", 7), ("u", "007")])), ("fixed", KeyPath([("all", "{x}"), ("u", "007")]))]
    assert KeyPath.parse(str(keys[0][1])).components[0].id == 7
    assert configs.field_index_keys(config, path, "t", {"u": 1}) == [("fixed", KeyPath([("all", "{x}"), ("u", 1)]))]
    assert configs.field_index_keys(config, path, "t", {"g": 1, "u": None}) == []
    for bad in [True, 1.5, [1], {"a": 1}, 2**64]:
        try:
            configs.field_index_keys(config, path, "t", {"g": 1, "u": bad})
            raise AssertionError(f"{bad!r} was accepted")
        except configs.InvalidValue:
            pass
    uuid_text = "4C9D36E5-6B19-4E6A-828C-226ED667458A"
    (_, key), _ = configs.field_index_keys(config, path, "t", {"g": uuid_text, "u": -3})
    assert str(key).lower() == f"/g-{uuid_text.lower()}/u--3"


def test_entry_key_of_the_client_matches_the_layout() -> None:
    pk, sk = TableClient._entry_key("by_u", KeyPath.parse("/g-1/u-2"), KeyPath.parse("/a-1/t-2"))
    assert pk == layout.index_group("by_u", KeyPath.parse("/g-1").encode())
    assert sk == layout.entry_sort_key(KeyPath.parse("/u-2").encode(), KeyPath.parse("/a-1/t-2").encode())


def test_doctests_of_the_table_client() -> None:
    import doctest

    from sortpath import _layout_error, _records, _table_base, _table_types, _table_write, dynamodb

    for module in (dynamodb, layout, native_form, configs, msgpack, _layout_error):
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__
        assert result.attempted > 0, module.__name__
    for module in (_records, _table_base, _table_types, _table_write):
        assert doctest.testmod(module).failed == 0, module.__name__
