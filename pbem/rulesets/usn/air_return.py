"""SEQ.5L: the aircraft still aloft after the strikes come down (CBT.K, MOV.S).

``hook_return`` lands every flight that flew in steps 5/9 (air_combat.py left them
in ``state.extra["aloft"]``): at its own base or carrier, or else - CAP in its own
hex only, the others anywhere within range - at another with room; an aircraft
with nowhere to land is lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from pbem.core.dice import Dice
from pbem.core.sides import Side, enemy_of
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.air_combat import (
    Flight,
    air_values,
)
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.hooks import FERRY_RECORD, FERRY_ROOM, HOOKS, RECEIVE
from pbem.rulesets.usn.naval_combat import record_air_loss
from pbem.rulesets.usn.orders import Line
from pbem.rulesets.usn.sequence import Step
from pbem.rulesets.usn.state import unit_key
from pbem.rulesets.usn.work import Work


def hook_return(w: Work, st: Step, lines: Mapping[Side, list[Line]], dice: Dice | None) -> None:
    """SEQ.5L, CBT.K, MOV.S: every aircraft still aloft lands or is lost."""
    if dice is None:
        return
    raw = w.state.extra.get("aloft", [])
    extra = {k: v for k, v in w.state.extra.items() if k not in ("aloft", "ground_support")}
    w.state = replace(w.state, extra=extra)
    neutral_now = {h for h, b in w.bases.items() if b.neutralized(w.state.turn)}
    before = {h for h, b in w.state.bases.items() if b.neutralized(w.state.turn)}
    for f in (Flight(**d) for d in raw):
        for n, aborted in ((f.aborted, True), (f.points, False)):
            if n > 0:
                land_flight(w, f, n, aborted, neutral_now - before)


def landing_spots(w: Work, f: Flight, aborted: bool, hit_now: set[int]) -> list[str]:
    """Where a flight may come down, best first: its own base or carrier, then
    (CAP) the same hex only, (others) any own base - and carrier for NAC -
    within range of where it is (MOV.T, CBT.K, SEQ.5L)."""
    side = f.side
    here = f.origin if (aborted or f.kind == "CAP") else f.dest
    v = air_values(side, f.atype)
    reach = v.range_extended if f.extended else v.range_normal
    spots: list[tuple[int, int, str]] = []
    for h, b in w.bases.items():
        if b.owner != side or not b.has_air:
            continue
        if b.neutralized(w.state.turn) and not (f.kind == "CAP" and h in hit_now):
            continue  # CBT.J: CAP may land on a base hit during the strike
        if f.kind == "CAP":
            if h != f.origin or hexgrid.hex_of(f.source) is None:
                continue  # MOV.S: carrier CAP lands on carriers only
        elif w.geo.air_distance(here, h) > reach:
            continue
        spots.append(
            (
                0 if hexgrid.fmt(h) == f.source else 1,
                w.geo.air_distance(here, h),
                hexgrid.fmt(h),
            )
        )
    if f.atype == "NAC":
        for u in w.units.values():
            if u.side != side or not u.is_carrier or u.hex is None or u.damaged:
                continue
            if f.kind == "CAP" and (u.hex != f.origin or hexgrid.hex_of(f.source) is not None):
                continue
            if f.kind != "CAP" and w.geo.air_distance(here, u.hex) > reach:
                continue
            spots.append((0 if u.uid == f.source else 1, w.geo.air_distance(here, u.hex), u.uid))
    return [loc for _p, _d, loc in sorted(spots)]


def _room(w: Work, side: Side, loc: Location) -> int:
    h = hexgrid.hex_of(loc)
    if h is not None:
        b = w.bases[h]
        return b.air_capacity - w.air_at(side, loc).total
    ship = w.units[unit_key(side, loc)]
    left = ship.capacity - w.air_at(side, loc).total
    ferry_left = HOOKS[FERRY_ROOM](w, side, loc, RECEIVE)  # OPT.FERRY
    return left if ferry_left is None else min(left, ferry_left)


def land_flight(w: Work, f: Flight, n: int, aborted: bool, hit_now: set[int]) -> None:
    left = n
    landed: dict[str, int] = {}
    for loc in landing_spots(w, f, aborted, hit_now):
        k = min(left, max(0, _room(w, f.side, loc)))
        if k:
            w.set_air(f.side, loc, w.air_at(f.side, loc).add(f.atype, k))
            HOOKS[FERRY_RECORD](w, f.side, loc, RECEIVE, k)
            landed[loc] = k
            left -= k
        if not left:
            break
    if landed:
        w.event("air-returned", "SEQ.5L", (f.side,), side=f.side, type=f.atype, landed=landed)
    if left:
        record_air_loss(w, f.side, f.atype, left, enemy_of(f.side))
        w.event(
            "air-lost",
            "SEQ.5L",
            None,
            side=f.side,
            type=f.atype,
            points=left,
            cause="no base or carrier with room in range",
        )
