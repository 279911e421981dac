"""Optional Japanese submarines and their secret log (SUB.*, GEN.REC.C).

SUB.GEN: subs have no counters, so they are not ``Unit``s in ``state.units``
(nothing that shows, stacks, supplies or engages counters ever sees them).
They live in ``state.extra["subs"]`` (uid -> hex, on-station flag and the
Japanese naval phases spent on station) and ``state.extra["sub_log"]`` (one
entry per sub per Game-Turn: hex and on-station status, GEN.REC.C).

Rulings (usn-ambiguities.md A25): the phase a sub takes station counts as one
of its eight; only Japanese *naval* movement phases count (steps 2 and 8); a
sub attacks ships passing through as well as stopping (interrupt at entry).
The attack is resolved when the Allied move order has been carried out, so a
ship sunk in passing is removed where its order ended.

Never shown to the Allies during play (views.py asks ``view_part``): the subs,
their hexes and the log; after the game both sides see the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.naval_combat import apply_damage, fire, strength_why
from pbem.rulesets.usn.standing import resolve
from pbem.rulesets.usn.state import GameState, Unit
from pbem.rulesets.usn.work import Work

OPTION = "subs"  # the scenarios' [optional_rules.subs]
SUB_MA = 2  # SUB.GEN
SUB_SA = 6  # SUB.GEN
STATION_PHASES = 8  # SUB.A, SUB.J
STATION_RADIUS = 2  # SUB.E, SUB.I
REDUCTION = {"DD": 2, "BB": 1, "CV": 1, "CVL": 1, "CVE": 1}  # SUB.D


def enabled(state: GameState) -> bool:
    return bool(state.options.get(OPTION))


def subs_of(state: GameState) -> dict[str, dict[str, Any]]:
    return {k: dict(v) for k, v in state.extra.get("subs", {}).items()}


def _store(
    w: Work, subs: Mapping[str, Mapping[str, Any]], log: Sequence[Any] | None = None
) -> None:
    extra = {**w.state.extra, "subs": {k: dict(v) for k, v in subs.items()}}
    if log is not None:
        extra["sub_log"] = list(log)
    w.state = replace(w.state, extra=extra)


def _own(w: Work, uid: str) -> dict[str, Any]:
    if w.side != JAPANESE:
        raise IllegalOrderError("the Allies have no submarines", rule="SUB.GEN")
    if not enabled(w.state):
        raise IllegalOrderError(
            "the optional submarine rule is not in play in this game", rule="SUB.GEN"
        )
    sub = subs_of(w.state).get(uid)
    if sub is None:
        raise IllegalOrderError(f"{uid} is not one of your submarines", rule="UNIT.SELECT")
    return sub


# --- where a sub may be on station ---------------------------------------------------


def _air_bases_with_aircraft(w: Work, side: Side) -> list[int]:
    return [
        h
        for h, b in w.bases.items()
        if b.owner == side and b.has_air and w.air_at(side, hexgrid.fmt(h)).total > 0
    ]


def _near(h: int, centres: Sequence[int]) -> bool:
    return any(hexgrid.distance(h, c) <= STATION_RADIUS for c in centres)


def station_refusal(w: Work, h: int) -> IllegalOrderError | None:
    """SUB.E, SUB.F: why a sub may not be on station in ``h`` now (None: it may)."""
    b = w.bases.get(h)
    if b is not None and b.owner == ALLIED and b.has_naval:
        return IllegalOrderError(f"{hexgrid.fmt(h)} holds an Allied naval base", rule="SUB.F")
    if _near(h, _air_bases_with_aircraft(w, ALLIED)) and not _near(
        h, _air_bases_with_aircraft(w, JAPANESE)
    ):
        return IllegalOrderError(
            f"{hexgrid.fmt(h)} is within two hexes of an Allied air base with aircraft "
            "and of no Japanese one",
            rule="SUB.E",
        )
    return None


def free_to_leave(w: Work, sub: Mapping[str, Any]) -> bool:
    """SUB.J after eight phases; SUB.I early under the ZOC of Allied land-based aircraft."""
    if not sub.get("station"):
        return True
    if int(sub.get("phases", 0)) >= STATION_PHASES:
        return True
    return _near(int(sub["hex"]), _air_bases_with_aircraft(w, ALLIED))


# --- the Japanese naval phase -----------------------------------------------------


def begin_phase(w: Work) -> None:
    """SUB.G: a station a new base made illegal is abandoned, and the sub "must move
    on its next movement phase" (this one: ``must_move`` until it has moved)."""
    if w.side != JAPANESE or not enabled(w.state):
        return
    subs = subs_of(w.state)
    for uid, sub in sorted(subs.items()):
        if sub.get("station") and station_refusal(w, int(sub["hex"])) is not None:
            subs[uid] = {**sub, "station": False, "phases": 0, "must_move": True}
            w.event("sub-station-lost", "SUB.G", (JAPANESE,), sub=uid, hex=hexgrid.fmt(sub["hex"]))
    _store(w, subs)


