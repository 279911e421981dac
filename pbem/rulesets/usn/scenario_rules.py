"""Scenario special rules and optional rules, read from the scenario data.

Each scenario's ``[special.*]`` tables name the special rules in force; the
optional rules are switched per game by the game's options (``state.options``,
set at CREATE). What this module does, by rule:

- MINI.SOLOMONS.SR / MINI.SANTACRUZ.SR (A24): Japanese ships never within 2
  hexes of Australia during or at the end of a move (``check_naval_path``).
- MINI.MIDSIM.KEEPOUT: Japanese ships stay more than 5 hexes from Midway until
  the strike on Midway has been flown (``check_naval_path``).
- CG1.HK: Hong Kong falls on its turn (bases to the Japanese, repaired).
- CG1.THAI: Bangkok's bases become Japanese when a Japanese land unit enters Thailand.
- CG1.PHILFORT: Allied land units on the fortified Philippine hex entrench without a
  die, after moving or while isolated (``entrench_free``), are entrenched there at
  set-up and on arrival, and ignore isolation for their first eight unsupplied turns
  (``isolation_immune``, consulted by every supply trace).
- CG1.PHILFORT.MANILA: Manila's naval base is barred to the Japanese until they
  have held the fortified hex with no Allied unit left there (``naval_base_barred``).
- CG1.AUSRES / CG2.AUSRES: a Japanese landing in Australia brings three Allied
  divisions, one per supplied Allied naval base in Australia.
- CG1.BURMA (A21): two Japanese divisions in or next to Burma by T6, four by T18
  with 10 LAC at Bangkok, or the Japanese lose; met, Mandalay's points
  (VP.GEO.MANDALAY). Cancelled by the Burma optional rule (OPT.BURMA.CANCEL).
- CG2.MIDWAY: the Allies score 100 if the Japanese do not hold Midway by T30.
- OPT.GAR.END / OPT.GAR.ALLIED (A22: mandatory in CG1 and CG3): areas without
  their garrison score nothing for their holder (``ungarrisoned``).

The optional submarines are submarines.py, the ferry carriers ferry.py, the Indian
Ocean raid (CG1.INDIAN) indian_ocean.py; the Shock turn's and the set-up rounds
and the Midway simulation's forced strike are opening.py. How the engine reads
the rules where they leave a choice: docs/usn-orders.md, Rulings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn import hexgrid, indian_ocean, world
from pbem.rulesets.usn.capture import awaiting, damaged_at_start
from pbem.rulesets.usn.geo import AUSTRALIA, BURMA, Geo
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.hooks import (
    ENTRENCH_FREE,
    GARRISON_AIR,
    GARRISON_UNIT,
    GARRISONS_SHORT,
    HOOKS,
    ISOLATION_IMMUNE,
    NAVAL_BASE_BARRED,
    NAVAL_PATH,
    UNGARRISONED,
)
from pbem.rulesets.usn.sequence import ends_turn
from pbem.rulesets.usn.state import Base, GameState, Pending, Unit
from pbem.rulesets.usn.supply import supply_map
from pbem.rulesets.usn.work import Work
from pbem.rulesets.usn.world import counter_unit


def chart_turn(state: GameState, turn: int | None = None) -> int:
    """The Reinforcement Chart's Game-Turn of a game turn (campaign deadlines)."""
    return (turn or state.turn) + int(state.extra.get("first_turn", 1)) - 1


# --- movement restrictions ---------------------------------------------------------


def keep_out_zones(
    state: GameState, geo: Geo, side: Side, ships: Sequence[Unit] = ()
) -> list[tuple[frozenset[int], int, str]]:
    """(hexes, radius, rule) each of ``side``'s ships must keep away from; with
    ``ships``, only the zones that bind at least one of them."""
    if side != JAPANESE:
        return []
    zones: list[tuple[frozenset[int], int, str]] = []
    sp = world.special(state)
    ko = sp.get("keep_out_of_australia")
    if ko is not None:
        zones.append(
            (geo.regions.get(AUSTRALIA, frozenset()), int(ko.get("hexes", 2)), str(ko["rule"]))
        )
    sim = sp.get("midway_simulation")
    if sim is not None and not state.extra.get("midway_struck"):
        exempt = _keep_out_exempt(sim)
        if not ships or any(s.uid not in exempt for s in ships):
            zones.append(
                (
                    frozenset({int(sim["strike_target"])}),
                    int(sim["keep_out_hexes"]),
                    "MINI.MIDSIM.KEEPOUT",
                )
            )
    return zones


