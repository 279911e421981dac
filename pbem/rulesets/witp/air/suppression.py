"""7.9 AA suppression, and 10.1.1's proximity fuses (R116-R119).

7.9: before air combat, loose-escort fighters in excess of the defending CAP may be
"peeled off" to accompany the bombers to the target. The player asks for it on the
ESCORT line (``SUPPRESS <k>``, plot.py); the moderator peels off, in plot order, at
most the escorts' excess over the CAP that fights (R116). The peeled fighters fly
no air combat, join the first wave from their launching hex with a Low component
(else the first wave from that hex, as its Low component; none: they go home) and
are fired at with that Low component (7.9.1). Before the wave's AA fires they roll
2D6 on the Air-to-Air CRT with their Air Combat Values at Low, adjusted by the
target ring (core full, inner 2/3, outer 1/3, rounded up): the left number comes off
the ring's Low AA, the right off its High AA, for that wave only (R117).

10.1.1: +1 DRM for proximity fuses when a USN (1943+) or RN (1945+) ship's High AA
is applied; the date is the scenario's map start, as R114's (R118).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.rulesets.witp.air import altitude, elite
from pbem.rulesets.witp.air.aa import ship_aa
from pbem.rulesets.witp.air.flying import FlyingElement, LaunchedPart, aps
from pbem.rulesets.witp.air.tables import (
    AA_MATRIX,
    AA_MODS,
    Pack,
    air_to_air,
    air_unit,
    map_start,
    value,
)
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import OPTIONAL, Record
from pbem.rulesets.witp.taskforces import Ship

KEY = "suppressing"  # marks a peeled-off fighter in a wave (7.9.1)
RINGS = "tables/aa-suppression"
FUSES = "tables/proximity-fuses"
LOW_AA, HIGH_AA = "aa_low", "aa_high"  # the ship counter's Low and High AA values
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def asked(words: Sequence[str]) -> tuple[list[str], int]:
    """An ESCORT line's words without its ``SUPPRESS <k>`` tail, and k (0: none)."""
    upper = [w.upper() for w in words]
    if "SUPPRESS" not in upper:
        return list(words), 0
    i = upper.index("SUPPRESS")
    tail = words[i + 1 :]
    if len(tail) != 1 or not tail[0].isdigit() or int(tail[0]) < 1:
        raise OrderSyntaxError(
            "SUPPRESS ends the ESCORT line with the number of its fighters that may peel "
            "off to suppress AA, e.g. SUPPRESS 2",
            rule="7.9",
        )
    return list(words[:i]), int(tail[0])


def check_asked(k: int, n: int, posture: str) -> None:
    """7.9: only loose escorts peel off, and no more than the line flies."""
    if not k:
        return
    if posture != "loose":
        raise IllegalOrderError(
            "only loose-escort fighters may peel off to suppress AA", rule="7.9"
        )
    if k > n:
        raise IllegalOrderError(
            f"SUPPRESS {k} is more than the {n} fighters of this escort", rule="7.9"
        )


class AaSuppressors(Fact, kind="aa-suppressors"):
    """7.9: the striker's own peel-off: ``asked`` fighters asked of the loose escorts,
    ``escorts`` of them flying against ``cap`` CAP APs, ``peeled`` by type; ``tf`` the
    target, once the strike names it."""

    asked: int
    escorts: int
    cap: int
    peeled: Mapping[str, int]
    tf: Annotated[str | None, OPTIONAL] = None


def peel_off(
    parts: Sequence[LaunchedPart], cap: int
) -> tuple[list[FlyingElement], list[FlyingElement], AaSuppressors | None]:
    """7.9: (the escorts that fight, the peeled-off fighters with their part's base
    and hex, the striker's fact or None when nothing was asked)."""
    escorts = [e for p in parts for e in p.escorts]
    asked = {e.suppress.line: e.suppress.n for e in escorts if e.suppress}
    if not asked:
        return escorts, [], None
    flying = aps(escorts)
    allowance = max(0, flying - cap)  # "in excess of the number of enemy CAP AP's"
    left, fight, peeled = dict(asked), [], []
    for p in parts:
        for e in p.escorts:
            k = 0
            if e.suppress and e.posture == "loose":
                k = min(e.n, left[e.suppress.line], allowance)
                left[e.suppress.line] -= k
                allowance -= k
            if k:
                peeled.append(replace(e, n=k, role="F", alt="L", suppressing=True).from_part(p))
            if e.n - k:
                fight.append(replace(e, n=e.n - k))
    fact = AaSuppressors(sum(asked.values()), flying, cap, _by_type(peeled))
    return fight, peeled, fact


