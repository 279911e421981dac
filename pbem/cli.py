"""The ``pbem`` command line.

Each group of commands lives in its own ``pbem/cli_*.py`` module that defines
``add_commands(subparsers)``; every parser sets ``func`` to a callable taking the
parsed ``argparse.Namespace`` and returning an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from pbem import __version__

# Command groups, in the order ``pbem --help`` lists them.
COMMAND_MODULES = (
    "pbem.cli_service",  # init, serve, db upgrade, game/moderator commands, archive, verify
    "pbem.cli_player",  # keygen, sign, send
    "pbem.cli_map",  # map
    "pbem.cli_data",  # data report
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pbem",
        description="Play-by-email moderator for Pacific War wargames (U.S.N.).",
    )
    parser.add_argument("--version", action="version", version=f"pbem {__version__}")
    parser.add_argument(
        "-c",
        "--config",
        default=None,
        help="configuration file (default: $PBEM_CONFIG or ./pbem.toml)",
    )
    parser.add_argument(
        "--log-level", default=None, help="DEBUG, INFO, WARNING or ERROR (default: from config)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    if args.log_level:
        logging.basicConfig(level=args.log_level.upper())
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the boundary: a clear one-line error, not a traceback
        from pbem.core.errors import PbemError

        if isinstance(exc, PbemError):
            print(f"pbem: {exc}", file=sys.stderr)
            return 1
        raise
