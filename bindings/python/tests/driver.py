"""The table client's test driver for the cross-language conformance test
(crates/sortpath-cli/tests/crosslang.rs): JSON requests on stdin, one per line, one JSON
answer per line on stdout, over :class:`sortpath.dynamodb.TableClient`.

Run as a script: ``python tests/driver.py --table T --endpoint URL``. Not a test module
(pytest collects ``test_*.py`` only).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import sys
import traceback
from typing import Any, Dict, List, Optional

from sortpath import KeyPath, KeyPathError
from sortpath.dynamodb import (
    ConditionFailed,
    ForeignRecord,
    InvalidRequest,
    ItemNotFound,
    Page,
    TableClient,
    UnrecordedConfig,
)


def to_json(value: Any) -> Any:
    """A payload value as the protocol's JSON (bytes as ``{"$bytes": base64}``)."""
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(to_json(k)): to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, float):
        return float(value)
    return value


def item_json(item: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if item is None:
        return None
    return {"key": str(item["key"]), "version": item["version"], "value": to_json(item["value"])}


def page_json(page: Page) -> Dict[str, Any]:
    return {"items": [item_json(i) for i in page.items], "cursor": page.cursor}


def options(request: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name in ("gt", "gte", "lt", "lte", "cursor"):
        if request.get(name) is not None:
            if not isinstance(request[name], str):
                raise InvalidRequest(f"{name}: expected a string")
            out[name] = request[name]
    for name in ("from_root", "to_root"):
        if request.get(name) is not None:
            if not isinstance(request[name], bool):
                raise InvalidRequest(f"{name}: expected a boolean")
            if request[name]:
                if request.get("op") == "index":
                    raise InvalidRequest(
                        "an index's entries have no root item to bound them by (from_root and "
                        "to_root are for item lists)"
                    )
                out[name] = True
    if request.get("reverse") is not None:
        if not isinstance(request["reverse"], bool):
            raise InvalidRequest("reverse: expected a boolean")
        out["reverse"] = request["reverse"]
    if request.get("limit") is not None:
        limit = request["limit"]
        if type(limit) is not int or limit < 1:
            raise InvalidRequest(f"limit: expected an integer of 1 or more, found {limit!r}")
        out["limit"] = limit
    return out


def text(request: Dict[str, Any], name: str) -> str:
    value = request.get(name)
    if not isinstance(value, str):
        raise InvalidRequest(f"{name}: expected a key path string, found {value!r}")
    return value


MAX_VALUE_DEPTH = 127
"""The deepest nesting of arrays and objects a value may have: what `sortpath db put`
accepts."""


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def checked(value: Any) -> Any:
    if depth(value) > MAX_VALUE_DEPTH:
        raise InvalidRequest(f"nested more than {MAX_VALUE_DEPTH} arrays and objects deep")
    return value


def serve(client: TableClient, request: Dict[str, Any]) -> Any:
    """The result of one request (raises on an error)."""
    op = request.get("op")
    if op == "put":
        key = text(request, "key")
        if "value" not in request:
            raise InvalidRequest("put: no value")
        if_version = request.get("if_version")
        if if_version is not None and (type(if_version) is not int or if_version < 0):
            raise InvalidRequest(f"if_version: expected a version, found {if_version!r}")
        version = client.put(
            key, checked(request["value"]), if_absent=bool(request.get("if_absent")), if_version=if_version
        )
        return {"key": str(KeyPath.parse(key)), "version": version}
    if op == "update":
        key = text(request, "key")
        changes = request.get("set")
        if not isinstance(changes, dict):
            raise InvalidRequest("update: set must be an object")
        checked(changes)

        def change(value: Any) -> Any:
            if not isinstance(value, dict):
                raise InvalidRequest(f"update of {key}: the item's value is not a map")
            out = dict(value)
            for field, new in changes.items():
                if new is None:
                    out.pop(field, None)
                else:
                    out[field] = new
            return out

        item = client.update(key, change)
        return {"key": str(item["key"]), "version": item["version"]}
    if op == "delete":
        key = text(request, "key")
        return {"key": str(KeyPath.parse(key)), "deleted": client.delete(key)}
    if op == "get":
        return item_json(client.get(text(request, "key")))
    if op == "batch_get":
        keys = request.get("keys")
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise InvalidRequest("batch_get: keys must be a list of key path strings")
        return [item_json(i) for i in client.batch_get(keys)]
    if op == "list":
        return page_json(client.list(text(request, "prefix"), **options(request)))
    if op == "index":
        name = request.get("name")
        if not isinstance(name, str):
            raise InvalidRequest("index: name must be a string")
        return page_json(client.query_index(name, text(request, "prefix"), **options(request)))
    if op == "create_config_over_items":
        return {"created": client.create_config_over_items()}
    raise InvalidRequest(f"unknown op {op!r}")


def kind_of(error: BaseException) -> str:
    """The protocol's error kind of an exception."""
    if isinstance(error, ConditionFailed):
        return "condition_failed"
    if isinstance(error, ItemNotFound):
        return "not_found"
    if isinstance(error, (InvalidRequest, KeyPathError)):
        return "invalid"
    if isinstance(error, ForeignRecord):
        return "foreign"
    if isinstance(error, UnrecordedConfig):
        return "unrecorded"
    return "other"


def main(argv: Optional[List[str]] = None) -> int:
    """Serves requests from stdin until its end."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--endpoint", required=True)
    args = parser.parse_args(argv)
    for name, default in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ):
        os.environ.setdefault(name, default)
    os.environ.setdefault("AWS_DEFAULT_REGION", os.environ["AWS_REGION"])
    client = TableClient.connect(args.table, endpoint_url=args.endpoint)
    requests: List[str] = []

    def count(request: Any = None, **_: Any) -> None:
        # Every HTTP attempt, botocore's own retries included; returns None, so the
        # request is sent.
        target = request.headers.get("X-Amz-Target", b"") if request is not None else b""
        if isinstance(target, bytes):
            target = target.decode("ascii", "replace")
        requests.append(str(target).rsplit(".", 1)[-1] or "?")

    client.client.meta.events.register("before-send.dynamodb", count)
    # Requests are UTF-8 whatever the locale; answers are ASCII (json.dumps escapes the rest).
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8") if hasattr(sys.stdin, "buffer") else sys.stdin
    for line in stdin:
        if not line.strip():
            continue
        requests.clear()
        answer: Dict[str, Any]
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise InvalidRequest("a request is a JSON object")
            answer = {"ok": serve(client, request)}
        except Exception as e:  # the driver answers every error and goes on
            if kind_of(e) == "other":
                traceback.print_exc(file=sys.stderr)
            message = str(e) or type(e).__name__
            if isinstance(e, json.JSONDecodeError):
                answer = {"error": {"kind": "invalid", "message": f"not JSON: {e}"}}
            else:
                answer = {"error": {"kind": kind_of(e), "message": message}}
        answer["requests"] = list(requests)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
