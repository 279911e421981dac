"""16.7 Critical hits after an air attack.

Each ship the strike damaged rolls once, by its owner, when it leaves the display
(16.7: once a ship however many attacks hit it): 2D6 on the Critical Hit Table; a
critical adds one damage level and the ship rolls again until a roll is no critical
or it sinks. APB/APA and merchant shipping never roll (16.7.1). The owner sees every
roll; the enemy is told a critical hit only when a doubles roll produced it (16.7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.dice import Dice
from pbem.rulesets.witp.air.ships import SUNK
from pbem.rulesets.witp.air.tables import CRITICAL, Pack, value


def rolls_for(pack: Pack, ship: Mapping[str, Any]) -> bool:
    return str(ship["type"]).upper() not in value(pack, CRITICAL)["never"]


def roll(pack: Pack, ship: dict[str, Any], dice: Dice, purpose: str) -> list[dict[str, Any]]:
    """The ship's critical-hit rolls, in order: {dice, critical, doubles, damage};
    its damage is raised as they say."""
    need = int(value(pack, CRITICAL)["at_least"])
    out: list[dict[str, Any]] = []
    while int(ship.get("damage", 0)) < SUNK:
        a, b = dice.d6(purpose), dice.d6(purpose)
        crit = a + b >= need
        if crit:
            ship["damage"] = min(SUNK, int(ship.get("damage", 0)) + 1)
        out.append(
            {"dice": [a, b], "critical": crit, "doubles": a == b, "damage": int(ship["damage"])}
        )
        if not crit:
            break
    return out


def told_to_enemy(rolls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """16.7: only the critical hits a doubles roll produced."""
    return [r for r in rolls if r["critical"] and r["doubles"]]
