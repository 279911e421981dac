"""Supply lines and endurance at sea (SUP.*); refuelling itself is refuel.py.

A land unit's and a base's ``supplied`` flag is its supply as the rules keep it,
and every check reads it (moving, MOV.G; entrenching, ENT.PROC; attacking and
defending, SUP.E; retreating, MOV.G; air bases, MOV.R). "The effect of Zone of
Control on supply is instantaneous" (ZOC.INSTANT) and "Units regain their
abilities immediately upon being placed in supply again" (SUP.E), so the flag is
no record of a past trace: ``update_supply`` sets it from the state as it stands,
and the working state (``Work.refresh_supply``) runs it at the start of every step
and wherever a step moves what blocks a line before supply is read again. Besides
the line, in this order (``unit_supplied``): a DX bombardment cuts the unit off to
the next Game-Turn's step 10 (NM.BOMBLAND, AM.BOMBLAND); an emergency supply run
feeds it for the rest of its Game-Turn (SUP.F); the set-up's supply stands through
the first Game-Turn where the line disagrees with it (SETUP.SUPPLY,
``hold_setup_supply``); a scenario may hold an isolated unit in supply (``immune``:
the ruleset passes the hook ``ISOLATION_IMMUNE``, CG1.PHILFORT). The trace itself
(``supply_map``) also answers for hexes: where a unit may move or retreat to, where
a base or a set-up unit is.

A supply line (SUP.A) runs from the unit over land, then - once it crosses an
all-sea hexside or the land route is blocked - at sea, and never returns to
land. Rather than trace one line per unit, ``trace`` works backwards from
the side's sources (SUP.B) once, with two breadth-first searches:

* ``sea``: hexes from which a sea-borne line reaches a source. A sea step
  crosses a hexside that is at least partly sea and may not enter a hex with
  an enemy ship (SUP.D.SEA) or in an undisputed enemy air zone (SUP.D.ZOC).
* ``land``: hexes from which a line that starts over land (and may then go to
  sea) reaches a source. A land step crosses a hexside with some land into a
  land hex outside China and India (SUP.C), not into the enemy zone, and not
  *through* a hex holding enemy land units (SUP.D.LAND: into it is allowed).

A unit's own hex never blocks its line (the line starts there). The trace
depends on the state only through ``Blocks`` (what stops the side's lines), so a
caller may keep a trace until its blocks change.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from pbem.core.sides import JAPANESE, SIDES, Side, enemy_of
from pbem.rulesets.usn import fog, hexgrid
from pbem.rulesets.usn.geo import AUSTRALIA, HOME_ISLANDS, Geo
from pbem.rulesets.usn.sequence import last_naval_step
from pbem.rulesets.usn.state import OILERS, TRANSPORTS, Base, GameState, Unit
from pbem.rulesets.usn.zoc import undisputed_around, zoc_centres

Immune = Callable[[GameState, Unit], bool]  # a unit held in supply though isolated


def never(state: GameState, unit: Unit) -> bool:
    return False


SETUP_SUPPLY = "setup_supply"  # extra: the set-up's supply held through turn 1
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


@dataclass(frozen=True, slots=True)
class Blocks:
    """What stops a side's supply lines (SUP.D): the undisputed enemy air zone
    (SUP.D.ZOC), kept as the centres of both sides' zones (ZOC.DEF, ZOC.CANCEL), the
    hexes of enemy ships (SUP.D.SEA) and of enemy land units (SUP.D.LAND). Equal
    blocks give the same trace."""

    enemy_centres: frozenset[int]
    own_centres: frozenset[int]
    ships: frozenset[int]
    land: frozenset[int]


def sources_of(geo: Geo, side: Side) -> frozenset[int]:
    """SUP.B: Japanese Home Islands; for the Allies Australia and the east map edge."""
    if side == JAPANESE:
        return geo.regions.get(HOME_ISLANDS, frozenset())
    return geo.regions.get(AUSTRALIA, frozenset()) | geo.edges.get("east", frozenset())


def blocks_of(state: GameState) -> dict[Side, Blocks]:
    """Each side's ``Blocks``, from one pass over the units. Covered cargo blocks a
    line over land as the enemy sees it, ashore where it embarked (SUP.D.LAND, H1;
    docs/usn-fog.md, *Land attacks, supply and capture with cargo in port*), so that a
    side's own supply never tells it what went aboard."""
    ships: dict[str, set[int]] = {s: set() for s in SIDES}
    land: dict[str, set[int]] = {s: set() for s in SIDES}
    shown = {**state.units, **fog.covered_ashore(state.extra, state.units)}
    for u in shown.values():
        if u.hex is None:
            continue
        if u.is_naval:
            ships[u.side].add(u.hex)
        elif u.kind == "land":
            land[u.side].add(u.hex)
    centres = {s: frozenset(zoc_centres(state, s)) for s in SIDES}
    return {
        s: Blocks(
            centres[enemy_of(s)],
            centres[s],
            frozenset(ships[enemy_of(s)]),
            frozenset(land[enemy_of(s)]),
        )
        for s in SIDES
    }


def supply_map(geo: Geo, state: GameState, side: Side) -> SupplyMap:
    return traced(geo, side, blocks_of(state)[side])


def supply_maps(geo: Geo, state: GameState) -> dict[str, SupplyMap]:
    """Both sides' ``supply_map``."""
    maps: dict[str, SupplyMap] = {s: traced(geo, s, b) for s, b in blocks_of(state).items()}
    return maps


_TRACES: OrderedDict[tuple[int, str, Blocks], tuple[Geo, SupplyMap]] = OrderedDict()
_TRACES_LOCK = threading.Lock()
TRACES_KEPT = 64  # a Game-Turn's traces of both sides, validation and adjudication


