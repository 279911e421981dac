"""The U.S.N. map as a picture description (pbem.core.mapview).

What a picture of the map shows: terrain, straits, country borders and
mountains, the start lines, the bases in their owners' colours, names, unit
stacks and this round's combat hexes. The reports package draws it; the same
description serves each side's report map (from that side's view only) and
the moderator's ``pbem map usn``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.core.mapview import (
    SIDE_COLOURS,
    Colour,
    Edge,
    Ground,
    LegendEntry,
    MapBase,
    MapBox,
    MapHex,
    MapHexside,
    MapLine,
    MapMarker,
    MapPicture,
    stack_markers,
)
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.map import HexsideKind, Terrain, UsnMap, centre

START_LINE_COLOURS: Mapping[str, Colour] = {"game1": (230, 40, 40), "game2": (250, 150, 0)}
LAST_KNOWN = "last-known"  # a sighting, not a present position: drawn grey

_GROUND = {
    Terrain.SEA: Ground.SEA,
    Terrain.CLASS1: Ground.ISLET,
    Terrain.CLASS2: Ground.LAND,
    Terrain.DESERT: Ground.DESERT,
}

# Regions whose borders between land hexes are drawn (countries and island groups).
_COUNTRY_REGIONS = frozenset(
    {
        "china", "india", "burma", "thailand", "malaya", "indo-china", "korea",
        "soviet-union", "hong-kong", "australia", "new-guinea", "borneo", "philippines",
        "japanese-home-islands",
    }
)  # fmt: skip

LEGEND = (
    LegendEntry("Japanese", SIDE_COLOURS["japanese"]),
    LegendEntry("Allied", SIDE_COLOURS["allied"]),
    LegendEntry("neutral / last seen", SIDE_COLOURS[None]),
    LegendEntry("sea", Ground.SEA),
    LegendEntry("Class 2", Ground.LAND),
    LegendEntry("Class 1", Ground.ISLET),
    LegendEntry("desert", Ground.DESERT),
    LegendEntry("Start Line 1", START_LINE_COLOURS["game1"]),
    LegendEntry("Start Line 2", START_LINE_COLOURS["game2"]),
)


def map_picture(
    m: UsnMap,
    *,
    units: Mapping[int, Sequence[tuple[str, str]]] | None = None,
    highlight: Iterable[int] = (),
    start: str = "game1",
    start_lines: Iterable[str] = ("game1", "game2"),
) -> MapPicture:
    """The map with ``units`` (hex -> (side, label) pairs) and ``highlight``ed
    hexes; base owners coloured as at ``start``; the ``start_lines`` drawn."""
    static = _static(m, tuple(start_lines))
    return replace(
        static,
        bases=tuple(
            MapBase(h, SIDE_COLOURS[base.owner_at(start)], base.naval, base.air_capacity)
            for h, base in m.bases.items()
        ),
        markers=stack_markers(units or {}, SIDE_COLOURS),
        highlight=tuple(highlight),
    )


# A map's unchanging description, made once per map (each report's picture
# starts from it; the same objects let the drawing's cache find its base map fast).
_STATIC: dict[tuple[int, tuple[str, ...]], tuple[UsnMap, MapPicture, frozenset[int]]] = {}


def _static(m: UsnMap, start_lines: tuple[str, ...]) -> MapPicture:
    return _static_and_unnamed(m, start_lines)[0]


def _static_and_unnamed(
    m: UsnMap, start_lines: tuple[str, ...]
) -> tuple[MapPicture, frozenset[int]]:
    """The description, and the hexes it prints no name for (a view's base may
    name one)."""
    known = _STATIC.get((id(m), start_lines))
    if known is not None and known[0] is m:
        return known[1], known[2]
    if len(_STATIC) >= 8:
        _STATIC.clear()
    picture = MapPicture(
        columns=hexgrid.COLUMNS,
        rows=max(hexgrid.column_length(c) for c in range(hexgrid.COLUMNS)) + 0.5,
        hexes=tuple(
            MapHex(
                h,
                centre(h),
                _GROUND[info.terrain],
                info.name
                if info.name and (h in m.bases or info.terrain is not Terrain.SEA)
                else None,
                hexgrid.fmt(h),
            )
            for h, info in m.hexes.items()
        ),
        hexsides=_hexsides(m),
        lines=tuple(
            MapLine(
                START_LINE_COLOURS[key],
                tuple(line.hexsides()) if (line := m.start_lines.get(key)) else (),
            )
            for key in start_lines
        ),
        boxes=_boxes(m),
        legend=LEGEND,
    )
    unnamed = frozenset(x.key for x in picture.hexes if x.name is None)
    _STATIC[(id(m), start_lines)] = (m, picture, unnamed)
    return picture, unnamed


def view_picture(usn_map: UsnMap, view: Mapping[str, Any]) -> MapPicture:
    """A report's map, from the view alone: the bases with their owners now, every
    stack the view places on the map, its combats outlined, and a close-up of
    the audience's forces and the fighting."""
    highlight = combat_hexes(view)
    if "bases" not in view:
        plain = map_picture(usn_map, highlight=highlight)
        return replace(plain, markers=view_stacks(view), focus=focus_hexes(view))
    static, unnamed = _static_and_unnamed(usn_map, ("game1", "game2"))
    bases = view_bases(usn_map, view)
    names = {
        b.key: str(v["name"])
        for b, v in zip(bases, _located_bases(view), strict=True)
        if v.get("name") and b.key in unnamed
    }
    # Only hexes that gain a name are new: the map's own stay the same objects
    # (the drawing finds its base map by them).
    hexes = static.hexes
    if names:
        hexes = tuple(replace(x, name=names[x.key]) if x.key in names else x for x in hexes)
    return replace(
        static,
        hexes=hexes,
        bases=bases,
        markers=view_stacks(view),
        highlight=tuple(highlight),
        focus=focus_hexes(view),
    )


