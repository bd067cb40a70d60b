"""tests/driver.py (the cross-language test's driver) over the table stand-in: every
operation's answer shape and every error kind of the protocol."""

from __future__ import annotations

import io
import json
import sys
from typing import Any, Dict

import pytest

import driver
from sortpath import KeyPath
from sortpath import _layout as layout
from sortpath.dynamodb import TableClient

from stubddb import StubDynamoDB

CONFIG = (
    b'{"format":1,"indexes":[{"name":"by_updated","type":"ticket","kind":"field",'
    b'"field":"updated","group":"/board-{board}"}],"types":[]}'
)


def client() -> TableClient:
    stub = StubDynamoDB("t")
    stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)] = {
        "pk": {"B": layout.CONFIG_PK},
        "sk": {"B": layout.CONFIG_SK},
        "val": {"B": CONFIG},
        "ver": {"N": "1"},
    }
    return TableClient(stub, "t")


def answer(c: TableClient, request: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return {"ok": driver.serve(c, request)}
    except Exception as e:
        return {"error": {"kind": driver.kind_of(e), "message": str(e)}}


def test_operations_answer_the_protocols_shapes() -> None:
    c = client()
    put = answer(c, {"op": "put", "key": "/board-1/ticket-7", "value": {"board": 1, "updated": 2, "b": {"$x": 1}}})
    version = put["ok"]["version"]
    assert put == {"ok": {"key": "/board-1/ticket-7", "version": version}}
    assert answer(c, {"op": "put", "key": "/board-1/ticket-7", "value": {}, "if_absent": True})["error"]["kind"] == "condition_failed"
    assert answer(c, {"op": "put", "key": "/board-1/ticket-7", "value": {}, "if_version": version + 1})["error"]["kind"] == "condition_failed"
    assert answer(c, {"op": "put", "key": "/board-1/ticket-8", "value": {}, "if_version": 3})["error"]["kind"] == "condition_failed"
    upd = answer(c, {"op": "update", "key": "/board-1/ticket-7", "set": {"updated": 5, "b": None}})
    assert upd == {"ok": {"key": "/board-1/ticket-7", "version": version + 1}}
    assert answer(c, {"op": "update", "key": "/board-1/ticket-9", "set": {}})["error"]["kind"] == "not_found"
    got = answer(c, {"op": "get", "key": "/board-1/ticket-7"})
    assert got == {"ok": {"key": "/board-1/ticket-7", "version": version + 1, "value": {"board": 1, "updated": 5}}}
    assert answer(c, {"op": "get", "key": "/board-1/ticket-1"}) == {"ok": None}
    assert answer(c, {"op": "batch_get", "keys": ["/board-1/ticket-1", "/board-1/ticket-7"]})["ok"][0] is None
    listed = answer(c, {"op": "list", "prefix": "/board-1", "limit": 1})
    assert listed["ok"]["items"][0]["key"] == "/board-1/ticket-7" and listed["ok"]["cursor"] is None
    index = answer(c, {"op": "index", "name": "by_updated", "prefix": "/board-1", "reverse": True})
    assert [i["key"] for i in index["ok"]["items"]] == ["/board-1/ticket-7"]
    c.put("/board-1/ticket-8", {"bytes": b"\x00\x01", "f": 2.5})
    value = answer(c, {"op": "get", "key": "/board-1/ticket-8"})["ok"]["value"]
    assert json.dumps(value) == '{"bytes": {"$bytes": "AAE="}, "f": 2.5}'
    assert answer(c, {"op": "delete", "key": "/board-1/ticket-7"}) == {"ok": {"key": "/board-1/ticket-7", "deleted": True}}
    assert answer(c, {"op": "delete", "key": "/board-1/ticket-7"}) == {"ok": {"key": "/board-1/ticket-7", "deleted": False}}


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "get", "key": "board-1"},
        {"op": "get", "key": 7},
        {"op": "list", "prefix": "/board-1", "cursor": "nope"},
        {"op": "list", "prefix": "/board-1", "limit": 0},
        {"op": "list", "prefix": "/board-1", "gt": "/board-2/ticket-1"},
        {"op": "put", "key": "/board-1/ticket-1", "value": {"board": 1, "updated": [1]}},
        {"op": "put", "key": "/board-1/ticket-1", "value": {"n": 2**70}},
        {"op": "put", "key": "/board-1/ticket-1", "value": json.loads("[" * 128 + "]" * 128)},
        {"op": "index", "name": "nope", "prefix": "/board-1"},
        {"op": "frobnicate"},
    ],
)
def test_bad_requests_are_invalid(request_: Dict[str, Any]) -> None:
    assert answer(client(), request_)["error"]["kind"] == "invalid"


def test_foreign_records_and_other_errors() -> None:
    c = client()
    stub = c.client
    pk, sk = layout.item_key(KeyPath.parse("/board-1/ticket-1"), {})
    stub.records[(pk, sk)] = {"pk": {"B": pk}, "sk": {"B": sk}, "ver": {"N": "1"}, "val": {"B": b"junk"}}
    error = answer(c, {"op": "list", "prefix": "/board-1"})["error"]
    assert error["kind"] == "foreign" and "/board-1/ticket-1" in error["message"]
    assert driver.kind_of(RuntimeError("x")) == "other"


def test_main_answers_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    c = client()

    class Events:
        def register(self, name: str, hook: Any) -> None:
            for method in ("batch_get_item", "get_item", "query", "put_item", "transact_write_items"):
                inner = getattr(c.client, method)

                def wrapped(*a: Any, _inner: Any = inner, _m: str = method, **kw: Any) -> Any:
                    operation = "".join(p.title() for p in _m.split("_"))
                    headers = {"X-Amz-Target": f"DynamoDB_20120810.{operation}".encode()}
                    hook(request=type("Request", (), {"headers": headers})())
                    return _inner(*a, **kw)

                setattr(c.client, method, wrapped)

    c.client.meta = type("Meta", (), {"events": Events()})()
    monkeypatch.setattr(TableClient, "connect", classmethod(lambda cls, table, endpoint_url=None: c))
    lines = [
        '{"op":"put","key":"/board-1/ticket-1","value":{"board":1,"updated":1}}',
        "not json",
        '{"op":"get","key":"/board-1/ticket-1"}',
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert driver.main(["--table", "t", "--endpoint", "http://127.0.0.1:1"]) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == 3
    assert answers[0]["requests"] == ["GetItem", "BatchGetItem", "TransactWriteItems"]
    assert answers[1]["error"]["kind"] == "invalid" and answers[1]["requests"] == []
    assert answers[2]["requests"] == ["BatchGetItem"] and answers[2]["ok"]["key"] == "/board-1/ticket-1"
