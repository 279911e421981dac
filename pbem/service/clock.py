"""The one place the daemon reads the wall clock (the lifecycle is handed ``now``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def utcnow() -> datetime:
    return datetime.now(UTC)


class DatabaseClock:
    """The database's time as this daemon reads it: this host's clock plus the
    offset measured against the database at start (pbem.service.doctor.check_clock,
    which also refuses a skew beyond ``[database] max_clock_skew``). Leases,
    deadlines and lateness are then judged by one clock for every daemon sharing
    the database, to within the round trip of the measure."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def __call__(self) -> datetime:
        return utcnow() + self.offset
