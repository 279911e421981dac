"""A game-agnostic description of a map picture, for reports to draw.

A ruleset with a hex map describes what a picture of it shows (each hex's
centre, ground and name, the hexside features, lines, bases, unit markers,
highlights, off-map boxes, the legend) and the reports package draws it
(pbem.reports.mapimage). So the drawing code knows no game, and a ruleset
knows no drawing library.

Geometry: flat-topped hexes of circumradius 1 in grid units, x east, y down;
hex keys are the ruleset's own hex numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pbem.core.sides import ALLIED, JAPANESE

Colour = tuple[int, int, int]  # RGB, 0-255

# Both games draw the sides alike, so a player reads either game's map at a glance.
SIDE_COLOURS: Mapping[str | None, Colour] = {
    JAPANESE: (200, 30, 30),
    ALLIED: (30, 60, 200),
    None: (110, 110, 110),  # no side's: unheld or neutral bases, and sightings
}


class Ground(StrEnum):
    """How a hex is filled."""

    SEA = "sea"
    ISLET = "islet"  # sea with a speck of land, drawn as a dot
    LAND = "land"
    DESERT = "desert"


class Edge(StrEnum):
    """A feature drawn along a hexside."""

    STRAIT = "strait"  # water between two land hexes
    BORDER = "border"  # a frontier between two land regions
    MOUNTAIN = "mountain"


@dataclass(frozen=True, slots=True)
class MapHex:
    key: int
    centre: tuple[float, float]  # grid units
    ground: Ground
    name: str | None = None  # printed beside the hex
    number: str = ""  # the hex number as printed, for checking the data


@dataclass(frozen=True, slots=True)
class MapHexside:
    a: int  # the hex whose side it is
    b: int  # the adjacent hex across it
    edge: Edge


@dataclass(frozen=True, slots=True)
class MapLine:
    """A dashed line along hexsides (a start line); where lines share a hexside
    their dashes alternate."""

    colour: Colour
    hexsides: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class MapBase:
    """A base in its owner's colour: a ring for a naval base, a square with its
    capacity for an air base (capacity 0: none)."""

    key: int
    colour: Colour
    naval: bool
    air_capacity: int


@dataclass(frozen=True, slots=True)
class MapMarker:
    """A stack of units on a hex: a square in its side's colour with the number
    of units in it, and the top unit's label (printed where there is room).
    A hex may hold several stacks (one per side, say): each is drawn."""

    key: int
    colour: Colour
    label: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class MapBox:
    """An off-map box drawn beside the edge hexes that lead to it."""

    beside: tuple[int, ...]
    text: str  # lines separated by newlines


@dataclass(frozen=True, slots=True)
class LegendEntry:
    label: str
    swatch: Ground | Colour


@dataclass(frozen=True, slots=True)
class MapPicture:
    columns: int  # hex columns, west to east
    rows: float  # the grid's height in hex rows (a half row for offset columns)
    hexes: tuple[MapHex, ...]  # drawn in this order
    hexsides: tuple[MapHexside, ...] = ()
    lines: tuple[MapLine, ...] = ()
    bases: tuple[MapBase, ...] = ()
    markers: tuple[MapMarker, ...] = ()
    highlight: tuple[int, ...] = ()  # hexes outlined (this round's combats)
    boxes: tuple[MapBox, ...] = ()
    legend: tuple[LegendEntry, ...] = ()
    # Hexes a close-up picture shows under the whole map (where the audience's
    # forces and the fighting are); empty: no close-up.
    focus: tuple[int, ...] = ()


def stack_markers(
    units: Mapping[int, Sequence[tuple[str, str]]], colours: Mapping[str | None, Colour]
) -> tuple[MapMarker, ...]:
    """One square per side's stack on a hex (key -> (side, label) pairs): its top
    unit's label and its size, in ``colours[side]`` (``colours[None]`` if unknown)."""
    out = []
    for h, stack in sorted(units.items()):
        sides: dict[str, list[str]] = {}
        for owner, text in stack:
            sides.setdefault(owner, []).append(text)
        for owner, labels in sorted(sides.items()):
            out.append(MapMarker(h, colours.get(owner, colours[None]), labels[0], len(labels)))
    return tuple(out)
