"""The public API, case by case: building, errors (wording and positions as the Rust
crate gives them), ranges from docs/FORMAT.md's table, and the Python protocols."""

from __future__ import annotations

import doctest
import pickle
import uuid
from typing import Any, List

import pytest

import sortpath
from sortpath import Component, Excluded, Included, KeyPath, KeyPathError, KeyRange
from sortpath import _binary, _errors, _path, _range, _text

U = uuid.UUID("4c9d36e5-6b19-4e6a-828c-226ed667458a")
EXAMPLE = "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42"


@pytest.mark.parametrize("module", [sortpath, _binary, _errors, _path, _range, _text])
def test_doctests(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
    if module in (sortpath, _path, _range, _errors):
        assert result.attempted > 0


def test_example_path_of_the_format() -> None:
    path = KeyPath([("user", U), ("post", 1234), ("comment", 1678901234), ("react", 42)])
    assert str(path) == EXAMPLE
    assert len(path.encode()) == 63
    assert path.encode()[53:] == bytes.fromhex("00208401201938292811")
    assert KeyPath.parse(EXAMPLE) == path
    assert path.components[0] == Component("user", U)


def test_builders_and_accessors() -> None:
    path = KeyPath().push("user", 1).push_namespace("post")
    assert str(path) == "/user-1/post"
    assert path.parent == KeyPath.parse("/user-1")
    assert KeyPath().parent is None
    assert len(path) == 2 and len(KeyPath()) == 0
    assert str(KeyPath()) == "/" and KeyPath().encode() == b"\x00"
    assert repr(path) == "KeyPath('/user-1/post')"
    assert KeyPath().push("a", bytearray(b"\x00")).push("b", memoryview(b"x")) == KeyPath.parse("/a-~AA/b-~eA")
    # Subclasses of the ID types are stored as the base types.
    class MyInt(int):
        pass

    class MyStr(str):
        pass

    assert KeyPath().push("a", MyInt(5)).components[0].id.__class__ is int
    assert KeyPath().push("a", MyStr("x")).components[0].id.__class__ is str
    # Paths are immutable: push returns a new one.
    base = KeyPath().push("a", 1)
    base.push("b", 2)
    assert str(base) == "/a-1"


def test_build_errors() -> None:
    with pytest.raises(KeyPathError) as e:
        KeyPath().push("bad-name", 1)
    assert e.value.position is None
    assert str(e.value) == "invalid namespace \"bad-name\": expected one or more ASCII letters or '_'"
    with pytest.raises(KeyPathError, match="only the last component may lack an ID"):
        KeyPath().push_namespace("a").push("b", 1)
    with pytest.raises(KeyPathError, match="cannot add /b after the namespace-only component /a"):
        KeyPath([("a", None), ("b", 1)])
    with pytest.raises(KeyPathError, match=r"integer 18446744073709551616 is out of range"):
        KeyPath().push("a", 2**64)
    with pytest.raises(KeyPathError, match="out of range"):
        KeyPath().push("a", -(2**64))
    KeyPath().push("a", 2**64 - 1).push("b", -(2**64 - 1))
    with pytest.raises(TypeError):
        KeyPath().push("a", True)
    with pytest.raises(TypeError):
        KeyPath().push("a", 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        KeyPath().push(b"a", 1)  # type: ignore[arg-type]
    with pytest.raises(KeyPathError, match="lone surrogate U\\+D800"):
        KeyPath().push("a", "x\ud800")
    with pytest.raises(KeyPathError, match="has no group key"):
        KeyPath.parse("/a").split_group()
    with pytest.raises(KeyPathError, match="has no group key"):
        KeyPath().split_group()


@pytest.mark.parametrize(
    "text,position,message",
    [
        ("/user-1/post-%zz", 13, "expected '%/', '%%' or '%' and two hex digits 00-7F, found \"%zz\""),
        ("/a-~AB", 4, "expected base64url whose last digit has its unused low bits zero, found \"AB\" (the same bytes are written \"AA\")"),
        ("/a-1/b-2/", 9, "expected a namespace of ASCII letters or '_', found \"\""),
        ("user-1", 0, "expected '/' at the start of a key path"),
        ("", 0, "expected '/' at the start of a key path"),
        ("/a/b-1", 1, "expected an ID after namespace \"a\": only the last component may lack one"),
        ("/a-18446744073709551616", 3, "integer ID 18446744073709551616 is out of range -(2^64-1) ..= 2^64-1"),
        ("/a--18446744073709551616", 3, "integer ID -18446744073709551616 is out of range -(2^64-1) ..= 2^64-1"),
        ("/a-" + "9" * 5000, 3, "integer ID " + "9" * 5000 + " is out of range -(2^64-1) ..= 2^64-1"),
        ("/a-~A", 4, "expected base64url without padding after '~', found \"A\""),
        ("/a-~AA==", 4, "expected base64url without padding after '~', found \"AA==\""),
        ("/é-1", 1, "expected a namespace of ASCII letters or '_', found \"é\""),
        ("/a-é%8", 5, "expected '%/', '%%' or '%' and two hex digits 00-7F, found \"%8\""),
        ("/a-%80", 3, "expected '%/', '%%' or '%' and two hex digits 00-7F, found \"%80\""),
        ("/a-x\ud800", 4, "expected Unicode text, found the lone surrogate U+D800"),
    ],
)
def test_parse_errors(text: str, position: int, message: str) -> None:
    with pytest.raises(KeyPathError) as e:
        KeyPath.parse(text)
    assert (e.value.position, e.value.problem) == (position, message)
    assert str(e.value) == f"at byte {position}: {message}"
    assert isinstance(e.value, ValueError)


_METADATA = "expected segment metadata (varints) that accounts for every byte, found "
_ESCAPE = "expected an escaped ID byte (0x10 then 0x02..=0x12, or a byte >= 0x11), found "


# Each message is what `sortpath decode HEX` prints for the same bytes.
@pytest.mark.parametrize(
    "hexed,position,message",
    [
        ("", 0, "expected a key path encoding, found no bytes"),
        ("01", 0, _METADATA + "lengths that do not add up to the input length"),
        ("610108010008", 3, _METADATA + "lengths that do not add up to the input length"),
        ("610107ff000809", 3, _METADATA + "an overlong varint"),
        ("610109", 1, "expected separator 0x00 after a segment, found 0x01"),
        ("61020801000811", 1, "expected separator 0x01 after a segment, found 0x02"),
        ("61012d00080" "9", 2, "invalid integer ID: expected an integer sort byte 0x00..=0x0F, found 0x2D"),
        ("61010900d2000819", 2, "invalid integer ID: integer magnitude is not minimal (leading zero byte)"),
        ("6101080105000819", 2, _METADATA + "an integer shorter than its segment"),
        ("61010904000811", 2, "invalid integer ID: integer needs 3 bytes, found 2"),
        ("61010000080a", 2, _ESCAPE + "0x00"),
        ("6101ff100100081b", 3, _ESCAPE + "0x01"),
        ("61016200080b", 2, "expected the byte-string marker 0xFF, found 0x62"),
        ("6101c300080a", 2, "expected a UTF-8 string ID, found invalid UTF-8"),
        ("61016100080c", 2, "expected a 16-byte UUID, found 1 bytes"),
        ("61016100080d", 2, "expected an ID segment, found type code 5"),
        ("2d010801000811", 0, "expected a namespace of ASCII letters or '_', found \"-\""),
    ],
)
def test_decode_errors(hexed: str, position: int, message: str) -> None:
    with pytest.raises(KeyPathError) as e:
        KeyPath.decode(bytes.fromhex(hexed))
    assert (e.value.position, e.value.problem) == (position, message)


def test_decode_accepts_only_canonical_forms() -> None:
    assert KeyPath.decode(bytes.fromhex("6101ff80000813")) == KeyPath().push("a", b"\x80")
    assert KeyPath.decode(bytes.fromhex("6101100200080a" .replace("080a", "0812"))).components[0].id == "\x00"
    assert KeyPath.decode(bytes.fromhex("610107ff000811")) == KeyPath.parse("/a-0")
    assert KeyPath.decode(bytes.fromhex("61010700000811")) == KeyPath.parse("/a--255")
    for bad in ["610107fe00", "61010800000811", "610110000812", "6101100000081" "2"]:
        with pytest.raises(KeyPathError):
            KeyPath.decode(bytes.fromhex(bad))


def test_wrong_types() -> None:
    with pytest.raises(TypeError):
        KeyPath.decode("00")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        KeyPath.parse(b"/a-1")  # type: ignore[arg-type]
    assert KeyPath.decode(bytearray(b"\x00")) == KeyPath()
    assert KeyPath.decode(memoryview(b"a\x01\x08\x01\x00\x08\x11")) == KeyPath.parse("/a-1")


def test_comparisons_hash_and_pickle() -> None:
    paths = [KeyPath.parse(t) for t in ["/user-1/post-100", "/user-1/post-9", "/user-1/post-42", "/user-1/post", "/user-1"]]
    assert [str(p) for p in sorted(paths)] == ["/user-1", "/user-1/post", "/user-1/post-9", "/user-1/post-42", "/user-1/post-100"]
    a, b = KeyPath.parse("/a-1"), KeyPath().push("a", 1)
    assert a == b and not (a != b) and a <= b and a >= b and not (a < b)
    assert hash(a) == hash(b) and len({a, b}) == 1
    assert a != "/a-1" and (a == "/a-1") is False
    with pytest.raises(TypeError):
        a < "/a-1"  # type: ignore[operator]
    assert pickle.loads(pickle.dumps(a)) == a
    assert pickle.loads(pickle.dumps(KeyPathError(3, "x"))).position == 3
    # integers < strings < bytes at one position; a prefix first; no ID first.
    order = ["/a", "/a--1", "/a-0", "/a-18446744073709551615", "/a-", "/a-%00", "/a-a", "/a-a/b-1", "/a-ab", "/a-~", "/a-~AA"]
    parsed = [KeyPath.parse(t) for t in order]
    assert sorted(reversed(parsed)) == parsed


def test_starts_with() -> None:
    p = KeyPath.parse("/user-1/post-ab/comment-3")
    assert p.starts_with(KeyPath()) and p.starts_with(p)
    assert p.starts_with(KeyPath.parse("/user-1/post"))
    assert not p.starts_with(KeyPath.parse("/user-1/post-a"))
    assert not KeyPath.parse("/a-1").starts_with(KeyPath.parse("/a-%31"))  # 1 is not "1"
    assert not KeyPath.parse("/a-1").starts_with(KeyPath.parse("/a-1/b"))


def test_group_split_and_join() -> None:
    path = KeyPath.parse("/user-1/post-2")
    group, sort = path.split_group()
    assert (group.hex(), sort.hex()) == ("7573657201080100201" "1", "706f7374010802002011")
    assert KeyPath.from_group(group, sort) == path
    assert KeyPath.parse("/user-1").split_group()[1] == b"\x00"
    with pytest.raises(KeyPathError) as e:
        KeyPath.from_group(KeyPath.parse("/a").encode(), b"\x00")
    assert (e.value.position, e.value.problem) == (0, "expected a group key (one component with an ID)")
    with pytest.raises(KeyPathError):
        KeyPath.from_group(KeyPath.parse("/a-1/b-2").encode(), b"\x00")


def test_ranges_of_the_format_table() -> None:
    p = KeyPath.parse("/a-1")
    s = bytes.fromhex("61010801")
    assert (KeyRange.subtree(p).start, KeyRange.subtree(p).end) == (s + b"\x00", s + b"\x02")
    assert (KeyRange.descendants(p).start, KeyRange.descendants(p).end) == (s + b"\x01", s + b"\x02")
    assert (KeyRange.subtree(KeyPath()).start, KeyRange.subtree(KeyPath()).end) == (b"\x00", None)
    assert (KeyRange.descendants(KeyPath()).start, KeyRange.descendants(KeyPath()).end) == (b"\x01", None)
    c = KeyRange.children(p, "ns")
    assert (c.start, c.end) == (s + b"\x01ns\x01", s + b"\x01ns\x02")
    c = KeyRange.children(KeyPath(), "ns")
    assert (c.start, c.end) == (b"ns\x01", b"ns\x02")
    x, y = "\x00", 7
    r = KeyRange.between(p, "ns", Included(x), Included(y))
    assert r.start == s + b"\x01ns\x01\x10\x02\x00" and r.end == s + b"\x01ns\x01\x08\x07\x02"
    r = KeyRange.between(p, "ns", Excluded(x), Excluded(y))
    assert r.start == s + b"\x01ns\x01\x10\x02\x02" and r.end == s + b"\x01ns\x01\x08\x07\x00"
    assert KeyRange.between(KeyPath(), "a", Included(5), Excluded(5)).is_empty()
    q = KeyPath.parse("/b-2")
    r = KeyRange.between_paths(Included(p), Excluded(q))
    assert (r.start, r.end) == (p.encode(), q.encode())
    r = KeyRange.between_paths(Excluded(p), Included(q))
    assert (r.start, r.end) == (p.encode() + b"\x00", q.encode() + b"\x00")
    r = KeyRange.between_paths()
    assert (r.start, r.end) == (b"", None)
    with pytest.raises(KeyPathError):
        KeyRange.children(p, "not-a-namespace")
    with pytest.raises(KeyPathError, match="only the last component may lack an ID"):
        KeyRange.children(KeyPath.parse("/a-1/b"), "c")
    with pytest.raises(TypeError):
        KeyRange.between(p, "a", 5, None)  # type: ignore[arg-type]


def test_ranges_select_what_they_mean() -> None:
    keys = ["/user-1/post", "/user-1/post-ab", "/user-1/post-ab/c-1", "/user-1/post-abc", "/user-1/post-a%00", "/user-1/posts-1", "/user-1/post-9", "/user-2/post-1"]
    paths = {t: KeyPath.parse(t) for t in keys}

    def selected(r: KeyRange) -> List[str]:
        inside = [t for t, p in paths.items() if r.contains_key(p.encode())]
        assert inside == [t for t, p in paths.items() if r.matches(p)]
        return inside

    assert selected(KeyRange.subtree(KeyPath.parse("/user-1/post-ab"))) == ["/user-1/post-ab", "/user-1/post-ab/c-1"]
    assert selected(KeyRange.subtree(KeyPath.parse("/user-1/post"))) == ["/user-1/post", "/user-1/post-ab", "/user-1/post-ab/c-1", "/user-1/post-abc", "/user-1/post-a%00", "/user-1/post-9"]
    assert selected(KeyRange.descendants(KeyPath.parse("/user-1/post"))) == ["/user-1/post-ab", "/user-1/post-ab/c-1", "/user-1/post-abc", "/user-1/post-a%00", "/user-1/post-9"]
    assert selected(KeyRange.children(KeyPath.parse("/user-1"), "post")) == ["/user-1/post-ab", "/user-1/post-ab/c-1", "/user-1/post-abc", "/user-1/post-a%00", "/user-1/post-9"]
    assert selected(KeyRange.between(KeyPath.parse("/user-1"), "post", Included("ab"), None)) == ["/user-1/post-ab", "/user-1/post-ab/c-1", "/user-1/post-abc"]
    assert selected(KeyRange.between(KeyPath.parse("/user-1"), "post", Excluded("ab"), None)) == ["/user-1/post-abc"]
    assert selected(KeyRange.between(KeyPath.parse("/user-1"), "post", None, Excluded("ab"))) == ["/user-1/post-a%00", "/user-1/post-9"]


def test_ranges_with_a_uuid_among_other_ids() -> None:
    # A UUID whose raw bytes begin with "ab" 00 sorts inside /a-ab's subtree bytes; matches()
    # removes it.
    trap = KeyPath([("a", uuid.UUID(bytes=b"ab\x00" + bytes(13)))])
    r = KeyRange.subtree(KeyPath.parse("/a-ab"))
    assert r.contains_key(trap.encode()) and not r.matches(trap)
    r = KeyRange.children(KeyPath(), "a")
    assert r.matches(trap)
    assert repr(r) == "KeyRange(start='6101', end='6102')"
    assert r == KeyRange(b"a\x01", b"a\x02") and hash(r) == hash(KeyRange(b"a\x01", b"a\x02"))
