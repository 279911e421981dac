"""Running one mail round: the steps of the sequence of play over the orders.

``run_round`` walks the round's steps (sequence.rounds_for) and, inside each
step, its lettered parts in rulebook order (SEQ.STRICT), handing each order to
the movement / supply functions. The same walk validates one side's sheet
(``dice`` None: no rolls, no combat) and adjudicates the round.

Naval combat (SEQ.2F-2H: BOMBARD and FIRE orders, engagements) calls
naval_combat.py directly; the other combat parts call ``COMBAT_HOOKS[rule]``
("SEQ.3C", "SEQ.5A" landings, "SEQ.5" air strikes D-J, "SEQ.5K" land combat,
"SEQ.5L" return to base, "SEQ.10"); a part with no hook emits "combat-deferred".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import AmbiguousOrderError, IllegalOrderError, OrderError
from pbem.core.refusals import line_error
from pbem.core.ruleset import LineError
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side
from pbem.rulesets.usn import (
    air_combat,
    air_return,
    bases,
    bombardment,
    hexgrid,
    land_combat,
    movement,
    naval_combat,
    opening,
    submarines,
    transport,
)
from pbem.rulesets.usn.geo import AUSTRALIA, HOME_ISLANDS, Geo
from pbem.rulesets.usn.hooks import ENTRENCH_FREE, HOOKS, ISOLATION_IMMUNE
from pbem.rulesets.usn.orders import (
    VERB_STEPS,
    AirCargo,
    Bombard,
    Embark,
    Emergency,
    FireAt,
    Ground,
    Line,
    Mission,
    Move,
    Place,
    Sail,
    Simple,
    Stack,
    Standing,
    SubMove,
    Transfer,
    parse_orders,
    verb_of,
)
from pbem.rulesets.usn.orders import Drop as DropOrder
from pbem.rulesets.usn.refuel import can_refuel_in_base, refuel_from_oiler
from pbem.rulesets.usn.scenario import AREA, entry_allowed, entry_hexes
from pbem.rulesets.usn.sequence import (
    Step,
    StepKind,
    current_round,
    first_round_of_side,
    rounds_for,
    step,
)
from pbem.rulesets.usn.standing import merge
from pbem.rulesets.usn.state import WEST_COAST, GameState, Pending, Unit
from pbem.rulesets.usn.supply import fuel_check, stamp
from pbem.rulesets.usn.work import Work, destroy

CombatHook = Callable[[Work, Step, Mapping[Side, list[Line]], Dice | None], None]
COMBAT_HOOKS: dict[str, CombatHook] = {
    # Capture after land movement, landings, land combat, Step 10.
    "SEQ.3C": land_combat.hook_land_phase,
    "SEQ.5A": land_combat.hook_landings,
    "SEQ.5": air_combat.hook_strikes,  # D-J: air strikes and ground support
    "SEQ.5K": land_combat.hook_attacks,
    "SEQ.5L": air_return.hook_return,
    "SEQ.10": bases.hook_bookkeeping,
}


@dataclass(slots=True)
class RoundResult:
    state: GameState
    work: Work
    accepted: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, list[LineError]] = field(default_factory=dict)


class _Sheet:
    """One side's parsed lines, with a verdict per line."""

    def __init__(self, side: Side, lines: list[Line], errors: list[LineError]) -> None:
        self.side = side
        self.lines = lines
        self.errors = errors
        self.failed: set[int] = set()
        self.ordered: dict[tuple[str, str], int] = {}  # (group, unit) -> line number

    def refuse(self, line: Line, error: OrderError) -> None:
        self.failed.add(line.number)
        self.errors.append(line_error(line.number, line.text, error))

    def of(self, *verbs: str) -> list[Line]:
        return [
            ln for ln in self.lines if verb_of(ln.order) in verbs and ln.number not in self.failed
        ]

    def claim(self, line: Line, group: str, units: Sequence[str]) -> bool:
        """'A unit ordered twice' leaves the sheet ambiguous: the later line is refused."""
        for uid in units:
            first = self.ordered.get((group, uid))
            if first is not None and first != line.number:
                self.refuse(
                    line,
                    AmbiguousOrderError(
                        f"{uid} already has an order of this kind on line {first}", rule="MOV.C"
                    ),
                )
                return False
        for uid in units:
            self.ordered[(group, uid)] = line.number
        return True


