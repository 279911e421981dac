"""6.2.2, 6.2.3 The AVG (the Flying Tigers) in air combat (R133).

The US player's one "AVG Base" marker names an air base in China, Burma or India
(the scenario's ``scenario.avg-base`` item: {base}; a scenario without one has no
AVG). Until the marker is disbanded (Strategic Cycle 0/7/42, the pack's
``tables.avg``), the US P-40 APs flying from that base:

- automatically receive the bounce (6.2.3): where a loose escort's bounce would be
  rolled (6.2.1), the side with the AVG takes it unrolled; against a close escort
  or an unescorted strike the CAP has it anyway (6.1.1 A, B);
- add +1 to every air-to-air roll of an attack they are part of (6.2.3);
- before air combat in which they fly CAP, the Allied player is told the exact
  make-up of the Japanese strike's altitude components, escort posture included
  (6.2.2); the AVG then fights as the CAP does (it may not evade).

The scenario places the marker in the CBI theatre; pbem does not check the map.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.ships import mark_by_type
from pbem.rulesets.witp.air.tables import Pack, map_start, value

KEY = "avg"
TABLE, BASE = "tables/avg", "scenario/avg-base"
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _active(pack: Pack) -> bool:
    """The marker is on the map: the scenario's start before the disbanding cycle."""
    key = map_start(pack)
    year, month = int(key[3:]), MONTHS.index(key[:3]) + 1
    until = value(pack, TABLE)["disbanded"]
    return (year, month) < (int(until[0]), int(until[1]))


def is_avg(pack: Pack, base: str, ap_type: str) -> bool:
    """US P-40 APs flying from the AVG Base while it stands (6.2.3)."""
    item = pack.get(BASE)
    if item is None or str(item.value["base"]) != base:
        return False
    types = value(pack, TABLE)["types"]
    return any(ap_type.startswith(str(p)) for p in types) and _active(pack)


def drm(pack: Pack) -> int:
    return int(value(pack, TABLE)["air_combat_drm"])


def mark(pack: Pack, base: str, elements: Sequence[FlyingElement]) -> list[FlyingElement]:
    """A land-based part's elements, its AVG P-40s marked (``avg``: True)."""
    return [replace(e, avg=True) if is_avg(pack, base, e.type) else e for e in elements]


def mark_cap(cap: Sequence[FlyingElement], avg: Mapping[str, int]) -> list[FlyingElement]:
    """The CAP's ``avg`` APs of each type (its AVG cover) marked, level by level."""
    return mark_by_type(cap, avg, lambda e: replace(e, avg=True))


Composition = dict[str, dict[str, dict[str, int]]]  # {level: {"bombers"|"escorts": {name: n}}}


def composition(bombers: Sequence[FlyingElement], escorts: Sequence[FlyingElement]) -> Composition:
    """6.2.2: each altitude component's bombers and escorts, by type, with posture."""
    out: Composition = {}
    for group, key in ((bombers, "bombers"), (escorts, "escorts")):
        for e in group:
            if e.n < 1:
                continue
            level = out.setdefault(e.alt, {"bombers": {}, "escorts": {}})
            name = e.type if key == "bombers" else f"{e.type} {e.posture}"
            level[key][name] = level[key].get(name, 0) + e.n
    return dict(sorted(out.items()))
