"""Commands of the ``pbem`` CLI (see pbem/cli/command.py): ``pbem map``."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pbem.cli.argtypes import positive_number
from pbem.core.errors import DataError


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg,unused-ignore]
    p = sub.add_parser("map", help="draw a game's map as a PNG picture")
    games = p.add_subparsers(dest="game", metavar="GAME")
    usn = games.add_parser("usn", help="the U.S.N. map")
    usn.add_argument("--out", required=True, type=Path, help="PNG file to write")
    usn.add_argument("--scenario", default=None, help="also draw this scenario's units")
    usn.add_argument(
        "--start",
        choices=("game1", "game2"),
        default=None,
        help="colour base owners as at this start (default: the scenario's, or game1)",
    )
    usn.add_argument(
        "--scale", type=positive_number, default=1.0, help="picture scale (default 1.0)"
    )
    usn.add_argument("--hex-numbers", action="store_true", help="print every hex number")
    usn.set_defaults(func=_map_usn)
    witp = games.add_parser("witp", help="the War in the Pacific theatre map (Map Section E)")
    witp.add_argument("--out", required=True, type=Path, help="PNG file to write")
    witp.add_argument(
        "--start",
        choices=("may1942", "none"),
        default="may1942",
        help="colour bases by who held them at this start (default may1942; none: grey)",
    )
    witp.add_argument(
        "--overrides", type=Path, default=None, help="a moderator's map corrections (TOML)"
    )
    witp.add_argument(
        "--scale", type=positive_number, default=1.0, help="picture scale (default 1.0)"
    )
    witp.add_argument("--hex-numbers", action="store_true", help="print every hex number")
    witp.set_defaults(func=_map_witp)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def _map_usn(args: argparse.Namespace) -> int:
    from pbem.reports.mapimage import render_map
    from pbem.rulesets.usn.loader import load_map
    from pbem.rulesets.usn.picture import map_picture

    m = load_map()
    units: Mapping[Any, Sequence[tuple[str, str]]] | None = None
    start = args.start or "game1"
    title = "U.S.N. (SPI 1971): reconstructed map"
    if args.scenario:
        units, scenario_start = _scenario_units(args.scenario)
        start = args.start or scenario_start or start
        title += f": {args.scenario}"
    png = render_map(
        map_picture(m, units=units, start=start),
        title=title,
        scale=args.scale,
        hex_numbers=args.hex_numbers,
    )
    args.out.write_bytes(png)
    print(f"wrote {args.out} ({len(png)} bytes)")
    return 0


def _map_witp(args: argparse.Namespace) -> int:
    import tomllib

    from pbem.reports.mapimage import render_map
    from pbem.rulesets.witp.map import load_map
    from pbem.rulesets.witp.picture import map_picture

    overrides = None
    if args.overrides is not None:
        try:
            overrides = tomllib.loads(args.overrides.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise DataError(str(args.overrides), str(e)) from None
    m = load_map(overrides)
    start = None if args.start == "none" else args.start
    png = render_map(
        map_picture(m, start=start),
        title=f"War in the Pacific: Map Section {m.section} (reconstructed; bases {args.start})",
        scale=args.scale,
        hex_numbers=args.hex_numbers,
    )
    args.out.write_bytes(png)
    print(f"wrote {args.out} ({len(png)} bytes)")
    return 0


def _scenario_units(
    name: str,
) -> tuple[Mapping[Any, Sequence[tuple[str, str]]] | None, str | None]:
    """Set-up units by hex from ``pbem.rulesets.usn.loader.load_scenario``, if present.

    Exact placements (SETUP.HEXSPEC: the first hex of a printed pair) are drawn;
    area, free and off-map set-ups have no hex yet and are left out. Returns the
    units and the scenario's base-ownership start ("game1"/"game2").
    """
    try:
        data = importlib.import_module("pbem.rulesets.usn.loader")
    except ImportError:
        return None, None
    loader = getattr(data, "load_scenario", None)
    if loader is None:
        return None, None
    try:
        scenario = loader(name)
    except KeyError:
        raise DataError(f"scenario {name}", "unknown scenario") from None
    out: dict[Any, list[tuple[str, str]]] = {}
    for dep in _get(scenario, "deployments") or ():
        hexes = _get(_get(dep, "at"), "hexes") or ()
        if not hexes:
            continue
        side = str(getattr(_get(dep, "side"), "value", _get(dep, "side")))
        for unit in _get(dep, "units") or ():
            out.setdefault(hexes[0], []).append((side, str(unit)))
    start = _get(scenario, "bases")
    return out, start if isinstance(start, str) else None


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)
