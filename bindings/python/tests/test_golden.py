"""The Rust crate's golden vectors, read from crates/sortpath/tests/golden/ at test time."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import pytest

from sortpath import KeyPath
from sortpath._binary import decode_int, encode_int

GOLDEN = Path(__file__).resolve().parents[3] / "crates" / "sortpath" / "tests" / "golden"


def _vectors(name: str, sep: str) -> List[Tuple[str, str]]:
    lines = (GOLDEN / name).read_text(encoding="utf-8").splitlines()
    rows = [line.split(sep) for line in lines if line and not line.startswith("#")]
    assert rows, f"no vectors in {name}"
    assert all(len(r) == 2 for r in rows), f"malformed line in {name}"
    return [(a, b) for a, b in rows]


PATHS = _vectors("path.txt", "\t")
INTS = _vectors("int.txt", " ")


def test_vector_files_are_there() -> None:
    # Every line of path.txt but the comment is a vector, and there are more than a few.
    assert len(PATHS) >= 25 and len(INTS) >= 70


@pytest.mark.parametrize("text,hexed", PATHS, ids=[t[:40] for t, _ in PATHS])
def test_path_vector(text: str, hexed: str) -> None:
    data = bytes.fromhex(hexed)
    parsed = KeyPath.parse(text)
    assert parsed.encode().hex() == hexed
    decoded = KeyPath.decode(data)
    assert str(decoded) == text
    assert decoded == parsed
    assert decoded.components == parsed.components
    # Built from its components with push, the path encodes the same.
    built = KeyPath()
    for c in parsed.components:
        built = built.push_namespace(c.namespace) if c.id is None else built.push(c.namespace, c.id)
    assert built.encode() == data
    assert KeyPath(parsed.components).encode() == data


@pytest.mark.parametrize("value,hexed", INTS)
def test_int_vector(value: str, hexed: str) -> None:
    data = bytes.fromhex(hexed)
    assert encode_int(int(value)).hex() == hexed
    assert decode_int(data, 0, len(data)) == int(value)
    # As an ID in a path, the integer segment is the same bytes.
    path = KeyPath().push("a", int(value))
    assert path.encode().startswith(b"a\x01" + data + b"\x00")
