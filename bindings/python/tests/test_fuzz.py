"""Decoders and the parser on arbitrary input: KeyPathError or a valid path, nothing else.

100,000 byte strings (random, and valid encodings mutated by flips, insertions,
deletions, truncations and splices) and 100,000 texts (random, and valid texts mutated
the same way), seeded. Whatever decodes re-encodes to the same bytes (only canonical
encodings decode); whatever parses prints to text that parses to the same path.
"""

from __future__ import annotations

import os
import random
from typing import Callable, List, Tuple, cast

import pathgen
from sortpath import KeyPath, KeyPathError, _binary

COUNT = 100_000
SEED = int(os.environ.get("SORTPATH_FUZZ_SEED", "29"))
INTERESTING = [0x00, 0x01, 0x02, 0x07, 0x08, 0x0F, 0x10, 0x11, 0x12, 0x7F, 0x80, 0x84, 0xFE, 0xFF]


def mutate_bytes(rng: random.Random, data: bytes, pool: List[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        at = rng.randint(0, len(b))
        if op == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif op == 1 and b:
            b[rng.randrange(len(b))] = rng.choice(INTERESTING)
        elif op == 2:
            b[at:at] = bytes([rng.choice(INTERESTING) if rng.random() < 0.5 else rng.getrandbits(8)])
        elif op == 3 and b:
            del b[rng.randrange(len(b))]
        elif op == 4:
            b = b[: rng.randint(0, len(b))]
        elif op == 5:
            other = rng.choice(pool)
            b = b[:at] + other[rng.randint(0, len(other)) :]
        else:
            b = b[rng.randint(0, len(b)) :]
    return bytes(b)


def mutate_text(rng: random.Random, text: str, pool: List[str]) -> str:
    s = text
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(5)
        at = rng.randint(0, len(s))
        if op == 0:
            s = s[:at] + rng.choice(["/", "-", "%", "~", "%2", "%8", "%/", "0", "9", "é", "\x00", "\ud800", "A", "=", ""]) + s[at:]
        elif op == 1 and s:
            i = rng.randrange(len(s))
            s = s[:i] + s[i + 1 :]
        elif op == 2:
            s = s[:at]
        elif op == 3:
            other = rng.choice(pool)
            s = s[:at] + other[rng.randint(0, len(other)) :]
        else:
            s = s[:at] + str(rng.choice(pathgen.INT_BOUNDARIES) * rng.choice([1, 10, 100])) + s[at:]
    return s


def _check(kind: str, inputs: int, make: Callable[[int], object], check: Callable[[object], str]) -> None:
    outcomes = {"ok": 0, "error": 0}
    for i in range(inputs):
        value = make(i)
        try:
            outcomes[check(value)] += 1
        except KeyPathError:
            raise
        except Exception as e:  # anything else is a bug: report the input
            raise AssertionError(f"{kind} raised {type(e).__name__}: {e} on {value!r}") from e
    # Both outcomes happen often enough for the run to mean something.
    assert outcomes["ok"] > inputs // 20 and outcomes["error"] > inputs // 20, outcomes


def test_decode_never_raises_anything_else() -> None:
    rng = random.Random(SEED)
    print("fuzz seed", SEED)
    pool = [KeyPath(c).encode() for c in pathgen.random_paths(rng, 2000)]

    def make(i: int) -> bytes:
        r = rng.random()
        if r < 0.15:
            return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 24)))
        if r < 0.25:
            return bytes(rng.choice(INTERESTING) for _ in range(rng.randint(0, 12)))
        if r < 0.3:
            return rng.choice(pool)
        return mutate_bytes(rng, rng.choice(pool), pool)

    def metadata(value: bytes) -> object:
        # The metadata, read one varint at a time by the general reader only.
        try:
            if value == b"\x00":
                return ([], 1)
            if not value:
                return _binary.find_metadata(value)
            metas, segment_bytes, end = [], 0, len(value)
            while True:
                meta, start = _binary._varint_ending_at(value, end)
                metas.append(meta)
                segment_bytes += meta >> 3
                needed = segment_bytes + len(metas) + len(value) - start
                if needed == len(value):
                    return (metas[::-1], start)
                if needed > len(value) or start == 0:
                    return (start, "lengths")
                end = start
        except KeyPathError as e:
            return (e.position, e.problem)

    def found_metadata(value: bytes) -> object:
        try:
            return _binary.find_metadata(value)
        except KeyPathError as e:
            if e.problem.endswith("lengths that do not add up to the input length"):
                return (e.position, "lengths")
            return (e.position, e.problem)

    def checked(value: bytes) -> object:
        # The decoder's slow path alone: one segment at a time, every check in order.
        try:
            return _binary._decode_checked(value, _binary.find_metadata(value)[0])
        except KeyPathError as e:
            return (e.position, e.problem)

    def check(value: object) -> str:
        assert isinstance(value, bytes)
        # The metadata reader's fast paths (one- and two-byte varints) agree with the
        # general reader.
        assert found_metadata(value) == metadata(value), value
        try:
            path = KeyPath.decode(value)
        except KeyPathError as e:
            # The fast paths (cached layouts) reject what the slow path rejects, and the
            # error is the slow path's.
            assert checked(value) == (e.position, e.problem)
            assert e.position is not None and 0 <= e.position <= max(len(value) - 1, 0), (e, value)
            assert str(e) == f"at byte {e.position}: {e.problem}"
            assert "expected" in e.problem or "integer" in e.problem, e.problem
            return "error"
        assert path.encode() == value
        assert KeyPath.decode(path.encode()) == path
        assert checked(value) == path._components
        return "ok"

    _check("KeyPath.decode", COUNT, make, check)


def test_from_group_never_raises_anything_else() -> None:
    rng = random.Random(SEED + 1)
    pool = [KeyPath(c).encode() for c in pathgen.random_paths(rng, 500)]
    groups = [KeyPath(c[:1]).encode() for c in pathgen.random_paths(rng, 200) if c and c[0][1] is not None]

    def make(i: int) -> object:
        group = rng.choice(groups) if rng.random() < 0.7 else mutate_bytes(rng, rng.choice(groups), pool)
        sort = rng.choice(pool) if rng.random() < 0.5 else mutate_bytes(rng, rng.choice(pool), pool)
        return (group, sort)

    def check(value: object) -> str:
        group, sort = cast(Tuple[bytes, bytes], value)
        try:
            path = KeyPath.from_group(group, sort)
        except KeyPathError:
            return "error"
        assert path.split_group() == (group, sort)
        return "ok"

    _check("KeyPath.from_group", 20_000, make, check)


def test_parse_never_raises_anything_else() -> None:
    rng = random.Random(SEED + 2)
    pool = [str(KeyPath(c)) for c in pathgen.random_paths(rng, 2000)]
    alphabet = "/-%~_aAzZ0123456789ef=+\x00\x7fé😀"

    def make(i: int) -> str:
        r = rng.random()
        if r < 0.15:
            return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        if r < 0.2:
            return rng.choice(pool)
        return mutate_text(rng, rng.choice(pool), pool)

    def check(value: object) -> str:
        assert isinstance(value, str)
        try:
            path = KeyPath.parse(value)
        except KeyPathError as e:
            size = len(value.encode("utf-8", "surrogatepass"))
            assert e.position is not None and 0 <= e.position <= size, (e, value)
            assert str(e) == f"at byte {e.position}: {e.problem}"
            assert e.problem.startswith(("expected", "integer ID")), e.problem
            return "error"
        text = str(path)
        again = KeyPath.parse(text)
        assert again == path and str(again) == text
        return "ok"

    _check("KeyPath.parse", COUNT, make, check)
