"""Mails the server accepted, marked sent by group commit.

Each mail must be marked sent the moment the SMTP server took it (a
kill after the 250 re-sends at most the mails in flight), and each connection of
the outbox waits for its mail's mark before it sends the next.

The window. A kill -9 between the server's 250 and the marking commit's COMMIT
used to have the next daemon send the mail again (the same Message-ID), and
that window is not the commit's few milliseconds but its tail: the mark queues
behind other work (on SQLite behind processing's batch transaction holding the
write lock; on both, the hop to a thread, the GIL, a loaded CPU), up to a second
(bench/killloop.py: 7-9 duplicates per 100 kills quiet, 50-395 loaded). So the
mark is first written where nothing queues: the sent journal
(pbem.service.sentjournal), one ``os.write`` on the event loop right after the
250, read back into the database before any daemon claims mail. What remains of
the window is the time from the 250's arrival to that write; the commit below
stays the durable record (the journal is not fsync'ed) and what a live daemon
relies on.
 One commit a mail
made the outbox's connections queue for the database's write lock one behind
another (on SQLite, behind the workers' ticks as well). So the mails accepted
while one marking commit is under way are marked together by the next: no mail
waits longer than it did, and the commits are fewer.

Where writers run side by side (PostgreSQL), a mail accepted while a commit is
under way does not wait for it, though: that commit's end is its WAL flush (a
few milliseconds of fsync), and a kill -9 in all that time, from the server's
receipt to the new commit's COMMIT, re-sends the mail (bench/killloop.py). So
up to ``overlap`` commits run at once there, each for the mails waiting when it
began; SQLite, one writer at a time, keeps one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection

from pbem.storage.db import database_unreachable

log = logging.getLogger("pbem.service")

# Seconds between tries of a marking commit the database did not take (out of
# reach, restarting): the server has the mails, so they are marked once the
# database is back rather than sent again when their claims run out.
RETRY_SECONDS = 0.5


class SentMarks:
    """Marks mails sent through ``mark`` (ids in, the ids marked out; run in a
    thread), one commit for all the mails waiting when the last one ended, with
    up to ``overlap`` commits under way at once."""

    def __init__(self, mark: Callable[[Collection[int]], set[int]], overlap: int = 1) -> None:
        self._mark = mark
        self._overlap = overlap
        self._waiting: dict[int, asyncio.Future[bool]] = {}
        # The commits under way, and the mails each is marking.
        self._batches: dict[asyncio.Task[None], Collection[int]] = {}

    def unmarked(self) -> set[int]:
        """The mails the server accepted that are not marked sent yet: still ours
        to mark, never to give back (a peer would send them again)."""
        return {*self._waiting, *(i for batch in self._batches.values() for i in batch)}

    async def sent(self, mail_id: int) -> bool:
        """Mark ``mail_id`` sent, with whatever else is waiting: True once committed;
        False if it had been sent already (a peer that took it over sent it too).
        A commit the database did not take is tried again until it does; one that
        fails otherwise raises here, for every mail it held."""
        marked = self._waiting.get(mail_id)
        if marked is None:
            marked = self._waiting[mail_id] = asyncio.get_running_loop().create_future()
        if len(self._batches) < self._overlap:
            task = asyncio.create_task(self._mark_waiting())
            self._batches[task] = ()
        # Shielded: a sender cancelled meanwhile leaves its mail to the commit.
        return await asyncio.shield(marked)

    async def _mark_waiting(self) -> None:
        this = asyncio.current_task()
        assert this is not None
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, {}
                self._batches[this] = batch.keys()
                try:
                    marked = await self._commit(list(batch))
                except asyncio.CancelledError:
                    for future in batch.values():
                        future.cancel()
                    raise
                except BaseException as exc:  # a bug, or a test's kill: theirs to see
                    for future in batch.values():
                        if not future.done():
                            future.set_exception(exc)
                            # Seen here: a sender cancelled meanwhile never awaits it.
                            future.exception()
                else:
                    for mail_id, future in batch.items():
                        if not future.done():
                            future.set_result(mail_id in marked)
        finally:
            del self._batches[this]
            if not self._batches:  # no commit left to take them
                for future in self._waiting.values():
                    future.cancel()
                self._waiting = {}

    async def _commit(self, mail_ids: list[int]) -> set[int]:
        """One marking commit, tried again while the database is out of reach."""
        warned = False
        while True:
            try:
                return await asyncio.to_thread(self._mark, mail_ids)
            except Exception as exc:
                if not database_unreachable(exc):
                    raise
                if not warned:
                    log.warning(
                        "marking %d mail(s) sent: the database is out of reach, retrying",
                        len(mail_ids),
                    )
                    warned = True
            await asyncio.sleep(RETRY_SECONDS)
