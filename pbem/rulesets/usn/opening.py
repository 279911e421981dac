"""A scenario's opening: the set-up round, CG1's pre-game and Shock turn, and the
Midway simulation's forced strike, as checks on the orders of those rounds.

- OPT.JVD (SETUP.JFIRST): with the Japanese variable deployment on, the Japanese
  write ``PLACE <unit> <hex>`` for their CL, DD, oiler and engineer counters, each
  at a Japanese naval base, in a set-up round before turn 1.
- CG1.SHOCK.PREGAME: two Japanese naval phases before turn 1; ships keep more than
  5 hexes from every Allied air or naval base and never use double speed (MOV.N);
  only naval units move.
- CG1.SHOCK.T1J1: in turn 1's first Japanese phase the same keep-out, and no
  non-naval unit moves. CG1.SHOCK.ANOMOVE: the Allies move nothing in turn 1.
  CG1.SHOCK.T1J2: the second Japanese phase is normal.
- MINI.MIDSIM.STRIKE: once the simulation's carriers stand next to Midway and until
  Midway has been struck, a Japanese air plot must send at least 20 NAC against
  Midway and keep at most 4 NAC on CAP.

``restrict`` returns the refused lines; phases.run_round records them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import hexgrid, world
from pbem.rulesets.usn.orders import AirCargo, Line, Mission, Move, Place, verb_of
from pbem.rulesets.usn.sequence import MailRound, StepKind, step
from pbem.rulesets.usn.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn.state import GameState
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
    """Name the opening rounds of the game in ``extra["opening"]`` (sequence.rounds_for)."""
    opening: list[str] = []
    if "japanese_variable_deployment" in world.optional(state):
        opening.append("setup-japanese")
    shock = world.special(state).get("shock_turn")
    if shock is not None:
        if shock.get("pregame_naval_turn"):
            opening.append("pregame")
        opening.append("shock")
    if not opening:
        return state
    return replace(state, extra={**state.extra, "opening": opening})


def _jvd(state: GameState) -> Mapping[str, Any]:
    return world.optional(state).get("japanese_variable_deployment") or {}


def do_setup_place(w: Work, order: Place) -> None:
    """OPT.JVD: a CL, DD, oiler or engineer counter to any Japanese naval base."""
    rule = _jvd(w.state)
    if not rule:
        raise IllegalOrderError("the Japanese variable deployment is not in play", rule="OPT.JVD")
    if isinstance(order.what, str):
        u = w.own(order.what)
    else:
        raise IllegalOrderError("only units are placed at set-up; aircraft are not", rule="OPT.JVD")
    types = tuple(rule.get("types", ()))
    if u.utype not in types:
        raise IllegalOrderError(
            f"{u.uid} is a {u.utype}: only {', '.join(types)} are placed", rule="OPT.JVD"
        )
    if u.carried_by is not None or u.hex is None:
        raise IllegalOrderError(f"{u.uid} does not start on the map", rule="OPT.JVD")
    base = w.own_base(order.hex)
    if base is None or not base.has_naval:
        raise IllegalOrderError(
            f"{hexgrid.fmt(order.hex)} is not a Japanese naval base", rule="OPT.JVD"
        )
    w.put(replace(u, hex=order.hex, box=None, in_base=u.is_naval))
    w.event("placed", "OPT.JVD", (JAPANESE,), side=JAPANESE, unit=u.uid, at=hexgrid.fmt(order.hex))


# --- restrictions --------------------------------------------------------------------


def restrict(w: Work, rnd: MailRound, side: Side, lines: Sequence[Line]) -> list[Refusal]:
    """The lines of ``side`` that the round's special rules refuse."""
    out: list[Refusal] = []
    rules = set(rnd.rules)
    if "OPT.JVD" in rules:
        out += [
            (ln, "only PLACE and STANDING orders are written at set-up", "OPT.JVD")
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
