"""Labels on a map picture: where each name and unit label goes so that none
covers another (or a base's mark), and how a label's pixels are made once and
pasted in every report after. The drawing of the map itself is mapimage's."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from pbem.core.mapview import Colour, MapBase, MapHex, MapMarker

if TYPE_CHECKING:
    from PIL._imaging import ImagingCore

Point = tuple[float, float]
Box = tuple[float, float, float, float]
Font = ImageFont.ImageFont | ImageFont.FreeTypeFont


def grow(box: Box, by: float) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class Taken:
    """The boxes a label may not cover, filed by area (cells of ``CELL`` pixels),
    so a check compares a label with its neighbours only."""

    CELL = 64

    def __init__(self, boxes: Iterable[Box] = (), cell: int | None = CELL) -> None:
        """``cell`` None: a list that files nothing (where nothing is checked)."""
        self.filed = cell is not None
        self.boxes: list[Box] = []
        self._cells: dict[tuple[int, int], list[Box]] = {}
        for box in boxes:
            self.append(box)

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, i: slice) -> list[Box]:
        return self.boxes[i]

    def _keys(self, box: Box) -> Iterator[tuple[int, int]]:
        c = self.CELL
        rows = range(int(box[1] // c), int(box[3] // c) + 1)
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in rows:
                yield i, j

    def append(self, box: Box) -> None:
        self.boxes.append(box)
        if not self.filed:
            return
        for key in self._keys(box):
            self._cells.setdefault(key, []).append(box)

    def hits(self, box: Box) -> bool:
        """Whether ``box`` overlaps a box filed (the hot loop of placing labels)."""
        x0, y0, x1, y1 = box
        cells = self._cells
        for key in self._keys(box):
            for t in cells.get(key, ()):
                if x0 < t[2] and t[0] < x1 and y0 < t[3] and t[1] < y1:
                    return True
        return False


def marker_squares(
    markers: tuple[MapMarker, ...], at: Callable[[int], Point], r: float
) -> list[tuple[MapMarker, Box]]:
    """Each marker's square: alone, in the hex's middle; several stacks on a hex
    share it side by side (two) or in a square of four."""
    by_hex: dict[int, list[MapMarker]] = {}
    for marker in markers:
        by_hex.setdefault(marker.key, []).append(marker)
    out = []
    for key, stack in by_hex.items():
        px, py = at(key)
        n = len(stack)
        k = r * (0.5 if n == 1 else 0.36 if n == 2 else 0.3)
        for i, marker in enumerate(stack):
            if n == 1:
                dx = dy = 0.0
            elif n == 2:
                dx, dy = (-1 if i == 0 else 1) * r * 0.4, 0.0
            else:
                angle = math.radians(225 + 360 * i / n)
                dx, dy = r * 0.45 * math.cos(angle), r * 0.45 * math.sin(angle)
            out.append((marker, (px + dx - k, py + dy - k, px + dx + k, py + dy + k)))
    return out


# Where a name may go, around its hex: (dx, dy) in radii and the text anchor.
NAME_SPOTS = (
    (0.7, -0.45, "ls"),
    (0.7, 0.45, "lt"),
    (-0.7, -0.45, "rs"),
    (-0.7, 0.45, "rt"),
    (0.0, -0.9, "ms"),
    (0.0, 0.9, "mt"),
    (0.7, 0.0, "lm"),
    (-0.7, 0.0, "rm"),
)


Put = Callable[[Point, str, str], None]  # draws a label: (spot, text, anchor)


def place(
    put: Put,
    text: str,
    spots: tuple[tuple[Point, str], ...],
    font: Font,
    taken: Taken,
    bounds: Box,
) -> Box | None:
    """``text`` at the first of its ``spots`` (point, anchor) where it covers nothing
    ``taken`` and stays inside the picture, and its box; none free: left out (the
    close-up has room for it), so no two labels ever overlap."""
    for spot, anchor in spots:
        dx, dy, w, h = label_extent(text, font, anchor, 1)
        x, y = round(spot[0]) + dx, round(spot[1]) + dy
        box = grow((x, y, x + w, y + h), 1)
        inside = (
            box[0] >= bounds[0]
            and box[1] >= bounds[1]
            and box[2] <= bounds[2]
            and box[3] <= bounds[3]
        )
        if inside and not taken.hits(box):
            taken.append(box)
            put(spot, text, anchor)
            return box
    return None


def name_hexes(
    put: Put,
    hexes: Iterable[MapHex],
    bases: tuple[int, ...] | tuple[MapBase, ...],
    at: Callable[[int], Point],
    r: float,
    font: Font,
    taken: Taken,
    bounds: Box,
) -> list[tuple[MapHex, Box]]:
    """Each named hex's name where it is free, bases' names first; the names
    placed, with their boxes."""
    based = {b if isinstance(b, int) else b.key for b in bases}
    near = grow(bounds, 2 * r)
    placed = []
    for x in sorted((x for x in hexes if x.name), key=lambda x: (x.key not in based, x.key)):
        px, py = at(x.key)
        if near[0] <= px <= near[2] and near[1] <= py <= near[3]:
            spots = tuple(((px + dx * r, py + dy * r), anchor) for dx, dy, anchor in NAME_SPOTS)
            box = place(put, x.name or "", spots, font, taken, bounds)
            if box is not None:
                placed.append((x, box))
    return placed


def under_stacks(
    names: Iterable[tuple[MapHex, Box]], squares: Iterable[Box]
) -> list[tuple[MapHex, Box]]:
    """The names drawn where a stack's square (and its outline) goes."""
    stacks = Taken(grow(sq, 1) for sq in squares)
    return [(x, box) for x, box in names if stacks.hits(box)]


