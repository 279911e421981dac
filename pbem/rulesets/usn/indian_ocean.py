"""CG1.INDIAN and OFF.WEST.J: the Japanese carrier raid into the Indian Ocean.

By its deadline (T20) the Japanese must take CV/CVL carrying 30 NAC off the west
edge, keep them off for two full naval movement phases and bring them back through
any west-edge hex; while they are off, one die gives the NAC points lost (VP to the
Allies). Parameters come from the scenario's ``[special.indian_ocean]``.

How the engine plays it:

- A Japanese CV or CVL may sail off the west edge (``MOVE ... OFF``) while the
  requirement is unmet (OFF.WEST.J: only "in response to" it); other ships may not.
  It goes to box ``IO0``; each Japanese naval phase that begins with it off the map
  adds one (``IO1``, ``IO2``...), so after ``naval_phases_off_map`` full phases off it
  may come back with a MOVE whose first hex is any west-edge hex (OFF.BOX: the edge
  hex is the first hex of its move).
- The loss roll (who rolls and when is not stated, usn-ambiguities.md): the engine
  rolls once, at the start of the first mail round with the raid off the map; the
  points come off the carriers off the map (most loaded first) and the Allies score
  them (VP.SCHED.A) as a scenario award.
- The requirement is met when carriers that stayed off long enough and carried at
  least 30 NAC when they left are back on the map. Failing it by the deadline has no
  stated consequence (usn-ambiguities.md): the engine records
  ``extra["indian_ocean"]["failed"]`` for the moderator and applies nothing.

State: ``extra["indian_ocean"]`` = ``{"out": {uid: NAC at exit}, "back": {uid: NAC},
"rolled": die, "done": bool, "failed": bool}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.usn import hexgrid, world
from pbem.rulesets.usn.hooks import (
    ADVANCE_WEST,
    ENTER_WEST,
    HOOKS,
    LEAVE_WEST,
    MAY_RETURN_WEST,
    PHASES_OFF_WEST,
    RETURNED_WEST,
)
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.victory import air_value
from pbem.rulesets.usn.work import Work

BOX = "IO"  # the off-map Indian Ocean box, followed by the phases begun there


def rule(state: GameState) -> Mapping[str, Any] | None:
    return world.special(state).get("indian_ocean")


def record(state: GameState) -> dict[str, Any]:
    return dict(state.extra.get("indian_ocean", {}))


def _with(state: GameState, rec: Mapping[str, Any]) -> GameState:
    return replace(state, extra={**state.extra, "indian_ocean": dict(rec)})


def phases_off(u: Unit) -> int | None:
    """Naval phases begun off the map in the Indian Ocean box (None: not there)."""
    if u.box is None or not u.box.startswith(BOX):
        return None
    return int(u.box[len(BOX) :])


def may_return(state: GameState, u: Unit) -> bool:
    """CG1.INDIAN: back on the map only after the full phases off it."""
    n, r = phases_off(u), rule(state)
    return n is not None and r is not None and n > int(r.get("naval_phases_off_map", 2))


def leave(w: Work, s: Unit) -> None:
    """OFF.WEST.J: a Japanese carrier sails off the west edge for the raid."""
    r = rule(w.state)
    rec = record(w.state)
    if r is None or rec.get("done"):
        raise IllegalOrderError(
            "Japanese ships leave by the west edge only for the Indian Ocean raid",
            rule="OFF.WEST.J",
        )
    types = tuple(r.get("carrier_types", ("CV", "CVL")))
    if s.utype not in types:
        raise IllegalOrderError(
            f"only {'/'.join(types)} carriers go on the Indian Ocean raid", rule="OFF.WEST.J"
        )
    nac = w.air_at(JAPANESE, s.uid).nac
    rec["out"] = {**rec.get("out", {}), s.uid: nac}
    w.state = _with(w.state, rec)
    w.put(replace(s, hex=None, box=f"{BOX}0", heading=None, in_base=False))
    w.moved.add(s.key)
    w.event("left-map", "CG1.INDIAN", None, unit=s.uid, side=s.side, edge="west", nac=nac)


def advance(w: Work) -> None:
    """At the start of each Japanese naval phase, one more phase off the map."""
    for u in list(w.units.values()):
        n = phases_off(u)
        if n is not None and u.side == w.side:
            w.put(replace(u, box=f"{BOX}{n + 1}"))


def check_entry(w: Work, s: Unit, h: int) -> None:
    """CG1.INDIAN: back through any west-edge hex."""
    if w.geo.edge_of(h) != "west":
        raise IllegalOrderError(
            f"{s.uid} comes back through a west-edge hex, not {hexgrid.fmt(h)}", rule="CG1.INDIAN"
        )


def returned(w: Work, s: Unit) -> None:
    """Count a carrier back from the raid; 30 NAC back in all meets the requirement."""
    r = rule(w.state)
    rec = record(w.state)
    out = dict(rec.get("out", {}))
    if r is None or s.uid not in out:
        return
    back = {**rec.get("back", {}), s.uid: out.pop(s.uid)}
    rec.update(out=out, back=back)
    if sum(back.values()) >= int(r.get("nac_points", 30)) and not rec.get("done"):
        rec["done"] = True
        w.event("indian-ocean-raid", "CG1.INDIAN", None, carriers=sorted(back), met=True)
    w.state = _with(w.state, rec)


def roll_losses(state: GameState, dice: Dice) -> tuple[GameState, list[Event]]:
    """CG1.INDIAN: one die while the raid is off the map = NAC points lost (Allied VP)."""
    r = rule(state)
    rec = record(state)
    if r is None or "rolled" in rec:
        return state, []
    off = [u for u in state.units.values() if u.side == JAPANESE and phases_off(u) is not None]
    if not off:
        return state, []
    roll = dice.d6("CG1.INDIAN Indian Ocean NAC losses")
    left = roll
    air = dict(state.air.get(JAPANESE, {}))
    lost: dict[str, int] = {}
    for u in sorted(off, key=lambda u: (-air.get(u.uid, Air()).nac, u.uid)):
        a = air.get(u.uid, Air())
        k = min(left, a.nac)
        if k:
            air[u.uid] = replace(a.add("NAC", -k), nac_new=min(a.nac_new, a.nac - k))
            lost[u.uid] = k
            left -= k
    rec["rolled"] = roll
    s = _with(replace(state, air={**state.air, JAPANESE: air}), rec)
    total = sum(lost.values())
    if total:
        pts = air_value("NAC", ALLIED) * total
        awards = [*s.extra.get("scenario_awards", []), [ALLIED, str(Fraction(pts)), _why(total)]]
        s = replace(s, extra={**s.extra, "scenario_awards": awards})
    ev = Event("indian-ocean-losses", {"roll": roll, "lost": lost}, None, "CG1.INDIAN")
    return s, [ev]


def _why(n: int) -> str:
    return f"CG1.INDIAN: {n} Japanese NAC lost in the Indian Ocean"


def check_deadline(state: GameState, turn: int) -> GameState:
    """CG1.INDIAN: unmet at the end of the deadline turn: recorded, consequence unstated."""
    r = rule(state)
    rec = record(state)
    if r is None or rec.get("done") or turn != int(r.get("by_turn", 20)):
        return state
    return _with(state, {**rec, "failed": True})


__all__ = [
    "BOX",
    "advance",
    "check_deadline",
    "check_entry",
    "leave",
    "may_return",
    "phases_off",
    "record",
    "returned",
    "roll_losses",
    "rule",
]


HOOKS.fill(PHASES_OFF_WEST, phases_off)
HOOKS.fill(MAY_RETURN_WEST, may_return)
HOOKS.fill(LEAVE_WEST, leave)
HOOKS.fill(ENTER_WEST, check_entry)
HOOKS.fill(RETURNED_WEST, returned)
HOOKS.fill(ADVANCE_WEST, advance)
