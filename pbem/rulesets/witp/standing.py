"""A side's standing orders, kept in its private part (``private[side]["standing"]``)
until it files others: its SEARCH lines (13.3.1, ruling R50), its deception
policies by TF (13.5.7, R10), the coastwatchers' delay (13.8), the air doctrine it
chose (R92), its standing special strikes (5.8, R105) and its order for revealing
dummies (42.9). One record of the one codec (records.py), read and written here
alone on the round's work area (``standing``, ``put``) and read from a side's
Knowledge through ``of``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core.sides import Side
from pbem.rulesets.witp.air.strikes import SpecialOrder
from pbem.rulesets.witp.deception import Policy
from pbem.rulesets.witp.records import ABSENT, Absent, Record
from pbem.rulesets.witp.work import Work

KEY = "standing"


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


def of(own: Mapping[str, Any]) -> Standing:
    """The standing orders in a side's private part as stored (none: every key absent)."""
    return Standing.from_json(own.get(KEY, {}))


def standing(work: Work, side: Side) -> Standing:
    """``side``'s standing orders in the round's working copy."""
    return of(work.own(side))


def put(work: Work, side: Side, orders: Standing) -> None:
    """Keep ``orders`` as ``side``'s standing orders."""
    work.own(side)[KEY] = orders.to_json()
