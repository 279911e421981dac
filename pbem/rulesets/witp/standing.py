"""A side's standing orders, kept in its private part (``private[side]["standing"]``)
until it files others: its SEARCH lines (13.3.1, ruling R50), its deception
policies by TF (13.5.7, R10), the coastwatchers' delay (13.8), the air doctrine it
chose (R92), its standing special strikes (5.8, R105) and its order for revealing
dummies (42.9). One record of the one codec (records.py), a key of the side's
private part (sidepart.SidePart, which sits above it), read and written on the
round's work area by standingplay.py (``standing``, ``put``) and from a side's Knowledge
(known.Knowledge.standing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.rulesets.witp.air.strikes import SpecialOrder
from pbem.rulesets.witp.records import ABSENT, Absent, Record

ALL = "*"  # a deception policy for every TF (deception.py)


@dataclass(frozen=True, slots=True)
class Policy:
    """A standing deception policy (13.5.7, R10): for TF ``tf`` (``ALL``: every TF), a
    goal by ship class (UNDERSTATE/OVERSTATE), fixed reports by chit, and the mode
    (``random``, the default generator, or ``true``); ``line``: the order as filed."""

    tf: str = ALL
    goals: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, str] = field(default_factory=dict)
    mode: str = "random"
    line: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"tf": self.tf, "goals": dict(self.goals), "fixed": dict(self.fixed)}
        out = {**out, "mode": self.mode}
        return out if self.line is None else {**out, "line": self.line}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Policy:
        return cls(
            raw.get("tf", ALL),
            dict(raw.get("goals", {})),
            dict(raw.get("fixed", {})),
            raw.get("mode", "random"),
            raw.get("line"),
        )


@dataclass(frozen=True)
class Standing(Record):
    """The standing orders in force (each key kept once its rule first files one)."""

    search: tuple[str, ...] | Absent = ABSENT  # 13.3.1, R50: the SEARCH lines
    deception: Mapping[str, Policy] | Absent = ABSENT  # 13.5.7, R10: by TF (or ALL)
    coastwatcher_delay: int | Absent | None = ABSENT  # 13.8: hexes; None: END
    # R92: the side's choices over the pack's, by the doctrine's keys (air/strike/plotted)
    air_doctrine: Mapping[str, str | bool] | Absent = ABSENT
    special: tuple[SpecialOrder, ...] | Absent = ABSENT  # 5.8, R105 (air/special.py)
    reveal_dummy_order: tuple[str, ...] | Absent = ABSENT  # 42.9: the TFs, in order

    def searches(self) -> tuple[str, ...]:
        return () if self.search is ABSENT else self.search

    def policies(self) -> Mapping[str, Policy]:
        return {} if self.deception is ABSENT else self.deception

    def specials(self) -> tuple[SpecialOrder, ...]:
        return () if self.special is ABSENT else self.special
