"""The U.S.N. state checked on the rules' own terms (the moderator's EDIT must leave
a state these checks pass: pbem.core.ruleset.CheckedState).

First the state is read through its typed codec (state.py): a key the codec does
not know, a key it needs that is missing, or a value of another type than its
field's is a problem. Then the few ranges the rulebook gives, each message citing
its rule: every unit a counter of the game's counter mix, on its own side and of
its counter's type (UNIT.SELECT); hexes on the map (UNIT.MAP); weeks of damage on
ships only and at most forty (VP.DAMAGE, CBT.I); Game-Turns at sea short of the
ship's endurance (SUP.G); air points never negative (UNIT.AIR.POINTS); cargo within
its transport's capacity (NM.TRANS.CAP); only land units entrenched (ENT.GEN); the
Game-Turn within the scenario's length (GEN.TURN).
"""

from __future__ import annotations

import types
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, fields
from typing import Any, Union, get_args, get_origin, get_type_hints

from pbem.core.sides import Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.data import UsnWorld
from pbem.rulesets.usn.sequence import rounds_for
from pbem.rulesets.usn.state import (
    WEST_COAST,
    Air,
    Base,
    GameState,
    Unit,
    unit_from_counter,
    unit_key,
)
from pbem.rulesets.usn.supply import endurance
from pbem.rulesets.usn.units import NavalCounter

SINK_ABOVE = 40  # CBT.I: a total above forty weeks of damage sinks the ship
_STATE_KEYS = frozenset(f.name for f in fields(GameState) if not f.name.startswith("_"))
_TOP = {"scenario": str, "turn": int, "last_turn": int, "round": int}


def state_problems(raw: Mapping[str, Any], world: UsnWorld) -> list[str]:
    """What in the stored state ``raw`` the rules cannot hold, one sentence each
    (empty if nothing), judged by the game's world data ``world``."""
    problems = list(_decode_problems(raw))
    if problems:
        return problems
    try:
        state = GameState.from_json(raw)
    except (KeyError, TypeError, ValueError) as exc:
        return [f"the state does not read as a U.S.N. state ({type(exc).__name__}: {exc})"]
    return [
        *_turn_problems(state, world),
        *_unit_problems(state, world),
        *_air_problems(state),
        *_base_problems(state),
    ]


# --- the typed codec ---------------------------------------------------------------


def _decode_problems(raw: Mapping[str, Any]) -> Iterator[str]:
    """Keys and value types as state.py's records declare them."""
    if unknown := sorted(set(raw) - _STATE_KEYS - {"version"}):
        yield f"the state has no key {', '.join(map(repr, unknown))} in U.S.N.'s state"
    for key, kind in _TOP.items():
        if not _fits(raw.get(key), kind):
            yield f"{key} {raw.get(key)!r} is not {_name(kind)}"
    units, air, bases = raw.get("units"), raw.get("air"), raw.get("bases")
    if not isinstance(units, list) or not isinstance(bases, list):
        yield "units and bases must each be a list of records"
        return
    for i, unit in enumerate(units):
        yield from _record_problems(f"units[{i}]", unit, Unit)
    keys = Counter(f"{u.get('side')} {u.get('uid')}" for u in units if isinstance(u, dict))
    yield from (f"{key} is in the state twice" for key, n in keys.items() if n > 1)
    for i, base in enumerate(bases):
        yield from _record_problems(f"bases[{i}]", base, Base)
    if not isinstance(air, dict) or not all(isinstance(v, dict) for v in air.values()):
        yield "air must map each side to its locations' air points"
        return
    for side, places in air.items():
        for loc, points in places.items():
            yield from _record_problems(f"{side}'s air at {loc}", points, Air)


def _record_problems(where: str, raw: Any, cls: type) -> Iterator[str]:
    """One record against its dataclass: known keys, required keys, value types."""
    if not isinstance(raw, dict):
        yield f"{where} is not a record"
        return
    hints = get_type_hints(cls)
    known = {f.name: f for f in fields(cls)}
    if unknown := sorted(set(raw) - set(known)):
        yield f"{where} has no key {', '.join(map(repr, unknown))}"
    for name, f in known.items():
        if name not in raw:
            if f.default is MISSING and f.default_factory is MISSING:
                yield f"{where} lacks its {name}"
        elif not _fits(raw[name], hints[name]):
            yield f"{where}: {name} {raw[name]!r} is not {_name(hints[name])}"


