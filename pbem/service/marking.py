"""Mails the server accepted, marked sent by group commit.

Each mail must be marked sent the moment the SMTP server took it (a
kill after the 250 re-sends at most the mails in flight), and each connection of
the outbox waits for its mail's mark before it sends the next. One commit a mail
made the outbox's connections queue for the database's write lock one behind
another (on SQLite, behind the workers' ticks as well). So the mails accepted
while one marking commit is under way are marked together by the next: no mail
waits longer than it did, and the commits are fewer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection


class SentMarks:
    """Marks mails sent through ``mark`` (ids in, the ids marked out; run in a
    thread), one commit for all the mails waiting when the last one ended."""

    def __init__(self, mark: Callable[[Collection[int]], set[int]]) -> None:
        self._mark = mark
        self._waiting: dict[int, asyncio.Future[bool]] = {}
        self._marking: asyncio.Task[None] | None = None

    async def sent(self, mail_id: int) -> bool:
        """Mark ``mail_id`` sent, with whatever else is waiting: True once committed;
        False if it had been sent already (a peer that took it over sent it too).
        A commit that fails raises here, for every mail it held."""
        marked = self._waiting.get(mail_id)
        if marked is None:
            marked = self._waiting[mail_id] = asyncio.get_running_loop().create_future()
        if self._marking is None:
            self._marking = asyncio.create_task(self._mark_waiting())
        # Shielded: a sender cancelled meanwhile leaves its mail to the commit.
        return await asyncio.shield(marked)

    async def _mark_waiting(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, {}
                try:
                    marked = await asyncio.to_thread(self._mark, list(batch))
                except asyncio.CancelledError:
                    for future in batch.values():
                        future.cancel()
                    raise
                except BaseException as exc:  # the database's, or a test's kill: theirs to see
                    for future in batch.values():
                        if not future.done():
                            future.set_exception(exc)
                else:
                    for mail_id, future in batch.items():
                        if not future.done():
                            future.set_result(mail_id in marked)
        finally:
            for future in self._waiting.values():
                future.cancel()
            self._waiting = {}
            self._marking = None
