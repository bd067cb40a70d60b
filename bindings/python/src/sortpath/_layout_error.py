"""The error of the table layout's decoders (envelopes, entries, cursors, payloads)."""

from __future__ import annotations

__all__ = ["LayoutError"]


class LayoutError(ValueError):
    """Bytes or a value that are not what docs/DYNAMODB_LAYOUT.md says they must be: the
    message says what was expected, what was found, and where.

    >>> from sortpath._msgpack import decode
    >>> try:
    ...     decode(b"\\xc1")
    ... except LayoutError as e:
    ...     print(e)
    MessagePack: expected a value at byte 0, found the marker c1 (an ext type or a reserved byte)
    """
