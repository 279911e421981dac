"""9.0 The Air Point Availability Table: the percentage of each AP type of a Cover
CAP, Naval Cover or a Joint Strike's following base that is over the target.

The column is the distance in MP (tables.apat-columns, derived from 9.0's example),
shifted right by the mission's shift (5.3.4 plotted Naval Cover 2R, 5.3.5
emergency Cover 2R and emergency Naval Cover 4R); a shift past the last column is
a -1 DRM each (9.0). 2D6 a type, fractions to the nearest, .5 up (9.0).
"""

from __future__ import annotations

from pbem.core.dice import Dice
from pbem.rulesets.witp.air.tables import APAT, APAT_COLUMNS, Pack, band, rounded, value


def percent(pack: Pack, mp: int, mission: str, roll: int, drm: int = 0) -> int:
    """The APAT percentage for 2D6 ``roll`` at ``mp`` for ``mission`` (a key of
    the table's shifts: plotted-cover, plotted-naval-cover, emergency-cover,
    emergency-naval-cover, joint-following)."""
    t = value(pack, APAT)
    cols = value(pack, APAT_COLUMNS)
    col = band(cols, mp) + int(t["shifts"][mission])
    last = len(cols) - 1
    beyond = max(0, col - last)
    r = min(12, max(2, roll + drm - beyond))
    return int(t["rows"][str(r)][min(col, last)])


def available(
    pack: Pack, n: int, mp: int, mission: str, dice: Dice, purpose: str, drm: int = 0
) -> tuple[int, int, int]:
    """(available APs, the 2D6 roll, the percentage) for ``n`` APs of one type."""
    roll = dice.d6(purpose) + dice.d6(purpose)
    pct = percent(pack, mp, mission, roll, drm)
    return min(n, rounded(n * pct / 100)), roll, pct
