"""7.11 Japanese aircrew superiority: which of a strike's APs are "elite", and
their bonuses where the pure modules roll (R111).

Elite APs are counted by type on a carrier's record or an air base (``elite``:
{type: n}, from the scenario's ``*-elite`` items: 68.3.3's allowances are not in the
text, so the counts are the pack's, labelled). The bonuses are the pack's item
``tables.elite-bonuses`` (rulebook, 7.11) by type prefix:

- A6M: +1 to each air combat rating (normal and extended);
- D3A, B5N, G3M, G4M: +2 to each AP's anti-ship rating, and no air combat
  reduction for flying off their rated altitude (7.11.4).

A part's APs of a type are elite up to the elite APs its base holds (the elite
fly first: pbem's); an elite AP eliminated leaves the elite count (7.11.2). Elite
APs with "Night" status (``night_elite``: {type: n} of the elite, assigned in
Strategic Game-Turns; the Coral Sea has none) fly day missions without their elite
bonuses and still count for torpedo arming (7.11.5, R129).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.core.dice import Dice
from pbem.core.sides import Side
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.ships import Holding, lose_counted, mark_by_type
from pbem.rulesets.witp.air.tables import Pack, value
from pbem.rulesets.witp.work import Work

BONUSES = "tables/elite-bonuses"
KEY = "elite"
NIGHT_KEY = "night_elite"  # 7.11.5: of the elite, those with Night status, by type


def _bonus(pack: Pack, kind: str, ap_type: str) -> bool:
    return any(ap_type.startswith(p) for p in value(pack, BONUSES)[kind])


def air_combat(pack: Pack, ap_type: str) -> int:
    """7.11: the elite fighter's air combat bonus."""
    return 1 if _bonus(pack, "air_combat_plus_one", ap_type) else 0


def anti_ship(pack: Pack, ap_type: str) -> int:
    """7.11: the elite bomber's anti-ship bonus, each AP."""
    return 2 if _bonus(pack, "anti_ship_plus_two", ap_type) else 0


def any_altitude(pack: Pack, ap_type: str) -> bool:
    """7.11, 7.11.4: an elite level bomber loses no air combat strength off its altitude."""
    return _bonus(pack, "anti_ship_plus_two", ap_type)


def held(holders: Sequence[Holding], ap_type: str) -> int:
    """The elite APs of ``ap_type`` the base's ``holders`` hold (7.11)."""
    return sum(int(h.elite.get(ap_type, 0)) for h in holders)


def night_held(holders: Sequence[Holding], ap_type: str) -> int:
    """7.11.5, R129: the elite APs of ``ap_type`` holding "Night" status."""
    return sum(int(h.night_elite.get(ap_type, 0)) for h in holders)


def split(
    holders: Sequence[Holding], elements: Sequence[FlyingElement], by_day: bool = True
) -> list[FlyingElement]:
    """The part's elements (flying from the base ``holders`` hold) with the elite APs
    split off (``elite``: True), elite first; by day the elite with Night status fly
    without their bonuses (7.11.5)."""
    best = {
        t: max(0, held(holders, t) - (night_held(holders, t) if by_day else 0))
        for t in {e.type for e in elements}
    }
    return mark_by_type(elements, best, lambda e: replace(e, elite=True))


def lose(work: Work, side: Side, base: str, ap_type: str, n: int) -> None:
    """7.11.2: ``n`` elite APs of ``ap_type`` eliminated at ``side``'s ``base``; also no
    record keeps more elite than APs."""
    lose_counted(work, side, base, KEY, ap_type, n)


def attrition(dice: Dice, best: int, regular: int, losses: int, purpose: str) -> int:
    """37.1.7, R129: of ``losses`` APs attrited at a base holding ``best`` elite and
    ``regular`` non-elite APs of a block type, how many are elite: each drawn at
    random, a non-elite AP counting double. Not yet called: air attrition falls in
    the Strategic Game-Turn (37.0), which the Coral Sea scenario does not reach."""
    lost, left = 0, min(losses, best + regular)
    while left and best and regular:  # a draw only while both kinds remain
        if draws.below(dice, best + 2 * regular, purpose) < best:
            best, lost = best - 1, lost + 1
        else:
            regular -= 1
        left -= 1
    return lost + min(left, best)  # the rest fall on the one kind left
