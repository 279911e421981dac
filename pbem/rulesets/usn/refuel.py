"""Refuelling (SEQ.2J, SUP.G, SUP.H, NM.REFUEL): where a ship takes on fuel.

A ship refuels by ending its side's naval phase in an own, supplied, undamaged
naval base (``can_refuel_in_base``) or with an oiler that still carries fuel
(``refuel_from_oiler``); the fuel clock itself is supply.py's ``fuel_check``.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED
from pbem.rulesets.usn.hooks import HOOKS, NAVAL_BASE_BARRED
from pbem.rulesets.usn.state import GameState, Unit
from pbem.rulesets.usn.supply import stamp
from pbem.rulesets.usn.work import Work


def can_refuel_in_base(state: GameState, unit: Unit) -> bool:
    """SEQ.2J / BASE.PROC.NAVDAMAGED: in an own, supplied, undamaged naval base
    (not one a scenario bars to the side, CG1.PHILFORT.MANILA)."""
    if unit.box == "WC":
        return unit.side == ALLIED  # the U.S. West Coast base
    if unit.hex is None or not unit.in_base:
        return False
    base = state.bases.get(unit.hex)
    return (
        base is not None
        and base.owner == unit.side
        and base.has_naval
        and base.supplied
        and not base.neutralized(state.turn)
        and not HOOKS[NAVAL_BASE_BARRED](state, unit.side, unit.hex)
    )


def refuel_from_oiler(w: Work, uid: str) -> None:
    """SUP.H: every own ship ending the phase with a full oiler refuels; it is then empty."""
    oiler = w.own(uid)
    if oiler.utype != "OIL":
        raise IllegalOrderError(f"{uid} is not an oiler", rule="SUP.H")
    if not oiler.oiler_full:
        raise IllegalOrderError(
            f"{uid} is empty: it refills by ending a phase in a supplied naval base", rule="SUP.H"
        )
    if oiler.hex is None:
        raise IllegalOrderError(f"{uid} is not on the map", rule="SUP.H")
    when = stamp(w.state.turn, w.step)
    ships = [
        u
        for u in w.units.values()
        if u.side == w.side and u.is_naval and u.hex == oiler.hex and u.uid != uid
    ]
    for u in ships:
        w.put(replace(u, fuel=0, refuelled_step=when))
    w.put(replace(oiler, oiler_full=False))
    w.event("refuelled", "SUP.H", None, side=w.side, oiler=uid, ships=sorted(u.uid for u in ships))
