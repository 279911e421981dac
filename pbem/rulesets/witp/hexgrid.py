"""The War in the Pacific hex grid, with the rulebook's own hex numbers as IDs.

2.1.1: "Each hex is given a four digit number: the first two digits identify
the hex column (running vertically, north to south); the last two digits
identify the specific zig-zag hexrow (running horizontally, west to east).
Each hex number ... is preceded by a letter code which identifies the Map
Section that the hex is in."  So a hex ID is ``<section><CC><RR>``: "E2418"
is Map Section E, column 24, hexrow 18.

Our reading (docs/witp-map.md): columns are straight north-south lines of
flat-topped hexes, numbered from 01 in the west; the hexrows zig-zag across
them, numbered from 01 in the north (the text's example puts Myitkyina A3210
north of Lashio A3213 in one column, and Chittagong A2613 west of Lashio in
one hexrow).  Even-numbered columns sit half a hex lower than odd ones: 13.8.1
names Guadalcanal's hexes "E2418, 2519 & 2619", a chain of adjacent hexes only
in that layout.

Each Map Section is numbered on its own (2.1.2); how the overlapping sections
join (2.1.3) is not in the text, so neighbours and distances stay inside one
section.  Which hexes exist is the map's business (map.py), not the grid's.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import NewType

from pbem.core import hexmath
from pbem.core.hexmath import odd_q_distance

HexId = NewType("HexId", str)
"""A hex as the rulebook writes it: section letter and four digits, "E2418"."""

SECTIONS = "ABCDEFG"  # 2.1.2: the seven Map Sections
MAX_NUMBER = 99  # two digits each for column and hexrow

_HEX = re.compile(r"^\s*([A-Ga-g])\s*-?\s*(\d{2})(\d{2})\s*$")

# Neighbour offsets (d column, d hexrow) in the order N, NE, SE, S, SW, NW.
# An even column sits half a hex lower, so its east and west neighbours are
# the same hexrow and the one below; an odd column's, the one above and the same.
DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
_EVEN = ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
_ODD = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))


def hex_id(section: str, column: int, row: int) -> HexId:
    """The ID of ``column``, ``row`` (both as printed, from 01) of ``section``."""
    if section not in SECTIONS or len(section) != 1:
        raise ValueError(f"{section!r} is not a Map Section (A-G, 2.1.2)")
    if not (1 <= column <= MAX_NUMBER and 1 <= row <= MAX_NUMBER):
        raise ValueError(f"column {column}, hexrow {row} cannot be numbered (01-99)")
    return HexId(f"{section}{column:02d}{row:02d}")


def parse_hex(text: str) -> HexId:
    """'E2418', 'e2418', 'E-2418' -> HexId('E2418'); ValueError for anything else."""
    m = _HEX.match(text)
    if m is None:
        raise ValueError(f"{text!r} is not a hex number (a Map Section letter and four digits)")
    section, column, row = m.group(1).upper(), int(m.group(2)), int(m.group(3))
    return hex_id(section, column, row)


def split(h: str) -> tuple[str, int, int]:
    """(section, column, hexrow) of a hex ID."""
    m = _HEX.match(h)
    if m is None:
        raise ValueError(f"{h!r} is not a hex number")
    return m.group(1).upper(), int(m.group(2)), int(m.group(3))


def key(h: str) -> int:
    """A whole number for the hex (map pictures key hexes by int): 10000 per
    section, then the four digits, so E2418 is 52418."""
    section, column, row = split(h)
    return (SECTIONS.index(section) + 1) * 10000 + column * 100 + row


def from_key(k: int) -> HexId:
    """The inverse of ``key``."""
    s, rest = divmod(k, 10000)
    if not 1 <= s <= len(SECTIONS):
        raise ValueError(f"{k} is not a hex key")
    return hex_id(SECTIONS[s - 1], rest // 100, rest % 100)


def centre(h: str) -> tuple[float, float]:
    """Centre in grid units of the hex's section: flat-topped hexes of
    circumradius 1, x east, y south, column 01 hexrow 01 at the origin."""
    _, column, row = split(h)
    return 1.5 * (column - 1), math.sqrt(3.0) * ((row - 1) + 0.5 * (column % 2 == 0))


def at_point(section: str, x: float, y: float) -> HexId | None:
    """The numbered hex of ``section`` holding grid point (x, y) (``centre``'s
    units); None off the numbers."""
    c, r = hexmath.odd_q_at(x, y)
    if not (0 <= c < MAX_NUMBER and 0 <= r < MAX_NUMBER):
        return None
    return hex_id(section, c + 1, r + 1)


@cache
def neighbours(h: str) -> tuple[HexId, ...]:
    """The numbered hexes adjacent to ``h`` in its section, in the order N, NE,
    SE, S, SW, NW (the map drops those it does not have)."""
    section, column, row = split(h)
    out: list[HexId] = []
    for dc, dr in _EVEN if column % 2 == 0 else _ODD:
        c, r = column + dc, row + dr
        if 1 <= c <= MAX_NUMBER and 1 <= r <= MAX_NUMBER:
            out.append(hex_id(section, c, r))
    return tuple(out)


def direction(a: str, b: str) -> str:
    """The direction ("N", "NE", ...) from ``a`` to its neighbour ``b``."""
    for d, n in zip(DIRECTIONS, _all_six(a), strict=True):
        if n == b:
            return d
    raise ValueError(f"{a} and {b} are not adjacent")


def _all_six(h: str) -> tuple[str | None, ...]:
    section, column, row = split(h)
    out: list[str | None] = []
    for dc, dr in _EVEN if column % 2 == 0 else _ODD:
        c, r = column + dc, row + dr
        ok = 1 <= c <= MAX_NUMBER and 1 <= r <= MAX_NUMBER
        out.append(hex_id(section, c, r) if ok else None)
    return tuple(out)


def adjacent(a: str, b: str) -> bool:
    return b in neighbours(a)


def hexside(a: str, b: str) -> tuple[HexId, HexId]:
    """The canonical key of the hexside between two adjacent hexes (lower ID first)."""
    if not adjacent(a, b):
        raise ValueError(f"{a} and {b} are not adjacent")
    x, y = HexId(a), HexId(b)
    return (x, y) if x < y else (y, x)


def distance(a: str, b: str) -> int:
    """Hexes between ``a`` and ``b`` (0 for the same hex), counted as the rules
    count ranges: the target hex but not the start.  Both must be in one section."""
    (sa, ca, ra), (sb, cb, rb) = split(a), split(b)
    if sa != sb:
        raise ValueError(f"{a} and {b} are on different Map Sections (2.1.3 joins are not known)")
    # 0-based, the shifted (even-numbered) columns are the odd ones: "odd-q".
    return odd_q_distance((ca - 1, ra - 1), (cb - 1, rb - 1))


def within(h: str, radius: int) -> list[HexId]:
    """Every numbered hex of the section at distance <= ``radius`` (``h`` too)."""
    return sorted(hexmath.within(parse_hex(h), radius, neighbours))
