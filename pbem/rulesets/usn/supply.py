"""Supply lines, refuelling and endurance at sea (SUP.*, NM.REFUEL).

A land unit's ``supplied`` flag is its supply as the rules keep it, and every
check reads it (moving, MOV.G; entrenching, ENT.PROC; attacking and defending,
SUP.E; retreating, MOV.G): set at the start (SETUP.SUPPLY: no trace, the
scenario's exceptions unsupplied), traced at each step 10 (``update_supply``),
lost at once to a DX bombardment until the same step next turn (NM.BOMBLAND,
AM.BOMBLAND) and gained at once by an emergency supply run for the rest of its
Game-Turn (SUP.F). The trace itself (``supply_map``) answers for hexes: where a
unit may move or retreat to, where a base or a set-up unit is.

A supply line (SUP.A) runs from the unit over land, then - once it crosses an
all-sea hexside or the land route is blocked - at sea, and never returns to
land. Rather than trace one line per unit, ``supply_map`` works backwards from
the side's sources (SUP.B) once, with two breadth-first searches:

* ``sea``: hexes from which a sea-borne line reaches a source. A sea step
  crosses a hexside that is at least partly sea and may not enter a hex with
  an enemy ship (SUP.D.SEA) or in an undisputed enemy air zone (SUP.D.ZOC).
* ``land``: hexes from which a line that starts over land (and may then go to
  sea) reaches a source. A land step crosses a hexside with some land into a
  land hex outside China and India (SUP.C), not into the enemy zone, and not
  *through* a hex holding enemy land units (SUP.D.LAND: into it is allowed).

A unit's own hex never blocks its line (the line starts there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pbem.core.sides import ALLIED, JAPANESE, Side, enemy_of
from pbem.rulesets.usn import fog
from pbem.rulesets.usn.geo import AUSTRALIA, HOME_ISLANDS, Geo
from pbem.rulesets.usn.sequence import last_naval_step
from pbem.rulesets.usn.state import OILERS, TRANSPORTS, GameState, Unit
from pbem.rulesets.usn.zoc import blocks_supply_of

WARSHIP_ENDURANCE = 3  # SUP.G: complete Game-Turns at sea
LONG_ENDURANCE = 6  # SUP.G: transports and oilers


@dataclass(frozen=True, slots=True)
class SupplyMap:
    side: Side
    sources: frozenset[int]
    land: frozenset[int]
    sea: frozenset[int]

    def supplied(self, h: int) -> bool:
        return h in self.sources or h in self.land or h in self.sea


def sources_of(geo: Geo, side: Side) -> frozenset[int]:
    """SUP.B: Japanese Home Islands; for the Allies Australia and the east map edge."""
    if side == JAPANESE:
        return geo.regions.get(HOME_ISLANDS, frozenset())
    return geo.regions.get(AUSTRALIA, frozenset()) | geo.edges.get("east", frozenset())


def enemy_land_hexes(state: GameState, side: Side) -> set[int]:
    """SUP.D.LAND: the hexes holding enemy land units as ``side`` sees them, covered
    cargo still ashore where it embarked (H1; docs/usn-fog.md, *Land attacks, supply
    and capture with cargo in port*): it blocks a line through its hex as it would
    ashore, so that a side's own supply never tells it what went aboard."""
    shown = {**state.units, **fog.covered_ashore(state.extra, state.units)}
    return {
        u.hex
        for u in shown.values()
        if u.side == enemy_of(side) and u.kind == "land" and u.hex is not None
    }


