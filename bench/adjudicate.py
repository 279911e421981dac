"""Benchmark: adjudicate full Game-Turns of U.S.N. Campaign Game 3, and of War in
the Pacific's Coral Sea (coral-sea-1942).

Usage:  python bench/adjudicate.py [--turns N] [--seed S] [--scenario campaign-3]
                                   [--witp-turns N]

For every mail round both sides get a realistic order set in which every unit
that can move does: ships sail up to their Movement Allowance along sea routes
(avoiding enemy ships), land units step to an adjacent land hex, transports
load troops, aircraft transfer between bases, and each side plots CAP and
strikes in the air rounds. Each round is timed twice in the same run:

* baseline: loading the state and validating both sides' order sheets
  (``Ruleset.validate``), which parses and checks every order;
* adjudication: ``Ruleset.adjudicate`` on the accepted orders.

Reported: time per full Game-Turn (six rounds) for each, and their ratio.
Target: a full Campaign Game 3 turn adjudicated in under 0.2 s.

War in the Pacific: every mail round of a Game-Turn (stage 0: the three naval
Plot Segments, each playing on through the Air Phases and the end of the turn),
each side's orders written by the demonstration's scripted sides
(pbem.demo_witp) from its order form and view. Per round, timed:

* baseline: validating both sides' order sheets;
* adjudication: ``Ruleset.adjudicate``;
* views: what the publisher asks of the ruleset for each side's report, its
  view and its map picture (report_map.py; drawing the PNG is bench/report.py's).

Reported per Game-Turn, with the ratio (adjudication + views) / baseline.
Target: a WitP Game-Turn adjudicated, with both sides' views, in under 0.2 s.
The scenario has three Game-Turns; ``--witp-turns`` more plays a longer game
(a moderator's data pack, as ``datapack=`` gives one).

The script exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.core.dice import SeededDice
from pbem.core.ruleset import Ruleset
from pbem.demo_witp import SIDES as WITP_SIDES
from pbem.demo_witp import Reading, offered_orders
from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.sequence import ROUNDS, STEPS, StepKind, current_round
from pbem.rulesets.usn.sides import enemy_of
from pbem.rulesets.usn.state import GameState
from pbem.rulesets.usn.supply import endurance
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.report_map import report_picture
from pbem.rulesets.witp.ruleset import WitpRuleset

TARGET_S = 0.2  # per full Game-Turn, both games


def sea_route(geo: Geo, start: int, steps: int, blocked: set[int], rng: random.Random) -> list[int]:
    """A random walk that keeps going away from the start, never into ``blocked``."""
    route: list[int] = []
    seen = {start}
    here = start
    for _ in range(steps):
        options = [n for n in geo.naval_nbrs[here] if n not in seen and n not in blocked]
        if not options:
            break
        here = rng.choice(options)
        seen.add(here)
        route.append(here)
    return route


def route_home(geo: Geo, start: int, ports: set[int], steps: int, blocked: set[int]) -> list[int]:
    """The first ``steps`` hexes of a shortest sea route to the nearest port."""
    parent = {start: start}
    queue = deque([start])
    goal = None
    while queue:
        h = queue.popleft()
        if h in ports:
            goal = h
            break
        for n in geo.naval_nbrs[h]:
            if n not in parent and (n not in blocked or n in ports):
                parent[n] = h
                queue.append(n)
    if goal is None:
        return []
    route = [goal]
    while route[-1] != start:
        route.append(parent[route[-1]])
    return list(reversed(route))[1 : steps + 1]


def orders_for(geo: Geo, s: GameState, side: str, rng: random.Random) -> str:
    rnd = current_round(s)
    kinds = {STEPS[n - 1].kind for n in rnd.steps if STEPS[n - 1].side in (side, None)}
    kinds |= {STEPS[n - 1].kind for n in rnd.steps if STEPS[n - 1].kind is StepKind.STRIKE}
    enemy = enemy_of(side)
    enemy_ships = {
        u.hex for u in s.units.values() if u.side == enemy and u.is_naval and u.hex is not None
    }
    lines: list[str] = []
    if StepKind.LAND_MOVE in kinds:
        for u in s.side_units(side):
            if u.kind != "land" or u.hex is None or u.entrenched or not u.supplied:
                continue
            options = [n for n in geo.land_nbrs[u.hex] if n not in geo.closed]
            if options:
                lines.append(f"MOVE {u.uid} {rng.choice(options):04d}")
    if StepKind.AIR_SEA in kinds:
        ports = {h for h, b in s.bases.items() if b.owner == side and b.has_naval}
        for u in s.side_units(side):
            if not u.is_naval or u.hex is None or u.training:
                continue
            if u.is_transport and geo.is_land(u.hex):
                cargo = [
                    c.uid
                    for c in s.units_at(u.hex)
                    if c.side == side and c.kind == "land" and 0 < c.tp <= u.capacity
                ]
                if cargo:
                    lines.append(f"EMBARK {u.uid} {cargo[0]}")
            if u.fuel >= endurance(u) - 1:  # time to refuel: head for port (SUP.G)
                if u.hex in ports:
                    lines.append(f"BASE {u.uid}")
                    continue
                route = route_home(geo, u.hex, ports, max(1, u.ma - 1), enemy_ships)
                if route:
                    lines.append(f"MOVE {u.uid} {' '.join(f'{h:04d}' for h in route)}")
                    if route[-1] in ports:
                        lines.append(f"BASE {u.uid}")
                continue
            route = sea_route(geo, u.hex, max(1, u.ma - 1), enemy_ships, rng)
            if route:
                word = (
                    "CONTINUE"
                    if u.is_transport and lines and lines[-1].startswith("EMBARK " + u.uid)
                    else "MOVE"
                )
                lines.append(f"{word} {u.uid} {' '.join(f'{h:04d}' for h in route)}")
        bases = [h for h, b in s.bases.items() if b.owner == side and b.has_air]
        for loc, a in list(s.air.get(side, {}).items())[:8]:
            if loc.isdigit() and a.lac >= 2:
                near = [h for h in bases if h != int(loc) and geo.air_distance(int(loc), h) <= 6]
                if near:
                    lines.append(f"TRANSFER 1 LAC {loc} TO {rng.choice(near):04d}")
    if StepKind.STRIKE in kinds:
        missions = 0
        for loc, a in s.air.get(side, {}).items():
            if missions >= 9:
                break
            kind = "NAC" if a.nac else "LAC" if a.lac else None
            if kind is None:
                continue
            lines.append(f"CAP {max(1, a.get(kind) // 2)} {kind} {loc}")
            missions += 1
    return "\n".join(lines)


def validate_all(
    rs: Ruleset, state: Any, sheets: dict[str, str]
) -> tuple[dict[str, list[str]], int, int]:
    """Both sides' sheets validated: the accepted orders by side, how many order
    lines there were, and how many were refused."""
    accepted: dict[str, list[str]] = {}
    lines = refused = 0
    for side, text in sheets.items():
        v = rs.validate(state, side, text)
        accepted[side] = list(v.accepted)
        lines += len(v.accepted) + len(v.errors)
        refused += len(v.errors)
    return accepted, lines, refused


def run(turns: int, seed: int, scenario: str) -> dict[str, Any]:
    rs = UsnRuleset(load_world(), world_geo())
    t0 = time.perf_counter()
    state: Any = rs.initial_state(scenario, {})
    setup = time.perf_counter() - t0
    # The opening (set-up rounds by mail, SETUP.JFIRST) is played on the defaults,
    # untimed: the benchmark times full Game-Turns of six rounds.
    opening = 0
    while (demand := rs.pending(state)) is not None and (
        current_round(GameState.from_json(state)) not in ROUNDS
    ):
        defaults = {side: list(rs.default_orders(state, side)) for side in demand.sides}
        dice = SeededDice(b"bench", "bench", demand.turn, demand.phase)
        state = rs.adjudicate(state, defaults, dice).state
        opening += 1
    start_units = len(state["units"])
    rng = random.Random(seed)
    per_turn_adj: list[float] = []
    per_turn_val: list[float] = []
    orders_total = 0
    refused = 0
    for _ in range(turns):
        adj = val = 0.0
        for _ in range(len(ROUNDS)):
            demand = rs.pending(state)
            if demand is None:
                break
            s = GameState.from_json(state)
            sheets = {side: orders_for(rs.geo, s, side, rng) for side in demand.sides}
            t = time.perf_counter()
            accepted, n, r = validate_all(rs, state, sheets)
            val += time.perf_counter() - t
            orders_total, refused = orders_total + n, refused + r
            dice = SeededDice(b"bench", "bench", demand.turn, demand.phase)
            t = time.perf_counter()
            state = rs.adjudicate(state, accepted, dice).state
            adj += time.perf_counter() - t
        per_turn_adj.append(adj)
        per_turn_val.append(val)
    return {
        "scenario": scenario,
        "turns": len(per_turn_adj),
        "units": len(GameState.from_json(state).units),
        "units_at_start": start_units,
        "setup_s": setup,
        "opening_rounds": opening,
        "orders": orders_total,
        "refused": refused,
        "adjudicate_per_turn_s": statistics.mean(per_turn_adj),
        "adjudicate_max_turn_s": max(per_turn_adj),
        "validate_per_turn_s": statistics.mean(per_turn_val),
        "adjudicate_turns_s": per_turn_adj,
        "ratio": statistics.mean(per_turn_adj) / statistics.mean(per_turn_val),
    }


def run_witp(turns: int) -> dict[str, Any]:
    """Coral Sea 1942, ``turns`` Game-Turns after the automatic opening."""
    rs = WitpRuleset(load_library(), load_map())
    longer = {"pack": {"name": "bench"}, "scenario": {"game-turns": {"value": turns}}}
    t0 = time.perf_counter()
    state: Any = rs.initial_state("coral-sea-1942", {"datapack": longer} if turns != 3 else {})
    setup = time.perf_counter() - t0
    events: Any = ()
    while (demand := rs.pending(state)) is not None and not demand.sides:  # T1-open
        result = rs.adjudicate(state, {}, SeededDice(b"bench", "witp", demand.turn, demand.phase))
        state, events = result.state, result.events
    per_turn: dict[int, dict[str, float]] = {}
    rounds = orders_total = refused = 0
    while (demand := rs.pending(state)) is not None:
        times = per_turn.setdefault(demand.turn, {"validate": 0.0, "adjudicate": 0.0, "views": 0.0})
        sheets = {}
        for side in demand.sides:  # as the scripted side writes them: form and view only
            view = rs.view(state, events, side)
            forces = {f["name"]: f["at"] for f in view["forces"]}
            offered = offered_orders(rs.order_template(state, side))
            reading = Reading(side, demand.turn, demand.phase, offered, forces)
            sheets[side] = "\n".join(WITP_SIDES[side](reading))
        t = time.perf_counter()
        accepted, n, r = validate_all(rs, state, sheets)
        times["validate"] += time.perf_counter() - t
        orders_total, refused = orders_total + n, refused + r
        dice = SeededDice(b"bench", "witp", demand.turn, demand.phase)
        t = time.perf_counter()
        result = rs.adjudicate(state, accepted, dice)
        times["adjudicate"] += time.perf_counter() - t
        state, events = result.state, result.events
        t = time.perf_counter()
        for side in demand.sides:
            report_picture(rs.theatre_map, rs.view(state, events, side))
        times["views"] += time.perf_counter() - t
        rounds += 1
    adj = [t["adjudicate"] for t in per_turn.values()]
    views = [t["views"] for t in per_turn.values()]
    val = [t["validate"] for t in per_turn.values()]
    both = [a + v for a, v in zip(adj, views, strict=True)]
    return {
        "turns": len(per_turn),
        "rounds": rounds,
        "setup_s": setup,
        "orders": orders_total,
        "refused": refused,
        "validate_per_turn_s": statistics.mean(val),
        "adjudicate_per_turn_s": statistics.mean(adj),
        "views_per_turn_s": statistics.mean(views),
        "turn_s": statistics.mean(both),
        "worst_turn_s": max(both),
        "ratio": statistics.mean(both) / statistics.mean(val),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="campaign-3")
    ap.add_argument("--witp-turns", type=int, default=3)
    args = ap.parse_args()
    r = run(args.turns, args.seed, args.scenario)
    print(
        f"scenario {r['scenario']}: {r['turns']} Game-Turns, {r['units_at_start']} units at "
        f"the start and {r['units']} at the end, "
        f"{r['orders']} orders ({r['refused']} refused)"
    )
    print(f"set-up (initial state, world data loaded):  {r['setup_s'] * 1000:8.1f} ms")
    print(f"baseline: load + validate both sides / turn: {r['validate_per_turn_s'] * 1000:8.1f} ms")
    print(
        f"adjudicate / full turn (mean):               {r['adjudicate_per_turn_s'] * 1000:8.1f} ms"
    )
    print(
        f"adjudicate / full turn (worst):              {r['adjudicate_max_turn_s'] * 1000:8.1f} ms"
    )
    print(
        "adjudicate per turn (ms):                    "
        + " ".join(f"{t * 1000:.0f}" for t in r["adjudicate_turns_s"])
    )
    print(f"ratio adjudicate / baseline:                 {r['ratio']:8.2f}")
    usn_met = r["adjudicate_per_turn_s"] < TARGET_S
    print(f"target < 200 ms per full turn (mean): {'met' if usn_met else 'NOT met'}")

    w = run_witp(args.witp_turns)
    print(
        f"\nWar in the Pacific coral-sea-1942: {w['turns']} Game-Turns, {w['rounds']} mail "
        f"rounds, {w['orders']} orders ({w['refused']} refused)"
    )
    print(f"set-up (initial state, data packs resolved): {w['setup_s'] * 1000:8.2f} ms")
    print(f"baseline: validate both sides / turn:        {w['validate_per_turn_s'] * 1000:8.2f} ms")
    print(
        f"adjudicate / Game-Turn (mean):               {w['adjudicate_per_turn_s'] * 1000:8.2f} ms"
    )
    print(f"views + map pictures, both sides / Game-Turn:{w['views_per_turn_s'] * 1000:8.2f} ms")
    print(f"adjudicate + views / Game-Turn (mean):       {w['turn_s'] * 1000:8.2f} ms")
    print(f"adjudicate + views / Game-Turn (worst):      {w['worst_turn_s'] * 1000:8.2f} ms")
    print(f"ratio (adjudicate + views) / baseline:       {w['ratio']:8.2f}")
    witp_met = w["turn_s"] < TARGET_S
    print(f"target < 200 ms per Game-Turn (mean): {'met' if witp_met else 'NOT met'}")
    if not (usn_met and witp_met):
        sys.exit(1)


if __name__ == "__main__":
    main()
