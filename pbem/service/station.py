"""What every part of a daemon's work shares (pbem.service.work.Worker).

The configuration, the database sessions, this daemon's id, lease and heartbeat,
the clock every transaction judges by, the report publisher, and the notes
processed mail leaves for the next tick. The parts (intake, ticks, presence,
outgoing) build on this one base and know nothing of each other.

Every transaction that judges leases, deadlines or lateness reads the time
inside it (``_now``): the database's (pbem.service.clock). A transaction that
claims anything renews this daemon's lease first (``_hold``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.clock import transaction_time
from pbem.service.heartbeat import Pulse
from pbem.service.leases import Lease


class Station:
    """One daemon's (or worker process's) footing in the database."""

    def __init__(
        self,
        config: Config,
        sessions: sessionmaker[Session],
        owner: str,
        clock: Callable[[], datetime],
    ) -> None:
        self.config = config
        self.sessions = sessions
        self.owner = owner
        self.clock = clock
        self.key = config.secrets.key_bytes()
        self.publisher = Publisher()
        self._touched: set[str] = set()  # games named by mail processed since the last tick
        self._sweep_requested = False  # a moderator command: look at every game next tick
        self.pulse = Pulse(owner)
        self.lease = Lease(owner, config.database.lease_seconds)
        bind = sessions.kw.get("bind")
        if not isinstance(bind, Engine):
            raise TypeError("a Worker needs sessions bound to an Engine")
        self._engine = bind  # for the outbox's marks, through Core (``sent``)

    def _hold(self, s: Session, now: datetime) -> None:
        """Renew our lease in ``s``'s transaction, as the first thing it does. The
        first time, the lease row is committed alone first: a peer's claim that
        re-checks our claimed row (PostgreSQL re-reads a row changed under it) reads
        the leases as they were when its statement began, and must find ours."""
        if self.lease.until is None:
            try:
                with self.sessions.begin() as first:
                    self.lease.hold(first, now)
            except BaseException:
                self.lease.until = None  # not committed: register again next time
                raise
        self.lease.hold(s, now)

    def _now(self, s: Session) -> datetime:
        """The time ``s``'s transaction judges by: the database's, read in it."""
        return transaction_time(self.clock, s)

    def game_master(self, session: Session, now: datetime) -> GameMaster:
        return GameMaster(Desk(session, self.config, self.key, now), self.publisher)

    def take_tick_notes(self) -> tuple[set[str], bool]:
        """The games processed mail named since the last tick, and whether a
        moderator command asks for a full sweep; forgotten here (a worker
        process hands them to the daemon's Worker, see note_for_tick)."""
        touched, sweep = self._touched, self._sweep_requested
        self._touched, self._sweep_requested = set(), False
        return touched, sweep

    def note_for_tick(self, touched: set[str], sweep: bool) -> None:
        self._touched |= touched
        self._sweep_requested = self._sweep_requested or sweep