def do_station(w: Work, uid: str) -> None:
    """SUB.A: STATION at the beginning of the movement phase; the sub then stays."""
    sub = _own(w, uid)
    if sub.get("station"):
        raise IllegalOrderError(f"{uid} is already on station", rule="SUB.A")
    if uid in w.state.extra.get("subs_moved", ()):
        raise IllegalOrderError(f"{uid} has moved this phase", rule="SUB.A")
    h = int(sub["hex"])
    why = station_refusal(w, h)
    if why is not None:
        raise why
    subs = subs_of(w.state)
    subs[uid] = {**sub, "station": True, "phases": 0}
    _store(w, subs)
    w.event("sub-station", "SUB.A", (JAPANESE,), sub=uid, hex=hexgrid.fmt(h))


def do_sub_move(w: Work, uid: str, path: Sequence[str]) -> None:
    """SUB.PROC: subs move like ships, hex by hex, MA 2 (MOV.N may double it);
    they never refuel and ignore enemy ships. Leaving station: SUB.G/I/J."""
    sub = _own(w, uid)
    if sub.get("station") and not free_to_leave(w, sub):
        raise IllegalOrderError(
            f"{uid} is on station ({sub.get('phases', 0)} of {STATION_PHASES} phases)", rule="SUB.A"
        )
    here = int(sub["hex"])
    danger = w.danger()
    doubled = here not in danger
    hexes: list[int] = []
    for tok in path:
        step = hexgrid.hex_of(tok)
        if step is None:
            raise IllegalOrderError("submarines never leave the map", rule="SUB.PROC")
        h = step
        if not hexgrid.adjacent(here, h):
            raise IllegalOrderError(
                f"{hexgrid.fmt(h)} is not adjacent to {hexgrid.fmt(here)}", rule="MOV.PROC"
            )
        if h not in w.geo.naval_nbrs[here]:
            raise IllegalOrderError(
                f"{uid} cannot cross the all-land hexside {hexgrid.fmt(here)}/{hexgrid.fmt(h)}",
                rule="TER.NAV",
            )
        doubled = doubled and h not in danger
        hexes.append(h)
        here = h
    limit = SUB_MA * 2 if doubled else SUB_MA
    if len(hexes) > limit:
        raise IllegalOrderError(
            f"{uid} may move {limit} hexes this phase", rule="MOV.N" if not doubled else "SUB.GEN"
        )
    subs = subs_of(w.state)
    subs[uid] = {"hex": here, "station": False, "phases": 0}
    _store(w, subs)
    moved = [*w.state.extra.get("subs_moved", ()), uid]
    w.state = replace(w.state, extra={**w.state.extra, "subs_moved": moved})
    w.event("sub-moved", "SUB.PROC", (JAPANESE,), sub=uid, path=[hexgrid.fmt(h) for h in hexes])


def end_phase(w: Work) -> None:
    """The phase counts for subs on station (A25); GEN.REC.C: the turn's log entry."""
    if w.side != JAPANESE or not enabled(w.state):
        return
    _forced_moves(w)
    subs = subs_of(w.state)
    for uid, sub in subs.items():
        if sub.get("station"):
            subs[uid] = {**sub, "phases": int(sub.get("phases", 0)) + 1}
    turn = w.state.turn
    log = [e for e in w.state.extra.get("sub_log", ()) if e["turn"] != turn]
    log += [
        {
            "turn": turn,
            "sub": uid,
            "hex": hexgrid.fmt(int(s["hex"])),
            "on_station": bool(s["station"]),
        }
        for uid, s in sorted(subs.items())
    ]
    _store(w, subs, log)
    extra = {k: v for k, v in w.state.extra.items() if k != "subs_moved"}
    w.state = replace(w.state, extra=extra)


def _forced_moves(w: Work) -> None:
    """SUB.G: a sub that had to abandon its station and was given no move this phase
    is moved one hex by the engine, to the lowest-numbered sea-connected neighbour
    (ruling: the rule's "must move" is kept at its least, one hex)."""
    subs = subs_of(w.state)
    moved = set(w.state.extra.get("subs_moved", ()))
    for uid, sub in sorted(subs.items()):
        if not sub.get("must_move") or uid in moved:
            continue
        here = int(sub["hex"])
        to = min(w.geo.naval_nbrs.get(here, ()), default=None)
        if to is None:
            continue
        subs[uid] = {"hex": to, "station": False, "phases": 0}
        w.event("sub-moved", "SUB.G", (JAPANESE,), sub=uid, path=[hexgrid.fmt(to)], forced=True)
    _store(w, subs)


