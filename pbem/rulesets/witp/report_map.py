"""A side's report map: the theatre map as that side's view shows it.

Drawn from the view alone (views.build_view), never from the state: the
viewer's own forces where its view puts them, and the bases in the colours of
who held them when the scenario opens (public: printed on the map). A force is
marked at its ``hex`` (a stage-1 TF marker's position), else at its ``at`` if
that names a hex or a place on the map ("Rabaul"); a force somewhere at sea
("Coral Sea") or off this Map Section is listed by the report but not marked.
The close-up looks at the marked forces, so it too shows only what the side
knows. ``side`` None (the omniscient view) marks every side's forces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.mapview import MapPicture
from pbem.rulesets.witp.map import TheatreMap
from pbem.rulesets.witp.picture import map_picture

START = "may1942"  # the base holders printed for the scenarios of 1942 (map-overrides.toml)


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
    return map_picture(m, units, start=START, focus=sorted(units))
