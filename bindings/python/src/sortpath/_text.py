"""The text form of key paths (docs/FORMAT.md, "Text form").

```
path      = "/" component *( "/" component )      ; or "/" alone: the empty path
component = namespace [ "-" id ]
id        = int / uuid / bytes / string            ; tried in this order, on the raw text
```
"""

from __future__ import annotations

import base64
import re
from typing import List, Optional, Tuple
from uuid import UUID

from ._binary import INT_MAX, Components, Id, is_valid_namespace
from ._errors import KeyPathError, rust_debug_str

__all__ = ["parse_components", "format_components", "format_id"]

_INT_TEXT = re.compile("0|-?[1-9][0-9]*")
_UUID_TEXT = re.compile(
    "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
)
_BASE64URL = re.compile("[A-Za-z0-9_-]*")
_HEX = "0123456789abcdefABCDEF"
# Characters a string ID never prints as themselves.
_PRINT_ESCAPED = re.compile("[\x00-\x1f\x7f/%]")
_PERCENT = re.compile("%(?:[/%]|[0-7][0-9A-Fa-f])")
_BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def base64url_encode(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _base64url_decode(text: str, at: int) -> bytes:
    if len(text) % 4 == 1 or _BASE64URL.fullmatch(text) is None:
        raise KeyPathError(
            at, f"expected base64url without padding after '~', found {rust_debug_str(text)}"
        )
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # The unused low bits of the last digit must be zero, so each byte string has one
    # text form.
    spare = (len(text) * 6) % 8
    if spare and _BASE64_DIGITS.index(text[-1]) & ((1 << spare) - 1):
        canonical = base64url_encode(data)
        raise KeyPathError(
            at,
            "expected base64url whose last digit has its unused low bits zero, found "
            f"{rust_debug_str(text)} (the same bytes are written {rust_debug_str(canonical)})",
        )
    return data


def _unescape_string(raw: str, at: int) -> str:
    if "%" not in raw:
        return raw
    out: List[str] = []
    i = 0
    n = len(raw)
    while True:
        pos = raw.find("%", i)
        if pos < 0:
            out.append(raw[i:])
            return "".join(out)
        out.append(raw[i:pos])
        m = _PERCENT.match(raw, pos)
        if m is None:
            offset = at + _utf8_len(raw[:pos])
            found = raw[pos : pos + 3]
            raise KeyPathError(
                offset,
                f"expected '%/', '%%' or '%' and two hex digits 00-7F, found {rust_debug_str(found)}",
            )
        escape = m.group()
        out.append(escape[1] if len(escape) == 2 else chr(int(escape[1:], 16)))
        i = m.end()
        if i >= n:
            return "".join(out)


def _parse_id(raw: str, at: int) -> Id:
    """An ID from its raw text; ``at`` is its byte offset in the whole input."""
    if _INT_TEXT.fullmatch(raw):
        # 2**64-1 has 20 digits; longer text is out of range (and int() of very long
        # text is refused by CPython's digit limit).
        if len(raw) <= 21:
            value = int(raw)
            if -INT_MAX <= value <= INT_MAX:
                return value
        raise KeyPathError(at, f"integer ID {raw} is out of range -(2^64-1) ..= 2^64-1")
    if len(raw) == 36 and _UUID_TEXT.fullmatch(raw):
        return UUID(raw)
    if raw[:1] == "~":
        return _base64url_decode(raw[1:], at + 1)
    return _unescape_string(raw, at)


def _split_components(text: str) -> List[Tuple[int, str]]:
    """The text after the leading ``/`` split at unescaped ``/``s, with byte offsets."""
    if "%" not in text:
        parts = text[1:].split("/")
    else:
        parts = []
        start = 1
        i = 1
        n = len(text)
        while i < n:
            c = text[i]
            if c == "%":
                i += 2  # "%/" and "%%" are two-character escapes; "%HH" has no '/' after.
            elif c == "/":
                parts.append(text[start:i])
                start = i + 1
                i += 1
            else:
                i += 1
        parts.append(text[start:])
    result = []
    at = 1
    for part in parts:
        result.append((at, part))
        at += _utf8_len(part) + 1
    return result


def parse_components(text: str) -> Components:
    """Parses the text form; ``/`` alone is the empty path."""
    if text[:1] != "/":
        raise KeyPathError(0, "expected '/' at the start of a key path")
    if text == "/":
        return ()
    parts = _split_components(text)
    last = len(parts) - 1
    components: List[Tuple[str, Optional[Id]]] = []
    for index, (at, part) in enumerate(parts):
        namespace, dash, raw = part.partition("-")
        if not is_valid_namespace(namespace):
            raise KeyPathError(
                at, f"expected a namespace of ASCII letters or '_', found {rust_debug_str(namespace)}"
            )
        if dash:
            components.append((namespace, _parse_id(raw, at + len(namespace) + 1)))
        elif index < last:
            raise KeyPathError(
                at,
                f"expected an ID after namespace {rust_debug_str(namespace)}: "
                "only the last component may lack one",
            )
        else:
            components.append((namespace, None))
    return tuple(components)


def _is_ambiguous(s: str) -> bool:
    """Whether string text would read as another ID type (an integer, a UUID, bytes)."""
    return (
        s[:1] == "~"
        or _INT_TEXT.fullmatch(s) is not None
        or (len(s) == 36 and _UUID_TEXT.fullmatch(s) is not None)
    )


def _format_string(s: str) -> str:
    ambiguous = _is_ambiguous(s)
    if not ambiguous and _PRINT_ESCAPED.search(s) is None:
        return s
    out = []
    for i, ch in enumerate(s):
        if ch == "/":
            out.append("%/")
        elif ch == "%":
            out.append("%%")
        elif ch < "\x20" or ch == "\x7f" or (i == 0 and ambiguous):
            out.append("%%%02X" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def format_id(id: Id) -> str:
    """An ID's canonical text, as it appears after ``namespace-`` in a path."""
    t = type(id)
    if t is int:
        return str(id)
    if t is str:
        return _format_string(id)  # type: ignore[arg-type]
    if t is UUID:
        return str(id)
    return "~" + base64url_encode(id)  # type: ignore[arg-type]


def format_components(components: Components) -> str:
    """The canonical text form."""
    if not components:
        return "/"
    out = []
    for namespace, id in components:
        if id is None:
            out.append("/" + namespace)
        else:
            out.append("/" + namespace + "-" + format_id(id))
    return "".join(out)
