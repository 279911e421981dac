"""The intake loop: fetch, file, acknowledge; and whether the mailbox answers.

One daemon at a time fetches from a mailbox (its lease: pbem.service.presence);
the others process and send, and learn from the fetcher's heartbeat whether
the mailbox answers it. A fetched batch is filed and committed before the
server is told to forget it, and only while the mailbox is still ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

from pbem.mail.base import InboundMessage, Inbox
from pbem.service.loops import Loop, LoopContext, round_failed
from pbem.service.metrics import ProcessStats

log = logging.getLogger("pbem.service")


class Fetcher(Loop):
    """Fetches and files mail while this daemon holds the mailbox's lease."""

    def __init__(
        self, context: LoopContext, inbox: Inbox, mailbox: str, stats: ProcessStats
    ) -> None:
        super().__init__(context)
        self.inbox = inbox
        self.mailbox = mailbox  # as its lease names it (pbem.service.daemon.mailbox_name)
        self.stats = stats
        self.mail_filed = asyncio.Event()
        # When a peer fetches: since when its mailbox has not answered it (None: it does).
        # Kept when we take the mailbox over, until it answers us (mailbox_down_since).
        self.fetcher_down_since: datetime | None = None

    async def round(self) -> bool:
        """Fetch and file, if this daemon holds the mailbox's lease (one fetcher at
        a time: two would race to move the same mail); whether it does."""
        if not await asyncio.to_thread(self.worker.fetches, self.mailbox):
            return False  # a peer fetches; we process and send
        with self.watchdog.waiting("intake"):
            messages = await self.inbox.fetch()
        self.stats.fetched(len(messages))
        if not messages:
            return True
        await asyncio.to_thread(
            self.worker.file_many, [(m.ref, m.raw, m.delivered_at) for m in messages]
        )
        # Committed: processing may start now, while the server is told (answers
        # first: the acknowledgement's round trip is not on the answer's way).
        self.mail_filed.set()
        # Only now, with the bytes committed, may the server forget the messages; and
        # only if the mailbox is still ours (we may have stalled past the lease):
        # else its new fetcher moves them, filed once by their digest.
        if not await asyncio.to_thread(self.worker.fetches, self.mailbox):
            log.warning(
                "the mailbox went to another daemon before %d mail(s) were "
                "acknowledged; left to it",
                len(messages),
            )
            return False
        with self.watchdog.waiting("intake"):
            await self._acknowledge(messages)
        return True

    async def _acknowledge(self, messages: list[InboundMessage]) -> None:
        # All at once: the IMAP inbox sends acknowledgements queued together as one
        # UID MOVE, instead of a round trip per mail.
        results = await asyncio.gather(
            *(self.inbox.acknowledge(m.ref) for m in messages), return_exceptions=True
        )
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def loop(self) -> None:
        """Fetch and file; processing runs beside it (pbem.service.rounds), so the
        next mails are fetched while the last are decided. A daemon that does not
        hold the mailbox's lease asks again every poll interval."""
        while not self.stopping.is_set():
            self.watchdog.beat("intake", self.config.intake.poll_interval + 1.0)
            fetching = False
            try:
                fetching = await self.round()
                if self.worker.fetching is None:
                    self.fetcher_down_since = await asyncio.to_thread(
                        self.worker.fetcher_down_since, self.mailbox
                    )
                elif self.inbox.unreachable_since is None:
                    self.fetcher_down_since = None  # the round fetched: the mailbox answers us
            except Exception as exc:
                round_failed("intake", exc)
                await asyncio.sleep(1.0)
            if fetching:
                with self.watchdog.waiting("intake"):
                    await self.inbox.wait_for_mail(self.config.intake.poll_interval)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        self.stopping.wait(), timeout=self.config.intake.poll_interval
                    )

    def mailbox_down_since(self) -> datetime | None:
        """Since when the mailbox has not answered: this daemon's if it fetches,
        else the fetching peer's (so a daemon that does not fetch neither acts
        on deadlines nor beats as working while nobody can fetch)."""
        if self.worker.fetching is None:
            return self.fetcher_down_since
        # Taken over from a fetcher cut off from the mailbox, it is still down for us
        # until it answers: a takeover stuck connecting is no daemon at work (else its
        # beats would end the outage early, and one outage be recorded twice).
        known = (self.inbox.unreachable_since, self.fetcher_down_since)
        return min((at for at in known if at is not None), default=None)
