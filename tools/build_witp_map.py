#!/usr/bin/env python3
"""Rebuild scenarios/witp/map.json (War in the Pacific, Map Section E) from real geography.

The printed War in the Pacific map is not available; its hex numbering is
(2.1.1, read in pbem/rulesets/witp/hexgrid.py), and the rulebook prints enough
hex numbers of Map Section E (Adelaide E0145 ... Kwajalein E3301, Guadalcanal
E2418/2519/2619) to fit real geography onto it.  The fit comes out a plain
Mercator projection, about 1.05 Mercator degrees per hexrow: 63 nm a hex at
the equator, 60 at 18 degrees, 50 at 38 (2.1.4's 60/50/40 nm Movement Areas).

This script puts real coastlines on that grid and writes the terrain, the
hexsides, the islands, the regions and the Movement Areas.  Everything it
writes is ``reconstructed`` (geography) or ``derived`` (Movement Areas, by
59.1.2's Tropic of Capricorn), never the printed map.  Rulebook facts, places
and bases live in the hand-edited scenarios/witp/map-overrides.toml, which the
game loads on top of map.json; this script reads it for the anchors, the named
places and the hexes the rulebook says are land.

Build-time only, offline; the game never loads a land mask.  To rerun:

    pip install global-land-mask==1.0.0 numpy scipy pillow
    python tools/build_witp_map.py            # writes pbem/scenarios/witp/map.json
    python tools/build_witp_map.py --report   # also prints the fit and the checks

Per hex (docs/witp-map.md): "." sea (no land worth a hex), "c" coastal (land
and water), "l" land (no water in it or on its sides), "i" island (a hex
holding most of one small island: 49.4's "1-hex islands"), "a" atoll (a named
atoll or coral cay; 4.3's airfield limit).  Hexsides: "s" all sea, "p" partly
sea, "l" all land (17.13.7: ships never cross it).
"""

from __future__ import annotations

import argparse
import math
import sys
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from build_usn_map import (  # noqa: E402
    CELL_DEG,
    HEX_AREA,
    SIDE_BAND,
    GeoFit,
    LandCells,
    _compact,
    grid_to_colrow,
    load_land,
    side_direction,
)

from pbem.rulesets.witp import hexgrid  # noqa: E402

OUT = ROOT / "pbem" / "scenarios" / "witp" / "map.json"
OVERRIDES = ROOT / "pbem" / "scenarios" / "witp" / "map-overrides.toml"

SECTION = "E"
# 45 columns x 50 hexrows: the fitted hex pitch (about 0.554" a hex) fills the
# 22" x 28" sheet of 2.1.2 with this many; the rulebook's highest numbers on
# Map E are column 34 (E3430) and hexrow 48 (E0848).  Reconstructed.
COLUMNS, ROWS = 45, 50
WINDOW = (-46.0, 13.0, 134.0, 183.0)  # lat min, lat max, lon min, lon max (east)

WARP_STEP = 1.0  # degrees between samples of the fit's warp (map.json "fit.warp")
TROPIC_OF_CAPRICORN = -23.44
LAND_SHARE = 0.06  # a continent's or big island's share that makes a hex land
ISLET_KM2 = 2.0  # a small island this big makes a hex land
SMALL_ISLAND_KM2 = 2500.0  # an island up to this size may be a 1-hex "island" hex
ISLAND_SHARE = 0.6  # ... when the hex holds this much of it
ISLAND_PIECE_KM2 = 20.0  # land of a named island that puts the island in a hex

