"""Heartbeats: one per daemon, and deadlines pushed back when no daemon could work.

Every daemon writes its own row in ``heartbeats`` (``"daemon <owner>"``): the
last time it could work, that is reach the database and the mailbox. While its
mailbox is out of reach it writes the mailbox's last answer instead and beats no
further, so the rows say, to the second, until when each daemon could work.

A daemon that (re)gains the means to work (start-up, the mailbox or the database
back) looks at every row: if none is younger than :data:`OUTAGE_AFTER`, no daemon
could work meanwhile, and the deadlines that passed since the newest row move by
the outage, from that row to now: exactly the time lost, recorded once (the
``"daemon"`` row, locked, serialises the check). A daemon that restarts while
another one works finds that one's fresh row and moves nothing; a daemon that
beat without a break never looks (so a clock moved by a test is no outage).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.storage.models import Heartbeat

# A daemon that can work beats this often.
HEARTBEAT_SECONDS = 5.0
# No row younger than this: nobody could work. Outages shorter than this move no
# deadline (mail delivered meanwhile is judged by its delivery time anyway).
OUTAGE_AFTER = timedelta(seconds=3 * HEARTBEAT_SECONDS)
# The row every beat locks; before per-daemon rows, the one shared heartbeat.
LOCK_ROW = "daemon"
_ROW_PREFIX = "daemon "
# Rows of daemons gone this long are forgotten.
_FORGET_AFTER = timedelta(days=14)


class Pulse:
    """One daemon's heartbeat (one per Worker)."""

    def __init__(self, owner: str) -> None:
        self.row = (_ROW_PREFIX + owner)[:64]
        self._last_working_beat: float | None = None  # monotonic

    def beating(self) -> bool:
        """Whether this daemon beat as a working daemon recently: it may act on
        deadlines (after an outage, only once the first beat has pushed them back)."""
        last = self._last_working_beat
        return last is not None and time.monotonic() - last < OUTAGE_AFTER.total_seconds()

    def beat(
        self, s: Session, now: datetime, reachable_until: datetime | None = None
    ) -> datetime | None:
        """Write this daemon's row. ``reachable_until``: the mailbox is out of reach
        and last answered then. Returns the start of an outage that just ended (no
        daemon could work from then until ``now``), else None. Commit after."""
        lock = s.get(Heartbeat, LOCK_ROW, with_for_update=True)
        legacy = lock.at if lock is not None else None
        if lock is None:
            # A fresh database: daemons started together race to make the row.
            try:
                with s.begin_nested():
                    s.execute(insert(Heartbeat).values(name=LOCK_ROW, at=now))
            except IntegrityError:
                pass  # a peer made it this very moment
            lock = s.get(Heartbeat, LOCK_ROW, with_for_update=True, populate_existing=True)
            assert lock is not None
        if reachable_until is not None:
            # The last time this daemon could work; it no longer can.
            self._last_working_beat = None
            self._write(s, min(reachable_until, now), only_later=False)
            return None
        outage_from: datetime | None = None
        if not self.beating():
            rows = list(
                s.scalars(select(Heartbeat.at).where(Heartbeat.name.like(_ROW_PREFIX + "%")))
            )
            last = max(rows) if rows else legacy
            if last is not None and now - last > OUTAGE_AFTER:
                outage_from = last
            s.execute(
                delete(Heartbeat).where(
                    Heartbeat.name.like(_ROW_PREFIX + "%"),
                    Heartbeat.name != self.row,
                    Heartbeat.at < now - _FORGET_AFTER,
                )
            )
        self._write(s, now, only_later=True)
        lock.at = max(lock.at, now)
        return outage_from

    @staticmethod
    def peer_down_since(s: Session, owner: str, now: datetime) -> datetime | None:
        """None if daemon ``owner`` beat lately (within OUTAGE_AFTER, as outages
        are judged); else its row's time: it stopped then, or its mailbox stopped
        answering then."""
        at = s.scalar(select(Heartbeat.at).where(Heartbeat.name == (_ROW_PREFIX + owner)[:64]))
        if at is not None and now - at <= OUTAGE_AFTER:
            return None
        return at or now

    def _write(self, s: Session, at: datetime, *, only_later: bool) -> None:
        mine = s.get(Heartbeat, self.row)
        if mine is None:
            s.add(Heartbeat(name=self.row, at=at))
        else:
            mine.at = max(mine.at, at) if only_later else at

    def beaten(self) -> None:
        """The beat's transaction committed: this daemon works."""
        self._last_working_beat = time.monotonic()