def _keep_out_exempt(sim: Mapping[str, Any]) -> frozenset[str]:
    """MINI.MIDSIM.KEEPOUT vs MINI.MIDSIM.MOVE (C13): the forced group must end next
    to Midway, so the data's ``keep_out_applies_to`` ("japanese naval units not in the
    group") leaves the group's own ships out of the keep-out."""
    applies_to = str(sim.get("keep_out_applies_to", "")).lower()
    if applies_to.endswith("not in the group"):
        return frozenset(str(uid) for uid in sim.get("group", ()))
    return frozenset()


def check_naval_path(w: Work, ships: Sequence[Unit], path: Iterable[str]) -> None:
    """MINI.SOLOMONS.SR (A24), MINI.MIDSIM.KEEPOUT: refuse a move that takes a ship
    into a keep-out zone at any hex of its path (the zones that bind those ships)."""
    zones = keep_out_zones(w.state, w.geo, w.side, ships)
    if not zones or not ships:
        return
    for tok in path:
        step = hexgrid.hex_of(tok)
        if step is None:
            continue
        h = step
        for hexes, radius, rule in zones:
            if any(hexgrid.distance(h, x) <= radius for x in hexes):
                raise IllegalOrderError(
                    f"{hexgrid.fmt(h)} is within {radius} hexes of a forbidden area for your ships",
                    rule=rule,
                )


# --- set-up --------------------------------------------------------------------------


def at_setup(state: GameState) -> GameState:
    """The scenario's set-up rules: SETUP.SUPPLY, CG1.PHILFORT."""
    return _philfort_at_setup(supply_at_start(state))


FIVE_POINT_AIR_BASE = 5


def bases_at_start(
    geo: Geo, special: Mapping[str, Mapping[str, Any]], bases: Mapping[int, Base]
) -> tuple[dict[int, Base], dict[str, dict[str, Any]]]:
    """CG2.BASES.J: "The Japanese may use all their bases in Game 1, and all five Air
    Point Capacity air bases behind the Game 2 start line ... All other bases within
    the Game 2 Start Line are considered damaged." Each part of a Japanese base not
    usable so starts damaged: an air part with capacity 0 (repaired to its printed
    capacity, BASE.E), a naval part marked in ``damaged_bases`` with the captured
    bases' record (capture.damaged_at_start: ships may be there but not refuel or
    declare themselves in base, BASE.PROC; an engineer repairs it, part by part).
    A base nobody held in Game 1 (Bangkok, neutral, CG1.THAI) was not captured and
    is usable. Returns the bases and the ``damaged_bases`` entries."""
    rule = special.get("japanese_bases")
    out = dict(bases)
    if rule is None or not rule.get("others_damaged"):
        return out, {}
    usable = {int(u["hex"]): u for u in rule.get("usable", ())}
    damaged: dict[str, dict[str, Any]] = {}
    for h, b in bases.items():
        pb = geo.bases.get(h)
        if b.owner != JAPANESE or pb is None:
            continue
        before = pb.owner.get("game1")
        if before is None or (before == JAPANESE and rule.get("game1_bases")):
            continue  # neutral in Game 1, or a Game 1 Japanese base
        listed = usable.get(h, {})
        five = rule.get("five_point_air_bases_behind_start_line")
        air_ok = bool(listed.get("air")) or (five and pb.air_capacity == FIVE_POINT_AIR_BASE)
        if b.air and b.air_capacity > 0 and not air_ok:
            out[h] = replace(out[h], air_capacity=0)
        if b.naval and not listed.get("naval"):
            damaged[hexgrid.fmt(h)] = damaged_at_start(JAPANESE, ["naval"])
    return out, damaged


def damaged_naval_base(state: GameState, h: int) -> bool:
    """CG2.BASES.J: a naval base damaged at the start, until an engineer repairs it."""
    rec = awaiting(state.extra, h)
    return rec is not None and bool(rec.get("start")) and "naval" in rec.get("repair", ())