def _fits(value: Any, hint: Any) -> bool:
    """Whether a stored value is of a field's type (a bool is no number here)."""
    if get_origin(hint) in (Union, types.UnionType):
        return any(_fits(value, arm) for arm in get_args(hint))
    if hint is type(None):
        return value is None
    if hint is Side:
        return isinstance(value, str) and value in {s.value for s in Side}
    if hint in (int, float):
        return isinstance(value, int | float if hint is float else int) and not isinstance(
            value, bool
        )
    if hint in (str, bool):
        return isinstance(value, hint)
    return True  # a container: read by the codec itself


def _name(hint: Any) -> str:
    if get_origin(hint) in (Union, types.UnionType):
        return " or ".join(_name(arm) for arm in get_args(hint))
    names = {int: "a whole number", float: "a number", str: "a text", bool: "true or false"}
    if hint is Side:
        return "a side (" + " or ".join(s.value for s in Side) + ")"
    return "null" if hint is type(None) else names.get(hint, getattr(hint, "__name__", "?"))


# --- the rules' ranges ---------------------------------------------------------------


def _turn_problems(state: GameState, world: UsnWorld) -> Iterator[str]:
    """GEN.TURN: the Game-Turn within the scenario's length; the round one of the turn's."""
    sc = world.scenarios.get(state.scenario)
    if sc is None:
        yield f"scenario {state.scenario!r} is not one of {', '.join(sorted(world.scenarios))}"
        return
    if state.last_turn != sc.game_turns:
        yield f"last_turn {state.last_turn} is not {sc.game_turns}, the length of {sc.name}"
    if not 1 <= state.turn <= sc.game_turns:
        yield f"Game-Turn {state.turn} is not 1 to {sc.game_turns} (GEN.TURN: {sc.name})"
        return
    rounds = len(rounds_for(state))
    if not -1 <= state.round < rounds:
        yield (
            f"round {state.round} is not 0 to {rounds - 1} (the rounds of Game-Turn "
            f"{state.turn}), or -1 once the game is over (SEQ.STRICT)"
        )


def _unit_problems(state: GameState, world: UsnWorld) -> Iterator[str]:
    coastal = world.scenarios[state.scenario].coastal_defense
    for u in state.units.values():
        yield from _counter_problems(u, world, coastal)
        yield from _place_problems(u, state)
        yield from _ship_problems(u)
        if u.entrenched and u.is_naval:
            yield f"{u.side} {u.uid} is a ship and cannot be entrenched (ENT.GEN: land units)"
        if not 0 <= u.emergency_supply_turn <= state.turn:
            yield (
                f"{u.side} {u.uid}: emergency_supply_turn {u.emergency_supply_turn} is not "
                f"0 to {state.turn}, the Game-Turn (SUP.F)"
            )
    yield from _cargo_problems(state)


def _counter_problems(u: Unit, world: UsnWorld, coastal: Mapping[str, Any]) -> Iterator[str]:
    """UNIT.SELECT: a unit is a counter of the mix (or a CD counter of the scenario),
    of its counter's type and printed values."""
    c = world.catalogue.counters.get(u.key) or coastal.get(u.key)
    if c is None:
        yield f"{u.side} has no unit {u.uid} in the counter mix (UNIT.SELECT)"
        return
    printed = str(getattr(c.type, "value", c.type))
    if u.utype != printed:
        yield f"{u.side} {u.uid} is a {printed} counter, not {u.utype} (UNIT.SELECT)"
    if u.is_naval != isinstance(c, NavalCounter):
        yield f"{u.side} {u.uid}: kind {u.kind!r} is not its counter's (UNIT.SELECT)"
    # UNIT.LAND.LAYOUT, UNIT.NAV.LAYOUT: the values printed on the counter, copied
    # at set-up and never changed in play (a unit moved to the other side shows here).
    rule = "UNIT.NAV.LAYOUT" if u.is_naval else "UNIT.LAND.LAYOUT"
    for name, value in _printed(unit_from_counter(c)).items():
        if getattr(u, name) != value:
            yield f"{u.side} {u.uid}: {name} {getattr(u, name)} is not its counter's {value} ({rule})"


