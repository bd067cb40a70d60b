"""Oracle for sortpath's ID interop tests: svix-ksuid, python-ulid and uuid6.

Modes (argv[1]):
  generate N   print N IDs of each kind made by the libraries:
               "<kind> <text> <hex bytes> <timestamp>"
  parse        read "<kind> <text>" lines (made by sortpath) and print
               "<hex bytes> <timestamp>" as the libraries parse them, or "error"
  ulid-seq     read "<millis> <hex randomness>" lines and print the text of the ULID
               python-ulid's monotonic generator makes for each, or "overflow"
"""
import sys
import uuid

import uuid6
from ksuid import Ksuid
from ulid import ULID, ULIDGenerator


def generate(n):
    for _ in range(n):
        k = Ksuid()
        print("ksuid", str(k), bytes(k).hex(), int(k.timestamp))
        u = ULID()
        print("ulid", str(u), bytes(u).hex(), u.milliseconds)
        v = uuid6.uuid7()
        print("uuid7", str(v), v.bytes.hex(), v.time)


def parse():
    for line in sys.stdin:
        kind, text = line.split()
        try:
            if kind == "ksuid":
                k = Ksuid.from_base62(text)
                print(bytes(k).hex(), int(k.timestamp))
            elif kind == "ulid":
                u = ULID.from_str(text)
                print(bytes(u).hex(), u.milliseconds)
            elif kind == "uuid7":
                v = uuid6.UUID(text)
                if v.version != 7 or v.variant != uuid.RFC_4122:
                    raise ValueError("not a UUIDv7")
                print(v.bytes.hex(), v.time)
            else:
                raise SystemExit("unknown kind " + kind)
        except (ValueError, OverflowError):
            print("error")


def ulid_sequence():
    state = {"millis": 0, "random": b""}
    generator = ULIDGenerator(clock=lambda: state["millis"], randomness=lambda _ts: state["random"])
    for line in sys.stdin:
        millis, random_hex = line.split()
        state["millis"] = int(millis)
        state["random"] = bytes.fromhex(random_hex)
        try:
            print(str(generator.generate()))
        except ValueError:
            print("overflow")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "generate":
        generate(int(sys.argv[2]))
    elif mode == "parse":
        parse()
    elif mode == "ulid-seq":
        ulid_sequence()
    else:
        raise SystemExit("unknown mode " + mode)
