"""The one place the daemon reads the time (the lifecycle is handed ``now``).

Leases, deadlines and lateness are judged by the database's clock, read inside
the transaction that judges by them: one clock for every daemon sharing the
database, whatever each host's clock says.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, func, select
from sqlalchemy.orm import Session


def utcnow() -> datetime:
    return datetime.now(UTC)


class DatabaseClock:
    """The database's time. ``read(s)`` inside a transaction: PostgreSQL's
    ``statement_timestamp()``; on SQLite, whose "server" is this host, this host's
    clock. Called outside a transaction (a lease's margin checked in memory, the
    start-up skew check) it estimates: this host's clock plus the offset measured
    at start (pbem.service.doctor.clock_skew; a skew beyond ``[database]
    max_clock_skew`` is refused). ``host`` is this host's clock (a test's may be
    skewed)."""

    def __init__(self, host: Callable[[], datetime] = utcnow) -> None:
        self.host = host
        self.offset = timedelta(0)

    def __call__(self) -> datetime:
        return self.host() + self.offset

    def read(self, s: Session) -> datetime:
        if s.get_bind().dialect.name != "postgresql":
            return self()
        at: datetime | None = s.scalar(
            select(func.statement_timestamp(type_=DateTime(timezone=True)))
        )
        assert at is not None
        return at.astimezone(UTC)


def transaction_time(clock: Callable[[], datetime], s: Session) -> datetime:
    """The time ``s``'s transaction judges by: the database's for a DatabaseClock;
    any other clock (a test's) is taken as the database's."""
    return clock.read(s) if isinstance(clock, DatabaseClock) else clock()


def statement_time(clock: Callable[[], datetime], dialect: str) -> datetime | None:
    """What ``transaction_time`` would read, for a statement that writes the time
    itself: None where that is the database's ``statement_timestamp()`` (PostgreSQL
    with the DatabaseClock: no query of its own to read it first), else the
    clock's time now."""
    if isinstance(clock, DatabaseClock) and dialect == "postgresql":
        return None
    return clock()
