"""The naval Execution Segment (3.1 C, 16.0, 16.6): TFs carry out their cards one by
one, the sides alternating from the initiative winner's choice.

Each side's cards execute in the order it wrote them (17.13.6); a LINKed TF moves
with its leader, as one TF (17.10). A TF moves hex by hex and its ``log`` records
every hex entered with the MP spent so far and whether it was night (16.6: from
the declared hex, up to the Night Movement Allowance, then day again). Missions
along the card (FUEL, REGP, TRAN, PORT) happen where the TF then is.

Hidden movement (16.1.6, ruling R30): nothing of a move reaches the enemy; each
side is told of its own TFs only, never where its turn fell among the enemy's, so
its mail does not depend on how many TFs the enemy moved. A rule that discloses
(search, Located chits) does so through ``on_enter`` hooks, called at each hex
entered with the mover's side, TF and log entry; they return their Events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import zip_longest
from typing import Annotated

from pbem.core.events import Event
from pbem.core.sides import Side, enemy_of
from pbem.rulesets.witp import dummies, fuel
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.missioncards import (
    Fuelling,
    MissionCard,
    MissionCode,
    MissionNote,
    Move,
    PortEntry,
    Regroup,
)
from pbem.rulesets.witp.records import Wire
from pbem.rulesets.witp.work import Work

# (work, side, tf, log entry) -> events; the search rules register theirs.
EnterHook = Callable[[Work, str, str, tfs.MoveStep], list[Event]]
ON_ENTER: list[EnterHook] = []


class TfExecuted(Fact, kind="tf-executed"):
    """16.0, 17.13: the owner's TF carried out its card (hidden movement, 16.1.6: told
    its owner alone): from its declared hex (stored as ``from``) to where it ended."""

    tf: str
    start: Annotated[HexId, Wire("from")]  # "from" is Python's keyword
    to: HexId | None
    hexes: tuple[HexId, ...]
    mp: int
    night_hexes: tuple[HexId, ...]
    linked_to: str | None
    missions: tuple[MissionNote, ...]  # what each mission along the card did


def _sequence(cards: Mapping[str, MissionCard]) -> list[list[str]]:
    """The side's executions in order: each a leader and the TFs linked to it."""
    groups: dict[str, list[str]] = {}
    for tf, card in cards.items():
        leader = card.link or tf
        if leader not in cards:
            leader = tf  # 17.10: a link to a TF with no card moves alone (it had no card)
        groups.setdefault(leader, [leader])
        if leader != tf:
            groups[leader].append(tf)
    return list(groups.values())


def execute(
    work: Work,
    cards: Mapping[str, Mapping[str, MissionCard]],
    first: Side,
    time: str,
) -> list[Event]:
    """Play every side's ``cards`` (side -> TF -> card), alternating from ``first``."""
    order = [first, enemy_of(first)]
    plotted = {side: cards.get(side, {}) for side in order}
    queues = [_sequence(plotted[side]) for side in order]
    events: list[Event] = []
    for pair in zip_longest(*queues):
        for side, group in zip(order, pair, strict=True):
            if group is not None:
                events += _execute_group(work, side, group, plotted[side], time)
    return events


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a group has come on its card this phase: MP spent (17.13.4), hexes
    entered and the MP of them moved at night (16.6: up to the Night Movement
    Allowance)."""

    mp: int = 0
    hexes: int = 0
    night_mp: int = 0


def _sortie(entry: tfs.TaskForce, card: MissionCard) -> tfs.TaskForce:
    """16.0: the TF is active with its card this phase; a fuelled one takes the card's
    speed class, and 18.2.1's conversion its new fuelling period."""
    speed, fuel = entry.speed_class, entry.fuel
    if not entry.dummy and fuel is None:
        speed = card.speed
    if card.converted_fuel is not None:  # 18.2.1
        speed, fuel = card.speed, card.converted_fuel
    return replace(
        entry,
        mission=card,
        log=(),
        night=False,
        speed_class=speed,
        fuel=fuel,
        in_port=None,  # 16.0: it sorties
        deactivated=False,
        port_phases=0,
        active=True,
    )


