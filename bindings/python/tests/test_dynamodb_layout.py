"""docs/DYNAMODB_LAYOUT.md's examples (the `<!-- check: NAME -->` blocks, made by the Rust
crate's code) as oracles: the table client must produce the same bytes and requests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict

import pytest

from sortpath import KeyPath
from sortpath import _config as configs
from sortpath import _layout as layout
from sortpath import _native as native_form
from sortpath import _msgpack as msgpack
from sortpath.dynamodb import TableClient, Unsupported

from stubddb import StubDynamoDB, to_json_body

DOC = Path(__file__).resolve().parents[3] / "docs" / "DYNAMODB_LAYOUT.md"


def _checks() -> Dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"<!-- check: ([\w.]+) -->\s*```(\w+)\n(.*?)```", text, re.S)
    return {name: body for name, _, body in found}


CHECKS = _checks()


def hexblock(name: str) -> bytes:
    return bytes.fromhex("".join(CHECKS[name].split()))


def request(name: str) -> Any:
    return json.loads(CHECKS[name])


def test_the_doc_has_its_examples() -> None:
    for name in [
        "ticket.pk", "ticket.sk", "entry.pk", "entry.sk", "entry.value", "ticket.value",
        "native.hdr", "native.shape", "cursor.text", "cursor.bytes", "config.json",
        "put_new.request", "put_moved.request", "put_same.request", "delete.request",
        "list.request", "index_query.request",
    ]:
        assert name in CHECKS, name


TICKET = KeyPath.parse("/board-1/ticket-7")
TICKET_VALUE = {"board": 1, "title": "Fix", "updated": 20}
CONFIG = configs.parse_config(CHECKS["config.json"].strip().encode())


def test_item_keys() -> None:
    assert layout.item_key(TICKET, {}) == (hexblock("ticket.pk"), hexblock("ticket.sk"))
    assert layout.item_key(KeyPath.parse("/player-3"), {}) == (
        hexblock("score.pk"),
        hexblock("score.sk"),
    )
    roots: Dict[str, layout.RootPlace] = {"customer": "last", "org": ("before", "user")}
    assert layout.item_key(KeyPath.parse("/customer-7"), roots)[1] == hexblock("customer.root.sk")
    assert layout.item_key(KeyPath.parse("/org-1"), roots)[1] == hexblock("org.root.sk")
    assert layout.is_placed_root(hexblock("customer.root.sk"))
    assert layout.is_placed_root(hexblock("org.root.sk"))
    assert not layout.is_placed_root(hexblock("ticket.sk"))
    assert b"\x00\x01" + hexblock("ticket.pk") == hexblock("counter.pk")
    assert (layout.CONFIG_PK, layout.CONFIG_SK) == (hexblock("config.pk"), hexblock("config.sk"))


def test_entries() -> None:
    keys = configs.field_index_keys(CONFIG, TICKET, "ticket", TICKET_VALUE)
    assert [(n, str(p)) for n, p in keys] == [("by_updated", "/board-1/updated-20")]
    pk, sk = TableClient._entry_key("by_updated", keys[0][1], TICKET)
    assert (pk, sk) == (hexblock("entry.pk"), hexblock("entry.sk"))
    rest, base = layout.split_entry_sort(sk)
    assert KeyPath.decode(rest) == KeyPath.parse("/updated-20") and KeyPath.decode(base) == TICKET
    assert layout.entry_item(hexblock("entry.value")) is None
    projected_sk = layout.entry_sort_key(
        KeyPath.parse("/points--40").encode(), KeyPath.parse("/player-3").encode()
    )
    assert projected_sk == hexblock("projected.sk")
    assert layout.entry_item(hexblock("projected.value")) == ("score", msgpack.encode([3, -40]))


def test_envelopes() -> None:
    keys = configs.field_index_keys(CONFIG, TICKET, "ticket", TICKET_VALUE)
    header = layout.encode_header("ticket", keys)
    assert header + msgpack.encode(TICKET_VALUE) == hexblock("ticket.value")
    assert header == hexblock("native.hdr")
    score = layout.encode_header("score", [("by_points", KeyPath.parse("/scores-0/points--40"))])
    assert score + msgpack.encode([3, -40]) == hexblock("score.value")
    parsed = layout.parse_header(hexblock("ticket.value"))
    assert parsed.item_type == "ticket" and parsed.payload_start == len(header)
    assert msgpack.decode(hexblock("ticket.value")[parsed.payload_start :]) == TICKET_VALUE


def test_native_form() -> None:
    native = native_form.to_native(TICKET_VALUE)
    assert native is not None
    assert native[0] == {"M": {"board": {"N": "1"}, "title": {"S": "Fix"}, "updated": {"N": "20"}}}
    assert native[1] == hexblock("native.shape")
    assert native_form.from_native(native[0], native[1]) == TICKET_VALUE


def test_cursor() -> None:
    the_plan = layout.plan(KeyPath(), [], False)
    assert (the_plan.start, the_plan.end) == (b"\x00", None)
    fp = layout.fingerprint(None, False, KeyPath.parse("/board-1").encode(), b"\x00", None)
    position = KeyPath.parse("/ticket-7").encode()
    assert layout.cursor_bytes(fp, position) == hexblock("cursor.bytes")
    assert layout.cursor_text(fp, position) == CHECKS["cursor.text"].strip()
    assert layout.parse_cursor(CHECKS["cursor.text"]) == (fp, position)


@pytest.mark.parametrize("name", ["config.json", "config_roots.json", "config_counters.json"])
def test_config_json(name: str) -> None:
    text = CHECKS[name].strip().encode()
    assert configs.parse_config(text).to_json() == text


def _store() -> StubDynamoDB:
    stub = StubDynamoDB("sortpath")
    stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)] = {
        "pk": {"B": layout.CONFIG_PK},
        "sk": {"B": layout.CONFIG_SK},
        "val": {"B": CHECKS["config.json"].strip().encode()},
        "ver": {"N": "1"},
    }
    return stub


def _last_write(stub: StubDynamoDB) -> Any:
    op, body = stub.requests[-1]
    body = {k: v for k, v in body.items() if k != "ClientRequestToken"}
    return {"body": to_json_body(body), "operation": op}


def _opened(stub: StubDynamoDB) -> TableClient:
    """A client of the stub's table after ``TableClient.open`` (its ``DescribeTable``), as
    the Rust store after it opened the table: the requests counted are the operations'."""
    client = TableClient.open(stub, "sortpath")
    stub.requests.clear()
    return client


