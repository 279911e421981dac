"""What a side may know, for its report: built from its Knowledge only.

The view shows the game clock (Game-Turn, week, cycle, the round and its
segments), the open initiative rolls, the side's own forces, what was disclosed
to it alone, the events of the round it may see, and the data-pack items the
view rests on whose values are illustrative (the report prints that notice).
``side`` None is the omniscient view: every side's forces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.events import Event
from pbem.rulesets.witp import datapack
from pbem.rulesets.witp.knowledge import EVERYONE, Knowledge
from pbem.rulesets.witp.play import CLOCK_ITEMS, INITIATIVE_CHOICE, Clock

RECENT_INITIATIVE = 6  # one Game-Turn's: three Strike and three Execution Segments


def _forces(k: Knowledge) -> tuple[list[dict[str, Any]], dict[str, Mapping[str, Any]]]:
    """Each force this knowledge holds, and its items (JSON) by pack key."""
    rows: list[dict[str, Any]] = []
    items: dict[str, Mapping[str, Any]] = {}
    for side, part in sorted(k.private.items()):
        for fid, item in sorted(dict(part.get("forces", {})).items()):
            items[f"forces/{side}/{fid}"] = item
            v = item["value"]
            rows.append(
                {
                    "side": side,
                    "id": fid,
                    "name": v.get("name", fid),
                    "commander": v.get("commander", ""),
                    "at": v.get("at", ""),
                    "ships": [{"type": t, "name": n} for t, n in v.get("ships", ())],
                    "provenance": item["provenance"],
                    "source": item["source"],
                }
            )
    return rows, items


def build_view(k: Knowledge, events: Sequence[Event]) -> dict[str, Any]:
    public_items: Mapping[str, Mapping[str, Any]] = k.public["pack"]
    clock = Clock.of(k.public)
    forces, force_items = _forces(k)
    types = sorted({s["type"] for f in forces for s in f["ships"]})
    rests_on = [*CLOCK_ITEMS, INITIATIVE_CHOICE, *(f"units/{t}" for t in types), *force_items]
    everyone = set(EVERYONE)
    return {
        "side": k.side,
        "clock": clock.describe(),
        "initiative": [
            {"time": d.time, "rule": d.rule, **d.fact}
            for d in k.disclosed
            if d.fact.get("kind") == "initiative"
        ][-RECENT_INITIATIVE:],
        "forces": forces,
        "told_you": [
            {"time": d.time, "rule": d.rule, "fact": dict(d.fact)}
            for d in k.disclosed
            if set(d.audience) != everyone
        ],
        "events": [e.to_json() for e in events if e.seen_by(k.side)],
        "illustrative": datapack.illustrative({**public_items, **force_items}, rests_on),
        "packs": sorted({str(i["pack"]) for i in public_items.values()}),
    }