def supply_map(geo: Geo, state: GameState, side: Side) -> SupplyMap:
    enemy = enemy_of(side)
    zoc = blocks_supply_of(state, side)
    enemy_ships = {
        u.hex for u in state.units.values() if u.side == enemy and u.is_naval and u.hex is not None
    }
    enemy_land = enemy_land_hexes(state, side)
    sources = sources_of(geo, side)
    # Hexes a line may not enter: at sea (enemy ships, SUP.D.SEA), anywhere (the
    # undisputed enemy zone, SUP.D.ZOC; China and India, SUP.C).
    no_entry = zoc | geo.closed
    no_sea = no_entry | enemy_ships
    naval_nbrs = geo.naval_nbrs

    # Sea: a in sea iff some partly-sea neighbour b is enterable and is a source or in sea.
    sea: set[int] = set()
    frontier = [h for h in sources if h not in no_sea]
    reached = set(frontier)
    while frontier:
        nxt: list[int] = []
        for b in frontier:
            for a in naval_nbrs[b]:
                if a not in sea:
                    sea.add(a)
                    if a not in reached and a not in no_sea:
                        reached.add(a)
                        nxt.append(a)
        frontier = nxt

    # Land: a in land iff a in sea (go to sea from a), or a land step reaches b
    # that is a source, or passable and in land.
    land_hexes = geo.land_set
    enterable = land_hexes - no_entry
    passable = enterable - enemy_land
    land: set[int] = set()
    frontier = [h for h in sources if h in enterable]
    frontier += [h for h in sea if h in passable]
    through = set(frontier)
    supply_nbrs = geo.supply_land_nbrs
    while frontier:
        nxt = []
        for b in frontier:
            for a in supply_nbrs[b]:
                if a not in land_hexes:
                    continue
                land.add(a)
                if a not in through and a in passable:
                    through.add(a)
                    nxt.append(a)
        frontier = nxt
    return SupplyMap(side, sources, frozenset(land), frozenset(sea))


def is_supplied(state: GameState, unit: Unit, smap: SupplyMap) -> bool:
    """SUP.E: traced supply at step 10, for the Game-Turn to come. An emergency run
    (SUP.F) fed the unit for its own Game-Turn only: "excess supplies may not be used
    in any later Game-Turns"."""
    return unit.hex is not None and smap.supplied(unit.hex)


def update_supply(geo: Geo, state: GameState) -> GameState:
    """Recompute the supplied flag of every land unit and base (ZOC.INSTANT)."""
    maps: dict[str, SupplyMap] = {s: supply_map(geo, state, s) for s in (JAPANESE, ALLIED)}
    # NM.BOMBLAND / AM.BOMBLAND: a DX result leaves the unit unsupplied until the
    # same step of the next Game-Turn, whatever the trace says meanwhile.
    cut_off = state.extra.get("cut_off", {})
    changed = []
    # H1: cargo the enemy sees still ashore is traced from there (docs/usn-fog.md).
    for u in {**state.units, **fog.covered_ashore(state.extra, state.units)}.values():
        if u.kind in ("land", "cd") and u.hex is not None:
            ok = cut_off.get(u.key, 0) <= state.turn and is_supplied(state, u, maps[u.side])
            if ok != u.supplied:
                changed.append(replace(state.units[u.key], supplied=ok))
    bases = {
        h: (b if maps[b.owner].supplied(h) == b.supplied else replace(b, supplied=not b.supplied))
        for h, b in state.bases.items()
    }
    return replace(state.with_units(changed), bases=bases)


def endurance(unit: Unit) -> int:
    """SUP.G: three Game-Turns for warships, six for transports and oilers."""
    return LONG_ENDURANCE if unit.utype in TRANSPORTS | OILERS else WARSHIP_ENDURANCE


def stamp(turn: int, step: int) -> int:
    return turn * 100 + step


def fuel_check(state: GameState) -> tuple[GameState, list[Unit]]:
    """SEQ.10 / SUP.G: count a Game-Turn at sea for every ship that did not
    refuel in its side's last naval phase; a ship whose endurance runs out is
    lost (returned so the caller can record it)."""
    keep: list[Unit] = []
    lost: list[Unit] = []
    for u in state.units.values():
        if not u.is_naval:
            continue
        refuelled = u.refuelled_step == stamp(state.turn, last_naval_step(u.side))
        fuel = 0 if refuelled else u.fuel + 1
        if fuel >= endurance(u):
            lost.append(u)
        elif fuel != u.fuel:
            keep.append(replace(u, fuel=fuel))
    return state.with_units(keep), lost