def supply_at_start(state: GameState) -> GameState:
    """SETUP.SUPPLY: "All air and land forces are considered supplied, except for the
    Japanese land forces on Guadalcanal in the Eastern Solomons and Santa Cruz
    Mini-Games." No trace is made at set-up: every land unit and base starts supplied
    but the side's land units in the hexes of ``special.unsupplied_start`` (and any
    unit deployed ``unsupplied``); the first trace is step 10's."""
    rule = world.special(state).get("unsupplied_start")
    hexes = {int(h) for h in rule.get("hexes", ())} if rule is not None else set()
    side = str(rule.get("side", JAPANESE)) if rule is not None else None
    units = []
    for u in state.units.values():
        if u.kind not in ("land", "cd"):
            continue
        supplied = u.supplied and not (u.side == side and u.hex in hexes)
        if supplied != u.supplied:
            units.append(replace(u, supplied=supplied))
    bases = {h: b if b.supplied else replace(b, supplied=True) for h, b in state.bases.items()}
    return replace(state.with_units(units), bases=bases)


def _philfort_at_setup(state: GameState) -> GameState:
    """CG1.PHILFORT: the defenders of the fortified hex start entrenched."""
    changed = [
        replace(u, entrenched=True)
        for u in state.units.values()
        if not u.entrenched and entrench_free(state, u)
    ]
    return state.with_units(changed)


def entrench_free(state: GameState, u: Unit) -> bool:
    """CG1.PHILFORT: "Any Allied land unit on hex 348 in Luzon may entrench
    automatically without having to roll the die. A unit may move (if supplied) into
    the hex and entrench in the same Movement Phase, or if isolated on hex 348 it may
    entrench." True for such a unit: its ENTRENCH needs no die, no supply, and may
    follow its move."""
    pf = world.special(state).get("philippine_fortifications")
    if pf is None or not pf.get("automatic_entrench"):
        return False
    return u.side == ALLIED and u.kind == "land" and u.hex == int(pf["hex"])


def _philfort_arrivals(before: GameState, s: GameState) -> GameState:
    """CG1.PHILFORT: an Allied land unit that has come into the fortified hex in the
    round is entrenched there automatically (the data's ``automatic_entrench``; it
    may DISENTRENCH at the end of a later land phase of its own, ENT.B)."""
    arrived = []
    for u in s.units.values():
        if u.entrenched or not entrench_free(s, u):
            continue
        old = before.units.get(u.key)
        if old is None or old.hex != u.hex:
            arrived.append(replace(u, entrenched=True))
    return s.with_units(arrived)


def isolation_immune(state: GameState, u: Unit) -> bool:
    """CG1.PHILFORT: "Once entrenched, it is not affected by isolation for the first
    eight Game-Turns in which the unit is out of supply." An entrenched unit on the
    hex counts as supplied while fewer than eight such Game-Turns are on its record
    (``extra["philfort_isolation"]``, counted at each step 10 by ``_philfort_isolation``)."""
    pf = world.special(state).get("philippine_fortifications")
    if pf is None or not u.entrenched or not entrench_free(state, u):
        return False
    counted = int(state.extra.get("philfort_isolation", {}).get(u.key, 0))
    return counted < int(pf.get("isolation_immunity_turns", 8))


def _philfort_isolation(geo: Geo, s: GameState, pf: Mapping[str, Any]) -> GameState:
    """CG1.PHILFORT: after step 10, an entrenched unit on the hex with no supply line
    counts one more Game-Turn out of supply; the eighth ends its immunity at once."""
    limit = int(pf.get("isolation_immunity_turns", 8))
    counts = dict(s.extra.get("philfort_isolation", {}))
    lines = supply_map(geo, s, ALLIED)
    ended = []
    for u in s.units.values():
        if u.hex is None or not u.entrenched or not entrench_free(s, u) or lines.supplied(u.hex):
            continue
        counts[u.key] = n = int(counts.get(u.key, 0)) + 1
        if n >= limit and u.supplied:
            ended.append(replace(u, supplied=False))
    if not counts:
        return s
    return replace(s.with_units(ended), extra={**s.extra, "philfort_isolation": counts})