def test_writes_send_the_documented_requests() -> None:
    stub = _store()
    client = _opened(stub)
    client._fresh_version = lambda: 5
    assert client.put(TICKET, dict(TICKET_VALUE)) == 5
    assert stub.operations() == ["GetItem", "BatchGetItem", "TransactWriteItems"]
    assert _last_write(stub) == request("put_new.request")

    stub.requests.clear()
    assert client.put(TICKET, {"board": 1, "title": "Fix", "updated": 30}) == 6
    assert stub.operations() == ["BatchGetItem", "TransactWriteItems"]
    assert _last_write(stub) == request("put_moved.request")

    stub.requests.clear()
    item = client.update(TICKET, lambda v: {**v, "title": "Fixed"})
    assert item["version"] == 7
    assert stub.operations() == ["BatchGetItem", "BatchGetItem", "PutItem"]
    assert _last_write(stub) == request("put_same.request")

    stub.requests.clear()
    assert client.delete(TICKET) is True
    assert stub.operations() == ["BatchGetItem", "TransactWriteItems"]
    assert _last_write(stub) == request("delete.request")
    stub.requests.clear()
    assert client.delete(TICKET) is False
    assert stub.operations() == ["BatchGetItem"]


def test_reads_send_the_documented_requests() -> None:
    stub = _store()
    client = _opened(stub)
    client.list("/board-1", children="ticket", limit=10)
    assert stub.operations() == ["Query"]
    assert _last_write(stub) == request("list.request")
    stub.requests.clear()
    client.query_index("by_updated", "/board-1", reverse=True, limit=2)
    assert stub.operations() == ["GetItem", "Query"]
    assert _last_write(stub) == request("index_query.request")


def test_group_versions_send_the_documented_request() -> None:
    stub = _store()
    stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]["val"] = {
        "B": CHECKS["config_counters.json"].strip().encode()
    }
    client = _opened(stub)
    assert client.put(TICKET, {"title": "Fix"}) == 1
    assert stub.operations() == ["GetItem", "BatchGetItem", "TransactWriteItems"]
    assert _last_write(stub) == request("counter_put.request")
    stub.requests.clear()
    assert client.put(TICKET, {"title": "Fixed"}) == 2
    assert client.put(KeyPath.parse("/board-1/ticket-8"), {"title": "Other"}) == 3
    assert client.delete(TICKET) is True
    counter = stub.records[(b"\x00\x01" + hexblock("ticket.pk"), b"\x00")]
    assert counter["ver"] == {"N": "4"} and "val" not in counter
    assert stub.operations().count("TransactWriteItems") == 3


