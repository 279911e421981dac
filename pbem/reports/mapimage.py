"""Map pictures with Pillow, drawn from a ruleset's description (pbem.core.mapview).

The same renderer draws the moderator's map (``pbem map usn``) and each
audience's report map (the ruleset describes only what that audience may see).
It knows hexes, not games: the ruleset says what each hex, hexside, base and
marker is; this module decides how that looks. Output is a PNG without
metadata, so the same inputs always give the same bytes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from pbem.core.mapview import Colour, Edge, Ground, LegendEntry, MapBox, MapMarker, MapPicture

RADIUS = 13.0  # pixels from hex centre to corner at scale 1
MARGIN = 24
TITLE_H = 28
BOX_W = 86  # the off-map box column east of the map
LEGEND_H = 18  # the key's row under the map
ZOOM_HEAD = 24  # the close-up's heading
ZOOM_PAD = 4.0  # grid units of map around the close-up's focus
ZOOM_MIN, ZOOM_MAX = 2.0, 3.5  # the close-up's scale, relative to the overview's
ZOOM_HEIGHT = 520  # the close-up's greatest height in pixels at scale 1

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

Point = tuple[float, float]
Font = ImageFont.ImageFont | ImageFont.FreeTypeFont


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
    large as fits the map's width (at least twice the overview's scale; a focus
    spread wider is cut around its densest part)."""
    centres = {x.key: x.centre for x in picture.hexes}
    points = [centres[k] for k in picture.focus if k in centres]
    if not points:
        return None
    width_px = _overview_size(picture, scale)[0] - 2 * MARGIN
    xs, ys = [x for x, _ in points], [y for _, y in points]
    span_x = max(xs) - min(xs) + 2 * ZOOM_PAD
    span_y = max(ys) - min(ys) + 2 * ZOOM_PAD
    z = min(ZOOM_MAX * scale, max(ZOOM_MIN * scale, width_px / (span_x * RADIUS)))
    w = width_px / (RADIUS * z)
    h = min(span_y, ZOOM_HEIGHT * scale / (RADIUS * z))
    if span_x <= w and span_y <= h:
        cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    else:  # the focus point with most of the focus around it
        cx, cy = max(
            points,
            key=lambda p: sum(abs(x - p[0]) <= w / 2 and abs(y - p[1]) <= h / 2 for x, y in points),
        )
    return Zoom(z, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


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
    img = _draw(picture, scale, hex_numbers, title)
    zoom = _zoom(picture, scale)
    if zoom is not None:
        img = _with_close_up(img, picture, zoom, scale, hex_numbers)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _with_close_up(
    overview: Image.Image, picture: MapPicture, zoom: Zoom, scale: float, hex_numbers: bool
) -> Image.Image:
    """The overview with the close-up's window outlined, and the close-up under it."""
    h = overview.height
    out = Image.new("RGB", image_size(picture, scale), BACKGROUND)
    out.paste(overview, (0, 0))
    draw = ImageDraw.Draw(out)
    draw.rectangle(zoom.pixels(scale), outline=TEXT, width=max(1, round(2 * scale)))
    head = round(ZOOM_HEAD * scale)
    draw.text(
        (MARGIN, h + head / 2), "Close-up", fill=TEXT, font=_font(round(14 * scale)), anchor="lm"
    )
    window = zoom.pixels(zoom.scale)
    close = _draw(picture, zoom.scale, hex_numbers, "", window=window).crop(window)
    out.paste(close, (MARGIN, h + head))
    x0, y0 = MARGIN, h + head
    draw.rectangle((x0, y0, x0 + close.width - 1, y0 + close.height - 1), outline=TEXT, width=1)
    return out


def _text_size(scale: float, size: float) -> int:
    """Text grows slower than the map: a close-up's labels stay labels."""
    return max(round(size), round(size * math.sqrt(scale)))


def _draw(
    picture: MapPicture,
    scale: float,
    hex_numbers: bool,
    title: str,
    window: tuple[int, int, int, int] | None = None,
) -> Image.Image:
    """The map at ``scale``; with a ``window`` (the close-up's), labels keep
    inside it and the key is left out."""
    w, h = _overview_size(picture, scale)
    img = Image.new("RGB", (w, h), BACKGROUND)
    draw = ImageDraw.Draw(img)
    r = RADIUS * scale
    small = _font(_text_size(scale, 8) if scale >= 1 else max(7, round(8 * scale)))
    label = _font(_text_size(scale, 9) if scale >= 1 else max(8, round(9 * scale)))
    centres = {x.key: x.centre for x in picture.hexes}

    def at(key: int) -> Point:
        return hex_pixel(centres[key], scale)

    def side(a: int, b: int) -> tuple[Point, Point]:
        cs = _corners(*at(a), r)
        i, j = _SIDE_CORNERS[_facing(centres[a], centres[b])]
        return cs[i], cs[j]

    # Hex fills.
    for x in picture.hexes:
        px, py = at(x.key)
        cs = _corners(px, py, r)
        if x.ground is Ground.SEA or x.ground is Ground.ISLET:
            draw.polygon(cs, fill=SEA, outline=SEA_LINE)
            if x.ground is Ground.ISLET:
                dot = r * 0.32
                draw.ellipse((px - dot, py - dot, px + dot, py + dot), fill=ISLET)
        else:
            draw.polygon(cs, fill=SWATCHES[x.ground], outline=LAND_LINE)

    for hs in picture.hexsides:
        seg = side(hs.a, hs.b)
        if hs.edge is Edge.MOUNTAIN:
            _mountain(draw, seg, scale)
        elif hs.edge is Edge.STRAIT:
            draw.line(seg, fill=STRAIT, width=max(1, round(2 * scale)))
        else:
            draw.line(seg, fill=BORDER, width=1)

    # Where two lines share a hexside their dashes alternate.
    for phase, line in enumerate(picture.lines):
        for a, b in line.hexsides:
            _dashed(draw, side(a, b), line.colour, scale, phase % 2)

    for key in picture.highlight:
        px, py = at(key)
        draw.polygon(_corners(px, py, r * 0.92), outline=HIGHLIGHT, width=max(2, round(2 * scale)))

    # Bases: a ring for a naval base, a square for an air base (with its capacity).
    taken: list[Box] = []  # what a label may not cover
    for base in picture.bases:
        px, py = at(base.key)
        taken.append(_grow((px, py, px, py), r * 0.55))  # no label over a base's mark
        if base.naval:
            k = r * 0.55
            draw.ellipse(
                (px - k, py - k, px + k, py + k),
                outline=base.colour,
                width=max(2, round(2 * scale)),
            )
        if base.air_capacity:
            k = r * 0.3
            draw.rectangle((px - k, py - k, px + k, py + k), fill=base.colour)
            spot = (px, py + r * 0.62)
            text = str(base.air_capacity)
            draw.text(
                spot, text, fill=TEXT, font=small, anchor="mt", stroke_width=1, stroke_fill=HALO
            )
            taken.append(draw.textbbox(spot, text, font=small, anchor="mt", stroke_width=1))

    bounds: Box = window or (0, 0, w, h)
    squares = _marker_squares(picture.markers, at, r)
    taken += [_grow(sq, 1) for _, sq in squares]
    for marker, (x0, y0, x1, y1) in squares:
        draw.rectangle((x0, y0, x1, y1), fill=marker.colour, outline=HALO)
        if marker.count > 1:
            draw.text(
                ((x0 + x1) / 2, (y0 + y1) / 2),
                str(marker.count),
                fill=HALO,
                font=small,
                anchor="mm",
            )
    if scale >= ZOOM_MIN:  # room for each stack's top unit beside its square
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
            _place(draw, marker.label, spots, small, taken, bounds)
    based = {b.key for b in picture.bases}
    for x in sorted(
        (x for x in picture.hexes if x.name), key=lambda x: (x.key not in based, x.key)
    ):
        px, py = at(x.key)
        names_at = tuple(((px + dx * r, py + dy * r), anchor) for dx, dy, anchor in _NAME_SPOTS)
        _place(draw, x.name or "", names_at, label, taken, bounds)

    if hex_numbers:
        tiny = _font(max(6, round(6 * scale)))
        for x in picture.hexes:
            px, py = at(x.key)
            draw.text((px, py + r * 0.55), x.number, fill=(0, 0, 0), font=tiny, anchor="mb")

    for box in picture.boxes:
        _box(draw, box, [at(key) for key in box.beside], scale, small)
    if title:
        draw.text((MARGIN, MARGIN * 0.5), title, fill=TEXT, font=_font(round(16 * scale)))
    if window is None:
        _legend(draw, _key(picture), scale, small, h)
    return img


Box = tuple[float, float, float, float]


def _grow(box: Box, by: float) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _marker_squares(
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
_NAME_SPOTS = (
    (0.7, -0.45, "ls"),
    (0.7, 0.45, "lt"),
    (-0.7, -0.45, "rs"),
    (-0.7, 0.45, "rt"),
    (0.0, -0.9, "ms"),
    (0.0, 0.9, "mt"),
    (0.7, 0.0, "lm"),
    (-0.7, 0.0, "rm"),
)


def _place(
    draw: ImageDraw.ImageDraw,
    text: str,
    spots: tuple[tuple[Point, str], ...],
    font: Font,
    taken: list[Box],
    bounds: Box,
) -> None:
    """``text`` at the first of its ``spots`` (point, anchor) where it covers nothing
    ``taken`` and stays inside the picture; none free: left out (the close-up has
    room for it), so no two labels ever overlap."""
    for spot, anchor in spots:
        box = _grow(draw.textbbox(spot, text, font=font, anchor=anchor, stroke_width=1), 1)
        inside = (
            box[0] >= bounds[0]
            and box[1] >= bounds[1]
            and box[2] <= bounds[2]
            and box[3] <= bounds[3]
        )
        if inside and not any(_overlaps(box, t) for t in taken):
            taken.append(box)
            draw.text(
                spot, text, fill=TEXT, font=font, anchor=anchor, stroke_width=1, stroke_fill=HALO
            )
            return


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
    font: Font,
    h: int,
) -> None:
    """The key, in a row under the map."""
    x = float(MARGIN)
    y = h - MARGIN * 0.5 - LEGEND_H * scale
    for entry in legend:
        colour = SWATCHES[entry.swatch] if isinstance(entry.swatch, Ground) else entry.swatch
        draw.rectangle((x, y, x + 9 * scale, y + 9 * scale), fill=colour, outline=TEXT)
        draw.text((x + 12 * scale, y), entry.label, fill=TEXT, font=font)
        x = draw.textbbox((x + 12 * scale, y), entry.label, font=font)[2] + 12 * scale