def before_round(state: GameState, dice: Dice) -> tuple[GameState, list[Event]]:
    """Rolls made at the start of a round: OPT.AVD, CG1.INDIAN (the raid's losses)."""
    s, events = _variable_deployment(state, dice)
    s, more = indian_ocean.roll_losses(s, dice)
    return s, events + more


def _variable_deployment(state: GameState, dice: Dice) -> tuple[GameState, list[Event]]:
    """OPT.AVD: at the start of the game the Allied player rolls for the carriers in
    Pearl Harbor; the rolled units leave the reinforcement chart and start in port
    (6: the historical deployment). The roll is the Allies' own (witness: Allied)."""
    if state.turn != 1 or state.round != 0 or state.extra.get("avd_rolled"):
        return state, []
    if "variable_deployment" not in world.optional(state):
        return state, []
    table = world.current().tables.variable_deployment
    roll = dice.d6("OPT.AVD Allied variable deployment")
    wanted = set(table.units_for(roll))
    placed: list[Unit] = []
    pending: list[Pending] = []
    for p in state.pending:
        if p.unit is not None and p.side == ALLIED and p.unit.uid in wanted:
            placed.append(replace(p.unit, hex=table.hex, box=None, in_base=True))
            wanted.discard(p.unit.uid)
        else:
            pending.append(p)
    for uid in sorted(wanted):  # not on the chart: from the counter mix
        u = counter_unit(ALLIED, uid)
        if u is not None and state.unit(ALLIED, uid) is None:
            placed.append(replace(u, hex=table.hex, in_base=True))
    s = replace(
        state.with_units(placed),
        pending=tuple(pending),
        extra={**state.extra, "avd_rolled": roll},
    )
    ev = Event(
        "variable-deployment",
        {"roll": roll, "units": sorted(u.uid for u in placed), "hex": hexgrid.fmt(table.hex)},
        (ALLIED,),
        "OPT.AVD",
    )
    return s, [ev]


# --- after every round ---------------------------------------------------------------


def after_round(
    geo: Geo, before: GameState, after: GameState, events: Sequence[Event] = ()
) -> GameState:
    """Special rules that act between mail rounds or at the end of a turn."""
    s = after
    sp = world.special(s)
    sim = sp.get("midway_simulation")
    if sim is not None and not s.extra.get("midway_struck"):
        s = _midway_struck(s, sim, events)
    if "australian_reserves" in sp:
        s = _australian_reserves(geo, s, sp["australian_reserves"])
    if "thailand" in sp:
        s = _thailand(geo, s, sp["thailand"])
    garrison = sp.get("rangoon_garrison")  # CG1.OB.A.OPT: the border once crossed
    if garrison is not None and not s.extra.get("rangoon_released"):
        crossed = _japanese_land_in(geo, s, str(garrison["region"]))
        s = replace(s, extra={**s.extra, "rangoon_released": True}) if crossed else s
    s = _note_garrisons(s)
    if "philippine_fortifications" in sp:
        s = _philfort_cleared(s, sp["philippine_fortifications"])
        s = _philfort_arrivals(before, s)
    if ends_turn(before):  # Step 10 of ``before.turn`` has just run
        turn = before.turn
        if "philippine_fortifications" in sp:
            s = _philfort_isolation(geo, s, sp["philippine_fortifications"])
        if "hong_kong" in sp:
            s = _hong_kong(s, sp["hong_kong"], turn + 1)
        if "midway_deadline" in sp:
            s = _midway_deadline(s, sp["midway_deadline"], turn)
        if "burma_commitment" in sp and not s.options.get("burma"):
            s = _burma(geo, s, sp["burma_commitment"], turn)
        if "indian_ocean" in sp:
            s = indian_ocean.check_deadline(s, chart_turn(s, turn))
    return s


def naval_base_barred(state: GameState, side: Side, h: int) -> bool:
    """CG1.PHILFORT.MANILA: the Japanese may not use Manila's naval base until they
    occupy the Philippine fortifications (348) and no Allied unit is left there.
    Once that has happened the bar is lifted for good ("until"). CG2.BASES.J: nor
    anyone a naval base damaged at the start until it is repaired."""
    if damaged_naval_base(state, h):  # CG2.BASES.J: BASE.PROC.NAVDAMAGED
        return True
    pf = world.special(state).get("philippine_fortifications")
    if side != JAPANESE or pf is None or pf.get("japanese_naval_base_barred") is None:
        return False
    if h != int(pf["japanese_naval_base_barred"]) or state.extra.get("philfort_cleared"):
        return False
    return not _fortress_taken(state, int(pf["hex"]))


