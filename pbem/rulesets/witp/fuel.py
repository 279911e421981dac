"""Fuelling periods (18.0), fuelling at sea (17.9) and port entry (18.4.1).

A TF's ``fuel`` counts the active Naval Phases left in its fuelling period; None
means fuelled and not yet started (its speed class may be chosen again, 16.0 B).
The period starts at its first active phase at sea (18.1: SC3 3, SC2 5, SC1 4).
Every active phase spends one; a Game-Turn's unused active phases are spent at its
end all the same (18.4: "a player may not extend the fueling period ... simply by
never declaring them active"). A TF at sea with none left is unsupplied (18.3).
A dummy needs no fuel (13.6.1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, Side
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.missioncards import MissionNote
from pbem.rulesets.witp.work import Work

FUELLING_MP = "tables/fuelling-mp"
DD_EXCEPTION = "tables/destroyer-fuelling-exception"
CW_NAVIES = frozenset({"RN", "RAN", "RNZN", "CW"})  # 17.9.5: the Commonwealth


class TfDeactivated(Fact, kind="tf-deactivated"):
    """18.4.1: the owner's TF in ``port`` is deactivated."""

    tf: str
    port: str


class TfUnsupplied(Fact, kind="tf-unsupplied"):
    """18.3: the owner's TF is at sea past its fuelling period."""

    tf: str


def _points(pack: tfs.Pack, ships: Sequence[tfs.Ship]) -> tuple[float, bool]:
    """17.9, 17.9.5, 17.9.6: activation points fuelled, and whether CW rates apply.
    DDs take fuel one-for-one from the larger ships at no cost to the AOs."""
    rule = tfs.value(pack, DD_EXCEPTION)
    cw = [s.navy in CW_NAVIES for s in ships]
    if ships and sum(cw) * 2 > len(ships):
        raise IllegalOrderError(
            "a Commonwealth TF may not fuel at sea before cycle 2/44", rule="17.9.5"
        )
    feeders = sum(1 for s in ships if s.type in rule["feeder_types"])
    points = 0.0
    for s, commonwealth in zip(ships, cw, strict=True):
        cost = tfs.ship_class(pack, s).activation_cost
        if s.type in rule["dd_types"] and feeders > 0:
            feeders -= 1
            continue
        points += cost * (2 if commonwealth else 1)
    return points, any(cw)


def cost(pack: tfs.Pack, ships: Sequence[tfs.Ship], side: str) -> tuple[int, float]:
    """17.9: (MP fuelling a TF of ``ships`` costs, activation points fuelled)."""
    points, cw = _points(pack, ships)
    rates = tfs.value(pack, FUELLING_MP)
    navy = "IJN" if side == JAPANESE else ("CW" if cw else "USN")
    r = rates[navy]
    return math.ceil(points * float(r["per_point"]) + float(r["plus"])), points


def _gauged(pack: tfs.Pack, oiler: tfs.Ship) -> tfs.Ship:
    """17.9.2: an AO with its fuel left recorded: full (its class's capacity) until
    it is first asked to give."""
    if oiler.fuel_left is None:
        return replace(oiler, fuel_left=tfs.ship_class(pack, oiler).fuel_capacity)
    return oiler


def at_sea(work: Work, side: Side, tf: str, source: str) -> MissionNote:
    """17.9: TF ``tf`` fuels from ``source``'s AOs where it now is."""
    entry = tfs.task_force(work, side, tf)
    giver = tfs.task_forces(work, side).get(source)
    note = MissionNote("FUEL", source=source, at=entry.hex, rule="17.9")
    if giver is None or giver.hex != entry.hex:
        return note.put(failed=f"{source} is not in {entry.hex}")
    fuelled = [tfs.ship(work, side, s) for s in entry.ships]
    _, points = cost(work.pack, fuelled, side)
    ships = {s: tfs.ship(work, side, s) for s in giver.ships}
    oilers = {s: _gauged(work.pack, o) for s, o in ships.items() if o.type == "AO"}
    for name, o in oilers.items():
        tfs.put_ship(work, side, name, o)  # gauged, whether or not they hold enough
    left = {name: float(o.fuel_left or 0) for name, o in oilers.items()}
    if sum(left.values()) < points:
        why = f"{source}'s oilers hold less than {points:g} points"
        return note.put(failed=why, rule="17.9.2")
    need = points
    for name, o in oilers.items():
        take = min(need, left[name])
        tfs.put_ship(work, side, name, replace(o, fuel_left=left[name] - take))
        need -= take
    tfs.update(work, side, tf, fuel=None, unsupplied=False, fuelled=True)
    return note.put(points=points)


