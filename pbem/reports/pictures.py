"""The map picture attached to each report: drawn from the audience's view only.

Like the text, the picture is made from the view alone, so it can show no more
than the view does. PNGs are written without metadata (no text chunks, no
time), so identical views give identical bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw, ImageFont

LAST_KNOWN = "last-known"  # drawn grey: a sighting, not a present position
SIDE_RGB = {"north": (30, 60, 200), "south": (200, 30, 30)}


def _hex4(text: Any) -> int | None:
    s = str(text)
    return int(s) if len(s) == 4 and s.isdigit() else None


def usn_units(view: Mapping[str, Any]) -> dict[int, list[tuple[str, str]]]:
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


def usn_picture(view: Mapping[str, Any], title: str) -> bytes:
    from pbem.reports.mapimage import render_map
    from pbem.rulesets.usn.hexgrid import HexId
    from pbem.rulesets.usn.loader import load_map

    units = {HexId(h): stack for h, stack in usn_units(view).items()}
    return render_map(
        load_map(),
        units=units,
        highlight=[HexId(h) for h in combat_hexes(view)],
        title=title,
    )


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


PICTURES = {"demo": demo_picture, "usn": usn_picture}


def picture(ruleset: str, view: Mapping[str, Any], title: str) -> bytes | None:
    draw = PICTURES.get(ruleset)
    return None if draw is None else draw(view, title)