def _fortress_taken(state: GameState, fort: int) -> bool:
    here = [u for u in state.units.values() if u.hex == fort]
    return any(u.side == JAPANESE and u.kind == "land" for u in here) and not any(
        u.side == ALLIED for u in here
    )


def _philfort_cleared(s: GameState, pf: Mapping[str, Any]) -> GameState:
    """CG1.PHILFORT.MANILA: remember the day the fortress fell (the bar does not return)."""
    if s.extra.get("philfort_cleared") or not _fortress_taken(s, int(pf["hex"])):
        return s
    return replace(s, extra={**s.extra, "philfort_cleared": True})


def _midway_struck(s: GameState, sim: Mapping[str, Any], events: Sequence[Event]) -> GameState:
    """MINI.MIDSIM.KEEPOUT: the keep-out ends once Japanese aircraft have struck Midway."""
    target = hexgrid.fmt(int(sim["strike_target"]))
    for e in events:
        japanese = e.kind == "air-strike" and e.data.get("attacker") == JAPANESE
        if japanese and e.data.get("hex") == target:
            return replace(s, extra={**s.extra, "midway_struck": True})
    return s


def _japanese_land_in(geo: Geo, s: GameState, region: str) -> bool:
    hexes = geo.regions.get(region, frozenset())
    return any(u.side == JAPANESE and u.kind == "land" and u.hex in hexes for u in s.units.values())


def must_stay(geo: Geo, state: GameState, side: Side) -> list[tuple[str, int, str]]:
    """(unit, hex, rule) of the side's units a special rule holds in place:
    CG1.OB.A.OPT, "One must be deployed in Rangoon (44), and remain there until the
    border is crossed by Japanese units" (the data's unit; "rangoon_released" once a
    Japanese land unit has stood in Burma)."""
    rule = world.special(state).get("rangoon_garrison")
    if rule is None or str(rule.get("side", ALLIED)) != side or state.extra.get("rangoon_released"):
        return []
    if _japanese_land_in(geo, state, str(rule["region"])):
        return []
    h = int(rule["hex"])
    out = []
    for uid in rule.get("units", ()):
        u = state.unit(side, str(uid))
        if u is not None and u.hex == h:
            out.append((u.uid, h, str(rule["rule"])))
    return out


def _thailand(geo: Geo, s: GameState, rule: Mapping[str, Any]) -> GameState:
    """CG1.THAI: Bangkok's bases are Japanese from the moment a Japanese land unit
    crosses the Thai border (the map prints them with no owner in Game 1)."""
    h = int(rule["bases_hex"])
    if h in s.bases or h not in geo.bases:
        return s
    region = geo.regions.get(str(rule["region"]), frozenset())
    if not any(
        u.side == JAPANESE and u.kind == "land" and u.hex in region for u in s.units.values()
    ):
        return s
    pb = geo.bases[h]
    base = Base(h, JAPANESE, pb.air_capacity > 0, pb.naval, pb.air_capacity, name=pb.name)
    return replace(s, bases={**s.bases, h: base})


def _award(s: GameState, side: Side, points: int, why: str) -> GameState:
    awards = [*s.extra.get("scenario_awards", []), [side, points, why]]
    return replace(s, extra={**s.extra, "scenario_awards": awards})


def _hong_kong(s: GameState, rule: Mapping[str, Any], next_turn: int) -> GameState:
    """CG1.HK: Hong Kong falls at the start of its turn; its bases pass repaired."""
    h = int(rule["hex"])
    if next_turn != int(rule["falls_on_turn"]) or h not in s.bases:
        return s
    bases = dict(s.bases)
    bases[h] = replace(bases[h], owner=JAPANESE, neutralized_until=0, naval_destroyed=False)
    units = [k for k, u in s.units.items() if u.hex == h and u.side == ALLIED]
    return replace(s.with_units((), removed=units), bases=bases)


