"""Hex arithmetic the rulesets' grids share: flat-topped hexes in vertical
columns, odd (0-based) columns shoved half a hex down ("odd-q").  Each game
numbers its hexes its own way (pbem.rulesets.*.hexgrid) and hands 0-based
column and row, or its own neighbour function, to these."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import Protocol, TypeVar

H = TypeVar("H", bound=Hashable)
Id = TypeVar("Id", bound=Hashable)


class HexGrid(Protocol[Id]):
    """What both games' hex grids answer (each ruleset's ``hexgrid`` module is
    one). The ids differ: U.S.N. numbers its one map's hexes (``HexId`` an int,
    printed "0659"); War in the Pacific writes a Map Section's letter and the
    column and hexrow ("E2418"). Either is the hex as the map prints it."""

    def parse_hex(self, text: str, /) -> Id: ...

    def neighbours(self, h: Id, /) -> tuple[Id, ...]: ...

    def adjacent(self, a: Id, b: Id, /) -> bool: ...

    def distance(self, a: Id, b: Id, /) -> int: ...

    def within(self, h: Id, radius: int, /) -> list[Id]: ...


def odd_q_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hexes between 0-based (column, row) ``a`` and ``b`` (0 for the same hex)."""
    ax, ay, az = _cube(*a)
    bx, by, bz = _cube(*b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def odd_q_at(x: float, y: float) -> tuple[int, int]:
    """0-based (column, row) of the hex holding point (x, y), in grid units of
    flat-topped hexes of circumradius 1 with column 0, row 0 centred on the origin."""
    q = x * 2.0 / 3.0
    rr = -x / 3.0 + y / math.sqrt(3.0)
    cx, cz = q, rr
    cy = -cx - cz
    rx, ry, rz = round(cx), round(cy), round(cz)
    dx, dy, dz = abs(rx - cx), abs(ry - cy), abs(rz - cz)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy <= dz:
        rz = -rx - ry
    return rx, rz + (rx - (rx & 1)) // 2


def _cube(c: int, r: int) -> tuple[int, int, int]:
    z = r - (c - (c & 1)) // 2
    return c, -c - z, z


def within(start: H, radius: int, neighbours: Callable[[H], Iterable[H]]) -> set[H]:
    """Every hex ``neighbours`` reaches in at most ``radius`` steps (``start`` too)."""
    seen = {start}
    frontier = [start]
    for _ in range(radius):
        nxt: list[H] = []
        for x in frontier:
            for n in neighbours(x):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return seen
