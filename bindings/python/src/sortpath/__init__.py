"""Key paths: typed, hierarchical keys whose byte order is their logical order,
byte-exact with the sortpath Rust crate (docs/FORMAT.md).

>>> import uuid
>>> from sortpath import KeyPath
>>> path = KeyPath.parse("/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234")
>>> path.push("comment", 1678901234) == KeyPath([
...     ("user", uuid.UUID("4c9d36e5-6b19-4e6a-828c-226ed667458a")),
...     ("post", 1234),
...     ("comment", 1678901234),
... ])
True
"""

from ._binary import Id
from ._errors import KeyPathError
from ._path import Component, IdLike, KeyPath
from ._range import Bound, Excluded, Included, KeyRange

__all__ = [
    "KeyPath",
    "KeyRange",
    "KeyPathError",
    "Component",
    "Id",
    "IdLike",
    "Included",
    "Excluded",
    "Bound",
]

__version__ = "0.1.0"
