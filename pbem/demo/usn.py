"""Scripted U.S.N. players for the demonstration (``pbem demo --ruleset usn``) and the
mini-game end-to-end tests: a simple legal plan per mini-game, by mail round.

A plan maps (Game-Turn, mail round, side) to order lines. Ship routes are found on
the real map by breadth-first search (``sea_path``), so the plans follow map
corrections. Rounds a plan does not name are answered with the form as it came
(every line a comment: no orders, MOV.B).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable

from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.loader import world_geo

J, A = JAPANESE, ALLIED

# The verdict and its wrapped lines (indented), up to the per-side totals ("  allied: 101").
_VERDICT = re.compile(r"^GAME OVER: (.*(?:\n[ \t]+(?![\w-]+: [\d.]+$)\S.*)*)", re.M)
_WINNER = re.compile(r"\b(\w+) wins\b(?: \((\w+)\))?")


def verdict_lines(report: str) -> list[str]:
    """The final report's verdict, whole (it wraps over several lines), and the
    winner on a line of its own."""
    found = _VERDICT.search(report)
    if found is None:
        return []
    verdict = " ".join(found.group(1).split())
    won = _WINNER.search(verdict)
    winner = f"{won.group(1)} wins" + (f" ({won.group(2)})" if won.group(2) else "") if won else ""
    return [f"game over: {verdict}", f"winner: {winner}" if won else "no winner: a draw"]


def orders_summary(orders: str) -> str:
    """The order lines of a mail (not its headers or comments), or that it has none."""
    lines = [ln for ln in orders.splitlines() if ln and not ln.startswith("#") and ":" not in ln]
    return "orders: " + "; ".join(lines) if lines else "no orders (the form as it came)"


Plan = dict[tuple[int, str, str], list[str]]  # (turn, round, side) -> order lines


def sea_path(geo: Geo, start: int, goal: int, limit: int) -> list[int]:
    """The hexes a ship enters on a shortest route from ``start`` to ``goal``, cut at
    ``limit`` hexes."""
    parent: dict[int, int] = {start: start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if h == goal:
            break
        for n in geo.naval_nbrs[h]:
            if n not in parent:
                parent[n] = h
                queue.append(n)
    if goal not in parent:
        return []
    route = [goal]
    while route[-1] != start:
        route.append(parent[route[-1]])
    return list(reversed(route))[1 : limit + 1]


def _fmt(hexes: list[int]) -> str:
    return " ".join(hexgrid.fmt(h) for h in hexes)


def coral_sea(geo: Geo) -> Plan:
    """MINI.CORAL: the carriers close on each other; the Japanese ship their engineer
    to Guadalcanal (MINI.CORAL.VC's +10), unloading after a short last leg
    (NM.TRANS.COST: unloading takes a movement point)."""
    cv = sea_path(geo, 754, 828, 4)
    tr = sea_path(geo, 759, 828, 6)
    al = sea_path(geo, 899, 828, 4)
    # Turn 2: the Japanese carriers close two more hexes, then both sides strike
    # the other's carriers at once (the sealed air-5 round) under a little CAP.
    close = sea_path(geo, cv[-1], al[-1], 2)
    j_at, a_at = _fmt(close[-1:]), _fmt(al[-1:])
    return {
        (1, "J-2", J): [f"MOVE CV-3 CV-4 CA-1 CA-2 {_fmt(cv)}", "EMBARK TR-1 ENG-1"],
        (1, "A-3-4", A): [f"MOVE CV-5 CV-2 CA-1 DD-1 {_fmt(al)}"],
        (1, "J-7-8", J): [f"MOVE TR-1 {_fmt(tr[:-1])}"],
        (2, "J-2", J): [
            f"MOVE TR-1 {_fmt(tr[-1:])}",
            "DEBARK TR-1 ENG-1",
            f"MOVE CV-3 CV-4 CA-1 CA-2 {_fmt(close)}",
        ],
        (2, "air-5", J): [
            f"STRIKE 6 NAC CV-3 {a_at} SHIPS 1",
            f"STRIKE 5 NAC CV-4 {a_at} SHIPS 1",
            "CAP 2 NAC CV-3",
        ],
        (2, "air-5", A): [
            f"STRIKE 7 NAC CV-2 {j_at} SHIPS 1",
            f"STRIKE 4 NAC CV-5 {j_at} SHIPS 1",
            "CAP 2 NAC CV-2",
        ],
    }


def midway(geo: Geo) -> Plan:
    """MINI.MIDWAY: the Kido Butai sails east."""
    kb = sea_path(geo, 609, 1218, 10)
    return {
        (1, "J-2", J): [f"MOVE CV-1 CV-2 CV-5 CV-6 BB-1 {_fmt(kb[:5])}"],
        (1, "J-7-8", J): [f"MOVE CV-1 CV-2 CV-5 CV-6 BB-1 {_fmt(kb[5:10])}"],
    }


def eastern_solomons(geo: Geo) -> Plan:
    """MINI.SOLOMONS: the Marines leave their trenches (ENT.B) and attack the SNLF
    on Guadalcanal (SEQ.5B)."""
    return {
        (1, "A-3-4", A): ["DISENTRENCH MAR-1"],
        (1, "air-5", A): ["ATTACK 0828 MAR-1"],
    }


def santa_cruz(geo: Geo) -> Plan:
    """MINI.SANTACRUZ: the Japanese carriers come south; an Allied regiment attacks
    the Japanese division on Guadalcanal."""
    cv = sea_path(geo, 754, 828, 4)
    return {
        (1, "J-2", J): [f"MOVE CV-3 CV-4 CVL-3 CV-8 {_fmt(cv)}"],
        (1, "A-3-4", A): ["DISENTRENCH RGT-1"],
        (1, "air-5", A): ["ATTACK 0828 RGT-1"],
    }


PLANS: dict[str, Callable[[Geo], Plan]] = {
    "coral-sea": coral_sea,
    "midway": midway,
    "eastern-solomons": eastern_solomons,
    "santa-cruz": santa_cruz,
}

_HEAD = re.compile(r"^(Turn|Phase):\s*(\S+)\s*$", re.M)


def strategy(side: str, scenario: str) -> Callable[[str, str], str]:
    """``orders_from_form`` for a scripted U.S.N. player: the form (headers and
    comments kept) plus the plan's lines for the round it names (the report that
    came with the form is not read: the plan is fixed)."""
    make = PLANS.get(scenario)
    plan = make(world_geo()) if make is not None else {}

    def orders_from_form(form: str, report: str = "") -> str:
        head = dict(_HEAD.findall(form))
        turn, rnd = int(head.get("Turn", "0")), head.get("Phase", "")
        lines = plan.get((turn, rnd, side), [])
        return form.rstrip("\n") + "\n" + "".join(f"{ln}\n" for ln in lines)

    return orders_from_form
