"""One JSON codec for the typed records of the War in the Pacific state: a frozen
dataclass that inherits ``JsonRecord`` gets ``to_json``/``from_json`` derived from
its fields, so each record is declared as its fields only.

A field is written under its own name, in the order declared, and read back by its
type: a record by its ``from_json``, an enum (``Side``, a StrEnum) by its value, a
``tuple[X, ...]`` item by item, ``X | None`` as X unless null; anything else as
stored. ``Annotated[T, Wire(...)]`` says where the JSON differs: another key
(``Wire("return")``), written only when set (``OPTIONAL``: not its default), or not
stored at all (``DERIVED``: the record's own ``from_json`` fills it in). A key
missing from the stored JSON leaves the field's default.

``FactKind``: a knowledge.Fact kind declared as its fields only.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import (
    Annotated,
    Any,
    ClassVar,
    Self,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

from pbem.rulesets.witp.knowledge import Fact


@dataclass(frozen=True, slots=True)
class Wire:
    """How a field stands in the JSON, where it differs from its name and type."""

    key: str | None = None
    optional: bool = False  # written only when it differs from the default
    derived: bool = False  # not stored: computed by the record's own from_json


OPTIONAL = Wire(optional=True)
DERIVED = Wire(derived=True)

Decoder = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class _Spec:
    name: str
    key: str
    wire: Wire
    default: Any
    decode: Decoder


def _plain(v: Any) -> Any:
    return v


def _decoder(hint: Any) -> Decoder:
    """How a stored value of type ``hint`` is read."""
    origin = get_origin(hint)
    if origin is Annotated:
        return _decoder(get_args(hint)[0])
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(hint) if a is not type(None)]
        one = _decoder(inner[0]) if len(inner) == 1 else _plain
        return lambda v: None if v is None else one(v)
    if origin is tuple:
        item = _decoder(get_args(hint)[0])
        return lambda v: tuple(item(x) for x in v)
    if isinstance(hint, type) and issubclass(hint, JsonRecord):
        return hint.from_json
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if origin is Mapping or origin is dict:
        return dict  # a copy: the value never shares the stored JSON's dict
    return _plain


def _wire(hint: Any) -> Wire:
    if get_origin(hint) is Annotated:
        return next((a for a in get_args(hint)[1:] if isinstance(a, Wire)), Wire())
    return Wire()


_SPECS: dict[type, tuple[_Spec, ...]] = {}


def _specs(cls: type) -> tuple[_Spec, ...]:
    """The class's fields as the codec reads them (worked out once a class)."""
    got = _SPECS.get(cls)
    if got is None:
        hints = get_type_hints(cls, include_extras=True)
        got = tuple(
            _Spec(
                f.name,
                _wire(hints[f.name]).key or f.name,
                _wire(hints[f.name]),
                f.default,
                _decoder(hints[f.name]),
            )
            for f in fields(cls)
        )
        _SPECS[cls] = got
    return got


def encode(value: Any) -> Any:
    """A typed value's stored JSON: records by their codec, tuples as lists, enums
    by their value; anything else as it is."""
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json is not None else value


class JsonRecord:
    """A frozen dataclass's one codec, derived from its fields (the module's doc)."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for s in _specs(type(self)):
            v = getattr(self, s.name)
            if s.wire.derived or (s.wire.optional and v == s.default):
                continue
            out[s.key] = encode(v)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        """The record stored as ``obj``."""
        return decode(cls, obj)


R = TypeVar("R", bound=JsonRecord)


def decode(cls: type[R], obj: Mapping[str, Any]) -> R:
    """``cls`` read from ``obj`` by its fields (a record's own ``from_json`` calls it
    before filling in what it derives)."""
    stored = {
        s.name: s.decode(obj[s.key]) for s in _specs(cls) if not s.wire.derived and s.key in obj
    }
    return cls(**stored)


@dataclass_transform(frozen_default=True, eq_default=False)
class FactKind(Fact):
    """A fact kind declared as its fields only: ``class TfSunk(FactKind, kind="tf-sunk")``
    makes it a frozen dataclass (``eq=False``: the fact's equality is its JSON's) and
    registers ``kind`` (knowledge.Fact's registry); ``sparse``: the fields told only
    when known, left out of its JSON while None (a stored one without them reads back
    as a raw fact, the same JSON)."""

    __slots__ = ()
    SPARSE: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, kind: str = "", sparse: tuple[str, ...] = (), **kw: Any) -> None:
        cls.KIND, cls.SPARSE = kind, frozenset(sparse) | cls.SPARSE
        dataclass(frozen=True, eq=False)(cls)
        Fact.__init_subclass__.__func__(cls)  # type: ignore[attr-defined]  # the registry

    def to_json(self) -> dict[str, Any]:
        told = Fact.to_json(self)
        return {k: v for k, v in told.items() if v is not None or k not in self.SPARSE}

    def __len__(self) -> int:
        return len(self.to_json())
