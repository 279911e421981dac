#!/usr/bin/env python3
"""Rebuild scenarios/usn/map.json (U.S.N. terrain) from real geography.

The printed U.S.N. map is lost; its hex numbering is recovered (see
docs/usn-data.md, "Map", and pbem/rulesets/usn/hexgrid.py).  This script puts
real coastlines on that grid and writes the terrain the game uses.  Everything
it writes is marked ``reconstructed``: it is geography, not the printed map.
Rulebook and errata facts (bases, the 0692/0693 mountain hexside, start lines,
deserts, area hexes) live in the hand-edited scenarios/usn/map-overrides.toml,
which the game loads on top of map.json; this script reads that file only for
the named places that anchor the fit.

Build-time only, offline; the game never loads a land mask.  To rerun:

    pip install global-land-mask==1.0.0 numpy scipy pillow
    python tools/build_usn_map.py            # writes scenarios/usn/map.json
    python tools/build_usn_map.py --report   # also prints the fit and suggestions

Method:
1. Mercator (lon 0..360 east, lat) -> grid by an affine map least-squares
   fitted to the rulebook's exactly numbered places, plus a smooth Gaussian
   warp that moves every anchor to its rulebook hex centre.
2. Land from the GLOBE 1 km mask shipped by ``global-land-mask`` (30"),
   averaged to 0.025 degree cells; each land cell is pushed through the map.
3. Per hex: land fraction and connected landmasses (>= 2,000 km2 "big").
   Class 2 if big land covers >= 10 % of the hex, or the hex holds a piece of
   >= 1,000 km2 or >= 25 % of a big island; Class 1 for islets (landmasses
   under 2,000 km2) of at least MIN_CLASS1_KM2 or a named atoll/islet; else
   sea (a sliver of a continent alone does not make an islet).
4. Hexsides: land share of a thin band along each side: all sea / partly sea
   / all land.  A hexside touching a sea hex is never all land.
5. Regions: rough 1941 borders and island groups as lat/lon polygons below
   (reconstructed), each land hex going to the region holding most of its land.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage
from scipy.interpolate import RBFInterpolator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbem.rulesets.usn import hexgrid  # noqa: E402

OUT = ROOT / "pbem" / "scenarios" / "usn" / "map.json"
OVERRIDES = ROOT / "pbem" / "scenarios" / "usn" / "map-overrides.toml"

# Raster window (generous: the map spans roughly these).
LAT_MIN, LAT_MAX = -50.0, 62.0
LON_MIN, LON_MAX = 85.0, 215.0
RAW_PER_DEG = 120  # GLOBE: 30 arc-seconds
BLOCK = 3  # -> 0.025 degree cells
CELL_DEG = BLOCK / RAW_PER_DEG

SQ3 = math.sqrt(3.0)
HEX_AREA = 1.5 * SQ3  # flat-topped hex of circumradius 1
SIDE_BAND = 0.12  # half-width of the band sampled along a hexside (grid units)

BIG_KM2 = 2000.0
CLASS2_BIG_SHARE = 0.10
CLASS2_PIECE_KM2 = 1000.0
CLASS2_ISLAND_SHARE = 0.25
MIN_CLASS1_KM2 = 8.0
WARP_SIGMA = 3.0  # grid units (a hex column is 1.5)
ANCHOR_RADIUS = 0.75  # the inscribed circle of a hex has radius 0.866

# Atolls and islets that must be at least Class 1 (the recovered map's list); real
# coordinates, lon east 0..360.  Their hexes come from the fit.
NAMED_ISLETS: dict[str, tuple[float, float]] = {
    "Kingman Reef": (6.40, 197.60),
    "Enderbury": (-3.13, 188.92),
    "Fanning": (3.86, 200.64),
    "Jarvis": (-0.37, 199.98),
    "Howland": (0.81, 183.38),
    "Baker": (0.19, 183.52),
    "French Frigate Shoals": (23.75, 193.80),
    "Bikini": (11.60, 165.40),
    "Kwajalein": (8.72, 167.73),
    "Roi-Namur": (9.40, 167.47),
    "Majuro": (7.10, 171.20),
    "Jaluit": (5.92, 169.64),
    "Maloelap": (8.70, 171.20),
    "Wotje": (9.45, 170.00),
    "Mili": (6.08, 171.73),
    "Tarawa": (1.35, 172.93),
    "Makin": (3.07, 172.79),
    "Abemama": (0.40, 173.90),
    "Nauru": (-0.53, 166.93),
    "Ocean Island": (-0.86, 169.54),
    "Funafuti": (-8.52, 179.20),
    "Nukufetau": (-8.00, 178.40),
    "Wallis": (-13.28, 183.80),
    "Ponape": (6.90, 158.20),
    "Kusaie": (5.33, 163.00),
    "Peleliu": (7.00, 134.25),
    "Yap": (9.53, 138.12),
    "Ulithi": (10.00, 139.70),
    "Woleai": (7.37, 143.90),
    "Tinian": (15.00, 145.63),
    "Rota": (14.15, 145.20),
    "Pagan": (18.10, 145.76),
    "Iwo Jima": (24.78, 141.32),
    "Chichi Jima": (27.08, 142.20),
    "Marcus": (24.29, 153.98),
    "Apia": (-13.83, 188.24),
    "Bora Bora": (-16.50, 208.26),
    "Rennell": (-11.65, 160.20),
    "Ontong Java": (-5.30, 159.40),
    "Green Island": (-4.50, 154.20),
    "Kapingamarangi": (1.07, 154.78),
    "Nukuoro": (3.85, 154.95),
    "Emirau": (-1.65, 149.98),
    "Port Blair": (11.67, 92.74),
    "Car Nicobar": (9.17, 92.80),
    "Christmas (Indian Ocean)": (-10.49, 105.62),
    "Cocos": (-12.12, 96.87),
    "Lord Howe": (-31.55, 159.08),
    "Norfolk": (-29.04, 167.95),
    "Chatham": (-43.95, 183.45),
    "Attu": (52.90, 173.20),
    "Kiska": (51.98, 177.55),
    "Adak": (51.88, 183.35),
}

# Other real places worth a name on the map (reconstructed positions).
EXTRA_PLACES: dict[str, tuple[float, float]] = {
    "Mandalay": (21.97, 96.08),
    "Darwin": (-12.46, 130.84),
    "Takao": (22.62, 120.30),
    "Tokyo": (35.68, 139.69),
    "Sasebo": (33.16, 129.72),
    "Shanghai": (31.23, 121.47),
    "Batavia": (-6.20, 106.85),
    "Palembang": (-2.99, 104.76),
    "Balikpapan": (-1.27, 116.83),
    "Tarakan": (3.30, 117.63),
    "Kendari": (-3.97, 122.51),
    "Ambon": (-3.70, 128.17),
    "Koepang": (-10.17, 123.58),
    "Menado": (1.47, 124.84),
    "Davao": (7.07, 125.61),
    "Cairns": (-16.92, 145.77),
    "Townsville": (-19.26, 146.82),
    "Melbourne": (-37.81, 144.96),
    "Perth": (-31.95, 115.86),
    "Tulagi": (-9.10, 160.15),
    "Buna": (-8.66, 148.40),
    "Milne Bay": (-10.35, 150.45),
    "Kavieng": (-2.57, 150.80),
    "Wellington": (-41.29, 174.78),
    "Hilo": (19.72, 204.92),
    "Kodiak": (57.79, 207.59),
    "Sanya": (18.25, 109.50),
    "Kiirun": (25.13, 121.74),
    "Mergui": (12.44, 98.60),
    "Chittagong": (22.34, 91.83),
}

# Regions: (key, exclusive?, polygons as [(lon, lat), ...]).  Exclusive regions
# share a hex out by plurality of land; the others overlay (luzon within the
# Philippines).  Rough 1941 borders, hand-traced: reconstructed.
Poly = list[tuple[float, float]]
REGIONS: list[tuple[str, bool, list[Poly]]] = [
    # Listed from lowest to highest priority: later ones are painted on top.
    ("china", True, [[(73, 18), (123, 18), (123, 39), (135, 47), (135, 54), (73, 54)]]),
    (
        "india",
        True,
        [
            [
                (60, 5),
                (92.3, 5),
                (92.3, 21.2),
                (92.7, 22.5),
                (93.3, 24.0),
                (94.6, 25.5),
                (95.2, 26.7),
                (97.0, 28.5),
                (97.0, 35),
                (60, 35),
            ]
        ],
    ),
    (
        "soviet-union",
        True,
        [
            [(128, 42.4), (131, 42.4), (141, 46), (141, 48), (180, 70), (128, 70)],
            [(155, 50), (200, 50), (200, 75), (155, 75)],
        ],
    ),
    (
        "korea",
        True,
        [
            [
                (124, 37.4),
                (126.3, 33.0),
                (128.8, 34.3),
                (129.7, 35.3),
                (129.5, 37.5),
                (130.9, 42.6),
                (128.0, 42.2),
                (124, 40),
            ]
        ],
    ),
    (
        "burma",
        True,
        [
            [
                (92.3, 21.2),
                (92.3, 15),
                (97.4, 9.5),
                (98.7, 10.0),
                (99.2, 12.5),
                (98.4, 14.5),
                (98.6, 16.0),
                (97.7, 17.5),
                (98.0, 19.0),
                (100.1, 20.3),
                (101.1, 21.5),
                (99.5, 22.0),
                (98.8, 23.0),
                (97.5, 24.0),
                (98.7, 25.0),
                (98.7, 27.5),
                (97.0, 28.5),
                (95.2, 26.7),
                (94.6, 25.5),
                (93.3, 24.0),
                (92.7, 22.5),
            ]
        ],
    ),
    (
        "thailand",
        True,
        [
            [
                (97.7, 17.5),
                (98.6, 16.0),
                (98.4, 14.5),
                (99.2, 12.5),
                (98.7, 10.0),
                (98.2, 8.0),
                (99.6, 6.6),
                (101.2, 6.0),
                (102.1, 6.2),
                (101.0, 9.0),
                (102.3, 12.2),
                (102.9, 14.2),
                (105.1, 14.3),
                (105.6, 15.7),
                (104.7, 17.5),
                (102.1, 18.2),
                (101.2, 19.5),
                (100.1, 20.3),
                (98.0, 19.0),
            ]
        ],
    ),
    (
        "malaya",
        True,
        [
            [
                (98.2, 8.0),
                (99.6, 6.6),
                (101.2, 6.0),
                (102.1, 6.2),
                (104.8, 2.0),
                (104.6, 1.15),
                (103.4, 1.15),
                (100.9, 3.0),
                (99.5, 5.5),
            ]
        ],
    ),
    (
        "indo-china",
        True,
        [
            [
                (101.2, 19.5),
                (102.1, 18.2),
                (104.7, 17.5),
                (105.6, 15.7),
                (105.1, 14.3),
                (102.9, 14.2),
                (102.3, 12.2),
                (102.5, 10.0),
                (104.5, 8.0),
                (107.5, 9.5),
                (110, 12),
                (108.5, 16.5),
                (107.2, 20.2),
                (108.1, 21.5),
                (106.7, 22.9),
                (105.5, 23.4),
                (103.0, 22.8),
                (102.0, 22.5),
                (101.1, 21.5),
                (100.1, 20.3),
            ]
        ],
    ),
    ("hainan", True, [[(108.3, 18.0), (111.3, 18.0), (111.3, 20.3), (108.3, 20.3)]]),
    ("hong-kong", True, [[(113.8, 22.15), (114.45, 22.15), (114.45, 22.55), (113.8, 22.55)]]),
    ("formosa", True, [[(119.2, 21.7), (122.4, 21.7), (122.4, 25.5), (119.2, 25.5)]]),
    ("ryukyus", True, [[(122.8, 23.9), (129.9, 23.9), (131.5, 30.0), (127.5, 30.0)]]),
    (
        "japanese-home-islands",
        True,
        [
            [
                (128.3, 30.0),
                (131.5, 30.0),
                (146.5, 38.0),
                (146.5, 45.7),
                (139.2, 45.7),
                (131.3, 37.5),
                (129.7, 34.95),
                (128.3, 33.5),
            ]
        ],
    ),
    ("karafuto", True, [[(141.5, 45.8), (145, 45.8), (145, 50.0), (141.5, 50.0)]]),
    ("kuriles", True, [[(145.5, 43.2), (157.0, 50.9), (158.0, 50.0), (147.0, 43.2)]]),
    ("bonins", True, [[(139.5, 24.0), (143.0, 24.0), (143.0, 28.5), (139.5, 28.5)]]),
    (
        "philippines",
        True,
        [
            [
                (116.5, 8.2),
                (117.2, 7.5),
                (119.5, 5.6),
                (120.8, 4.6),
                (126.9, 4.6),
                (127.0, 21.2),
                (116.5, 21.2),
            ]
        ],
    ),
    (
        "borneo",
        True,
        [
            [
                (108.5, -4.5),
                (116.8, -4.5),
                (117.8, -1.0),
                (119.0, 1.0),
                (119.5, 5.0),
                (119.5, 7.4),
                (116.8, 7.6),
                (108.5, 2.5),
            ]
        ],
    ),
    (
        "sumatra",
        True,
        [
            [
                (94.5, 6.2),
                (98.5, 4.6),
                (101.3, 2.2),
                (104.6, 0.3),
                (106.2, -1.4),
                (106.9, -3.3),
                (106.0, -5.95),
                (104.8, -6.2),
                (101.0, -4.5),
                (94.5, 2.0),
            ]
        ],
    ),
    (
        "java",
        True,
        [
            [
                (104.9, -6.2),
                (106.0, -5.6),
                (115.0, -6.3),
                (115.8, -8.0),
                (115.0, -9.2),
                (105.0, -7.5),
            ]
        ],
    ),
    (
        "lesser-sundas",
        True,
        [[(115.2, -9.5), (115.8, -8.0), (123.3, -7.8), (123.3, -11.2), (115.2, -11.2)]],
    ),
    ("timor", True, [[(123.3, -11.2), (127.6, -9.2), (127.6, -8.0), (123.3, -8.0)]]),
    ("celebes", True, [[(118.7, -6.2), (123.5, -6.2), (125.6, 1.9), (120.4, 1.5), (118.7, -2.5)]]),
    (
        "moluccas",
        True,
        [
            [
                (125.8, -8.0),
                (135.3, -8.0),
                (135.3, -5.5),
                (133.5, -4.3),
                (130.8, -2.3),
                (130.6, 3.2),
                (125.8, 3.2),
            ]
        ],
    ),
    (
        "new-guinea",
        True,
        [
            [
                (130.7, -0.2),
                (134.2, -0.6),
                (138.0, -1.3),
                (141.0, -2.4),
                (144.5, -3.5),
                (146.0, -4.8),
                (147.8, -5.8),
                (148.1, -6.9),
                (150.2, -9.0),
                (151.2, -10.3),
                (150.5, -11.0),
                (147.0, -10.6),
                (143.2, -9.6),
                (141.0, -9.5),
                (138.0, -9.0),
                (136.0, -5.0),
                (132.5, -4.2),
                (130.7, -2.2),
            ]
        ],
    ),
    (
        "bismarcks",
        True,
        [
            [
                (142.0, -0.5),
                (154.2, -0.5),
                (154.2, -4.7),
                (152.4, -6.8),
                (148.1, -6.4),
                (147.8, -5.8),
                (146.0, -4.8),
                (142.0, -3.0),
            ]
        ],
    ),
    (
        "solomons",
        True,
        [
            [
                (154.2, -4.7),
                (157.0, -4.5),
                (163.0, -8.0),
                (163.0, -11.0),
                (160.5, -12.2),
                (156.0, -9.0),
                (154.0, -7.5),
            ]
        ],
    ),
    ("santa-cruz-islands", True, [[(165.0, -12.2), (167.5, -12.2), (167.5, -9.8), (165.0, -9.8)]]),
    ("new-hebrides", True, [[(166.0, -20.6), (170.5, -20.6), (170.5, -13.0), (166.0, -13.0)]]),
    ("new-caledonia", True, [[(163.3, -23.0), (168.5, -23.0), (168.5, -19.5), (163.3, -19.5)]]),
    ("fiji", True, [[(176.5, -21.0), (181.5, -21.0), (181.5, -15.5), (176.5, -15.5)]]),
    ("tonga", True, [[(183.5, -22.5), (186.5, -22.5), (186.5, -15.0), (183.5, -15.0)]]),
    ("samoa", True, [[(186.5, -15.0), (191.0, -15.0), (191.0, -13.0), (186.5, -13.0)]]),
    (
        "australia",
        True,
        [
            [
                (110.0, -10.0),
                (142.2, -10.0),
                (142.8, -10.5),
                (144, -11),
                (156.0, -24.0),
                (156.0, -45.0),
                (110.0, -45.0),
            ]
        ],
    ),
    (
        "new-zealand",
        True,
        [[(165.0, -48.0), (179.5, -48.0), (179.5, -34.0), (172.0, -34.0), (165.0, -40.0)]],
    ),
    ("hawaii", True, [[(199.0, 18.5), (206.0, 18.5), (206.0, 22.6), (199.0, 22.6)]]),
    ("alaska", True, [[(196.5, 54.5), (230, 54.5), (230, 72), (196.5, 72)]]),
    ("aleutians", True, [[(172.0, 51.0), (198.5, 51.0), (198.5, 56.5), (172.0, 53.5)]]),
    ("andamans", True, [[(92.0, 6.5), (94.5, 6.5), (94.5, 14.2), (92.0, 14.2)]]),
    # Overlays (not exclusive).
    ("luzon", False, [[(119.4, 13.5), (122.3, 12.6), (124.6, 12.6), (124.6, 19.2), (119.4, 19.2)]]),
    ("dutch-new-guinea", False, [[(129.0, 2.0), (141.0, 2.0), (141.0, -10.0), (129.0, -10.0)]]),
]
# Unions named by the rules (VP areas, set-up areas).
UNIONS: dict[str, list[str]] = {
    "dei": [
        "sumatra",
        "java",
        "borneo",
        "celebes",
        "lesser-sundas",
        "timor",
        "moluccas",
        "dutch-new-guinea",
    ],
}


def load_places() -> list[dict[str, Any]]:
    with OVERRIDES.open("rb") as f:
        data = tomllib.load(f)
    return [p for p in data.get("place", []) if "lat" in p and "lon" in p]


def mercator_y(lat: np.ndarray) -> np.ndarray:
    return np.degrees(np.log(np.tan(np.pi / 4 + np.radians(lat) / 2)))


def hex_centre(h: int) -> tuple[float, float]:
    c, r = hexgrid.col_row(h)
    return 1.5 * c, SQ3 * (r + 0.5 * (c & 1))


def grid_to_colrow(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat-topped odd-q pixel -> (column, row), vectorised cube rounding."""
    q = (2.0 / 3.0) * x
    ra = (-1.0 / 3.0) * x + (SQ3 / 3.0) * y
    cx, cz = q, ra
    cy = -cx - cz
    rx, ry, rz = np.round(cx), np.round(cy), np.round(cz)
    dx, dy, dz = np.abs(rx - cx), np.abs(ry - cy), np.abs(rz - cz)
    fix_x = (dx > dy) & (dx > dz)
    fix_y = ~fix_x & (dy > dz)
    rx = np.where(fix_x, -ry - rz, rx)
    ry = np.where(fix_y, -rx - rz, ry)
    rz = np.where(~fix_x & ~fix_y, -rx - ry, rz)
    col = rx.astype(np.int64)
    row = (rz + (rx - (col & 1)) / 2).astype(np.int64)
    return col, row


