"""Encode and decode per second of the format's example path, against the `foundationdb`
package's pure-Python tuple layer on the same 8 values.

    python bench/bench.py [--seconds S]

`import fdb.tuple` needs no FoundationDB client library: the `fdb` package loads
libfdb_c only when `fdb.api_version()` is called, which this script never does, and
`fdb/tuple.py` is plain Python. (If the package is not installed, only sortpath is timed.)
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import timeit
import uuid
from typing import Callable, List, Tuple

from sortpath import KeyPath

TEXT = "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42"
USER = uuid.UUID("4c9d36e5-6b19-4e6a-828c-226ed667458a")
VALUES = ("user", USER, "post", 1234, "comment", 1678901234, "react", 42)


def measure(cases: List[Tuple[str, Callable[[], object]]], seconds: float, repeats: int) -> List[float]:
    """Calls per CPU second of each case: the best of ``repeats`` rounds, each round timing
    every case in turn (so a busy machine slows all cases alike), each timing a loop sized
    to take about ``seconds / repeats``."""
    # CPU time of this process, not wall time: on a shared machine the process is not
    # charged for the time other processes run.
    timers = [timeit.Timer(fn, timer=time.process_time) for _, fn in cases]
    numbers = []
    for timer in timers:
        number, took = timer.autorange()
        numbers.append(max(1, int(number * (seconds / repeats) / max(took, 1e-9))))
    best = [float("inf")] * len(cases)
    for _ in range(repeats):
        for i, (timer, number) in enumerate(zip(timers, numbers)):
            best[i] = min(best[i], timer.timeit(number) / number)
    return [1.0 / t for t in best]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="about this long per case")
    parser.add_argument("--repeats", type=int, default=7, help="rounds; the best counts")
    args = parser.parse_args()

    path = KeyPath.parse(TEXT)
    data = path.encode()
    assert len(data) == 63 and KeyPath.decode(data) == path

    def build_and_encode() -> bytes:
        # From the values to bytes, as fdb.tuple.pack does: a new path each call, so no
        # cached encoding is reused.
        return KeyPath([("user", USER), ("post", 1234), ("comment", 1678901234), ("react", 42)]).encode()

    def push_and_encode() -> bytes:
        return KeyPath().push("user", USER).push("post", 1234).push("comment", 1678901234).push("react", 42).encode()

    def decode() -> KeyPath:
        return KeyPath.decode(data)

    def decode_and_read() -> object:
        return KeyPath.decode(data).components

    assert build_and_encode() == data and push_and_encode() == data
    cases: List[Tuple[str, Callable[[], object]]] = [
        ("sortpath encode: KeyPath([...]).encode()", build_and_encode),
        ("sortpath encode: KeyPath().push(...) x4 .encode()", push_and_encode),
        ("sortpath decode: KeyPath.decode(b)", decode),
        ("sortpath decode: KeyPath.decode(b).components", decode_and_read),
    ]
    try:
        import fdb.tuple as fdb_tuple  # pure Python; loads no C library (see above)
    except ImportError:
        print("foundationdb is not installed: timing sortpath only", file=sys.stderr)
    else:
        packed = fdb_tuple.pack(VALUES)
        assert fdb_tuple.unpack(packed) == VALUES
        cases += [
            (f"fdb.tuple.pack (8 values, {len(packed)} bytes)", lambda: fdb_tuple.pack(VALUES)),
            ("fdb.tuple.unpack", lambda: fdb_tuple.unpack(packed)),
        ]
    print(f"CPython {platform.python_version()} on {platform.machine()}, {len(data)}-byte key path")
    for (name, _), ops in zip(cases, measure(cases, args.seconds, args.repeats)):
        print(f"{name:<52} {ops:>12,.0f} ops/s ({1e6 / ops:.2f} us)")


if __name__ == "__main__":
    main()
