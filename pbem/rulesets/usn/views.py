"""What one side may know: a first per-side view, and the order template.

Built positively from the side's own forces plus what the rules show of the
enemy: enemy counters on the open map (type and ID, as the counters show;
STK.G order is public), enemy bases and their air points on the map. Never
shown to the enemy: transport cargo (NM.TRANS.HIDDEN), standing orders, the
fuel records are open (GEN.REC.B) and so are shown. ``side`` None is the
omniscient view (moderator, archive).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.core.errors import AdjudicationError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, Side
from pbem.rulesets.usn import fog, hexgrid, opening, sequence, submarines, world
from pbem.rulesets.usn.sequence import StepKind, current_round, step
from pbem.rulesets.usn.state import GameState, Unit
from pbem.rulesets.usn.supply import endurance

# A mini-game's theatre: bases within this many hexes of its set-up hexes, added
# bases and objectives (Coral Sea: Truk to Noumea, not Iwo Jima or Ceylon).
THEATRE_RADIUS = 4


def theatre(state: GameState) -> frozenset[int] | None:
    """The base hexes of a mini-game's theatre; None: the whole map (campaigns, test
    positions). Public: it comes from the scenario's printed set-up, not the play."""
    try:
        sc = world.scenario_of(state)
    except AdjudicationError:
        return None
    if sc is None or sc.kind != "mini-game":
        return None
    focus = {h for d in sc.deployments for h in (*d.at.hexes, *([d.at.ref] if d.at.ref else []))}
    focus |= {ab.hex for ab in sc.added_bases}
    focus |= {int(o["hex"]) for o in sc.victory.get("objectives", ()) if "hex" in o}
    return frozenset(
        h for h in state.bases if any(hexgrid.distance(h, f) <= THEATRE_RADIUS for f in focus)
    )


def base_name(state: GameState, h: int) -> str:
    """A base's name; a base the scenario adds takes the map's name for its hex."""
    b = state.bases[h]
    if b.name:
        return b.name
    try:
        info = getattr(world.current().map, "hexes", {}).get(h)
    except AdjudicationError:
        info = None
    return str(getattr(info, "name", "") or "")


# Option keys as players name the rules they switch on.
OPTION_LABELS = {submarines.OPTION: "submarines"}

# Moderator data (scenario and map corrections), not rules in play.
_PRIVATE_OPTIONS = frozenset({"overrides", "map_overrides"})
# The view's key for the game's map corrections: the map both sides play on, so
# public (a report's map is drawn from the view alone, on the corrected map).
MAP_CORRECTIONS = "map_corrections"


def _unit_view(u: Unit, full: bool) -> dict[str, Any]:
    d: dict[str, Any] = {"id": u.uid, "side": u.side, "type": u.utype, "at": u.where()}
    if u.is_naval:
        d["stack"] = u.stack
        d["in_base"] = u.in_base
        d["fuel"] = {"turns_at_sea": u.fuel, "endurance": endurance(u)}  # GEN.REC.B: open
        if u.utype == "OIL":
            d["oiler_full"] = u.oiler_full
        d["damaged"] = u.damaged
    else:
        d["entrenched"] = u.entrenched
    if full:
        d.update(ma=u.ma, damage=u.damage, supplied=u.supplied)
        if u.carried_by:
            d["aboard"] = u.carried_by
        if u.capacity:
            d["capacity"] = u.capacity
    return d


def build_view(state: GameState, events: Sequence[Event], side: str | None) -> dict[str, Any]:
    rnd = current_round(state) if state.round >= 0 else None
    own: list[dict[str, Any]] = []
    enemy: list[dict[str, Any]] = []
    for u in sorted(state.units.values(), key=lambda x: (x.side, x.uid)):
        mine = side is None or u.side == side
        if mine:
            own.append(_unit_view(u, True))
        elif u.hex is not None:
            enemy.append(_unit_view(u, False))
        elif u.box is not None and u.carried_by is None:
            enemy.append({"id": u.uid, "side": u.side, "type": u.utype, "at": "off map"})
    in_theatre = theatre(state)
    air: dict[str, Any] = {}
    for s, locs in state.air.items():
        for loc, a in locs.items():
            on_ship = hexgrid.hex_of(loc) is None
            ship = state.unit(s, loc) if on_ship else None
            if side is not None and s != side and (ship is not None or loc == "WC"):
                # NM.TRANS.AIR: aircraft carried as cargo are hidden; ruling A13: the NAC
                # level of an enemy carrier stays hidden until combat.
                continue
            air.setdefault(s, {})[loc] = {"LAC": a.lac, "NAC": a.nac, "LBAC": a.lbac}
    view = {
        "game": "usn",
        "scenario": state.scenario,
        "turn": state.turn,
        "last_turn": state.last_turn,
        "round": rnd.key if rnd else None,
        "side": side,
        # The game's options are agreed at CREATE by both sides: public.
        "options": {
            OPTION_LABELS.get(k, k): v
            for k, v in sorted(state.options.items())
            if k not in _PRIVATE_OPTIONS
        },
        MAP_CORRECTIONS: state.options.get("map_overrides") or {},
        "own_units" if side else "units": own,
        "enemy_units": enemy,
        "air": air,
        "bases": [
            {
                "hex": hexgrid.fmt(b.hex),
                "name": base_name(state, b.hex),
                "theatre": in_theatre is None or b.hex in in_theatre,
                "owner": b.owner,
                "air_capacity": b.air_capacity if b.air else 0,
                "naval": b.has_naval,
                "neutralized": b.neutralized(state.turn),
            }
            for b in sorted(state.bases.values(), key=lambda b: b.hex)
        ],
        "standing": list(state.standing.get(side, ())) if side else dict(state.standing),
        "events": [e.to_json() for e in events if e.seen_by(side)],
        # GEN.REC.C: the secret sub log, to the Allies only once the game is over.
        **submarines.view_part(state, side),
    }
    # What the rules hide from this side (HID), in the game's fog mode (open or double-blind).
    return fog.apply(view, state, events, side, fog.mode_of(state))


