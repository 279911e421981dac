"""The ``pbem`` command line.

Each group of commands lives in its own module of ``pbem/cli/`` that defines
``add_commands(subparsers)``; every parser sets ``func`` to a callable taking the
parsed ``argparse.Namespace`` and returning an exit code.

:func:`main` is the error boundary: a user's mistake (a :class:`PbemError`, a
database without tables or out of reach, a file that cannot be read or written)
becomes one redacted line on stderr and exit code 1; anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from pbem import __version__
from pbem.cli import data, docs, player, service
from pbem.cli import map as map_commands
from pbem.config import Config, LogLevel, redact
from pbem.core.errors import PbemError

# Command groups, in the order ``pbem --help`` lists them.
COMMAND_GROUPS = (
    service,  # demo, init, serve, db upgrade, game/moderator commands, archive, verify
    player,  # keygen, sign, send
    map_commands,  # map
    data,  # data report
    docs,  # docs html
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
        "--log-level",
        default=None,
        type=str.upper,
        choices=[level.value for level in LogLevel],
        help="DEBUG, INFO, WARNING or ERROR (default: from config)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    if args.log_level:
        logging.basicConfig(level=args.log_level)
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the boundary: a user's mistake is one line, a bug a traceback
        problem = user_error(exc, args)
        if problem is None:
            raise
        config: Config | None = getattr(args, "loaded_config", None)
        print(f"pbem: {config.redact(problem) if config else redact(problem)}", file=sys.stderr)
        return 1


def user_error(exc: Exception, args: argparse.Namespace) -> str | None:
    """What to tell the user about ``exc``, or None if it is a bug."""
    if isinstance(exc, PbemError):
        return str(exc)
    from sqlalchemy.exc import DBAPIError, OperationalError

    if isinstance(exc, DBAPIError):
        loaded: Config | None = getattr(args, "loaded_config", None)
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        # SQLite says "no such table"; PostgreSQL raises UndefinedTable (SQLSTATE 42P01).
        if "no such table" in reason or getattr(exc.orig, "sqlstate", None) == "42P01":
            config = args.config or os.environ.get("PBEM_CONFIG") or "pbem.toml"
            return f"the database has no tables yet: run `pbem -c {config} db upgrade`"
        if isinstance(exc, OperationalError):  # cannot connect, cannot open the file
            where = f" at {loaded.database.url}" if loaded else ""
            return f"cannot use the database{where}: {reason}"
        return None
    if isinstance(exc, OSError) and exc.filename is not None:
        # A file or folder named on the command line or in the configuration.
        return f"{exc.filename}: {exc.strerror or exc}"
    return None
