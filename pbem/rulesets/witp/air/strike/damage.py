"""16.7 critical hits, rolled by the owner as each damaged ship leaves the display
(the moderator's stream): every roll told to the owner, a critical hit on doubles
to the striker too (R100)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.core.events import Event
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air import critical
from pbem.rulesets.witp.air.ships import SUNK, set_damage
from pbem.rulesets.witp.air.strike.placement import Display
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.knowledge import Fact


class CriticalHitRolls(Fact, kind="critical-hit-rolls"):
    """16.7: every critical-hit roll for a damaged ship and its damage after the
    strike (the owner's)."""

    tf: str
    ship: str
    rolls: tuple[critical.CriticalRoll, ...]
    damage: int


class CriticalHit(Fact, kind="critical-hit"):
    """16.7, R100: a critical hit rolled on doubles, told to the striker: its dice."""

    tf: str
    ship: str
    dice: tuple[int, int]


def critical_hits(r: Resolution, board: Display, damaged: Mapping[str, int]) -> list[Event]:
    """16.7 for each ship ``damaged`` (by name: its damage before the strike) and
    still afloat, in name order; the events told. Each ship's damage after its
    rolls is written back to the owner's record."""
    pack, tf_id, time = r.work.pack, r.strike.tf, r.context.time
    told: list[Event] = []
    for name in sorted(damaged):
        ship = board.ships[name]
        if ship.damage >= SUNK or not critical.rolls_for(pack, ship):
            continue
        stream = draws.fork(r.context.secret, f"critical {time} {tf_id} {name}")
        rolls = critical.roll(pack, ship, stream, f"critical {name}")
        after = rolls[-1].damage if rolls else ship.damage
        if after != ship.damage:
            set_damage(r.work, r.strike.owner, r.strike.tf, name, after)
        fact = CriticalHitRolls(tf_id, name, tuple(rolls), after)
        told.append(r.tell(fact, [r.strike.owner], "16.7"))
        for crit in critical.told_to_enemy(rolls):
            hit = CriticalHit(tf_id, name, crit.dice)
            told.append(r.tell(hit, [r.strike.side], "16.7"))
    return told
