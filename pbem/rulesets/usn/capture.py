"""Capture of bases and coastal-defense units: the one path for every way of
arriving (a land move, a parachute drop, an unloading, an emergency transport,
an opposed landing, a land combat won).

BASE.I / ERR.BASE.I: "Bases are considered captured simply by moving a unit into
that hex, unless there is an Enemy land unit in that hex which is inverted or
Entrenched; then those units must be dislodged by combat." CBT.G / ENT.E: an
inverted (DEFEND) or entrenched land unit defends its hex's bases and CD units.
CBT.F / STK.B: an undefended enemy CD unit in a hex with a land unit is destroyed.
BASE.H: enemy aircraft on a captured air base are destroyed. BASE.L: ships in a
captured port are at sea.

BASE.A-C (pbem's reading of the three cases together): a captured air base of capacity 10 or
more, and every captured naval base, must be repaired by an engineer brought by
transport; a smaller air base needs no repair. BASE.B: either is usable only
"after the first Friendly Land Attack Phase of occupation" (by the transported
engineer for a large base, by any unit for a small one). Until then the base is
neutralized (``neutralized_until = UNTIL_REPAIRED``), so every module's use of
bases (MOV.S, BASE.PROC.DAMAGED, BASE.PROC.NAVDAMAGED, NM.BOMBBASE.NEUT, REP.WHERE)
keeps it out of use; ``state.extra["damaged_bases"]`` records what each captured
base still waits for: ``{"0759": {"side": s, "repair": ["air", "naval"], "was": n}}``
(``repair`` empty: occupation alone; ``was``: its neutralization before capture).
``bases.after_land_attack`` releases them at the end of the side's land attack phase.

The same record, with ``"start": True``, marks the parts of a base damaged at the
start of a scenario (CG2.BASES.J): not neutralized, those parts are repaired by an
engineer's turn of work (BUILD.GEN, ``bases._complete``), each part on its own
(BASE.C), and the record goes when no part is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from pbem.core.sides import Side, enemy_of
from pbem.rulesets.usn import fog, hexgrid
from pbem.rulesets.usn.state import Air, Unit
from pbem.rulesets.usn.work import Work, destroy

UNTIL_REPAIRED = 10**6  # Base.neutralized_until of a captured base not yet usable
LARGE_AIR_BASE = 10  # BASE.A: "a capacity of ten or more must be repaired"


# --- who defends bases (CBT.G, ENT.E, A27) ----------------------------------------


def defending(w: Work) -> set[str]:
    """Land units declared as defending their hex's bases and CD (CBT.G: inverted)."""
    return set(w.state.extra.get("defending", ()))


def set_defending(w: Work, keys: Iterable[str]) -> None:
    w.state = replace(w.state, extra={**w.state.extra, "defending": sorted(set(keys))})


def guards(w: Work, u: Unit) -> bool:
    """CBT.G / ENT.E: entrenched units always defend; others only when inverted."""
    return u.kind == "land" and (u.entrenched or u.key in defending(w))


# --- captured bases awaiting use (BASE.A-C) -----------------------------------------


def awaiting(extra: Mapping[str, Any], h: int) -> dict[str, Any] | None:
    """What a captured (or damaged-at-start) base in ``h`` still waits for, or None.
    A bare string (the older form of the start mark) is a naval part damaged at the
    start (CG2.BASES.J)."""
    rec = extra.get("damaged_bases", {}).get(hexgrid.fmt(h))
    if rec is None:
        return None
    if isinstance(rec, dict):
        return rec
    return damaged_at_start(None, ["naval"])


def damaged_at_start(side: Side | None, parts: Iterable[str]) -> dict[str, Any]:
    """CG2.BASES.J: the record of a base whose ``parts`` start damaged."""
    return {"side": side, "repair": list(parts), "was": 0, "start": True}


def part_awaits(extra: Mapping[str, Any], h: int, kind: str) -> bool:
    """The ``kind`` part ("air" or "naval") of the base in ``h`` awaits repair."""
    rec = awaiting(extra, h)
    return rec is not None and kind in rec.get("repair", ())


