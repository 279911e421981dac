"""A finished game told turn by turn, from its record: for the archive site.

Game-agnostic: each adjudicated phase gives its title (from its opening), every
side's orders, the number of dice rolled with the revealed seed, and its events
as the reports tell them (pbem/reports/narrate.py). Events alike but for the
unit they name (four ships moving together) are told once, naming every unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pbem.reports.narrate import happened


def when(at: datetime | str) -> str:
    """A time as a reader wants it: "Tue 01 Dec 2026 17:15 UTC"."""
    moment = datetime.fromisoformat(at) if isinstance(at, str) else at
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%a %d %b %Y %H:%M UTC")


def event_lines(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """One sentence an event (a combat told step by step), events alike but for
    their unit told together (see narrate.happened)."""
    return happened(events)


def narrative(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Turns, each with its adjudicated phases, from the record's entries."""
    titles: dict[int, str] = {}
    turns: list[dict[str, Any]] = []
    for entry in entries:
        kind, p = entry["kind"], entry["payload"]
        if kind == "phase-opened":
            titles[int(p["seq"])] = str(p.get("title") or p["phase"])
        elif kind == "rolled-back":  # the line of play cut back: later phases replayed
            cut = int(p["to_seq"])
            for turn in turns:
                turn["phases"] = [ph for ph in turn["phases"] if ph["seq"] < cut]
            turns = [t for t in turns if t["phases"]]
        elif kind == "phase-adjudicated":
            seq = int(p["seq"])
            phase = {
                "seq": seq,
                "name": p["phase"],
                "title": titles.get(seq, p["phase"]),
                "when": when(entry["at"]),
                "orders": [
                    (side, list(plot.get("orders", [])))
                    for side, plot in sorted(p["plots"].items())
                ],
                "rolls": len(p.get("rolls", [])),
                "seed": p.get("seed", ""),
                "happened": event_lines(p.get("events", [])),
            }
            if not turns or turns[-1]["turn"] != p["turn"]:
                turns.append({"turn": p["turn"], "phases": []})
            turns[-1]["phases"].append(phase)
    return turns