def _by_type(group: Sequence[FlyingElement]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in group:
        out[e.type] = out.get(e.type, 0) + e.n
    return out


def attach(
    waves: Sequence[Sequence[FlyingElement]], peeled: Sequence[FlyingElement]
) -> dict[int, list[FlyingElement]]:
    """7.9.1: each peeled fighter joins the first wave from its hex with a Low
    component, else the first wave from its hex (as its Low component); a hex with
    no wave left sends them home (R116, pbem's: no bombers to accompany)."""
    out: dict[int, list[FlyingElement]] = {}
    for e in peeled:
        mine = [i for i, w in enumerate(waves) if any(a.hex == e.hex for a in w)]
        low = [i for i in mine if any(_low(a) for a in waves[i] if a.hex == e.hex)]
        if mine:
            out.setdefault((low or mine)[0], []).append(e)
    return out


def _low(ap: FlyingElement) -> bool:
    return ap.n > 0 and altitude.aa_mode(ap.role, ap.alt) == "L"


def strength(pack: Pack, group: Sequence[FlyingElement]) -> int:
    """The suppressors' total Air Combat Values, at Low (5.2.1), elite +1 (7.11)."""
    total = 0
    for e in group:
        air = air_unit(pack, e.type).air
        base = air.at(e.flown)
        base += elite.air_combat(pack, e.type) if e.elite else 0
        each = altitude.fighter_strength(pack, base, air.altitude, "L")
        total += max(0, each) * e.n
    return total


def by_ring(pack: Pack, total: int, ring: str) -> int:
    """7.9.1: core full, inner 2/3, outer 1/3 of the strength, rounded up."""
    num, den = value(pack, RINGS)["fractions"][ring]
    return math.ceil(total * int(num) / int(den))


@dataclass(frozen=True, slots=True)
class Suppression(Record):
    """7.9.1: a wave's suppressors' 2D6 on the Air-to-Air CRT in its target ring:
    their strength and as the ring adjusts it, and the Low and High AA taken off."""

    ring: str
    aps: int
    strength: int
    adjusted: int
    roll: int
    low: int
    high: int


def roll(
    pack: Pack,
    group: Sequence[FlyingElement],
    ring: str,
    dice: Dice,
    purpose: str,
) -> Suppression:
    """7.9.1: 2D6 on the Air-to-Air CRT; (low, high) AA taken off for the wave."""
    total = strength(pack, group)
    adjusted = by_ring(pack, total, ring)
    dice_roll = dice.d6(purpose) + dice.d6(purpose)
    low, high = air_to_air(pack, adjusted, aps(group), dice_roll)
    return Suppression(ring, aps(group), total, adjusted, dice_roll, low, high)


def reduction(pack: Pack, mode: str, result: Suppression | None) -> int:
    """The AA taken off against a component: Low AA's for a component the Low AA
    fires at, High AA's for one the High AA fires at (AA Matrix)."""
    if not result:
        return 0
    field = value(pack, AA_MATRIX)[mode]
    return result.low if field == LOW_AA else result.high if field == HIGH_AA else 0


def game_month(pack: Pack) -> tuple[int, int]:
    """The scenario's map start ("may1942") as (year, month): the game date (R114)."""
    key = map_start(pack)
    return int(key[3:]), MONTHS.index(key[:3]) + 1


def proximity(pack: Pack, ships: Sequence[Ship], mode: str) -> tuple[int, str | None]:
    """10.1.1: (DRM, reason) when a firing ship of a navy with proximity fuses by the
    game date applies its High AA against the component (R118)."""
    if value(pack, AA_MATRIX)[mode] != HIGH_AA:
        return 0, None
    since = value(pack, FUSES)["navies"]
    drm = int(value(pack, AA_MODS)["proximity_fuse_drm"])
    now = game_month(pack)
    for s in ships:
        navy = s.navy
        start = since.get(navy)
        if start is None or now < (int(start[0]), int(start[1])):
            continue
        if ship_aa(pack, s, mode) > 0:
            return drm, f"proximity fuses ({navy}) {drm:+d}"
    return 0, None