def colrow_to_hex(col: np.ndarray, row: np.ndarray) -> np.ndarray:
    """Hex numbers, 0 where off the map."""
    length = np.where(col % 2 == 0, 34, 33)
    ok = (col >= 0) & (col < hexgrid.COLUMNS) & (row >= 0) & (row < length)
    n = 1 + 67 * (col // 2) + 34 * (col % 2) + row
    return np.where(ok, n, 0)


class GeoFit:
    """Mercator -> grid: affine least squares plus a Gaussian warp through the anchors."""

    def __init__(
        self,
        anchors: list[dict[str, Any]],
        centre_of: Callable[[Any], tuple[float, float]] = hex_centre,
    ) -> None:
        lon = np.array([a["lon"] for a in anchors], float)
        lat = np.array([a["lat"] for a in anchors], float)
        centre = np.array([centre_of(a["hex"]) for a in anchors], float)
        design = np.column_stack([lon, mercator_y(lat), np.ones_like(lon)])
        self.coef, *_ = np.linalg.lstsq(design, centre, rcond=None)
        affine = design @ self.coef
        self.affine_residual = centre - affine
        # Pull each anchor only into its hex (within ANCHOR_RADIUS of the centre),
        # not onto the centre: small displacements keep the warp smooth.
        off = affine - centre
        dist = np.hypot(off[:, 0], off[:, 1])
        scale = np.minimum(1.0, ANCHOR_RADIUS / np.maximum(dist, 1e-9))
        target = centre + off * scale[:, None]
        self.warp = RBFInterpolator(
            affine,
            target - affine,
            kernel="gaussian",
            epsilon=1.0 / WARP_SIGMA,
            smoothing=1e-6,
        )

    def affine(self, lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
        design = np.column_stack([lon, mercator_y(lat), np.ones_like(lon)])
        return design @ self.coef

    def __call__(self, lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
        a = self.affine(lon, lat)
        return a + self.warp(a)

    def area_scale(self) -> float:
        """Grid units^2 per (degree lon x Mercator degree)."""
        return abs(float(np.linalg.det(self.coef[:2, :2])))


def load_land(
    window: tuple[float, float, float, float] = (LAT_MIN, LAT_MAX, LON_MIN, LON_MAX),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Land fraction on 0.025 degree cells over the window (lat min, lat max, lon
    min, lon max: east, crossing 180), with cell-centre lat/lon."""
    from global_land_mask import globe

    lat_min, lat_max, lon_min, lon_max = window
    ocean = globe._mask  # (21600, 43200), True = ocean, row 0 = 90N, col 0 = 180W
    r0 = round((90 - lat_max) * RAW_PER_DEG)
    r1 = round((90 - lat_min) * RAW_PER_DEG)
    west = ocean[r0:r1, round((lon_min + 180) * RAW_PER_DEG) :]
    east = ocean[r0:r1, : round((lon_max - 180) * RAW_PER_DEG)]
    land = ~np.concatenate([west, east], axis=1)
    h, w = land.shape
    frac = land.reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK).mean(axis=(1, 3))
    lats = lat_max - (np.arange(frac.shape[0]) + 0.5) * CELL_DEG
    lons = lon_min + (np.arange(frac.shape[1]) + 0.5) * CELL_DEG
    return frac.astype(np.float32), lats, lons


class LandCells:
    """The window's land cells pushed through the fit: where each lies on the grid,
    its land in grid units and km2, and the connected landmass it belongs to."""

    def __init__(self, fit: GeoFit, frac: np.ndarray, lats: np.ndarray, lons: np.ndarray) -> None:
        self.rows, self.cols = np.nonzero(frac > 0)
        f = frac[self.rows, self.cols].astype(np.float64)
        self.lat, self.lon = lats[self.rows], lons[self.cols]
        self.xy = fit(self.lon, self.lat)
        cell_km2 = (CELL_DEG * 111.32) ** 2 * np.cos(np.radians(self.lat))
        # Grid area of a cell: affine determinant x Mercator stretch (warp ignored).
        cell_grid = fit.area_scale() * CELL_DEG * CELL_DEG / np.cos(np.radians(self.lat))
        self.land_grid = f * cell_grid
        self.land_km2 = f * cell_km2
        # Connected landmasses (8-connected), areas in km2.
        self.labels, self.nlab = ndimage.label(frac > 0, structure=np.ones((3, 3), bool))
        self.comp = self.labels[self.rows, self.cols]
        self.comp_km2 = np.bincount(self.comp, weights=self.land_km2, minlength=self.nlab + 1)
        self.comp_km2[0] = 0.0


def paint_regions(shape: tuple[int, int], polys: list[Poly]) -> np.ndarray:
    img = Image.new("1", (shape[1], shape[0]), 0)
    draw = ImageDraw.Draw(img)
    for poly in polys:
        pts = [((lon - LON_MIN) / CELL_DEG, (LAT_MAX - lat) / CELL_DEG) for lon, lat in poly]
        draw.polygon(pts, fill=1)
    return np.asarray(img, dtype=bool)


def side_direction(dx: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hexside of a point at offset (dx, dy) from its hex centre: (dir 0..5, distance)."""
    angles = np.radians([-90.0, -30.0, 30.0, 90.0, 150.0, 210.0])
    proj = np.stack([dx * math.cos(a) + dy * math.sin(a) for a in angles])
    k = proj.argmax(axis=0)
    return k, SQ3 / 2 - proj.max(axis=0)


def neighbour(h: int, k: int) -> int:
    c, r = hexgrid.col_row(h)
    dc, dr = (hexgrid._ODD if c % 2 else hexgrid._EVEN)[k]
    nc, nr = c + dc, r + dr
    if 0 <= nc < hexgrid.COLUMNS and 0 <= nr < hexgrid.column_length(nc):
        return int(hexgrid.hex_id(nc, nr))
    return 0


def build(report: bool) -> dict[str, Any]:
    places = load_places()
    anchors = [p for p in places if p.get("anchor")]
    fit = GeoFit(anchors)

    frac, lats, lons = load_land()
    cells = LandCells(fit, frac, lats, lons)
    rows, cols, xy = cells.rows, cells.cols, cells.xy
    land_grid, land_km2 = cells.land_grid, cells.land_km2
    nlab, comp, comp_km2 = cells.nlab, cells.comp, cells.comp_km2
    col, row = grid_to_colrow(xy[:, 0], xy[:, 1])
    hx = colrow_to_hex(col, row)
    on = hx > 0

    n_hex = int(hexgrid.LAST_HEX)
    land_frac = np.bincount(hx[on], weights=land_grid[on], minlength=n_hex + 1) / HEX_AREA
    land_area = np.bincount(hx[on], weights=land_km2[on], minlength=n_hex + 1)
    big = comp_km2[comp] >= BIG_KM2
    big_land = np.bincount(hx[on & big], weights=land_grid[on & big], minlength=n_hex + 1)
    big_frac = big_land / HEX_AREA
    # Largest piece of one landmass in each hex, absolute and as share of the landmass.
    pieces: dict[tuple[int, int], float] = defaultdict(float)
    sel = on & (comp > 0)
    key = hx[sel].astype(np.int64) * (nlab + 1) + comp[sel]
    uniq, inv = np.unique(key, return_inverse=True)
    sums = np.bincount(inv, weights=land_km2[sel])
    for k, s in zip(uniq.tolist(), sums.tolist(), strict=True):
        pieces[(k // (nlab + 1), k % (nlab + 1))] += s

    class2 = np.zeros(n_hex + 1, bool)
    class2 |= big_frac >= CLASS2_BIG_SHARE
    for (h, c), s in pieces.items():
        if s >= CLASS2_PIECE_KM2 or (
            comp_km2[c] >= BIG_KM2 and s >= CLASS2_ISLAND_SHARE * comp_km2[c]
        ):
            class2[h] = True
    terrain = np.full(n_hex + 1, ".", dtype="<U1")
    # Class 1 needs an islet: a sliver of a continent or big island is not one.
    small = on & (comp_km2[comp] < BIG_KM2)
    small_area = np.bincount(hx[small], weights=land_km2[small], minlength=n_hex + 1)
    terrain[small_area >= MIN_CLASS1_KM2] = "1"
    terrain[class2] = "2"

    # The rulebook's places are land in their own hexes, whatever the fit says.
    forced: list[str] = []
    for p in places:
        if terrain[p["hex"]] == ".":
            terrain[p["hex"]] = "1"
            forced.append(p["name"])
    # Named islets: at least Class 1 in the hex the fit puts them in.
    extra_places: list[dict[str, Any]] = []
    named = list(NAMED_ISLETS.items())
    nxy = fit(np.array([v[1] for _, v in named]), np.array([v[0] for _, v in named]))
    for (name, _), (x, y) in zip(named, nxy, strict=True):
        h = int(colrow_to_hex(*grid_to_colrow(np.array([x]), np.array([y])))[0])
        if h:
            if terrain[h] == ".":
                terrain[h] = "1"
            extra_places.append({"name": name, "hex": h, "islet": True})
    ex = list(EXTRA_PLACES.items())
    exy = fit(np.array([v[1] for _, v in ex]), np.array([v[0] for _, v in ex]))
    for (name, _), (x, y) in zip(ex, exy, strict=True):
        h = int(colrow_to_hex(*grid_to_colrow(np.array([x]), np.array([y])))[0])
        if h and terrain[h] != ".":
            extra_places.append({"name": name, "hex": h})
        else:
            forced.append(f"(dropped {name}: sea or off the map)")

    # Hexsides: land share of a band along each side.
    centre = np.array([hex_centre(int(h)) if h else (0.0, 0.0) for h in range(n_hex + 1)])
    sel = on
    dx = xy[sel, 0] - centre[hx[sel], 0]
    dy = xy[sel, 1] - centre[hx[sel], 1]
    k, dist = side_direction(dx, dy)
    band = dist < SIDE_BAND
    side_land = np.zeros((n_hex + 1, 6))
    np.add.at(side_land, (hx[sel][band], k[band]), land_grid[sel][band])
    side_kind: dict[tuple[int, int], str] = {}
    for h in range(1, n_hex + 1):
        for d in range(6):
            n = neighbour(h, d)
            if not n or (n < h and (n, h) in side_kind):
                continue
            opp = (d + 3) % 6
            share = (side_land[h, d] + side_land[n, opp]) / (2 * SIDE_BAND)
            kind = "s" if share < 0.01 else "l" if share >= 0.9 else "p"
            if kind == "l" and "." in (terrain[h], terrain[n]):
                kind = "p"
            if terrain[h] == "." and terrain[n] == ".":
                kind = "s"
            side_kind[(min(h, n), max(h, n))] = kind

    # Regions.
    shape = frac.shape
    exclusive = [(name, polys) for name, excl, polys in REGIONS if excl]
    label_img = np.zeros(shape, np.int16)
    for i, (_, polys) in enumerate(exclusive, start=1):
        label_img[paint_regions(shape, polys)] = i
    cell_region = label_img[rows, cols]
    regions: dict[str, set[int]] = defaultdict(set)
    best: dict[int, tuple[float, int]] = {}
    sel = on & (cell_region > 0)
    key = hx[sel].astype(np.int64) * 1000 + cell_region[sel]
    uniq, inv = np.unique(key, return_inverse=True)
    sums = np.bincount(inv, weights=land_km2[sel])
    for kk, s in zip(uniq.tolist(), sums.tolist(), strict=True):
        h, reg = divmod(kk, 1000)
        if s > best.get(h, (0.0, 0))[0]:
            best[h] = (s, reg)
    for h, (_, reg) in best.items():
        if terrain[h] != ".":
            regions[exclusive[reg - 1][0]].add(h)
    for name, excl, polys in REGIONS:
        if excl:
            continue
        inside = paint_regions(shape, polys)[rows, cols]
        share = np.bincount(hx[on & inside], weights=land_km2[on & inside], minlength=n_hex + 1)
        for h in np.nonzero(share >= 0.5 * np.maximum(land_area, 1e-9))[0].tolist():
            if h and terrain[h] != ".":
                regions[name].add(int(h))
    for name, members in UNIONS.items():
        regions[name] = set().union(*(regions[m] for m in members))

    # Anchor check: where does the fit put each named place?
    plon = np.array([p["lon"] for p in places], float)
    plat = np.array([p["lat"] for p in places], float)
    pxy = fit(plon, plat)
    pa = fit.affine(plon, plat)
    checks = []
    for p, (x, y), (ax, ay) in zip(places, pxy, pa, strict=True):
        geo = int(colrow_to_hex(*grid_to_colrow(np.array([x]), np.array([y])))[0])
        aff = int(colrow_to_hex(*grid_to_colrow(np.array([ax]), np.array([ay])))[0])
        checks.append({"name": p["name"], "hex": p["hex"], "fit_hex": geo, "affine_hex": aff})

    terrain_cols, tenths_cols, side_cols = [], [], []
    for c in range(hexgrid.COLUMNS):
        ids = [int(hexgrid.hex_id(c, r)) for r in range(hexgrid.column_length(c))]
        terrain_cols.append("".join(terrain[h] for h in ids))
        tenths_cols.append("".join(str(min(9, round(land_frac[h] * 10))) for h in ids))
        chunk = []
        for h in ids:
            for d in range(3):  # N, NE, SE: the other three belong to the neighbours
                n = neighbour(h, d)
                chunk.append(side_kind[(min(h, n), max(h, n))] if n else "-")
        side_cols.append("".join(chunk))

    if report:
        print(f"affine coef:\n{fit.coef}")
        res = np.hypot(*fit.affine_residual.T)
        print(f"affine residual (grid units): mean {res.mean():.2f} max {res.max():.2f}")
        for ch in checks:
            flag = "" if ch["fit_hex"] == ch["hex"] else "   <-- differs"
            print(
                f"  {ch['name']:<26} {ch['hex']:04d} fit {ch['fit_hex']:04d} "
                f"affine {ch['affine_hex']:04d}{flag}"
            )
        for name in sorted(regions):
            print(f"  region {name:<24} {len(regions[name])} hexes")
        print("forced land / dropped:", ", ".join(forced))
        counts = {t: int((terrain[1:] == t).sum()) for t in ".12"}
        print(f"terrain counts {counts}")

    return {
        "format": 1,
        "generated_by": "tools/build_usn_map.py",
        "src": "reconstructed",
        "why": "real geography (GLOBE 1 km land mask via global-land-mask) fitted to the "
        "rulebook's numbered places; the printed map is lost",
        "columns": hexgrid.COLUMNS,
        "last_hex": int(hexgrid.LAST_HEX),
        "legend": {
            "terrain": ". sea, 1 Class 1 land, 2 Class 2 land; one string per column, rows "
            "top to bottom",
            "land_tenths": "land share of each hex in tenths (9 = nine tenths or more)",
            "hexsides": "three characters per hex for its N, NE and SE sides: s all sea, "
            "p partly sea, l all land, - off the map",
        },
        "terrain": terrain_cols,
        "land_tenths": tenths_cols,
        "hexsides": side_cols,
        "regions": {k: sorted(v) for k, v in sorted(regions.items())},
        "places": sorted(extra_places, key=lambda p: p["name"]),
        "fit": {
            "anchors": len(anchors),
            "checks": checks,
            "affine": [[round(v, 6) for v in row] for row in fit.coef.tolist()],
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="print the fit and region sizes")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    data = build(args.report)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    # Keep the long per-column strings and hex lists on one line each.
    args.out.write_text(_compact(data) + "\n", encoding="utf-8")
    del text
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


def _compact(data: dict[str, Any]) -> str:
    """JSON with one line per top-level item, region and column: small, diffable."""
    parts = []
    for k, v in data.items():
        if isinstance(v, list) and v and isinstance(v[0], str):
            inner = ",\n  ".join(json.dumps(s) for s in v)
            parts.append(f" {json.dumps(k)}: [\n  {inner}\n ]")
        elif isinstance(v, dict) and k in ("regions",):
            inner = ",\n  ".join(f"{json.dumps(a)}: {json.dumps(b)}" for a, b in v.items())
            parts.append(f" {json.dumps(k)}: {{\n  {inner}\n }}")
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            inner = ",\n  ".join(json.dumps(s, ensure_ascii=False) for s in v)
            parts.append(f" {json.dumps(k)}: [\n  {inner}\n ]")
        elif isinstance(v, dict) and k == "fit":
            inner = ",\n  ".join(
                f"{json.dumps(a)}: "
                + (
                    "[\n   " + ",\n   ".join(json.dumps(x) for x in b) + "\n  ]"
                    if isinstance(b, list)
                    else json.dumps(b)
                )
                for a, b in v.items()
            )
            parts.append(f" {json.dumps(k)}: {{\n  {inner}\n }}")
        else:
            parts.append(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}"


if __name__ == "__main__":
    raise SystemExit(main())