def label_stacks(
    put: Put, squares: Iterable[tuple[MapMarker, Box]], font: Font, taken: Taken, bounds: Box
) -> None:
    """Each stack's top unit beside its square, where there is room."""
    for marker, (x0, y0, x1, y1) in squares:
        mx = (x0 + x1) / 2
        spots = (
            ((mx, y1 + 3), "mt"),
            ((mx, y0 - 3), "mb"),
            ((x1 + 4, y1), "lb"),
            ((x0 - 4, y1), "rb"),
            ((x1 + 4, (y0 + y1) / 2), "lm"),
            ((x0 - 4, (y0 + y1) / 2), "rm"),
        )
        place(put, marker.label, spots, font, taken, bounds)


def writer(draw: ImageDraw.ImageDraw, font: Font, fill: Colour, halo: Colour) -> Put:
    """Labels drawn anti-aliased, with a halo (the base map, drawn once)."""

    def put(spot: Point, text: str, anchor: str) -> None:
        draw.text(spot, text, fill=fill, font=font, anchor=anchor, stroke_width=1, stroke_fill=halo)

    return put


def putter(core: ImagingCore, font: Font, fill: int, halo: int) -> Put:
    """Labels stamped in palette indices, with a halo (each report's: see paste_label)."""

    def put(spot: Point, text: str, anchor: str) -> None:
        paste_label(core, spot, text, font, anchor, fill, halo)

    return put


@dataclass(frozen=True, slots=True)
class Stamp:
    """A label's pixels, rendered once: where its box starts from its spot, and
    its masks (the halo's, the letters')."""

    dx: int
    dy: int
    w: int
    h: int
    halo: ImagingCore | None
    ink: ImagingCore


_PROBE = ImageDraw.Draw(Image.new("1", (1, 1)))


@functools.lru_cache(maxsize=1 << 15)  # each label at each of its spots, at each scale
def label_extent(text: str, font: Font, anchor: str, stroke: int) -> tuple[int, int, int, int]:
    """Where a label's box starts from its spot, and its size (measured once)."""
    x0, y0, x1, y1 = (
        round(v)
        for v in _PROBE.textbbox((0, 0), text, font=font, anchor=anchor, stroke_width=stroke)
    )
    return x0, y0, max(1, x1 - x0), max(1, y1 - y0)


@functools.lru_cache(maxsize=8192)
def label_stamp(text: str, font: Font, anchor: str, stroke: int) -> Stamp:
    """Unit labels, counts and capacities repeat from report to report: each is
    rendered by FreeType once, then pasted (a fraction of the cost of drawing)."""
    x0, y0, w, h = label_extent(text, font, anchor, stroke)
    ink = Image.new("1", (w, h))
    ImageDraw.Draw(ink).text((-x0, -y0), text, fill=1, font=font, anchor=anchor)
    halo = None
    if stroke:  # the letters grown by ``stroke`` pixels (FreeType's stroker costs twice them)
        grown = ink.convert("L").filter(ImageFilter.MaxFilter(2 * stroke + 1))
        halo = grown.convert("1")
    return Stamp(x0, y0, w, h, None if halo is None else halo.im, ink.im)


def paste_label(
    core: ImagingCore,
    spot: Point,
    text: str,
    font: Font,
    anchor: str,
    fill: int,
    halo: int | None = None,
) -> Box:
    """Stamp ``text`` at ``spot`` on a "P" image's ``core`` (a copy of our own,
    writable) in palette index ``fill``, with a ``halo``; its box. Straight to
    the core: Image.paste's checks cost more than the paste of a label."""
    stamp = label_stamp(text, font, anchor, 0 if halo is None else 1)
    x, y = round(spot[0]) + stamp.dx, round(spot[1]) + stamp.dy
    at = (x, y, x + stamp.w, y + stamp.h)
    if halo is not None and stamp.halo is not None:
        core.paste(halo, at, stamp.halo)
    core.paste(fill, at, stamp.ink)
    return at
