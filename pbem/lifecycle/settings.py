"""A game's settings as the moderator gives them (CREATE k=v, SET g k=v): each
key's reader, which refuses a value of the wrong kind or range with the reason."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def boolean(value: str) -> bool:
    word = value.lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError("not true or false")


def hours(minimum: float, *, above: bool) -> Callable[[str], float]:
    def parse(value: str) -> float:
        number = float(value)
        if not math.isfinite(number) or number < minimum or (above and number == minimum):
            raise ValueError(f"must be {'above' if above else 'at least'} {minimum:g}")
        return number

    return parse


def count(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("must be 0 or more")
    return number


# Every setting a game has, and how its value is read and checked.
SETTINGS: dict[str, Callable[[str], Any]] = {
    "deadline_hours": hours(0, above=True),
    "grace_hours": hours(0, above=False),
    "reminder_hours": hours(0, above=False),
    "early_adjudication": boolean,
    "no_orders_policy": str,
    "max_pauses": count,
    "max_pause_days": hours(0, above=True),
    "max_extension_hours": hours(0, above=True),
}
