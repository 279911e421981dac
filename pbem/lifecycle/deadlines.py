"""Deadline arithmetic: pure functions, ``now`` always passed in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.config import GamesConfig, NoOrdersPolicy


@dataclass(frozen=True, slots=True)
class PhaseTimes:
    deadline: datetime
    grace_until: datetime
    remind_at: datetime


def game_settings(defaults: GamesConfig, overrides: dict[str, Any]) -> dict[str, Any]:
    """A game's settings: the configuration's defaults with the game's own on top."""
    settings: dict[str, Any] = {
        "deadline_hours": defaults.deadline_hours,
        "grace_hours": defaults.grace_hours,
        "reminder_hours": defaults.reminder_hours,
        "early_adjudication": defaults.early_adjudication,
        "no_orders_policy": defaults.no_orders_policy,
        "max_pauses": defaults.max_pauses,
        "max_pause_days": defaults.max_pause_days,
        "max_extension_hours": defaults.max_extension_hours,
    }
    settings.update(overrides)
    return settings


def phase_times(opened: datetime, settings: dict[str, Any]) -> PhaseTimes:
    deadline = opened + timedelta(hours=float(settings["deadline_hours"]))
    grace_until = deadline + timedelta(hours=float(settings["grace_hours"]))
    remind_at = deadline - timedelta(hours=float(settings["reminder_hours"]))
    return PhaseTimes(deadline, grace_until, max(remind_at, opened))


def no_orders_policy(settings: dict[str, Any], side: str) -> NoOrdersPolicy:
    """The policy for a side that sent nothing: one value for all, or a table per side."""
    policy = settings.get("no_orders_policy", NoOrdersPolicy.STANDING)
    if isinstance(policy, dict):
        policy = policy.get(side, NoOrdersPolicy.STANDING)
    try:
        return NoOrdersPolicy(policy)
    except ValueError:
        known = ", ".join(NoOrdersPolicy)
        raise ValueError(f"unknown no-orders policy {policy!r}; use one of {known}") from None


def pushed_back(deadline: datetime, last_alive: datetime, now: datetime) -> datetime | None:
    """A deadline that passed while the daemon was down moves by the downtime.

    Players keep exactly the time they had left when the moderator went away.
    Returns the new deadline, or None if this deadline needs no change.
    """
    if last_alive < deadline <= now:
        return deadline + (now - last_alive)
    return None


def local_time(at: datetime, tz: str, *, year: bool = True) -> str:
    """A UTC time as a player reads it in his own zone (without the year where space
    is short: a mail's subject)."""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    return at.astimezone(zone).strftime("%a %d %b %Y %H:%M %Z" if year else "%a %d %b %H:%M %Z")
