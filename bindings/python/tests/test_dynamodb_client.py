"""sortpath.dynamodb's TableClient against an in-memory stand-in for boto3 (tests/stubddb.py),
checked against a model: random puts, updates, deletes and conditional writes, then lists
and index queries in both orders, whole and page by page through cursors, with DynamoDB's
own page breaks, and the records a reader must reject."""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sortpath import KeyPath
from sortpath import _config as configs
from sortpath import _layout as layout
from sortpath import _msgpack as msgpack
from sortpath.dynamodb import (
    ConditionFailed,
    DynamoDbError,
    ForeignRecord,
    InvalidRequest,
    ItemNotFound,
    Page,
    TableClient,
    UnrecordedConfig,
    Unsupported,
)

from stubddb import StubDynamoDB, StubError

CONFIG = (
    b'{"format":2,"indexes":[{"name":"by_updated","type":"ticket","kind":"field",'
    b'"field":"updated","group":"/board-{board}"}],"types":[],"roots":{"board":"last"}}'
)


def make(config: Optional[bytes] = CONFIG) -> Tuple[StubDynamoDB, TableClient]:
    stub = StubDynamoDB("t")
    if config is not None:
        stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)] = {
            "pk": {"B": layout.CONFIG_PK},
            "sk": {"B": layout.CONFIG_SK},
            "val": {"B": config},
            "ver": {"N": "1"},
        }
    return stub, TableClient(stub, "t")


def all_pages(fetch: Any, limit: int) -> List[str]:
    out: List[str] = []
    cursor: Optional[str] = None
    while True:
        page: Page = fetch(limit=limit, cursor=cursor)
        assert len(page.items) <= limit
        out.extend(str(i["key"]) for i in page.items)
        if page.cursor is None:
            return out
        cursor = page.cursor


KEYS = (
    ["/board-1", "/board-2"]
    + [f"/board-{b}/ticket-{t}" for b in (1, 2) for t in (-3, 0, 7, 300, "x", "4c9d36e5-6b19-4e6a-828c-226ed667458a")]
    + ["/board-1/note-1", "/board-1/ticket-7/comment-1"]
)


def indexed(key: KeyPath, value: Dict[str, Any]) -> Optional[KeyPath]:
    if key.components[-1].namespace != "ticket" or value.get("updated") is None:
        return None
    if value.get("board") is None:
        return None
    return KeyPath([("board", value["board"]), ("updated", value["updated"])])


