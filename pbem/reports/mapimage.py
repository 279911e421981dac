"""Map pictures with Pillow: the U.S.N. map, its bases and names, optionally units.

The same renderer draws the moderator's map (``pbem map usn``) and, later, each
side's report map (pass only the units that side may see). Output is a PNG
without metadata, so the same inputs always give the same bytes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Mapping, Sequence

from PIL import Image, ImageDraw, ImageFont

from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.hexgrid import HexId
from pbem.rulesets.usn.map import HexsideKind, Terrain, UsnMap, centre

RADIUS = 13.0  # pixels from hex centre to corner at scale 1
MARGIN = 24
TITLE_H = 28
BOX_W = 86  # the off-map box column east of the map

SEA = (58, 110, 165)
SEA_LINE = (78, 130, 185)
CLASS2 = (118, 160, 88)
CLASS1 = (196, 214, 120)  # islet dot on a sea hex
DESERT = (214, 184, 128)
LAND_LINE = (88, 124, 64)
BORDER = (70, 50, 40)
STRAIT = (150, 200, 235)
MOUNTAIN = (120, 72, 30)
TEXT = (20, 20, 20)
HALO = (255, 255, 255)
HIGHLIGHT = (255, 220, 0)
SIDE_COLOURS = {"japanese": (200, 30, 30), "allied": (30, 60, 200), None: (110, 110, 110)}
START_LINE_COLOURS = {"game1": (230, 40, 40), "game2": (250, 150, 0)}
BACKGROUND = (235, 232, 220)

# Regions whose borders between land hexes are drawn (countries and island groups).
_COUNTRY_REGIONS = frozenset(
    {
        "china", "india", "burma", "thailand", "malaya", "indo-china", "korea",
        "soviet-union", "hong-kong", "australia", "new-guinea", "borneo", "philippines",
        "japanese-home-islands",
    }
)  # fmt: skip


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow built without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def image_size(scale: float = 1.0) -> tuple[int, int]:
    """Pixel size of the picture ``render_map`` makes at ``scale``."""
    r = RADIUS * scale
    w = 2 * MARGIN + r * (1.5 * (hexgrid.COLUMNS - 1) + 2) + BOX_W * scale
    h = 2 * MARGIN + TITLE_H * scale + r * math.sqrt(3) * 34.5
    return int(w), int(h)


def hex_pixel(h: int, scale: float = 1.0) -> tuple[float, float]:
    """Pixel centre of hex ``h`` in a picture made at ``scale``."""
    r = RADIUS * scale
    x, y = centre(h)
    return MARGIN + r + x * r, MARGIN + TITLE_H * scale + r * math.sqrt(3) / 2 + y * r


def _corners(px: float, py: float, r: float) -> list[tuple[float, float]]:
    return [
        (px + r * math.cos(math.radians(a)), py + r * math.sin(math.radians(a)))
        for a in range(0, 360, 60)
    ]


# Corner indices (from _corners) bounding each side, in hexgrid direction order
# N, NE, SE, S, SW, NW (y grows downward).
_SIDE_CORNERS = ((4, 5), (5, 0), (0, 1), (1, 2), (2, 3), (3, 4))


def _side_segment(a: int, b: int, scale: float) -> tuple[tuple[float, float], tuple[float, float]]:
    d = _direction(a, b)
    px, py = hex_pixel(a, scale)
    cs = _corners(px, py, RADIUS * scale)
    i, j = _SIDE_CORNERS[d]
    return cs[i], cs[j]


def _direction(a: int, b: int) -> int:
    c, r = hexgrid.col_row(a)
    offsets = hexgrid._ODD if c % 2 else hexgrid._EVEN
    cb, rb = hexgrid.col_row(b)
    return offsets.index((cb - c, rb - r))


def render_map(
    m: UsnMap,
    *,
    units: Mapping[HexId, Sequence[tuple[str, str]]] | None = None,
    highlight: Iterable[HexId] = (),
    title: str = "",
    scale: float = 1.0,
    start: str = "game1",
    start_lines: Iterable[str] = ("game1", "game2"),
    hex_numbers: bool = False,
) -> bytes:
    """Draw the map as PNG bytes.

    ``units`` maps a hex to (side, label) pairs; ``highlight`` outlines hexes;
    base owners are coloured as at ``start``; ``start_lines`` picks the lines to
    draw; ``hex_numbers`` prints every hex number (for checking the data).
    """
    w, h = image_size(scale)
    img = Image.new("RGB", (w, h), BACKGROUND)
    draw = ImageDraw.Draw(img)
    r = RADIUS * scale
    small = _font(max(7, round(8 * scale)))
    label = _font(max(8, round(9 * scale)))

    # Hex fills.
    for hx, info in m.hexes.items():
        px, py = hex_pixel(hx, scale)
        cs = _corners(px, py, r)
        if info.terrain is Terrain.SEA or info.terrain is Terrain.CLASS1:
            draw.polygon(cs, fill=SEA, outline=SEA_LINE)
            if info.terrain is Terrain.CLASS1:
                dot = r * 0.32
                draw.ellipse((px - dot, py - dot, px + dot, py + dot), fill=CLASS1)
        else:
            fill = DESERT if info.terrain is Terrain.DESERT else CLASS2
            draw.polygon(cs, fill=fill, outline=LAND_LINE)

    # Hexsides: straits between land hexes, country borders, mountains.
    for (a, b), side in m.hexsides.items():
        land_a, land_b = m.is_land(a), m.is_land(b)
        seg = _side_segment(a, b, scale)
        if side.mountain:
            _mountain(draw, seg, scale)
            continue
        if land_a and land_b and side.kind is HexsideKind.SEA:
            draw.line(seg, fill=STRAIT, width=max(1, round(2 * scale)))
        elif land_a and land_b:
            ra = m.hexes[a].regions & _COUNTRY_REGIONS
            rb = m.hexes[b].regions & _COUNTRY_REGIONS
            if ra != rb:
                draw.line(seg, fill=BORDER, width=1)

    # Where the two lines share a hexside their dashes alternate.
    for phase, key in enumerate(start_lines):
        line = m.start_lines.get(key)
        if line is None:
            continue
        for a, b in line.hexsides():
            _dashed(draw, _side_segment(a, b, scale), START_LINE_COLOURS[key], scale, phase % 2)

    for hx in highlight:
        px, py = hex_pixel(hx, scale)
        draw.polygon(_corners(px, py, r * 0.92), outline=HIGHLIGHT, width=max(2, round(2 * scale)))

    # Bases: a square for an air base (with its capacity), a ring for a naval base.
    for hx, base in m.bases.items():
        px, py = hex_pixel(hx, scale)
        colour = SIDE_COLOURS[base.owner_at(start)]
        if base.naval:
            k = r * 0.55
            draw.ellipse(
                (px - k, py - k, px + k, py + k), outline=colour, width=max(2, round(2 * scale))
            )
        if base.air_capacity:
            k = r * 0.3
            draw.rectangle((px - k, py - k, px + k, py + k), fill=colour)
            draw.text(
                (px, py + r * 0.62),
                str(base.air_capacity),
                fill=TEXT,
                font=small,
                anchor="mt",
                stroke_width=1,
                stroke_fill=HALO,
            )

    # Names.
    for hx, info in m.hexes.items():
        if info.name and (hx in m.bases or info.terrain is not Terrain.SEA):
            px, py = hex_pixel(hx, scale)
            draw.text(
                (px + r * 0.7, py - r * 0.45),
                info.name,
                fill=TEXT,
                font=label,
                anchor="ls",
                stroke_width=1,
                stroke_fill=HALO,
            )

    if units:
        for hx, stack in sorted(units.items()):
            if not stack:
                continue
            px, py = hex_pixel(hx, scale)
            owner, text = stack[0]
            colour = SIDE_COLOURS.get(owner, SIDE_COLOURS[None])
            more = f"+{len(stack) - 1}" if len(stack) > 1 else ""
            k = r * 0.5
            draw.rectangle((px - k, py - k, px + k, py + k), fill=colour, outline=HALO)
            draw.text((px, py), (text + more)[:6], fill=HALO, font=small, anchor="mm")

    if hex_numbers:
        tiny = _font(max(6, round(6 * scale)))
        for hx in m.hexes:
            px, py = hex_pixel(hx, scale)
            draw.text((px, py + r * 0.55), f"{hx:04d}", fill=(0, 0, 0), font=tiny, anchor="mb")

    _offmap_boxes(draw, m, scale, small)
    if title:
        draw.text((MARGIN, MARGIN * 0.5), title, fill=TEXT, font=_font(round(16 * scale)))
    _legend(draw, scale, small, w, h)

    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _mountain(
    draw: ImageDraw.ImageDraw, seg: tuple[tuple[float, float], ...], scale: float
) -> None:
    (x1, y1), (x2, y2) = seg
    draw.line(seg, fill=MOUNTAIN, width=max(2, round(3 * scale)))
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    k = 3 * scale
    draw.polygon([(mx - k, my + k), (mx + k, my + k), (mx, my - k)], fill=MOUNTAIN)


def _dashed(
    draw: ImageDraw.ImageDraw,
    seg: tuple[tuple[float, float], ...],
    colour: tuple[int, int, int],
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


def _offmap_boxes(
    draw: ImageDraw.ImageDraw,
    m: UsnMap,
    scale: float,
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont,
) -> None:
    """OFF.BOX: each box beside the east-edge hexes it serves."""
    r = RADIUS * scale
    for box in sorted(m.offmap_boxes.values(), key=lambda b: b.id):
        if not box.entry_hexes:
            continue
        ys = [hex_pixel(h, scale)[1] for h in box.entry_hexes]
        x0 = max(hex_pixel(h, scale)[0] for h in box.entry_hexes) + r * 1.3
        draw.rectangle(
            (x0, min(ys) - r * 0.6, x0 + BOX_W * scale * 0.8, max(ys) + r * 0.6),
            outline=TEXT,
            width=1,
        )
        phases = "phase" if box.distance_turns == 1 else "phases"
        draw.text(
            (x0 + 4 * scale, (min(ys) + max(ys)) / 2),
            f"{box.distance_turns}\n{box.name}\n{box.distance_turns} {phases} to\nU.S. West Coast",
            fill=TEXT,
            font=font,
            anchor="lm",
        )


def _legend(
    draw: ImageDraw.ImageDraw,
    scale: float,
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont,
    w: int,
    h: int,
) -> None:
    x = w - MARGIN - 330 * scale
    y = MARGIN * 0.5
    items = [
        ("sea", SEA), ("Class 2", CLASS2), ("Class 1", CLASS1), ("desert", DESERT),
        ("Start Line 1", START_LINE_COLOURS["game1"]), ("Start Line 2", START_LINE_COLOURS["game2"]),
    ]  # fmt: skip
    for text, colour in items:
        draw.rectangle((x, y, x + 9 * scale, y + 9 * scale), fill=colour)
        draw.text((x + 12 * scale, y), text, fill=TEXT, font=font)
        x += 55 * scale