def test_program_indexes_are_refused() -> None:
    for config in [
        b'{"format":1,"indexes":[{"name":"by_points","type":"score","kind":"program"}],"types":[]}',
    ]:
        stub = _store()
        stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]["val"] = {"B": config}
        client = TableClient(stub, "sortpath")
        with pytest.raises(Unsupported):
            client.put("/player-3/score-1", {"points": 1})
        assert "TransactWriteItems" not in stub.operations()
        assert "PutItem" not in stub.operations()


def test_gsi_mode_sends_the_documented_requests() -> None:
    stub = _store()
    config = CHECKS["config.json"].strip().replace('"types":[]', '"types":["ticket"]').encode()
    stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]["val"] = {"B": config}
    stub.keep("by_updated", 1)
    client = TableClient.open(stub, "sortpath")
    client._fresh_version = lambda: 5
    stub.requests.clear()
    assert client.put(TICKET, dict(TICKET_VALUE)) == 5
    assert stub.operations() == ["GetItem", "BatchGetItem", "PutItem"]
    assert _last_write(stub) == request("gsi_put.request")
    stored = stub.records[(hexblock("ticket.pk"), hexblock("ticket.sk"))]
    assert stored["hdr"]["B"] == hexblock("gsi.hdr")
    item = client.get(TICKET)
    assert item is not None and item["value"] == TICKET_VALUE
    stub.requests.clear()
    page = client.query_index("by_updated", "/board-1", reverse=True, limit=2)
    assert stub.operations() == ["GetItem", "Query"]
    assert stub.requests[-1] == ("Query", stub.requests[-1][1])
    assert {"body": to_json_body(stub.requests[-1][1]), "operation": "Query"} == request(
        "gsi_query.request"
    )
    assert [str(i["key"]) for i in page.items] == [str(TICKET)]
    # Moving the indexed field moves the GSI key; no entry is written or deleted.
    client.put(TICKET, {**TICKET_VALUE, "updated": 30})
    assert not [k for k in stub.records if k[0].startswith(b"\x00\x02")]
    assert [i["value"]["updated"] for i in client.query_index("by_updated", "/board-1/updated-30").items] == [30]
    assert client.delete(TICKET) is True and stub.operations()[-1] == "DeleteItem"


def test_a_client_made_without_open_learns_the_gsis_when_it_needs_them() -> None:
    # TableClient(client, table), as the README's example makes it, on a table in GSI mode:
    # one DescribeTable the first time a write, an index query or a header needs the GSIs,
    # then what an opened client does. (It wrote exact entries and no GSI keys, so the item
    # was missing from the GSI, and read items written by Rust as foreign records.)
    stub = _store()
    config = CHECKS["config.json"].strip().replace('"types":[]', '"types":["ticket"]').encode()
    stub.records[(layout.CONFIG_PK, layout.CONFIG_SK)]["val"] = {"B": config}
    stub.keep("by_updated", 1)
    opened = TableClient.open(stub, "sortpath")
    opened.put("/board-1/ticket-1", {"board": 1, "updated": 10})
    stub.requests.clear()
    client = TableClient(stub, "sortpath")
    client._fresh_version = lambda: 5
    item = client.get("/board-1/ticket-1")  # its header's path is in gp1/gs1
    assert item is not None and item["value"] == {"board": 1, "updated": 10}
    assert stub.operations() == ["BatchGetItem", "DescribeTable"]
    stub.requests.clear()
    assert client.put(TICKET, dict(TICKET_VALUE)) == 5
    assert stub.operations() == ["GetItem", "BatchGetItem", "PutItem"]
    assert _last_write(stub) == request("gsi_put.request")
    assert not [k for k in stub.records if k[0].startswith(b"\x00\x02")]
    fresh = TableClient(stub, "sortpath")
    page = fresh.query_index("by_updated", "/board-1", reverse=True)
    assert [str(i["key"]) for i in page.items] == [str(TICKET), "/board-1/ticket-1"]
    assert [op for op, _ in stub.requests[-3:]] == ["GetItem", "DescribeTable", "Query"]