def _try(sheet: _Sheet, line: Line, action: Callable[..., None], *args: Any) -> None:
    try:
        action(*args)
    except OrderError as e:
        sheet.refuse(line, e)


def run_round(
    geo: Geo,
    state: GameState,
    texts: Mapping[str, str],
    dice: Dice | None,
) -> RoundResult:
    rnd = current_round(state)
    # A set-up round has no steps: its PLACE and STANDING orders parse as step 1's.
    kinds = frozenset(step(n).kind for n in rnd.steps) or frozenset({StepKind.ENTRY})
    sheets: dict[Side, _Sheet] = {}
    for side in SIDES:
        if side not in texts:
            continue
        lines, errors = parse_orders(texts[side], kinds)
        sheets[side] = _Sheet(side, lines, errors)
        if side not in rnd.sides:
            for ln in lines:
                sheets[side].refuse(
                    ln,
                    IllegalOrderError(
                        f"the {side} side has no orders in round {rnd.key}", rule="SEQ.STRICT"
                    ),
                )
    w = Work.start(geo, state)
    w.immune = HOOKS[ISOLATION_IMMUNE]  # CG1.PHILFORT
    for side, sheet in sheets.items():  # OPT.JVD, CG1.SHOCK.*, MINI.MIDSIM.STRIKE
        for ln, message, rule in opening.restrict(w, rnd, side, sheet.of(*VERB_STEPS)):
            sheet.refuse(ln, IllegalOrderError(message, rule=rule))
    for sheet in sheets.values():
        _route_moves(w, sheet, kinds)
    for who in rnd.sides if not rnd.steps else ():  # a set-up round (SETUP.JFIRST)
        if Side(who) in sheets:
            _step_setup(w, sheets[Side(who)])
    for n in rnd.steps:
        st = step(n)
        if st.kind is StepKind.ENTRY:
            _step_entry(w)
        elif st.kind is StepKind.AIR_SEA:
            assert st.side is not None
            _step_air_sea(w, st, sheets.get(st.side), dice)
        elif st.kind is StepKind.LAND_MOVE:
            assert st.side is not None
            _step_land(w, st, sheets.get(st.side), dice)
        elif st.kind is StepKind.STRIKE:
            _step_strike(w, st, sheets, dice)
        elif dice is not None:  # step 10 has no orders to validate
            _step_bookkeeping(w)
    if dice is not None and rnd.steps and rnd.steps[-1] != 10:
        w.refresh_supply()  # ZOC.INSTANT: the round's end state as it stands (reports)
    new = w.snapshot()
    standing = dict(new.standing)
    for side, sheet in sheets.items():
        orders = [ln.order for ln in sheet.of("STANDING") if isinstance(ln.order, Standing)]
        if orders and side in rnd.sides:
            standing[side] = merge(standing.get(side, ()), orders)
            w.event(
                "standing-orders", "GEN.SPIRIT", (side,), side=side, orders=list(standing[side])
            )
    new = replace(new, standing=standing)
    result = RoundResult(new, w)
    for side, sheet in sheets.items():
        result.accepted[side] = [
            ln.order.canonical() for ln in sheet.lines if ln.number not in sheet.failed
        ]
        result.errors[side] = sorted(sheet.errors, key=lambda e: e.line)
    return result


def advance(state: GameState) -> GameState:
    """The next round; after the last round of the last turn the game is over."""
    nxt = state.round + 1
    if nxt < len(rounds_for(state)):
        return replace(state, round=nxt)
    if state.turn >= state.last_turn:
        return replace(state, round=-1)
    return replace(state, round=0, turn=state.turn + 1)


