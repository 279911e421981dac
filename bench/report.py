"""Benchmark: one side's report of U.S.N. Campaign Game 3, with and without its map.

Usage:  python bench/report.py [--rounds N] [--seed S] [--scenario campaign-3]

The game is set up and played as bench/adjudicate.py plays it (every unit that
can move does), and after each mail round each side's report is rendered from
that side's view, as the lifecycle renders it (pbem.lifecycle.publishing):

* baseline: the text and HTML alone (``render_report(..., with_map=False)``);
* full: text, HTML and the map picture (the ruleset's map description of the
  view, drawn to PNG).

Both are measured in the same run on the same views, alternately, as this
process's CPU time (the shared machine's other work does not count; its wall
clock swings with the load). A report
that draws a base map (once per process, map and scale: the overview's, and
the close-up's at each of its two scales) is reported apart and not counted in
the mean; the mean with them is printed too. Target: a full report costs at
most twice its text and HTML alone. Exits non-zero when it is missed.

The PNG's deflate is ISA-L's where the ``isal`` package is installed (a
dependency of pbem), else zlib's: the line "PNG deflate" says which ran.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from adjudicate import orders_for
from PIL import Image

from pbem.core.dice import SeededDice
from pbem.reports import png
from pbem.reports.context import Header
from pbem.reports.mapimage import _base_map
from pbem.reports.report import render_report
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.sequence import ROUNDS, current_round
from pbem.rulesets.usn.state import GameState

TARGET = 2.0


def run(rounds: int, seed: int, scenario: str) -> dict[str, Any]:
    rs = UsnRuleset(load_world(), world_geo())
    state: Any = rs.initial_state(scenario, {})
    while (demand := rs.pending(state)) is not None and (
        current_round(GameState.from_json(state)) not in ROUNDS
    ):
        defaults = {side: list(rs.default_orders(state, side)) for side in demand.sides}
        state = rs.adjudicate(
            state, defaults, SeededDice(b"b", "b", demand.turn, demand.phase)
        ).state
    rng = random.Random(seed)
    words: list[float] = []
    full: list[float] = []
    first: list[float] = []  # the reports that drew a base map (once per process and scale)
    png_bytes: list[int] = []
    png_size = (0, 0)
    for _ in range(rounds):
        demand = rs.pending(state)
        if demand is None:
            break
        s = GameState.from_json(state)
        sheets = {side: orders_for(rs.geo, s, side, rng) for side in demand.sides}
        accepted = {side: list(rs.validate(state, side, t).accepted) for side, t in sheets.items()}
        dice = SeededDice(b"bench", "bench", demand.turn, demand.phase)
        result = rs.adjudicate(state, accepted, dice)
        state = result.state
        for side in ("allied", "japanese"):
            view = rs.view(state, result.events, side)
            header = Header(
                "cg3", "usn", rs.title, scenario, side, side, f"cg3: turn {demand.turn}",
                phase={"turn": demand.turn, "name": demand.phase, "title": demand.phase,
                       "sides": list(demand.sides), "deadline": "none",
                       "seed_commitment": "ab" * 32},
                order_form=rs.order_template(state, side),
            )  # fmt: skip
            t = time.process_time()
            render_report(header, view, with_map=False)
            words.append(time.process_time() - t)
            drawn = _base_map.cache_info().misses
            t = time.process_time()
            report = render_report(header, view, rs.map_picture(view))
            spent = time.process_time() - t
            assert report.png is not None
            png_bytes.append(len(report.png))
            png_size = Image.open(io.BytesIO(report.png)).size
            (full if _base_map.cache_info().misses == drawn else first).append(spent)
    assert full, "no report rendered from drawn base maps"
    return {
        "reports": len(words),
        "words_ms": statistics.mean(words) * 1000,
        "full_ms": statistics.mean(full) * 1000,
        "all_ms": statistics.mean(full + first) * 1000,
        "first": len(first),
        "first_ms": statistics.mean(first) * 1000 if first else 0.0,
        "png_kib": statistics.mean(png_bytes) / 1024,
        "png_size": png_size,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="campaign-3")
    args = ap.parse_args()
    r = run(args.rounds, args.seed, args.scenario)
    ratio = r["full_ms"] / r["words_ms"]
    print(f"scenario {args.scenario}: {r['reports']} reports (one per side per round)")
    print(f"baseline: text + HTML alone / report:         {r['words_ms']:8.1f} ms")
    print(f"full: text + HTML + map / report (mean):      {r['full_ms']:8.1f} ms")
    print(f"  reports that drew a base map: {r['first']}, mean     {r['first_ms']:8.1f} ms")
    print(f"  all reports, those included (mean):         {r['all_ms']:8.1f} ms")
    print(f"  the map alone (full - text + HTML):         {r['full_ms'] - r['words_ms']:8.1f} ms")
    w, h = r["png_size"]
    print(f"map PNG size (mean):                          {r['png_kib']:8.1f} KiB ({w} x {h} px)")
    print(f"PNG deflate:                                  {png.DEFLATE}")
    print(f"ratio full / text + HTML:                     {ratio:8.2f}")
    met = ratio <= TARGET
    print(f"target full <= {TARGET:.0f}x text + HTML: {'met' if met else 'NOT met'}")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
