"""5.15 Extreme-range strikes: the return roll.

APs that struck beyond their maximum range (the printed extended range, or the
normal one where no extended range applies) roll on return, 2D6 per returning AP
type, on the Bombardment of Air Points Table's "X+n" column (n: the MP flown beyond
that maximum, 1-6); the result is the percentage of the returning APs lost,
rounded to the nearest whole AP (.5 up). Only the APs that return are counted:
those eliminated in the strike, and those lost to 6.3.3's doubling, are not.

The losses are operational: the enemy is not told them, so the roll comes from the
moderator's stream and is told to the striker alone (R130).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.sides import Side
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air.flying import LaunchedPart, of_type
from pbem.rulesets.witp.air.ships import lose
from pbem.rulesets.witp.air.tables import Pack, air_unit, rounded, value
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.work import Work

EXTREME_RETURN = "tables/bombardment-of-air-points-extreme"
EXTREME = "extreme"  # 5.15: an element's range beyond its maximum


def beyond(pack: Pack, ap_type: str, mp: int) -> int:
    """The MP flown past the type's maximum strike range (0: within it)."""
    return max(0, mp - air_unit(pack, ap_type).range.farthest)


def column(pack: Pack, ap_type: str, parts: Sequence[LaunchedPart]) -> int:
    """The X+n column for ``ap_type`` (0: none flew at extreme range); a type flying
    from several parts rolls once, on its farthest part's column (R130, pbem's)."""
    flew = [
        beyond(pack, ap_type, p.mp)
        for p in parts
        if any(e.type == ap_type and e.range == EXTREME for e in p.flying)
    ]
    return min(6, max(flew, default=0))


def percent(pack: Pack, x: int, roll: int) -> int:
    """The table's percentage for column X+``x`` and a 2D6 ``roll``."""
    t = value(pack, EXTREME_RETURN)
    return int(t[f"X+{x}"][min(12, max(2, roll)) - 2])


class ExtremeRangeLosses(Fact, kind="extreme-range-losses"):
    """5.15: one type's 2D6 on return from extreme range, the striker's own: of
    ``returning`` APs, ``lost`` do not come back."""

    type: str
    column: str  # "X+1" ..
    roll: int
    percent: int
    returning: int
    lost: int


def return_roll(pack: Pack, ap_type: str, x: int, returning: int, dice: Dice) -> ExtremeRangeLosses:
    """One type's 2D6 on return."""
    roll = dice.d6(f"extreme range {ap_type}") + dice.d6(f"extreme range {ap_type}")
    pct = percent(pack, x, roll)
    lost = min(returning, rounded(returning * pct / 100))
    return ExtremeRangeLosses(ap_type, f"X+{x}", roll, pct, returning, lost)


def losses(
    work: Work,
    side: Side,
    tf: str,
    parts: Sequence[LaunchedPart],
    gone: Mapping[str, int],
    secret: Dice,
    time: str,
) -> list[Event]:
    """5.15: each type ``side``'s strike on ``tf`` flew at extreme range rolls on
    return; ``gone``: its APs that did not return (eliminated, and doubled by 6.3.3).
    The losses leave the parts' bases in order; the striker alone is told."""
    pack = work.pack
    where = " ".join(p.base for p in parts)
    events: list[Event] = []
    for t in sorted({e.type for p in parts for e in p.flying}):
        x = column(pack, t, parts)
        returning = max(0, sum(of_type(p.flying, t) for p in parts) - int(gone.get(t, 0)))
        if x < 1 or returning < 1:
            continue
        dice = draws.fork(secret, f"extreme range {time} {tf} {where} {t}")
        fact = return_roll(pack, t, x, returning, dice)
        left = fact.lost
        for p in parts:
            left -= lose(work, side, p.base, t, min(left, of_type(p.flying, t)))
        events.append(work.disclose(fact, [side], time, "5.15"))
    return events
