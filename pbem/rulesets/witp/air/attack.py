"""7.8 The Air/Surface combat routine of one wave, and 7.6 coordinating waves.

For each ship attacked (a ship at most once a wave, 7.8.3; every AP attacks, 7.8.4):
the anti-ship total by role and range (Step 2); the current speed class (the
printed one, less its damage effects, less 1 each for a Combined Attack (7.8.2), no
CAP at any attacker altitude, and surprise; never below 0) (Step 3); the attack
altitude of the majority, ties to the attacker's best (Step 4); torpedoes first face
the anti-torpedo roll (2D6, the first die against the rating, the second off the
torpedo value, never below 1); 1D6 on the Air/Surface Damage Table (Step 5); the
odds against the current defence, rounded down (Step 6); 1D6 on the Naval CRT
(Step 7). A damage level adds to the ship's; D5 or "S" sinks it (ruling R98).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from pbem.core.dice import Dice
from pbem.rulesets.witp.air import elite
from pbem.rulesets.witp.air.flying import FlyingElement, aps
from pbem.rulesets.witp.air.ships import SUNK
from pbem.rulesets.witp.air.tables import (
    COMBINED_B,
    DAMAGE,
    Pack,
    air_unit,
    damage_effect,
    damage_points,
    map_start,
    naval_crt,
    odds_column,
    value,
)
from pbem.rulesets.witp.records import OPTIONAL, Record
from pbem.rulesets.witp.taskforces import Ship, ship_class


def combined(wave: Sequence[FlyingElement], pack: Pack | None = None) -> bool:
    """7.8.2: a combined attack, judged as the wave enters the display: (A) torpedo
    bombers with dive- or fighter-bombers; (B) low level bombers with them, when they
    skip-bomb (US types, 3/43 on) or are elite G3M/G4M, the majority of the wave's low
    B-type APs. Without ``pack`` only (A) is judged."""
    live = [a for a in wave if a.n > 0]
    roles = {a.role for a in live}
    if not roles & {"D", "FB"}:
        return False
    if "T" in roles:
        return True
    low = [a for a in live if a.role == "B" and a.attack_alt == "L"]
    if pack is None or not low:
        return False
    t = value(pack, COMBINED_B)
    if _skip_bombing_era(pack, t["skip_bombing_from"]) and any(
        _is(a, t["skip_bombing"]) for a in low
    ):
        return True
    best = aps(a for a in low if a.elite and _is(a, t["elite"]))
    return 2 * best > aps(low)


def _is(ap: FlyingElement, prefixes: Sequence[str]) -> bool:
    return any(ap.type.startswith(p) for p in prefixes)


MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _skip_bombing_era(pack: Pack, start: Sequence[int]) -> bool:
    """The scenario's map start ("may1942") on or after the skip-bombing date."""
    key = map_start(pack)
    year, month = int(key[3:]), MONTHS.index(key[:3]) + 1
    return (year, month) >= (int(start[0]), int(start[1]))


def current_speed_class(pack: Pack, ship: Ship, reductions: int) -> int:
    base = ship_class(pack, ship).speed_class
    return max(0, base + damage_effect(pack, ship.damage).speed_class - reductions)


def current_defence(pack: Pack, ship: Ship) -> int:
    """16.8.1: never below one."""
    base = ship_class(pack, ship).defence
    return max(1, base + damage_effect(pack, ship.damage).defence)


def anti_ship(pack: Pack, wave: Sequence[FlyingElement], role: str | None = None) -> int:
    """Step 2: the anti-ship total of the ``wave``'s APs (of one ``role`` if given)."""
    total = 0
    for a in wave:
        if role and a.role != role:
            continue
        rating = air_unit(pack, a.type).anti_ship_at(a.role, a.flown)
        rated = rating > 0  # 7.11: a bonus to a rating, none where it has none
        plus = elite.anti_ship(pack, a.type) if a.elite and rated else 0
        got = a.n * (rating + plus)
        total += math.ceil(got / 2) if a.green else got  # 58.2.1: rounded up
    return total


