"""8.1 Carrier admirals' ratings and 8.1.4 carrier coordination.

A carrier admiral's combat ratings are rolled (2D6, with his Command Level and
promotion DRMs, 8.1.2, 8.6) when battle is joined; a TF with none rolls 1D6 for its
Air Rating (8.8). Before any strike (CAP included) from a carrier TF, 2D10 against
the CC Check Table (first check: at or under the number, full strength); on a
failure 2D6 against the Second CC Check Table gives the strength launched, and a
strike of bombers and escorts rolls 1D6 for which element is cut (8.1.4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.core.dice import Dice
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air.tables import (
    ADMIRALS,
    CARRIER_POINTS,
    CC1,
    CC2,
    CC_SPLIT,
    Pack,
    value,
)
from pbem.rulesets.witp.datapack import class_values
from pbem.rulesets.witp.moderatorrecords import Ratings as Ratings  # rated here
from pbem.rulesets.witp.records import Record
from pbem.rulesets.witp.taskforces import Ship


def command_drm(command_level: float, activation: float) -> int:
    """8.1.2: -1 a full point (or fraction after the first) over the Command Level,
    +1 a full point under, at most 5 either way."""
    if activation > command_level:
        return -min(5, math.ceil(activation - command_level))
    return min(5, math.floor(command_level - activation))


def rate(pack: Pack, admiral: str | None, dice: Dice, purpose: str, drm: int = 0) -> Ratings:
    """8.1, 8.8: the admiral's combat ratings for this battle."""
    if not admiral:
        r = dice.d6(f"{purpose} leaderless air rating")
        return Ratings("", r, r)
    chart = value(pack, ADMIRALS)[admiral]
    roll = dice.d6(purpose) + dice.d6(purpose) + drm
    clamped = min(12, max(2, roll))
    band = next(b for b in chart["bands"] if b["roll"][0] <= clamped <= b["roll"][1])
    return Ratings(
        admiral, roll, int(band["air"]), int(band["bounce"]), int(band["column"]), int(band["drm"])
    )


def carrier_points(pack: Pack, ships: Sequence[Ship]) -> int:
    """8.1.4: the CTF's carrier points (a class's own value first)."""
    table = value(pack, CARRIER_POINTS)
    total = 0
    for s in ships:
        cls = class_values(pack, s.ship_class)
        pts = cls.carrier_points if cls else 0
        total += pts if pts else int(table.get(s.type, 0))
    return total


def first_check_number(pack: Pack, air_rating: int, points: int) -> int:
    t = value(pack, CC1)
    n = (
        int(t["base"])
        + int(t["per_air_rating"]) * air_rating
        + int(t["per_carrier_point"]) * points
    )
    return min(int(t["maximum"]), max(int(t["minimum"]), n))


def second_check(pack: Pack, air_rating: int, roll: int) -> tuple[int, bool]:
    """(percent launched, asterisked: may not be cancelled)."""
    t = value(pack, CC2)
    pct = min(int(t["maximum"]), max(int(t["minimum"]), 10 * (air_rating - roll + int(t["plus"]))))
    return pct, pct <= int(t["asterisk_at_most"])


@dataclass(frozen=True, slots=True)
class Launch(Record):
    """8.1.4: a carrier strike's coordination check and the APs it launches."""

    first: int  # the 2D10 roll
    needed: int
    second: int | None  # the 2D6 roll, if the first failed
    percent: int
    asterisk: bool
    cut: str  # "none", "fighters", "bombers", "both"
    fighters: int
    bombers: int


def launch(
    pack: Pack,
    ships: Sequence[Ship],
    ratings: Ratings,
    fighters: int,
    bombers: int,
    dice: Dice,
    purpose: str,
) -> Launch:
    """8.1.4: the APs of a carrier strike actually launched (rounded up)."""
    needed = first_check_number(pack, ratings.air, carrier_points(pack, ships))
    first = draws.percentile(dice, f"{purpose} first CC check")
    if first <= needed:
        return Launch(first, needed, None, 100, False, "none", fighters, bombers)
    second = dice.d6(f"{purpose} second CC check") + dice.d6(f"{purpose} second CC check")
    pct, asterisk = second_check(pack, ratings.air, second)
    cut = "bombers" if not fighters else "fighters" if not bombers else "split"
    if cut == "split":
        cut = str(value(pack, CC_SPLIT)[str(dice.d6(f"{purpose} CC element"))])

    def _cut(n: int, p: int) -> int:
        return math.ceil(n * p / 100)

    f, b = fighters, bombers
    if cut == "fighters":
        f = _cut(fighters, pct)
    elif cut == "bombers":
        b = _cut(bombers, pct)
    else:  # both: each loses half (rounded up) of the cut (8.1.4; ruling R94)
        keep = 100 - math.ceil((100 - pct) / 2)
        f, b = _cut(fighters, keep), _cut(bombers, keep)
    return Launch(first, needed, second, pct, asterisk, cut, f, b)