def _route_moves(w: Work, sheet: _Sheet, kinds: frozenset[StepKind]) -> None:
    """MOVE lines go to the land or the naval step by the kind of their units."""
    for ln in sheet.of("MOVE"):
        assert isinstance(ln.order, Move)
        units = [w.units.get(f"{sheet.side}/{uid}") for uid in ln.order.units]
        missing = [uid for uid, u in zip(ln.order.units, units, strict=True) if u is None]
        if missing and StepKind.LAND_MOVE in kinds and sheet.of("BREAK"):
            continue  # perhaps a part of a division broken down first (BRK.WHEN)
        if missing:
            sheet.refuse(
                ln, IllegalOrderError(f"{missing[0]} is not one of your units", rule="UNIT.SELECT")
            )
            continue
        land = {u.kind in ("land", "cd") for u in units if u is not None}
        if len(land) > 1:
            sheet.refuse(
                ln,
                IllegalOrderError(
                    "land and naval units move in different steps: one order each",
                    rule="SEQ.STRICT",
                ),
            )
            continue
        need = StepKind.LAND_MOVE if land == {True} else StepKind.AIR_SEA
        if need not in kinds:
            where = (
                "land movement (steps 3 and 7)"
                if need is StepKind.LAND_MOVE
                else "air and sea movement"
            )
            sheet.refuse(
                ln,
                IllegalOrderError(
                    f"these units move in the {where} phase, not in this round", rule="SEQ.STRICT"
                ),
            )


def _is_land_move(w: Work, side: Side, ln: Line) -> bool:
    assert isinstance(ln.order, Move)
    u = w.units.get(f"{side}/{ln.order.units[0]}")
    return u is not None and u.kind in ("land", "cd")


# --- set-up and step 1 ------------------------------------------------------------


def _step_setup(w: Work, sheet: _Sheet) -> None:
    """SETUP.FREE, SETUP.AIRANY, OPT.JVD: a side's set-up choices, before turn 1."""
    w.set_side(sheet.side)
    lines = sheet.of("PLACE")
    opening.begin_setup(w, sheet.side, [ln.order for ln in lines if isinstance(ln.order, Place)])
    for ln in lines:
        assert isinstance(ln.order, Place)
        what = ln.order.what
        if isinstance(what, AirCargo) or sheet.claim(ln, "place", [str(what)]):
            _try(sheet, ln, opening.do_setup_place, w, ln.order)
    opening.end_setup(w, sheet.side)


def _step_entry(w: Work) -> None:
    """SEQ.1 / REIN.*: this turn's arrivals enter where the chart says."""
    turn = w.state.turn
    due = [p for p in w.state.pending if p.turn == turn]
    if not due:
        return
    w.state = replace(w.state, pending=tuple(p for p in w.state.pending if p.turn != turn))
    placeable: dict[str, str] = dict(w.state.extra.get("placeable", {}))
    for p in due:
        if p.unit is not None:
            u, region = _arrival_position(w, p)
            w.put(replace(u, arrived_turn=turn))
            if region:
                placeable[u.key] = region
            w.event("reinforcement", "SEQ.1", None, side=p.side, unit=u.uid, at=u.where())
        elif p.air_type:
            loc = _air_arrival(w, p)
            w.set_air(p.side, loc, w.air_at(p.side, loc).add(p.air_type, p.air_points))
            if p.air_type == "NAC" and p.side == JAPANESE:
                a = w.air_at(p.side, loc)
                w.set_air(p.side, loc, replace(a, nac_new=a.nac_new + p.air_points))
            w.event(
                "reinforcement",
                "REIN.AIRPTS",
                None,
                side=p.side,
                air=f"{p.air_points} {p.air_type}",
                at=loc,
            )
    w.state = replace(w.state, extra={**w.state.extra, "placeable": placeable})


def _default_japan(w: Work, naval: bool) -> int | None:
    for h in sorted(w.bases):
        b = w.bases[h]
        if (
            b.owner == JAPANESE
            and w.geo.in_region(h, HOME_ISLANDS)
            and (b.has_naval if naval else True)
        ):
            return h
    return None


def _arrival_position(w: Work, p: Pending) -> tuple[Unit, str]:
    assert p.unit is not None
    u = p.unit
    h = hexgrid.hex_of(p.place) if p.place else None
    if h is not None:
        return replace(u, hex=h, box=None, in_base=u.is_naval and h in w.bases), ""
    spec = p.place[len(AREA) :] if p.place and p.place.startswith(AREA) else ""
    area = entry_hexes(w.geo, w.units.values(), spec) if spec else []
    if area:  # REIN.BURMA, CG2.BURMA: the first hex of the area; PLACE may move it
        return replace(u, hex=area[0], box=None, in_base=False), spec
    if p.side == ALLIED and p.place == "AUS":
        return replace(u, hex=None, box=WEST_COAST, in_base=u.is_naval), AUSTRALIA
    if p.side == ALLIED:
        return replace(u, hex=None, box=WEST_COAST, in_base=u.is_naval), ""  # REIN.A.DEFAULT
    home = _default_japan(w, naval=u.is_naval)  # REIN.J.DEFAULT
    return replace(u, hex=home, box=None, in_base=u.is_naval), HOME_ISLANDS