def _printed(u: Unit) -> dict[str, int]:
    return {
        name: getattr(u, name) for name in ("ma", "attack", "defense", "aa", "sa", "capacity", "tp")
    }


def _place_problems(u: Unit, state: GameState) -> Iterator[str]:
    """UNIT.MAP: a hex on the map; NM.TRANS: carried by a ship of its own side."""
    if u.hex is not None and not hexgrid.on_map(u.hex):
        yield (
            f"{u.side} {u.uid}: hex {u.hex} is off the map (hexes run 0001 to "
            f"{hexgrid.fmt(hexgrid.LAST_HEX)}, UNIT.MAP)"
        )
    if u.carried_by is not None:
        carrier = state.units.get(unit_key(u.side, u.carried_by))
        if carrier is None or not carrier.is_naval:
            yield f"{u.side} {u.uid} is aboard {u.carried_by}, which is no ship of its side"


def _ship_problems(u: Unit) -> Iterator[str]:
    """VP.DAMAGE, CBT.I: weeks of damage on ships only, at most forty; SUP.G: fewer
    complete Game-Turns at sea than the ship's endurance."""
    if u.damage and not u.is_naval:
        yield f"{u.side} {u.uid}: damage {u.damage} on a land unit (VP.DAMAGE: only ships)"
    elif not 0 <= u.damage <= SINK_ABOVE:
        yield (
            f"{u.side} {u.uid}: damage {u.damage} is not 0 to {SINK_ABOVE} weeks "
            "(CBT.I: more than forty sinks the ship)"
        )
    if u.is_naval and not 0 <= u.fuel < endurance(u):
        yield (
            f"{u.side} {u.uid}: fuel {u.fuel} is not 0 to {endurance(u) - 1} Game-Turns "
            f"at sea (SUP.G: a {u.utype} lasts {endurance(u)})"
        )


def _cargo_problems(state: GameState) -> Iterator[str]:
    """NM.TRANS.CAP, NM.EMERG.CAP: land cargo within its ship's transport points."""
    for ship in state.units.values():
        if not ship.is_naval:
            continue
        load = sum(u.tp for u in state.cargo_of(ship))
        if load > ship.capacity:
            yield (
                f"{ship.side} {ship.uid} carries {load} transport points; its capacity is "
                f"0 to {ship.capacity} (NM.TRANS.CAP)"
            )


def _air_problems(state: GameState) -> Iterator[str]:
    """UNIT.AIR.POINTS: air points are counted, never negative; they are at a hex of
    the map, on the West Coast, or aboard a ship of their side (DEF.CAP)."""
    for side, places in state.air.items():
        for loc, air in places.items():
            where = f"{side}'s air at {loc}"
            for name in ("lac", "nac", "lbac", "nac_new"):
                if getattr(air, name) < 0:
                    yield f"{where}: {name} {getattr(air, name)} is below 0 (UNIT.AIR.POINTS)"
            h = hexgrid.hex_of(loc)
            ship = state.units.get(unit_key(side, loc))
            if (h is not None and not hexgrid.on_map(h)) or (
                h is None and loc != WEST_COAST and ship is None
            ):
                yield f"{where}: {loc} is no hex of the map, ship of {side} or {WEST_COAST}"


def _base_problems(state: GameState) -> Iterator[str]:
    """UNIT.MAP, UNIT.AB: a base on a map hex; its air capacity never negative."""
    for b in state.bases.values():
        if not hexgrid.on_map(b.hex):
            yield f"a base at hex {b.hex} is off the map (UNIT.MAP)"
        if b.air_capacity < 0:
            yield f"the base at {hexgrid.fmt(b.hex)}: air_capacity {b.air_capacity} is below 0"
