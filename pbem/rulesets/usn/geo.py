"""Per-map tables the U.S.N. rules query in their inner loops, built once.

``Geo`` holds, for every hex, its terrain and its neighbours split by what
may cross the hexside (ships: at least partly sea, TER.NAV; land units and
land supply: some land, TER.LAND; sea supply: not all land), the mountain
hexsides for land (MOV.E) and air (MOV.U), the regions (Japanese Home
Islands, Australia, China, India, Burma), the map edges and east-edge boxes
(OFF.*), and the printed bases. Build it from the map data with
``geo_for(usn_map)`` (cached) or directly from tables in tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.rulesets.usn import hexgrid

SEA, CLASS1, CLASS2, DESERT = "sea", "class1", "class2", "desert"
SIDE_SEA, SIDE_PARTIAL, SIDE_LAND = "sea", "partial", "land"

# Region names the rules ask for. The map data may spell them differently;
# ``_REGION_ALIASES`` maps its names onto these.
HOME_ISLANDS = "home-islands"
AUSTRALIA = "australia"
CHINA = "china"
INDIA = "india"
BURMA = "burma"


@dataclass(frozen=True, slots=True)
class PrintedBase:
    hex: int
    name: str
    air_capacity: int
    naval: bool
    owner: Mapping[str, str]  # "game1"/"game2" -> side


@dataclass(slots=True)
class Geo:
    terrain: dict[int, str]
    hexsides: dict[tuple[int, int], str]
    mountains_land: frozenset[tuple[int, int]] = frozenset()
    mountains_air: frozenset[tuple[int, int]] = frozenset()
    regions: dict[str, frozenset[int]] = field(default_factory=dict)
    edges: dict[str, frozenset[int]] = field(default_factory=dict)
    east_boxes: dict[int, int] = field(default_factory=dict)  # edge hex -> phases to the West Coast
    bases: dict[int, PrintedBase] = field(default_factory=dict)
    # Derived tables (filled by ``__post_init__``).
    naval_nbrs: dict[int, tuple[int, ...]] = field(default_factory=dict)
    land_nbrs: dict[int, tuple[int, ...]] = field(default_factory=dict)
    supply_land_nbrs: dict[int, tuple[int, ...]] = field(default_factory=dict)
    closed: frozenset[int] = frozenset()  # China and India (MOV.M, SUP.C)
    air_cache: dict[tuple[int, int], int] = field(default_factory=dict)
    cubes: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    land_set: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        for h in range(1, hexgrid.LAST_HEX + 1):
            nav: list[int] = []
            land: list[int] = []
            sup: list[int] = []
            for n in hexgrid.neighbours(h):
                kind = self.side_kind(h, n)
                if kind != SIDE_LAND:
                    nav.append(n)
                if kind != SIDE_SEA:
                    sup.append(n)
                    if self.is_land(n) and self.terrain.get(n) != DESERT:
                        land.append(n)
            self.naval_nbrs[h] = tuple(nav)
            self.land_nbrs[h] = tuple(land)
            self.supply_land_nbrs[h] = tuple(sup)
        self.closed = self.regions.get(CHINA, frozenset()) | self.regions.get(INDIA, frozenset())
        self.land_set = frozenset(h for h, t in self.terrain.items() if t != SEA)
        for h in range(1, hexgrid.LAST_HEX + 1):
            c, r = hexgrid.col_row(h)
            z = r - (c - (c & 1)) // 2  # odd-q to cube, as hexgrid.distance
            self.cubes[h] = (c, -c - z, z)

    # --- terrain ------------------------------------------------------
    def is_land(self, h: int) -> bool:
        return self.terrain.get(h, SEA) != SEA

    def is_sea(self, h: int) -> bool:
        return self.terrain.get(h, SEA) == SEA

    def side_kind(self, a: int, b: int) -> str:
        key = (a, b) if a < b else (b, a)
        kind = self.hexsides.get(key)
        if kind is not None:
            return kind
        la, lb = self.is_land(a), self.is_land(b)
        if la and lb:
            return SIDE_LAND
        if not la and not lb:
            return SIDE_SEA
        return SIDE_PARTIAL

    def mountain_land(self, a: int, b: int) -> bool:
        return ((a, b) if a < b else (b, a)) in self.mountains_land

    def in_region(self, h: int, region: str) -> bool:
        return h in self.regions.get(region, frozenset())

    def edge_of(self, h: int) -> str | None:
        for name, hexes in self.edges.items():
            if h in hexes:
                return name
        return None

    # --- distances ----------------------------------------------------
    def air_distance(self, a: int, b: int) -> int:
        """Range counted from ``a`` to ``b``: hexes, plus one if every shortest
        route crosses a mountain hexside (MOV.U; at most one, TER.AIR / A6)."""
        d = self.distance(a, b)
        if not self.mountains_air or d == 0:
            return d
        cached = self.air_cache.get((a, b))
        if cached is not None:
            return cached
        # Only a mountain hexside lying on some shortest route can cost anything.
        dist = self.distance
        if any(
            dist(a, x) + dist(x, b) <= d and dist(a, y) + dist(y, b) <= d
            for x, y in self.mountains_air
        ):
            clear = _clear_search(self, a, b, d)
            result = d if clear == d else min(clear, d + 1)
        else:
            result = d
        self.air_cache[(a, b)] = result
        return result

    def distance(self, a: int, b: int) -> int:
        """hexgrid.distance from precomputed cube coordinates (hot loops)."""
        ax, ay, az = self.cubes[a]
        bx, by, bz = self.cubes[b]
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))

    def naval_distances(self, start: int, limit: int, blocked: frozenset[int]) -> dict[int, int]:
        """Hexes a ship reaches from ``start`` within ``limit`` hexes, avoiding ``blocked``."""
        dist = {start: 0}
        frontier = [start]
        for d in range(1, limit + 1):
            nxt: list[int] = []
            for h in frontier:
                for n in self.naval_nbrs[h]:
                    if n not in dist and n not in blocked:
                        dist[n] = d
                        nxt.append(n)
            frontier = nxt
        return dist


def distance_field(sources: Iterable[int], limit: int) -> dict[int, int]:
    """Hex distance (ignoring terrain) from the nearest source, up to ``limit``."""
    dist: dict[int, int] = {}
    frontier: list[int] = []
    for s in sources:
        if s not in dist:
            dist[s] = 0
            frontier.append(s)
    for d in range(1, limit + 1):
        nxt: list[int] = []
        for h in frontier:
            for n in hexgrid.neighbours(h):
                if n not in dist:
                    dist[n] = d
                    nxt.append(n)
        frontier = nxt
    return dist


def _clear_search(geo: Geo, a: int, b: int, d: int) -> int:
    dist = {a: 0}
    frontier = [a]
    for step in range(1, d + 2):
        nxt: list[int] = []
        for h in frontier:
            for n in hexgrid.neighbours(h):
                key = (h, n) if h < n else (n, h)
                if n in dist or key in geo.mountains_air:
                    continue
                if step + geo.distance(n, b) > d + 1:
                    continue
                if n == b:
                    return step
                dist[n] = step
                nxt.append(n)
        frontier = nxt
    return d + 2


# --- building from the map data --------------------------------------------

_REGION_ALIASES = {
    "home islands": HOME_ISLANDS,
    "japanese home islands": HOME_ISLANDS,
    "home-islands": HOME_ISLANDS,
    "japanese-home-islands": HOME_ISLANDS,
    "japan": HOME_ISLANDS,
    "australia": AUSTRALIA,
    "china": CHINA,
    "india": INDIA,
    "burma": BURMA,
}


def _name(x: Any) -> str:
    v = getattr(x, "value", x)
    return str(v).lower()


def geo_from_map(m: Any) -> Geo:
    """Adapt ``pbem.rulesets.usn.map.UsnMap`` (duck-typed) into a ``Geo``."""
    terrain: dict[int, str] = {}
    for h, info in m.hexes.items():
        t = _name(info.terrain)
        terrain[int(h)] = {"class1": CLASS1, "class2": CLASS2, "desert": DESERT}.get(t, SEA)
    hexsides: dict[tuple[int, int], str] = {}
    mountains_land: set[tuple[int, int]] = set()
    mountains_air: set[tuple[int, int]] = set()
    for key, info in m.hexsides.items():
        a, b = int(key[0]), int(key[1])
        pair = (a, b) if a < b else (b, a)
        hexsides[pair] = _name(info.kind)
        if getattr(info, "mountain", False):
            mountains_land.add(pair)
            if getattr(info, "mountain_for_air", True):
                mountains_air.add(pair)
    regions: dict[str, frozenset[int]] = {}
    for name, hexes in m.regions.items():
        key = _REGION_ALIASES.get(str(name).lower(), str(name).lower())
        regions[key] = regions.get(key, frozenset()) | frozenset(int(x) for x in hexes)
    edges = {str(k).lower(): frozenset(int(x) for x in v) for k, v in m.edges.items()}
    east_boxes: dict[int, int] = {}
    boxes = getattr(m, "offmap_boxes", {}) or {}
    for box in boxes.values() if isinstance(boxes, Mapping) else boxes:
        for h in getattr(box, "entry_hexes", ()):
            east_boxes[int(h)] = max(1, int(getattr(box, "distance_turns", 1)))
    bases = {
        int(h): PrintedBase(
            int(h),
            str(getattr(b, "name", "")),
            int(getattr(b, "air_capacity", 0) or 0),
            bool(getattr(b, "naval", False)),
            {k: v for k, v in (getattr(b, "owner", {}) or {}).items() if v},
        )
        for h, b in m.bases.items()
    }
    return Geo(
        terrain,
        hexsides,
        frozenset(mountains_land),
        frozenset(mountains_air),
        regions,
        edges,
        east_boxes,
        bases,
    )
