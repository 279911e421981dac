"""A side's report map: the theatre map as that side's view shows it.

Drawn from the view alone (views.build_view), never from the state: the
viewer's own forces where its view puts them, and the bases in the colours of
who held them when the scenario opens (public: printed on the map). A force is
marked at its ``hex`` (a stage-1 TF marker's position), else at its ``at`` if
that names a hex or a place on the map ("Rabaul"); a force somewhere at sea
("Coral Sea") or off this Map Section is listed by the report but not marked.
The close-up looks at the marked forces, so it too shows only what the side
knows. ``side`` None (the omniscient view) marks every side's forces. Enemy TFs
holding a Located chit are marked at the chit's hex, labelled "TF2?" (13.7.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pbem.core.mapview import SIDE_COLOURS, MapPicture, stack_markers
from pbem.rulesets.witp import hexgrid
from pbem.rulesets.witp.map import TheatreMap
from pbem.rulesets.witp.picture import map_picture

START = "may1942"  # the base holders printed for the scenarios of 1942 (map-overrides.toml)

# The map under the markers is the same in every report: described once per map
# (about 20 ms), keeping the map itself so its id is not reused.
_BASE: dict[int, tuple[TheatreMap, MapPicture]] = {}


def _hex_of(m: TheatreMap, force: Mapping[str, Any]) -> str | None:
    """Where ``force`` stands on this map, from its view row only; None if unplaced."""
    for where in (force.get("hex"), force.get("at")):
        if not isinstance(where, str) or not where:
            continue
        if m.on_map(where):
            return where
        try:
            return m.place(where)
        except KeyError:
            continue
    return None


def report_picture(m: TheatreMap, view: Mapping[str, Any]) -> MapPicture:
    """The map picture of ``view``: its forces marked, labelled by force id."""
    units: dict[str, list[tuple[str, str]]] = {}
    for force in view.get("forces", ()):
        h = _hex_of(m, force)
        if h is not None:
            units.setdefault(h, []).append((str(force["side"]), str(force["id"])))
    for marker in view.get("search", {}).get("map", ()):  # enemy TFs Located (13.7.5)
        if m.on_map(str(marker["hex"])):
            units.setdefault(str(marker["hex"]), []).append(
                (str(marker["side"]), str(marker["id"]))
            )
    keys = {hexgrid.key(h): stack for h, stack in units.items()}
    return replace(
        _base(m),
        markers=stack_markers(keys, SIDE_COLOURS),
        focus=tuple(hexgrid.key(h) for h in sorted(units)),
    )


def _base(m: TheatreMap) -> MapPicture:
    held = _BASE.get(id(m))
    if held is None:
        _BASE.clear()  # one map at a time: a moderator's corrected map replaces it
        held = _BASE[id(m)] = (m, map_picture(m, start=START))
    return held[1]
