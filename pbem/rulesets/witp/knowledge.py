"""The knowledge model: what each side may know, kept apart from the truth.

A state holds four parts:

- ``public``: what both sides see (the clock, the shared map's markers, the game's
  charts and rulings, open rolls);
- ``private``: each side's own displays, logs and plots, by side (sidepart.SidePart);
- ``disclosures``: every fact the rules let cross to a side, recorded as
  ``(fact, audience, game time, rule)``;
- ``moderator``: the truth no side sees (secret rolls, chit cups, the dice ledger).

A side's ``projection`` is its public part, its own private part and the
disclosures addressed to it; views, order answers and order forms are computed
from a ``Knowledge`` (known.py: the projection read typed) built from it alone, so two states with equal
projections give a side equal mail (noninterference), by construction. Every
disclosure is made by ``disclose``, which records it and returns the one Event
that tells its audience.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, dataclass_transform

from pbem.core.errors import AdjudicationError
from pbem.core.events import Event
from pbem.core.sides import SIDES, Side
from pbem.rulesets.witp.records import field_json, field_values, fits, specs

PUBLIC, PRIVATE, DISCLOSURES, MODERATOR = "public", "private", "disclosures", "moderator"
EVERYONE: tuple[Side, ...] = SIDES


@dataclass_transform(frozen_default=True, eq_default=False)
class Fact:
    """A fact the rules let cross to a side a ``kind`` and its
    fields. A kind is declared by its fields alone, in the module whose rule discloses
    it and in the stored JSON's order (a base without a kind: fields its kinds share)::

        class TurnEnded(Fact, kind="turn-ended"):
            turn: int

    The class becomes a frozen dataclass and registers its kind; its JSON comes from
    the fields by the one codec (records.py: ``Annotated[T, Wire("from")]`` for a key
    that is a keyword, ``OPTIONAL`` for one told only when known). A rule reads a
    fact by its fields (``Kind.read``: one stored raw, too); equality is the stored
    JSON's (``eq=False``), so a typed fact equals one kept raw with the same JSON."""

    KIND: ClassVar[str] = ""
    _KINDS: ClassVar[dict[str, type[Fact]]] = {}

    def __init_subclass__(cls, kind: str = "", **kw: Any) -> None:
        # No super(): a slots dataclass is rebuilt, and its methods' super() cell
        # names the class before the rebuild; no base here takes part anyway.
        if kind:
            cls.KIND = kind
        # In place (no slots): the class the module names is the one registered.
        dataclass(frozen=True, eq=False)(cls)
        if kind:
            other = Fact._KINDS.get(kind)
            if other is not None and other.__qualname__ != cls.__qualname__:
                # One kind, one class: two would read the same stored fact two ways.
                raise TypeError(f"fact kind {kind!r} is {other.__module__}.{other.__name__}'s")
            Fact._KINDS[kind] = cls

    @property
    def kind(self) -> str:
        return self.KIND

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **field_json(self)}

    @classmethod
    def decode(cls, obj: Mapping[str, Any]) -> Self:
        """The typed fact from its stored JSON (a field it lacks: its default, or None)."""
        told = field_values(cls, obj)
        unset = {s.name: s.unset for s in specs(cls) if s.name not in told}
        return cls(**told, **unset)

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Fact:
        """The fact stored as ``obj``: typed if its kind is, else kept as stored. A fact
        whose keys are not its kind's (a record older than the kind's type) stays raw,
        so every stored fact reads back to the same JSON."""
        kind = Fact._KINDS.get(str(obj.get("kind")))
        if kind is None or not fits(kind, obj):
            return RawFact(obj)
        return kind.decode(obj)

    @classmethod
    def read(cls, fact: Fact) -> Self:
        """``fact`` as this kind (one stored raw, its keys not all its kind's, too)."""
        return fact if isinstance(fact, cls) else cls.decode(fact.to_json())

    def __eq__(self, other: object) -> bool:
        # Equal when told the same: a typed fact and one kept raw with its JSON alike.
        return isinstance(other, Fact) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


class RawFact(Fact):
    """A fact of a kind not typed yet, as stored (the kinds of the naval, search and air
    rules this round: their modules type them as they join the typed state)."""

    data: Mapping[str, Any]

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    def to_json(self) -> dict[str, Any]:
        return dict(self.data)


@dataclass(frozen=True, slots=True)
class Disclosure:
    """A fact told to its audience at a game time by a rule."""

    fact: Fact
    audience: tuple[Side, ...]  # the sides told; EVERYONE: an open announcement
    time: str  # game time, e.g. "T1/air1/strike" (clock.Slot.time)
    rule: str  # the rule that discloses it, e.g. "3.2"

    def to_json(self) -> dict[str, Any]:
        return {
            "fact": self.fact.to_json(),
            "audience": [str(s) for s in self.audience],
            "time": self.time,
            "rule": self.rule,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Disclosure:
        audience = tuple(Side(s) for s in obj["audience"])
        return cls(Fact.from_json(obj["fact"]), audience, obj["time"], obj["rule"])

    def event(self) -> Event:
        public = set(self.audience) == set(EVERYONE)
        data = {**self.fact.to_json(), "time": self.time}
        return Event(self.fact.kind, data, None if public else self.audience, self.rule)


class Journal(Protocol):
    """Where the disclosures are recorded, in the order told: the round's work area
    (work.Work), which keeps them in its working copy."""

    def record(self, told: Disclosure) -> None: ...


def disclose(
    journal: Journal,
    fact: Fact,
    audience: Sequence[str],
    time: str,
    rule: str,
) -> Event:
    """Record ``fact`` as told to ``audience`` in ``journal`` (Work.disclose) and
    return the Event that tells it."""
    unknown = [s for s in audience if s not in SIDES]
    if not audience or unknown or not fact.kind:
        raise AdjudicationError(f"bad disclosure {fact!r} to {audience!r}")
    d = Disclosure(fact, tuple(s for s in SIDES if s in audience), time, rule)
    journal.record(d)
    return d.event()


def projection(state: Mapping[str, Any], side: str | None) -> dict[str, Any]:
    """What ``side`` may know of ``state``, as JSON; None: the whole truth."""
    if side is None:
        return dict(state)
    return {
        "side": side,
        PUBLIC: state.get(PUBLIC, {}),
        PRIVATE: state.get(PRIVATE, {}).get(side, {}),
        DISCLOSURES: [d for d in state.get(DISCLOSURES, ()) if side in d["audience"]],
    }


def indistinguishable(a: Mapping[str, Any], b: Mapping[str, Any], side: str) -> bool:
    """True when ``side`` cannot tell ``a`` from ``b``: then every answer it gets
    must be the same in both (the property tests' premise)."""
    return projection(a, side) == projection(b, side)
