"""Seeded generators of trap-heavy key paths, shared by the property tests, the fuzz test
and the cross-implementation script (crosscheck.py).

Traps: empty strings and byte strings, NUL, 0x01, 0x10, 0x11, 0xFF, '/', '%', '-', '~',
non-ASCII, text that reads as another ID type (``1234``, ``~x``, UUID-shaped), byte strings
that are prefixes of each other, every integer boundary (each byte width, i64/u64
extremes, +-(2**64-1)), and UUIDs (including ones whose raw bytes look like other IDs).
"""

from __future__ import annotations

import random
import uuid
from typing import List, Optional, Tuple, Union

Id = Union[int, str, bytes, uuid.UUID]
Components = List[Tuple[str, Optional[Id]]]

INT_MAX = 2**64 - 1


def _int_boundaries() -> List[int]:
    values = {0, 1, -1, INT_MAX, -INT_MAX, 2**63 - 1, -(2**63), 2**63, -(2**63) + 1, 2**31 - 1, -(2**31)}
    for k in range(1, 9):
        edge = 2 ** (8 * k)
        values.update({edge - 1, edge, edge + 1, -(edge - 1), -edge, -(edge + 1)})
    return sorted(v for v in values if -INT_MAX <= v <= INT_MAX)


INT_BOUNDARIES = _int_boundaries()
NAMESPACES = ["a", "b", "ab", "post", "posts", "user", "A", "Z", "_", "a_b", "z" * 20, "x" * 130]
# Characters that matter to escaping, printing, splitting or ordering.
TRAP_CHARS = [
    "\x00", "\x01", "\x02", "\x0f", "\x10", "\x11", "\x1f", "\x7f", "/", "%", "-", "~",
    "0", "1", "9", "a", "f", "A", "F", "z", " ", "\t", "\n", "\r", "é", "\u00ff", "\u0100",
    "\u2028", "😀", "\uffff", "\U0010ffff", "%2F", "%%", "%/",
]
TRAP_STRINGS = [
    "", "a", "ab", "abc", "a\x00", "a\x00b", "\x00", "\x01", "\x10", "\x11", "1234", "-0",
    "00", "-", "~", "~x", "~AA", "%", "/", "x/y%z", "4c9d36e5-6b19-4e6a-828c-226ed667458a",
    "4C9D36E5-6B19-4E6A-828C-226ED667458A", "18446744073709551616", "-18446744073709551616",
    "é😀", "x-y",
]
TRAP_BYTES = [b"", b"\x00", b"\x00\x00", b"\x01", b"\x10", b"\x11", b"\xff", b"\xff\xff", b"a", b"ab", b"abc"]
UUIDS = [
    uuid.UUID(int=0),
    uuid.UUID(int=2**128 - 1),
    uuid.UUID("4c9d36e5-6b19-4e6a-828c-226ed667458a"),
    # Raw bytes that begin like other IDs' encodings followed by 00 / 01.
    uuid.UUID(bytes=b"\x08\x01\x00" + bytes(13)),
    uuid.UUID(bytes=b"\x08\x01\x01" + b"\xff" * 13),
    uuid.UUID(bytes=b"ab\x00" + bytes(13)),
    uuid.UUID(bytes=b"ab\x01" + b"a" * 13),
    uuid.UUID(bytes=b"\x10\x00" + bytes(14)),
    uuid.UUID(bytes=b"\xff\x01" + bytes(14)),
]


def random_int(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.4:
        return rng.choice(INT_BOUNDARIES)
    if r < 0.6:
        return rng.randint(-300, 300)
    bits = rng.randint(1, 64)
    v = rng.getrandbits(bits)
    return -v if rng.random() < 0.5 else v


def random_str(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return rng.choice(TRAP_STRINGS)
    n = rng.randint(0, 8)
    parts = []
    for _ in range(n):
        q = rng.random()
        if q < 0.5:
            parts.append(rng.choice(TRAP_CHARS))
        elif q < 0.8:
            parts.append(chr(rng.randint(0x20, 0x7E)))
        else:
            c = rng.randint(0x80, 0x10FFFF)
            if 0xD800 <= c <= 0xDFFF:
                c = 0xE000
            parts.append(chr(c))
    s = "".join(parts)
    if rng.random() < 0.1:
        s = rng.choice(TRAP_STRINGS) + s
    return s


def random_bytes(rng: random.Random) -> bytes:
    r = rng.random()
    if r < 0.3:
        return rng.choice(TRAP_BYTES)
    n = rng.randint(0, 12)
    alphabet = [0x00, 0x01, 0x02, 0x0F, 0x10, 0x11, 0x12, 0x7F, 0x80, 0xFE, 0xFF, 0x61]
    if rng.random() < 0.5:
        return bytes(rng.choice(alphabet) for _ in range(n))
    return bytes(rng.getrandbits(8) for _ in range(n))


def random_uuid(rng: random.Random) -> uuid.UUID:
    if rng.random() < 0.5:
        return rng.choice(UUIDS)
    return uuid.UUID(int=rng.getrandbits(128))


def random_id(rng: random.Random, kinds: str = "isbu") -> Id:
    kind = rng.choice(kinds)
    if kind == "i":
        return random_int(rng)
    if kind == "s":
        return random_str(rng)
    if kind == "b":
        return random_bytes(rng)
    return random_uuid(rng)


def random_namespace(rng: random.Random) -> str:
    if rng.random() < 0.8:
        return rng.choice(NAMESPACES[:6])
    return rng.choice(NAMESPACES)


def random_components(rng: random.Random, max_len: int = 4, kinds: str = "isbu") -> Components:
    """A random path: 0..max_len components, the last one sometimes without an ID."""
    n = rng.randint(0, max_len)
    components: Components = [(random_namespace(rng), random_id(rng, kinds)) for _ in range(n)]
    if components and rng.random() < 0.15:
        components[-1] = (components[-1][0], None)
    return components


def related(rng: random.Random, base: Components, kinds: str = "isbu") -> Components:
    """A path near ``base`` (a prefix, an extension, a sibling), so that ordering and
    range tests meet paths that share prefixes."""
    r = rng.random()
    cut = rng.randint(0, len(base))
    head = [c for c in base[:cut] if c[1] is not None]
    if r < 0.3:
        return head
    if r < 0.7:
        return head + random_components(rng, 2, kinds)
    if head:
        ns, id = head[-1]
        if isinstance(id, bytes):
            id = id + random_bytes(rng)[:2]  # a byte string with this prefix
        elif isinstance(id, str):
            id = id + random_str(rng)[:2]
        elif isinstance(id, int):
            id = max(-INT_MAX, min(INT_MAX, id + rng.choice([-1, 1])))
        head[-1] = (ns, id)
    return head


def random_paths(rng: random.Random, count: int, kinds: str = "isbu") -> List[Components]:
    """``count`` paths, about half of them near earlier ones."""
    paths: List[Components] = []
    for _ in range(count):
        if paths and rng.random() < 0.5:
            paths.append(related(rng, rng.choice(paths), kinds))
        else:
            paths.append(random_components(rng, 4, kinds))
    return paths
