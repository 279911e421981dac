"""Bases and ships in repair: base values, building and repairing bases with
engineers and transports, sabotage, ship repair in home ports, and the
replacement of heavily damaged transports.

Orders (land movement phase, SEQ.3C): ``BUILD <engineer> AIR|NAVAL`` starts or
continues work in the engineer's hex; ``SABOTAGE <division or engineer>
AIR|NAVAL`` wrecks an own base there. Works in progress are kept in
``state.extra["works"]`` (hex -> kind -> {"engineers", "repair", "turn"}).
Step 10 (``bookkeeping``) completes repairs, repairs ships (A16) and handles
damaged transports (RPL.AT, RPL.TR, A17).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.capture import awaiting, part_awaits, part_repaired, release, set_awaiting
from pbem.rulesets.usn.geo import HOME_ISLANDS
from pbem.rulesets.usn.orders import Simple
from pbem.rulesets.usn.state import WEST_COAST, Base, Pending, Unit
from pbem.rulesets.usn.work import Work

BASE_DEFENSE = 10  # BASE.M, UNIT.NB
NAVAL_BASE_AA = 20  # BASE.M
BUILD_TARGET: dict[str, int] = {ALLIED: 5, JAPANESE: 6}  # BASE.D: the lowest roll that completes
SABOTAGE_TARGET = {"DIV": 2, "MAR": 2, "ENG": 4}  # BASE.J: the highest roll that succeeds
BUILD_STEP = 5  # BASE.E: air bases grow five points at a time
PEARL_HARBOR = 1456  # REP.WHERE
DAMAGE_REPLACED = {"AT": (20, 10), "TR": (10, 4)}  # RPL.AT, RPL.TR: (weeks, turns)


def base_defense(b: Base) -> int:
    """BASE.M / UNIT.NB: every base defends at 10 (also out of supply, SUP.E)."""
    return BASE_DEFENSE


def base_aa(b: Base, naval: bool) -> int:
    """BASE.M / UNIT.AB: a naval base fires AA 20; an air base its capacity."""
    if naval:
        return NAVAL_BASE_AA if b.has_naval else 0
    return b.air_capacity if b.has_air else 0


def builder_transport(side: Side) -> str:
    """BUILD.PROC with ERR.BUILD / A8: an Allied AT, or any Japanese TR."""
    return "AT" if side == ALLIED else "TR"


def _works(w: Work) -> dict[str, dict[str, dict[str, Any]]]:
    return {h: dict(v) for h, v in w.state.extra.get("works", {}).items()}


def _set_works(w: Work, works: dict[str, dict[str, dict[str, Any]]]) -> None:
    w.state = replace(
        w.state, extra={**w.state.extra, "works": {h: v for h, v in works.items() if v}}
    )


def needs_repair(w: Work, h: int, kind: str) -> bool:
    """BASE.A-C: a captured large base, a destroyed naval base or an air base below its
    printed capacity (bombed or sabotaged) is repaired rather than built."""
    b = w.bases.get(h)
    if b is None:
        return False
    if part_awaits(w.state.extra, h, kind):
        return True
    if kind == "naval":
        return b.naval and b.naval_destroyed
    printed = w.geo.bases.get(h)
    return printed is not None and 0 <= b.air_capacity < printed.air_capacity


def do_build(w: Work, order: Simple, dice: Dice | None) -> None:
    """BUILD.PROC, BASE.D, BASE.E, BASE.F, BASE.G: an engineer works on one base."""
    if len(order.units) != 2 or order.units[1] not in ("AIR", "NAVAL"):
        raise IllegalOrderError("write: BUILD <engineer> AIR|NAVAL", rule="BUILD.PROC")
    eng = w.own(order.units[0])
    kind = order.units[1].lower()
    if eng.utype != "ENG" or eng.hex is None:
        raise IllegalOrderError(f"{eng.uid} is not an engineer on the map", rule="BASE.F")
    h = eng.hex
    b = w.bases.get(h)
    if b is not None and b.owner != w.side:
        raise IllegalOrderError(f"{hexgrid.fmt(h)} holds an enemy base", rule="STK.C")
    if not w.geo.is_land(h):
        raise IllegalOrderError(f"{hexgrid.fmt(h)} is not land", rule="BUILD.PROC")
    works = _works(w)
    here = works.setdefault(hexgrid.fmt(h), {})
    for other, work in here.items():
        if other != kind and eng.uid in work.get("engineers", ()):
            raise IllegalOrderError(f"{eng.uid} already works on the {other} base", rule="BASE.F")
    job = here.get(kind)
    if job is not None and job.get("done") == w.state.turn:
        # BASE.F: a second engineer "may roll twice to attempt it": one base (or one
        # +5, BASE.E) however many succeed; the next +5 is a new job next turn.
        w.event(
            "base-building",
            "BASE.F",
            None,
            side=w.side,
            hex=hexgrid.fmt(h),
            base=kind,
            engineer=eng.uid,
            completed=True,
        )
        return
    if job is None:  # starting needs the transport in the hex as well (BUILD.PROC)
        tr = builder_transport(w.side)
        if not any(u.side == w.side and u.utype == tr and u.hex == h for u in w.units.values()):
            raise IllegalOrderError(
                f"starting work needs an own {tr} in {hexgrid.fmt(h)}", rule="BUILD.PROC"
            )
        job = {"engineers": [], "repair": needs_repair(w, h, kind), "turn": w.state.turn}
    if eng.uid not in job["engineers"]:
        job["engineers"] = [*job["engineers"], eng.uid]
    here[kind] = job
    _set_works(w, works)
    if dice is None or job["repair"]:
        if job["repair"]:
            w.event("base-repair", "BUILD.GEN", None, side=w.side, hex=hexgrid.fmt(h), base=kind)
        return
    roll = dice.d6(f"build {kind} base {hexgrid.fmt(h)} {eng.uid}")
    ok = roll >= BUILD_TARGET[w.side]
    w.event(
        "base-building",
        "BASE.D",
        None,
        side=w.side,
        hex=hexgrid.fmt(h),
        base=kind,
        engineer=eng.uid,
        roll=roll,
        success=ok,
    )
    if ok:
        _complete(w, h, kind, built=True)
        works = _works(w)
        works.setdefault(hexgrid.fmt(h), {})[kind] = {**job, "done": w.state.turn}
        _set_works(w, works)


def _complete(w: Work, h: int, kind: str, built: bool) -> None:
    """BASE.D: usable from the next turn (neutralized for the rest of this one);
    BASE.E: repair restores the printed capacity, building adds five; a part
    damaged at the start is repaired on its own (BASE.C, CG2.BASES.J)."""
    b = w.bases.get(h)
    turn = w.state.turn
    if kind == "air":
        printed = w.geo.bases.get(h)
        if built:
            cap = (b.air_capacity if b is not None and b.air else 0) + BUILD_STEP
        else:
            cap = max(printed.air_capacity if printed else 0, b.air_capacity if b else 0)
        nb = (
            Base(h, w.side, True, False, cap, neutralized_until=turn)
            if b is None
            else replace(
                b, air=True, air_capacity=cap, neutralized_until=max(b.neutralized_until, turn)
            )
        )
    else:
        nb = (
            Base(h, w.side, False, True, 0, neutralized_until=turn)
            if b is None
            else replace(b, naval=True, naval_destroyed=False)
        )
    w.bases[h] = nb
    if not built:
        part_repaired(w, h, kind)
    w.event(
        "base-built" if built else "base-repaired",
        "BASE.E",
        None,
        side=w.side,
        hex=hexgrid.fmt(h),
        base=kind,
        capacity=nb.air_capacity,
    )


def do_sabotage(w: Work, order: Simple, dice: Dice | None) -> None:
    """BASE.J: a division (1-2) or an engineer (1-4) wrecks an own base in its hex:
    a naval base is destroyed, an air base loses five capacity."""
    if len(order.units) != 2 or order.units[1] not in ("AIR", "NAVAL"):
        raise IllegalOrderError("write: SABOTAGE <division or engineer> AIR|NAVAL", rule="BASE.J")
    u = w.own(order.units[0])
    kind = order.units[1].lower()
    if u.utype not in SABOTAGE_TARGET or u.hex is None:
        raise IllegalOrderError(
            f"{u.uid} cannot sabotage: divisions and engineers only", rule="BASE.J"
        )
    b = w.bases.get(u.hex)
    if b is None or b.owner != w.side or not (b.has_naval if kind == "naval" else b.has_air):
        raise IllegalOrderError(f"no own {kind} base in {hexgrid.fmt(u.hex)}", rule="BASE.J")
    if dice is None:
        return
    roll = dice.d6(f"sabotage {kind} base {hexgrid.fmt(u.hex)} {u.uid}")
    ok = roll <= SABOTAGE_TARGET[u.utype]
    if ok:
        if kind == "naval":
            w.bases[u.hex] = replace(b, naval_destroyed=True)
        else:
            w.bases[u.hex] = replace(b, air_capacity=max(0, b.air_capacity - BUILD_STEP))
    w.event(
        "sabotage",
        "BASE.J",
        None,
        side=w.side,
        hex=hexgrid.fmt(u.hex),
        base=kind,
        unit=u.uid,
        roll=roll,
        success=ok,
    )


# --- Step 10 ----------------------------------------------------------------------


def _finish_repairs(w: Work) -> None:
    """BUILD.GEN: a repair is complete after one Game-Turn of work, if an engineer
    stayed (BUILD.PROC)."""
    works = _works(w)
    for hx, jobs in list(works.items()):
        h = int(hx)
        for kind, job in list(jobs.items()):
            if "done" in job:  # BASE.F: completed this turn
                jobs.pop(kind)
                continue
            rec = awaiting(w.state.extra, h)
            if rec is not None and not rec.get("start") and kind in rec.get("repair", ()):
                continue  # a captured base: BASE.B, at the land attack phase
            side = w.bases[h].owner if h in w.bases else None
            present = (
                [
                    e
                    for e in job.get("engineers", ())
                    if (u := w.units.get(f"{side}/{e}")) is not None and u.hex == h
                ]
                if side
                else []
            )
            if not present:
                jobs.pop(kind)  # the engineer left: the work lapses
                continue
            if job.get("repair"):
                assert side is not None  # engineers are present: the base has an owner
                prev, w.side = w.side, side
                _complete(w, h, kind, built=False)
                w.side = prev
                jobs.pop(kind)
    _set_works(w, works)


def after_land_attack(w: Work) -> None:
    """BASE.B (with C23 and BASE.C): at the end of the phasing side's Land Attack
    Phase its captured bases become usable - a small air base if any of its land units
    occupies the hex; a large air base or a naval base once repaired by an engineer
    that came with a transport (BUILD.PROC: work begun with a BUILD order, or the
    transport still in the hex), one engineer per base (BASE.F), each of two bases in
    the hex repaired separately (BASE.C). Released, it is usable at once."""
    side = w.side
    works = _works(w)
    for hx in sorted(w.state.extra.get("damaged_bases", {})):
        h = int(hx)
        rec = awaiting(w.state.extra, h)
        b = w.bases.get(h)
        if rec is None or rec.get("start") or b is None or b.owner != side:
            continue  # not captured (CG2.BASES.J: repaired at step 10, BUILD.GEN)
        here = [u for u in w.units.values() if u.side == side and u.hex == h]
        if not any(u.kind == "land" for u in here):
            continue
        engineers = sorted(u.uid for u in here if u.utype == "ENG")
        transport = any(u.utype == builder_transport(side) for u in here)
        jobs = works.get(hx, {})
        left: list[str] = []
        for kind in rec.get("repair", ()):
            if not (b.has_air if kind == "air" else b.has_naval):
                continue  # nothing of that kind left to repair (or the older record form)
            job = jobs.get(kind)
            eng = [e for e in engineers if e in (job or {}).get("engineers", ())]
            if not eng and transport:
                eng = engineers[:1]
            if not eng:
                left.append(kind)
                continue
            engineers = [e for e in engineers if e not in eng]
            jobs.pop(kind, None)
            w.event(
                "base-repaired",
                "BASE.B",
                None,
                side=side,
                hex=hx,
                base=kind,
                engineer=eng[0],
                capacity=b.air_capacity,
            )
        works[hx] = jobs
        if left:
            set_awaiting(w, h, {**rec, "side": side, "repair": left})
            continue
        release(w, h, "BASE.B")
    _set_works(w, works)


def _proper_port(w: Work, u: Unit) -> bool:
    """REP.WHERE: Japanese ships in a naval base in Japan; Allied at Pearl Harbor or
    the U.S. West Coast. AM.BASE.NEUT: a neutralized base repairs nothing."""
    if u.box == WEST_COAST:
        return u.side == ALLIED
    if u.hex is None or not u.in_base:
        return False
    b = w.bases.get(u.hex)
    if b is None or b.owner != u.side or not b.has_naval or b.neutralized(w.state.turn):
        return False
    if u.side == JAPANESE:
        return w.geo.in_region(u.hex, HOME_ISLANDS)
    return u.hex == PEARL_HARBOR


def repair_ships(w: Work) -> None:
    """REP.RATE (A16): a ship that spent the whole turn idle in a proper port (there at
    the start of the turn - the last Step 10, or the set-up for the first turn,
    ``Work.begin_phase`` - and still there) loses one week of damage. Every ship in a
    proper port is watched, damaged or not: a ship damaged there during the turn (or
    at set-up) was still in port at its start, and its first turn there counts."""
    watch: dict[str, str] = dict(w.state.extra.get("repair_watch", {}))
    repaired: dict[str, int] = dict(w.state.extra.get("repaired_this_round", {}))
    new_watch: dict[str, str] = {}
    for u in list(w.units.values()):
        if not (u.is_naval and _proper_port(w, u)):
            continue
        here = u.where()
        if u.damaged and watch.get(u.key) == here:
            w.put(replace(u, damage=u.damage - 1))
            repaired[u.key] = repaired.get(u.key, 0) + 1
            w.event("repaired", "REP.RATE", (u.side,), unit=u.uid, side=u.side, left=u.damage - 1)
        new_watch[u.key] = here
    w.state = replace(
        w.state,
        extra={**w.state.extra, "repair_watch": new_watch, "repaired_this_round": repaired},
    )


def replace_damaged_transports(w: Work) -> None:
    """RPL.AT / RPL.TR (A17): a transport with heavy damage is replaced T+N turns
    later, and the damaged counter leaves play on reaching a friendly naval base."""
    scheduled = set(w.state.extra.get("replaced_damaged", ()))
    pending = list(w.state.pending)
    for u in list(w.units.values()):
        if u.utype not in DAMAGE_REPLACED or not u.is_naval:
            continue
        weeks, after = DAMAGE_REPLACED[u.utype]
        if u.key not in scheduled and u.damage >= weeks:
            fresh = replace(
                u, hex=None, box=None, damage=0, in_base=False, carried_by=None, fuel=0, wait=0
            )
            pending.append(Pending(w.state.turn + after, u.side, fresh))
            scheduled.add(u.key)
            w.event(
                "replacement-due",
                "RPL.GEN",
                None,
                side=u.side,
                unit=u.uid,
                turn=w.state.turn + after,
            )
        if u.key in scheduled and _in_friendly_naval_base(w, u):
            w.remove(u)
            scheduled.discard(u.key)
            w.event("withdrawn-damaged", "RPL.GEN", None, side=u.side, unit=u.uid)
    w.state = replace(
        w.state,
        pending=tuple(pending),
        extra={**w.state.extra, "replaced_damaged": sorted(scheduled)},
    )


def _in_friendly_naval_base(w: Work, u: Unit) -> bool:
    if u.box == WEST_COAST:
        return True
    if u.hex is None:
        return False
    b = w.bases.get(u.hex)
    return b is not None and b.owner == u.side and b.has_naval


def bookkeeping(w: Work) -> None:
    """SEQ.10: base repairs finish, ships repair, damaged transports are replaced."""
    _finish_repairs(w)
    repair_ships(w)
    replace_damaged_transports(w)


def hook_bookkeeping(w: Work, st: Any, lines: Any, dice: Dice | None) -> None:
    """phases.COMBAT_HOOKS["SEQ.10"]."""
    bookkeeping(w)


def land_order(w: Work, order: Simple, dice: Dice | None) -> None:
    """SEQ.3C: BUILD and SABOTAGE orders (rolled at once when adjudicating)."""
    if order.verb == "BUILD":
        do_build(w, order, dice)
    else:
        do_sabotage(w, order, dice)
