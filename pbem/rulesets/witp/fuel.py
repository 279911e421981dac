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
from collections.abc import Mapping
from typing import Any

from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, disclose

FUELLING_MP = "tables/fuelling-mp"
DD_EXCEPTION = "tables/destroyer-fuelling-exception"
CW_NAVIES = frozenset({"RN", "RAN", "RNZN", "CW"})  # 17.9.5: the Commonwealth


def _points(
    public: Mapping[str, Any], own: Mapping[str, Any], ships: list[str]
) -> tuple[float, bool]:
    """17.9, 17.9.5, 17.9.6: activation points fuelled, and whether CW rates apply.
    DDs take fuel one-for-one from the larger ships at no cost to the AOs."""
    rule = tfs.value(public, DD_EXCEPTION)
    records = [own[tfs.SHIPS][s] for s in ships]
    cw = [r for r in records if str(r.get("navy", "")) in CW_NAVIES]
    if records and len(cw) * 2 > len(records):
        raise IllegalOrderError(
            "a Commonwealth TF may not fuel at sea before cycle 2/44", rule="17.9.5"
        )
    feeders = sum(1 for r in records if r["type"] in rule["feeder_types"])
    points = 0.0
    for r in records:
        cost = float(tfs.ship_class(public, r)["activation_cost"])
        if r["type"] in rule["dd_types"] and feeders > 0:
            feeders -= 1
            continue
        points += cost * (2 if r in cw else 1)
    return points, bool(cw)


def cost(
    public: Mapping[str, Any], own: Mapping[str, Any], side: str, tf: str
) -> tuple[int, float]:
    """17.9: (MP the fuelling costs, activation points fuelled)."""
    points, cw = _points(public, own, list(own[tfs.TFS][tf]["ships"]))
    rates = tfs.value(public, FUELLING_MP)
    navy = "IJN" if side == JAPANESE else ("CW" if cw else "USN")
    r = rates[navy]
    return math.ceil(points * float(r["per_point"]) + float(r["plus"])), points


def _oiler_left(public: Mapping[str, Any], ship: dict[str, Any]) -> float:
    if "fuel_left" not in ship:
        ship["fuel_left"] = float(tfs.ship_class(public, ship)["fuel_capacity"])
    return float(ship["fuel_left"])


def at_sea(state: dict[str, Any], side: str, tf: str, source: str) -> dict[str, Any]:
    """17.9: TF ``tf`` fuels from ``source``'s AOs where it now is."""
    own, public = state[PRIVATE][side], state[PUBLIC]
    entry, giver = own[tfs.TFS][tf], own[tfs.TFS].get(source)
    note: dict[str, Any] = {"mission": "FUEL", "from": source, "at": entry["hex"], "rule": "17.9"}
    if giver is None or giver["hex"] != entry["hex"]:
        return {**note, "failed": f"{source} is not in {entry['hex']}"}
    _, points = cost(public, own, side, tf)
    oilers = [own[tfs.SHIPS][s] for s in giver["ships"] if own[tfs.SHIPS][s]["type"] == "AO"]
    if sum(_oiler_left(public, o) for o in oilers) < points:
        return {
            **note,
            "failed": f"{source}'s oilers hold less than {points:g} points",
            "rule": "17.9.2",
        }
    need = points
    for o in oilers:
        take = min(need, _oiler_left(public, o))
        o["fuel_left"] = _oiler_left(public, o) - take
        need -= take
    entry["fuel"] = None
    entry["unsupplied"] = False
    entry["fuelled"] = True
    return {**note, "points": points}


def enter_port(entry: dict[str, Any], port: str) -> None:
    """18.4.1: in port it fuels; it is deactivated after the following Naval Phase."""
    entry["in_port"] = port
    entry["port_phases"] = 0
    entry["deactivated"] = False
    entry["entered_port"] = True


def end_of_phase(state: dict[str, Any], side: str, time: str) -> list[Event]:
    """After the Execution Segment: active phases and fuel spent, port time counted,
    unsupplied TFs marked (18.1, 18.3, 18.4, 18.4.1, 18.5). Told to the owner only."""
    own, public = state[PRIVATE][side], state[PUBLIC]
    events: list[Event] = []
    for tf in sorted(own.get(tfs.TFS, {}), key=tfs.marker_number):
        e = own[tfs.TFS][tf]
        active = bool(e.pop("active", False))
        entered = bool(e.pop("entered_port", False))
        fuelled = bool(e.pop("fuelled", False))
        e.pop("deployed", None)
        if e["in_port"] and not entered and not active:
            if not e["deactivated"]:
                e["port_phases"] = int(e["port_phases"]) + 1
                e["deactivated"] = True
                e["fuel"], e["active_phases"], e["unsupplied"] = None, 0, False
                events.append(
                    disclose(
                        state,
                        {"kind": "tf-deactivated", "tf": tf, "port": e["in_port"]},
                        [side],
                        time,
                        "18.4.1",
                    )
                )
            continue
        if not active or e["dummy"]:
            continue
        e["active_phases"] = int(e["active_phases"]) + 1
        if entered or fuelled:
            e["fuel"], e["unsupplied"] = None, False  # 18.4.1, 18.5; 17.9: restarts next phase
            continue
        if e["fuel"] is None:
            e["fuel"] = tfs.fuelling_period(public, e["speed_class"] or "SC3")
        e["fuel"] = int(e["fuel"]) - 1
        events += _supply(state, side, tf, time)
    return events


def _supply(state: dict[str, Any], side: str, tf: str, time: str) -> list[Event]:
    e = state[PRIVATE][side][tfs.TFS][tf]
    if e["fuel"] is not None and int(e["fuel"]) <= 0 and not e["in_port"] and not e["unsupplied"]:
        e["fuel"] = 0
        e["unsupplied"] = True
        e["speed_class"] = "SC1"
        return [disclose(state, {"kind": "tf-unsupplied", "tf": tf}, [side], time, "18.3")]
    return []


def end_of_game_turn(state: dict[str, Any], side: str, time: str) -> list[Event]:
    """18.4: a TF at sea is active its speed class's phases each Game-Turn, moved or not."""
    own, public = state[PRIVATE][side], state[PUBLIC]
    events: list[Event] = []
    for tf in sorted(own.get(tfs.TFS, {}), key=tfs.marker_number):
        e = own[tfs.TFS][tf]
        if not e["in_port"] and not e["dummy"] and e["speed_class"]:
            unused = tfs.per_game_turn(public, e["speed_class"]) - int(e["active_phases"])
            if e["fuel"] is None and unused > 0:
                e["fuel"] = tfs.fuelling_period(public, e["speed_class"])
            if e["fuel"] is not None and unused > 0:
                e["fuel"] = max(0, int(e["fuel"]) - unused)
                events += _supply(state, side, tf, time)
        e["active_phases"] = 0
    return events
