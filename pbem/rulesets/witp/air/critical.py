"""16.7 Critical hits after an air attack.

Each ship the strike damaged rolls once, by its owner, when it leaves the display
(16.7: once a ship however many attacks hit it): 2D6 on the Critical Hit Table; a
critical adds one damage level and the ship rolls again until a roll is no critical
or it sinks. APB/APA and merchant shipping never roll (16.7.1). The owner sees every
roll; the enemy is told a critical hit only when a doubles roll produced it (16.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbem.core.dice import Dice
from pbem.rulesets.witp.air.ships import SUNK
from pbem.rulesets.witp.air.tables import CRITICAL, Pack, value
from pbem.rulesets.witp.records import Record
from pbem.rulesets.witp.taskforces import Ship


def rolls_for(pack: Pack, ship: Ship) -> bool:
    return ship.type.upper() not in value(pack, CRITICAL)["never"]


@dataclass(frozen=True, slots=True)
class CriticalRoll(Record):
    """16.7: one critical-hit roll: its 2D6, whether it is a critical hit, whether a
    doubles, and the ship's damage level after it."""

    dice: tuple[int, int]
    critical: bool
    doubles: bool
    damage: int


def roll(pack: Pack, ship: Ship, dice: Dice, purpose: str) -> list[CriticalRoll]:
    """The ship's critical-hit rolls, in order, each with its damage after it (the
    last: the ship's damage once they are rolled)."""
    need = int(value(pack, CRITICAL)["at_least"])
    out: list[CriticalRoll] = []
    damage = ship.damage
    while damage < SUNK:
        a, b = dice.d6(purpose), dice.d6(purpose)
        crit = a + b >= need
        if crit:
            damage = min(SUNK, damage + 1)
        out.append(CriticalRoll((a, b), crit, a == b, damage))
        if not crit:
            break
    return out


def told_to_enemy(rolls: Sequence[CriticalRoll]) -> list[CriticalRoll]:
    """16.7: only the critical hits a doubles roll produced."""
    return [r for r in rolls if r.critical and r.doubles]
