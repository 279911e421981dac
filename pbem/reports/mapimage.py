"""Map pictures with Pillow, drawn from a ruleset's description (pbem.core.mapview).

The same renderer draws the moderator's map (``pbem map usn``) and each
audience's report map (the ruleset describes only what that audience may see).
It knows hexes, not games: the ruleset says what each hex, hexside, base and
marker is; this module decides how that looks. Output is a PNG without
metadata, so the same inputs always give the same bytes.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from PIL import Image, ImageDraw, ImageFont

from pbem.core.mapview import (
    Colour,
    Edge,
    Ground,
    LegendEntry,
    MapBox,
    MapHex,
    MapHexside,
    MapLine,
    MapMarker,
    MapPicture,
)
from pbem.reports import maplabels, png
from pbem.reports.maplabels import Box, Font, Point

if TYPE_CHECKING:
    pass

RADIUS = 13.0  # pixels from hex centre to corner at scale 1
MARGIN = 24
TITLE_H = 28
BOX_W = 86  # the off-map box column east of the map
LEGEND_H = 18  # the key's row under the map
ZOOM_HEAD = 24  # the close-up's heading
ZOOM_PAD = 4.0  # grid units of map east and west of the close-up's focus (2 hex columns)
ZOOM_PAD_Y = 2.0  # and north and south of it (a hex row: room for a stack's label)
ZOOM_STEPS = (2.0, 3.0)  # the close-up's scales, relative to the overview's (each drawn once)
ZOOM_HEIGHT = 520  # the close-up's greatest height in pixels at scale 1
LABELS_FROM = 1.5  # the scale from which a stack has room for its top unit's label

SEA = (58, 110, 165)
SEA_LINE = (78, 130, 185)
LAND = (118, 160, 88)
ISLET = (196, 214, 120)  # the dot on a sea hex
DESERT = (214, 184, 128)
LAND_LINE = (88, 124, 64)
BORDER = (70, 50, 40)
STRAIT = (150, 200, 235)
MOUNTAIN = (120, 72, 30)
TEXT = (20, 20, 20)
HALO = (255, 255, 255)
HIGHLIGHT = (255, 220, 0)
BACKGROUND = (235, 232, 220)
SWATCHES = {Ground.SEA: SEA, Ground.ISLET: ISLET, Ground.LAND: LAND, Ground.DESERT: DESERT}


@functools.lru_cache(maxsize=64)
def _font(size: int) -> Font:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow built without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def image_size(picture: MapPicture, scale: float = 1.0) -> tuple[int, int]:
    """Pixel size of the image ``render_map`` makes of ``picture`` at ``scale``."""
    w, h = _overview_size(picture, scale)
    zoom = _zoom(picture, scale)
    return (w, h) if zoom is None else (w, h + zoom.panel_height(scale))


def _overview_size(picture: MapPicture, scale: float) -> tuple[int, int]:
    r = RADIUS * scale
    w = 2 * MARGIN + r * (1.5 * (picture.columns - 1) + 2) + BOX_W * scale
    h = 2 * MARGIN + (TITLE_H + LEGEND_H) * scale + r * math.sqrt(3) * picture.rows
    return int(w), int(h)


def hex_pixel(centre: Point, scale: float = 1.0) -> Point:
    """Pixel position of a point given in grid units (a hex centre), at ``scale``."""
    r = RADIUS * scale
    x, y = centre
    return MARGIN + r + x * r, MARGIN + TITLE_H * scale + r * math.sqrt(3) / 2 + y * r


@dataclass(frozen=True, slots=True)
class Zoom:
    """The close-up under the whole map: a window (grid units) drawn at ``scale``."""

    scale: float
    west: float
    north: float
    east: float
    south: float

    def pixels(self, scale: float) -> tuple[int, int, int, int]:
        """The window in pixels of the map drawn at ``scale``."""
        x0, y0 = hex_pixel((self.west, self.north), scale)
        x1, y1 = hex_pixel((self.east, self.south), scale)
        return round(x0), round(y0), round(x1), round(y1)

    def panel_height(self, overview_scale: float) -> int:
        _, y0, _, y1 = self.pixels(self.scale)
        return round(ZOOM_HEAD * overview_scale) + (y1 - y0) + MARGIN


def _zoom(picture: MapPicture, scale: float) -> Zoom | None:
    """Where the close-up looks and how large: the focus hexes with a margin, as
    large as fits the map's width (twice or three times the overview's scale, so
    its base map is drawn once per scale); a focus spread wider is cut to the
    part with the most of it, the fighting first (see _densest), and that part
    is drawn as large as it fits. Kept over the map. Made from the picture
    alone: the focus is what the audience may see (its own forces and the
    fighting it knows of). Closer still where that shows all the same fights."""
    grid = _grid(picture.hexes)
    points = [grid.centres[k] for k in picture.focus if k in grid.centres]
    if not points:
        return None
    width_px = _overview_size(picture, scale)[0] - 2 * MARGIN

    def size(step: float) -> tuple[float, float]:
        """The greatest window, in grid units, at ``step`` times the overview's scale."""
        z = scale * step
        return width_px / (RADIUS * z), ZOOM_HEIGHT * scale / (RADIUS * z)

    def fits(part: list[Point], step: float) -> bool:
        w, h = size(step)
        return _span(part, 0) + 2 * ZOOM_PAD <= w and _span(part, 1) + 2 * ZOOM_PAD_Y <= h

    held, step = points, max((s for s in ZOOM_STEPS if fits(points, s)), default=0.0)
    if not step:
        fights = {grid.centres[k] for k in picture.highlight if k in grid.centres}
        held, step = _densest(points, fights, *size(ZOOM_STEPS[0])), ZOOM_STEPS[0]
        fought = len(fights.intersection(held))
        for closer in sorted(ZOOM_STEPS[1:], reverse=True) if fought else ():
            part = _densest(points, fights, *size(closer))
            if len(fights.intersection(part)) >= fought:  # closer, losing none of the fighting
                held, step = part, closer
                break
    w, most = size(step)
    h = min(_span(held, 1) + 2 * ZOOM_PAD_Y, most)
    cx = (min(x for x, _ in held) + max(x for x, _ in held)) / 2
    cy = (min(y for _, y in held) + max(y for _, y in held)) / 2
    west, north, east, south = grid.bounds
    cx = _inside(cx, w, west - 1, east + 1)
    cy = _inside(cy, h, north - 1, south + 1)
    return Zoom(scale * step, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def _span(points: list[Point], axis: int) -> float:
    return max(p[axis] for p in points) - min(p[axis] for p in points)


FIGHT_WEIGHT = 100  # a combat hex counts for more in the close-up than any number of units


def _densest(points: list[Point], fights: set[Point], w: float, h: float) -> list[Point]:
    """The focus points that a w x h window (less its margin) holds where it
    holds the most: fights first, then points. It is tried around each point
    (in the focus's order), then between each two fights."""
    by_x = sorted(points)
    xs = [x for x, _ in by_x]
    hw, hh = max(w / 2 - ZOOM_PAD, w / 4), max(h / 2 - ZOOM_PAD_Y, h / 4)
    ordered = sorted(fights)[:12]  # pairs of a dozen fights at most: they grow fast
    between = [
        ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        for i, a in enumerate(ordered)
        for b in ordered[i + 1 :]
    ]

    def held(p: Point) -> list[Point]:
        near = by_x[bisect.bisect_left(xs, p[0] - hw) : bisect.bisect_right(xs, p[0] + hw)]
        return [q for q in near if abs(q[1] - p[1]) <= hh]

    def weight(p: Point) -> int:
        return sum(FIGHT_WEIGHT if q in fights else 1 for q in held(p))

    return held(max([*points, *between], key=weight))


class _Grid(NamedTuple):
    centres: dict[int, Point]  # by key
    bounds: Box  # west, north, east, south
    named: tuple[MapHex, ...]  # the hexes with a name
    scaled: dict[float, dict[int, Point]]  # the centres in pixels, by scale (see pixels)

    def pixels(self, scale: float) -> dict[int, Point]:
        """Each hex centre's pixel at ``scale``, worked out once per map and scale."""
        known = self.scaled.get(scale)
        if known is None:
            known = self.scaled[scale] = {k: hex_pixel(c, scale) for k, c in self.centres.items()}
        return known


_T = TypeVar("_T")


def _by_identity(memo: dict[int, tuple[object, _T]], key: object, make: Callable[[], _T]) -> _T:
    """``make()`` once per object ``key``: a ruleset hands the same tuples to
    every report, so they are found by identity, without hashing a whole map
    (``memo`` keeps each key, so its id is not reused while it is there)."""
    known = memo.get(id(key))
    if known is not None and known[0] is key:
        return known[1]
    if len(memo) >= 64:
        memo.clear()
    value = make()
    memo[id(key)] = (key, value)
    return value


_GRIDS: dict[int, tuple[object, _Grid]] = {}


def _grid(hexes: tuple[MapHex, ...]) -> _Grid:
    """Each map's grid, worked out once."""
    return _by_identity(_GRIDS, hexes, lambda: _gridded(hexes))


def _gridded(hexes: tuple[MapHex, ...]) -> _Grid:
    centres = {x.key: x.centre for x in hexes}
    xs, ys = [x for x, _ in centres.values()], [y for _, y in centres.values()]
    bounds = (min(xs), min(ys), max(xs), max(ys)) if centres else (0.0, 0.0, 0.0, 0.0)
    return _Grid(centres, bounds, tuple(x for x in hexes if x.name), {})


def _inside(c: float, size: float, lo: float, hi: float) -> float:
    """A window's centre moved so the window stays over [lo, hi] (centred if wider)."""
    if size >= hi - lo:
        return (lo + hi) / 2
    return min(max(c, lo + size / 2), hi - size / 2)


def _corners(px: float, py: float, r: float) -> list[Point]:
    return [
        (px + r * math.cos(math.radians(a)), py + r * math.sin(math.radians(a)))
        for a in range(0, 360, 60)
    ]


# Corner indices (from _corners) bounding each side of a flat-topped hex, in
# the order N, NE, SE, S, SW, NW (y grows downward).
_SIDE_CORNERS = ((4, 5), (5, 0), (0, 1), (1, 2), (2, 3), (3, 4))


def _facing(a: Point, b: Point) -> int:
    """Which side of the hex centred at ``a`` faces the adjacent hex centred at ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if dx == 0:
        return 0 if dy < 0 else 3
    if dx > 0:
        return 1 if dy < 0 else 2
    return 5 if dy < 0 else 4


def render_map(
    picture: MapPicture, *, title: str = "", scale: float = 1.0, hex_numbers: bool = False
) -> bytes:
    """Draw the picture as PNG bytes: the whole map with its key, and under it a
    close-up of the focus hexes if there are any; ``hex_numbers`` prints every
    hex number (for checking the data)."""
    return png.encode(draw_map(picture, title=title, scale=scale, hex_numbers=hex_numbers))


def draw_map(
    picture: MapPicture, *, title: str = "", scale: float = 1.0, hex_numbers: bool = False
) -> Image.Image:
    """The picture ``render_map`` encodes: a "P" image, drawn in palette indices
    (see _Inks), the close-up pasted in as it was drawn."""
    key = _key(picture)
    overview = _layer(picture, key, scale, hex_numbers, close_up=False)
    inks = _Inks(overview.colours)
    zoom = _zoom(picture, scale)
    w, h = overview.image.size
    panel = 0 if zoom is None else zoom.panel_height(scale)
    out = overview.image.crop((0, 0, w, h + panel))  # one copy: the overview and the panel
    # The overview's names were placed before any unit was: one a stack covers is moved.
    unnamed = functools.partial(_layer, picture, key, scale, hex_numbers, close_up=True)
    bounds = (0, 0, w, h)
    _draw_changes(out, picture, scale, (0, 0), bounds, overview.names, inks, close_up=False,
                  unnamed=lambda: unnamed().image)  # fmt: skip
    draw = ImageDraw.Draw(out)
    text = inks(TEXT)
    if title:
        # Drawn, not stamped: each report's title is its own (see maplabels.label_stamp).
        draw.text((MARGIN, MARGIN * 0.5), title, fill=text, font=_font(round(16 * scale)))
    if zoom is not None:
        out.im.paste(inks(BACKGROUND), (0, h, w, h + panel))
        draw.rectangle(zoom.pixels(scale), outline=text, width=max(1, round(2 * scale)))
        head = round(ZOOM_HEAD * scale)
        maplabels.paste_label(
            out.im, (MARGIN, h + head / 2), "Close-up", _font(round(14 * scale)), "lm", text
        )
        # Its base map has no key: the ruleset's colours give the same palette,
        # whether or not the combat outline is in the overview's key.
        close = _close_up(picture, picture.legend, zoom, hex_numbers, inks)
        x0, y0 = MARGIN, h + head
        out.im.paste(close.im, (x0, y0, x0 + close.width, y0 + close.height))
        box = (x0, y0, x0 + close.width - 1, y0 + close.height - 1)
        draw.rectangle(box, outline=text, width=1)
    out.putpalette(inks.palette())
    return out


def _close_up(
    picture: MapPicture,
    key: tuple[LegendEntry, ...],
    zoom: Zoom,
    hex_numbers: bool,
    inks: _Inks,
) -> Image.Image:
    """The close-up's window of its base map (drawn once per scale, in the
    overview's palette) with what the report changes drawn on it, its unit
    labels and the hexes' names kept inside it."""
    layer = _layer(picture, key, zoom.scale, hex_numbers, close_up=True)
    assert layer.colours == tuple(inks.colours[: len(layer.colours)]), "one palette"
    window = zoom.pixels(zoom.scale)
    img = layer.image.crop(window)
    bounds: Box = (0, 0, img.width, img.height)
    _draw_changes(img, picture, zoom.scale, window[:2], bounds, (), inks, close_up=True)
    return img


class _Inks:
    """The palette of one picture: its base maps' colours (the same list for the
    overview and the close-up) and those its report adds. Each part is drawn in
    these indices, so the close-up pastes into the overview as it is."""

    def __init__(self, colours: tuple[Colour, ...]) -> None:
        self.colours = list(colours)
        self._index = {c: i for i, c in reversed(list(enumerate(colours)))}

    def __call__(self, colour: Colour) -> int:
        known = self._index.get(colour)
        if known is not None:
            return known
        if len(self.colours) >= 256:  # full: the nearest colour there is
            return min(
                range(256),
                key=lambda i: sum(
                    (a - b) ** 2 for a, b in zip(self.colours[i], colour, strict=True)
                ),
            )
        self.colours.append(colour)
        self._index[colour] = len(self.colours) - 1
        return len(self.colours) - 1

    def palette(self) -> list[int]:
        return [c for colour in self.colours for c in colour]


def _text_size(scale: float, size: float) -> int:
    """Text grows slower than the map: a close-up's labels stay labels."""
    return max(round(size), round(size * math.sqrt(scale)))


def _fonts(scale: float) -> tuple[Font, Font]:
    """The small font (counts, capacities, unit labels) and the names' font."""
    small = _font(_text_size(scale, 8) if scale >= 1 else max(7, round(8 * scale)))
    label = _font(_text_size(scale, 9) if scale >= 1 else max(8, round(9 * scale)))
    return small, label


@dataclass(frozen=True, slots=True)
class _Layer:
    """The part of a map that no report changes, drawn once (see _base_map)."""

    image: Image.Image  # "P" mode: copied or cropped, never drawn on
    colours: tuple[Colour, ...]  # its palette
    names: tuple[tuple[MapHex, Box], ...]  # the names drawn, and their boxes


def _draw_changes(
    img: Image.Image,
    picture: MapPicture,
    scale: float,
    origin: tuple[int, int],
    bounds: Box,
    names: Sequence[tuple[MapHex, Box]],
    inks: _Inks,
    *,
    close_up: bool,
    unnamed: Callable[[], Image.Image] | None = None,
) -> list[tuple[MapHex, Box]]:
    """What differs from report to report, on ``img`` (whose top left corner is
    ``origin`` of the whole map at ``scale``): combat outlines, bases in their
    owners' colours, unit stacks and, where there is room, their labels, clear
    of the ``names`` already drawn; a name a stack would cover is wiped (from
    the ``unnamed`` base map) and placed again clear of the stacks, or left to
    the close-up; on the ``close_up``, the hexes' names too, clear of them (a
    few dozen). Drawn in palette indices: solid shapes and labels are pasted
    (see maplabels.paste_label), at a fraction of the cost of drawing them. The
    names it placed, with their boxes."""
    sheet = _Sheet(img, picture, scale, origin, bounds, inks)
    labels = scale >= LABELS_FROM  # room for each stack's top unit beside its square
    covered = []
    if unnamed is not None:  # wiped: the map under each as it is without names
        marked = maplabels.marker_squares(picture.markers, sheet.at, sheet.r)
        covered = maplabels.under_stacks(names, [sq for _, sq in marked])
        for at in (_pixels(box) for _, box in covered):
            sheet.core.paste(unnamed().im.crop(at), at)
        names = [n for n in names if n not in covered]
    if labels or close_up or covered:  # the names' boxes over this part, moved to its corner
        ox, oy = origin
        moved = ((x0 - ox, y0 - oy, x1 - ox, y1 - oy) for _, (x0, y0, x1, y1) in names)
        taken = maplabels.Taken(b for b in moved if maplabels.overlaps(b, bounds))
    else:
        taken = maplabels.Taken(cell=None)  # no label is placed: nothing to keep clear of
    sheet.highlights()
    sheet.bases(taken)
    squares = sheet.stacks(taken)
    if labels:
        put = maplabels.putter(sheet.core, sheet.small, sheet.text, sheet.halo)
        maplabels.label_stacks(put, squares, sheet.small, taken, bounds)
    again = [x for x, _ in covered] if not close_up else list(_grid(picture.hexes).named)
    if not again:
        return []
    put = maplabels.putter(sheet.core, sheet.label, sheet.text, sheet.halo)
    return maplabels.name_hexes(
        put, again, picture.bases, sheet.at, sheet.r, sheet.label, taken, bounds
    )


class _Sheet:
    """One report's marks on a copy of a base map (or a window of it)."""

    def __init__(
        self,
        img: Image.Image,
        picture: MapPicture,
        scale: float,
        origin: tuple[int, int],
        bounds: Box,
        inks: _Inks,
    ) -> None:
        self.draw = ImageDraw.Draw(img)
        self.core = img.im
        self.picture, self.scale, self.origin, self.bounds, self.inks = (
            picture, scale, origin, bounds, inks
        )  # fmt: skip
        self.r = RADIUS * scale
        self.small, self.label = _fonts(scale)
        self.centres = _grid(picture.hexes).pixels(scale)
        self.reach = maplabels.grow(bounds, 2 * self.r)
        self.text, self.halo = inks(TEXT), inks(HALO)

    def at(self, key: int) -> Point:
        x, y = self.centres[key]
        return x - self.origin[0], y - self.origin[1]

    def seen(self, key: int) -> bool:
        """Near enough the window to show."""
        x, y = self.at(key)
        reach = self.reach
        return reach[0] <= x <= reach[2] and reach[1] <= y <= reach[3]

    def highlights(self) -> None:
        """The combat outlines."""
        width = max(2, round(2 * self.scale))
        for key in self.picture.highlight:
            if key in self.centres and self.seen(key):
                px, py = self.at(key)
                corners = _corners(px, py, self.r * 0.92)
                self.draw.polygon(corners, outline=self.inks(HIGHLIGHT), width=width)

    def bases(self, taken: maplabels.Taken) -> None:
        """A ring for a naval base, a square for an air base (with its capacity)."""
        r = self.r
        ring = _ring(r * 0.55, max(2, round(2 * self.scale)))
        for base in self.picture.bases:
            if not self.seen(base.key):
                continue
            px, py = self.at(base.key)
            taken.append(maplabels.grow((px, py, px, py), r * 0.55))  # no label over a mark
            ink = self.inks(base.colour)
            if base.naval:
                x, y = round(px - r * 0.55), round(py - r * 0.55)
                self.core.paste(ink, (x, y, x + ring.width, y + ring.height), ring.im)
            if base.air_capacity:
                k = r * 0.3
                self.core.paste(ink, _pixels((px - k, py - k, px + k, py + k)))
                spot, capacity = (px, py + r * 0.62), str(base.air_capacity)
                taken.append(
                    maplabels.paste_label(
                        self.core, spot, capacity, self.small, "mt", self.text, self.halo
                    )
                )

    def stacks(self, taken: maplabels.Taken) -> list[tuple[MapMarker, Box]]:
        """Each unit stack's square in its side's colour, with its count; the squares."""
        marked = maplabels.marker_squares(self.picture.markers, self.at, self.r)
        squares = [(m, sq) for m, sq in marked if maplabels.overlaps(sq, self.reach)]
        for _, sq in squares:
            taken.append(maplabels.grow(sq, 1))
        for marker, sq in squares:
            px0, py0, px1, py1 = _pixels(sq)
            self.core.paste(self.halo, (px0, py0, px1, py1))  # its outline
            self.core.paste(self.inks(marker.colour), (px0 + 1, py0 + 1, px1 - 1, py1 - 1))
            if marker.count > 1:
                middle = ((sq[0] + sq[2]) / 2, (sq[1] + sq[3]) / 2)
                maplabels.paste_label(
                    self.core, middle, str(marker.count), self.small, "mm", self.halo
                )
        return squares


def _pixels(box: Box) -> tuple[int, int, int, int]:
    """A box's pixels, its far edge included (as ImageDraw draws a rectangle)."""
    return round(box[0]), round(box[1]), round(box[2]) + 1, round(box[3]) + 1


@functools.lru_cache(maxsize=16)
def _ring(k: float, width: int) -> Image.Image:
    """A naval base's ring of radius ``k``, as a mask to paste."""
    size = round(2 * k) + 1
    mask = Image.new("1", (size, size))
    ImageDraw.Draw(mask).ellipse((0, 0, 2 * k, 2 * k), outline=1, width=width)
    return mask


def _layer(
    picture: MapPicture,
    key: tuple[LegendEntry, ...],
    scale: float,
    hex_numbers: bool,
    *,
    close_up: bool,
) -> _Layer:
    """The picture's base map at ``scale`` (see _base_map): the overview's with
    the names and the ``key``; the close-up's without (its names are placed per
    report, clear of its unit labels), in the same palette."""
    return _base_map(
        picture.columns,
        picture.rows,
        _same(picture.hexes),
        _same(picture.hexsides),
        picture.lines,
        picture.boxes,
        () if close_up else tuple(b.key for b in picture.bases),
        key,
        scale,
        hex_numbers,
        close_up=close_up,
    )


class _Same:
    """A map's hexes (or hexsides) as a cache key: hashed once per tuple (a
    ruleset hands the same one to every report), equal by value, so a corrected
    map is another key."""

    __slots__ = ("digest", "value")

    def __init__(self, value: tuple[object, ...]) -> None:
        self.value = value
        self.digest = hash(value)

    def __hash__(self) -> int:
        return self.digest

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and (
            other.value is self.value or (other.digest == self.digest and other.value == self.value)
        )


_SAME: dict[int, tuple[object, _Same]] = {}


def _same(value: tuple[object, ...]) -> _Same:
    return _by_identity(_SAME, value, lambda: _Same(value))


# A map's base maps: the overview with and without the combat key, the close-up
# at 2x and 3x (about 10 MB in all); room for a few maps (games' corrections).
@functools.lru_cache(maxsize=16)
def _base_map(
    columns: int,
    rows: float,
    hexes_key: _Same,
    hexsides_key: _Same,
    lines: tuple[MapLine, ...],
    boxes: tuple[MapBox, ...],
    base_keys: tuple[int, ...],
    legend: tuple[LegendEntry, ...],
    scale: float,
    hex_numbers: bool,
    *,
    close_up: bool,
) -> _Layer:
    """The map as no report changes it, drawn once per process for each map
    (a moderator's map correction is another map: another drawing) and scale:
    terrain, hexside features, start lines and off-map boxes; for the overview
    (not ``close_up``) the hexes' names (kept clear of base marks) and the
    ``legend``, whose colours are in the palette either way. Made from the
    arguments alone, so what one report shows can never reach another's."""
    hexes: tuple[MapHex, ...] = hexes_key.value  # type: ignore[assignment]
    hexsides: tuple[MapHexside, ...] = hexsides_key.value  # type: ignore[assignment]
    picture = MapPicture(columns, rows, hexes, hexsides, lines, boxes=boxes)
    w, h = _overview_size(picture, scale)
    img = Image.new("RGB", (w, h), BACKGROUND)
    ground = _Ground(ImageDraw.Draw(img), hexes, scale)
    ground.fill_hexes()
    ground.hexsides(hexsides)
    ground.lines(lines)
    # Base marks and their capacities (drawn per report) keep their places.
    marks: list[Box] = []
    for key in base_keys:
        if key in ground.centres:
            px, py = ground.at(key)
            r = ground.r
            marks += [
                maplabels.grow((px, py, px, py), r * 0.55),
                (px - r, py, px + r, py + r * 1.2),
            ]
    taken = maplabels.Taken(marks)
    names: list[tuple[MapHex, Box]] = []
    if not close_up:
        put = maplabels.writer(ground.draw, ground.label, TEXT, HALO)
        names = maplabels.name_hexes(
            put, hexes, base_keys, ground.at, ground.r, ground.label, taken, (0, 0, w, h)
        )
    if hex_numbers:
        ground.hex_numbers()
    for box in boxes:
        _box(ground.draw, box, [ground.at(key) for key in box.beside], scale, ground.small)
    if not close_up:
        _legend(ground.draw, legend, scale, h)
    colours = _palette(lines, legend)
    pal = Image.new("P", (1, 1))
    pal.putpalette([c for colour in colours for c in colour])
    return _Layer(img.quantize(palette=pal), colours, tuple(names))


class _Ground:
    """The map as no report changes it, drawn on a base map's RGB image."""

    def __init__(self, draw: ImageDraw.ImageDraw, hexes: tuple[MapHex, ...], scale: float) -> None:
        self.draw, self.hexes, self.scale = draw, hexes, scale
        self.r = RADIUS * scale
        self.small, self.label = _fonts(scale)
        self.centres = {x.key: x.centre for x in hexes}

    def at(self, key: int) -> Point:
        return hex_pixel(self.centres[key], self.scale)

    def side(self, a: int, b: int) -> tuple[Point, Point]:
        cs = _corners(*self.at(a), self.r)
        i, j = _SIDE_CORNERS[_facing(self.centres[a], self.centres[b])]
        return cs[i], cs[j]

    def fill_hexes(self) -> None:
        r, draw = self.r, self.draw
        for x in self.hexes:
            px, py = self.at(x.key)
            cs = _corners(px, py, r)
            if x.ground is Ground.SEA or x.ground is Ground.ISLET:
                draw.polygon(cs, fill=SEA, outline=SEA_LINE)
                if x.ground is Ground.ISLET:
                    dot = r * 0.32
                    draw.ellipse((px - dot, py - dot, px + dot, py + dot), fill=ISLET)
            else:
                draw.polygon(cs, fill=SWATCHES[x.ground], outline=LAND_LINE)

    def hexsides(self, hexsides: tuple[MapHexside, ...]) -> None:
        for hs in hexsides:
            seg = self.side(hs.a, hs.b)
            if hs.edge is Edge.MOUNTAIN:
                _mountain(self.draw, seg, self.scale)
            elif hs.edge is Edge.STRAIT:
                self.draw.line(seg, fill=STRAIT, width=max(1, round(2 * self.scale)))
            else:
                self.draw.line(seg, fill=BORDER, width=1)

    def lines(self, lines: tuple[MapLine, ...]) -> None:
        """Where two lines share a hexside their dashes alternate."""
        for phase, line in enumerate(lines):
            for a, b in line.hexsides:
                _dashed(self.draw, self.side(a, b), line.colour, self.scale, phase % 2)

    def hex_numbers(self) -> None:
        tiny = _font(max(6, round(6 * self.scale)))
        for x in self.hexes:
            px, py = self.at(x.key)
            self.draw.text(
                (px, py + self.r * 0.55), x.number, fill=(0, 0, 0), font=tiny, anchor="mb"
            )


def _palette(lines: tuple[MapLine, ...], legend: tuple[LegendEntry, ...]) -> tuple[Colour, ...]:
    """The colours a map is drawn in: each one exactly, and the blends of
    anti-aliased text over its grounds, so a base map keeps its colours in a
    256-colour PNG (which encodes several times faster than RGB)."""
    grounds = [SEA, LAND, ISLET, DESERT, BACKGROUND, HALO]
    exact = [
        *grounds, SEA_LINE, LAND_LINE, BORDER, STRAIT, MOUNTAIN, TEXT, HIGHLIGHT, (0, 0, 0),
        *(line.colour for line in lines),
        *(e.swatch for e in legend if not isinstance(e.swatch, Ground)),
    ]  # fmt: skip
    blends: list[Colour] = [
        _blend(ink, ground, i / 8)
        for ink in (TEXT, HALO, (0, 0, 0))
        for ground in grounds
        if ink != ground
        for i in range(1, 8)
    ]
    return tuple(dict.fromkeys([*exact, *blends]))[:200]


def _blend(a: Colour, b: Colour, t: float) -> Colour:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _key(picture: MapPicture) -> tuple[LegendEntry, ...]:
    """The ruleset's key, and the combat outline when there is one."""
    combat = (LegendEntry("combat this round", HIGHLIGHT),) if picture.highlight else ()
    return picture.legend + combat


def _mountain(draw: ImageDraw.ImageDraw, seg: tuple[Point, Point], scale: float) -> None:
    (x1, y1), (x2, y2) = seg
    draw.line(seg, fill=MOUNTAIN, width=max(2, round(3 * scale)))
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    k = 3 * scale
    draw.polygon([(mx - k, my + k), (mx + k, my + k), (mx, my - k)], fill=MOUNTAIN)


def _dashed(
    draw: ImageDraw.ImageDraw,
    seg: tuple[Point, Point],
    colour: Colour,
    scale: float,
    phase: int = 0,
) -> None:
    (x1, y1), (x2, y2) = seg
    steps = 4
    for i in range(phase, steps, 2):
        a, b = i / steps, (i + 1) / steps
        draw.line(
            ((x1 + (x2 - x1) * a, y1 + (y2 - y1) * a), (x1 + (x2 - x1) * b, y1 + (y2 - y1) * b)),
            fill=colour,
            width=max(2, round(3 * scale)),
        )


def _box(
    draw: ImageDraw.ImageDraw, box: MapBox, beside: list[Point], scale: float, font: Font
) -> None:
    """An off-map box east of the hexes it is beside, its text inside."""
    r = RADIUS * scale
    ys = [y for _, y in beside]
    x0 = max(x for x, _ in beside) + r * 1.3
    draw.rectangle(
        (x0, min(ys) - r * 0.6, x0 + BOX_W * scale * 0.8, max(ys) + r * 0.6),
        outline=TEXT,
        width=1,
    )
    draw.text(
        (x0 + 4 * scale, (min(ys) + max(ys)) / 2), box.text, fill=TEXT, font=font, anchor="lm"
    )


def _legend(
    draw: ImageDraw.ImageDraw,
    legend: tuple[LegendEntry, ...],
    scale: float,
    h: int,
) -> None:
    """The key, in a row under the map; readable on a report's small map too."""
    font = _font(max(10, round(8 * scale)))
    side = max(9.0, 9 * scale)  # a swatch's
    x = float(MARGIN)
    y = h - MARGIN * 0.5 - LEGEND_H * scale
    for entry in legend:
        colour = SWATCHES[entry.swatch] if isinstance(entry.swatch, Ground) else entry.swatch
        draw.rectangle((x, y, x + side, y + side), fill=colour, outline=TEXT)
        draw.text((x + side + 3, y), entry.label, fill=TEXT, font=font)
        x = draw.textbbox((x + side + 3, y), entry.label, font=font)[2] + side + 3