@pytest.mark.parametrize("seed", range(6))
def test_client_agrees_with_a_model(seed: int) -> None:
    rng = random.Random(seed)
    stub, client = make()
    model: Dict[KeyPath, Tuple[int, Dict[str, Any]]] = {}
    for _ in range(120):
        key = KeyPath.parse(rng.choice(KEYS))
        op = rng.random()
        value = {"board": rng.choice([1, 2, None]), "updated": rng.choice([1, 5, 5, -2, "7", "a", None]), "n": rng.random()}
        if op < 0.45:
            version = client.put(key, value)
            old = model.get(key)
            assert version == (old[0] + 1 if old else version)
            model[key] = (version, value)
        elif op < 0.6:
            if key in model:
                with pytest.raises(ConditionFailed):
                    client.put(key, value, if_absent=True)
                with pytest.raises(ConditionFailed):
                    client.put(key, value, if_version=model[key][0] + 1)
                version = client.put(key, value, if_version=model[key][0])
            else:
                with pytest.raises(ConditionFailed):
                    client.put(key, value, if_version=1)
                version = client.put(key, value, if_absent=True)
            model[key] = (version, value)
        elif op < 0.8:
            if key in model:
                item = client.update(key, lambda v: {**v, "updated": value["updated"]})
                new = {**model[key][1], "updated": value["updated"]}
                assert item["version"] == model[key][0] + 1
                model[key] = (item["version"], new)
            else:
                with pytest.raises(ItemNotFound):
                    client.update(key, lambda v: v)
        else:
            assert client.delete(key) == (key in model)
            model.pop(key, None)
        got = client.get(key)
        if key in model:
            assert got is not None and got["version"] == model[key][0] and got["value"] == model[key][1]
        else:
            assert got is None
    stub.page_size = 3  # DynamoDB's own page breaks: LastEvaluatedKey is followed
    for board in (1, 2):
        group = KeyPath.parse(f"/board-{board}")
        mine = [k for k in model if k.components[0] == group.components[0]]
        # The root item is placed last.
        expected = sorted((k for k in mine if len(k) > 1), key=lambda k: k.encode())
        expected += [k for k in mine if len(k) == 1]
        listed = client.list(group)
        assert [str(i["key"]) for i in listed.items] == [str(k) for k in expected]
        assert listed.cursor is None
        assert [i["value"] for i in listed.items] == [model[k][1] for k in expected]
        for limit in (1, 2, 5):
            assert all_pages(lambda **o: client.list(group, **o), limit) == [str(k) for k in expected]
            assert all_pages(lambda **o: client.list(group, reverse=True, **o), limit) == [
                str(k) for k in reversed(expected)
            ]
        tickets = [k for k in expected if len(k) > 1 and k.components[1].namespace == "ticket"]
        assert [str(i["key"]) for i in client.list(f"/board-{board}/ticket").items] == [str(k) for k in tickets]
        bound = KeyPath.parse(f"/board-{board}/ticket-7")
        # The root item, placed last (sk FF), falls after every bound.
        after = [k for k in expected if len(k) == 1 or k > bound]
        assert [str(i["key"]) for i in client.list(group, gt=bound).items] == [str(k) for k in after]
        upto = [k for k in expected if len(k) > 1 and k <= bound]
        assert [str(i["key"]) for i in client.list(group, lte=bound).items] == [str(k) for k in upto]
        entries = sorted(
            (
                (ik.encode(), k.encode(), k)
                for k, (_, v) in model.items()
                for ik in [indexed(k, v)]
                if ik is not None and ik.components[0].id == board
            ),
        )
        want = [str(k) for _, _, k in entries]
        got_index = client.query_index("by_updated", group)
        assert [str(i["key"]) for i in got_index.items] == want
        for limit in (1, 2, 4):
            assert all_pages(lambda **o: client.query_index("by_updated", group, **o), limit) == want
            assert all_pages(
                lambda **o: client.query_index("by_updated", group, reverse=True, **o), limit
            ) == list(reversed(want))
        five = [str(k) for _, _, k in entries if KeyPath.decode(_ik(entries, k)).components[1].id == 5]
        assert [str(i["key"]) for i in client.query_index("by_updated", f"/board-{board}/updated-5").items] == five


def _ik(entries: List[Tuple[bytes, bytes, KeyPath]], key: KeyPath) -> bytes:
    return next(ik for ik, _, k in entries if k == key)


def test_indexes_stay_exact_in_the_table() -> None:
    stub, client = make()
    client.put("/board-1/ticket-1", {"board": 1, "updated": 5})
    client.put("/board-1/ticket-1", {"board": 2, "updated": 6})
    client.put("/board-1/ticket-2", {"board": 2, "updated": 6, "x": "keep"})
    client.delete("/board-1/ticket-2")
    entries = [k for k in stub.records if k[0].startswith(b"\x00\x02")]
    assert entries == [
        TableClient._entry_key("by_updated", KeyPath.parse("/board-2/updated-6"), KeyPath.parse("/board-1/ticket-1"))
    ]
    config = configs.parse_config(stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]["val"]["B"])
    assert config.types == ["ticket"]


