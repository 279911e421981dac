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

from PIL import Image, ImageDraw, ImageFont

from pbem.core.mapview import Colour, Edge, Ground, LegendEntry, MapBox, MapPicture

RADIUS = 13.0  # pixels from hex centre to corner at scale 1
MARGIN = 24
TITLE_H = 28
BOX_W = 86  # the off-map box column east of the map

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
    r = RADIUS * scale
    w = 2 * MARGIN + r * (1.5 * (picture.columns - 1) + 2) + BOX_W * scale
    h = 2 * MARGIN + TITLE_H * scale + r * math.sqrt(3) * picture.rows
    return int(w), int(h)


def hex_pixel(centre: Point, scale: float = 1.0) -> Point:
    """Pixel position of a point given in grid units (a hex centre), at ``scale``."""
    r = RADIUS * scale
    x, y = centre
    return MARGIN + r + x * r, MARGIN + TITLE_H * scale + r * math.sqrt(3) / 2 + y * r


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
    """Draw the picture as PNG bytes; ``hex_numbers`` prints every hex number
    (for checking the data)."""
    w, h = image_size(picture, scale)
    img = Image.new("RGB", (w, h), BACKGROUND)
    draw = ImageDraw.Draw(img)
    r = RADIUS * scale
    small = _font(max(7, round(8 * scale)))
    label = _font(max(8, round(9 * scale)))
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
    for base in picture.bases:
        px, py = at(base.key)
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
            draw.text(
                (px, py + r * 0.62),
                str(base.air_capacity),
                fill=TEXT,
                font=small,
                anchor="mt",
                stroke_width=1,
                stroke_fill=HALO,
            )

    for x in picture.hexes:
        if x.name:
            px, py = at(x.key)
            draw.text(
                (px + r * 0.7, py - r * 0.45),
                x.name,
                fill=TEXT,
                font=label,
                anchor="ls",
                stroke_width=1,
                stroke_fill=HALO,
            )

    for marker in picture.markers:
        px, py = at(marker.key)
        k = r * 0.5
        draw.rectangle((px - k, py - k, px + k, py + k), fill=marker.colour, outline=HALO)
        draw.text((px, py), marker.label[:6], fill=HALO, font=small, anchor="mm")

    if hex_numbers:
        tiny = _font(max(6, round(6 * scale)))
        for x in picture.hexes:
            px, py = at(x.key)
            draw.text((px, py + r * 0.55), x.number, fill=(0, 0, 0), font=tiny, anchor="mb")

    for box in picture.boxes:
        _box(draw, box, [at(key) for key in box.beside], scale, small)
    if title:
        draw.text((MARGIN, MARGIN * 0.5), title, fill=TEXT, font=_font(round(16 * scale)))
    _legend(draw, picture.legend, scale, small, w)

    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


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
    w: int,
) -> None:
    x = w - MARGIN - 330 * scale
    y = MARGIN * 0.5
    for entry in legend:
        colour = SWATCHES[entry.swatch] if isinstance(entry.swatch, Ground) else entry.swatch
        draw.rectangle((x, y, x + 9 * scale, y + 9 * scale), fill=colour)
        draw.text((x + 12 * scale, y), entry.label, fill=TEXT, font=font)
        x += 55 * scale