def enter_port(entry: tfs.TaskForce, port: str) -> tfs.TaskForce:
    """18.4.1: in port it fuels; it is deactivated after the following Naval Phase."""
    return replace(entry, in_port=port, port_phases=0, deactivated=False, entered_port=True)


def end_of_phase(work: Work, side: Side, time: str) -> list[Event]:
    """After the Execution Segment: active phases and fuel spent, port time counted,
    unsupplied TFs marked (18.1, 18.3, 18.4, 18.4.1, 18.5). Told to the owner only."""
    events: list[Event] = []
    for tf, e in _in_marker_order(work, side):
        # The phase's flags go; what they tell decides the rest.
        done = replace(e, active=False, entered_port=False, fuelled=False, deployed=False)
        if e.in_port and not e.entered_port and not e.active:
            if not e.deactivated:
                done = replace(
                    done,
                    port_phases=e.port_phases + 1,
                    deactivated=True,
                    fuel=None,
                    active_phases=0,
                    unsupplied=False,
                )
                fact = TfDeactivated(tf, e.in_port)
                events.append(work.disclose(fact, [side], time, "18.4.1"))
        elif e.active and not e.dummy:
            done = replace(done, active_phases=e.active_phases + 1)
            if e.entered_port or e.fuelled:
                done = replace(done, fuel=None, unsupplied=False)  # 18.4.1, 18.5; 17.9
            else:
                period = e.fuel
                if period is None:
                    period = tfs.fuelling_period(work.pack, e.speed_class or "SC3")
                done = _supply(replace(done, fuel=int(period) - 1))
                if done.unsupplied and not e.unsupplied:
                    events.append(_unsupplied(work, side, tf, time))
        tfs.put(work, side, tf, done)
    return events


def _supply(e: tfs.TaskForce) -> tfs.TaskForce:
    """18.3: a TF at sea at the end of its fuelling period is unsupplied (speed class 1)."""
    if e.fuel is not None and e.fuel <= 0 and not e.in_port and not e.unsupplied:
        return replace(e, fuel=0, unsupplied=True, speed_class="SC1")
    return e


def _unsupplied(work: Work, side: Side, tf: str, time: str) -> Event:
    return work.disclose(TfUnsupplied(tf), [side], time, "18.3")


def _in_marker_order(work: Work, side: Side) -> list[tuple[str, tfs.TaskForce]]:
    return sorted(tfs.task_forces(work, side).items(), key=lambda kv: tfs.marker_number(kv[0]))


def end_of_game_turn(work: Work, side: Side, time: str) -> list[Event]:
    """18.4: a TF at sea is active its speed class's phases each Game-Turn, moved or not."""
    events: list[Event] = []
    for tf, e in _in_marker_order(work, side):
        done = replace(e, active_phases=0)
        if not e.in_port and not e.dummy and e.speed_class:
            unused = tfs.per_game_turn(work.pack, e.speed_class) - e.active_phases
            if unused > 0:
                fuel = e.fuel
                if fuel is None:
                    fuel = tfs.fuelling_period(work.pack, e.speed_class)
                done = _supply(replace(done, fuel=max(0, int(fuel) - unused)))
                if done.unsupplied and not e.unsupplied:
                    events.append(_unsupplied(work, side, tf, time))
        tfs.put(work, side, tf, done)
    return events
