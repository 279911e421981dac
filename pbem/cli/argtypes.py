"""Argument types the command groups share (their own module, so that a group and
command.py, which imports every group, never import each other)."""

from __future__ import annotations

import argparse


def positive_number(text: str) -> float:
    """An argparse type: a number above 0 (scales, timeouts)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not above 0")
    return value