# Islands named on the map: a point on each (lat, lon east).  Hexes take the
# name of the named landmass with most land in them.
ISLANDS: dict[str, tuple[float, float]] = {
    "Australia": (-25.0, 135.0),
    "New Guinea": (-6.0, 144.0),
    "New Britain": (-5.6, 150.5),
    "New Ireland": (-3.3, 151.9),
    "Manus": (-2.07, 147.0),
    "Bougainville": (-6.2, 155.3),
    "Buka": (-5.25, 154.6),
    "Choiseul": (-7.0, 156.9),
    "Vella Lavella": (-7.75, 156.65),
    "New Georgia": (-8.3, 157.5),
    "Santa Isabel": (-8.1, 159.3),
    "Guadalcanal": (-9.62, 160.15),
    "Florida Islands": (-9.05, 160.2),
    "Malaita": (-9.0, 161.0),
    "San Cristobal": (-10.6, 161.8),
    "Rennell": (-11.65, 160.2),
    "Goodenough": (-9.35, 150.3),
    "Fergusson": (-9.5, 150.7),
    "Normanby": (-10.0, 151.0),
    "Woodlark": (-9.1, 152.8),
    "Kiriwina": (-8.5, 151.08),
    "Misima": (-10.65, 152.8),
    "Tagula": (-11.5, 153.5),
    "Rossel": (-11.35, 154.12),
    "New Caledonia": (-21.5, 165.5),
    "Lifou": (-20.92, 167.24),
    "Mare": (-21.5, 168.0),
    "Ouvea": (-20.6, 166.55),
    "Isle of Pines": (-22.6, 167.45),
    "Espiritu Santo": (-15.4, 166.9),
    "Malekula": (-16.2, 167.5),
    "Efate": (-17.65, 168.4),
    "Erromango": (-18.8, 169.1),
    "Tanna": (-19.5, 169.3),
    "Ndeni": (-10.7, 165.9),
    "Vanikoro": (-11.65, 166.9),
    "Truk": (7.42, 151.78),
    "Ponape": (6.9, 158.2),
    "Kusaie": (5.33, 163.0),
    "Nauru": (-0.53, 166.93),
    "Ocean Island": (-0.86, 169.54),
    "Lord Howe": (-31.55, 159.08),
    "Norfolk": (-29.04, 167.95),
    "New Zealand": (-38.0, 176.0),
    "Fiji": (-17.8, 178.0),
}

# Regions of the map, by island (rulebook groups where the text gives them;
# otherwise reconstructed).  New Guinea is split by hex centre (below).
ISLAND_REGIONS: dict[str, str] = {
    "Australia": "australia",
    "New Britain": "bismarcks",
    "New Ireland": "bismarcks",
    "Manus": "bismarcks",
    "Bougainville": "solomon-islands",
    "Buka": "solomon-islands",
    "Choiseul": "solomon-islands",
    "Vella Lavella": "solomon-islands",
    "New Georgia": "solomon-islands",
    "Santa Isabel": "solomon-islands",
    "Guadalcanal": "solomon-islands",
    "Florida Islands": "solomon-islands",
    "Malaita": "solomon-islands",
    "San Cristobal": "solomon-islands",
    "Rennell": "solomon-islands",
    "Goodenough": "papua",
    "Fergusson": "papua",
    "Normanby": "papua",
    "Woodlark": "papua",
    "Kiriwina": "papua",
    "Misima": "papua",
    "Tagula": "papua",
    "Rossel": "papua",
    "New Caledonia": "new-caledonia",
    "Lifou": "new-caledonia",
    "Mare": "new-caledonia",
    "Ouvea": "new-caledonia",
    "Isle of Pines": "new-caledonia",
    "Espiritu Santo": "new-hebrides",
    "Malekula": "new-hebrides",
    "Efate": "new-hebrides",
    "Erromango": "new-hebrides",
    "Tanna": "new-hebrides",
    "Ndeni": "santa-cruz-islands",
    "Vanikoro": "santa-cruz-islands",
    "Truk": "carolines",
    "Ponape": "carolines",
    "Kusaie": "carolines",
    "New Zealand": "new-zealand",
    "Fiji": "fiji",
}


