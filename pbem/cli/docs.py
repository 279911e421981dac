"""``pbem docs html FOLDER``: the player's docs as HTML pages, to publish where the
players can reach them (the folder ``[reports] docs_url`` points at)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    docs = sub.add_parser("docs", help="the player's docs (guides, orders, rule index)")
    docs_sub = docs.add_subparsers(dest="docs_command", metavar="ACTION")
    p = docs_sub.add_parser("html", help="write the player's docs as HTML pages into FOLDER")
    p.add_argument("folder", type=Path, help="where to write them (made if missing)")
    p.set_defaults(func=_html)

    def _help(args: argparse.Namespace) -> int:
        docs.print_help()
        return 2

    docs.set_defaults(func=_help)


def _html(args: argparse.Namespace) -> int:
    from pbem.reports.playerdocs import write_docs

    index = write_docs(args.folder)
    print(
        f"wrote the player's docs into {args.folder} (start at {index.name}); publish the folder and set [reports] docs_url to its address"
    )
    return 0