_VERB_HELP = {
    StepKind.ENTRY: ["PLACE <unit> <hex>            # this turn's arrivals (SEQ.1)"],
    StepKind.AIR_SEA: [
        "TRANSFER <n> <LAC|NAC|LBAC> <from> TO <to>   # SEQ.2A",
        "MOVE <ship> [<ship>...] <hex> <hex> ...      # SEQ.2C, hex by hex",
        "EMBARK|DEBARK <transport> <unit|n LAC> ...   # SEQ.2D",
        "EMERGENCY <DD|CL> <unit> [<unit> ...]|SUPPLY <hex>  # SEQ.2E",
        "BOMBARD <hex> LAND|AIRBASE|NAVALBASE|CD <ship> ... [AT <unit>]  # SEQ.2F, SEQ.2H",
        "FIRE <ship> ... AT <enemy ship>              # NM.SURF.5, surface fire",
        "CONTINUE <ship> ... <hex> ...                # SEQ.2I",
        "STACK <hex> <top ship> ...   BASE <ship>   SEA <ship>   REFUEL <oiler>",
    ],
    StepKind.LAND_MOVE: [
        "MOVE <land unit> <hex>                       # SEQ.3A, one hex",
        "ENTRENCH <unit>   DISENTRENCH <unit>         # SEQ.3B",
    ],
    StepKind.STRIKE: [
        "CAP <n> <type> <base|carrier>                # SEQ.5E",
        "STRIKE <n> <type> <from> <hex> <SHIPS g|PORT|LAND [AT <unit>]|CD|AIRBASE|NAVALBASE|STRAFE>",
        "SUPPORT <n> <type> <from> <hex> ATTACK|DEFEND # SEQ.5J",
        "ATTACK <hex> <unit> ...   GUNFIRE <hex> <ship> ...   LAND <transport> <unit> ...",
    ],
}


def order_template(state: GameState, side: str) -> str:
    """A commented order form for the pending round, listing the side's units."""
    if state.round < 0:
        return "# The game is over: no orders are expected.\n"
    state = fog.knowledge(state, side)  # the form lists only what the side knows
    rnd = current_round(state)
    out = [
        f"# U.S.N. {state.scenario} - Game-Turn {state.turn}, round {rnd.key}: {rnd.title}",
        f"# Side: {side}. One order per line; lines starting with # are ignored.",
        "# Reference: the order reference of the player's docs (usn-orders).",
    ]
    if side not in rnd.sides:
        out.append("# You have no orders this round (STANDING orders are still accepted).")
        return "\n".join(out) + "\n"
    if not rnd.steps:  # a set-up round: each free choice and its area (SETUP.FREE)
        out += opening.setup_form(state, Side(side))
    for rule in rnd.rules:
        out.append(f"# Special rule this round: {rule} (see the order reference, usn-orders)")
    for n in rnd.steps:
        st = step(n)
        if st.side not in (None, side) and st.kind is not StepKind.STRIKE:
            continue
        out.append(f"#\n# Step {n}: {st.title}")
        out += [f"#   {h}" for h in _VERB_HELP.get(st.kind, [])]
    own = sorted((u for u in state.side_units(side)), key=lambda u: (u.kind, u.where(), u.uid))
    out.append("#\n# Your units:")
    for u in own:
        extra = f", MA {u.ma}" if u.kind != "cd" else ""
        out.append(f"#   {u.uid:<8} {u.utype:<5} at {u.where()}{extra}")
    for loc, a in sorted(state.air.get(side, {}).items()):
        out.append(f"#   air at {loc}: {a.lac} LAC, {a.nac} NAC, {a.lbac} LBAC")
    if side == JAPANESE and submarines.enabled(state):
        for uid, sub in sorted(submarines.subs_of(state).items()):  # GEN.REC.C: yours only
            status = f"on station ({sub.get('phases', 0)} phases)" if sub.get("station") else "free"
            out.append(
                f"#   {uid:<8} SUB   at {hexgrid.fmt(int(sub['hex']))}, {status}; SUB <sub> <hex>..., STATION <sub>"
            )
    if any(step(n).kind is StepKind.LAND_MOVE and step(n).side == side for n in rnd.steps):
        spare = sorted(d["uid"] for d in state.extra.get("spares", {}).get(side, []))
        if spare:
            out.append("#\n# Spare counters (BREAK <division> <BDE|RGT> takes the first that fit):")
            out.append("#   " + " ".join(spare))
    if state.standing.get(side):
        out.append("#\n# Standing orders in force:")
        out += [f"#   {line}" for line in state.standing[side]]
    out.append("")
    return "\n".join(out) + "\n"


__all__ = ["build_view", "order_template", "sequence"]
