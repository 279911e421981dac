"""This daemon's presence among its peers: its lease, its heartbeat, its mailbox.

A daemon holds its lease (pbem.service.leases) from start-up to a clean stop,
renewed by every beat; one daemon at a time holds a mailbox's lease and fetches
from it, the others process and send. The heartbeat (pbem.service.heartbeat)
says whether this daemon can work; the first beat that can after an outage of
every daemon pushes the deadlines back by it.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.orm import Session

from pbem.service.station import Station

log = logging.getLogger("pbem.service")


class Presence(Station):
    """Start-up, heartbeats, the mailbox's lease and a clean stop."""

    fetching: str | None = None  # the mailbox whose lease we hold, renewed by beats

    def start_up(self) -> list[str]:
        """Take this daemon's lease; push back deadlines that passed while no
        daemon could work; note we are alive."""
        with self.sessions.begin() as s:
            now = self._now(s)
            self._hold(s, now)
            moved = self._beat(s, now, None)
        self.pulse.beaten()
        return moved

    def shut_down(self) -> None:
        """A clean stop: our lease ends now, so peers take over at once."""
        with self.sessions.begin() as s:
            self.lease.end(s, self._now(s))

    def fetches(self, mailbox: str) -> bool:
        """Whether this daemon fetches from ``mailbox`` now: it takes or keeps
        the mailbox's lease (one fetcher at a time; the others process and send)."""
        with self.sessions.begin() as s:
            now = self._now(s)
            self._hold(s, now)
            ours = self.lease.fetch_from(s, mailbox, now)
        self.fetching = mailbox if ours else None
        return ours

    def fetcher_down_since(self, mailbox: str) -> datetime | None:
        """For a daemon that does not fetch: None while the daemon fetching from
        ``mailbox`` beats as working (its mailbox answers), else since when it has
        not. None too when nobody holds the mailbox: we take it next round."""
        with self.sessions() as s:
            now = self._now(s)
            owner = self.lease.fetcher(s, mailbox, now)
            return None if owner is None else self.pulse.peer_down_since(s, owner, now)

    def heartbeat(self, mailbox_down_since: datetime | None = None) -> list[str]:
        """This daemon's heartbeat (pbem.service.heartbeat): it can work, or, with
        ``mailbox_down_since``, its mailbox has been out of reach since then. The
        first beat that can work after an outage of every daemon pushes the
        deadlines back by it; returns the games whose deadlines moved."""
        with self.sessions.begin() as s:
            now = self._now(s)
            self._hold(s, now)
            # While our mailbox does not answer, its lease is left to lapse: a peer
            # that reaches it fetches (our intake round is stuck reconnecting).
            if (
                self.fetching is not None
                and mailbox_down_since is None
                and not self.lease.fetch_from(s, self.fetching, now)
            ):
                self.fetching = None  # lost to a peer (we stalled): it fetches now
            moved = self._beat(s, now, mailbox_down_since)
        if mailbox_down_since is None:
            self.pulse.beaten()
        return moved

    def _beat(self, s: Session, now: datetime, mailbox_down_since: datetime | None) -> list[str]:
        outage_from = self.pulse.beat(s, now, mailbox_down_since)
        if outage_from is None:
            return []
        moved = self.game_master(s, now).clock.push_back_deadlines(outage_from)
        log.warning(
            "no daemon could work from %s to %s (%.0f s): deadlines of %d game(s) pushed back",
            outage_from.isoformat(),
            now.isoformat(),
            (now - outage_from).total_seconds(),
            len(moved),
        )
        for game_id in moved:
            log.info("deadline pushed back after an outage", extra={"game": game_id})
        return moved
