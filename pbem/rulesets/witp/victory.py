"""The scenario's verdict (ruling R106): each side scores the enemy ships it sank by
the Ship VP Table (34.1.1), counted in sixths of a VP so that every value is whole.

The scenario booklet's victory conditions are not available, so the pack says how
the verdict is reached (``scenario.victory``, derived) and holds the table
(``tables.ship-victory-points``, rulebook); a moderator's pack may replace either.
Read from the whole state: it is given once the game is over, to everyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from pbem.core.ruleset import Outcome
from pbem.core.sides import SIDES, enemy_of
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air.ships import SUNK
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC

VICTORY = "scenario/victory"
TABLE = "tables/ship-victory-points"


def ship_sixths(table: Mapping[str, Any], ship: Mapping[str, Any]) -> int:
    """34.1.1: a ship's VP in sixths if it counts as sunk, else 0."""
    t = str(ship.get("type", ""))
    damage = int(ship.get("damage", 0))
    if t in table.get("excluded", ()):
        return 0
    sunk = damage >= SUNK or (t == "DD" and damage >= int(table.get("dd_sunk_at", SUNK)))
    if not sunk:
        return 0
    return int(table["sixths"].get(t, table["others"]))


def scores(state: Mapping[str, Any]) -> dict[str, int]:
    """Each side's VP in sixths: the enemy ships it sank."""
    table = tfs.value(state[PUBLIC], TABLE)
    out: dict[str, int] = {side: 0 for side in SIDES}
    for side in SIDES:
        for ship in state[PRIVATE][side].get(tfs.SHIPS, {}).values():
            out[enemy_of(side)] += ship_sixths(table, ship)
    return out


def _vp(sixths: int) -> str:
    f = Fraction(sixths, 6)
    whole, rest = divmod(f.numerator, f.denominator)
    if not rest:
        return str(whole)
    return f"{whole} {rest}/{f.denominator}" if whole else f"{rest}/{f.denominator}"


def sunk_ships(state: Mapping[str, Any], side: str) -> list[str]:
    """``side``'s ships sunk (or counted as sunk: 34.1.1's DD at D2), by name."""
    table = tfs.value(state[PUBLIC], TABLE)
    own = state[PRIVATE][side].get(tfs.SHIPS, {})
    return sorted(n for n, s in own.items() if ship_sixths(table, s) > 0)


def verdict(state: Mapping[str, Any]) -> Outcome:
    """R106: more VP wins; equal VP is a draw; ``decisive_margin`` VP or more, Decisive."""
    rule = tfs.value(state[PUBLIC], VICTORY)
    got = scores(state)
    a, b = SIDES
    margin = got[a] - got[b]
    lost = "; ".join(
        f"{side} lost {', '.join(sunk_ships(state, side)) or 'no ship'}" for side in SIDES
    )
    tally = ", ".join(f"{side} {_vp(got[side])} VP" for side in SIDES)
    if margin == 0:
        return Outcome(None, "Draw", f"ships sunk (34.1.1, R106): {tally}; {lost}", got)
    winner = a if margin > 0 else b
    level = "Decisive" if abs(margin) >= 6 * int(rule["decisive_margin"]) else "Marginal"
    summary = f"{winner} wins on ships sunk (34.1.1, R106): {tally}; {lost}"
    return Outcome(winner, level, summary, got)
