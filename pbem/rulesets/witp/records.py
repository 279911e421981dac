"""One codec between typed values and the stored JSON, for the facts (knowledge.Fact)
and the small records the rules keep in a state (a side's intelligence holdings,
the moderator's logs).

A record is a frozen dataclass whose fields are its stored keys, in the JSON's
order; ``to_json`` and ``from_json`` are derived from the fields. A key the stored
JSON may lack has the default ``ABSENT``, so a missing key, None and an empty list
stay three different things. A field whose JSON is not plain (a typed value inside)
names its decoder in ``DECODE``; nothing else is written per record. The keys come
back in the order they were read, and ``put`` orders a changed record's keys as a
dict's own would be (a key set again after it was removed comes last), so a state
read and written back is the same text.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self

from pbem.core.errors import DataError


def to_plain(value: Any) -> Any:
    """A typed value's stored JSON: tuples as lists, mappings copied, values with a
    codec by it."""
    if isinstance(value, tuple | list):
        return [to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: to_plain(v) for k, v in value.items()}
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json is not None else value


def frozen(value: Any) -> Any:
    """Stored JSON as a typed field holds it: lists as tuples, all the way down."""
    return tuple(frozen(v) for v in value) if isinstance(value, list) else value


class Absent(enum.Enum):
    """A stored key that is not there (not None, not empty)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT
LAYOUT = "layout"


@dataclass(frozen=True)
class Record:
    """A record of the stored JSON as a frozen value (see the module's docstring)."""

    DECODE: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}
    # The stored keys' order as read; compare=False: the same record either way.
    layout: tuple[str, ...] = field(default=(), compare=False, kw_only=True, repr=False)

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls) if f.name != LAYOUT)

    def _present(self) -> list[str]:
        here = [k for k in self.keys() if getattr(self, k) is not ABSENT]
        return [k for k in self.layout if k in here] + [k for k in here if k not in self.layout]

    def to_json(self) -> dict[str, Any]:
        return {k: to_plain(getattr(self, k)) for k in self._present()}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        unknown = sorted(set(obj) - set(cls.keys()))
        if unknown:
            raise DataError(cls.__name__, f"unknown key(s) {', '.join(unknown)}")
        values = {k: cls.DECODE.get(k, frozen)(v) for k, v in obj.items()}
        return cls(**values, layout=tuple(obj))

    def put(self, **changes: Any) -> Self:
        """This record with ``changes`` (``ABSENT`` removes a key), its keys in the
        order a dict's would be after the same assignments."""
        was = self._present()
        kept = [k for k in was if changes.get(k) is not ABSENT]
        new = [k for k, v in changes.items() if k not in was and v is not ABSENT]
        values = {k: getattr(self, k) for k in self.keys()} | changes
        return type(self)(**values, layout=tuple(kept + new))
