"""The outbox loop: claimed batches of due mail sent over the connection pool.

Each mail is sent only while its claim is ours (checked before each send, the
claim renewed as it runs low: pbem.service.outgoing) and marked sent the moment
the server accepts it: in the sent journal at once (pbem.service.sentjournal,
read back before each claim), then by the next commit (pbem.service.marking);
a send must end while the mail is still ours. Answers first: processing counts the mail it
queued as it wakes the outbox (``wake``), and the clock waits, a little, until
the outbox has handed it to the server (``answers_out``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from datetime import datetime, timedelta

from sqlalchemy import make_url

from pbem.mail.base import MailSender, PermanentMailError, SendError
from pbem.service.leases import CLAIM_SECONDS
from pbem.service.loops import Loop, LoopContext, round_failed
from pbem.service.marking import SentMarks
from pbem.service.outgoing import Outgoing, OutgoingBatch
from pbem.service.sentjournal import SentJournal
from pbem.storage.enums import OutboundStatus

log = logging.getLogger("pbem.service")

# Seconds the outbox waits for a wakeup before looking for due mail anyway
# (retries fall due without one).
OUTBOX_POLL = 5.0
# Seconds the clock tick waits at most for the outbox to send the answers first.
ANSWERS_WAIT = 5.0
# Outgoing mails claimed per batch, per connection of the SMTP pool. Each is marked
# sent the moment the server accepts it, by the next commit (with the other
# connections' mails accepted meanwhile: SentMarks), and its connection waits for
# that commit: a kill re-sends at most the mails in flight (one per connection),
# with their own Message-IDs again.
OUTBOX_BATCH_PER_CONNECTION = 25
# How often the outbox looks whether the moderator's digest of failed mail is due.
FAILURES_EVERY = timedelta(minutes=1)


class Outbox(Loop):
    """Sends what is due, round after round, whenever it is woken or polls."""

    def __init__(self, context: LoopContext, sender: MailSender, connections: int) -> None:
        super().__init__(context)
        self.sender = sender
        self.connections = connections  # mails in flight at once
        self.wakeup = asyncio.Event()
        self.lease_lock = asyncio.Lock()
        # Looked up at each commit, not bound here: a test may stand in for it.
        # PostgreSQL's writers run side by side: one commit under way per connection
        # at most, none waiting for another's WAL flush (pbem.service.marking).
        side_by_side = make_url(self.worker.config.database.url).get_backend_name()
        overlap = connections if side_by_side == "postgresql" else 1
        self.marks = SentMarks(lambda ids: self.worker.sent(ids), overlap)
        # Each mail the server accepted is written down here before its mark, and
        # read back before any claim (pbem.service.sentjournal).
        self.journal = SentJournal(self.worker.config.sent_journal())
        # Answers first: mail queued by processing is counted when the outbox is
        # woken for it; the outbox loop says up to which count it has sent.
        self._queued = self._handed = 0
        self._handed_event = asyncio.Event()
        self._running = False
        self._failures_looked: datetime | None = None  # see _tell_failures
        # Mails of a batch whose round failed (the database out of reach, restarting):
        # still claimed by us, for CLAIM_SECONDS; given back by the next round.
        self._stranded: set[int] = set()

    def wake(self) -> None:
        """Mail was queued (a batch's answers or a tick's reports): send it now."""
        self._queued += 1
        self.wakeup.set()

    def wake_from_thread(self, loop: asyncio.AbstractEventLoop) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to wake
            loop.call_soon_threadsafe(self.wakeup.set)

    async def answers_out(self) -> None:
        """Wait until the outbox has handed the answers queued so far to the server
        (ANSWERS_WAIT seconds at most: a slow server never stalls the clock). The
        tick then adjudicates: on SQLite its transaction locks the database, and
        an answer claimed only after it would wait for its reports."""
        if not self._running:
            return  # one round at a time (``once``): the outbox round follows
        target = self._queued
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(ANSWERS_WAIT):
                while self._handed < target and self._running:
                    self._handed_event.clear()
                    await self._handed_event.wait()

    async def loop(self) -> None:
        self._running = True
        try:
            await self._rounds()
        finally:
            self._running = False
            self._handed_event.set()

    async def _rounds(self) -> None:
        while not self.stopping.is_set():
            self.watchdog.beat("outbox", 5.0)
            # Cleared before the round, not after: mail queued while the round
            # sends (a batch's answers) wakes the next round at once.
            self.wakeup.clear()
            upto = self._queued
            try:
                await self.round()
            except Exception as exc:
                round_failed("outbox", exc)
                await asyncio.sleep(1.0)
            self._handed = upto
            self._handed_event.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wakeup.wait(), timeout=OUTBOX_POLL)

    async def round(self) -> int:
        """Send what is due, batch after batch, until a batch comes back short; the
        number of mails the server accepted."""
        limit = OUTBOX_BATCH_PER_CONNECTION * self.connections
        total = 0
        await self._give_back_stranded()
        while not self.stopping.is_set():
            await self._replay_journal()
            batch = await asyncio.to_thread(self.worker.due_outgoing, limit)
            gave_up: list[int] = []
            try:
                total += await self.send_batch(batch, gave_up)
            except Exception:
                self._stranded.update(m.id for m in batch.mails)
                raise
            # A mail given up queues the moderator's notice: one more batch sends it.
            if len(batch.mails) < limit and not gave_up:
                break
        # After the sends: a failure among them has told the moderator already, or
        # waits, with those before it, for the next hour's digest (queued here).
        await self._tell_failures()
        return total

    async def _tell_failures(self) -> None:
        """Once a minute (by the worker's clock): the moderator's digest of failed
        mail, if a new hour has come with mail failed since the last one."""
        now = self.worker.clock()
        if self._failures_looked is not None and now - self._failures_looked < FAILURES_EVERY:
            return
        self._failures_looked = now
        await asyncio.to_thread(self.worker.tell_failures)

    async def _replay_journal(self) -> None:
        """Before claiming: the mails the sent journal lists (the server accepted
        them) marked sent if they are not yet, by whichever daemon wrote them, and
        their lines dropped once marked; not those our own marking commits hold.
        Read here, on the loop (a few lines), so that what is in flight is known
        as of the reading."""
        committed = self.journal.take_committed()
        listed = self.journal.read()
        if not listed:
            return
        in_flight = self.marks.unmarked()
        done = committed & listed.keys()
        unknown = {i: m for i, m in listed.items() if i not in committed and i not in in_flight}
        if unknown:
            marked, finished = await asyncio.to_thread(self.worker.replay_sent, unknown)
            done |= finished
            if marked:
                log.warning(
                    "marked %d mail(s) sent from the sent journal: the server had accepted "
                    "them, and a daemon stopped before marking them",
                    len(marked),
                )
        if done:
            await asyncio.to_thread(self.journal.drop, done)

    async def _give_back_stranded(self) -> None:
        """Give back the claims a failed round left, as soon as the database answers
        (else they would hold their mails for CLAIM_SECONDS while our lease runs on);
        not those the server accepted and the marking commit still has to mark."""
        if not self._stranded:
            return
        free = self._stranded - self.marks.unmarked()
        await asyncio.to_thread(self.worker.release_outgoing, free)
        log.info("gave back %d outgoing mail(s) a failed round left claimed", len(free))
        self._stranded.clear()

    async def send_batch(self, batch: OutgoingBatch, gave_up: list[int] | None = None) -> int:
        """One claimed batch over the connection pool: each connection takes the next
        mail as it finishes one, so the batch drains at the server's pace. The mails
        that failed for good are added to ``gave_up``."""
        sending = _BatchSending(self, batch, [] if gave_up is None else gave_up)
        try:
            # A task group: a connection that fails (the database, a bug) stops the others,
            # rather than leaving them sending behind the next round's back.
            async with asyncio.TaskGroup() as group:
                for _ in range(self.connections):
                    group.create_task(sending.connection())
        except BaseExceptionGroup as failed:
            raise failed.exceptions[0] from None  # the cause; the rest are its echoes
        waiting, lost = sending.waiting, sending.lost
        if waiting - lost:  # stopped mid-batch: the rest is free for the next daemon
            await asyncio.to_thread(self.worker.release_outgoing, waiting - lost, batch.until)
        if lost:
            log.warning(
                "lease lost on %d mail(s) before sending; left to their new owner", len(lost)
            )
        return sending.sent


class _BatchSending:
    """One claimed batch in flight: its mails shared by the connections, those
    not yet handed to the server, those lost to a peer, and those sent."""

    def __init__(self, outbox: Outbox, batch: OutgoingBatch, gave_up: list[int]) -> None:
        self.outbox = outbox
        self.worker = outbox.worker
        self.batch = batch
        self.gave_up = gave_up
        self.waiting = {m.id for m in batch.mails}  # claimed, not yet handed to the server
        self.lost: set[int] = set()
        self.mails: Iterator[Outgoing] = iter(batch.mails)
        self.sent = 0

    async def held_until(self, mail_id: int) -> datetime | None:
        """Until when no peer can take the mail; None if it is a peer's now.

        The lease is checked before each send: in memory while both the claim has
        CLAIM_SECONDS/2 left and this daemon's lease half its length (no peer may
        take the mail before either expires) and the lease has not lapsed since
        the claim (a new term: a peer may have taken the mail meanwhile), else
        renewed in the database."""
        batch = self.batch
        async with self.outbox.lease_lock:
            now = self.worker.clock()
            left = (batch.until - now).total_seconds()
            lease = self.worker.lease
            if (
                left < CLAIM_SECONDS / 2
                or not lease.runs(now, lease.length / 2)
                or lease.term != batch.term
            ):
                kept, batch.until, batch.term = await asyncio.to_thread(
                    self.worker.renew_outgoing, self.waiting, batch.until
                )
                self.lost.update(self.waiting - kept)
            self.waiting.discard(mail_id)
            if mail_id in self.lost or lease.until is None:
                return None
            # A quarter of the lease kept back: the server's 250 must leave time to
            # commit the mail sent while it is still ours, or a peer that finds our
            # lease lapsed meanwhile takes the mail over and sends it again.
            return min(batch.until, lease.until - lease.length / 4)

    async def connection(self) -> None:
        """One connection's share: the next mail as it finishes one."""
        for mail in self.mails:  # shared: each mail goes to one connection
            held_until = None if self.outbox.stopping.is_set() else await self.held_until(mail.id)
            if held_until is None:
                continue  # stopping: released below; lost: a peer's now
            await self._send(mail, held_until)

    async def _send(self, mail: Outgoing, held_until: datetime) -> None:
        outbox, worker = self.outbox, self.worker
        try:
            with outbox.watchdog.waiting("outbox"):
                # A send must end while the mail is ours: one hung on a cut link
                # that went through when the link came back, after a peer had
                # taken the mail over and sent it, delivered it twice.
                async with asyncio.timeout((held_until - worker.clock()).total_seconds()):
                    await outbox.sender.send(mail.sender, [mail.recipient], mail.raw)
                    # Accepted: written down before anything else runs (no await
                    # between), so a kill before its mark does not send it again.
                    journaled = outbox.journal.append(mail.id, mail.message_id)
        except TimeoutError:
            log.warning(
                "sending mail %s outlasted its lease; given up, left to its next owner",
                mail.id,
            )
            await asyncio.to_thread(worker.release_outgoing, {mail.id}, self.batch.until)
        except SendError as exc:
            status = await asyncio.to_thread(
                worker.send_failed, mail.id, str(exc), isinstance(exc, PermanentMailError)
            )
            if status == OutboundStatus.FAILED:
                self.gave_up.append(mail.id)
        else:
            # Awaited first: ``sent += await ...`` would read ``sent`` before the
            # await and lose another connection's count.
            marked = await outbox.marks.sent(mail.id)
            if journaled:
                outbox.journal.marked(mail.id)
            self.sent += marked