def _air_arrival(w: Work, p: Pending) -> str:
    h = hexgrid.hex_of(p.place) if p.place else None
    if h is not None:
        return hexgrid.fmt(h)
    if p.place and p.place != "AUS":
        return p.place  # aboard the named carrier
    if p.side == ALLIED:
        pearl = w.bases.get(1456)
        if (
            p.air_type == "LBAC"
            and pearl
            and pearl.owner == ALLIED
            and pearl.has_air
            and not pearl.neutralized(w.state.turn)
        ):
            return "1456"  # REIN.A.LBAC
        return WEST_COAST
    home = _default_japan(w, naval=False)
    return WEST_COAST if home is None else hexgrid.fmt(home)


def _do_place(w: Work, side: Side, order: Place) -> None:
    """SEQ.1: a unit that arrived this turn "anywhere in Japan/Australia" is placed."""
    if w.state.round != first_round_of_side(side, rounds_for(w.state)):
        raise IllegalOrderError("arrivals are placed in your first round of the turn", rule="SEQ.1")
    h = order.hex
    if isinstance(order.what, AirCargo):
        raise IllegalOrderError(
            "air arrivals stay at their entry base; use TRANSFER", rule="REIN.AIRPTS"
        )
    u = w.own(order.what)
    region = w.state.extra.get("placeable", {}).get(u.key)
    if u.arrived_turn != w.state.turn or not region:
        raise IllegalOrderError(
            f"{u.uid} did not arrive this turn with a free entry place", rule="REIN.ENTRYHEX"
        )
    if not entry_allowed(w.geo, w.units.values(), h, region):
        raise IllegalOrderError(f"{hexgrid.fmt(h)} is not in {region}", rule="REIN.ENTRYHEX")
    if u.is_naval:
        b = w.own_base(h)
        if b is None or not b.has_naval:
            raise IllegalOrderError(
                f"ships enter at a friendly naval base; {hexgrid.fmt(h)} has none",
                rule="REIN.ENTRYHEX",
            )
    elif not w.geo.is_land(h):
        raise IllegalOrderError(f"{hexgrid.fmt(h)} is not land", rule="REIN.ENTRYHEX")
    else:  # STK.A, STK.B: as at set-up
        fault = opening.stacking_fault(w, u, h)
        if fault is not None:
            raise IllegalOrderError(fault[0], rule=fault[1])
    w.put(replace(u, hex=h, box=None, in_base=u.is_naval))
    w.event("placed", "SEQ.1", None, side=side, unit=u.uid, at=hexgrid.fmt(h))


# --- air and sea movement -------------------------------------------------------


