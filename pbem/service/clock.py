"""The one place the daemon reads the wall clock (the lifecycle is handed ``now``)."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)