def attack_altitude(pack: Pack, wave: Sequence[FlyingElement]) -> str:
    """Step 4: the altitude of most APs; on a tie the attacker's best."""
    count: Counter[str] = Counter()
    for a in wave:
        count[str(a.attack_alt)] += a.n
    drm = value(pack, DAMAGE)["altitude_drm"]
    top = max(count.values())
    return max((alt for alt, n in count.items() if n == top), key=lambda alt: int(drm[alt]))


@dataclass(frozen=True, slots=True)
class AntiTorpedo(Record):
    """7.8.1 Step 2: the anti-torpedo 2D6 against the ship's rating, and the torpedo
    value left."""

    dice: tuple[int, int]
    rating: int
    torpedo: int


@dataclass(frozen=True, slots=True)
class ShipAttack(Record):
    """7.8.1 Steps 2-7: one ship attacked, its every roll and result; ``damage``: its
    damage level after the attack."""

    ship: str
    type: str
    speed_class: int
    # torpedoes only; kw_only: the stored order kept
    anti_torpedo: Annotated[AntiTorpedo | None, OPTIONAL] = field(default=None, kw_only=True)
    anti_ship: int
    altitude: str
    drm: int
    roll: int
    damage_points: int
    defence: int
    odds: str
    crt_roll: int
    result: str
    damage: int
    sunk: bool


def resolve(
    pack: Pack,
    ship: Ship,
    wave: Sequence[FlyingElement],
    dice: Dice,
    purpose: str,
    *,
    is_combined: bool,
    no_cap: bool,
    surprise: int = 0,
    column: int = 0,
    drm: int = 0,
    in_port: bool = False,
    crt_shift: int = 0,
) -> ShipAttack:
    """One ship attacked by the ``wave``'s APs (7.8.1 Steps 2-7).
    ``surprise``: 38.3.1's speed-class reduction; ``in_port``: torpedoes halved;
    ``crt_shift``: columns right on the Naval CRT (42.4.3 Planes on Deck), at most
    to its last."""
    reductions = int(is_combined) + int(no_cap) + int(surprise) + column  # 8.1.5: a column shift
    sc = current_speed_class(pack, ship, reductions)
    torpedo = anti_ship(pack, wave, "T")
    other = anti_ship(pack, wave) - torpedo
    if in_port:
        torpedo //= 2  # 38.3.1: T-type APs against ships in port, rounded down
    against = None
    if torpedo:
        first, second = dice.d6(f"{purpose} anti-torpedo"), dice.d6(f"{purpose} anti-torpedo")
        rating = ship_class(pack, ship).anti_torpedo
        if first < rating:
            torpedo = max(1, torpedo - second)
        against = AntiTorpedo((first, second), rating, torpedo)
    total = torpedo + other
    alt = attack_altitude(pack, wave)
    alt_drm = int(value(pack, DAMAGE)["altitude_drm"][alt]) + drm
    roll = dice.d6(f"{purpose} damage")
    points = damage_points(pack, total, sc, roll, alt_drm)
    defence = current_defence(pack, ship)
    col = odds_column(points, defence)
    col = min(len(value(pack, "tables/naval-crt")["columns"]) - 1, col + crt_shift)
    crt = dice.d6(f"{purpose} naval CRT")
    result = naval_crt(pack, col, crt)
    damage = ship.damage
    if result == "S":
        damage = SUNK
    elif result != "-":
        damage = min(SUNK, damage + int(result[1:]))
    odds = value(pack, "tables/naval-crt")["columns"][col]
    return ShipAttack(
        str(ship.name), ship.type, sc, total, alt, alt_drm, roll, points, defence, odds, crt,
        result, damage, damage >= SUNK, anti_torpedo=against,
    )  # fmt: skip


def may_combine(primary_hexes: int, between_hexes: int, roll: int | None) -> bool:
    """7.6.2: waves from another launching hex join the primary strike's if the hexes
    between the bases are no more than the primary's distance to the target, else
    if 1D6 exceeds the difference."""
    if between_hexes <= primary_hexes:
        return True
    return roll is not None and roll > between_hexes - primary_hexes
