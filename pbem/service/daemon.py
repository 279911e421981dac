"""The daemon: the composition root. Wires transports, database and worker; runs
the intake, processing, outbox and heartbeat loops; shuts down cleanly on
SIGTERM/SIGINT.

Crash safety rests on one order of events for every mail: store the raw bytes
and commit, then acknowledge on the server; process in one transaction that
also queues the answer; send from the outbox afterwards. A kill at any point
leaves either an unacknowledged message (fetched again, deduplicated by its
digest), an unprocessed stored mail (processed on restart), or a queued answer
(sent on restart, with the same Message-ID).

Each loop is a part of its own: fetching and filing (``fetching``), processing
and ticking (``rounds``), sending (``sending``) and the heartbeat (``beats``);
the units of work they run in threads are the Worker's (pbem.service.work).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from pbem.config import Config
from pbem.core import stages
from pbem.core.errors import ConfigError
from pbem.mail.base import Inbox, MailSender
from pbem.outbox.queue import on_queued
from pbem.service.beats import heartbeat_loop
from pbem.service.clock import DatabaseClock
from pbem.service.doctor import clock_skew, skew_problem
from pbem.service.fetching import Fetcher
from pbem.service.loops import LoopContext
from pbem.service.metrics import Metrics, ProcessStats, log_stages
from pbem.service.notify import sd_notify, watchdog_interval
from pbem.service.processing import ProcessingPool
from pbem.service.rounds import ProcessingRounds
from pbem.service.sending import Outbox
from pbem.service.watchdog import Watchdog
from pbem.service.web import Site
from pbem.service.work import Worker, freeze_start_up
from pbem.storage.db import make_engine, make_sessionmaker

log = logging.getLogger("pbem.service")


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
        # A new id every start: this daemon's lease, and its claims' owner.
        owner = str(uuid.uuid4())
        self.worker = Worker(config, make_sessionmaker(self.engine), owner, clock or self.db_clock)
        self.pool = (
            ProcessingPool(config, config.intake.workers, owner, self.db_clock)
            if config.intake.workers > 1
            else None
        )
        self.inbox = inbox or make_inbox(config)
        self.sender = sender or make_sender(config)
        for note in config.outbox.notes():
            log.warning(note)
        self.stopping = asyncio.Event()
        self.watchdog = Watchdog(watchdog_interval())
        self.stats = ProcessStats()
        self.mailbox = mailbox_name(config)
        # What every loop is given; the loops are the parts below.
        self.loops = loops = LoopContext(config, self.worker, self.watchdog, self.stopping)
        # Mails in flight at once: one per connection of the SMTP pool.
        connections = config.smtp.connections if config.outbox.transport == "smtp" else 1
        self.outbox = Outbox(loops, self.sender, connections)
        self.fetcher = Fetcher(loops, self.inbox, self.mailbox, self.stats)
        self.processing = ProcessingRounds(loops, self.pool, self.outbox, self.fetcher)

    def request_stop(self) -> None:
        log.info("shutdown requested")
        self.stopping.set()
        self.outbox.wakeup.set()

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
        stop_waking = on_queued(lambda: self.outbox.wake_from_thread(loop))
        tasks = [
            asyncio.create_task(self.fetcher.loop(), name="intake"),
            asyncio.create_task(self.processing.loop(), name="processing"),
            asyncio.create_task(self.outbox.loop(), name="outbox"),
            asyncio.create_task(self.heartbeat_loop(), name="heartbeat"),
            asyncio.create_task(self.watchdog.run(), name="watchdog"),
        ]
        try:
            await self.stopping.wait()
        finally:
            sd_notify("STOPPING=1")
            if metrics is not None:
                await metrics.close()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # The last beat: a restart's downtime counts from this moment. Then our
            # lease ends: peers take over our claims and the mailbox at once.
            try:
                await asyncio.to_thread(self.worker.heartbeat, self.fetcher.mailbox_down_since())
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
        if problem := skew_problem(skew, self.config.database.max_clock_skew):
            raise ConfigError(f"{problem}; the daemon does not start")
        if self.worker.clock is self.db_clock:
            self.db_clock.offset -= timedelta(seconds=skew)

    async def _serve_metrics(self) -> Site | None:
        """The metrics on aiohttp, in this loop (pbem.service.web)."""
        c = self.config.metrics
        if not c.port:
            return None
        metrics = Metrics(self.worker.sessions, self.stats, self.watchdog, self.worker.clock)
        try:
            return await metrics.serve(c.host, c.port)
        except ConfigError as exc:
            raise ConfigError(f"[metrics] {exc}") from None

    async def once(self) -> None:
        """One full round: fetch, file, process, tick, send. For tests and `pbem run-once`."""
        await self.fetcher.round()
        await self.processing.round(tick_everything=True)
        await self.outbox.round()

    async def heartbeat_loop(self) -> None:
        """This daemon's beats (pbem.service.beats), told whether the mailbox answers."""
        await heartbeat_loop(self.loops, self.fetcher.mailbox_down_since)