def _midway_deadline(s: GameState, rule: Mapping[str, Any], turn: int) -> GameState:
    """CG2.MIDWAY: at the end of T30, no Japanese hold on Midway gives the Allies 100."""
    if chart_turn(s, turn) != int(rule["by_turn"]):
        return s
    h = int(rule["hex"])
    b = s.bases.get(h)
    held = (b is not None and b.owner == JAPANESE) or any(
        u.hex == h and u.side == JAPANESE and u.kind == "land" for u in s.units.values()
    )
    if held:
        return s
    return _award(s, ALLIED, int(rule["allied_points"]), "CG2.MIDWAY: Midway not taken by T30")


def _burma(geo: Geo, s: GameState, rule: Mapping[str, Any], turn: int) -> GameState:
    """CG1.BURMA (A21): Japanese divisions in or adjacent to Burma count as committed."""
    need = {int(k): int(v) for k, v in rule.get("divisions_by_turn", {}).items()}
    t = chart_turn(s, turn)
    if t not in need:
        return s
    burma = geo.regions.get(BURMA, frozenset())
    near = set(burma) | {n for h in burma for n in hexgrid.neighbours(h)}
    divisions = sum(
        1 for u in s.units.values() if u.side == JAPANESE and u.utype == "DIV" and u.hex in near
    )
    ok = divisions >= need[t]
    lac = rule.get("lac_by_turn")
    if ok and lac and int(lac["turn"]) == t:
        ok = s.air_at(JAPANESE, hexgrid.fmt(int(lac["hex"]))).lac >= int(lac["points"])
    if not ok:
        why = f"CG1.BURMA: fewer than {need[t]} divisions committed to Burma by T{t}"
        return replace(s, extra={**s.extra, "forfeit": [JAPANESE, why]})
    if t == max(need):
        return replace(s, extra={**s.extra, "mandalay_automatic": True})
    return s


def _australian_reserves(geo: Geo, s: GameState, rule: Mapping[str, Any]) -> GameState:
    """CG1.AUSRES: the first Japanese land unit in Australia releases three divisions,
    at most one per supplied Allied naval base there; they enter next turn."""
    if s.extra.get("ausres_released"):
        return s
    aus = geo.regions.get(AUSTRALIA, frozenset())
    if not any(u.side == JAPANESE and u.kind == "land" and u.hex in aus for u in s.units.values()):
        return s
    ports = sorted(
        h
        for h, b in s.bases.items()
        if h in aus and b.owner == ALLIED and b.has_naval and b.supplied
    )
    pending = list(s.pending)
    for uid, h in zip(_expand(rule.get("units", ())), ports, strict=False):
        u = counter_unit(ALLIED, uid)
        if u is not None:
            pending.append(Pending(s.turn + 1, ALLIED, u, place=f"{h}"))
    return replace(s, pending=tuple(pending), extra={**s.extra, "ausres_released": True})


def _expand(ids: Iterable[str]) -> list[str]:
    out: list[str] = []
    for x in ids:
        if ".." in x:
            head, _, last = x.partition("..")
            prefix, _, first = head.rpartition("-")
            out += [f"{prefix}-{n}" for n in range(int(first), int(last) + 1)]
        else:
            out.append(x)
    return out


def _fixed(state: GameState) -> list[Mapping[str, Any]]:
    sc = world.scenario_of(state)
    rules = (sc.optional_rules if sc is not None else {}).get("garrisons")
    if rules is None or not garrisons_required(state):
        return []
    return list(rules.get("fixed", ()))


def check_garrison_unit(w: Work, u: Unit) -> None:
    """OPT.GAR.FIXED (A22): a Japanese unit of a fixed garrison may not leave its hex
    voluntarily while the garrison would fall short."""
    if u.side != JAPANESE or u.hex is None:
        return
    for g in _fixed(w.state):
        if int(g["hex"]) != u.hex or u.utype not in g.get("units", ()):
            continue
        have = sum(
            1
            for x in w.units.values()
            if x.side == JAPANESE and x.hex == u.hex and x.utype == u.utype
        )
        if have <= list(g["units"]).count(u.utype):
            raise IllegalOrderError(
                f"{u.uid} is the fixed garrison of {hexgrid.fmt(u.hex)}", rule="OPT.GAR.FIXED"
            )


