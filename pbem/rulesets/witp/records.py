"""The one codec between the War in the Pacific state's typed values and the stored
JSON: a frozen dataclass that inherits ``Record`` gets ``to_json``/``from_json``
derived from its fields, so each record is declared as its fields only (and each
fact kind: knowledge.Fact reads and writes its fields through ``field_json`` and
``field_values`` here).

A field is written under its own name and read back by its type: a record (or any
class with a ``from_json``) by its ``from_json``, an enum (``Side``, a StrEnum) by
its value, a ``tuple[X, ...]`` item by item, ``X | None`` as X unless null, a
mapping as a copy (its values read as X where ``Mapping[str, X]``'s X has a codec); anything else as stored, lists as tuples. ``Annotated[T,
Wire(...)]`` says where the JSON differs: another key (``Wire("from")``: a Python
keyword), written only when set (``OPTIONAL``: not its default, or not None where it
has none), or not stored at all (``DERIVED``: the record's own ``from_json`` fills it
in), or a nested record whose keys stand in place in the parent's own (``FLAT``:
written in its order where the field stands, read back into the nested value, so a
list of fields two records share is declared once). A key the stored JSON may lack
has the default ``ABSENT``, so a missing key,
None and an empty list stay three different things; any other missing key leaves
the field's default. A key the record does not declare is refused.

The keys come back in the order they were read, and ``put`` orders a changed
record's keys as a dict's own would be (a key set again after it was removed comes
last), so a state read and written back is the same text.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import (
    Annotated,
    Any,
    Self,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pbem.core.errors import DataError


class Absent(enum.Enum):
    """A stored key that is not there (not None, not empty)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT
LAYOUT = "layout"


@dataclass(frozen=True, slots=True)
class Wire:
    """How a field stands in the JSON, where it differs from its name and type."""

    key: str | None = None
    optional: bool = False  # written only when it differs from its default
    derived: bool = False  # not stored: computed by the record's own from_json
    flat: bool = False  # a nested record's keys written in place in the parent's


OPTIONAL = Wire(optional=True)
DERIVED = Wire(derived=True)
FLAT = Wire(flat=True)

Decoder = Callable[[Any], Any]


def encode(value: Any) -> Any:
    """A typed value's stored JSON: values with a codec by it, tuples as lists,
    enums by their value, mappings copied."""
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: encode(v) for k, v in value.items()}
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json is not None else value


def frozen(value: Any) -> Any:
    """Stored JSON as a typed field holds it: lists as tuples, all the way down."""
    return tuple(frozen(v) for v in value) if isinstance(value, list) else value


def _decoder(hint: Any) -> Decoder:
    """How a stored value of type ``hint`` is read."""
    origin = get_origin(hint)
    if origin is Annotated:
        return _decoder(get_args(hint)[0])
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(hint) if a not in (type(None), Absent)]
        one = _decoder(inner[0]) if len(inner) == 1 else frozen
        return lambda v: None if v is None else one(v)
    if origin is tuple and len(get_args(hint)) == 2 and get_args(hint)[1] is Ellipsis:
        item = _decoder(get_args(hint)[0])
        return lambda v: tuple(item(x) for x in v)
    if origin is Mapping or origin is dict:
        return _mapping(get_args(hint))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    from_json: Decoder | None = getattr(hint, "from_json", None) if isinstance(hint, type) else None
    return from_json if from_json is not None else frozen


def _mapping(args: tuple[Any, ...]) -> Decoder:
    """A stored mapping's reader: its values read by their type where it has a codec
    (``Mapping[str, LocatedChit]``), else copied as stored, so the value never shares
    the stored JSON's dict."""
    item = _decoder(args[1]) if len(args) == 2 else frozen
    if item is frozen:
        return dict
    return lambda v: {k: item(x) for k, x in v.items()}


def _wire(hint: Any) -> Wire:
    if get_origin(hint) is Annotated:
        return next((a for a in get_args(hint)[1:] if isinstance(a, Wire)), Wire())
    return Wire()


@dataclass(frozen=True, slots=True)
class Spec:
    """A field as the codec reads it: its stored key, wire and default (``unset``:
    the value an optional field is left out at); ``keys``: the stored keys it stands
    for (its own, or a flat record's)."""

    name: str
    key: str
    wire: Wire
    unset: Any
    decode: Decoder
    keys: tuple[str, ...]
    nested: type | None = None  # a flat field's record

    def stored(self, value: Any) -> bool:
        """Whether ``value`` of this field is written."""
        if value is ABSENT or self.wire.derived:
            return False
        return not (self.wire.optional and value == self.unset)


_SPECS: dict[type, tuple[Spec, ...]] = {}