def _step_air_sea(w: Work, st: Step, sheet: _Sheet | None, dice: Dice | None) -> None:
    side = st.side
    assert side is not None
    w.begin_phase(side, st.number)
    movement.advance_boxes(w)
    submarines.begin_phase(w)  # SUB.G
    if sheet is not None:
        for ln in sheet.of("STATION"):  # SUB.A: at the beginning of the phase
            assert isinstance(ln.order, Simple)
            _try(sheet, ln, submarines.do_station, w, ln.order.units[0])
        for ln in sheet.of("PLACE"):
            assert isinstance(ln.order, Place)
            _try(sheet, ln, _do_place, w, side, ln.order)
        for ln in sheet.of("TRANSFER"):  # A
            assert isinstance(ln.order, Transfer)
            _try(sheet, ln, movement.do_transfer, w, ln.order)
        for ln in sheet.of("DROP"):  # B
            assert isinstance(ln.order, DropOrder)
            if st.number not in (2, 8):
                sheet.refuse(ln, IllegalOrderError("the Allies have no paratroops", rule="SEQ.4"))
            elif sheet.claim(ln, "move", [ln.order.unit]):
                _try(sheet, ln, movement.do_drop, w, ln.order.unit, ln.order.hex)
        for ln in sheet.of("MOVE", "SAIL"):  # C
            if isinstance(ln.order, Move) and _is_land_move(w, side, ln):
                continue
            o = ln.order
            assert isinstance(o, Move | Sail)
            if sheet.claim(ln, "move", o.units):
                if isinstance(o, Move):
                    _allied_move(w, sheet, ln, o, dice)
                else:
                    _try(sheet, ln, movement.do_sail, w, o.units, o.entry)
        for ln in sheet.of("SUB"):  # SUB.PROC: with the first portion of naval movement
            assert isinstance(ln.order, SubMove)
            if sheet.claim(ln, "move", [ln.order.sub]):
                _try(sheet, ln, submarines.do_sub_move, w, ln.order.sub, ln.order.path)
        for ln in sheet.of("EMBARK", "DEBARK"):  # D
            assert isinstance(ln.order, Embark)
            _try(sheet, ln, transport.do_embark, w, ln.order)
        if sheet.of("EMERGENCY"):
            w.refresh_supply()  # ZOC.INSTANT: ships and aircraft have moved (NM.EMERG.SUPPLY)
        for ln in sheet.of("EMERGENCY"):  # E
            assert isinstance(ln.order, Emergency)
            if sheet.claim(ln, "move", [ln.order.ship]):
                _try(sheet, ln, transport.do_emergency, w, ln.order)
    _naval_combat(w, sheet, dice)  # F, G, H
    if sheet is not None:
        for ln in sheet.of("CONTINUE"):  # I
            assert isinstance(ln.order, Move)
            if sheet.claim(ln, "continue", ln.order.units):
                _allied_move(w, sheet, ln, ln.order, dice)
        for ln in sheet.of("STACK"):
            assert isinstance(ln.order, Stack)
            _try(sheet, ln, movement.do_stack, w, ln.order.hex, ln.order.units)
        for ln in sheet.of("BASE", "SEA"):
            assert isinstance(ln.order, Simple)
            o = ln.order
            if sheet.claim(ln, "port", o.units):
                for uid in o.units:
                    _try(sheet, ln, movement.do_port, w, uid, o.verb == "BASE")
        for ln in sheet.of("REFUEL"):  # J
            assert isinstance(ln.order, Simple)
            for uid in ln.order.units:
                _try(sheet, ln, refuel_from_oiler, w, uid)
    _end_naval_phase(w)


def _allied_move(w: Work, sheet: _Sheet, ln: Line, o: Move, dice: Dice | None) -> None:
    """A naval MOVE or CONTINUE; Allied ships entering a hex with Japanese subs on
    station are attacked (SUB.C). Only when adjudicating: validation never tells."""
    start = len(w.events)
    _try(sheet, ln, movement.do_naval_move, w, o)
    if dice is not None and w.side == ALLIED:
        submarines.after_allied_move(w, w.events[start:], dice)


def _naval_combat(w: Work, sheet: _Sheet | None, dice: Dice | None) -> None:
    """SEQ.2F bombardment of land units and bases, SEQ.2G surface engagements,
    SEQ.2H bombardment of CD units, in that order (A7); naval_combat.py."""
    bombards = sheet.of("BOMBARD") if sheet is not None else []
    if bombards:
        w.refresh_supply()  # ZOC.INSTANT: a bombarded unit's defence (SUP.E)
    targets: dict[str, str] = {}
    for ln in sheet.of("FIRE") if sheet is not None else []:
        o = ln.order
        assert isinstance(o, FireAt) and sheet is not None
        if sheet.claim(ln, "fire", o.units):
            _try(sheet, ln, naval_combat.check_fire, w, o.units, o.target)
            if ln.number not in sheet.failed:
                targets.update(dict.fromkeys(o.units, o.target))
    for cd_step in (False, True):
        if cd_step and dice is not None:
            naval_combat.resolve_engagements(w, dice, {w.side: targets})
        for ln in bombards:
            o = ln.order
            assert isinstance(o, Bombard) and sheet is not None
            if (o.target == "CD") == cd_step and sheet.claim(ln, "bombard", o.units):
                _try(sheet, ln, _bombard, w, o, dice)