# --- SUB.C: attacks on Allied ships entering a sub's hex ---------------------------------


def after_allied_move(w: Work, moved: Sequence[Event], dice: Dice) -> None:
    """SUB.C, SUB.H: every hex the moved Allied ships entered that holds subs on
    station; the subs there attack once per moving group (one ``moved`` path)."""
    if not enabled(w.state):
        return
    groups: dict[tuple[str, ...], list[str]] = {}
    for e in moved:
        if e.kind == "moved" and e.data.get("side") == ALLIED:
            groups.setdefault(tuple(e.data.get("path", ())), []).append(str(e.data["unit"]))
    for path, uids in groups.items():
        for tok in path:
            subs = on_station_at(w.state, int(tok))
            ships = [u for u in (w.units.get(f"{ALLIED}/{x}") for x in uids) if u is not None]
            if subs and ships:
                attack(w, int(tok), subs, ships, dice)


def on_station_at(state: GameState, h: int) -> list[str]:
    return sorted(
        uid for uid, s in subs_of(state).items() if s.get("station") and int(s["hex"]) == h
    )


def reductions(stack: Sequence[Unit]) -> int:
    """SUB.D: 2 per DD, 1 per BB, CV, CVL or CVE in the attacked stack."""
    return sum(REDUCTION.get(u.utype, 0) for u in stack)


def spread(total: int, subs: Sequence[str], how: str) -> dict[str, int]:
    """SUB.H: the Allied player's split of the reductions (standing SUBREDUCE)."""
    cut = dict.fromkeys(subs, 0)
    left = total
    if how == "FIRST":
        for uid in subs:
            n = min(left, SUB_SA)
            cut[uid], left = n, left - n
        return cut
    while left > 0 and any(cut[s] < SUB_SA for s in subs):
        for uid in subs:
            if left > 0 and cut[uid] < SUB_SA:
                cut[uid] += 1
                left -= 1
    return cut


def choose_target(ships: Sequence[Unit], priority: Sequence[str]) -> Unit:
    """SUB.H with standing SUBTARGET: the first type present, top of the stack first."""
    rank = {t: i for i, t in enumerate(priority)}
    return min(ships, key=lambda u: (rank.get(u.utype, len(rank)), u.stack, u.uid))


def attack(w: Work, h: int, subs: Sequence[str], entering: Sequence[Unit], dice: Dice) -> None:
    """SUB.C: the subs combine on one target (CRT4 then CRT5); no return fire (SUB.B)."""
    stack = {u.key: u for u in entering}
    for u in w.units.values():
        if u.side == ALLIED and u.is_naval and u.hex == h:
            stack.setdefault(u.key, u)
    total = reductions(list(stack.values()))
    cut = spread(total, subs, resolve(ALLIED, w.state.standing.get(ALLIED, ())).subreduce)
    target = choose_target(
        entering, resolve(JAPANESE, w.state.standing.get(JAPANESE, ())).subtarget
    )
    strength_left = sum(max(0, SUB_SA - cut[s]) for s in subs)
    purpose = f"submarine attack at {target.uid}"
    defense, why = strength_why(w.state, target, "defense")
    f = fire(dice, "CRT4", Fraction(strength_left), defense, target.key, purpose, defense_why=why)
    w.event(
        "sub-attack",
        "SUB.C",
        (JAPANESE,),
        subs=list(subs),
        hex=hexgrid.fmt(h),
        reductions=cut,
        fire=f.to_json(),
    )
    # The Allies learn of the attack and its result, never the subs or their hex.
    w.event("submarine-attack", "SUB.C", (ALLIED,), ship=target.uid, fire=f.to_json())
    apply_damage(w, target, f.damage, JAPANESE, "SUB.C")


# --- views -----------------------------------------------------------------------


def view_part(state: GameState, side: str | None) -> dict[str, Any]:
    """GEN.REC.C: the Japanese see their subs and log; the Allies only after the game."""
    if not enabled(state) and not state.extra.get("subs"):
        return {}
    log = list(state.extra.get("sub_log", ()))
    if side is None or side == JAPANESE:
        subs = [
            {
                "id": uid,
                "at": hexgrid.fmt(int(s["hex"])),
                "on_station": bool(s.get("station")),
                "phases_on_station": int(s.get("phases", 0)),
            }
            for uid, s in sorted(subs_of(state).items())
        ]
        return {"subs": subs, "sub_log": log}
    if state.over:
        return {"sub_log": log}
    return {}


__all__ = [
    "OPTION",
    "after_allied_move",
    "attack",
    "begin_phase",
    "choose_target",
    "do_station",
    "do_sub_move",
    "enabled",
    "end_phase",
    "free_to_leave",
    "on_station_at",
    "reductions",
    "spread",
    "station_refusal",
    "subs_of",
    "view_part",
]
