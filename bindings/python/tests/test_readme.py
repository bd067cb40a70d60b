"""The README's Python examples run as written. boto3 is replaced by a stand-in table that
keeps items in DynamoDB's order (partition key, then sort key as unsigned bytes) and answers
the key conditions the README uses, as DynamoDB documents them (BETWEEN includes both ends)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


class StandInDynamoDB:
    def __init__(self) -> None:
        self.items: Dict[Tuple[bytes, bytes], Dict[str, Any]] = {}

    def put_item(self, TableName: str, Item: Dict[str, Any]) -> None:
        self.items[(Item["pk"]["B"], Item["sk"]["B"])] = Item

    def query(self, TableName: str, KeyConditionExpression: str, ExpressionAttributeValues: Dict[str, Any]) -> Dict[str, Any]:
        values = {k: v["B"] for k, v in ExpressionAttributeValues.items()}
        conditions: Dict[str, Callable[[bytes], bool]] = {
            "pk = :pk AND sk BETWEEN :start AND :end": lambda sk: values[":start"] <= sk <= values[":end"],
            "pk = :pk AND sk >= :start": lambda sk: sk >= values[":start"],
            "pk = :pk AND sk < :end": lambda sk: sk < values[":end"],
        }
        keep = conditions[KeyConditionExpression]
        for value in values.values():
            assert value, "DynamoDB rejects empty binary key values"
        found = sorted(k for k in self.items if k[0] == values[":pk"] and keep(k[1]))
        return {"Items": [self.items[k] for k in found]}


def _blocks() -> List[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_examples() -> None:
    blocks = _blocks()
    assert len(blocks) >= 4
    assert any("dynamodb.query" in b for b in blocks)


def _store_table() -> Any:
    """A sortpath-store table made by `sortpath db create-table` with the README's index, in
    the table client's own stand-in (tests/stubddb.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from stubddb import StubDynamoDB

    stub = StubDynamoDB("tickets")
    config = (
        b'{"format":1,"indexes":[{"name":"by_updated","type":"ticket","kind":"field",'
        b'"field":"updated","group":"/board-{board}"}],"types":[]}'
    )
    stub.records[(b"\x00\x03", b"\x00")] = {
        "pk": {"B": b"\x00\x03"},
        "sk": {"B": b"\x00"},
        "val": {"B": config},
        "ver": {"N": "1"},
    }
    return stub


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_readme_example(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    block = _blocks()[index]
    table: Any = _store_table() if "sortpath.dynamodb" in block else StandInDynamoDB()
    boto3 = types.ModuleType("boto3")
    boto3.client = lambda name, **_: table  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "boto3", boto3)
    exec(compile(_blocks()[index], f"README.md example {index + 1}", "exec"), {})
