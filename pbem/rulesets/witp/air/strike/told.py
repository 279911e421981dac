"""The codec of the naval strike's facts (witp-hidden-info 6): a kind is a
``knowledge.Fact`` declared by its fields in the stored JSON's order, as any other;
``StrikeFact`` adds the two things some of the strike's kinds store differently
from their fields: a key that is a Python keyword (``from``, ``class``), and a key
stored only when it is set (a wave's elite entry roll, a torpedo attack's dice)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self

from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import frozen, to_plain


@dataclass(frozen=True, slots=True, eq=False)
class StrikeFact(Fact):
    """A strike fact whose stored keys differ from its fields' names: ``KEYS`` maps
    a field to its key where they differ; a field in ``OPTIONAL`` is stored only
    when it is not None."""

    KEYS: ClassVar[Mapping[str, str]] = {}
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def _keys(cls) -> dict[str, str]:
        """Each field's stored key, by field name, in the stored order."""
        return {f.name: cls.KEYS.get(f.name, f.name) for f in fields(cls)}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name, key in self._keys().items():
            v = getattr(self, name)
            if v is not None or name not in self.OPTIONAL:
                out[key] = to_plain(v)
        return out

    @classmethod
    def decode(cls, obj: Mapping[str, Any]) -> Self:
        return cls(**{name: frozen(obj.get(key)) for name, key in cls._keys().items()})

    @classmethod
    def fits(cls, obj: Mapping[str, Any]) -> bool:
        keys = cls._keys()
        required = {key for name, key in keys.items() if name not in cls.OPTIONAL}
        return required <= set(obj) - {"kind"} <= set(keys.values())

    def __len__(self) -> int:
        return len(self.to_json())
