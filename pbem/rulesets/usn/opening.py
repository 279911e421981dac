"""A scenario's opening: the set-up rounds, CG1's pre-game and Shock turn, and the
Midway simulation's forced strike, as checks on the orders of those rounds.

- SETUP.JFIRST, SETUP.AREA, SETUP.FREE, SETUP.AIRANY: every scenario whose data leaves
  a side a choice (an area, "any" place of a kind, a pair of hexes, free air points;
  recorded by the ruleset's set-up in ``extra["setup"]`` with the default placement)
  opens with a set-up round per side, the Japanese first (``setup-J``, ``setup-A``):
  ``PLACE <unit> <hex>`` / ``PLACE <n> <type> <hex|carrier>`` within the choice's
  area; what is not placed keeps its default. The Japanese round also takes the
  optional subs (MINI.*.SUB: any sea hex) and, with OPT.JVD, their CL, DD, oiler and
  engineer counters (any Japanese naval base).
- CG1.SHOCK.PREGAME: two Japanese naval phases before turn 1; ships keep more than
  5 hexes from every Allied air or naval base and never use double speed (MOV.N);
  only naval units move.
- CG1.SHOCK.T1J1: in turn 1's first Japanese phase the same keep-out, and no
  non-naval unit moves. CG1.SHOCK.ANOMOVE: the Allies move nothing in turn 1.
  CG1.SHOCK.T1J2: the second Japanese phase is normal.
- MINI.MIDSIM.MOVE: in turn 1's two Japanese naval phases the simulation's group
  must move full speed, 12 hexes then 6, to a hex directly adjacent to Midway: each
  ship of the group needs MOVE/CONTINUE lines of exactly that length that end within
  reach of the goal (the second phase: next to Midway). ``forced_orders`` writes that
  move for a Japanese player who sends nothing (the ruleset's default orders).
- MINI.MIDSIM.STRIKE: once the simulation's carriers stand next to Midway and until
  Midway has been struck, a Japanese air plot must send at least 20 NAC against
  Midway and keep at most 4 NAC on CAP.

``restrict`` returns the refused lines; phases.run_round records them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn import hexgrid, scenario_rules, world
from pbem.rulesets.usn.geo import CLASS1, HOME_ISLANDS, Geo
from pbem.rulesets.usn.movement import movement_allowance
from pbem.rulesets.usn.orders import AirCargo, Line, Mission, Move, Place, verb_of
from pbem.rulesets.usn.sequence import MailRound, StepKind, current_round, naval_steps_of, step
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.work import Work

# Verbs that move something: refused to the Allies in the Shock turn (ANOMOVE).
# Air missions and land attacks are not moves (AMAC.PURPOSE: missions return to base).
MOVING = frozenset(
    {
        "MOVE",
        "CONTINUE",
        "SAIL",
        "TRANSFER",
        "DROP",
        "EMBARK",
        "DEBARK",
        "EMERGENCY",
        "STACK",
        "BASE",
        "SEA",
        "SUB",
        "BREAK",
        "COMBINE",
        "LAND",
    }
)
# Verbs that move a non-naval unit (air points, troops): refused to the Japanese in
# the pre-game turn and in turn 1's first phase (PREGAME: "may move his Naval units").
NON_NAVAL = frozenset({"TRANSFER", "DROP", "EMBARK", "DEBARK", "EMERGENCY"})

Refusal = tuple[Line, str, str]  # line, message, rule


# --- set-up ------------------------------------------------------------------------


def at_setup(state: GameState) -> GameState:
    """Name the opening rounds of the game in ``extra["opening"]`` (sequence.rounds_for):
    a set-up round for each side with free choices (``extra["setup"]``, recorded by the
    ruleset's set-up) or, for the Japanese, the variable deployment (OPT.JVD); the
    Japanese round first (SETUP.JFIRST); then CG1's pre-game and Shock turn."""
    opening: list[str] = []
    choices = state.extra.get("setup", {})
    jvd = "japanese_variable_deployment" in world.optional(state)
    if jvd or choices.get(JAPANESE) or state.extra.get("subs"):
        opening.append("setup-japanese")
    if choices.get(ALLIED):
        opening.append("setup-allied")
    shock = world.special(state).get("shock_turn")
    if shock is not None:
        if shock.get("pregame_naval_turn"):
            opening.append("pregame")
        opening.append("shock")
    if not opening:
        return state
    return replace(state, extra={**state.extra, "opening": opening})


# The kinds of location that leave the owner a choice (scenario.Place.any); "sea" is
# the submarines' paper set-up (submarines.py), not a counter's.
_AREA_KEYS = ("hexes", "region", "ref", "any", "adjacent_to_region")


def is_free(at: Any) -> bool:
    """SETUP.AREA / SETUP.FREE / SETUP.AIRANY: a scenario place that leaves the owner a
    choice: an area, any location of a kind, one of a printed pair of hexes."""
    if getattr(at, "unit", None) or getattr(at, "offmap", None) or at.any == "sea":
        return False
    return bool(at.any or at.region or at.adjacent_to_region or len(at.hexes) > 1)


def area_of(at: Any) -> dict[str, Any]:
    """A scenario place as JSON for ``extra["setup"]`` (only the keys it sets)."""
    out: dict[str, Any] = {}
    for key in _AREA_KEYS:
        v = getattr(at, key)
        if v:
            out[key] = list(v) if key == "hexes" else v
    return out


def describe_area(area: Mapping[str, Any]) -> str:
    if "hexes" in area:
        return "one of " + " or ".join(hexgrid.fmt(h) for h in area["hexes"])
    kind = str(area.get("any", "")).replace("-", " ")
    where = ""
    if "region" in area:
        where = f"in {area['region']}" + (
            f" (near {hexgrid.fmt(area['ref'])})" if "ref" in area else ""
        )
    if "adjacent_to_region" in area:
        where = f"next to {area['adjacent_to_region']}"
    if not kind:
        return f"anywhere {where}"
    if kind in ("base", "carrier", "carrier or base"):
        return f"any {kind} of yours" + (f" {where}" if where else "")
    return f"any {kind}" + (f" {where}" if where else " on your side of the start line")


def _region(name: str) -> str:
    return HOME_ISLANDS if name in ("japanese-home-islands", "japan") else name


def _choices(state: GameState, side: Side) -> Mapping[str, Any]:
    return dict(state.extra.get("setup", {}).get(side, {}))


def _start_line_side(state: GameState, h: int) -> str | None:
    """SETUP.STARTLINES: the side of the scenario's start line ``h`` is on (None: no map)."""
    sc = world.scenario_of(state)
    lines = getattr(world.current().map, "start_lines", None) or {}
    if sc is None or sc.start_line not in lines:
        return None
    return str(lines[sc.start_line].side_of(h))


def _unit_fault(w: Work, u: Unit, area: Mapping[str, Any], h: int) -> tuple[str, str] | None:
    """Why ``u`` may not set up at ``h`` in its area: (reason, rule), or None."""
    at = hexgrid.fmt(h)
    if "hexes" in area:
        if h not in area["hexes"]:
            return f"{u.uid} sets up {describe_area(area)}, not at {at}", "SETUP.HEXSPEC"
        return None
    if "region" in area and not w.geo.in_region(h, _region(area["region"])):
        return f"{at} is not in {area['region']}, {u.uid}'s set-up area", "SETUP.AREA"
    if "adjacent_to_region" in area:
        near = area["adjacent_to_region"]
        inside = w.geo.in_region(h, _region(near))
        if inside or not any(w.geo.in_region(n, _region(near)) for n in hexgrid.neighbours(h)):
            return f"{at} is not next to {near}, {u.uid}'s set-up area", "SETUP.AREA"
    kind = area.get("any")
    if u.is_naval or kind in ("naval-base", "friendly-naval-base"):
        b = w.own_base(h)
        if b is None or not b.has_naval:
            return f"{at} is no naval base of yours: ships set up in naval bases", "SETUP.TERRAIN"
    elif not w.geo.is_land(h):
        return f"{at} is not land: land units set up on land hexes", "SETUP.TERRAIN"
    if kind and "region" not in area:
        line = _start_line_side(w.state, h)
        if line is not None and line != u.side:
            return f"{at} is on the {line} side of the start line", "SETUP.FREE"
    fault = stacking_fault(w, u, h)
    if fault is not None:
        return fault
    if not u.is_naval and not w.supply(u.side).supplied(h):
        return f"{at} is out of supply: no unit sets up out of supply", "SETUP.TERRAIN"
    return None


def stacking_fault(w: Work, u: Unit, h: int) -> tuple[str, str] | None:
    """The stacking rules for a land unit set up at ``h`` with the units already there
    (the enemy's and the side's own, by default or by earlier PLACE lines): STK.GEN "there
    is no limit to the number or type of units that may be present in a single hex",
    save STK.A "there may never be opposing land units on the same Class 1 ... hex" and
    STK.B: an enemy base or CD unit in the hex would be captured or destroyed, which no
    set-up does. Opposing land units may share a Class 2 hex (Guadalcanal, 0828, in
    the Eastern Solomons' own order of battle)."""
    at = hexgrid.fmt(h)
    enemies = [x for x in w.units.values() if x.hex == h and x.side != u.side]
    held = w.bases.get(h)
    if (held is not None and held.owner != u.side) or any(x.kind == "cd" for x in enemies):
        return f"{at} is held by the enemy (its base or coastal defence)", "STK.B"
    if w.geo.terrain.get(h) == CLASS1 and any(x.is_land for x in enemies):
        return f"opposing land units may never share the Class 1 hex {at}", "STK.A"
    return None


def _air_fault(w: Work, side: Side, atype: str, area: Mapping[str, Any], loc: str) -> str | None:
    """Why free air points of ``area`` may not set up at ``loc`` (SETUP.AIRANY), or None."""
    kind = str(area.get("any", "base"))
    h = hexgrid.hex_of(loc)
    if h is None:
        ship = w.units.get(f"{side}/{loc}")
        if ship is None or not ship.is_carrier or ship.hex is None:
            return f"{loc} is no carrier of yours on the map"
        if atype != "NAC":
            return f"only NAC fly from carriers, not {atype}"
        if "carrier" not in kind or "hexes" in area or "region" in area:
            return f"these {atype} set up at a base, not on a carrier"
        return None
    b = w.own_base(h)
    if b is None or not b.has_air:
        return f"{loc} is no air base of yours"
    if "hexes" in area and h not in area["hexes"]:
        return f"these {atype} set up {describe_area(area)}"
    if "region" in area and not w.geo.in_region(h, _region(area["region"])):
        return f"{loc} is not in {area['region']}"
    if "hexes" not in area and "region" not in area and "base" not in kind:
        return f"these {atype} set up on a carrier"
    return None


def _air_capacity(w: Work, side: Side, loc: str) -> int:
    h = hexgrid.hex_of(loc)
    if h is None:
        ship = w.units.get(f"{side}/{loc}")
        return ship.capacity if ship is not None else 0
    b = w.own_base(h)
    return b.air_capacity if b is not None else 0


def begin_setup(w: Work, side: Side, orders: Sequence[Place]) -> None:
    """SETUP.AIRANY: the free air pools of each type the side places are lifted from
    their default places, to be placed by its PLACE lines (the rest: ``end_setup``)."""
    types = {o.what.atype for o in orders if isinstance(o.what, AirCargo)}
    left: dict[str, int] = {}
    for i, pool in enumerate(_choices(w.state, side).get("air", ())):
        if pool["type"] not in types:
            continue
        for loc, n in pool["default"]:
            have = w.air_at(side, loc)
            w.set_air(side, loc, have.add(pool["type"], -min(n, have.get(pool["type"]))))
        left[str(i)] = int(pool["points"])
    w.state = replace(w.state, extra={**w.state.extra, "setup_left": left})


def end_setup(w: Work, side: Side) -> None:
    """Free air points no PLACE line took go back to their default places (then to any
    other fitting place), within capacity: a side that places nothing keeps the default."""
    left = dict(w.state.extra.get("setup_left", {}))
    pools = _choices(w.state, side).get("air", ())
    for i, n in sorted(left.items()):
        pool = pools[int(i)]
        atype = str(pool["type"])
        spots = [str(loc) for loc, _ in pool["default"]]
        spots += sorted(_air_spots(w, side, atype, pool["area"]) - set(spots))
        for loc in spots:
            take = min(n, max(0, _air_capacity(w, side, loc) - w.air_at(side, loc).total))
            if take:
                w.set_air(side, loc, w.air_at(side, loc).add(atype, take))
                n -= take
        if n and spots:  # no room left anywhere: as the default set-up did
            w.set_air(side, spots[0], w.air_at(side, spots[0]).add(atype, n))
    extra = {k: v for k, v in w.state.extra.items() if k != "setup_left"}
    w.state = replace(w.state, extra=extra)


def _air_spots(w: Work, side: Side, atype: str, area: Mapping[str, Any]) -> set[str]:
    spots = {hexgrid.fmt(h) for h, b in w.bases.items() if b.owner == side and b.has_air}
    spots |= {u.uid for u in w.units.values() if u.side == side and u.is_carrier}
    return {loc for loc in spots if _air_fault(w, side, atype, area, loc) is None}


def do_setup_place(w: Work, order: Place) -> None:
    """A set-up PLACE: a free unit within its set-up area (SETUP.AREA, SETUP.FREE), free
    air points at a fitting base or carrier within capacity (SETUP.AIRANY,
    SETUP.CAPACITY), or a Japanese CL, DD, oiler or engineer at any Japanese naval base
    (OPT.JVD)."""
    side = w.side
    if isinstance(order.what, AirCargo):
        _setup_air(w, side, order.what, order.carrier or hexgrid.fmt(order.hex))
        return
    if side == JAPANESE and order.what in w.state.extra.get("subs", {}):
        _setup_sub(w, order.what, order.hex)
        return
    u = w.own(order.what)
    jvd = _jvd(w.state) if side == JAPANESE else {}
    area = _choices(w.state, side).get("units", {}).get(u.uid)
    if jvd and u.utype in tuple(jvd.get("types", ())):
        _jvd_place(w, u, order.hex)
        return
    if order.carrier:
        raise IllegalOrderError("a unit is placed on a hex, not aboard a ship", rule="SETUP.FREE")
    if area is None:
        rule = "OPT.JVD" if jvd else "SETUP.HEXSPEC"
        raise IllegalOrderError(f"{u.uid} has a fixed set-up place: {u.where()}", rule=rule)
    fault = _unit_fault(w, u, area, order.hex)
    if fault is not None:
        raise IllegalOrderError(fault[0], rule=fault[1])
    base = w.own_base(order.hex)
    in_base = u.is_naval and base is not None and base.has_naval
    w.put(replace(u, hex=order.hex, box=None, in_base=in_base))
    w.event("placed", "SETUP.FREE", (side,), side=side, unit=u.uid, at=hexgrid.fmt(order.hex))


def _setup_air(w: Work, side: Side, air: AirCargo, loc: str) -> None:
    left: dict[str, int] = dict(w.state.extra.get("setup_left", {}))
    pools = _choices(w.state, side).get("air", ())
    fits = [
        i
        for i, n in left.items()
        if n
        and pools[int(i)]["type"] == air.atype
        and _air_fault(w, side, air.atype, pools[int(i)]["area"], loc) is None
    ]
    if not fits:
        mine = [p for p in pools if p["type"] == air.atype]
        if not mine:
            raise IllegalOrderError(f"you have no free {air.atype} to place", rule="SETUP.AIRANY")
        why = _air_fault(w, side, air.atype, mine[0]["area"], loc)
        raise IllegalOrderError(
            why or f"all your free {air.atype} are placed already", rule="SETUP.AIRANY"
        )
    # The narrowest area first: a region or a list of hexes before "any base".
    fits.sort(key=lambda i: ("any" in pools[int(i)]["area"], int(i)))
    if sum(left[i] for i in fits) < air.points:
        total = sum(left[i] for i in fits)
        raise IllegalOrderError(
            f"only {total} free {air.atype} are left to place at {loc}", rule="SETUP.AIRANY"
        )
    room = _air_capacity(w, side, loc) - w.air_at(side, loc).total
    if air.points > room:
        raise IllegalOrderError(
            f"{loc} has room for {max(room, 0)} more air points (capacity "
            f"{_air_capacity(w, side, loc)})",
            rule="SETUP.CAPACITY",
        )
    need = air.points
    for i in fits:
        take = min(need, left[i])
        left[i] -= take
        need -= take
    w.set_air(side, loc, w.air_at(side, loc).add(air.atype, air.points))
    w.state = replace(w.state, extra={**w.state.extra, "setup_left": left})
    w.event("placed", "SETUP.AIRANY", (side,), side=side, air=air.text(), at=loc)


def _setup_sub(w: Work, uid: str, h: int) -> None:
    """MINI.CORAL.SUB (and MINI.*.SUB, CG*.OB.J.OPT): a sub "may deploy anywhere on the
    map within the Submarine rules; the Sub need not be on station": any sea hex, off
    station (STATION takes station in a naval phase). Kept secret (GEN.REC.C)."""
    if not w.geo.is_sea(h):
        raise IllegalOrderError(
            f"{hexgrid.fmt(h)} is not a sea hex: a submarine sets up at sea", rule="SETUP.FREE"
        )
    subs = dict(w.state.extra["subs"])
    subs[uid] = {**subs[uid], "hex": h, "station": False, "phases": 0}
    w.state = replace(w.state, extra={**w.state.extra, "subs": subs})
    w.event("sub-moved", "SETUP.FREE", (JAPANESE,), sub=uid, path=[hexgrid.fmt(h)])


def _jvd(state: GameState) -> Mapping[str, Any]:
    return world.optional(state).get("japanese_variable_deployment") or {}


def _jvd_place(w: Work, u: Unit, h: int) -> None:
    """OPT.JVD: a CL, DD, oiler or engineer counter to any Japanese naval base."""
    if u.carried_by is not None or u.hex is None:
        raise IllegalOrderError(f"{u.uid} does not start on the map", rule="OPT.JVD")
    base = w.own_base(h)
    if base is None or not base.has_naval:
        raise IllegalOrderError(f"{hexgrid.fmt(h)} is not a Japanese naval base", rule="OPT.JVD")
    fault = None if u.is_naval else stacking_fault(w, u, h)  # an engineer: STK.A
    if fault is not None:
        raise IllegalOrderError(fault[0], rule=fault[1])
    w.put(replace(u, hex=h, box=None, in_base=u.is_naval))
    w.event("placed", "OPT.JVD", (JAPANESE,), side=JAPANESE, unit=u.uid, at=hexgrid.fmt(h))


def setup_form(state: GameState, side: Side) -> list[str]:
    """The order form's set-up part: each free choice and the area it may go to."""
    out = [
        "#",
        "# Set-up (SETUP.JFIRST: the Japanese first, then the Allies):",
        "#   PLACE <unit> <hex>                 a unit anywhere in its set-up area",
        "#   PLACE <n> <TYPE> <hex|carrier>     free air points at a base or carrier of the area",
        '# What you do not place keeps its default place (shown under "Your units").',
    ]
    jvd = _jvd(state) if side == JAPANESE else {}
    if jvd:
        types = ", ".join(jvd.get("types", ()))
        out.append(f"#   OPT.JVD: your {types} counters may go to any Japanese naval base")
    groups: dict[str, list[str]] = {}
    for uid, area in _choices(state, side).get("units", {}).items():
        groups.setdefault(describe_area(area), []).append(uid)
    if groups:
        out.append("# Free units and their set-up areas:")
    for where, uids in groups.items():
        out.append(f"#   {' '.join(uids)}: {where}")
    subs = sorted(state.extra.get("subs", {})) if side == JAPANESE else []
    if subs:
        out.append(f"#   {' '.join(subs)}: any sea hex, off station (secret; MINI.*.SUB)")
    pools = _choices(state, side).get("air", ())
    if pools:
        out.append("# Free air points (SETUP.AIRANY; garrisons stay where they are):")
    for pool in pools:
        default = ", ".join(f"{n} at {loc}" for loc, n in pool["default"])
        area = describe_area({"any": "base", **pool["area"]})
        out.append(f"#   {pool['points']} {pool['type']}: {area} (default: {default})")
    return out


# --- restrictions --------------------------------------------------------------------


def restrict(w: Work, rnd: MailRound, side: Side, lines: Sequence[Line]) -> list[Refusal]:
    """The lines of ``side`` that the round's special rules refuse."""
    out: list[Refusal] = []
    rules = set(rnd.rules)
    if not rnd.steps:  # a set-up round
        out += [
            (ln, "only PLACE and STANDING orders are written at set-up", "SETUP.JFIRST")
            for ln in lines
            if verb_of(ln.order) not in ("PLACE", "STANDING")
        ]
    if side == ALLIED and "CG1.SHOCK.ANOMOVE" in rules:
        out += [
            (ln, "the Allies may not move at all in Game-Turn 1", "CG1.SHOCK.ANOMOVE")
            for ln in lines
            if verb_of(ln.order) in MOVING
        ]
    if side == JAPANESE:
        for rule in ("CG1.SHOCK.PREGAME", "CG1.SHOCK.T1J1"):
            if rule in rules:
                out += _shock_japanese(w, rule, lines)
    if side == JAPANESE and any(step(n).kind is StepKind.STRIKE for n in rnd.steps):
        out += _midway_strike(w, lines)
    if side == JAPANESE:
        out += _midway_move(w, rnd, lines)
    out += _stay_put(w, side, lines)
    return out


def _stay_put(w: Work, side: Side, lines: Sequence[Line]) -> list[Refusal]:
    """A moving line naming a unit a special rule holds in place (CG1.OB.A.OPT)."""
    bound = scenario_rules.must_stay(w.geo, w.state, side)
    out: list[Refusal] = []
    for ln in lines:
        if verb_of(ln.order) not in MOVING:
            continue
        named = set(ln.order.canonical().split())
        for uid, h, rule in bound:
            if uid in named:
                msg = (
                    f"{uid} must remain in {hexgrid.fmt(h)} until Japanese units cross "
                    "the border into Burma"
                )
                out.append((ln, msg, rule))
                break
    return out


def _shock_japanese(w: Work, rule: str, lines: Sequence[Line]) -> list[Refusal]:
    shock = world.special(w.state).get("shock_turn") or {}
    key = "pregame_keep_out_hexes" if rule == "CG1.SHOCK.PREGAME" else "first_phase_keep_out_hexes"
    radius = int(shock.get(key, 5))
    allied = [h for h, b in w.bases.items() if b.owner == ALLIED and (b.has_air or b.has_naval)]
    out: list[Refusal] = []
    hexes_moved: dict[str, int] = {}
    for ln in lines:
        verb = verb_of(ln.order)
        if verb in NON_NAVAL:
            out.append((ln, "only naval units move in this phase of the Shock turn", rule))
            continue
        if not isinstance(ln.order, Move):
            continue
        too_near = _first_near(ln.order.path, allied, radius)
        if too_near is not None:
            msg = f"{hexgrid.fmt(too_near)} is within {radius} hexes of an Allied air or naval base"
            out.append((ln, msg, rule))
            continue
        if rule == "CG1.SHOCK.PREGAME" and not shock.get("pregame_double_speed", False):
            for uid in ln.order.units:
                u = w.units.get(f"{JAPANESE}/{uid}")
                if u is None or not u.is_naval:
                    continue
                used = hexes_moved.get(uid, 0) + sum(
                    1 for t in ln.order.path if hexgrid.hex_of(t) is not None
                )
                hexes_moved[uid] = used
                if used > u.ma:
                    out.append((ln, f"{uid} may not move double speed in the pre-game turn", rule))
                    break
    return out


def _first_near(path: Iterable[str], bases: Sequence[int], radius: int) -> int | None:
    for tok in path:
        h = hexgrid.hex_of(tok)
        if h is not None and any(hexgrid.distance(h, b) <= radius for b in bases):
            return h
    return None


# --- MINI.MIDSIM.STRIKE ---------------------------------------------------------------


def midway_strike_due(state: GameState) -> Mapping[str, Any] | None:
    """The simulation's strike rule while it is due: a carrier of the group stands
    next to Midway (the end of the MINI.MIDSIM.MOVE run) and Midway is not yet struck."""
    sim = world.special(state).get("midway_simulation")
    if sim is None or state.extra.get("midway_struck"):
        return None
    target = int(sim["strike_target"])
    for uid in sim.get("group", ()):
        u = state.unit(JAPANESE, str(uid))
        near = u is not None and u.hex is not None and hexgrid.distance(u.hex, target) <= 1
        if near and u is not None and u.is_carrier:
            return sim
    return None


def _midway_strike(w: Work, lines: Sequence[Line]) -> list[Refusal]:
    sim = midway_strike_due(w.state)
    if sim is None:
        return []
    target = int(sim["strike_target"])
    cap_max = int(sim.get("max_cap_points", 4))
    need = int(sim.get("min_strike_points", 20))
    out: list[Refusal] = []
    cap = strike = 0
    for ln in lines:
        m = ln.order
        if not isinstance(m, Mission) or m.air.atype != "NAC":
            continue
        if m.kind == "CAP":
            if cap + m.air.points > cap_max:
                msg = f"at most {cap_max} NAC fly CAP while Midway's strike is due"
                out.append((ln, msg, "MINI.MIDSIM.STRIKE"))
                continue
            cap += m.air.points
        elif m.kind == "STRIKE" and m.dest == target:
            strike += m.air.points
    if strike < need:
        msg = (
            f"the Midway strike is due: at least {need} NAC must strike {hexgrid.fmt(target)} "
            f"(this plot sends {strike})"
        )
        # The missing strike is no line of the sheet: refused as line 0, the whole plot.
        missing = Line(0, "", Mission("STRIKE", AirCargo(need, "NAC"), "", target))
        out.append((missing, msg, "MINI.MIDSIM.STRIKE"))
    return out


# --- MINI.MIDSIM.MOVE -----------------------------------------------------------------


def forced_move_due(state: GameState, rnd: MailRound) -> tuple[Mapping[str, Any], int] | None:
    """(the simulation's data, which of its forced moves) when ``rnd`` holds one of
    turn 1's Japanese Naval Movement Phases that MINI.MIDSIM.MOVE fixes ("12 hexes
    first Naval Movement Phase, and 6 hexes second Naval Movement Phase")."""
    sim = world.special(state).get("midway_simulation")
    if sim is None or state.turn != 1:
        return None
    naval = naval_steps_of(JAPANESE)
    phases = [naval.index(n) for n in rnd.steps if n in naval]
    if not phases or phases[0] >= len(sim.get("moves", ())):
        return None
    return sim, phases[0]


def _forced_ships(state: GameState, sim: Mapping[str, Any]) -> list[Unit]:
    """The group's ships still on the map (a sunk ship has nothing left to do)."""
    out = []
    for uid in sim.get("group", ()):
        u = state.unit(JAPANESE, str(uid))
        if u is not None and u.hex is not None and u.carried_by is None:
            out.append(u)
    return out


def _forced_need(u: Unit, moves: Sequence[int], phase: int) -> int:
    """The hexes ``u`` must enter this phase: the rule's number, or a damaged ship's
    full speed if less (it may not use double speed, MOV.N)."""
    full = movement_allowance(u) * (1 if u.damaged else 2)
    return min(int(moves[phase]), full)


def _forced_rest(sim: Mapping[str, Any], phase: int) -> int:
    """The sea hexes the group may still stand from a hex next to Midway after
    ``phase``: none after the last forced phase, else what the later phases make good."""
    return sum(int(m) for m in sim["moves"][phase + 1 :])


def _forced_limit(
    dist: Mapping[int, int], u: Unit, sim: Mapping[str, Any], phase: int, need: int
) -> int:
    """Where ``u`` must end (sea hexes from a hex next to Midway): the rule's place,
    or, for a ship too slowed to get there (CBT.H), ``need`` hexes nearer."""
    start = dist.get(u.hex, 0) if u.hex is not None else 0
    return max(_forced_rest(sim, phase), start - need)


def _goal_distances(geo: Geo, sim: Mapping[str, Any]) -> tuple[int, dict[int, int]]:
    """Midway's hex and every hex's sea distance to a hex directly adjacent to it."""
    goal = int(sim.get("end_adjacent_to", sim["strike_target"]))
    targets = [n for n in hexgrid.neighbours(goal) if n in geo.naval_nbrs]
    return goal, _sea_distances(geo, targets)


def _midway_move(w: Work, rnd: MailRound, lines: Sequence[Line]) -> list[Refusal]:
    due = forced_move_due(w.state, rnd)
    if due is None:
        return []
    sim, phase = due
    goal, dist = _goal_distances(w.geo, sim)
    ships = _forced_ships(w.state, sim)
    moved: dict[str, int] = {}
    last: dict[str, Line] = {}
    end: dict[str, int | None] = {}
    for ln in lines:
        m = ln.order
        if not isinstance(m, Move):
            continue
        hexes = [h for h in (hexgrid.hex_of(t) for t in m.path) if h is not None]
        for uid in m.units:
            if any(u.uid == uid for u in ships):
                moved[uid] = moved.get(uid, 0) + len(hexes)
                last[uid] = ln
                off = bool(m.path) and hexgrid.hex_of(m.path[-1]) is None
                end[uid] = None if off else (hexes[-1] if hexes else end.get(uid))
    out: list[Refusal] = []
    refused: set[int] = set()
    missing: list[str] = []
    rule = "MINI.MIDSIM.MOVE"
    midway = f"Midway ({hexgrid.fmt(goal)})"
    for u in ships:
        need = _forced_need(u, sim["moves"], phase)
        if u.uid not in last:
            missing.append(u.uid)
            continue
        ln = last[u.uid]
        if ln.number in refused:
            continue
        at = end.get(u.uid)
        limit = _forced_limit(dist, u, sim, phase, need)
        if moved[u.uid] != need:
            msg = (
                f"{u.uid} must move full speed, {need} hexes in this Naval Movement Phase "
                f"(this sheet moves it {moved[u.uid]})"
            )
        elif at is None or at not in dist or dist[at] > limit:
            where = (
                f"directly adjacent to {midway}"
                if limit == 0
                else f"within {limit} sea hexes of a hex directly adjacent to {midway}"
            )
            msg = f"{u.uid} must end {where} this phase"
        else:
            continue
        refused.add(ln.number)
        out.append((ln, msg, rule))
    if missing:
        need = max(_forced_need(u, sim["moves"], phase) for u in ships if u.uid in missing)
        msg = (
            f"no MOVE for the forced group: {' '.join(missing)} must move {need} hexes "
            f"toward {midway} in this Naval Movement Phase"
        )
        # The missing move is no line of the sheet: refused as line 0, the whole sheet.
        out.append((Line(0, "", Move(tuple(missing), ())), msg, rule))
    return out


def forced_orders(geo: Geo, state: GameState) -> tuple[str, ...]:
    """MINI.MIDSIM.MOVE for a Japanese player who sends nothing: the group's ships,
    hex by hex by sea, each phase's full count of hexes toward Midway, never ending
    farther than the later phases can make good; where double speed is needed the
    hexes too near the enemy (MOV.N) are avoided when a choice allows."""
    rnd = current_round(state)
    if any(step(n).kind is StepKind.STRIKE for n in rnd.steps):
        return _forced_strike(state)
    due = forced_move_due(state, rnd)
    if due is None:
        return ()
    sim, phase = due
    _goal, dist = _goal_distances(geo, sim)
    w = Work.start(geo, state)
    w.set_side(JAPANESE)
    danger = w.danger()
    groups: dict[tuple[int, int, int], list[str]] = {}
    for u in _forced_ships(state, sim):
        assert u.hex is not None
        need = _forced_need(u, sim["moves"], phase)
        limit = _forced_limit(dist, u, sim, phase, need)
        groups.setdefault((u.hex, need, limit), []).append(u.uid)
    out: list[str] = []
    for (start, need, limit), uids in sorted(groups.items()):
        path = _forced_path(geo, dist, danger, start, need, limit)
        if path:
            out.append(f"MOVE {' '.join(uids)} {' '.join(hexgrid.fmt(h) for h in path)}")
    return tuple(out)


def _forced_strike(state: GameState) -> tuple[str, ...]:
    """MINI.MIDSIM.STRIKE for a Japanese player who sends nothing while the strike is
    due: the group's carriers send the NAC the rule asks for against Midway's air base
    ("he may attack anything on Midway Island"), no CAP."""
    sim = midway_strike_due(state)
    if sim is None:
        return ()
    target = hexgrid.fmt(int(sim["strike_target"]))
    need = int(sim.get("min_strike_points", 20))
    out: list[str] = []
    for u in _forced_ships(state, sim):
        if not u.is_carrier or need <= 0:
            continue
        n = min(state.air.get(JAPANESE, {}).get(u.uid, Air()).nac, need)
        if n > 0:
            out.append(f"STRIKE {n} NAC {u.uid} {target} AIRBASE")
            need -= n
    return tuple(out)


def _sea_distances(geo: Geo, targets: Sequence[int]) -> dict[int, int]:
    """Hexes entered by sea from each hex to the nearest of ``targets``."""
    dist = {t: 0 for t in targets}
    queue = deque(targets)
    while queue:
        h = queue.popleft()
        for n in geo.naval_nbrs.get(h, ()):
            if n not in dist and h in geo.naval_nbrs.get(n, ()):
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist


def _forced_path(
    geo: Geo, dist: Mapping[int, int], danger: Mapping[int, int], start: int, need: int, rest: int
) -> list[int]:
    """``need`` hexes from ``start`` ending at most ``rest`` sea hexes from the goal:
    each hex keeps the end within reach; the far ones and the safe ones first."""
    path: list[int] = []
    here = start
    for k in range(need, 0, -1):
        fits = [n for n in geo.naval_nbrs.get(here, ()) if n in dist and dist[n] <= k - 1 + rest]
        if not fits:
            return []
        here = min(fits, key=lambda n: (n in danger, -dist[n], n))
        path.append(here)
    return path
