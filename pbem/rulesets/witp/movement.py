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
from itertools import zip_longest
from typing import Any

from pbem.core.events import Event
from pbem.core.sides import enemy_of
from pbem.rulesets.witp import fuel
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, disclose

# (state, side, tf, log entry) -> events; the search rules register theirs.
EnterHook = Callable[[dict[str, Any], str, str, Mapping[str, Any]], list[Event]]
ON_ENTER: list[EnterHook] = []


def _sequence(cards: Mapping[str, Mapping[str, Any]]) -> list[list[str]]:
    """The side's executions in order: each a leader and the TFs linked to it."""
    groups: dict[str, list[str]] = {}
    for tf, card in cards.items():
        leader = card.get("link") or tf
        if leader not in cards:
            leader = tf  # 17.10: a link to a TF with no card moves alone (it had no card)
        groups.setdefault(leader, [leader])
        if leader != tf:
            groups[leader].append(tf)
    return list(groups.values())


def execute(
    state: dict[str, Any],
    cards: Mapping[str, Mapping[str, Mapping[str, Any]]],
    first: str,
    time: str,
) -> list[Event]:
    """Play every side's ``cards`` (side -> TF -> card JSON), alternating from ``first``."""
    order = [first, enemy_of(first)]
    queues = [_sequence(cards.get(side, {})) for side in order]
    events: list[Event] = []
    for pair in zip_longest(*queues):
        for side, group in zip(order, pair, strict=True):
            if group is not None:
                events += _execute_group(state, side, group, cards[side], time)
    return events


def _execute_group(
    state: dict[str, Any], side: str, group: list[str], cards: Mapping[str, Any], time: str
) -> list[Event]:
    own = state[PRIVATE][side]
    public = state[PUBLIC]
    leader = cards[group[0]]
    events: list[Event] = []
    for tf in group:
        entry = own[tfs.TFS][tf]
        entry["mission"] = dict(cards[tf])
        entry["log"] = []
        entry["night"] = False
        if not entry["dummy"] and entry["fuel"] is None:
            entry["speed_class"] = leader["speed"] if tf == group[0] else cards[tf]["speed"]
        if cards[tf].get("converted_fuel") is not None:  # 18.2.1
            entry["speed_class"], entry["fuel"] = cards[tf]["speed"], cards[tf]["converted_fuel"]
        entry["in_port"] = None  # 16.0: it sorties
        entry["deactivated"] = False
        entry["port_phases"] = 0
        entry["active"] = True
    speed = str(leader["speed"])
    night_mp = tfs.allowance(public, speed, night=True)
    mp, hexes, night_used = 0, 0, 0
    notes: list[dict[str, Any]] = []
    night_from = leader.get("night_after")
    for m in leader["missions"]:
        code = m["code"]
        if code in ("MOVE", "TRAN"):
            for h, cost in zip(m["route"], m["costs"], strict=True):
                mp += cost
                hexes += 1
                at_night = night_from is not None and hexes > night_from and night_used < night_mp
                if at_night:
                    night_used += cost
                step = {"hex": h, "mp": mp, "night": at_night, "ev": m["ev"]}
                for tf in group:
                    own[tfs.TFS][tf]["hex"] = h
                    own[tfs.TFS][tf]["log"].append(dict(step))
                    own[tfs.TFS][tf]["night"] = at_night
                for hook in ON_ENTER:
                    for tf in group:
                        events += hook(state, side, tf, step)
            if code == "TRAN":
                notes.append({"mission": "TRAN", "at": m["to"], "rule": "17.8"})
        elif code == "FUEL":
            mp += int(m["mp"])
            for tf in group:
                notes.append(fuel.at_sea(state, side, tf, m["from"]))
        elif code == "REGP":
            notes.append(_regroup(state, side, group[0], m))
        elif code == "PORT":
            for tf in group:
                fuel.enter_port(own[tfs.TFS][tf], str(m["port"]))
            notes.append({"mission": "PORT", "at": m["port"], "rule": "18.4.1"})
    for tf in group:
        entry = own[tfs.TFS][tf]
        fact = {
            "kind": "tf-executed",
            "tf": tf,
            "from": cards[tf]["start"],
            "to": entry["hex"],
            "hexes": [s["hex"] for s in entry["log"]],
            "mp": mp,
            "night_hexes": [s["hex"] for s in entry["log"] if s["night"]],
            "linked_to": group[0] if tf != group[0] else None,
            "missions": notes,
        }
        events.append(disclose(state, fact, [side], time, "16.0, 17.13"))
    return events


def _regroup(state: dict[str, Any], side: str, tf: str, m: Mapping[str, Any]) -> dict[str, Any]:
    """17.11: ships to another TF in the same hex, or a dummy marker placed here."""
    own = state[PRIVATE][side]
    here = own[tfs.TFS][tf]["hex"]
    if "dummy" in m:
        marker = str(m["dummy"])
        allot = own.get("dummy_allotment")
        if marker in own[tfs.TFS] or (
            allot is not None and int(allot["allowed"]) - int(allot["sorties"]) <= 0
        ):
            return {
                "mission": "REGP",
                "failed": f"{marker} cannot be deployed",
                "rule": "13.6, 16.1.1",
            }
        dummy = tfs.new_tf(here, [], dummy=True)
        dummy["speed_class"] = own[tfs.TFS][tf]["speed_class"] or "SC3"
        dummy["deployed"] = True  # plotted from the next Naval Phase (ruling R31)
        own[tfs.TFS][marker] = dummy
        if allot is not None:
            allot["sorties"] = int(allot["sorties"]) + 1
        return {"mission": "REGP", "dummy": marker, "at": here, "rule": "17.11, 13.6"}
    to = str(m["to"])
    target = own[tfs.TFS].get(to)
    if target is None:
        target = tfs.new_tf(here, [])
        target["speed_class"] = own[tfs.TFS][tf]["speed_class"]
        target["fuel"] = own[tfs.TFS][tf]["fuel"]
        target["active_phases"] = own[tfs.TFS][tf]["active_phases"]
        own[tfs.TFS][to] = target
    elif target["hex"] != here or target["dummy"]:
        why = "a dummy" if target["dummy"] else f"in {target['hex']}, not {here}"
        return {"mission": "REGP", "failed": f"{to} is {why}", "rule": "17.11"}
    moving = [s for s in m["ships"] if s in own[tfs.TFS][tf]["ships"]]
    own[tfs.TFS][tf]["ships"] = [s for s in own[tfs.TFS][tf]["ships"] if s not in moving]
    target["ships"] += moving
    if target["fuel"] is not None and own[tfs.TFS][tf]["fuel"] is not None:
        target["fuel"] = min(int(target["fuel"]), int(own[tfs.TFS][tf]["fuel"]))
    return {"mission": "REGP", "to": to, "ships": moving, "at": here, "rule": "17.11"}
