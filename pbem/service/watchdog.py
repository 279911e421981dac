"""The systemd watchdog: WATCHDOG=1 only while every loop of the daemon moves.

systemd (``WatchdogSec=``) kills and restarts a daemon that stops pinging. A
ping from a timer alone would prove only that the event loop turns; a loop
stuck in the database (a lock never released, a connection hung) would go on
being "alive". So each loop says when it made progress (:meth:`Watchdog.beat`,
with how long it may take until the next beat), and the pinger sends WATCHDOG=1
at half the interval only while no loop is overdue by more than the interval.
Waiting on the mail servers (:meth:`Watchdog.waiting`) is not being stuck: the
transports have their own timeouts and reconnect, and an outage of the
mailbox is no reason to restart the daemon.

While a loop is overdue the pinger sends STATUS=... naming it instead, which
``systemctl status pbem`` shows, and logs it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pbem.service.notify import sd_notify

log = logging.getLogger("pbem.service.watchdog")


@dataclass
class _Loop:
    last: float  # monotonic time of the last beat
    within: float  # seconds the loop may take until its next beat
    waiting: int = 0  # > 0: waiting on a mail server, not judged


class Watchdog:
    """Progress of the daemon's loops; pings systemd while all of them move."""

    def __init__(
        self,
        interval: float | None,
        *,
        notify: Callable[[str], bool] = sd_notify,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval  # None: systemd asked for no watchdog
        self.notify = notify
        self.clock = clock
        self.loops: dict[str, _Loop] = {}
        self._stalled: list[str] = []

    def beat(self, loop: str, within: float) -> None:
        """``loop`` made progress, and will again within ``within`` seconds."""
        entry = self.loops.get(loop)
        if entry is None:
            self.loops[loop] = _Loop(self.clock(), within)
        else:
            entry.last, entry.within = self.clock(), within

    @contextlib.contextmanager
    def waiting(self, loop: str) -> Iterator[None]:
        """``loop`` waits on a mail server meanwhile: not stuck, whatever it takes."""
        entry = self.loops.setdefault(loop, _Loop(self.clock(), 0.0))
        entry.waiting += 1
        try:
            yield
        finally:
            entry.waiting -= 1
            entry.last = self.clock()

    def ages(self) -> dict[str, float]:
        """Seconds since each loop last made progress (0 while it waits on a server)."""
        now = self.clock()
        return {name: 0.0 if e.waiting else now - e.last for name, e in self.loops.items()}

    def stalled(self) -> list[str]:
        """The loops overdue by more than the interval (or a minute, with no watchdog)."""
        grace = self.interval if self.interval is not None else 60.0
        now = self.clock()
        return sorted(
            name
            for name, e in self.loops.items()
            if not e.waiting and now - e.last > e.within + grace
        )

    def tick(self) -> bool:
        """One check: WATCHDOG=1 if every loop moves, else STATUS naming the stalled
        ones. True when it pinged."""
        stalled, before = self.stalled(), self._stalled
        self._stalled = stalled
        if stalled:
            if stalled != before:
                log.error(
                    "watchdog: loop(s) %s made no progress; not pinging systemd",
                    ", ".join(stalled),
                )
            self.notify("STATUS=stalled: " + ", ".join(stalled))
            return False
        if before:
            log.warning("watchdog: every loop moves again; pinging systemd")
            self.notify("STATUS=running")
        self.notify("WATCHDOG=1")
        return True

    async def run(self) -> None:
        """Check at half the interval, as sd_watchdog_enabled(3) recommends."""
        if self.interval is None:
            return
        while True:
            self.tick()
            await asyncio.sleep(self.interval / 2)
