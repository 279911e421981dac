"""The War in the Pacific theatre map as a picture description (pbem.core.mapview).

What a picture of the map shows: sea, coasts and islands, the straits ships
may pass between land hexes, the boundary between the Tropical and Temperate
Movement Areas (2.1.4), the bases in their holders' colours (a ring for a port
or seaplane base, a square with the airfield's AP capacity), the names, unit
stacks and outlined hexes.  The reports package draws it.  Picture keys are
``hexgrid.key`` numbers; the hex numbers printed are the rulebook's ("E2418").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pbem.core.mapview import (
    SIDE_COLOURS,
    Colour,
    Edge,
    Ground,
    LegendEntry,
    MapBase,
    MapHex,
    MapHexside,
    MapLine,
    MapPicture,
    stack_markers,
)
from pbem.rulesets.witp import hexgrid
from pbem.rulesets.witp.map import HexsideKind, Terrain, TheatreMap

AREA_LINE: Colour = (0, 140, 120)

_GROUND = {
    Terrain.SEA: Ground.SEA,
    Terrain.ISLAND: Ground.ISLET,
    Terrain.ATOLL: Ground.ISLET,
    Terrain.COASTAL: Ground.LAND,
    Terrain.LAND: Ground.LAND,
}

_SHORES = (Terrain.COASTAL, Terrain.LAND)  # islands are dots: no channel drawn

LEGEND = (
    LegendEntry("Japanese", SIDE_COLOURS["japanese"]),
    LegendEntry("Allied", SIDE_COLOURS["allied"]),
    LegendEntry("unheld / seen", SIDE_COLOURS[None]),
    LegendEntry("sea", Ground.SEA),
    LegendEntry("land, coast", Ground.LAND),
    LegendEntry("island, atoll", Ground.ISLET),
    LegendEntry("Tropical (N, 6 MP) / Temperate (S, 5 MP)", AREA_LINE),
)


def map_picture(
    m: TheatreMap,
    units: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    *,
    highlight: Iterable[str] = (),
    start: str | None = "may1942",
    focus: Iterable[str] = (),
) -> MapPicture:
    """The map with ``units`` (hex ID -> (side, label) pairs) and ``highlight``ed
    hexes; bases coloured by who held them at ``start`` (None: all grey)."""
    return MapPicture(
        columns=m.columns,
        rows=m.rows + 0.5,
        hexes=tuple(
            MapHex(
                hexgrid.key(h),
                hexgrid.centre(h),
                _GROUND[info.terrain],
                info.name if info.terrain is not Terrain.SEA or m.bases_in(h) else None,
                h,
            )
            for h, info in m.hexes.items()
        ),
        hexsides=_straits(m),
        lines=(MapLine(AREA_LINE, _area_boundary(m)),),
        bases=_bases(m, start),
        markers=stack_markers({hexgrid.key(h): s for h, s in (units or {}).items()}, SIDE_COLOURS),
        highlight=tuple(hexgrid.key(h) for h in highlight),
        legend=LEGEND,
        focus=tuple(hexgrid.key(h) for h in focus),
    )


def _bases(m: TheatreMap, start: str | None) -> tuple[MapBase, ...]:
    """One mark per base hex: a ring if it has a port or seaplane base, the
    airfields' AP capacity (4.3.1), in the colour of who held it at ``start``."""
    out = []
    for h, here in sorted(m.bases.items()):
        owner = here[0].owner_at(start) if start else None
        out.append(
            MapBase(
                hexgrid.key(h),
                SIDE_COLOURS.get(owner, SIDE_COLOURS[None]),
                any(b.port is not None or b.seaplane is not None for b in here),
                sum(b.airfield.capacity for b in here if b.airfield),
            )
        )
    return tuple(out)


def _straits(m: TheatreMap) -> tuple[MapHexside, ...]:
    """Open water between two hexes with land (a channel ships may pass,
    17.13.7), and the blocked hexsides (drawn as a ridge)."""
    out = []
    for (a, b), side in m.hexsides.items():
        if side.blocked:
            out.append(MapHexside(hexgrid.key(a), hexgrid.key(b), Edge.MOUNTAIN))
        elif side.kind is HexsideKind.SEA and m.terrain(a) in _SHORES and m.terrain(b) in _SHORES:
            out.append(MapHexside(hexgrid.key(a), hexgrid.key(b), Edge.STRAIT))
    return tuple(out)


def _area_boundary(m: TheatreMap) -> tuple[tuple[int, int], ...]:
    """The hexsides between Movement Areas (2.1.4: printed on the map)."""
    out = []
    for a, b in m.hexsides:
        if m.movement_area(a) is not m.movement_area(b):
            out.append((hexgrid.key(a), hexgrid.key(b)))
    return tuple(sorted(out))