def specs(cls: type) -> tuple[Spec, ...]:
    """The dataclass ``cls``'s fields as the codec reads them (worked out once)."""
    got = _SPECS.get(cls)
    if got is None:
        hints = get_type_hints(cls, include_extras=True)
        got = tuple(
            _spec(f.name, hints[f.name], f.default) for f in fields(cls) if f.name != LAYOUT
        )
        _SPECS[cls] = got
    return got


def _spec(name: str, hint: Any, default: Any) -> Spec:
    wire = _wire(hint)
    unset = None if default is MISSING else default
    key = wire.key or name
    if wire.flat:
        nested = get_args(hint)[0]
        return Spec(name, key, wire, unset, _decoder(hint), _flat_keys(nested), nested)
    return Spec(name, key, wire, unset, _decoder(hint), (key,))


def _flat_keys(cls: type) -> tuple[str, ...]:
    """The stored keys of the record ``cls`` embedded flat, in order."""
    return tuple(k for s in specs(cls) for k in s.keys)


def _known(cls: type) -> dict[str, Spec]:
    """``cls``'s fields by each stored key they stand for."""
    return {k: s for s in specs(cls) for k in s.keys}


def _part(s: Spec, obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """What of ``obj`` a flat field's record reads (its own keys, in ``obj``'s order)."""
    return {k: v for k, v in obj.items() if k in s.keys}


def field_json(value: Any, order: tuple[str, ...] = ()) -> dict[str, Any]:
    """The stored JSON of the dataclass ``value``'s fields: the fields named in
    ``order`` first, in that order, then the others as declared."""
    by_name = {s.name: s for s in specs(type(value))}
    names = [n for n in order if n in by_name] + [n for n in by_name if n not in order]
    out: dict[str, Any] = {}
    for name in names:
        s, v = by_name[name], getattr(value, name)
        if s.stored(v) and s.wire.flat:
            out.update(encode(v))
        elif s.stored(v):
            out[s.key] = encode(v)
    return out


def field_values(cls: type, obj: Mapping[str, Any]) -> dict[str, Any]:
    """The values of ``cls``'s fields stored in ``obj``, by field name (a key that is
    not there is left out: the field's default, if any)."""
    known = _known(cls)
    unknown = sorted(k for k in obj if k not in known and k != "kind")
    if unknown:
        raise DataError(cls.__name__, f"unknown key(s) {', '.join(unknown)}")
    out = {}
    for s in specs(cls):
        if s.wire.flat and any(k in obj for k in s.keys):
            out[s.name] = s.decode(_part(s, obj))
        elif not s.wire.flat and not s.wire.derived and s.key in obj:
            out[s.name] = s.decode(obj[s.key])
    return out


def fits(cls: type, obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` reads back into ``cls`` and writes back as itself: every key
    its own, every field without a default there, no optional one stored unset."""
    known = _known(cls)
    if any(k not in known for k in obj if k != "kind"):
        return False
    for s in specs(cls):
        if s.wire.derived:
            continue
        if s.wire.flat:
            if s.nested is not None and not fits(s.nested, _part(s, obj)):
                return False
        elif s.key not in obj:
            if not s.wire.optional:
                return False
        elif s.wire.optional and obj[s.key] == encode(s.unset):
            return False
    return True


@dataclass(frozen=True)
class Record:
    """A record of the stored JSON as a frozen value (see the module's docstring)."""

    # The stored keys' order as read; compare=False: the same record either way.
    layout: tuple[str, ...] = field(default=(), compare=False, kw_only=True, repr=False)

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(s.name for s in specs(cls))

    def to_json(self) -> dict[str, Any]:
        return field_json(self, self.layout)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        """The record stored as ``obj``."""
        return decode(cls, obj)

    def put(self, **changes: Any) -> Self:
        """This record with ``changes`` (``ABSENT`` removes a key), its keys in the
        order a dict's would be after the same assignments."""
        was = [s.name for s in specs(type(self)) if s.stored(getattr(self, s.name))]
        was = [k for k in self.layout if k in was] + [k for k in was if k not in self.layout]
        kept = [k for k in was if changes.get(k) is not ABSENT]
        new = [k for k, v in changes.items() if k not in was and v is not ABSENT]
        values = {k: getattr(self, k) for k in self.keys()} | changes
        return type(self)(**values, layout=tuple(kept + new))


R = TypeVar("R", bound=Record)


def decode(cls: type[R], obj: Mapping[str, Any]) -> R:
    """``cls`` read from ``obj`` by its fields (a record's own ``from_json`` calls it
    before filling in what it derives); the keys' order kept as read."""
    values, known = field_values(cls, obj), _known(cls)  # an unknown key refused first
    layout = dict.fromkeys(known[k].name for k in obj)  # a flat record's keys: once
    return cls(**values, layout=tuple(layout))