def _bombard(w: Work, o: Bombard, dice: Dice | None) -> None:
    if dice is None:
        bombardment.check_bombard(w, o.hex, o.target, o.units, o.at)
    else:
        bombardment.bombard(w, o.hex, o.target, o.units, dice, o.at)


def _end_naval_phase(w: Work) -> None:
    """SEQ.2J and the end of a naval phase: refuelling in base, oilers refill,
    Allied transports count their waiting (NM.TRANS.ALLIEDWAIT), training goes on."""
    w.refresh_supply()  # ZOC.INSTANT: the bases' lines as the phase ends (SEQ.2J)
    when = stamp(w.state.turn, w.step)
    snap = w.snapshot()
    for u in list(w.units.values()):
        if u.side != w.side or not u.is_naval:
            continue
        new = u
        if can_refuel_in_base(snap, u):
            new = replace(new, fuel=0, refuelled_step=when, oiler_full=True)
        if u.is_transport and u.hex is not None:
            new = replace(new, wait=0 if u.key in w.moved else u.wait + 1)
        if u.training > 0:
            new = replace(new, training=u.training - 1)
        if new is not u:
            w.put(new)
    w.escaped.clear()
    submarines.end_phase(w)  # SUB.A phase count, GEN.REC.C log


def _deferred(w: Work, st: Step, lines: Mapping[Side, list[Line]], dice: Dice | None) -> None:
    """A combat part with no module registered in COMBAT_HOOKS: a marker event."""
    w.event("combat-deferred", st.rule, None, step=st.number)


# --- land movement -----------------------------------------------------------


def _step_land(w: Work, st: Step, sheet: _Sheet | None, dice: Dice | None) -> None:
    side = st.side
    assert side is not None
    w.begin_phase(side, st.number)
    burma = bool(w.state.options.get("burma"))
    if sheet is not None:
        for ln in sheet.of("PLACE"):
            assert isinstance(ln.order, Place)
            _try(sheet, ln, _do_place, w, side, ln.order)
        for ln in sheet.of("BREAK"):  # BRK.WHEN: before moving, the parts may move
            assert isinstance(ln.order, Simple)
            if sheet.claim(ln, "break", ln.order.units[:1]):
                _try(sheet, ln, movement.do_break, w, *ln.order.units)
        for ln in sheet.of("MOVE"):
            assert isinstance(ln.order, Move)
            if not _is_land_move(w, side, ln):
                continue
            if sheet.claim(ln, "move", ln.order.units):
                _try(sheet, ln, movement.do_land_move, w, ln.order, burma)
        for ln in sheet.of("COMBINE"):  # BRK.REBUILD: after moving together
            assert isinstance(ln.order, Simple)
            if sheet.claim(ln, "break", ln.order.units):
                _try(sheet, ln, movement.do_combine, w, ln.order.units)
        w.refresh_supply()  # ZOC.INSTANT: captures may have ended an enemy zone (ENT.PROC)
        for ln in sheet.of("ENTRENCH", "DISENTRENCH"):
            assert isinstance(ln.order, Simple)
            if sheet.claim(ln, "entrench", ln.order.units):
                for uid in ln.order.units:
                    _try(sheet, ln, _entrench, w, uid, ln.order.verb, dice)
        for ln in sheet.of("DEFEND", "UNDEFEND"):
            assert isinstance(ln.order, Simple)
            _try(sheet, ln, land_combat.land_order, w, ln.order)
        for ln in sheet.of("BUILD", "SABOTAGE"):  # SEQ.3C
            assert isinstance(ln.order, Simple)
            _try(sheet, ln, bases.land_order, w, ln.order, dice)
    if dice is not None:
        COMBAT_HOOKS.get("SEQ.3C", _deferred)(w, st, {side: sheet.lines if sheet else []}, dice)


