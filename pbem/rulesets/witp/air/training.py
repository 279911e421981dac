"""58.2.1, 6.3.1 Training levels in air combat and attacks: "green" APs (R132).

Untrained ("green") APs are counted by type on a carrier's record or an air base
(``green``: {type: n}, beside ``air``/``air_points``; a scenario's ``*-green`` forces
item sets a carrier's, as ``*-elite`` does its elite). Every other AP is fully
trained (58.1). Their effects where the strike modules fight:

- air combat: a green AP's air combat strength is halved, rounded up; a green
  bomber's (the defence it is attacked with) not below 2 and its parenthesized
  return fire not below 1 (58.2.1);
- anti-ship: a green element's anti-ship total is halved, rounded up (58.2.1);
- the bounce: a strike with any green fighter never receives it, unless the CAP it
  meets has green fighters too (58.2.1);
- losses: air combat results fall on the defending green APs before any trained
  (6.3.1, 58.2.1; air/combat.py);
- a green AP eliminated leaves its base's green count.

A part flies its base's trained APs of a type first, the green after (pbem's: the
owner keeps his green back while he can); the CAP is likewise trained first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from pbem.core.sides import Side
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.ships import Holding, lose_counted, mark_by_type
from pbem.rulesets.witp.work import Work

KEY = "green"


def air_combat(strength: int, *, bomber: bool) -> int:
    """58.2.1: a green AP's air combat strength (a bomber's not below 2)."""
    half = math.ceil(strength / 2)
    return max(min(2, strength), half) if bomber else half


def return_fire(strength: int) -> int:
    """58.2.1: a green bomber's parenthesized (return fire) value, not below 1."""
    return max(min(1, strength), math.ceil(strength / 2))


def anti_ship(total: int) -> int:
    """58.2.1: a green element's anti-ship total, halved, rounded up."""
    return math.ceil(total / 2)


def held(holders: Sequence[Holding], ap_type: str) -> int:
    """The green APs of ``ap_type`` the base's ``holders`` hold (never more than it has)."""
    return sum(min(int(h.green.get(ap_type, 0)), int(h.aps.get(ap_type, 0))) for h in holders)


def trained(holders: Sequence[Holding], ap_type: str) -> int:
    total = sum(int(h.aps.get(ap_type, 0)) for h in holders)
    return total - held(holders, ap_type)


def split(holders: Sequence[Holding], elements: Sequence[FlyingElement]) -> list[FlyingElement]:
    """The part's elements (flying from the base ``holders`` hold) with their green
    APs split off (``green``: True), the trained flying first; elite elements (7.11)
    are trained as they are."""
    left: dict[str, int] = {}
    out: list[FlyingElement] = []
    for e in elements:
        if e.elite:
            left[e.type] = left.get(e.type, trained(holders, e.type)) - e.n
            out.append(e)
            continue
        left.setdefault(e.type, trained(holders, e.type))
        k = min(e.n, max(0, left[e.type]))
        left[e.type] -= k
        if k:
            out.append(replace(e, n=k))
        if e.n - k:
            out.append(replace(e, n=e.n - k, green=True))
    return out


def cap_green(holders: Sequence[Holding], ap_type: str, flying: int, busy: int) -> int:
    """The CAP's green APs of a type: the TF's (``holders``) green its strikes
    (trained first) did not take."""
    spent = max(0, busy - trained(holders, ap_type))
    return min(flying, max(0, held(holders, ap_type) - spent))


def mark(cap: Sequence[FlyingElement], green: Mapping[str, int]) -> list[FlyingElement]:
    """Each type's ``green`` CAP APs marked, level by level, lowest first (as the
    elite are, 7.11); an elite entry is trained."""
    return mark_by_type(
        cap, green, lambda e: replace(e, green=True), marked_first=False, skip=lambda e: e.elite
    )


def strike_has_green_fighters(escorts: Sequence[FlyingElement]) -> bool:
    return any(e.green and e.n > 0 for e in escorts)


def lose(work: Work, side: Side, base: str, ap_type: str, n: int) -> None:
    """``n`` green APs of ``ap_type`` eliminated at ``side``'s ``base``: off the green
    count, and no record keeps more green than APs."""
    lose_counted(work, side, base, KEY, ap_type, n)
