"""What a side may know, for its report: built from its Knowledge only.

The view shows the game clock (Game-Turn, week, cycle, the round and its
segments), the open initiative rolls, the side's own task forces (where, what,
speed, fuel, this phase's moves), what was disclosed
to it alone, the round's naval strikes as it saw them (strikeview.py), the events
of the round it may see, and the data-pack items the
view rests on whose values are illustrative (the report prints that notice).
``side`` None is the omniscient view: every side's forces.

The rounds reported are those of ``events``: the round just played, and before it
any the side was sent no report of (pbem.lifecycle.quiet). Every fact is told as
its sentence (sentences.py); ``digest`` picks what changed for the side
(digest.py), for the report's opening.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pbem.core.events import Event
from pbem.rulesets.witp import datapack, digest, searchview, strikeview
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.initiative import InitiativeDetermined
from pbem.rulesets.witp.knowledge import EVERYONE
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.play import CLOCK_ITEMS, INITIATIVE_CHOICE, Clock
from pbem.rulesets.witp.sentences import sentence

TF_NAME = re.compile(r"\bTF\d+\b")  # a TF marker wherever a fact names it (16.1.1)
RECENT_INITIATIVE = 6  # one Game-Turn's: three Strike and three Execution Segments


def _forces(k: Knowledge) -> tuple[list[dict[str, Any]], dict[str, PackItem], set[str]]:
    """Each TF on the TF Displays this knowledge holds (16.2) as the report prints it,
    the force items they come from by pack key, and the ship classes they hold."""
    rows: list[dict[str, Any]] = []
    items: dict[str, PackItem] = {}
    classes: set[str] = set()
    for side in k.sides():
        forces = k.forces(side)
        display = tfs.task_forces(k, side)
        for tf in sorted(display, key=tfs.marker_number):
            e = display[tf]
            ships = {s: tfs.ship(k, side, s) for s in e.ships}
            origin = sorted({s.force for s in ships.values()})
            for fid in origin:
                items[f"forces/{side}/{fid}"] = forces[fid]
            classes |= {s.ship_class for s in ships.values()}
            first = items[f"forces/{side}/{origin[0]}"] if origin else None
            where = f"in port at {e.in_port}" if e.in_port else "at sea"
            fuel = "fuelled" if e.fuel is None else f"{e.fuel} active phase(s) to fuelling"
            rows.append(
                {
                    "side": str(side),
                    "id": tf,
                    "name": f"{tf} {e.name or ('dummy' if e.dummy else '')}".strip(),
                    "commander": first.value.get("commander", "") if first else "",
                    "hex": e.hex,  # where the report's map marks it
                    "at": f"{e.hex} ({where})",
                    "ships": [{"type": s.type, "name": n} for n, s in ships.items()],
                    "status": (
                        f"speed {e.speed_class or 'to choose'}; {fuel}"
                        + ("; UNSUPPLIED (18.3)" if e.unsupplied else "")
                        + ("; deactivated (18.4.1)" if e.deactivated else "")
                    ),
                    "moves": [st.hex for st in e.log],
                    # The text report's line for a TF that changed: its moves are told
                    # in "What happened", its ships in the order form and the HTML part.
                    "brief": (
                        f"{tf} {e.name or ('dummy' if e.dummy else '')}".strip()
                        + f": {e.hex} {f'in port at {e.in_port}' if e.in_port else 'at sea'}"
                        + f"; {e.speed_class or 'speed to choose'}; "
                        + ("fuelled" if e.fuel is None else f"{e.fuel} phase(s) to fuel")
                        + ("; UNSUPPLIED" if e.unsupplied else "")
                        + ("; deactivated" if e.deactivated else "")
                        + ("; moved" if e.log else "")
                    ),
                    "provenance": str(first.provenance) if first else "pbem",
                    "source": first.source if first else "formed in play",
                }
            )
    return rows, items, classes


def _changed(forces: list[dict[str, Any]], seen: Sequence[Event]) -> None:
    """Mark each TF the rounds reported changed: it moved, or a fact of them names it
    (a strike on it, a ship lost, supply, a TF or dummy formed); the text report tells
    only these again (the order form and the HTML part list every TF). A search's
    facts change nothing. A name of the enemy's TFs may mark one of the side's alike:
    told once more, never left out."""
    named = {
        tf
        for e in seen
        if e.kind not in searchview.SECTIONED
        for tf in TF_NAME.findall(json.dumps(e.data, default=str))
    }
    for f in forces:
        f["changed"] = bool(f["moves"]) or f["id"] in named


def _happened(
    seen: Sequence[Event], side: str | None, sectioned: frozenset[str]
) -> list[dict[str, Any]]:
    """The events ``side`` saw, as sentences grouped by their game time, in order
    (the strikes' and the searches' are told in their own sections)."""
    out: list[dict[str, Any]] = []
    for e in seen:
        if e.kind in sectioned:
            continue
        time = str(e.data.get("time", ""))
        line = sentence(e.kind, e.data, side, e.rule)
        if out and out[-1]["time"] == time:
            if line not in out[-1]["lines"]:  # a fact told twice (both halves) once
                out[-1]["lines"].append(line)
        else:
            out.append({"time": time, "lines": [line]})
    return out


def build_view(k: Knowledge, events: Sequence[Event]) -> dict[str, Any]:
    public_items = k.pack
    clock = Clock.of(k.clock, k.pack)
    forces, force_items, classes = _forces(k)
    rests_on = [*CLOCK_ITEMS, INITIATIVE_CHOICE, *(f"units/{c}" for c in classes), *force_items]
    everyone = set(EVERYONE)
    # The round reported: the game times of what this side saw happen in it (each
    # disclosure to it is an event it sees), so the report tells this round's news.
    recent = {str(e.data["time"]) for e in events if e.seen_by(k.side) and "time" in e.data}
    # Told once, in their own sections: the initiative table, the search and strike sections.
    sectioned = searchview.SECTIONED | strikeview.SECTIONED | {"initiative"}
    seen = [e for e in events if e.seen_by(k.side)]
    _changed(forces, seen)
    strikes = strikeview.build(k, recent)
    search = searchview.build(k, recent)
    return {
        "side": k.side,
        "clock": clock.describe(),
        "initiative": [
            {"time": d.time, "rule": d.rule, **d.fact.to_json()}
            for d in k.disclosed
            if d.fact.kind == InitiativeDetermined.KIND
        ][-RECENT_INITIATIVE:],
        "forces": forces,
        "search": search,
        "strikes": strikes,
        "told_you": [
            {
                "time": d.time,
                "rule": d.rule,
                "fact": d.fact.to_json(),
                "told": sentence(d.fact.kind, d.fact.to_json(), k.side, d.rule),
            }
            for d in k.disclosed
            if set(d.audience) != everyone and d.time in recent and d.fact.kind not in sectioned
        ],
        "events": [e.to_json() for e in seen if e.kind not in sectioned],
        # Every event of the rounds reported but the strikes' (told in their blocks),
        # each as its sentence, under its game time.
        "happened": _happened(seen, k.side, strikeview.SECTIONED | searchview.SECTIONED),
        "digest": digest.build(k.side, seen, strikes, search),
        "illustrative": datapack.illustrative({**public_items, **force_items}, rests_on),
        "packs": sorted({i.pack for i in public_items.values()}),
    }