def test_a_write_applied_but_answered_as_a_failed_condition_is_done_once() -> None:
    """A write DynamoDB applied whose answer was lost, sent again by botocore: the second
    attempt fails its condition against the first one's record. Done once, not planned
    again."""
    stub, client = make()
    # One PutItem (no index key): an update adding 1 adds 1.
    client.put("/board-1/note-1", {"n": 0})
    stub.lost_answers = 1
    client.update("/board-1/note-1", lambda v: {"n": v["n"] + 1})
    assert stub.lost_answers == 0
    got = client.get("/board-1/note-1")
    assert got is not None and got["value"] == {"n": 1}
    # An only-if-absent put that wrote its item is not refused.
    stub.lost_answers = 1
    client.put("/board-1/note-2", {"n": 5}, if_absent=True)
    got = client.get("/board-1/note-2")
    assert got is not None and got["value"] == {"n": 5}
    # A transaction (the item and its index entries): applied once, its entry moved once.
    client.put("/board-1/ticket-1", {"board": 1, "updated": 5})
    stub.lost_answers = 1
    stub.requests.clear()
    client.update("/board-1/ticket-1", lambda v: {**v, "updated": v["updated"] + 1})
    assert [op for op, _ in stub.requests][-1] == "TransactWriteItems"
    got = client.get("/board-1/ticket-1")
    assert got is not None and got["value"] == {"board": 1, "updated": 6}
    index = client.query_index("by_updated", "/board-1")
    assert [(str(i["key"]), i["value"]) for i in index.items] == [
        ("/board-1/ticket-1", {"board": 1, "updated": 6})
    ]
    # The same failure without a retry is another writer's equal record (two increments
    # from the same version): read again and apply the function again.
    stub.lost_answers = 1
    stub.lost_answer_retries = 0
    client.update("/board-1/note-2", lambda v: {"n": v["n"] + 1})
    got = client.get("/board-1/note-2")
    assert got is not None and got["value"] == {"n": 7}
    stub.lost_answers = 1
    client.update("/board-1/ticket-1", lambda v: {**v, "updated": v["updated"] + 1})
    got = client.get("/board-1/ticket-1")
    assert got is not None and got["value"] == {"board": 1, "updated": 8}
    # A condition that fails against another record still reads again and retries.
    stub.lost_answers = 0
    other = stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]
    real_put = stub.put_item
    calls: List[Dict[str, Any]] = []

    def put_once_refused(**body: Any) -> Dict[str, Any]:
        if not calls:
            calls.append(body)
            raise StubError("ConditionalCheckFailedException", item=other, retries=1)
        return real_put(**body)

    stub.put_item = put_once_refused  # type: ignore[method-assign]
    client.update("/board-1/note-1", lambda v: {"n": v["n"] + 1})
    got = client.get("/board-1/note-1")
    assert got is not None and got["value"] == {"n": 2}


def test_bad_input_is_refused_before_anything_is_written() -> None:
    stub, client = make()
    for key, value in [
        ("/board-1/ticket-1", {"board": 1, "updated": True}),
        ("/board-1/ticket-1", {"board": 1, "updated": 1.5}),
        ("/board-1/ticket-1", {"board": [1], "updated": 1}),
        ("/board-1/ticket", {"a": 1}),
        ("/board-1/ticket-1", {"n": 2**64}),
        ("not a path", {}),
    ]:
        before = dict(stub.records)
        with pytest.raises(InvalidRequest):
            client.put(key, value)
        assert stub.records == before
    with pytest.raises(InvalidRequest):
        client.list("/board-1", cursor="AAAA")
    page = client.list("/board-1", limit=1)
    with pytest.raises(InvalidRequest):
        client.list("/board-2", cursor=page.cursor or layout.cursor_text(1, b"\x00"))
    with pytest.raises(InvalidRequest):
        client.query_index("nope", "/board-1")
    with pytest.raises(InvalidRequest):
        client.list("/board", limit=1)


def test_bad_versions_limits_and_key_lists_are_refused_as_such() -> None:
    stub, client = make()
    version = client.put("/board-1/ticket-1", {"board": 1, "updated": 1})
    bad_versions: List[Any] = [-1, 1.5, float(version), str(version), True, 2**64, object()]
    for bad in bad_versions:
        before = dict(stub.records)
        stub.requests.clear()
        with pytest.raises(InvalidRequest, match="if_version: expected a version"):
            client.put("/board-1/ticket-1", {"board": 1, "updated": 2}, if_version=bad)
        assert stub.records == before and stub.operations() == []
    assert client.put("/board-1/ticket-1", {"board": 1, "updated": 2}, if_version=version) > version
    bad_limits: List[Any] = [1.5, "3", True, -1, object()]
    for limit in bad_limits:
        with pytest.raises(InvalidRequest, match="limit: expected an int of 0 or more"):
            client.list("/board-1", limit=limit)
        with pytest.raises(InvalidRequest, match="limit: expected an int of 0 or more"):
            client.query_index("by_updated", "/board-1", limit=limit)
    assert [str(i["key"]) for i in client.list("/board-1", limit=1).items] == ["/board-1/ticket-1"]
    for children in [5, b"ticket", ["ticket"]]:
        with pytest.raises(InvalidRequest, match="children: expected a namespace"):
            client.list("/board-1", children=children)  # type: ignore[arg-type]
    for keys in ["/board-1/ticket-1", b"/board-1/ticket-1", KeyPath.parse("/board-1/ticket-1")]:
        with pytest.raises(InvalidRequest, match="batch_get: expected a sequence of keys"):
            client.batch_get(keys)  # type: ignore[arg-type]
    assert [i is not None for i in client.batch_get(("/board-1/ticket-1", "/board-1/ticket-2"))] == [True, False]


