"""Commands of the ``pbem`` CLI (see pbem/cli.py)."""

from __future__ import annotations

import argparse


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Not yet filled in."""
