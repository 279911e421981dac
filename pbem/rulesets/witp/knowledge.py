"""The knowledge model: what each side may know, kept apart from the truth.

A state holds four parts:

- ``public``: what both sides see (the clock, the shared map's markers, the game's
  charts and rulings, open rolls);
- ``private``: each side's own displays, logs and plots, by side;
- ``disclosures``: every fact the rules let cross to a side, recorded as
  ``(fact, audience, game time, rule)`` (witp-hidden-info §6-8);
- ``moderator``: the truth no side sees (secret rolls, chit cups, the dice ledger).

A side's ``projection`` is its public part, its own private part and the
disclosures addressed to it; views, order answers and order forms are computed
from a ``Knowledge`` built from the projection alone, so two states with equal
projections give a side equal mail (noninterference), by construction. Every
disclosure is made by ``disclose``, which records it and returns the one Event
that tells its audience.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.core.errors import AdjudicationError
from pbem.core.events import Event
from pbem.core.sides import SIDES

PUBLIC, PRIVATE, DISCLOSURES, MODERATOR = "public", "private", "disclosures", "moderator"
EVERYONE: tuple[str, ...] = SIDES


@dataclass(frozen=True, slots=True)
class Disclosure:
    fact: Mapping[str, Any]  # JSON; ``fact["kind"]`` names it ("initiative", ...)
    audience: tuple[str, ...]  # the sides told; EVERYONE: an open announcement
    time: str  # game time, e.g. "T1/air1/strike" (clock.Slot.time)
    rule: str  # the rule that discloses it, e.g. "3.2"

    def to_json(self) -> dict[str, Any]:
        return {
            "fact": dict(self.fact),
            "audience": list(self.audience),
            "time": self.time,
            "rule": self.rule,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Disclosure:
        return cls(obj["fact"], tuple(obj["audience"]), obj["time"], obj["rule"])

    def event(self) -> Event:
        public = set(self.audience) == set(EVERYONE)
        data = {**self.fact, "time": self.time}
        return Event(str(self.fact["kind"]), data, None if public else self.audience, self.rule)


def disclose(
    state: dict[str, Any],
    fact: Mapping[str, Any],
    audience: Sequence[str],
    time: str,
    rule: str,
) -> Event:
    """Record ``fact`` as told to ``audience`` in ``state`` (a working copy the
    adjudication owns) and return the Event that tells it."""
    unknown = [s for s in audience if s not in SIDES]
    if not audience or unknown or "kind" not in fact:
        raise AdjudicationError(f"bad disclosure {fact!r} to {audience!r}")
    d = Disclosure(dict(fact), tuple(s for s in SIDES if s in audience), time, rule)
    state.setdefault(DISCLOSURES, []).append(d.to_json())
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


@dataclass(frozen=True, slots=True)
class Knowledge:
    """A side's knowledge (``side`` None: the moderator's, which is everything).
    Rules that answer a side read only this."""

    side: str | None
    public: Mapping[str, Any]
    private: Mapping[str, Mapping[str, Any]]  # own part only, unless omniscient
    disclosed: tuple[Disclosure, ...]

    @classmethod
    def of(cls, state: Mapping[str, Any], side: str | None) -> Knowledge:
        p = projection(state, side)
        private = dict(p.get(PRIVATE, {})) if side is None else {side: p[PRIVATE]}
        return cls(
            side,
            p.get(PUBLIC, {}),
            private,
            tuple(Disclosure.from_json(d) for d in p.get(DISCLOSURES, ())),
        )

    def own(self, side: str) -> Mapping[str, Any]:
        """``side``'s private part, if this knowledge holds it."""
        return self.private.get(side, {})
