"""Air zones of control (ZOC.*).

ZOC.DEF: every hex within two hexes of a side's air base with air units on it,
or of its carrier with air units aboard. ZOC.CANCEL: a hex in both sides'
zones belongs to neither. ZOC.EFFECT: the only effect is on supply (and on
parachute drops, PARA.DROP). ZOC.INSTANT: zones are recomputed from the
current state whenever they are asked for, never stored.
"""

from __future__ import annotations

from collections.abc import Iterable

from pbem.core.sides import SIDES, Side, enemy_of
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import GameState

ZOC_RADIUS = 2


def zoc_centres(state: GameState, side: str) -> set[int]:
    """ZOC.DEF: hexes of the side's air bases and carriers that hold air units."""
    centres: set[int] = set()
    for loc, air in state.air.get(side, {}).items():
        if air.total <= 0:
            continue
        h = hexgrid.hex_of(loc)
        if h is not None:
            base = state.bases.get(h)
            if base is not None and base.owner == side and base.has_air:
                centres.add(h)
        else:
            ship = state.unit(side, loc)
            if ship is not None and ship.is_carrier and ship.hex is not None:
                centres.add(ship.hex)
    return centres


def zoc_hexes(state: GameState, side: str) -> frozenset[int]:
    """Every hex in ``side``'s zone of control, before cancellation."""
    return zone_around(zoc_centres(state, side))


def zone_around(centres: Iterable[int]) -> frozenset[int]:
    """ZOC.DEF: every hex within two hexes of the centres."""
    out: set[int] = set()
    for h in centres:
        out.update(hexgrid.within(h, ZOC_RADIUS))
    return frozenset(out)


def undisputed_zones(state: GameState) -> dict[str, frozenset[int]]:
    """ZOC.CANCEL: each side's zone minus the hexes the other side also controls."""
    raw = {s: zoc_hexes(state, s) for s in SIDES}
    return {s: raw[s] - raw[enemy_of(s)] for s in SIDES}


def blocks_supply_of(state: GameState, side: Side) -> frozenset[int]:
    """SUP.D.ZOC: the hexes where ``side`` may not trace supply (undisputed enemy zone)."""
    return undisputed_zones(state)[enemy_of(side)]


def undisputed_around(centres: Iterable[int], against: Iterable[int]) -> frozenset[int]:
    """ZOC.CANCEL: the zone of ``centres`` less the hexes the zone of ``against`` also
    covers (``blocks_supply_of`` from the centres alone, as the supply trace keeps them)."""
    return zone_around(centres) - zone_around(against)
