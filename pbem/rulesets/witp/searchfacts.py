"""The codec of the facts the search rules disclose (13.3-13.8), and the report
they share.

Each kind (a knowledge.Fact) is declared beside the rule that discloses it, in
search.py, searchplay.py, located.py, dummies.py and coastwatchers.py, naming its
fields in the stored JSON's order; searchview.py reads their fields. The report a
contact tells (``SearchReport``) is here: search.py and the strike's contact tell
it, located.py reads it.
``ToldFact`` is their codec: a field annotated ``Side`` reads back as a ``Side``,
``JSON_KEYS`` names a field whose stored key is not its name (``from`` is a keyword)
and ``UNSTORED_NONE`` the fields left out of the JSON while None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self

from pbem.core.sides import Side
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import frozen, to_plain


@dataclass(frozen=True, slots=True, eq=False)
class ToldFact(Fact):
    """A search fact's codec: the generic one, with sides read back as ``Side`` and
    the stored keys ``JSON_KEYS`` renames."""

    JSON_KEYS: ClassVar[Mapping[str, str]] = {}
    UNSTORED_NONE: ClassVar[tuple[str, ...]] = ()  # fields not stored while None

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind}
        for f in fields(self):
            v = getattr(self, f.name)
            if v is not None or f.name not in self.UNSTORED_NONE:
                out[self.JSON_KEYS.get(f.name, f.name)] = to_plain(v)
        return out

    @classmethod
    def decode(cls, obj: Mapping[str, Any]) -> Self:
        def read(name: str, kind: Any) -> Any:
            raw = frozen(obj.get(cls.JSON_KEYS.get(name, name)))
            return Side(raw) if "Side" in str(kind) and raw is not None else raw

        return cls(**{f.name: read(f.name, f.type) for f in fields(cls)})

    @classmethod
    def read(cls, fact: Mapping[str, Any]) -> Self:
        """``fact`` as this kind: the registry keeps a fact whose stored keys are not
        its fields' names (``JSON_KEYS``) as stored, and it is decoded here."""
        return fact if isinstance(fact, cls) else cls.decode(fact)


@dataclass(frozen=True, slots=True, eq=False)
class OfTf(ToldFact):
    """A fact about a side's own TF ``tf`` (its fields follow)."""

    tf: str


@dataclass(frozen=True, slots=True, eq=False)
class OfOwnersTf(ToldFact):
    """A fact about ``owner``'s TF ``tf``, told to both sides (its fields follow)."""

    owner: Side
    tf: str


@dataclass(frozen=True, slots=True, eq=False)
class SearchReport(OfOwnersTf):
    """13.5.7: the report the owner composed of its TF, told to finder and owner;
    ``source``: what made the contact (located.Source, or a strike's)."""

    KIND: ClassVar[str] = "search-report"
    report: str
    source: str
