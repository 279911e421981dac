"""``pbem data``: the game data behind a ruleset.

pbem data report usn|witp   values per file by source (rulebook / errata / reconstructed ...)
pbem data check usn|witp    load and cross-check everything; OK or the errors
pbem data units usn|witp    every counter (U.S.N.) or unit item (WitP) with its values
pbem data calibrate witp    the combat values replayed against the carrier battles of 1942
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

SOURCES = ("rulebook", "errata", "reconstructed", "moderator")
RULESETS = ("usn", "witp")  # the games with data files (the demo's game has none)


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    data = sub.add_parser("data", help="game data: provenance report and checks")
    data_sub = data.add_subparsers(dest="data_command", metavar="ACTION")
    for name, func, text in (
        ("report", _report, "values per data file by source"),
        ("check", _check, "load every data file and cross-check it against the map"),
        ("units", _units, "list every counter with its values and their sources"),
    ):
        p = data_sub.add_parser(name, help=text)
        p.add_argument("ruleset", choices=RULESETS, help="which game's data")
        p.add_argument("--dir", type=Path, default=None, help="data directory (default: bundled)")
        p.set_defaults(func=func)

    cal = data_sub.add_parser(
        "calibrate", help="replay the 1942 carrier battles through the combat rules, many times"
    )
    cal.add_argument("ruleset", choices=("witp",), help="which game's data")
    cal.add_argument("--trials", type=int, default=500, help="replays of each case (default 500)")
    cal.add_argument("--seed", type=int, default=1942, help="the dice's seed (default 1942)")
    cal.add_argument("--case", action="append", default=None, help="a case by name (repeatable)")
    cal.add_argument("--picture", type=Path, default=None, help="write the histograms to this PNG")
    cal.set_defaults(func=_calibrate)

    def _help(args: argparse.Namespace) -> int:
        data.print_help()
        return 2

    data.set_defaults(func=_help)


def _report(args: argparse.Namespace) -> int:
    if args.ruleset == "witp":
        from pbem.cli.witpdata import WITP_SOURCES
        from pbem.cli.witpdata import provenance_report as witp_report

        print(format_report(witp_report(args.dir), WITP_SOURCES))
        return 0
    from pbem.rulesets.usn.loader import provenance_report

    report = provenance_report(args.dir)
    print(format_report(report))
    return 0


def format_report(report: dict[str, dict[str, int]], sources: tuple[str, ...] = SOURCES) -> str:
    """A plain-text table: one row per file, a column per source, and a total row."""
    cols = [s for s in sources if s != "moderator" or any(s in r for r in report.values())]
    width = max(len("file"), *(len(f) for f in report)) if report else 4
    head = f"{'file':<{width}}  " + "  ".join(f"{c:>13}" for c in cols) + f"  {'total':>7}"
    lines = [head, "-" * len(head)]
    totals = dict.fromkeys(cols, 0)
    for fname, counts in report.items():
        row = [counts.get(c, 0) for c in cols]
        for c, n in zip(cols, row, strict=True):
            totals[c] += n
        cells = "  ".join(f"{n:>13}" for n in row)
        lines.append(f"{fname:<{width}}  {cells}  {sum(row):>7}")
    lines.append("-" * len(head))
    cells = "  ".join(f"{totals[c]:>13}" for c in cols)
    lines.append(f"{'total':<{width}}  {cells}  {sum(totals.values()):>7}")
    return "\n".join(lines)


def _check(args: argparse.Namespace) -> int:
    if args.ruleset == "witp":
        from pbem.cli.witpdata import check

        return check(args.dir)
    from pbem.rulesets.usn.data_setup import has_bases
    from pbem.rulesets.usn.loader import check_world, load_world

    problems = check_world(args.dir)
    if problems:
        for p in problems:
            print(f"{p.where}: {p.reason}", file=sys.stderr)
        print(f"FAILED: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    world = load_world(args.dir)
    if world.map is None:
        mapped = "WITHOUT a map (map checks skipped)"
    elif not has_bases(world.map):
        mapped = "with a map that lists no bases (set-up checks against bases skipped)"
    else:
        mapped = "against the map"
    scenarios = ", ".join(world.scenarios)
    print(
        f"OK: {len(world.catalogue.counters)} counters, {len(world.arrivals)} arrivals, "
        f"{len(world.scenarios)} scenarios ({scenarios}), checked {mapped}"
    )
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from pbem.cli.witpcalibration import calibrate

    return calibrate(args.case, args.trials, args.seed, args.picture)


def _units(args: argparse.Namespace) -> int:
    if args.ruleset == "witp":
        from pbem.cli.witpdata import units

        print(units(args.dir))
        return 0
    from pbem.rulesets.usn.loader import load_world

    print(format_units(load_world(args.dir, with_map=False).catalogue))
    return 0


def format_units(catalogue: Any) -> str:
    """One line per counter: side, ID, name, values; '*' marks a reconstructed value."""
    from pbem.rulesets.usn.units import LandCounter, Source

    lines = []
    for c in sorted(catalogue.counters.values(), key=lambda c: (c.side, c.type, _number(c.id))):
        fields: tuple[str, ...]
        if isinstance(c, LandCounter):
            fields = ("attack", "defense", "movement", "transport_points")
        else:
            fields = ("defense", "anti_aircraft", "surface_attack", "movement")
            fields += tuple(
                f
                for f in ("air_capacity", "transport_capacity", "emergency_capacity")
                if getattr(c, f)
            )
        values = " ".join(
            f"{f}={getattr(c, f)}"
            + ("*" if c.provenance.of(f) is Source.RECONSTRUCTED else "")
            + ("!" if c.provenance.of(f) is Source.MODERATOR else "")
            for f in fields
        )
        lines.append(f"{c.side:<9} {c.id:<8} {c.name[:44]:<44} {values}")
    lines.append(
        "(* reconstructed value, ! moderator override; everything else rulebook or errata)"
    )
    return "\n".join(lines)


def _number(uid: str) -> int:
    tail = uid.rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0