SOLOMONS_ISLANDS = {"New Britain", "New Ireland", "Bougainville", "Buka"}
SOLOMONS_HEXES = (
    *("E2116", "E2117", "E2217", "E2317", "E2318", "E2417", "E2518"),
    *("E2418", "E2519", "E2617", "E2618", "E2619", "E2720"),
)
REGION_SOURCES = {
    "solomons": {
        "src": "rulebook",
        "why": "44.7: New Britain, New Ireland, Bougainville and thirteen listed hexes",
    },
}


def load_overrides() -> dict[str, Any]:
    with OVERRIDES.open("rb") as f:
        return tomllib.load(f)


def grid_centre(h: str) -> tuple[float, float]:
    return hexgrid.centre(h)


def all_hexes() -> list[str]:
    return [
        hexgrid.hex_id(SECTION, c, r) for c in range(1, COLUMNS + 1) for r in range(1, ROWS + 1)
    ]


def hex_index(col: np.ndarray, row: np.ndarray) -> np.ndarray:
    """0-based hex index column-major (c-1)*ROWS + (r-1); -1 off the section."""
    ok = (col >= 1) & (col <= COLUMNS) & (row >= 1) & (row <= ROWS)
    return np.where(ok, (col - 1) * ROWS + (row - 1), -1)


def to_index(xy: np.ndarray) -> np.ndarray:
    c0, r0 = grid_to_colrow(xy[:, 0], xy[:, 1])
    return hex_index(c0 + 1, r0 + 1)


def lat_of(fit: GeoFit, x: float, y: float) -> tuple[float, float]:
    """(lat, lon) of a grid point by the affine part of the fit (enough for areas)."""
    a = fit.coef[:2, :].T  # grid = a @ (lon, merc) + b
    b = fit.coef[2, :]
    lon, merc = np.linalg.solve(a, np.array([x, y]) - b)
    lat = math.degrees(2 * math.atan(math.exp(math.radians(merc))) - math.pi / 2)
    return lat, float(lon)


