"""The daemon: the composition root. Wires transports, database and worker; runs
the intake, clock and outbox loops; shuts down cleanly on SIGTERM/SIGINT.

Crash safety rests on one order of events for every mail: store the raw bytes
and commit, then acknowledge on the server; process in one transaction that
also queues the answer; send from the outbox afterwards. A kill at any point
leaves either an unacknowledged message (fetched again, deduplicated by its
digest), an unprocessed stored mail (processed on restart), or a queued answer
(sent on restart, with the same Message-ID).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from pbem.config import Config
from pbem.core import stages
from pbem.core.errors import ConfigError
from pbem.mail.base import InboundMessage, Inbox, MailSender, PermanentMailError, SendError
from pbem.outbox.queue import on_queued
from pbem.service.clock import DatabaseClock
from pbem.service.doctor import clock_skew
from pbem.service.heartbeat import HEARTBEAT_SECONDS
from pbem.service.marking import SentMarks
from pbem.service.metrics import Metrics, ProcessStats, log_stages
from pbem.service.notify import sd_notify, watchdog_interval
from pbem.service.processing import ProcessingPool
from pbem.service.watchdog import Watchdog
from pbem.service.work import CLAIM_SECONDS, OutgoingBatch, Worker, freeze_start_up
from pbem.storage.db import database_unreachable, make_engine, make_sessionmaker
from pbem.storage.enums import OutboundStatus

# Seconds the outbox waits for a wakeup before looking for due mail anyway
# (retries fall due without one).
OUTBOX_POLL = 5.0
# Seconds the clock tick waits at most for the outbox to send the answers first.
ANSWERS_WAIT = 5.0

log = logging.getLogger("pbem.service")

# The heartbeat loop looks at the mailbox this often (a beat when its state changes).
CHECK_SECONDS = 1.0
# Stored mails processed per transaction at most (see Worker.process_many): a batch's
# lookups, claim and commit cost the same for 5 mails as for 50. A few pending
# mails are spread over the free workers instead (see _process_pending).
PROCESS_BATCH = 50
# Mails handed out per processing round at most: then the games are ticked, and
# the next round starts with a fresh (small) list of mails already handed out.
DRAIN_LIMIT = 2000
# Outgoing mails claimed per batch, per connection of the SMTP pool. Each is marked
# sent the moment the server accepts it, by the next commit (with the other
# connections' mails accepted meanwhile: SentMarks), and its connection waits for
# that commit: a kill re-sends at most the mails in flight (one per connection),
# with their own Message-IDs again.
OUTBOX_BATCH_PER_CONNECTION = 25
# Due games claimed and ticked per batch (in a worker process, when there are
# some): one, so that in a deadline storm the cores share the games evenly and
# the outbox is woken as each game's reports are queued (a worker process's
# commit cannot wake the daemon's outbox; the batch's end does), not after four.
TICK_BATCH = 1

T = TypeVar("T")


def _round_failed(loop: str, exc: Exception) -> None:
    """Log a loop's failed round (called while handling ``exc``; the loop retries).
    PostgreSQL out of reach (a partition: statements in flight fail within
    ``tcp_user_timeout``) is a warning in one line; anything else has its traceback."""
    if database_unreachable(exc):
        cause = str(getattr(exc, "orig", exc)).strip().splitlines() or [type(exc).__name__]
        log.warning("%s round: the database is out of reach, retrying: %s", loop, cause[0])
    else:
        log.exception("%s round failed; retrying", loop)


def make_inbox(config: Config) -> Inbox:
    if config.intake.transport == "imap":
        from pbem.mail.imap import ImapInbox

        c = config.imap
        return ImapInbox(
            c.host,
            c.port,
            c.user,
            c.password,
            folder=c.folder,
            processed_folder=c.processed_folder or None,
            use_tls=c.tls,
            poll_interval=config.intake.poll_interval,
        )
    from pbem.mail.maildir import MaildirInbox

    return MaildirInbox(config.intake.maildir, poll_interval=0.2)


def mailbox_name(config: Config) -> str:
    """The mailbox this daemon fetches from, as its lease names it: the account
    and folder, not the server's address, which daemons on other hosts may know
    by another name (a partition test found two daemons, reaching one Dovecot by
    two addresses, fetching side by side)."""
    if config.intake.transport == "imap":
        c = config.imap
        return f"imap://{c.user}/{c.folder}"[:255]
    return f"maildir:{config.intake.maildir}"[:255]


def make_sender(config: Config) -> MailSender:
    if config.outbox.transport == "smtp":
        from pbem.mail.smtp import SmtpSender

        c = config.smtp
        return SmtpSender(
            c.host,
            c.port,
            username=c.username or None,
            password=c.password or None,
            starttls=c.starttls,
            connections=c.connections,
        )
    from pbem.mail.maildir import MaildirSender

    return MaildirSender(config.outbox.maildir)


class Daemon:
    def __init__(
        self,
        config: Config,
        *,
        inbox: Inbox | None = None,
        sender: MailSender | None = None,
        clock: Callable[[], datetime] | None = None,
        own_process: bool = False,
    ) -> None:
        """``own_process``: the daemon has its process to itself (``pbem serve``), which
        freezes what start-up made (pbem.service.work.freeze_start_up)."""
        self.config = config
        self.own_process = own_process
        self.engine = make_engine(config.database.url, config.database)
        # The database's time, read in each transaction (a test may hand its own
        # clock); the offset measured at start serves estimates only.
        self.db_clock = clock if isinstance(clock, DatabaseClock) else DatabaseClock()
        # A new id every start (issue 19): this daemon's lease, and its claims' owner.
        owner = str(uuid.uuid4())
        self.worker = Worker(config, make_sessionmaker(self.engine), owner, clock or self.db_clock)
        self.pool = (
            ProcessingPool(config, config.intake.workers, owner, self.db_clock)
            if config.intake.workers > 1
            else None
        )
        self.inbox = inbox or make_inbox(config)
        self.sender = sender or make_sender(config)
        # Mails in flight at once: one per connection of the SMTP pool.
        self.send_connections = config.smtp.connections if config.outbox.transport == "smtp" else 1
        self._lease_lock = asyncio.Lock()
        # Looked up at each commit, not bound here: a test may stand in for it.
        self.marks = SentMarks(lambda ids: self.worker.sent(ids))
        for note in config.outbox.notes():
            log.warning(note)
        self.stopping = asyncio.Event()
        self.outbox_wakeup = asyncio.Event()
        # Answers first: mail queued by processing is counted when the outbox is
        # woken for it; the outbox loop says up to which count it has sent.
        self._queued = self._handed = 0
        self._outbox_handed = asyncio.Event()
        self._outbox_running = False
        self.mail_filed = asyncio.Event()
        self.watchdog = Watchdog(watchdog_interval())
        self.stats = ProcessStats()
        self.mailbox = mailbox_name(config)
        # When a peer fetches: since when its mailbox has not answered it (None: it does).
        # Kept when we take the mailbox over, until it answers us (_mailbox_down_since).
        self._fetcher_down_since: datetime | None = None

    def request_stop(self) -> None:
        log.info("shutdown requested")
        self.stopping.set()
        self.outbox_wakeup.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.request_stop)
        # The loop's thread runs the SMTP client, the IMAP client and the loops'
        # bookkeeping; the database and the rules run in other threads.
        stages.whole_thread("event-loop")
        log_stages()
        await asyncio.to_thread(self._set_clock)
        metrics = await self._serve_metrics()
        moved = await asyncio.to_thread(self.worker.start_up)
        # The first answer after start-up is as fast as any: its one-time costs now.
        await asyncio.to_thread(self.worker.warm_up)
        if self.own_process:
            freeze_start_up()
        if self.pool is not None:
            await self.pool.start()
        if moved:
            log.info("deadlines pushed back for %d game(s) after downtime", len(moved))
        sd_notify("READY=1")
        log.info(
            "pbem daemon ready",
            extra={"owner": self.worker.owner, "host": socket.gethostname(), "pid": os.getpid()},
        )
        # Mail queued by a commit in this process (a tick's reports, game by game) is
        # sent at once, not when the whole tick is done or the poll comes round.
        stop_waking = on_queued(lambda: self._wake_from_thread(loop))
        tasks = [
            asyncio.create_task(self._intake_loop(), name="intake"),
            asyncio.create_task(self._processing_loop(), name="processing"),
            asyncio.create_task(self._outbox_loop(), name="outbox"),
            asyncio.create_task(self._heartbeat_loop(), name="heartbeat"),
            asyncio.create_task(self.watchdog.run(), name="watchdog"),
        ]
        try:
            await self.stopping.wait()
        finally:
            sd_notify("STOPPING=1")
            if metrics is not None:
                metrics.close()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # The last beat: a restart's downtime counts from this moment. Then our
            # lease ends: peers take over our claims and the mailbox at once.
            try:
                await asyncio.to_thread(self.worker.heartbeat, self._mailbox_down_since())
                await asyncio.to_thread(self.worker.shut_down)
            except Exception as exc:
                log.warning("last heartbeat failed: %s", exc)
            await self.inbox.close()
            await self.sender.close()
            if self.pool is not None:
                await asyncio.to_thread(self.pool.close)
            self.engine.dispose()
            stop_waking()
            log.info("pbem daemon stopped")

    def _set_clock(self) -> None:
        """Refuse to start on a clock skewed beyond ``[database] max_clock_skew``
        against the database's (leases and deadlines are judged by one clock);
        else read the database's time from now on (the measured offset)."""
        skew = clock_skew(self.engine, self.worker.clock)
        if skew is None:
            return  # SQLite: on this host, no clock of its own
        bound = self.config.database.max_clock_skew
        if abs(skew) > bound:
            raise ConfigError(
                f"this host's clock is {abs(skew):.1f} s "
                f"{'ahead of' if skew > 0 else 'behind'} the database's (more than "
                f"{bound:g} s, [database] max_clock_skew): synchronise the clocks (NTP); "
                "the daemon does not start"
            )
        if self.worker.clock is self.db_clock:
            self.db_clock.offset -= timedelta(seconds=skew)

    async def _serve_metrics(self) -> asyncio.Server | None:
        c = self.config.metrics
        if not c.port:
            return None
        metrics = Metrics(self.worker.sessions, self.stats, self.watchdog, self.worker.clock)
        try:
            return await metrics.serve(c.host, c.port)
        except OSError as exc:
            raise ConfigError(f"[metrics] cannot listen on {c.host}:{c.port}: {exc}") from None

    async def once(self) -> None:
        """One full round: fetch, file, process, tick, send. For tests and `pbem run-once`."""
        await self._intake_round()
        await self._processing_round(tick_everything=True)
        await self._outbox_round()

    async def _intake_round(self) -> bool:
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

    async def _processing_round(self, tick_everything: bool = False, tick: bool = True) -> None:
        """Answers first: each batch's answers are committed and the outbox woken as
        the batch ends (see _process_pending), before the tick adjudicates the
        rounds their mails closed and renders the reports. A mail's transaction
        only files its orders; the round it completes is adjudicated by the tick,
        a transaction of its own (after a kill in between, by the next daemon's)."""
        await self._process_pending()
        if tick:
            await self._answers_out()
            await self._tick_due(tick_everything)
        self.outbox_wakeup.set()

    def _wake_from_thread(self, loop: asyncio.AbstractEventLoop) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to wake
            loop.call_soon_threadsafe(self.outbox_wakeup.set)

    async def _tick_due(self, everything: bool) -> None:
        """Tick the games due (Worker.due_for_tick), TICK_BATCH games a batch, spread
        over the worker processes as mail batches are (each worker claims its
        games by lease), the outbox woken as each batch's reports are committed;
        then plan when the clock must look at every game next (Worker.plan_wake)."""
        games = await asyncio.to_thread(self.worker.due_for_tick, everything)
        batches = [games[i : i + TICK_BATCH] for i in range(0, len(games), TICK_BATCH)]
        pool = self.pool

        async def next_batches(room: int) -> list[list[str]]:
            taken = batches[:room]
            del batches[:room]
            return taken

        await self._spread(
            next_batches,
            lambda batch: (
                pool.tick(batch, self.worker)
                if pool is not None
                else asyncio.to_thread(self.worker.tick_some, batch)
            ),
        )
        # Planned every round (one indexed query), not only after a tick here: a
        # game created or a deadline moved outside this daemon (the CLI, a peer)
        # is then seen within one poll interval, not at the safety sweep.
        await asyncio.to_thread(self.worker.plan_wake)

    async def _spread(
        self,
        next_batches: Callable[[int], Awaitable[Sequence[T]]],
        run: Callable[[T], Awaitable[Any]],
    ) -> None:
        """Run batches until ``next_batches(room)`` has no more: one at a time in the
        daemon, or two per worker process in flight, the next handed out as one
        finishes, so no worker waits for another. Each batch's answers or reports
        are committed as it ends: the outbox is woken then."""
        pool = self.pool
        in_flight = 2 * pool.workers if pool is not None else 1
        running: set[asyncio.Future[Any]] = set()
        while True:
            room = in_flight - len(running)
            if room > 0 and not self.stopping.is_set():
                for batch in await next_batches(room):
                    running.add(asyncio.ensure_future(run(batch)))
            if not running:
                return
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            try:
                for future in done:
                    future.result()  # a failure the batch could not file is the round's
                    self.watchdog.beat("processing", self.config.intake.poll_interval)
                    self._wake_outbox()  # its answers are committed: send them now
            except BaseException:
                for future in running:
                    future.cancel()
                raise

    def _wake_outbox(self) -> None:
        self._queued += 1
        self.outbox_wakeup.set()

    async def _answers_out(self) -> None:
        """Wait until the outbox has handed the answers queued so far to the server
        (ANSWERS_WAIT seconds at most: a slow server never stalls the clock). The
        tick then adjudicates: on SQLite its transaction locks the database, and
        an answer claimed only after it would wait for its reports."""
        if not self._outbox_running:
            return  # one round at a time (``once``): the outbox round follows
        target = self._queued
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(ANSWERS_WAIT):
                while self._handed < target and self._outbox_running:
                    self._outbox_handed.clear()
                    await self._outbox_handed.wait()

    def _may_tick(self) -> bool:
        """Deadlines are acted on only while this daemon works: the mailbox answers
        its fetcher (else mail may wait there unseen; when a peer fetches, as that
        peer's heartbeat says) and its last heartbeat is fresh (after an outage, the
        first beat pushes the deadlines back before any tick)."""
        return self._mailbox_down_since() is None and self.worker.pulse.beating()

    def _mailbox_down_since(self) -> datetime | None:
        """Since when the mailbox has not answered: this daemon's if it fetches,
        else the fetching peer's (so a daemon that does not fetch neither acts
        on deadlines nor beats as working while nobody can fetch)."""
        if self.worker.fetching is None:
            return self._fetcher_down_since
        # Taken over from a fetcher cut off from the mailbox, it is still down for us
        # until it answers: a takeover stuck connecting is no daemon at work (else its
        # beats would end the outage early, and one outage be recorded twice).
        known = (self.inbox.unreachable_since, self._fetcher_down_since)
        return min((at for at in known if at is not None), default=None)

    async def _process_pending(self) -> None:
        """Process stored mail until none is left, PROCESS_BATCH mails a batch,
        spread over the worker processes (``_spread``)."""
        pool = self.pool
        handed_out = 0
        # Handed out and not decided (yet): not handed out again this round. A mail
        # still pending after its batch (a peer's claim) waits for next time; a mail
        # decided is no longer pending, so the list stays short (asking the database
        # to leave out every mail handed out this round cost time linear in them).
        undecided: set[int] = set()

        async def next_batches(room: int) -> list[list[int]]:
            nonlocal handed_out
            if handed_out >= DRAIN_LIMIT:
                return []
            pending = await asyncio.to_thread(
                self.worker.pending_mail, room * PROCESS_BATCH, besides=undecided
            )
            handed_out += len(pending)
            undecided.update(pending)
            # As many batches as there is room for: a flood goes in full batches, a
            # few mails go to every free worker at once.
            size = max(1, min(PROCESS_BATCH, -(-len(pending) // room)))
            return [pending[i : i + size] for i in range(0, len(pending), size)]

        async def process(batch: list[int]) -> None:
            if pool is not None:
                outcomes = await pool.process(batch, self.worker)
            else:
                outcomes = await asyncio.to_thread(self.worker.process_many, batch)
            undecided.difference_update(outcomes)
            log.info("processed %d mail(s), answers queued", len(batch))

        await self._spread(next_batches, process)

    async def _intake_loop(self) -> None:
        """Fetch and file; processing runs beside it (_processing_loop), so the next
        mails are fetched while the last are decided. A daemon that does not hold
        the mailbox's lease asks again every poll interval."""
        while not self.stopping.is_set():
            self.watchdog.beat("intake", self.config.intake.poll_interval + 1.0)
            fetching = False
            try:
                fetching = await self._intake_round()
                if self.worker.fetching is None:
                    self._fetcher_down_since = await asyncio.to_thread(
                        self.worker.fetcher_down_since, self.mailbox
                    )
                elif self.inbox.unreachable_since is None:
                    self._fetcher_down_since = None  # the round fetched: the mailbox answers us
            except Exception as exc:
                _round_failed("intake", exc)
                await asyncio.sleep(1.0)
            if fetching:
                with self.watchdog.waiting("intake"):
                    await self.inbox.wait_for_mail(self.config.intake.poll_interval)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        self.stopping.wait(), timeout=self.config.intake.poll_interval
                    )

    async def _processing_loop(self) -> None:
        """Process filed mail and tick the games: after each filing, every poll
        interval (a peer may have filed mail), and the moment the clock's next
        wake comes (a deadline, grace end or reminder: Worker.plan_wake)."""
        while not self.stopping.is_set():
            self.watchdog.beat("processing", self.config.intake.poll_interval + 1.0)
            self.mail_filed.clear()
            try:
                await self._processing_round(tick=self._may_tick())
            except Exception as exc:
                _round_failed("processing", exc)
                await asyncio.sleep(1.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.mail_filed.wait(), timeout=self._until_wake())

    def _until_wake(self) -> float:
        """Seconds until the processing loop must look again: the poll interval, or
        less if the clock's next wake comes sooner (estimated on this host's
        clock, corrected by the offset measured at start)."""
        poll = self.config.intake.poll_interval
        wake = self.worker.next_wake
        if wake is None:
            return poll
        return max(0.01, min(poll, (wake - self.worker.clock()).total_seconds()))

    async def _outbox_round(self) -> int:
        """Send what is due, batch after batch, until a batch comes back short; the
        number of mails the server accepted."""
        limit = OUTBOX_BATCH_PER_CONNECTION * self.send_connections
        total = 0
        while not self.stopping.is_set():
            batch = await asyncio.to_thread(self.worker.due_outgoing, limit)
            gave_up: list[int] = []
            total += await self._send_batch(batch, gave_up)
            # A mail given up queues the moderator's notice: one more batch sends it.
            if len(batch.mails) < limit and not gave_up:
                break
        return total

    async def _send_batch(self, batch: OutgoingBatch, gave_up: list[int] | None = None) -> int:
        """One claimed batch over the connection pool: each connection takes the next
        mail as it finishes one, so the batch drains at the server's pace. The mails
        that failed for good are added to ``gave_up``."""
        waiting = {m.id for m in batch.mails}  # claimed, not yet handed to the server
        lost: set[int] = set()
        mails = iter(batch.mails)
        sent = 0
        gave_up = [] if gave_up is None else gave_up

        async def ours(mail_id: int) -> datetime | None:
            # The lease is checked before each send: in memory while both the claim
            # has CLAIM_SECONDS/2 left and this daemon's lease half its length (no peer
            # may take the mail before either expires) and the lease has not lapsed
            # since the claim (a new term: a peer may have taken the mail meanwhile),
            # else renewed in the database.
            # Until when no peer can take the mail; None if it is a peer's now.
            async with self._lease_lock:
                now = self.worker.clock()
                left = (batch.until - now).total_seconds()
                lease = self.worker.lease
                if (
                    left < CLAIM_SECONDS / 2
                    or not lease.runs(now, lease.length / 2)
                    or lease.term != batch.term
                ):
                    kept, batch.until, batch.term = await asyncio.to_thread(
                        self.worker.renew_outgoing, waiting, batch.until
                    )
                    lost.update(waiting - kept)
                waiting.discard(mail_id)
                if mail_id in lost or lease.until is None:
                    return None
                # A quarter of the lease kept back: the server's 250 must leave time to
                # commit the mail sent while it is still ours, or a peer that finds our
                # lease lapsed meanwhile takes the mail over and sends it again.
                return min(batch.until, lease.until - lease.length / 4)

        async def connection() -> None:
            nonlocal sent
            for mail in mails:  # shared: each mail goes to one connection
                held_until = None if self.stopping.is_set() else await ours(mail.id)
                if held_until is None:
                    continue  # stopping: released below; lost: a peer's now
                try:
                    with self.watchdog.waiting("outbox"):
                        # A send must end while the mail is ours: one hung on a cut link
                        # that went through when the link came back, after a peer had
                        # taken the mail over and sent it, delivered it twice.
                        async with asyncio.timeout(
                            (held_until - self.worker.clock()).total_seconds()
                        ):
                            await self.sender.send(mail.sender, [mail.recipient], mail.raw)
                except TimeoutError:
                    log.warning(
                        "sending mail %s outlasted its lease; given up, left to its next owner",
                        mail.id,
                    )
                    await asyncio.to_thread(self.worker.release_outgoing, {mail.id}, batch.until)
                except SendError as exc:
                    status = await asyncio.to_thread(
                        self.worker.send_failed,
                        mail.id,
                        str(exc),
                        isinstance(exc, PermanentMailError),
                    )
                    if status == OutboundStatus.FAILED:
                        gave_up.append(mail.id)
                else:
                    # Awaited first: ``sent += await ...`` would read ``sent`` before the
                    # await and lose another connection's count.
                    marked = await self.marks.sent(mail.id)
                    sent += marked

        try:
            # A task group: a connection that fails (the database, a bug) stops the others,
            # rather than leaving them sending behind the next round's back.
            async with asyncio.TaskGroup() as group:
                for _ in range(self.send_connections):
                    group.create_task(connection())
        except BaseExceptionGroup as failed:
            raise failed.exceptions[0] from None  # the cause; the rest are its echoes
        if waiting - lost:  # stopped mid-batch: the rest is free for the next daemon
            await asyncio.to_thread(self.worker.release_outgoing, waiting - lost, batch.until)
        if lost:
            log.warning(
                "lease lost on %d mail(s) before sending; left to their new owner", len(lost)
            )
        return sent

    async def _outbox_loop(self) -> None:
        self._outbox_running = True
        try:
            await self._outbox_rounds()
        finally:
            self._outbox_running = False
            self._outbox_handed.set()

    async def _outbox_rounds(self) -> None:
        while not self.stopping.is_set():
            self.watchdog.beat("outbox", 5.0)
            # Cleared before the round, not after: mail queued while the round
            # sends (a batch's answers) wakes the next round at once.
            self.outbox_wakeup.clear()
            upto = self._queued
            try:
                await self._outbox_round()
            except Exception as exc:
                _round_failed("outbox", exc)
                await asyncio.sleep(1.0)
            self._handed = upto
            self._outbox_handed.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.outbox_wakeup.wait(), timeout=OUTBOX_POLL)

    async def _heartbeat_loop(self) -> None:
        """Beat every HEARTBEAT_SECONDS, and at once when the mailbox goes or comes
        back (so an outage is measured to the second). A beat that fails (the
        database out of reach) is tried again every CHECK_SECONDS: this loop never
        ends before the daemon does."""
        next_beat = 0.0
        beat_state: bool | None = None  # the mailbox answered at the last beat
        failing = False
        while not self.stopping.is_set():
            self.watchdog.beat("heartbeat", HEARTBEAT_SECONDS)
            down_since = self._mailbox_down_since()
            if (down_since is None) != beat_state or time.monotonic() >= next_beat:
                try:
                    await asyncio.to_thread(self.worker.heartbeat, down_since)
                except Exception as exc:
                    if not failing:
                        log.warning("heartbeat failed, retrying: %s", exc)
                    failing = True
                else:
                    if failing:
                        log.info("heartbeat written again")
                    failing = False
                    beat_state = down_since is None
                    next_beat = time.monotonic() + HEARTBEAT_SECONDS
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), timeout=CHECK_SECONDS)
