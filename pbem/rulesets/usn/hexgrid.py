"""The U.S.N. hex grid, with the rulebook's own hex numbers as IDs.

Recovered layout (docs/usn-data.md, the map): flat-topped hexes in vertical
columns; hex 0001 is the top of the west-most column and numbers run down each
column, then on at the top of the next column east. Even (0-based) columns hold
34 hexes, odd columns 33 and sit half a hex lower ("odd-q" offset).

    n = 1 + 67*(c // 2) + 34*(c % 2) + r
"""

from __future__ import annotations

from functools import cache
from typing import NewType

from pbem.core import hexmath
from pbem.core.hexmath import odd_q_distance

HexId = NewType("HexId", int)

COLUMNS = 47


def column_length(c: int) -> int:
    return 34 if c % 2 == 0 else 33


# 47 columns fill the 28" sheet of 5/8" hexes (numbers up to 1575)
# The last column (46, even) holds 34 hexes: 1 + 67*23 + 33 = 1575.
LAST_HEX = HexId(
    1 + 67 * ((COLUMNS - 1) // 2) + 34 * ((COLUMNS - 1) % 2) + column_length(COLUMNS - 1) - 1
)


def hex_id(c: int, r: int) -> HexId:
    """Hex number of column ``c``, row ``r`` (both 0-based)."""
    if not (0 <= c < COLUMNS and 0 <= r < column_length(c)):
        raise ValueError(f"column {c}, row {r} is off the map")
    return HexId(1 + 67 * (c // 2) + 34 * (c % 2) + r)


def col_row(h: int) -> tuple[int, int]:
    """0-based (column, row) of hex number ``h``."""
    if not 1 <= h <= LAST_HEX:
        raise ValueError(f"hex {fmt(h)} is off the map")
    pair, rem = divmod(h - 1, 67)
    c = 2 * pair + (rem >= 34)
    r = rem - 34 if rem >= 34 else rem
    return c, r


def on_map(h: int) -> bool:
    return 1 <= h <= LAST_HEX


def fmt(h: int) -> str:
    """Hex numbers are written zero-padded to four digits, as the errata does ("0692")."""
    return f"{h:04d}"


Location = str
"""Where air points are or a unit arrives: a hex as ``fmt`` writes it ("0759"), a
ship's ID ("CV-6"), "WC" (the U.S. West Coast) or "AUS"; path tokens add "OFF"."""


def hex_of(location: Location) -> HexId | None:
    """The one reader of locations and path tokens: the hex a hex number names
    ("0759", "759" -> 759), None for a ship, box or region (no range check here)."""
    return HexId(int(location)) if location.isdigit() else None


def parse_hex(text: str) -> HexId:
    """'0692', '692' -> 692; raises ValueError if not a hex number on the map."""
    s = text.strip()
    if not s.isdigit():
        raise ValueError(f"{text!r} is not a hex number")
    h = int(s)
    if not on_map(h):
        raise ValueError(f"hex {fmt(h)} is off the map (hexes run 0001-{fmt(LAST_HEX)})")
    return HexId(h)


def distance(a: int, b: int) -> int:
    """Hexes between ``a`` and ``b`` (0 for the same hex)."""
    return odd_q_distance(col_row(a), col_row(b))


# Neighbour offsets (dc, dr) for odd-q, by column parity: N, NE, SE, S, SW, NW.
_EVEN = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))
_ODD = ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")


@cache
def neighbours(h: int) -> tuple[HexId, ...]:
    """The on-map hexes adjacent to ``h`` in the order N, NE, SE, S, SW, NW."""
    c, r = col_row(h)
    out: list[HexId] = []
    for dc, dr in _ODD if c % 2 else _EVEN:
        nc, nr = c + dc, r + dr
        if 0 <= nc < COLUMNS and 0 <= nr < column_length(nc):
            out.append(hex_id(nc, nr))
    return tuple(out)


def adjacent(a: int, b: int) -> bool:
    return b in neighbours(a)


def hexside(a: int, b: int) -> tuple[HexId, HexId]:
    """The canonical key of the hexside between two adjacent hexes (lower number first)."""
    if not adjacent(a, b):
        raise ValueError(f"{fmt(a)} and {fmt(b)} are not adjacent")
    return (HexId(min(a, b)), HexId(max(a, b)))


def within(h: int, radius: int) -> list[HexId]:
    """Every on-map hex at distance <= radius from ``h`` (including ``h``)."""
    return sorted(hexmath.within(HexId(h), radius, neighbours))