def build(report: bool) -> dict[str, Any]:
    over = load_overrides()
    places = over["place"]
    anchors = [p for p in places if p.get("anchor")]
    fit = GeoFit(anchors, centre_of=grid_centre)
    hexes = all_hexes()
    n = len(hexes)

    frac, lats, lons = load_land(WINDOW)
    cells = LandCells(fit, frac, lats, lons)
    xy, land_grid, land_km2 = cells.xy, cells.land_grid, cells.land_km2
    labels, nlab, comp, comp_km2 = cells.labels, cells.nlab, cells.comp, cells.comp_km2
    hx = to_index(xy)
    on = hx >= 0

    comp_name: dict[int, str] = {}
    for name, (la, lo) in ISLANDS.items():
        i = round((lats[0] - la) / CELL_DEG)
        j = round((lo - lons[0]) / CELL_DEG)
        win = labels[max(i - 8, 0) : i + 9, max(j - 8, 0) : j + 9]
        found = np.bincount(win[win > 0].ravel()) if (win > 0).any() else None
        if found is not None:
            comp_name.setdefault(int(found.argmax()), name)

    land_frac = np.bincount(hx[on], weights=land_grid[on], minlength=n) / HEX_AREA
    # Land per (hex, landmass).
    sel = on & (comp > 0)
    pair = hx[sel].astype(np.int64) * (nlab + 1) + comp[sel]
    uniq, inv = np.unique(pair, return_inverse=True)
    sums = np.bincount(inv, weights=land_km2[sel])
    pieces: dict[int, dict[int, float]] = defaultdict(dict)
    for k, s in zip(uniq.tolist(), sums.tolist(), strict=True):
        pieces[k // (nlab + 1)][k % (nlab + 1)] = s

    terrain = np.full(n, ".", dtype="<U1")
    island_of: dict[int, list[str]] = {}
    for h in range(n):
        hp = pieces.get(h, {})
        if not hp:
            continue
        big = sum(s for c, s in hp.items() if comp_km2[c] >= SMALL_ISLAND_KM2)
        small = sum(s for c, s in hp.items() if comp_km2[c] < SMALL_ISLAND_KM2)
        big_share = land_frac[h] * (big / max(big + small, 1e-9))
        if big_share >= LAND_SHARE or small >= ISLET_KM2:
            main = max(hp, key=lambda c: hp[c])
            whole = hp[main] >= ISLAND_SHARE * comp_km2[main]
            terrain[h] = "i" if comp_km2[main] < SMALL_ISLAND_KM2 and whole else "c"
        if terrain[h] != ".":
            # Every named island with a real piece here (13.8.1: an island's hexes).
            for c in sorted(hp, key=lambda c: -hp[c]):
                if c in comp_name and hp[c] >= min(ISLAND_PIECE_KM2, 0.5 * comp_km2[c]):
                    island_of.setdefault(h, []).append(comp_name[c])

    # The rulebook's land hexes and named places are land whatever the mask says.
    forced: list[str] = []
    index = {h: i for i, h in enumerate(hexes)}
    for entry in over.get("land", []):
        for h in entry["hexes"]:
            i = index[h]
            want = "i" if entry.get("kind") == "island" else None
            if terrain[i] == "." or (want and terrain[i] != want):
                forced.append(f"{h}->{want or 'c'} ({entry['src']})")
                terrain[i] = want or "c"
    place_hex: dict[str, str] = {}
    pxy = fit(np.array([p["lon"] for p in places]), np.array([p["lat"] for p in places]))
    pidx = to_index(pxy)
    checks = []
    for p, i in zip(places, pidx.tolist(), strict=True):
        fit_hex = hexes[i] if i >= 0 else None
        h = p.get("hex", fit_hex)
        checks.append({"name": p["name"], "hex": p.get("hex"), "fit_hex": fit_hex})
        if h is None:
            forced.append(f"(dropped {p['name']}: off the section)")
            continue
        place_hex[p["name"]] = h
        j = index[h]
        if p.get("kind") == "atoll":
            terrain[j] = "a"
        elif terrain[j] == ".":
            # A town on a continent's coast is coastal; a speck of its own, an island.
            terrain[j] = "c" if j in island_of or _has_big(pieces.get(j, {}), comp_km2) else "i"
            forced.append(f"{h}->{terrain[j]} ({p['name']})")

    # Hexsides: land share of a thin band along each side.
    centre = np.array([grid_centre(h) for h in hexes])
    dx = xy[on, 0] - centre[hx[on], 0]
    dy = xy[on, 1] - centre[hx[on], 1]
    k, dist = side_direction(dx, dy)
    band = dist < SIDE_BAND
    side_land = np.zeros((n, 6))
    np.add.at(side_land, (hx[on][band], k[band]), land_grid[on][band])

    def nb(i: int, d: int) -> int:
        _, c, r = hexgrid.split(hexes[i])
        dc, dr = (hexgrid._EVEN if c % 2 == 0 else hexgrid._ODD)[d]
        j = hex_index(np.array([c + dc]), np.array([r + dr]))[0]
        return int(j)

    side: dict[tuple[int, int], str] = {}
    for i in range(n):
        for d in range(3):
            j = nb(i, d)
            if j < 0:
                continue
            share = (side_land[i, d] + side_land[j, (d + 3) % 6]) / (2 * SIDE_BAND)
            kind = "s" if share < 0.01 else "l" if share >= 0.9 else "p"
            if "." in (terrain[i], terrain[j]):
                kind = "s" if terrain[i] == terrain[j] else ("p" if kind == "l" else kind)
            side[(i, j)] = kind

    def kind_of(i: int, j: int) -> str:
        return side[(i, j)] if (i, j) in side else side[(j, i)]

    # Inland: land all round and no water along any side.
    for i in range(n):
        if terrain[i] != "c":
            continue
        sides = [kind_of(i, j) for d in range(6) if (j := nb(i, d)) >= 0]
        if all(s == "l" for s in sides):
            terrain[i] = "l"
    # Water not joined to the ocean (lakes) is land: flood from the north-east corner.
    water = {i for i in range(n) if terrain[i] != "l"}
    start = n - ROWS  # column 45, hexrow 01: open Pacific
    reached = {start}
    todo = [start]
    while todo:
        i = todo.pop()
        for d in range(6):
            j = nb(i, d)
            if j >= 0 and j in water and j not in reached and kind_of(i, j) != "l":
                reached.add(j)
                todo.append(j)
    lakes = sorted(water - reached)
    if lakes:
        forced.append(f"{len(lakes)} landlocked hexes (no water way to the sea) -> land")
    for i in lakes:
        terrain[i] = "l"
    # An all-land hex has no water on its sides either.
    for i in range(n):
        if terrain[i] == "l":
            for d in range(6):
                j = nb(i, d)
                if j >= 0:
                    side[(i, j) if (i, j) in side else (j, i)] = "l"

    # Movement Areas (2.1.4): Tropical north of the Tropic of Capricorn (59.1.2
    # makes it the southern temperate zone boundary), Temperate south of it.
    area = []
    for i in range(n):
        la, _ = lat_of(fit, *centre[i])
        area.append("T" if la >= TROPIC_OF_CAPRICORN else "M")

    # Regions.
    regions: dict[str, set[str]] = defaultdict(set)
    for i, names in island_of.items():
        h, name = hexes[i], names[0]
        if name == "New Guinea":
            la, lo = lat_of(fit, *centre[i])
            regions[_new_guinea_part(la, lo)].add(h)
        elif name in ISLAND_REGIONS:
            regions[ISLAND_REGIONS[name]].add(h)
    # 44.7: "The Solomons are composed of the following islands: New Britain, New
    # Ireland, Bougainville, and hexes E2116, ..." (the rulebook's own region).
    solomons = {hexes[i] for i, names in island_of.items() if set(names) & SOLOMONS_ISLANDS}
    regions["solomons"] = solomons | set(SOLOMONS_HEXES)
    islands: dict[str, list[str]] = defaultdict(list)
    for i, names in sorted(island_of.items()):
        for name in names:
            islands[name].append(hexes[i])

    columns_of = [hexes[c * ROWS : (c + 1) * ROWS] for c in range(COLUMNS)]
    terrain_cols = ["".join(terrain[index[h]] for h in col) for col in columns_of]
    tenths_cols = [
        "".join(str(min(9, round(land_frac[index[h]] * 10))) for h in col) for col in columns_of
    ]
    area_cols = ["".join(area[index[h]] for h in col) for col in columns_of]
    side_cols = []
    for col in columns_of:
        chunk = []
        for h in col:
            i = index[h]
            for d in range(3):
                j = nb(i, d)
                chunk.append(kind_of(i, j) if j >= 0 else "-")
        side_cols.append("".join(chunk))

    if report:
        _report(fit, checks, forced, terrain, islands, regions)

    return {
        "format": 1,
        "generated_by": "tools/build_witp_map.py",
        "src": "reconstructed",
        "why": "real geography (GLOBE 1 km land mask via global-land-mask) on a Mercator grid "
        "fitted to the rulebook's numbered places of Map Section E; the printed map is not "
        "available",
        "section": SECTION,
        "columns": COLUMNS,
        "rows": ROWS,
        "legend": {
            "terrain": ". sea, c coastal, l land (no water), i island (one hex), a atoll; "
            "one string per column (01 west), hexrows 01 (north) down",
            "land_tenths": "land share of each hex in tenths (9 = nine tenths or more)",
            "hexsides": "three characters per hex for its N, NE and SE sides: s all sea, "
            "p partly sea, l all land, - off the section",
            "movement_area": "T Tropical (60 nm), M Temperate (50 nm), A Arctic (40 nm)",
        },
        "terrain": terrain_cols,
        "land_tenths": tenths_cols,
        "hexsides": side_cols,
        "movement_area": {
            "src": "derived",
            "why": "2.1.4 Movement Areas; 59.1.2 takes the Tropic of Capricorn as the southern "
            "temperate zone boundary: hexes whose centre lies north of 23.44 S are Tropical",
            "columns": area_cols,
        },
        "islands": {k: v for k, v in sorted(islands.items())},
        "regions": {k: sorted(v) for k, v in sorted(regions.items())},
        "region_sources": REGION_SOURCES,
        "places": sorted(
            ({"name": k, "hex": v} for k, v in place_hex.items()), key=lambda p: p["name"]
        ),
        "fit": {
            "anchors": len(anchors),
            "checks": checks,
            "affine": [[round(v, 6) for v in row] for row in fit.coef.tolist()],
            "warp": _warp_table(fit),
        },
    }


def _warp_table(fit: GeoFit) -> dict[str, Any]:
    """The warp part of the fit sampled every WARP_STEP degrees, so the game can
    put a real position in its hex (TheatreMap.hex_at) without scipy: grid
    displacement (dx, dy) in hundredths of a grid unit, rows north to south."""
    lat_min, lat_max, lon_min, lon_max = WINDOW
    lats = np.arange(lat_max, lat_min - 1e-9, -WARP_STEP)
    lons = np.arange(lon_min, lon_max + 1e-9, WARP_STEP)
    glon, glat = np.meshgrid(lons, lats)
    d = fit(glon.ravel(), glat.ravel()) - fit.affine(glon.ravel(), glat.ravel())
    dx = np.round(d[:, 0] * 100).astype(int).reshape(glat.shape)
    dy = np.round(d[:, 1] * 100).astype(int).reshape(glat.shape)
    return {
        "lat_max": lat_max,
        "lon_min": lon_min,
        "step": WARP_STEP,
        "dx": [" ".join(map(str, row)) for row in dx.tolist()],
        "dy": [" ".join(map(str, row)) for row in dy.tolist()],
    }


def _has_big(hp: dict[int, float], comp_km2: np.ndarray) -> bool:
    return any(comp_km2[c] >= SMALL_ISLAND_KM2 for c in hp)


def _new_guinea_part(lat: float, lon: float) -> str:
    """1942's three territories of New Guinea, by a hex centre: Dutch west of
    141 E; Papua south of the line its border runs to the Huon Gulf coast
    (8 S 147.9 E) from 141 E, 6.9 S; the Territory of New Guinea north of it."""
    if lon < 141.0:
        return "dutch-new-guinea"
    border = -6.9 + (lon - 141.0) * (-8.0 + 6.9) / (147.9 - 141.0)
    return "papua" if lat < border else "north-east-new-guinea"


def _report(
    fit: GeoFit,
    checks: list[dict[str, Any]],
    forced: list[str],
    terrain: np.ndarray,
    islands: dict[str, list[str]],
    regions: dict[str, set[str]],
) -> None:
    print(f"affine coef:\n{fit.coef}")
    res = np.hypot(*fit.affine_residual.T)
    print(f"affine residual (grid units): mean {res.mean():.2f} max {res.max():.2f}")
    for ch in checks:
        flag = "" if ch["hex"] in (None, ch["fit_hex"]) else "   <-- differs"
        print(f"  {ch['name']:<18} {ch['hex'] or '':<6} fit {ch['fit_hex']}{flag}")
    for name in ("Guadalcanal", "Lifou", "Mare", "New Caledonia", "Bougainville"):
        print(f"  island {name}: {islands.get(name)}")
    for name in sorted(regions):
        print(f"  region {name:<22} {len(regions[name])} hexes")
    print("forced:", "; ".join(forced))
    print("terrain counts", {t: int((terrain == t).sum()) for t in ".clia"})
    scale = 1.0 / fit.coef[0, 0] if fit.coef[0, 0] else float("nan")
    merc_per_row = math.sqrt(3.0) / abs(fit.coef[1, 1])
    print(f"lon degrees per grid unit {scale:.3f}; Mercator degrees per hexrow {merc_per_row:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="print the fit and the checks")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    data = build(args.report)
    args.out.write_text(_compact(data) + "\n", encoding="utf-8")
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