def traced(geo: Geo, side: Side, blocks: Blocks) -> SupplyMap:
    """``trace``, remembered: the same map and blocks give the same lines, so the
    traces of a round's validations and of its adjudication are made once."""
    key = (id(geo), side, blocks)
    with _TRACES_LOCK:  # the daemon may judge orders in more than one thread
        hit = _TRACES.get(key)
        if hit is not None and hit[0] is geo:
            _TRACES.move_to_end(key)
            return hit[1]
    smap = trace(geo, side, blocks)
    with _TRACES_LOCK:
        _TRACES[key] = (geo, smap)  # the geo kept alive: its id is not reused meanwhile
        while len(_TRACES) > TRACES_KEPT:
            _TRACES.popitem(last=False)
    return smap


def trace(geo: Geo, side: Side, blocks: Blocks) -> SupplyMap:
    sources = sources_of(geo, side)
    # Hexes a line may not enter: at sea (enemy ships, SUP.D.SEA), anywhere (the
    # undisputed enemy zone, SUP.D.ZOC; China and India, SUP.C).
    zone = undisputed_around(blocks.enemy_centres, blocks.own_centres)
    no_entry = zone | geo.closed
    no_sea = no_entry | blocks.ships
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
    passable = enterable - blocks.land
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


def cut_off(state: GameState, unit: Unit, *, turn_over: bool) -> bool:
    """NM.BOMBLAND / AM.BOMBLAND: a DX result deprives the unit of supply "for one
    full Game-Turn", whatever the trace says meanwhile: ``extra["cut_off"]`` holds
    the next Game-Turn, and the cut ends at that turn's step 10."""
    until = int(state.extra.get("cut_off", {}).get(unit.key, 0))
    return state.turn < until or (state.turn == until and not turn_over)


def hold_setup_supply(geo: Geo, state: GameState) -> GameState:
    """SETUP.SUPPLY: "All air and land forces are considered supplied, except for the
    Japanese land forces on Guadalcanal in the Eastern Solomons and Santa Cruz
    Mini-Games." Where the set-up's supply and the line disagree (Hong Kong in
    Campaign Games 1 and 3 has no line; the Guadalcanal forces may have one), the
    set-up's stands through the first Game-Turn, to its step 10:
    ``extra["setup_supply"]`` holds it by unit key or base hex."""
    maps = supply_maps(geo, state)
    held = {
        u.key: u.supplied
        for u in state.units.values()
        if u.kind in ("land", "cd") and u.hex is not None
        if maps[u.side].supplied(u.hex) != u.supplied
    }
    for h, b in state.bases.items():
        if maps[b.owner].supplied(h) != b.supplied:
            held[hexgrid.fmt(h)] = b.supplied
    return replace(state, extra={**state.extra, SETUP_SUPPLY: held}) if held else state


def unit_supplied(
    state: GameState, unit: Unit, smap: SupplyMap, *, turn_over: bool, immune: Immune = never
) -> bool:
    """SUP.E: a land unit's supply as the state stands. A DX cut-off outweighs all
    else; an emergency run (SUP.F) fed it for its own Game-Turn only ("excess
    supplies may not be used in any later Game-Turns"), so not at step 10
    (``turn_over``); else the set-up's supply in the first Game-Turn (SETUP.SUPPLY),
    its line (SUP.A-D), or a scenario's hold on an isolated unit."""
    if unit.hex is None:
        return unit.supplied  # aboard or off the map: as when it left
    if cut_off(state, unit, turn_over=turn_over):
        return False
    if unit.emergency_supply_turn == state.turn and not turn_over:
        return True
    held = state.extra.get(SETUP_SUPPLY, {}).get(unit.key)
    if held is not None and not turn_over:
        return bool(held)
    return smap.supplied(unit.hex) or immune(state, unit)


def base_supplied(state: GameState, b: Base, smap: SupplyMap, *, turn_over: bool) -> bool:
    """SUP.E: a base's supply: its line, or the set-up's in the first Game-Turn."""
    held = state.extra.get(SETUP_SUPPLY, {}).get(hexgrid.fmt(b.hex))
    if held is not None and not turn_over:
        return bool(held)
    return smap.supplied(b.hex)


def update_supply(
    geo: Geo,
    state: GameState,
    maps: Mapping[str, SupplyMap] | None = None,
    *,
    turn_over: bool = False,
    immune: Immune = never,
) -> GameState:
    """Every land unit's and base's supplied flag as the state stands (ZOC.INSTANT,
    SUP.E); ``turn_over`` at step 10, where this Game-Turn's emergency supply and
    the set-up's supply (SETUP.SUPPLY) end."""
    if maps is None:
        maps = supply_maps(geo, state)
    changed = []
    # H1: cargo the enemy sees still ashore is traced from there (docs/usn-fog.md).
    for u in {**state.units, **fog.covered_ashore(state.extra, state.units)}.values():
        if u.kind in ("land", "cd"):
            ok = unit_supplied(state, u, maps[u.side], turn_over=turn_over, immune=immune)
            if ok != u.supplied:
                changed.append(replace(state.units[u.key], supplied=ok))
    bases = dict(state.bases)
    for h, b in state.bases.items():
        ok = base_supplied(state, b, maps[b.owner], turn_over=turn_over)
        if ok != b.supplied:
            bases[h] = replace(b, supplied=ok)
    out = replace(state.with_units(changed), bases=bases)
    if turn_over and SETUP_SUPPLY in state.extra:
        out = replace(out, extra={k: v for k, v in state.extra.items() if k != SETUP_SUPPLY})
    return out


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
