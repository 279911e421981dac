"""The scenario's verdict (ruling R106): each side scores the enemy ships it sank by
the Ship VP Table (34.1.1), counted in sixths of a VP so that every value is whole.

The scenario booklet's victory conditions are not available, so the pack says how
the verdict is reached (``scenario.victory``, derived) and holds the table
(``tables.ship-victory-points``, rulebook); a moderator's pack may replace either.
Read from the whole state (state.WitpState): it is given once the game is over, to everyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pbem.core.ruleset import Outcome
from pbem.core.sides import SIDES, Side, enemy_of
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air.ships import SUNK
from pbem.rulesets.witp.state import WitpState

VICTORY = "scenario/victory"
TABLE = "tables/ship-victory-points"


@dataclass(frozen=True, slots=True)
class ShipVictoryPoints:
    """34.1.1 the Ship VP Table, in sixths of a VP (R106): by type, for any other
    type, the types that score nothing, and the damage at which a DD counts as sunk."""

    sixths: Mapping[str, int]
    others: int
    excluded: tuple[str, ...] = ()
    dd_sunk_at: int = SUNK

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ShipVictoryPoints:
        excluded = tuple(str(t) for t in obj.get("excluded", ()))
        sixths = {str(t): int(n) for t, n in obj["sixths"].items()}
        return cls(sixths, int(obj["others"]), excluded, int(obj.get("dd_sunk_at", SUNK)))

    def of_ship(self, ship: tfs.Ship) -> int:
        """A ship's VP in sixths if it counts as sunk, else 0."""
        t, damage = ship.type, ship.damage
        if t in self.excluded:
            return 0
        if damage < SUNK and not (t == "DD" and damage >= self.dd_sunk_at):
            return 0
        return self.sixths.get(t, self.others)


def _table(state: WitpState) -> ShipVictoryPoints:
    return ShipVictoryPoints.from_json(tfs.value(state.public.pack, TABLE))


def _ships(state: WitpState, side: Side) -> dict[str, tfs.Ship]:
    return dict(state.private[side].ship_records())


def scores(state: WitpState) -> dict[str, int]:
    """Each side's VP in sixths: the enemy ships it sank."""
    table = _table(state)
    out: dict[str, int] = {side: 0 for side in SIDES}
    for side in SIDES:
        for ship in _ships(state, side).values():
            out[enemy_of(side)] += table.of_ship(ship)
    return out


def _vp(sixths: int) -> str:
    f = Fraction(sixths, 6)
    whole, rest = divmod(f.numerator, f.denominator)
    if not rest:
        return str(whole)
    return f"{whole} {rest}/{f.denominator}" if whole else f"{rest}/{f.denominator}"


def sunk_ships(state: WitpState, side: Side) -> list[str]:
    """``side``'s ships sunk (or counted as sunk: 34.1.1's DD at D2), by name."""
    table = _table(state)
    return sorted(n for n, s in _ships(state, side).items() if table.of_ship(s) > 0)


def verdict(state: WitpState) -> Outcome:
    """R106: more VP wins; equal VP is a draw; ``decisive_margin`` VP or more, Decisive."""
    decisive_margin = int(tfs.value(state.public.pack, VICTORY)["decisive_margin"])
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
    level = "Decisive" if abs(margin) >= 6 * decisive_margin else "Marginal"
    summary = f"{winner} wins on ships sunk (34.1.1, R106): {tally}; {lost}"
    return Outcome(winner, level, summary, got)
