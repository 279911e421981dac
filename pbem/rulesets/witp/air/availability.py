"""9.0 The Air Point Availability Table: the percentage of each AP type of a Cover
CAP, Naval Cover or a Joint Strike's following base that is over the target.

The column is the distance in MP (tables.apat-columns, derived from 9.0's example),
shifted right by the mission's shift (5.3.4 plotted Naval Cover 2R, 5.3.5
emergency Cover 2R and emergency Naval Cover 4R); a shift past the last column is
a -1 DRM each (9.0). 2D6 a type, fractions to the nearest, .5 up (9.0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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


def naval_cover(
    pack: Pack,
    covers: Sequence[Mapping[str, Any]],
    tf: str,
    dice: Dice,
    *,
    emergency: Sequence[Mapping[str, Any]] = (),
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """9.2: the Naval Cover over ``tf`` that arrives: plotted covers (strikeplot.AirPlot's,
    ``kind`` "naval-cover", 2R) and emergency ones ({type, n, mp}, 4R, 5.3.5), each
    type rolled once. Returns (cover {type, n}, the owner's rolls)."""
    out: list[dict[str, Any]] = []
    rolls: list[dict[str, Any]] = []
    flights = [
        (c, "plotted-naval-cover")
        for c in covers
        if c.get("kind") == "naval-cover" and c.get("over") == tf
    ]
    flights += [(c, "emergency-naval-cover") for c in emergency]
    for c, mission in flights:
        n, roll, pct = available(
            pack, int(c["n"]), int(c["mp"]), mission, dice, f"naval cover {c['type']}"
        )
        rolls.append(
            {
                "type": c["type"],
                "mission": mission,
                "mp": c["mp"],
                "roll": roll,
                "percent": pct,
                "available": n,
                "of": c["n"],
            }
        )
        if n:
            out.append({"type": c["type"], "n": n})
    return out, rolls