class _Failing:
    """A boto3 client whose every request fails as ``error`` does."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __getattr__(self, name: str) -> Any:
        def fail(**request: Any) -> Any:
            raise self.error

        return fail


def test_dynamodb_failures_are_table_errors_naming_operation_and_table() -> None:
    missing = StubError("ResourceNotFoundException")
    missing.response["Error"]["Message"] = "Cannot do operations on a non-existent table"
    unreachable = ConnectionError('Could not connect to the endpoint URL: "http://127.0.0.1:1/"')
    cases: List[Tuple[Exception, str, str]] = [
        (missing, "ResourceNotFoundException", "Cannot do operations on a non-existent table"),
        (unreachable, "ConnectionError", "Could not connect to the endpoint URL"),
    ]
    for error, code, message in cases:
        client = TableClient(_Failing(error), "tickets")
        calls: List[Tuple[str, Any]] = [
            ("BatchGetItem", lambda: client.get("/board-1/ticket-1")),
            ("GetItem", lambda: client.put("/board-1/ticket-1", {"board": 1})),
            ("Query", lambda: client.list("/board-1")),
            ("GetItem", lambda: client.query_index("by_updated", "/board-1")),
            ("DescribeTable", lambda: TableClient.open(_Failing(error), "tickets")),
        ]
        for operation, call in calls:
            with pytest.raises(DynamoDbError) as info:
                call()
            assert info.value.code == code and info.value.operation == operation
            assert info.value.__cause__ is error
            assert str(info.value).startswith(f"{operation} on table 'tickets': {code}: {message}")
    # A failure of the write itself (not a lost race) is reported too, after the read.
    stub, client = make()
    refused = StubError("ValidationException")

    def put_item(**body: Any) -> Any:
        raise refused

    client.put("/board-1/note-1", {"x": 1})  # the type is listed: the next write is one PutItem
    stub.put_item = put_item  # type: ignore[method-assign]
    before = dict(stub.records)
    with pytest.raises(DynamoDbError, match="^PutItem on table 't': ValidationException") as info:
        client.put("/board-1/note-2", {"x": 2})
    assert info.value.__cause__ is refused and stub.records == before


def test_a_table_without_configuration_gets_one_as_the_rust_store_gives_it() -> None:
    stub, client = make(None)
    client.put("/board-1/ticket-1", {"board": 1})
    assert stub.operations() == ["GetItem", "Scan", "BatchGetItem", "TransactWriteItems"]
    record = stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]
    assert record["val"]["B"] == b'{"format":1,"indexes":[],"types":["ticket"]}'
    assert record["ver"] == {"N": "1"}
    stub.requests.clear()
    client.put("/board-1/ticket-2", {"board": 1})
    assert stub.operations() == ["BatchGetItem", "PutItem"]
    # A table that holds items but no configuration record (lost, or an earlier release
    # wrote none): a write is refused, writing nothing (the Rust store's
    # ConfigError::Unrecorded); the explicit take-over records a configuration whose types
    # are unknown, and writes then go through.
    stub, client = make(None)
    client.put("/board-1/ticket-1", {"board": 1})
    del stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]
    stub.page_size = 1
    before = dict(stub.records)
    client = TableClient(stub, "t")
    stub.requests.clear()
    with pytest.raises(UnrecordedConfig, match="holds items but no configuration record") as e:
        client.put("/board-1/note-1", {"x": 1})
    assert "/board-1/note-1" in str(e.value) and "create_config_over_items" in str(e.value)
    assert stub.records == before
    assert "PutItem" not in stub.operations() and "TransactWriteItems" not in stub.operations()
    with pytest.raises(UnrecordedConfig):
        client.update("/board-1/ticket-1", lambda v: v)
    assert stub.records == before
    assert client.create_config_over_items() is True
    record = stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]
    assert record["val"]["B"] == b'{"format":1,"indexes":[]}'
    assert client.create_config_over_items() is False
    client.put("/board-1/note-1", {"x": 1})
    assert stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)] == record
    # On a table without items, the take-over is the first write's record.
    stub, client = make(None)
    assert client.create_config_over_items(group_versions=True) is True
    record = stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]
    assert record["val"]["B"] == b'{"format":1,"indexes":[],"group_versions":true,"types":[]}'
    with pytest.raises(InvalidRequest, match="group_versions"):
        client.create_config_over_items(group_versions=1)  # type: ignore[arg-type]


def test_unsupported_stores_are_refused() -> None:
    building = b'{"format":1,"indexes":[{"name":"by_x","type":"ticket","kind":"program","building":true}],"types":[]}'
    stub, client = make(building)
    with pytest.raises(Unsupported):
        client.put("/board-1/ticket-1", {})
    with pytest.raises(Unsupported):
        client.query_index("by_x", "/board-1")
    assert "PutItem" not in stub.operations() and "TransactWriteItems" not in stub.operations()


def _put_raw(stub: StubDynamoDB, pk: bytes, sk: bytes, attrs: Dict[str, Any]) -> None:
    stub.records[(pk, sk)] = {"pk": {"B": pk}, "sk": {"B": sk}, **attrs}


def test_foreign_records_are_reported_with_their_key() -> None:
    group = KeyPath.parse("/board-1").encode()
    ticket = KeyPath.parse("/ticket-1").encode()
    bad: List[Tuple[bytes, Dict[str, Any], str]] = [
        (ticket, {"ver": {"N": "1"}, "val": {"B": b"\x02xx"}}, "/board-1/ticket-1"),
        (ticket, {"val": {"B": b"\x01\x01t\x00\x80"}}, "/board-1/ticket-1"),
        (ticket, {"ver": {"N": "1"}, "val": {"S": "x"}}, "/board-1/ticket-1"),
        (ticket, {"ver": {"N": "1"}, "item": {"M": {}}, "shape": {"B": b"m"}}, "/board-1/ticket-1"),
        (ticket, {"ver": {"N": "1"}, "item": {"M": {}}, "hdr": {"B": b"\x01\x01t\x00"}, "shape": {"B": b"s"}}, "/board-1/ticket-1"),
        (ticket, {"ver": {"N": "1"}, "val": {"B": b"\x01\x01t\x00\xc1"}}, "/board-1/ticket-1"),
        (ticket, {"ver": {"N": "1"}, "val": {"B": b"\x01\x01t\x01\x01i\x00\x00\x80"}}, "/board-1/ticket-1"),
        (b"\x01\x02", {"ver": {"N": "1"}, "val": {"B": b"\x01\x01t\x00\x80"}}, "board"),
    ]
    for sk, attrs, name in bad:
        stub, client = make()
        _put_raw(stub, group, sk, attrs)
        with pytest.raises(ForeignRecord) as e:
            client.list("/board-1")
        assert name in str(e.value)
    stub, client = make()
    client.put("/board-1/ticket-1", {"board": 1, "updated": 1})
    pk = layout.index_group("by_updated", group)
    _put_raw(stub, pk, b"\x01\x00\x07", {"ver": {"N": "1"}, "val": {"B": b"\x01"}})
    with pytest.raises(ForeignRecord):
        client.query_index("by_updated", "/board-1")


def test_values_of_every_kind_read_back() -> None:
    stub, client = make()
    value = {"i": -(2**63), "u": 2**64 - 1, "f": 0.1, "z": 0.0, "nz": -0.0, "big": 1e200, "s": "é\x00",
             "b": b"\x00\xff", "l": [None, True, False, [], {}], "m": {"": 1}, "t": (1, 2)}
    client.put("/board-1/note-1", value)
    stored = stub.records[layout.item_key(KeyPath.parse("/board-1/note-1"), {})]
    assert "val" in stored  # an empty map key, -0.0 and 1e200 have no native form
    got = client.get("/board-1/note-1")
    assert got is not None and got["value"] == {**value, "t": [1, 2]}
    native = {"i": -(2**63), "u": 2**64 - 1, "f": 0.1, "s": "é", "b": b"\x00", "n": [None, 1.5e-7]}
    client.put("/board-1/note-2", native)
    assert "item" in stub.records[layout.item_key(KeyPath.parse("/board-1/note-2"), {})]
    got = client.get("/board-1/note-2")
    assert got is not None and got["value"] == native and got["type"] == "note"
    assert [type(x) for x in got["value"]["n"]] == [type(None), float]


def _attribute_values() -> st.SearchStrategy[Dict[str, Any]]:
    scalar = st.one_of(
        st.builds(
            lambda n: {"N": n},
            st.one_of(
                st.from_regex(r"-?[0-9]{1,25}(\.[0-9]{1,3})?(e-?[0-9]{1,3})?", fullmatch=True),
                st.text(max_size=5),
            ),
        ),
        st.builds(lambda t: {"S": t}, st.text(max_size=5)),
        st.builds(lambda b: {"B": b}, st.binary(max_size=8)),
        st.builds(lambda b: {"BOOL": b}, st.booleans()),
        st.just({"NULL": True}),
    )
    return st.recursive(
        scalar,
        lambda inner: st.one_of(
            st.builds(lambda xs: {"L": xs}, st.lists(inner, max_size=3)),
            st.builds(lambda m: {"M": m}, st.dictionaries(st.text(max_size=3), inner, max_size=3)),
        ),
        max_leaves=8,
    )


_SORT_KEYS = st.one_of(
    st.binary(min_size=1, max_size=12),
    st.sampled_from(
        [
            KeyPath.parse("/ticket-1").encode(),
            b"\xff",
            layout.entry_sort_key(
                KeyPath.parse("/updated-1").encode(), KeyPath.parse("/board-1/ticket-1").encode()
            ),
        ]
    ),
)
_RECORDS = st.dictionaries(
    st.sampled_from(["ver", "val", "item", "hdr", "shape", "type"]),
    st.one_of(_attribute_values(), st.builds(lambda b: {"B": b}, st.binary(max_size=24))),
)


@settings(max_examples=300, deadline=None)
@given(_SORT_KEYS, _RECORDS)
def test_arbitrary_records_are_read_or_reported(sk: bytes, attrs: Dict[str, Any]) -> None:
    stub, client = make()
    group = KeyPath.parse("/board-1").encode()
    _put_raw(stub, group, sk, attrs)
    _put_raw(stub, layout.index_group("by_updated", group), sk, attrs)
    try:
        client.list("/board-1")
    except ForeignRecord:
        pass
    try:
        client.query_index("by_updated", "/board-1")
    except ForeignRecord:
        pass


def test_lists_bounded_by_a_placed_root_item() -> None:
    config = b'{"format":2,"indexes":[],"types":[],"roots":{"org":{"before":"user"}}}'
    stub, client = make(config)
    for key in ["/org-1", "/org-1/team-1", "/org-1/team-2", "/org-1/user-1", "/org-1/user-2"]:
        client.put(key, {"k": key})
    assert stub.records[layout.item_key(KeyPath.parse("/org-1"), {"org": ("before", "user")})]

    def keys(page: Page) -> List[str]:
        return [str(i["key"]) for i in page.items]

    assert keys(client.list("/org-1")) == ["/org-1/team-1", "/org-1/team-2", "/org-1", "/org-1/user-1", "/org-1/user-2"]
    assert keys(client.list("/org-1", from_root=True, limit=2)) == ["/org-1", "/org-1/user-1"]
    assert keys(client.list("/org-1", to_root=True, reverse=True, limit=2)) == ["/org-1", "/org-1/team-2"]
    assert keys(client.list("/org-1/user")) == ["/org-1/user-1", "/org-1/user-2"]
    first = client.list("/org-1", from_root=True, limit=1)
    assert keys(client.list("/org-1", from_root=True, cursor=first.cursor)) == ["/org-1/user-1", "/org-1/user-2"]
    got = client.get("/org-1")
    assert got is not None and got["value"] == {"k": "/org-1"}
    assert client.delete("/org-1") is True
    assert keys(client.list("/org-1", from_root=True)) == ["/org-1/user-1", "/org-1/user-2"]


def test_values_over_the_item_limit_are_refused() -> None:
    stub, client = make()
    with pytest.raises(InvalidRequest):
        client.put("/board-1/note-1", {"big": "x" * (400 * 1024)})
    assert stub.operations().count("TransactWriteItems") + stub.operations().count("PutItem") == 0
    client.put("/board-1/note-1", {"big": "x" * (300 * 1024)})
    got = client.get("/board-1/note-1")
    assert got is not None and len(got["value"]["big"]) == 300 * 1024


def test_values_an_index_refuses_send_nothing() -> None:
    stub, client = make()
    client.get("/board-1")  # reads the configuration (a root item's place)
    stub.requests.clear()
    for bad in [True, 1.5, [1], {"a": 1}]:
        with pytest.raises(InvalidRequest):
            client.put("/board-1/ticket-1", {"board": 1, "updated": bad})
    with pytest.raises(InvalidRequest):
        client.put("/board-1/ticket-1", {"board": 1, "n": 2**64})
    assert stub.operations() == []


def test_values_nested_as_deep_as_allowed_read_back() -> None:
    # 512 levels (the codec's MAX_DEPTH) are written, so they must read back: the decoder
    # does not recurse per level (it did, two frames a level, past Python's stack limit).
    # The innermost empty list or map is a level too: 511 wraps of it make 512.
    stub, client = make()
    for depth in (500, 511):
        nested_list: Any = []
        nested_map: Any = {}
        for _ in range(depth):
            nested_list = [nested_list]
            nested_map = {"a": nested_map}
        client.put("/board-1/note-1", nested_list)
        client.put("/board-1/note-2", nested_map)
        got = client.batch_get(["/board-1/note-1", "/board-1/note-2"])
        assert [g["value"] if g is not None else None for g in got] == [nested_list, nested_map]
    # One level more is refused before anything is sent, as the Rust store refuses it.
    before = len(stub.operations())
    for too_deep_value in ([nested_list], {"a": nested_map}):
        with pytest.raises(InvalidRequest, match="nested more than 512 levels"):
            client.put("/board-1/note-4", too_deep_value)
    assert len(stub.operations()) == before
    # Deeper bytes (a record another writer made) are a foreign record, not a RecursionError.
    group = KeyPath.parse("/board-1").encode()
    sort = KeyPath.parse("/note-3").encode()
    too_deep = bytes([0x91]) * 600 + bytes([0x90])
    header = layout.encode_header("note", [])
    _put_raw(stub, group, sort, {"ver": {"N": "1"}, "val": {"B": header + too_deep}})
    with pytest.raises(ForeignRecord, match="nested more than 512 levels"):
        client.get("/board-1/note-3")


def test_map_keys_that_are_arrays_read_back_as_tuples() -> None:
    # A map key that is an array (a tuple here; a Rust map keyed by tuples, a TypeScript Map
    # keyed by arrays) was written, and then every read reported the item as foreign.
    stub, client = make()
    values: List[Any] = [
        {(1, 2): 3},
        [{(): 1}],
        {"a": {(1, ("x", b"y"), ()): 2}},
        {None: 1, 1.5: 2, b"k": 3, 7: [(1, 2)]},
    ]
    for value in values:
        client.put("/board-1/note-1", value)
        got = client.get("/board-1/note-1")
        expected = value if value is not values[-1] else {None: 1, 1.5: 2, b"k": 3, 7: [[1, 2]]}
        assert got is not None and got["value"] == expected
        assert msgpack.encode(got["value"]) == msgpack.encode(value)
    # A key that is or holds a map has no Python form: a foreign record, named.
    group = KeyPath.parse("/board-1").encode()
    header = layout.encode_header("note", [])
    for payload, at in [(b"\x81\x81\x01\x02\x03", 1), (b"\x82\x01\x02\x92\x01\x80\x03", 3)]:
        _put_raw(stub, group, KeyPath.parse("/note-2").encode(), {"ver": {"N": "1"}, "val": {"B": header + payload}})
        with pytest.raises(ForeignRecord, match=f"the map key at byte {at} is a map or holds one"):
            client.get("/board-1/note-2")


def test_connect_reports_a_client_boto3_cannot_make_as_a_table_error() -> None:
    pytest.importorskip("boto3")
    with pytest.raises(DynamoDbError, match="^the boto3 client on table 'tickets': ValueError: Invalid endpoint: not a url") as info:
        TableClient.connect("tickets", endpoint_url="not a url", region_name="us-east-1")
    assert isinstance(info.value.__cause__, ValueError)


def test_an_update_function_that_returns_none_writes_nothing() -> None:
    """A function that edits the value in place and returns None: refused, saying it must
    return the new value, and nothing is written (it stored null over the item, which left
    its index). A JSON null is stored with put."""
    stub, client = make()
    client.put("/board-1/ticket-7", {"board": 1, "updated": 5})
    before = {k: dict(v) for k, v in stub.records.items()}
    stub.requests.clear()

    def edit_in_place(value: Any) -> None:
        value["updated"] = 6

    with pytest.raises(InvalidRequest) as refused:
        client.update("/board-1/ticket-7", edit_in_place)
    assert str(refused.value) == (
        "/board-1/ticket-7: the update function returned None; it must return the item's new "
        "value (a function that changes the value in place must also return it); nothing was "
        "written (to store a JSON null, put(key, None))"
    )
    assert [op for op, _ in stub.requests] == ["BatchGetItem"]
    assert stub.records == before
    got = client.get("/board-1/ticket-7")
    assert got is not None and got["value"] == {"board": 1, "updated": 5}
    assert [str(i["key"]) for i in client.query_index("by_updated", "/board-1").items] == [
        "/board-1/ticket-7"
    ]
    client.put("/board-1/note-1", None)
    got = client.get("/board-1/note-1")
    assert got is not None and got["value"] is None


def _stored(stub: StubDynamoDB, key: str, item_type: str, value: Any, entries: List[Tuple[str, str]]) -> None:
    """An item record as `sortpath db import` writes it (with the given stored type) and its
    index entries."""
    path = KeyPath.parse(key)
    keys = [(name, KeyPath.parse(p)) for name, p in entries]
    pk, sk = layout.item_key(path, {})
    val = layout.encode_header(item_type, keys) + msgpack.encode(value)
    stub.records[(pk, sk)] = {"pk": {"B": pk}, "sk": {"B": sk}, "val": {"B": val}, "ver": {"N": "1"}}
    for name, ipath in keys:
        epk, esk = TableClient._entry_key(name, ipath, path)
        stub.records[(epk, esk)] = {"pk": {"B": epk}, "sk": {"B": esk}, "val": {"B": b"\x01"}, "ver": {"N": "1"}}


def test_field_indexes_take_the_items_of_their_stored_type_and_updates_keep_it() -> None:
    """Issue 46 item 5: a field index takes the items whose stored type is its type, not
    those of its key's namespace, and an update keeps the stored type (it wrote the key's
    namespace: an identity update turned a `ticket` into a `zzz` and dropped its entry)."""
    stub, client = make(
        b'{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u",'
        b'"group":"/all-0"}],"types":["ticket","zzz"]}'
    )
    _stored(stub, "/zzz-3", "ticket", {"u": 7}, [("by_u", "/all-0/u-7")])
    _stored(stub, "/ticket-1", "zzz", {"u": 5}, [])

    def indexed() -> List[Tuple[str, str, Any]]:
        return [(str(i["key"]), i["type"], i["value"]) for i in client.query_index("by_u", "/all-0").items]

    assert indexed() == [("/zzz-3", "ticket", {"u": 7})]
    for key, item_type in [("/zzz-3", "ticket"), ("/ticket-1", "zzz")]:
        assert client.update(key, lambda v: v)["type"] == item_type
        got = client.get(key)
        assert got is not None and got["type"] == item_type
    assert indexed() == [("/zzz-3", "ticket", {"u": 7})]
    client.update("/zzz-3", lambda v: {"u": 8})
    client.update("/ticket-1", lambda v: {"u": 6})
    assert indexed() == [("/zzz-3", "ticket", {"u": 8})]
    assert len([k for k in stub.records if k[0].startswith(b"\x00\x02")]) == 1
    # A put gives the key's namespace as the type, as `sortpath db put` does.
    client.put("/ticket-1", {"u": 6})
    got = client.get("/ticket-1")
    assert got is not None and got["type"] == "ticket"
    assert [k for k, _, _ in indexed()] == ["/ticket-1", "/zzz-3"]