def _entrench(w: Work, uid: str, verb: str, dice: Dice | None) -> None:
    """SEQ.3B / ENT.PROC, ENT.C; ENT.B (A28: only at the end of the own land phase)."""
    u = w.own(uid)
    if u.kind != "land" or u.hex is None:
        raise IllegalOrderError(f"{uid} is not a land unit on the map", rule="ENT.PROC")
    if verb == "DISENTRENCH":
        if not u.entrenched:
            raise IllegalOrderError(f"{uid} is not entrenched", rule="ENT.B")
        w.put(replace(u, entrenched=False))
        w.event("disentrenched", "ENT.B", None, unit=uid, side=u.side)
        return
    if u.entrenched:
        raise IllegalOrderError(f"{uid} is already entrenched", rule="ENT.PROC")
    if HOOKS[ENTRENCH_FREE](w.state, u):  # CG1.PHILFORT: no die, moved or isolated
        w.put(replace(u, entrenched=True))
        w.event("entrench", "CG1.PHILFORT", None, unit=uid, side=u.side, success=True)
        return
    if u.key in w.moved:
        raise IllegalOrderError(f"{uid} moved this phase", rule="ENT.PROC")
    if not u.supplied:  # the unit's supply as the rules keep it (supply.py)
        raise IllegalOrderError(f"{uid} is out of supply", rule="ENT.PROC")
    if dice is None:
        return
    roll = dice.d6(f"entrench {u.side} {uid}")
    ok = roll <= (1 if u.side == JAPANESE else 2)
    if ok:
        w.put(replace(u, entrenched=True))
    w.event("entrench", "ENT.C", None, unit=uid, side=u.side, roll=roll, success=ok)


# --- land attack and air strikes ---------------------------------------------------


def _step_strike(w: Work, st: Step, sheets: Mapping[Side, _Sheet], dice: Dice | None) -> None:
    """Steps 5/9: orders are checked here for ownership, strength and range;
    the combat modules resolve them (SEQ.5A-K). SEQ.5L: missions never move
    aircraft on the map (AMAC.PURPOSE), so without combat they stay put."""
    phasing = st.side
    assert phasing is not None
    w.begin_phase(phasing, st.number)
    for side, sheet in sheets.items():
        w.set_side(side)
        committed: dict[tuple[str, str], int] = {}
        missions = 0
        for ln in sheet.of("CAP", "STRIKE", "SUPPORT"):
            assert isinstance(ln.order, Mission)
            missions += 1
            if missions > 9:
                sheet.refuse(
                    ln,
                    IllegalOrderError(
                        "at most nine missions per air-strike phase", rule="AMAC.LIMIT9"
                    ),
                )
                continue
            _try(sheet, ln, _check_mission, w, ln.order, committed)
            if ln.number not in sheet.failed:
                _try(sheet, ln, air_combat.check_mission_target, w, ln.order, phasing)
        for ln in sheet.of("ATTACK", "GUNFIRE", "LAND"):
            assert isinstance(ln.order, Ground)
            if side != phasing:
                sheet.refuse(
                    ln,
                    IllegalOrderError(
                        f"only the phasing side attacks on land in step {st.number}", rule="SEQ.5B"
                    ),
                )
                continue
            _try(sheet, ln, _check_ground, w, ln.order)
        for ln in sheet.of("PLACE"):
            assert isinstance(ln.order, Place)
            _try(sheet, ln, _do_place, w, side, ln.order)
    w.set_side(phasing)
    if dice is not None:
        lines = {
            s: [ln for ln in sh.lines if ln.number not in sh.failed] for s, sh in sheets.items()
        }
        for side, ls in lines.items():
            for ln in ls:
                if isinstance(ln.order, Mission | Ground):
                    w.event("plot", "SEQ.5E", None, side=side, order=ln.order.canonical())
        COMBAT_HOOKS["SEQ.5A"](w, st, lines, dice)
        COMBAT_HOOKS.get("SEQ.5", _deferred)(w, st, lines, dice)
        COMBAT_HOOKS["SEQ.5K"](w, st, lines, dice)
        COMBAT_HOOKS["SEQ.5L"](w, st, lines, dice)