def _below_strength(state: GameState) -> list[str]:
    short = []
    for g in _fixed(state):
        h = int(g["hex"])
        types = [u.utype for u in state.units.values() if u.side == JAPANESE and u.hex == h]
        need = list(g.get("units", ()))
        ok = all(types.count(t) >= need.count(t) for t in set(need))
        for atype, pts in (g.get("air") or {}).items():
            ok = ok and state.air_at(JAPANESE, hexgrid.fmt(h)).get(atype) >= int(pts)
        if not ok:
            short.append(hexgrid.fmt(h))
    return short


def garrisons_short(state: GameState) -> list[str]:
    """OPT.GAR.RESTORE: fixed garrisons that stood at full strength once and are below
    it now (checked at game end). One never formed (the set-up defaults do not place
    them) is not counted: only enemy action can take a garrison below strength."""
    held = set(state.extra.get("garrisons_held", ()))
    return [h for h in _below_strength(state) if h in held]


def _note_garrisons(s: GameState) -> GameState:
    if not _fixed(s):
        return s
    short = set(_below_strength(s))
    full = {hexgrid.fmt(int(g["hex"])) for g in _fixed(s)} - short
    held = sorted(set(s.extra.get("garrisons_held", ())) | full)
    return replace(s, extra={**s.extra, "garrisons_held": held})


def check_garrison_air(w: Work, loc: Location, atype: str, points: int) -> None:
    """OPT.GAR.FIXED: the garrison's aircraft may fly missions but not transfer away."""
    if w.side != JAPANESE or hexgrid.hex_of(loc) is None:
        return
    for g in _fixed(w.state):
        need = int((g.get("air") or {}).get(atype, 0))
        if int(g["hex"]) == int(loc) and need:
            have = w.air_at(JAPANESE, hexgrid.fmt(int(loc))).get(atype)
            if have - points < need:
                raise IllegalOrderError(
                    f"{loc} must keep {need} {atype} as its fixed garrison", rule="OPT.GAR.FIXED"
                )


def garrisons_required(state: GameState) -> bool:
    """A22: garrisons are mandatory in CG1 and CG3, optional elsewhere."""
    return state.scenario in ("campaign-1", "campaign-3") or bool(state.options.get("garrisons"))


def ungarrisoned(geo: Geo, state: GameState) -> dict[str, list[str]]:
    """OPT.GAR.END / OPT.GAR.ALLIED: per side, the areas whose end-of-game garrison is
    missing (they score nothing for that side)."""
    sc = world.scenario_of(state)
    rules = (sc.optional_rules if sc is not None else {}).get("garrisons")
    out: dict[str, list[str]] = {JAPANESE: [], ALLIED: []}
    if rules is None or not garrisons_required(state):
        return out
    for side, key in ((JAPANESE, "end_of_game"), (ALLIED, "allied_end_of_game")):
        for g in rules.get(key, ()):
            hexes = _hexes(geo, g)
            units = [u.utype for u in state.units.values() if u.side == side and u.hex in hexes]
            need = list(g.get("units", ()))
            ok = all(units.count(t) >= need.count(t) for t in set(need))
            for atype, pts in (g.get("air") or {}).items():
                have = sum(state.air_at(side, hexgrid.fmt(h)).get(atype) for h in hexes)
                ok = ok and have >= int(pts)
            if not ok:
                out[side].append(str(g.get("region") or "/".join(hexgrid.fmt(h) for h in hexes)))
    return out


def _hexes(geo: Geo, g: Mapping[str, Any]) -> frozenset[int]:
    if "region" in g:
        return geo.regions.get(str(g["region"]), frozenset())
    if "hex" in g:
        return frozenset({int(g["hex"])})
    return frozenset(int(h) for h in g.get("hexes", ()))


HOOKS.fill(NAVAL_PATH, check_naval_path)
HOOKS.fill(NAVAL_BASE_BARRED, naval_base_barred)
HOOKS.fill(ENTRENCH_FREE, entrench_free)
HOOKS.fill(ISOLATION_IMMUNE, isolation_immune)
HOOKS.fill(GARRISON_UNIT, check_garrison_unit)
HOOKS.fill(GARRISON_AIR, check_garrison_air)
HOOKS.fill(GARRISONS_SHORT, garrisons_short)
HOOKS.fill(UNGARRISONED, ungarrisoned)