def _execute_group(
    work: Work,
    side: Side,
    group: list[str],
    cards: Mapping[str, MissionCard],
    time: str,
) -> list[Event]:
    for tf in group:
        tfs.put(work, side, tf, _sortie(tfs.task_force(work, side, tf), cards[tf]))
    leader = cards[group[0]]
    events: list[Event] = []
    notes: list[MissionNote] = []
    done = Progress()
    for m in leader.missions:
        if isinstance(m, Move):
            done, entered = _move(work, side, group, leader, m, done)
            events += entered
            if m.code is MissionCode.TRAN:
                notes.append(MissionNote("TRAN", at=m.to, rule="17.8"))
        elif isinstance(m, Fuelling):
            done = replace(done, mp=done.mp + m.mp)
            notes += [fuel.at_sea(work, side, tf, m.source) for tf in group]
        elif isinstance(m, Regroup):
            notes.append(_regroup(work, side, group[0], m))
        elif isinstance(m, PortEntry):
            for tf in group:
                entry = tfs.task_force(work, side, tf)
                tfs.put(work, side, tf, fuel.enter_port(entry, str(m.port)))
            notes.append(MissionNote("PORT", at=m.port, rule="18.4.1"))
    for tf in group:
        entry = tfs.task_force(work, side, tf)
        fact = TfExecuted(
            tf,
            cards[tf].start,
            entry.hex,
            tuple(s.hex for s in entry.log),
            done.mp,
            tuple(s.hex for s in entry.log if s.night),
            group[0] if tf != group[0] else None,
            tuple(notes),
        )
        events.append(work.disclose(fact, [side], time, "16.0, 17.13"))
    return events


def _move(
    work: Work,
    side: Side,
    group: list[str],
    card: MissionCard,
    m: Move,
    done: Progress,
) -> tuple[Progress, list[Event]]:
    """17.13, 16.6: the group enters the move's hexes one by one, after ``done``;
    night from the card's declared hex, up to the Night Movement Allowance. Each
    hex entered is logged before the ``ON_ENTER`` hooks see it."""
    night_mp = tfs.allowance(work.pack, card.speed, night=True)
    events: list[Event] = []
    for h, cost in zip(m.route, m.costs, strict=True):
        hexes = done.hexes + 1
        night = card.night_after is not None and hexes > card.night_after
        at_night = night and done.night_mp < night_mp
        done = Progress(done.mp + cost, hexes, done.night_mp + (cost if at_night else 0))
        step = tfs.MoveStep(h, done.mp, at_night, m.ev)
        for tf in group:
            entry = tfs.task_force(work, side, tf)
            tfs.put(work, side, tf, replace(entry, hex=h, log=(*entry.log, step), night=at_night))
        for hook in ON_ENTER:
            for tf in group:
                events += hook(work, side, tf, step)
    return done, events


def _regroup(work: Work, side: Side, tf: str, m: Regroup) -> MissionNote:
    """17.11: ships to another TF in the same hex, or a dummy marker placed here."""
    source = tfs.task_force(work, side, tf)
    display = tfs.task_forces(work, side)
    here = source.hex
    if m.dummy is not None:
        allot = dummies.allotment(work, side)
        if m.dummy in display or (allot is not None and allot.left <= 0):
            return MissionNote("REGP", failed=f"{m.dummy} cannot be deployed", rule="13.6, 16.1.1")
        speed = source.speed_class or "SC3"
        # deployed: plotted from the next Naval Phase (ruling R31)
        tfs.put(
            work, side, m.dummy, tfs.TaskForce(here, dummy=True, speed_class=speed, deployed=True)
        )
        if allot is not None:
            dummies.put_allotment(work, side, allot.sortie())
        return MissionNote("REGP", dummy=m.dummy, at=here, rule="17.11, 13.6")
    to = str(m.to)
    target = display.get(to)
    if target is None:
        target = tfs.TaskForce(
            here,
            speed_class=source.speed_class,
            fuel=source.fuel,
            active_phases=source.active_phases,
        )
    elif target.hex != here or target.dummy:
        why = "a dummy" if target.dummy else f"in {target.hex}, not {here}"
        return MissionNote("REGP", failed=f"{to} is {why}", rule="17.11")
    moving = [s for s in m.ships if s in source.ships]
    target = replace(target, ships=(*target.ships, *moving))
    if target.fuel is not None and source.fuel is not None:
        target = replace(target, fuel=min(int(target.fuel), int(source.fuel)))
    tfs.put(
        work, side, tf, replace(source, ships=tuple(s for s in source.ships if s not in moving))
    )
    tfs.put(work, side, to, target)
    return MissionNote("REGP", to=to, ships=tuple(moving), at=here, rule="17.11")
