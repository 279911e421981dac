"""The U.S.N. ruleset: the game lifecycle's view of the rules (pbem.core.ruleset).

Each ``pending`` demand is one mail round of sequence.rounds_for(state); ``validate``
runs the round for one side's sheet on a copy of the state (no dice, no
combat) and reports every refused line; ``adjudicate`` runs it for real.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import DataError
from pbem.core.events import Event
from pbem.core.mapview import MapPicture
from pbem.core.ruleset import (
    Adjudication,
    Demand,
    LineError,
    Outcome,
    ScenarioInfo,
    State,
    Validation,
)
from pbem.core.sides import JAPANESE, SIDES, Side
from pbem.rulesets.usn import (
    ferry,
    fog,
    hexgrid,
    indian_ocean,
    opening,
    scenario_rules,
    statecheck,
    victory,
    views,
    world,
)
from pbem.rulesets.usn.data import UsnWorld, build_world
from pbem.rulesets.usn.geo import Geo, geo_from_map
from pbem.rulesets.usn.map import MapFiles, UsnMap, build_map
from pbem.rulesets.usn.phases import advance, run_round
from pbem.rulesets.usn.picture import view_picture
from pbem.rulesets.usn.scenario import AREA, entry_spec
from pbem.rulesets.usn.sequence import current_round, step
from pbem.rulesets.usn.state import (
    WEST_COAST,
    Air,
    Base,
    GameState,
    Pending,
    Unit,
    decode,
    encode_unit,
    unit_from_counter,
    unit_key,
)
from pbem.rulesets.usn.supply import hold_setup_supply

# The scenario and optional rules: importing them fills the engine's hook table.
SCENARIO_RULES = (scenario_rules, indian_ocean, ferry)


def _fog_memory(before: GameState, after: GameState, events: Sequence[Event]) -> dict[str, Any]:
    """``extra["fog"]`` after a round: sightings, and cargo still shown ashore (H1)."""
    memory = fog.update_sightings(after, events)
    memory.pop("cargo_cover", None)
    cover = fog.update_cargo_cover(before, after)
    if not cover:
        return memory
    return {**fog.sight_cover(after, events, memory, cover), "cargo_cover": cover}


class UsnRuleset:
    name = "usn"
    title = "U.S.N.: The Game of War in the Pacific, 1941-43 (SPI, 1971)"
    # Bump whenever the events, set-up or tables change for the same inputs (a record
    # of another version is not re-adjudicated by these rules: docs/moderator.md).
    # 2: supply traced whenever it can change; strikes at covered cargo settled as the
    # striker sees the hex (docs/usn-orders.md, docs/usn-fog.md).
    version = "2"

    def __init__(self, data: UsnWorld, geo: Geo, fingerprint: str = "") -> None:
        """``data``: the world data read by pbem.rulesets.usn.loader; ``geo``: its map's;
        ``fingerprint``: of the data files ``data`` was read from (the registry's)."""
        self.data = data
        self.geo = geo
        self.data_fingerprint = fingerprint

    def _state(self, state: State) -> GameState:
        """A game's state, with its world installed for the rules to consult: this
        ruleset's, with the game's own data corrections if CREATE gave any."""
        world.install(self._world(dict(state.get("options") or {}).get(DATA_OVERRIDES)))
        return decode(state)

    def _geo_of(self, s: GameState) -> Geo:
        return self._geo_for(s.options)

    def _geo_for(self, options: Mapping[str, Any]) -> Geo:
        """The map a game plays on: the installation's, or its per-game correction."""
        corrections = options.get(MAP_OVERRIDES)
        if not corrections:
            return self.geo
        return _corrected_geo(*self._correcting(corrections))

    def _correcting(self, corrections: Mapping[str, Any]) -> tuple[MapFiles, str]:
        """What a game's corrected map is built from (and found again by): the
        installation's map files and the corrections."""
        if self.data.map_files is None:
            raise DataError("map", "this ruleset's world data has no map files to correct")
        return self.data.map_files, json.dumps(corrections, sort_keys=True)

    def _world(self, overrides: Mapping[str, Any] | None = None) -> UsnWorld:
        """The installation's world, or one with the moderator's per-game corrections
        (built once per game's corrections, then found again)."""
        if not overrides:
            return self.data
        key = (id(self.data), json.dumps(overrides, sort_keys=True))
        if key not in _CORRECTED_WORLDS:
            corrected = build_world(self.data.source, overrides, self.data.map)
            while len(_CORRECTED_WORLDS) >= 16:  # the oldest goes
                del _CORRECTED_WORLDS[next(iter(_CORRECTED_WORLDS))]
            _CORRECTED_WORLDS[key] = (self.data, corrected)
        return _CORRECTED_WORLDS[key][1]

    # --- set-up -----------------------------------------------------------
    def scenarios(self) -> Sequence[ScenarioInfo]:
        return [sc.info() for sc in self.data.scenarios.values()]

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        """Set-up; ``options["overrides"]`` holds the moderator's per-game data
        corrections (units, tables, reinforcements, scenarios), taken in here and
        kept in the state's options: every later phase plays with them."""
        world.install(self.data)
        overrides = dict(options.get(DATA_OVERRIDES) or {})
        map_overrides = overrides.pop("map", None)
        data = self._world(overrides)
        rules = {k: v for k, v in options.items() if k != DATA_OVERRIDES}
        if overrides:
            rules[DATA_OVERRIDES] = overrides
        if map_overrides:
            # Kept in the state: every later phase plays on the corrected map.
            rules[MAP_OVERRIDES] = map_overrides
        geo = self._geo_for(rules)
        state = scenario_rules.at_setup(build_state(geo, data, scenario, rules))
        # SETUP.SUPPLY (in at_setup): the set-up's supply stands through turn 1 where
        # no line agrees with it.
        state = hold_setup_supply(geo, state)
        return opening.at_setup(state).to_json()  # OPT.JVD set-up round, CG1.SHOCK.PREGAME

    # --- rounds -------------------------------------------------------------
    def pending(self, state: State) -> Demand | None:
        s = self._state(state)
        if s.over:
            return None
        rnd = current_round(s)
        steps = tuple(f"Step {n}: {step(n).title}" for n in rnd.steps)
        return Demand(s.turn, rnd.key, rnd.sides, rnd.title, steps)

    def validate(self, state: State, side: str, text: str) -> Validation:
        s = self._state(state)
        if s.over:
            return Validation((), (LineError(0, "", "the game is over", None),))
        # Judged against what the side knows (fog.knowledge): an answer reveals nothing
        # its report hides; what hidden facts do to an accepted order, adjudication tells.
        known = fog.knowledge(s, side) if side in SIDES else s
        result = run_round(self._geo_of(s), known, {side: text}, None)
        return Validation(tuple(result.accepted.get(side, ())), tuple(result.errors.get(side, ())))

    def default_orders(self, state: State, side: str) -> tuple[str, ...]:
        """No orders: nothing moves (MOV.B); standing orders stay in the state. Only a
        move the rules force is made for the side (MINI.MIDSIM.MOVE)."""
        s = self._state(state)
        if s.over or side != JAPANESE:
            return ()
        return opening.forced_orders(self._geo_of(s), s)

    def adjudicate(
        self, state: State, orders: Mapping[str, Sequence[str]], dice: Dice
    ) -> Adjudication:
        s = self._state(state)
        texts = {side: "\n".join(lines) for side, lines in orders.items() if side in SIDES}
        geo = self._geo_of(s)
        s, setup_events = scenario_rules.before_round(s, dice)  # OPT.AVD
        result = run_round(geo, s, texts, dice)
        events = setup_events + list(result.work.events)
        for side, errs in result.errors.items():
            for e in errs:  # an order that no longer fits (the state moved on): owner only
                events.append(_failed(side, e))
        new = advance(result.state)
        new = scenario_rules.after_round(geo, s, new, events)
        terms = victory_terms(world.current(), s.scenario)  # the game's world (_state)
        new = victory.after_round(geo, s, new, terms)  # GEN.REC.A
        # Double-blind mode remembers each side's last sightings of enemy units.
        new = replace(new, extra={**new.extra, "fog": _fog_memory(s, new, events)})
        return Adjudication(new.to_json(), tuple(events))

    def state_problems(self, state: State) -> Sequence[str]:
        """What in ``state`` the rules cannot hold (statecheck.py), judged by the
        game's own world data: the moderator's EDIT is checked by it."""
        options = state.get("options")
        overrides = options.get(DATA_OVERRIDES) if isinstance(options, Mapping) else None
        return statecheck.state_problems(state, self._world(overrides))

    # --- reports ----------------------------------------------------------------
    def view(self, state: State, events: Sequence[Any], side: str | None) -> Mapping[str, Any]:
        return views.build_view(self._state(state), events, side)

    def map_picture(self, view: Mapping[str, Any]) -> MapPicture:
        """The view drawn on the map its game plays on: the installation's, or
        the game's own correction (which the view carries: both sides play on it)."""
        corrections = view.get(views.MAP_CORRECTIONS)
        if corrections:
            return view_picture(_corrected_map(*self._correcting(corrections)), view)
        if not isinstance(self.data.map, UsnMap):
            raise DataError("map", "this ruleset's world data has no map to draw")
        return view_picture(self.data.map, view)

    def order_template(self, state: State, side: str) -> str:
        return views.order_template(self._state(state), side)

    def outcome(self, state: State) -> Outcome | None:
        s = self._state(state)
        if not s.over:
            return None
        return victory.verdict(self._geo_of(s), s, victory_terms(world.current(), s.scenario))


def _failed(side: str, e: LineError) -> Event:
    return Event(
        "order-failed", {"line": e.line, "order": e.text, "reason": e.message}, (side,), e.rule
    )


def victory_terms(data: UsnWorld, scenario: str) -> Mapping[str, Any]:
    """The scenario's [victory] data (none for hand-built test states)."""
    sc = data.scenarios.get(scenario)
    return sc.victory if sc is not None else {}


# --- set-up from the scenario data -------------------------------------------


MAP_OVERRIDES = "map_overrides"
# CREATE's per-game data corrections (units, tables, reinforcements, scenarios), kept
# under the same key in the state's options (the reports list them, never as a rule).
DATA_OVERRIDES = "overrides"
# Worlds with a game's corrections: (installation world's id, corrections) -> (it, world).
_CORRECTED_WORLDS: dict[tuple[int, str], tuple[UsnWorld, UsnWorld]] = {}


@lru_cache(maxsize=16)
def _corrected_geo(files: MapFiles, corrections_json: str) -> Geo:
    return geo_from_map(_corrected_map(files, corrections_json))


@lru_cache(maxsize=16)
def _corrected_map(files: MapFiles, corrections_json: str) -> UsnMap:
    """A game's corrected map, built once (its reports' pictures, like its rules,
    find it again: the same object, so the drawing's caches find its base map)."""
    return build_map(files, json.loads(corrections_json))


def _own_bases(bases: Mapping[int, Base], side: Side, naval: bool | None = None) -> list[int]:
    return [
        h
        for h, b in sorted(bases.items())
        if b.owner == side and (naval is None or (b.has_naval if naval else b.has_air))
    ]


def _place_unit(geo: Geo, bases: Mapping[int, Base], u: Unit, at: Any) -> Unit:
    """SETUP.HEXSPEC / SETUP.AREA / SETUP.FREE: exact hexes as printed; an area or a
    free choice goes to its representative hex or the first fitting base, the default
    the players' set-up rounds start from (opening.py)."""
    if at.unit:
        return replace(u, carried_by=at.unit)
    if at.offmap:
        return replace(u, box=WEST_COAST, in_base=u.is_naval)
    candidates: list[int] = list(at.hexes)
    if not candidates and (u.is_naval or (at.any is not None and "naval" in at.any)):
        pool = _own_bases(bases, u.side, naval=True)
        in_region = [h for h in pool if at.region and geo.in_region(h, _region_key(at.region))]
        ref = at.ref or 0
        candidates = sorted(in_region or pool, key=lambda h: (abs(h - ref), h))
    if not candidates and at.region:
        candidates = [at.ref] if at.ref else sorted(geo.regions.get(_region_key(at.region), ()))
    if not candidates:
        candidates = [h for h in _own_bases(bases, u.side) if geo.is_land(h)]
    h = candidates[0]
    base = bases.get(h)
    in_base = u.is_naval and base is not None and base.owner == u.side and base.has_naval
    return replace(u, hex=h, in_base=in_base)


def _region_key(name: str) -> str:
    return "home-islands" if name in ("japanese-home-islands", "japan") else name


def _deal_air(
    air: dict[str, dict[str, Air]],
    units: Mapping[str, Unit],
    bases: Mapping[int, Base],
    side: Side,
    atype: str,
    points: int,
    at: Any,
) -> None:
    """Free air deployments fill carriers (NAC) or bases in order, within capacity."""
    mine = air.setdefault(side, {})
    targets: list[tuple[str, int]] = []
    if at.unit:
        ship = units.get(unit_key(side, at.unit))
        targets.append((at.unit, ship.capacity if ship else points))
    elif at.hexes:
        targets += [(hexgrid.fmt(h), bases[h].air_capacity if h in bases else 0) for h in at.hexes]
    else:
        kinds = at.any or "base"
        if "carrier" in kinds and atype == "NAC":
            targets += [
                (u.uid, u.capacity)
                for u in sorted(units.values(), key=lambda x: x.uid)
                if u.side == side and u.is_carrier and u.hex is not None
            ]
        if "base" in kinds or at.region:
            # Nearest the side's forces first (or the area's reference hex).
            anchors = (
                [at.ref]
                if at.ref
                else [u.hex for u in units.values() if u.side == side and u.hex is not None]
            )
            own = _own_bases(bases, side, naval=False)
            if anchors:
                own.sort(key=lambda h: (min(hexgrid.distance(h, a) for a in anchors), h))
            targets += [(hexgrid.fmt(h), bases[h].air_capacity) for h in own]
    left = points
    for loc, cap in targets:
        have = mine.get(loc, Air())
        n = min(left, max(0, cap - have.total))
        if n:
            mine[loc] = have.add(atype, n)
            left -= n
        if not left:
            return
    if left and targets:  # over capacity in the data: keep the points, the loader reports it
        loc = targets[0][0]
        mine[loc] = mine.get(loc, Air()).add(atype, left)


def _points_of(air: Mapping[str, Mapping[str, Air]], a: Any) -> dict[str, int]:
    return {loc: x.get(str(a.type)) for loc, x in air.get(str(a.side), {}).items()}


def _note_free_air(
    choices: dict[str, dict[str, Any]],
    air: Mapping[str, Mapping[str, Air]],
    a: Any,
    before: Mapping[str, int],
) -> None:
    """SETUP.AIRANY: a free air allotment, its area and where the default dealt it."""
    if not opening.is_free(a.at):
        return
    after = _points_of(air, a)
    dealt = [[loc, n - before.get(loc, 0)] for loc, n in after.items() if n > before.get(loc, 0)]
    pool = {"type": str(a.type), "points": a.points, "area": opening.area_of(a.at)}
    choices.setdefault(str(a.side), {}).setdefault("air", []).append({**pool, "default": dealt})


def _fleet_base(units: Mapping[str, Unit], bases: Mapping[int, Base], side: Side) -> int | None:
    """MINI.*.SUB, CG*.OB.J.OPT: subs "may deploy anywhere ... need not be on station";
    by default (the Japanese set-up round may place them at sea, opening.py) they start
    at the side's naval base holding most of its ships (ties: lowest hex)."""
    ports = _own_bases(bases, side, naval=True)
    if not ports:
        return None
    count = {h: sum(1 for u in units.values() if u.side == side and u.hex == h) for h in ports}
    return min(ports, key=lambda h: (-count[h], h))


def build_state(geo: Geo, world: Any, name: str, options: Mapping[str, Any]) -> GameState:
    """The state before the first round: the scenario's bases, units, air and
    reinforcement chart, with the game's options (SETUP.*, REIN.*)."""
    sc = world.scenario(name)
    bases, damaged = scenario_rules.bases_at_start(geo, sc.special, _start_bases(geo, sc))
    enabled = {k for k, v in options.items() if v}
    units: dict[str, Unit] = {}
    choices: dict[str, dict[str, Any]] = {}  # side -> its set-up choices (opening.py)
    sub_ids = _deploy(geo, world, sc, enabled, bases, units, choices)
    home = _fleet_base(units, bases, JAPANESE) if sub_ids else None
    subs = {uid: {"hex": home, "station": False, "phases": 0} for uid in sub_ids if home}
    for key, c in sc.coastal_defense.items():
        u = unit_from_counter(c)
        units[key] = replace(u, hex=int(c.id.split("-")[1]))
    air: dict[str, dict[str, Air]] = {}
    for a in sc.air:
        if not sc.in_force(a.optional, enabled):
            continue
        before = _points_of(air, a)  # SETUP.AIRANY: what the default deals, for the set-up round
        _deal_air(air, units, bases, Side(a.side), str(a.type), a.points, a.at)
        _note_free_air(choices, air, a, before)
    ranges = {
        key: [t.range_normal, t.range_extended or t.range_normal]
        for key, t in world.catalogue.air.items()
    }
    first = sc.first_turn
    pending = _arrivals(world, sc, enabled)
    return GameState(
        scenario=name,
        turn=1,
        last_turn=sc.game_turns,
        round=0,
        units=units,
        air=air,
        bases=bases,
        pending=tuple(pending),
        options=dict(options),
        extra={
            "air_ranges": ranges,
            "first_turn": first,
            **({"damaged_bases": damaged} if damaged else {}),
            "spares": _spares(world, units, pending),
            "withdrawals": [[wd.turn - first + 1, str(wd.side), wd.unit] for wd in sc.withdrawals],
            **({"subs": subs, "sub_log": []} if subs else {}),
            **({"setup": choices} if choices else {}),
        },
    )


def _start_bases(geo: Geo, sc: Any) -> dict[int, Base]:
    """The bases of the scenario's base chart (game1 or game2), and those it adds."""
    bases: dict[int, Base] = {}
    for h, pb in geo.bases.items():
        owner = pb.owner.get(sc.bases)
        if owner:
            bases[h] = Base(
                h, Side(owner), pb.air_capacity > 0, pb.naval, pb.air_capacity, name=pb.name
            )
    for ab in sc.added_bases:
        old = bases.get(ab.hex)
        bases[ab.hex] = Base(
            ab.hex,
            Side(ab.side),
            True,
            ab.naval or bool(old and old.naval),
            ab.air_capacity,
            name=old.name if old else "",
        )
    return bases


def _deploy(
    geo: Geo,
    world: Any,
    sc: Any,
    enabled: set[str],
    bases: dict[int, Base],
    units: dict[str, Unit],
    choices: dict[str, dict[str, Any]],
) -> list[str]:
    """The scenario's units into ``units`` (free set-up choices noted in ``choices``);
    the submarines' ids, which are paper units kept off the counter list (SUB.GEN)."""
    sub_ids: list[str] = []
    for d in sc.deployments:
        if not sc.in_force(d.optional, enabled):
            continue
        for uid in d.units:
            c = world.catalogue.get(str(d.side), uid)
            u = unit_from_counter(c)
            if u.utype == "SUB":
                sub_ids.append(u.uid)
                continue
            u = replace(u, entrenched=d.entrenched, damage=d.damage, supplied=not d.unsupplied)
            units[u.key] = _place_unit(geo, bases, u, d.at)
            if opening.is_free(d.at):  # SETUP.AREA, SETUP.FREE: chosen in the set-up round
                mine = choices.setdefault(u.side, {}).setdefault("units", {})
                mine[u.uid] = opening.area_of(d.at)
    return sub_ids


def _arrivals(world: Any, sc: Any, enabled: set[str]) -> list[Pending]:
    """The reinforcement chart's arrivals in the game's span, by the game's Game-Turns."""
    pending: list[Pending] = []
    for arr in sc.arrivals:
        # REIN.BURMA, CG2.BURMA: a chosen optional rule or one of the game's special rules.
        if not sc.in_force(arr.requires, enabled):
            continue
        turn = arr.turn - sc.first_turn + 1
        place = None
        if arr.at is not None and arr.at.hexes:
            place = f"{arr.at.hexes[0]}"
        elif arr.at is not None and arr.at.region == "australia" and not arr.at.unoccupied_by:
            place = "AUS"
        elif arr.at is not None and (spec := entry_spec(arr.at)):
            place = AREA + spec  # REIN.BURMA: an entry area, placed at step 1
        for uid in arr.units:
            u = unit_from_counter(world.catalogue.get(str(arr.side), uid))
            pending.append(Pending(turn, Side(arr.side), u, place=place))
        for atype, pts in arr.air.items():
            # REIN.A.NAC: carrier aircraft come aboard their carrier; the rest enter as usual.
            # An entry area is for counters: air points enter at the side's default base.
            air_place = None if place and place.startswith(AREA) else place
            where = arr.aboard[0] if arr.aboard and str(atype) == "NAC" else air_place
            pending.append(
                Pending(turn, Side(arr.side), air_type=str(atype), air_points=pts, place=where)
            )
    return pending


SPARE_TYPES = ("DIV", "BDE", "RGT", "MAR", "MRGT")  # BRK.*: counters broken down and rebuilt


def _spares(
    world: Any, units: Mapping[str, Unit], pending: Sequence[Pending]
) -> dict[str, list[dict[str, Any]]]:
    """BRK.*: the counter mix's land counters not in play, for breakdown and rebuilding."""
    in_play = set(units) | {p.unit.key for p in pending if p.unit is not None}
    spares: dict[str, list[dict[str, Any]]] = {}
    for key, c in world.catalogue.counters.items():
        if key in in_play or str(getattr(c.type, "value", c.type)) not in SPARE_TYPES:
            continue
        spare = unit_from_counter(c)
        spares.setdefault(spare.side, []).append(encode_unit(spare))
    return spares