def part_repaired(w: Work, h: int, kind: str) -> None:
    """BASE.C: "if two bases are in the same hex, each must be repaired separately":
    the ``kind`` part is off the record; a start record with no part left goes (a
    captured base's record stays until BASE.B releases it)."""
    rec = awaiting(w.state.extra, h)
    if rec is None or kind not in rec.get("repair", ()):
        return
    left = [k for k in rec["repair"] if k != kind]
    set_awaiting(w, h, None if not left and rec.get("start") else {**rec, "repair": left})


def set_awaiting(w: Work, h: int, rec: dict[str, Any] | None) -> None:
    damaged = dict(w.state.extra.get("damaged_bases", {}))
    if rec is None:
        damaged.pop(hexgrid.fmt(h), None)
    else:
        damaged[hexgrid.fmt(h)] = rec
    w.state = replace(w.state, extra={**w.state.extra, "damaged_bases": damaged})


def base_usable(extra: Mapping[str, Any], h: int) -> bool:
    """BASE.A / BASE.B / BASE.PROC.DAMAGED: a captured base is unusable until released."""
    return awaiting(extra, h) is None


# --- the capture -----------------------------------------------------------------------


def capture_at(w: Work, h: int, side: Side | None = None) -> bool:
    """``side`` (default: the phasing side) takes the enemy bases and CD units of ``h``
    if one of its land units is there and no enemy land unit there defends them
    (inverted or entrenched). True if anything was taken."""
    side = w.side if side is None else side
    enemy = enemy_of(side)
    here = [u for u in w.units.values() if u.hex == h]
    if not any(u.side == side and u.kind == "land" for u in here):
        return False
    # H1: covered cargo defends as the enemy sees it, ashore (docs/usn-fog.md).
    if any(guards(w, u) for u in fog.shown_in(w.state.extra, w.units, enemy, h)):
        return False
    took = False
    for cd in [u for u in here if u.side == enemy and u.kind == "cd"]:
        destroy(w, cd, "occupied by enemy land units", "CBT.F")
        took = True
    b = w.bases.get(h)
    if b is not None and b.owner == enemy and (b.has_air or b.has_naval):
        _capture_base(w, h, side)
        took = True
    return took


def capture_all(w: Work) -> None:
    """Every hex holding a land unit of the phasing side (after land movement,
    landings and land combat: SEQ.3C, SEQ.5A, SEQ.5K)."""
    side = w.side
    for h in sorted(
        {u.hex for u in w.units.values() if u.side == side and u.kind == "land" and u.hex}
    ):
        capture_at(w, h, side)


def _capture_base(w: Work, h: int, side: Side) -> None:
    b = w.bases[h]
    loser = b.owner
    at = hexgrid.fmt(h)
    lost = w.air_at(loser, at)
    if lost.total:  # BASE.H
        w.set_air(loser, at, Air())
        w.event("air-destroyed", "BASE.H", None, side=loser, at=at, points=lost.total)
    for s in [u for u in w.units.values() if u.side == loser and u.hex == h and u.in_base]:
        w.put(replace(s, in_base=False))  # BASE.L
    repair = []
    if b.has_air and b.air_capacity >= LARGE_AIR_BASE:
        repair.append("air")  # BASE.A (C23: ten or more)
    if b.has_naval:
        repair.append("naval")  # BASE.C
    prior = awaiting(w.state.extra, h)
    was = b.neutralized_until if prior is None else int(prior.get("was", 0))
    w.bases[h] = replace(b, owner=side, neutralized_until=UNTIL_REPAIRED)
    set_awaiting(w, h, {"side": side, "repair": repair, "was": was})
    w.event(
        "base-captured",
        "BASE.I",
        None,
        hex=at,
        side=side,
        name=b.name,
        needs_repair=bool(repair),
    )


def release(w: Work, h: int, rule: str) -> None:
    """BASE.B: the captured base becomes usable now (its earlier neutralization, if
    any, still runs)."""
    rec = awaiting(w.state.extra, h)
    b = w.bases.get(h)
    set_awaiting(w, h, None)
    if b is None:
        return
    was = int(rec.get("was", 0)) if rec else 0
    w.bases[h] = replace(b, neutralized_until=was if was < UNTIL_REPAIRED else 0)
    w.event("base-usable", rule, None, hex=hexgrid.fmt(h), side=b.owner, name=b.name)