def _located_bases(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [b for b in view.get("bases", []) if _hex4(b.get("hex")) is not None]


def view_bases(usn_map: UsnMap, view: Mapping[str, Any]) -> tuple[MapBase, ...]:
    """The view's bases in their present owners' colours. An enemy base out of
    sight hides its air capacity (HID): the printed map's is shown instead."""
    out = []
    for b in _located_bases(view):
        h = _hex4(b.get("hex"))
        assert h is not None
        capacity = b.get("air_capacity")
        if capacity is None:
            printed = usn_map.bases.get(hexgrid.HexId(h))
            capacity = printed.air_capacity if printed is not None else 0
        owner = b.get("owner")
        colour = SIDE_COLOURS.get(None if owner is None else str(owner), SIDE_COLOURS[None])
        out.append(MapBase(h, colour, bool(b.get("naval")), int(capacity)))
    return tuple(out)


def _units(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [*(view.get("own_units") or view.get("units") or []), *view.get("enemy_units", [])]


def view_stacks(view: Mapping[str, Any]) -> tuple[MapMarker, ...]:
    """One marker per stack: a side's ships at a hex (STK.G, top ship first), its
    land units there, and the sightings (last known positions) there."""
    stacks: dict[tuple[int, str, str], list[Mapping[str, Any]]] = {}
    for u in _units(view):
        h = _hex4(u.get("at"))
        if h is not None and not u.get("aboard"):
            kind = "ships" if "stack" in u else "land"
            stacks.setdefault((h, str(u.get("side")), kind), []).append(u)
    for u in view.get("fog", {}).get("last_known", []):
        h = _hex4(u.get("at"))
        if h is not None:
            stacks.setdefault((h, LAST_KNOWN, "seen"), []).append({**u, "id": f"?{u.get('id')}"})
    out = []
    for (h, side, _), units in sorted(stacks.items()):
        units.sort(key=lambda u: (int(u.get("stack") or 0), str(u.get("id"))))
        colour = SIDE_COLOURS.get(side, SIDE_COLOURS[None])
        out.append(MapMarker(h, colour, str(units[0].get("id")), len(units)))
    return tuple(out)


def focus_hexes(view: Mapping[str, Any]) -> tuple[int, ...]:
    """Where the close-up looks: this round's combats and the audience's own units
    near them; with no combat, the audience's units (everyone's, for the umpire)."""
    combats = combat_hexes(view)
    own = view.get("own_units") or view.get("units") or []
    mine = sorted({h for u in own if (h := _hex4(u.get("at"))) is not None})
    if not combats:
        return tuple(mine)
    near = [h for h in mine if any(_close(h, c) for c in combats)]
    return tuple(sorted({*combats, *near}))


def _close(a: int, b: int, reach: float = 8.0) -> bool:
    (ax, ay), (bx, by) = centre(hexgrid.HexId(a)), centre(hexgrid.HexId(b))
    return abs(ax - bx) <= reach * 1.5 and abs(ay - by) <= reach * 1.8


def _hexsides(m: UsnMap) -> tuple[MapHexside, ...]:
    """Mountains; straits between land hexes; borders between countries."""
    out = []
    for (a, b), side in m.hexsides.items():
        if side.mountain:
            out.append(MapHexside(a, b, Edge.MOUNTAIN))
        elif m.is_land(a) and m.is_land(b):
            if side.kind is HexsideKind.SEA:
                out.append(MapHexside(a, b, Edge.STRAIT))
            elif m.hexes[a].regions & _COUNTRY_REGIONS != m.hexes[b].regions & _COUNTRY_REGIONS:
                out.append(MapHexside(a, b, Edge.BORDER))
    return tuple(out)


def _boxes(m: UsnMap) -> tuple[MapBox, ...]:
    """OFF.BOX: each box beside the east-edge hexes it serves."""
    out = []
    for box in sorted(m.offmap_boxes.values(), key=lambda b: b.id):
        if not box.entry_hexes:
            continue
        phases = "phase" if box.distance_turns == 1 else "phases"
        text = (
            f"{box.distance_turns}\n{box.name}\n{box.distance_turns} {phases} to\nU.S. West Coast"
        )
        out.append(MapBox(tuple(box.entry_hexes), text))
    return tuple(out)


def _hex4(text: Any) -> int | None:
    """The hex of a view's location, as ``hexgrid.fmt`` wrote it (four digits)."""
    s = str(text)
    return hexgrid.hex_of(s) if len(s) == 4 else None


def view_units(view: Mapping[str, Any]) -> dict[int, list[tuple[str, str]]]:
    """Hex -> (side, label) for every unit the view places on a hex."""
    units: dict[int, list[tuple[str, str]]] = {}
    for u in [*(view.get("own_units") or view.get("units") or []), *view.get("enemy_units", [])]:
        h = _hex4(u.get("at"))
        if h is not None:
            units.setdefault(h, []).append((str(u.get("side")), str(u.get("id"))))
    for u in view.get("fog", {}).get("last_known", []):
        h = _hex4(u.get("at"))
        if h is not None:
            units.setdefault(h, []).append((LAST_KNOWN, f"?{u.get('id')}"))
    return units


def combat_hexes(view: Mapping[str, Any]) -> list[int]:
    """Hexes named by this round's combat events (the ones to outline)."""
    out = set()
    for e in view.get("events", []):
        kind = str(e.get("kind", ""))
        data = e.get("data", {})
        if "combat" in kind or "strike" in kind or "attack" in kind or "roll" in data:
            h = _hex4(data.get("hex"))
            if h is not None:
                out.add(h)
    return sorted(out)
