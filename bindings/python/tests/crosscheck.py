"""Writes a batch of generated key paths and what this package computes for them, for
crates/sortpath-cli/tests/bindings_python.rs to compare with the `sortpath` binary.

    python crosscheck.py OUT_DIR [--seed N] [--count N]

Files written to OUT_DIR (one record a line, the same order in input and answer):
  paths.txt          text of each path, often in a non-canonical spelling
  encode.hex         its encoding in hex (answer to `sortpath encode` of paths.txt)
  canonical.txt      its canonical text (answer to `sortpath decode` of encode.hex)
  encode.b64         its encoding in standard base64 with padding
  sorted.txt         canonical texts in key order (answer to `sortpath sort` of paths.txt)
  split-paths.txt    texts of the paths that have a group key
  split.tsv          GROUP_HEX<TAB>SORT_HEX of each (answer to `sortpath encode --split`)
  split-canonical.txt their canonical text (answer to `sortpath decode --split` of split.tsv)
  ranges.tsv         range specs (input of `sortpath range`)
  ranges-answer.tsv  START_HEX<TAB>END_HEX of each (END "-" when unbounded)
  bad-text.tsv       TEXT<TAB>ERROR for texts that do not parse
  bad-hex.tsv        HEX<TAB>ERROR for bytes that do not decode
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import sys
import time
import uuid
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pathgen  # noqa: E402
from sortpath import Excluded, Included, KeyPath, KeyPathError, KeyRange  # noqa: E402
from sortpath._text import format_id  # noqa: E402

_AMBIGUOUS_FIRST = set("0123456789abcdefABCDEF-~")


def alt_id_text(rng: random.Random, id: pathgen.Id) -> str:
    """Another spelling of an ID's text that parses to the same ID: UUIDs in any case,
    string characters escaped where they need not be (or in another valid escape)."""
    if isinstance(id, uuid.UUID):
        return "".join(c.upper() if rng.random() < 0.5 else c for c in str(id))
    if not isinstance(id, str):
        return format_id(id)
    canonical = format_id(id)
    if rng.random() < 0.5:
        return canonical
    ambiguous = canonical[:1] == "%" and id[:1] in _AMBIGUOUS_FIRST
    out = []
    for i, ch in enumerate(id):
        o = ord(ch)
        if ch == "/":
            out.append(rng.choice(["%/", "%2F", "%2f"]))
        elif ch == "%":
            out.append(rng.choice(["%%", "%25"]))
        elif o < 0x20 or o == 0x7F or (i == 0 and ambiguous):
            out.append(rng.choice(["%%%02X", "%%%02x"]) % o)
        elif o < 0x80 and rng.random() < 0.2:
            out.append(rng.choice(["%%%02X", "%%%02x"]) % o)
        else:
            out.append(ch)
    return "".join(out)


def alt_text(rng: random.Random, comps: pathgen.Components) -> str:
    if not comps:
        return "/"
    return "".join(
        "/" + ns + ("" if id is None else "-" + alt_id_text(rng, id)) for ns, id in comps
    )


def bound_text(rng: random.Random, bound: object) -> str:
    if bound is None:
        return "*"
    value = bound.value  # type: ignore[attr-defined]
    mark = "[" if isinstance(bound, Included) else "("
    if isinstance(value, KeyPath):
        return mark + str(value)
    return mark + alt_id_text(rng, value)


def end_hex(end: Optional[bytes]) -> str:
    return "-" if end is None else end.hex()


def random_id_bound(rng: random.Random, ids: List[pathgen.Id]) -> object:
    r = rng.random()
    if r < 0.25:
        return None
    value = rng.choice(ids) if ids and rng.random() < 0.7 else pathgen.random_id(rng)
    return Included(value) if rng.random() < 0.5 else Excluded(value)


def random_range(
    rng: random.Random,
    comps: pathgen.Components,
    others: List[pathgen.Components],
    ids_at: List[List[pathgen.Id]],
) -> tuple[str, KeyRange]:
    """A random range spec for `sortpath range` and the range it stands for; ``ids_at[d]``
    are IDs found at depth ``d`` of other paths, so bounds often meet real keys."""
    path = KeyPath(comps)
    kind = rng.randrange(5)
    if kind == 0:
        return f"subtree\t{alt_text(rng, comps)}", KeyRange.subtree(path)
    if kind == 1:
        return f"descendants\t{alt_text(rng, comps)}", KeyRange.descendants(path)
    parent = [c for c in comps if c[1] is not None]
    if kind == 2:
        ns = rng.choice(pathgen.NAMESPACES[:6])
        return f"children\t{alt_text(rng, parent)}\t{ns}", KeyRange.children(KeyPath(parent), ns)
    if kind == 3:
        ns = rng.choice(pathgen.NAMESPACES[:6])
        ids = ids_at[len(parent)] if len(parent) < len(ids_at) else []
        low, high = random_id_bound(rng, ids), random_id_bound(rng, ids)
        r = KeyRange.between(KeyPath(parent), ns, low, high)  # type: ignore[arg-type]
        spec = f"between\t{alt_text(rng, parent)}\t{ns}\t{bound_text(rng, low)}\t{bound_text(rng, high)}"
        return spec, r
    bounds: List[object] = [None]
    for p in (path, KeyPath(rng.choice(others))):
        bounds.append(Included(p) if rng.random() < 0.5 else Excluded(p))
    low, high = rng.choice(bounds), rng.choice(bounds)
    r = KeyRange.between_paths(low, high)  # type: ignore[arg-type]
    return f"paths\t{bound_text(rng, low)}\t{bound_text(rng, high)}", r


def bad_inputs(rng: random.Random, texts: List[str], encodings: List[bytes]) -> tuple[List[str], List[str]]:
    """Texts and hex encodings that do not parse / decode, each with the error message."""
    from test_fuzz import mutate_bytes, mutate_text  # the fuzz test's mutators

    bad_text: List[str] = []
    fixed = ["", "user-1", "/a-1/", "/a/b-1", "/a-%zz", "/a-~AB", "/a-~A", "/a-18446744073709551616", "/é-1", "/a-é%8", "/-1", "//"]
    candidates = fixed + [mutate_text(rng, rng.choice(texts), texts) for _ in range(3000)]
    for text in candidates:
        if "\n" in text or "\r" in text or not text.isprintable() and any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            continue
        try:
            KeyPath.parse(text)
        except KeyPathError as e:
            bad_text.append(f"{text}\t{e}")
        if len(bad_text) >= 150:
            break
    bad_hex: List[str] = []
    fixed_b = [b"", b"\x01", b"a\x01\x2d\x00\x08\x09", b"a\x01\x09", b"\x00\x00"]
    for data in fixed_b + [mutate_bytes(rng, rng.choice(encodings), encodings) for _ in range(3000)]:
        # `sortpath decode` names keys of the store's own records (the reserved group 00 and a
        # tag: 01 counter, 02 index, 03 configuration, ff application) instead of failing on
        # them: not key paths, but not bad input for it either.
        if data[:1] == b"\x00" and data[1:2] in (b"\x01", b"\x02", b"\x03", b"\xff"):
            continue
        try:
            KeyPath.decode(data)
        except KeyPathError as e:
            bad_hex.append(f"{data.hex()}\t{e}")
        if len(bad_hex) >= 150:
            break
    return bad_text, bad_hex


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--count", type=int, default=100_000)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    print(f"crosscheck seed {seed} ({args.count} paths)", flush=True)
    rng = random.Random(seed)
    started = time.monotonic()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    all_comps = pathgen.random_paths(rng, args.count)
    paths = [KeyPath(c) for c in all_comps]
    texts = [alt_text(rng, c) for c in all_comps]
    for text, path in zip(texts, paths):
        assert KeyPath.parse(text) == path, text
    encodings = [p.encode() for p in paths]
    canonical = [str(p) for p in paths]

    def write(name: str, lines: List[str]) -> None:
        (out / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    write("paths.txt", texts)
    write("encode.hex", [e.hex() for e in encodings])
    write("canonical.txt", canonical)
    write("encode.b64", [base64.b64encode(e).decode("ascii") for e in encodings])
    write("sorted.txt", [str(p) for p in sorted(paths)])

    grouped = [(t, p) for t, p in zip(texts, paths) if len(p) and p.components[0].id is not None]
    splits = [p.split_group() for _, p in grouped]
    write("split-paths.txt", [t for t, _ in grouped])
    write("split.tsv", [f"{g.hex()}\t{s.hex()}" for g, s in splits])
    write("split-canonical.txt", [str(p) for _, p in grouped])

    specs, answers = [], []
    others = all_comps[:2000]
    ids_at: List[List[pathgen.Id]] = [
        [i for o in others if len(o) > d for i in [o[d][1]] if i is not None] for d in range(5)
    ]
    for comps in all_comps:
        spec, r = random_range(rng, comps, others, ids_at)
        specs.append(spec)
        answers.append(f"{r.start.hex()}\t{end_hex(r.end)}")
    write("ranges.tsv", specs)
    write("ranges-answer.tsv", answers)

    bad_text, bad_hex = bad_inputs(rng, canonical[:5000], encodings[:5000])
    write("bad-text.tsv", bad_text)
    write("bad-hex.tsv", bad_hex)
    print(
        f"wrote {len(paths)} paths, {len(grouped)} group splits, {len(specs)} ranges, "
        f"{len(bad_text)} bad texts, {len(bad_hex)} bad encodings in {time.monotonic() - started:.1f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