def _check_mission(w: Work, m: Mission, committed: dict[tuple[str, str], int]) -> None:
    side = w.side
    origin = movement.location_hex(w, side, m.source)
    if origin is None:
        raise IllegalOrderError(f"{m.source} is not on the map", rule="AMAC.A")
    # The base or carrier first (AM.CAP.HEX: a CAP over a hex with no base of
    # yours is refused for that), then the aircraft on it.
    if hexgrid.hex_of(m.source) is not None:
        base = w.bases.get(origin)
        if base is None or base.owner != side or base.neutralized(w.state.turn):
            raise IllegalOrderError(f"{m.source} is not a usable air base of yours", rule="MOV.S")
        if not base.supplied:
            raise IllegalOrderError(f"the air base at {m.source} is out of supply", rule="SUP.E")
    else:
        ship = w.own(m.source)
        if ship.damaged:
            raise IllegalOrderError(f"{m.source} is damaged: its aircraft cannot fly", rule="CBT.H")
    have = w.air_at(side, m.source)
    key = (m.source, m.air.atype)
    used = committed.get(key, 0) + m.air.points
    if have.get(m.air.atype) < used:
        raise IllegalOrderError(
            f"{m.source} has {have.get(m.air.atype)} {m.air.atype}; {used} are committed",
            rule="UNIT.AIR.POINTS",
        )
    if m.dest is not None:
        normal, ext = movement.air_range(w, m.air.atype)
        if m.air.atype == "LBAC":
            ext = normal
        dist = w.geo.air_distance(origin, m.dest)
        if dist > ext:
            raise IllegalOrderError(
                f"{m.air.atype} from {m.source} reach {ext} hexes (normal {normal}); "
                f"{hexgrid.fmt(m.dest)} is {dist} away",
                rule="MOV.V",
            )
    committed[key] = used


def _check_ground(w: Work, g: Ground) -> None:
    if g.verb == "LAND":
        ship = w.own(g.where)
        if not (
            (w.side == JAPANESE and ship.utype == "TR") or (w.side == ALLIED and ship.utype == "AT")
        ):
            raise IllegalOrderError(
                "only Japanese TR and Allied AT land against opposition", rule="AMP.TRANS"
            )
        for uid in g.units:
            if w.own(uid).carried_by != ship.uid:
                raise IllegalOrderError(f"{uid} is not aboard {ship.uid}", rule="SEQ.5A")
        land_combat.check_landing(w, ship, g.units)  # AMP.CD
        return
    h = int(g.where)
    for uid in g.units:
        u = w.own(uid)
        if u.hex != h:
            raise IllegalOrderError(
                f"{uid} is not in {hexgrid.fmt(h)}; attackers must share the hex", rule="SEQ.5B"
            )
        if g.verb == "ATTACK" and (u.kind != "land" or u.entrenched):
            raise IllegalOrderError(
                f"{uid} cannot attack", rule="ENT.A" if u.entrenched else "SEQ.5B"
            )
        if g.verb == "GUNFIRE" and u.utype not in ("BB", "CA", "CL", "DD"):
            raise IllegalOrderError(f"{uid} cannot give gunfire support", rule="NM.GSUP")
    land_combat.check_ground(w, g.verb, h, g.units)  # CBT.GEN, SUP.E, NM.GSUP


# --- step 10 -------------------------------------------------------------------


def _step_bookkeeping(w: Work) -> None:
    """SEQ.10: fuel records (SUP.G), supply, and the turn record."""
    COMBAT_HOOKS["SEQ.10"](w, step(10), {}, None)  # repairs and replacements
    snap = w.snapshot()
    snap, lost = fuel_check(snap)
    w.units = dict(snap.units)
    for ship in lost:
        destroy(w, ship, "out of fuel", "SUP.G")
    w.refresh_supply(turn_over=True)
    _withdrawals(w)
    w.event("turn-end", "SEQ.10", None, turn=w.state.turn)


def _withdrawals(w: Work) -> None:
    """REIN.NOTE.A: a unit due out must be on the West Coast at the end of its turn.
    What happens if it is not, the rules do not say: the moderator is told."""
    for turn, side, uid in w.state.extra.get("withdrawals", ()):
        if turn != w.state.turn:
            continue
        u = w.units.get(f"{side}/{uid}")
        if u is None:
            continue
        if u.box == WEST_COAST:
            w.remove(u)
            w.event("withdrawn", "REIN.NOTE.A", None, side=side, unit=uid)
        else:
            w.event("withdrawal-missed", "REIN.NOTE.A", None, side=side, unit=uid, at=u.where())
