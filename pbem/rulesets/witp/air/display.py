"""7.2-7.7 The Air/Surface Tactical Display: rings and arcs, placement by target
priority, wave entry and the path of approach.

Positions are ("core", 1), ("inner", 1-3), ("outer", 1-6). The naval player places
every ship face down (7.2.1): core first, then the inner ring, then the outer, at
most four an arc of the core and inner ring (7.2.2-7.2.3), evenly within a ring
(7.2.4). A Specific priority puts every ship of the named type into the core first
(7.3.1); a General priority places by the order of 7.3.2. Within a group the
doctrine places the stronger ship first (ruling R97). A wave enters at the outer arc
its 1D6 names (7.7.1) and reaches its target ring through the arcs on its path
(7.7.3): inner arc i lies behind outer arcs 2i-1 and 2i.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.rulesets.witp.air.tables import DISPLAY, PRIORITY, Pack, value
from pbem.rulesets.witp.taskforces import Ship, ship_class

Position = tuple[str, int]
RINGS = ("core", "inner", "outer")


def priority_rank(pack: Pack, ship_type: str) -> int:
    """7.3.2: the ship type's place in the General Target Priority (last: the rest)."""
    order = value(pack, PRIORITY)
    for i, group in enumerate(order):
        if ship_type.upper() in group:
            return i
    return len(order)


def _order(pack: Pack, ships: Sequence[Ship], specific: str | None) -> list[Ship]:
    def key(s: Ship) -> tuple[int, int, int, str]:
        first = 0 if specific and s.type.upper() == specific else 1
        return (
            first,
            priority_rank(pack, s.type),
            -ship_class(pack, s).defence,
            str(s.name),
        )

    return sorted(ships, key=key)


def place(pack: Pack, ships: Sequence[Ship], priority: str = "general") -> dict[str, Position]:
    """Ship name -> position for a strike with ``priority`` ("general" or a ship type)."""
    t = value(pack, DISPLAY)
    specific = None if priority == "general" else priority.upper()
    out: dict[str, Position] = {}
    queue = _order(pack, ships, specific)
    limits = {"core": int(t["arc_limit"]["core"]), "inner": int(t["arc_limit"]["inner"])}
    i = 0
    for ring in RINGS:
        arcs = int(t["rings"][ring])
        cap = limits.get(ring)
        room = arcs * cap if cap is not None else len(queue) - i
        take = queue[i : i + room]
        for k, s in enumerate(take):  # evenly: arc 1, 2, ... then round again (7.2.4)
            out[str(s.name)] = (ring, k % arcs + 1)
        i += len(take)
        if i >= len(queue):
            break
    return out


def path(pack: Pack, entry: int, ring: str) -> list[Position]:
    """7.7.3: the arcs a wave entering at outer arc ``entry`` passes to reach ``ring``."""
    inner = int(value(pack, DISPLAY)["inner_of_outer"][str(entry)])
    full: list[Position] = [("outer", entry), ("inner", inner), ("core", 1)]
    return full[: RINGS[::-1].index(ring) + 1]


def on_path(positions: Mapping[str, Position], arcs: Sequence[Position]) -> list[str]:
    """7.7.4: the ships that fire at, and may be attacked by, the wave."""
    return sorted(n for n, p in positions.items() if p in arcs)


def in_ring(positions: Mapping[str, Position], arcs: Sequence[Position], ring: str) -> list[str]:
    """7.8.1 Step 1: the ships in the wave's target ring, on its path."""
    return sorted(n for n, p in positions.items() if p in arcs and p[0] == ring)


def target_ring(positions: Mapping[str, Position], entry: int, pack: Pack, priority: str) -> str:
    """10.1.1 and the doctrine (R92): the core under a Specific priority; else the
    innermost ring with ships on the wave's path (never an empty one)."""
    if priority != "general":
        return "core"
    for ring in RINGS:
        if in_ring(positions, path(pack, entry, ring), ring):
            return ring
    return "core"
