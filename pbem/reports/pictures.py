"""The picture attached to each report: drawn from the audience's view only.

Like the text, the picture is made from the view alone (a ruleset's map
description is made from the view too), so it can show no more than the view
does. PNGs are written without metadata (no text chunks, no
time), so identical views give identical bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from pbem.core.mapview import MapPicture
from pbem.reports.mapimage import render_map

# A report's map fits a mail client's reading pane (about 800 pixels wide), so
# it is read as drawn, not shrunk; its close-up is drawn at 2x or 3x that.
REPORT_SCALE = 0.75

SIDE_RGB = {"north": (30, 60, 200), "south": (200, 30, 30)}


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType
        return ImageFont.load_default()


def demo_picture(view: Mapping[str, Any], title: str) -> bytes:
    """Raid: the three zones, each with the strengths fought there and the winner."""
    w, h = 480, 220
    img = Image.new("RGB", (w, h), (235, 232, 220))
    d = ImageDraw.Draw(img)
    d.text((12, 8), title, fill=(20, 20, 20), font=_font(14))
    fought = {
        e["data"]["zone"]: e["data"]
        for e in view.get("events", [])
        if e.get("kind") == "zone-fought"
    }
    for i, zone in enumerate(("A", "B", "C")):
        x0 = 12 + i * 156
        data = fought.get(zone)
        winner = data.get("winner") if data else None
        outline = SIDE_RGB.get(str(winner), (90, 90, 90))
        d.rectangle((x0, 40, x0 + 144, 200), outline=outline, width=4 if data else 1)
        d.text((x0 + 8, 46), f"zone {zone}", fill=(20, 20, 20), font=_font(16))
        if data:
            y = 80
            for side in sorted(data["totals"]):
                text = f"{side}: {data['strength'][side][zone]}+{data['rolls'][side]}"
                d.text((x0 + 8, y), text, fill=SIDE_RGB.get(side, (0, 0, 0)), font=_font(13))
                y += 24
            d.text(
                (x0 + 8, y + 8), f"won by {winner or 'nobody'}", fill=(20, 20, 20), font=_font(12)
            )
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


# Rulesets without a map description whose picture is drawn from the view itself.
VIEW_PICTURES = {"demo": demo_picture}


def picture(
    ruleset: str, view: Mapping[str, Any], title: str, map_picture: MapPicture | None
) -> bytes | None:
    """The report's picture: the ruleset's map description drawn, else the
    ruleset's own view picture, else none."""
    if map_picture is not None:
        return render_map(map_picture, title=title, scale=REPORT_SCALE)
    draw = VIEW_PICTURES.get(ruleset)
    return None if draw is None else draw(view, title)
