"""Benchmark: adjudicate full Game-Turns of U.S.N. Campaign Game 3 (or of War in the Pacific).

Usage:  python bench/adjudicate.py [--turns N] [--seed S] [--scenario campaign-3]
        python bench/adjudicate.py --ruleset witp [--turns 3]   # Coral Sea, May 1942

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

War in the Pacific (``--ruleset witp``): a Game-Turn is three Air Phase
Allocation rounds and three naval Plot rounds (more under the 42.3.1 gate).
By default both sides plot the demonstration's mission cards (pbem.demo.witp:
Operation MO and Fletcher's counter, written from each side's order form and its
own forces; SPEED, MOVE, NIGHT, FUEL, LINK, PORT, and SEARCH once the form offers
it), the scenario replayed ``--repeat`` times from its set-up; in every mode each
Allocation round plots the demonstration's strikes (5.0: every base and carrier TF
at the Located enemy TFs it reaches, carriers first), so the Game-Turns hold the
carrier battle, and the Game-Turn with the most strikes is reported on its own; with
``--witp-orders random`` every TF that may move plots a MOVE to a sea hex up to 20
hexes away, some declare night, and the first TF of each side deploys a dummy in
each Game-Turn's first phase. Same baseline (validation), same target.
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
from pbem.core.sides import enemy_of
from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.sequence import ROUNDS, STEPS, StepKind, current_round
from pbem.rulesets.usn.state import GameState
from pbem.rulesets.usn.supply import endurance


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


def timed_round(
    rs: Any, state: Any, sheets: dict[str, str], demand: Any, counts: list[int]
) -> tuple[Any, float, float]:
    """One mail round: (new state, seconds validating, seconds adjudicating);
    ``counts`` gathers [orders, refused]."""
    t = time.perf_counter()
    accepted = {}
    for side, text in sheets.items():
        v = rs.validate(state, side, text)
        accepted[side] = list(v.accepted)
        counts[0] += len(v.accepted) + len(v.errors)
        counts[1] += len(v.errors)
    val = time.perf_counter() - t
    dice = SeededDice(b"bench", "bench", demand.turn, demand.phase)
    t = time.perf_counter()
    state = rs.adjudicate(state, accepted, dice).state
    return state, val, time.perf_counter() - t


def summary(per_turn_adj: list[float], per_turn_val: list[float], **facts: Any) -> dict[str, Any]:
    return {
        **facts,
        "turns": len(per_turn_adj),
        "adjudicate_per_turn_s": statistics.mean(per_turn_adj),
        "adjudicate_max_turn_s": max(per_turn_adj),
        "validate_per_turn_s": statistics.mean(per_turn_val),
        "adjudicate_turns_s": per_turn_adj,
        "ratio": statistics.mean(per_turn_adj) / statistics.mean(per_turn_val),
    }


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
    counts = [0, 0]
    for _ in range(turns):
        adj = val = 0.0
        for _ in range(len(ROUNDS)):
            demand = rs.pending(state)
            if demand is None:
                break
            s = GameState.from_json(state)
            sheets = {side: orders_for(rs.geo, s, side, rng) for side in demand.sides}
            state, v_s, a_s = timed_round(rs, state, sheets, demand, counts)
            val, adj = val + v_s, adj + a_s
        per_turn_adj.append(adj)
        per_turn_val.append(val)
    return summary(
        per_turn_adj,
        per_turn_val,
        scenario=scenario,
        units=len(GameState.from_json(state).units),
        units_at_start=start_units,
        setup_s=setup,
        opening_rounds=opening,
        orders=counts[0],
        refused=counts[1],
    )


def witp_orders(rs: Any, state: Any, side: str, rng: random.Random, phase: str) -> str:
    """Every TF of ``side`` that may move plots a MOVE within reach, some at night."""
    from pbem.rulesets.witp.missions import sea_route

    sea = rs.theatre_map
    lines: list[str] = []
    for tf, e in sorted(state["private"][side]["tfs"].items()):
        if e.get("in_port") and not e.get("deactivated"):
            continue
        if "naval1" in phase and not lines and not e["dummy"]:
            lines.append(f"{tf} REGP DUMMY TF{40 + rng.randrange(20)}")
        here = e["hex"]
        for _ in range(rng.randrange(6, 20)):
            options = [n for n in sea.neighbours(here) if sea.can_sail(here, n)]
            if not options:
                break
            here = rng.choice(options)
        route = sea_route(sea, e["hex"], here)
        if not route:
            continue
        lines.append(f"{tf} MOVE {here} EV 0")
        if rng.random() < 0.3:
            lines.append(f"{tf} NIGHT AFTER {rng.randrange(len(route) + 1)}")
    return "\n".join(lines) or "PASS"


HEADER = ("Game", "Side", "Turn", "Phase")


def _own_forces(view: Any) -> str:
    """The "Your forces" section of a side's report, as the demo's players read it
    (pbem.demo.witp_reading.Reading: each TF and its ships' types), without rendering it."""
    lines = ["Your forces", "-----------"]
    for f in view["forces"]:
        lines.append(f"{f['name']} ({f['commander']}) at {f['at']} [{f['provenance']}]")
        lines.append("    " + ", ".join(f"{s['type']} {s['name']}" for s in f["ships"]))
    return "\n".join(lines) + "\n\n"


def run_witp(
    turns: int, seed: int, orders: str = "mission-cards", repeat: int = 1
) -> dict[str, Any]:
    from pbem.demo.witp import strategy
    from pbem.rulesets.witp.loader import load_library
    from pbem.rulesets.witp.map import load_map
    from pbem.rulesets.witp.ruleset import WitpRuleset

    rs = WitpRuleset(load_library(), load_map())
    rng = random.Random(seed)
    per_turn_adj: list[float] = []
    per_turn_val: list[float] = []
    counts = [0, 0]
    setups: list[float] = []
    battles: list[tuple[int, int, float]] = []  # (strikes, attacks, seconds) a Game-Turn
    for _ in range(repeat if orders == "mission-cards" else 1):
        t0 = time.perf_counter()
        state: Any = rs.initial_state("coral-sea-1942", {})
        setups.append(time.perf_counter() - t0)
        players = {s: strategy(s, "coral-sea-1942") for s in ("japanese", "allied")}
        played = 0

        def sheet(state: Any, players: Any, side: str, turn: int, phase: str) -> str:
            if orders == "random" and not phase.endswith("-allocation"):
                return witp_orders(rs, state, side, rng, phase)
            # The form as the lifecycle mails it: its header, then the ruleset's form.
            form = f"Game: bench\nSide: {side}\nTurn: {turn}\nPhase: {phase}\n\n"
            form += rs.order_template(state, side)
            report = _own_forces(rs.view(state, [], side))
            sent = str(players[side](form, report)).splitlines()
            # The lifecycle reads the header off the mail before the ruleset sees it.
            return "\n".join(ln for ln in sent if ln.partition(":")[0] not in HEADER)

        while (demand := rs.pending(state)) is not None:
            adj = val = 0.0
            turn = demand.turn
            fought = [0, 0]  # strikes flown, attacks on ships (7.8.1) this Game-Turn
            while (demand := rs.pending(state)) is not None and demand.turn == turn:
                sheets = {
                    s: sheet(state, players, s, demand.turn, demand.phase) for s in demand.sides
                }
                before = len(state["disclosures"])
                state, v_s, a_s = timed_round(rs, state, sheets, demand, counts)
                val, adj = val + v_s, adj + a_s
                for d in state["disclosures"][before:]:
                    kind = d["fact"]["kind"]
                    fought[0] += kind == "strike-launched"
                    fought[1] += kind == "air-surface-attack"
            per_turn_adj.append(adj)
            per_turn_val.append(val)
            battles.append((fought[0], fought[1], adj))
            played += 1
            if played >= turns:
                break
    setup = statistics.mean(setups)
    tfs = sum(len(state["private"][s]["tfs"]) for s in state["private"])
    return summary(
        per_turn_adj,
        per_turn_val,
        scenario=f"coral-sea-1942 (witp, {orders} orders"
        + (f", played {repeat} times)" if orders == "mission-cards" else ")"),
        units=tfs,
        units_at_start=9,
        setup_s=setup,
        opening_rounds=0,
        orders=counts[0],
        refused=counts[1],
        carrier_battle=max(battles),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="campaign-3")
    ap.add_argument("--ruleset", choices=("usn", "witp"), default="usn")
    ap.add_argument("--witp-orders", choices=("mission-cards", "random"), default="mission-cards")
    ap.add_argument("--repeat", type=int, default=5, help="witp mission cards: games played")
    args = ap.parse_args()
    r = (
        run_witp(args.turns, args.seed, args.witp_orders, args.repeat)
        if args.ruleset == "witp"
        else run(args.turns, args.seed, args.scenario)
    )
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
    if "carrier_battle" in r:
        strikes, attacks, seconds = r["carrier_battle"]
        print(
            f"carrier battle: the Game-Turn with most strikes ({strikes} strikes, {attacks} "
            f"attacks on ships): {seconds * 1000:8.1f} ms"
        )
    print(f"ratio adjudicate / baseline:                 {r['ratio']:8.2f}")
    verdict = "met" if r["adjudicate_per_turn_s"] < 0.2 else "NOT met"
    print(f"target < 200 ms per full turn (mean): {verdict}")
    if verdict != "met":
        sys.exit(1)


if __name__ == "__main__":
    main()
