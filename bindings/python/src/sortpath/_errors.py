"""The one exception type of the package."""

from __future__ import annotations

from typing import Optional

__all__ = ["KeyPathError"]


class KeyPathError(ValueError):
    """Text, bytes or a build step that is not a valid key path.

    ``position`` is where the problem is: a byte offset into the UTF-8 text for
    :meth:`KeyPath.parse`, into the encoding for :meth:`KeyPath.decode` (into the sort
    key for :meth:`KeyPath.from_group`), and ``None`` for a problem that has no place
    (an invalid namespace given to :meth:`KeyPath.push`). ``problem`` says what was
    expected and what was found; ``str(error)`` is ``"at byte N: problem"``, worded as
    the Rust crate words it.

    >>> from sortpath import KeyPath, KeyPathError
    >>> try:
    ...     KeyPath.parse("/user-1/post-%zz")
    ... except KeyPathError as e:
    ...     print(e.position, e.problem)
    13 expected '%/', '%%' or '%' and two hex digits 00-7F, found "%zz"
    """

    position: Optional[int]
    problem: str

    def __init__(self, position: Optional[int], problem: str) -> None:
        self.position = position
        self.problem = problem
        if position is None:
            super().__init__(problem)
        else:
            super().__init__(f"at byte {position}: {problem}")

    def __reduce__(self) -> tuple[type[KeyPathError], tuple[Optional[int], str]]:
        return (KeyPathError, (self.position, self.problem))


def rust_debug_str(text: str) -> str:
    """``text`` quoted as Rust's ``{:?}`` prints a string, so messages match the crate's."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\0":
            out.append("\\0")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append("\\u{%x}" % ord(ch))
    out.append('"')
    return "".join(out)
