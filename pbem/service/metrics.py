"""Metrics in the Prometheus text exposition format (version 0.0.4), served on
loopback by the daemon when ``[metrics] port`` is set.

Counts of mail, games and phases come from the database, so they are the same
whichever daemon is asked and survive restarts; what only this process knows
(mail it fetched, when it last reached the mailbox, how long ago each loop
moved) comes from :class:`ProcessStats` and the watchdog.

The families are prometheus_client's and so is the exposition (the text format,
or OpenMetrics when the scraper asks for it); aiohttp serves GET /metrics
(pbem.service.web), anything else 404 or 405.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from aiohttp import web
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from pbem.core import stages
from pbem.service.clock import utcnow
from pbem.service.watchdog import Watchdog
from pbem.service.web import Site, application
from pbem.storage.enums import (
    DisputeStatus,
    GameStatus,
    InboundStatus,
    OutboundStatus,
    PhaseStatus,
)
from pbem.storage.models import Dispute, Game, Heartbeat, InboundMail, OutboundMail, Phase

log = logging.getLogger("pbem.service.metrics")
# DEBUG: each process logs its CPU per stage every STAGE_LOG_SECONDS while it changes.
stage_log = logging.getLogger("pbem.stages")
STAGE_LOG_SECONDS = 1.0


@dataclass
class ProcessStats:
    """What only this daemon process knows, counted as it happens."""

    started: float = field(default_factory=time.time)
    mail_fetched: int = 0
    last_mailbox_contact: float | None = None  # Unix time of the last successful fetch

    def fetched(self, count: int) -> None:
        self.mail_fetched += count
        self.last_mailbox_contact = time.time()


Family = GaugeMetricFamily | CounterMetricFamily


def family(name: str, kind: str, text: str, labels: Sequence[str] = ()) -> Family:
    """An empty metric family of prometheus_client: a gauge, or a counter (whose
    exposition names it ``name`` with ``_total``, the name given here)."""
    if kind == "counter":
        return CounterMetricFamily(name.removesuffix("_total"), text, labels=labels)
    return GaugeMetricFamily(name, text, labels=labels)


def single(name: str, kind: str, text: str, value: float) -> Metric:
    """A family of one sample without labels."""
    f = family(name, kind, text)
    f.add_metric([], value)
    return f


def _by_status(name: str, text: str, counts: dict[str, int]) -> Family:
    f = family(name, "gauge", text, ["status"])
    for status, count in counts.items():
        f.add_metric([status], count)
    return f


def _per_status(
    s: Session, column: object, statuses: type[StrEnum], *where: object
) -> dict[str, int]:
    counts = {str(v): 0 for v in statuses}
    query = select(column, func.count()).group_by(column)  # type: ignore[call-overload]
    for status, count in s.execute(query.where(*where) if where else query):
        counts[str(status)] = count
    return counts


def database_families(s: Session, now: datetime) -> list[Metric]:
    """The counts every daemon on this database shares."""
    by_status = _per_status(s, OutboundMail.status, OutboundStatus)
    oldest = s.scalar(
        select(func.min(OutboundMail.created_at)).where(
            OutboundMail.status == OutboundStatus.PENDING
        )
    )
    waiting = s.scalar(
        select(func.count())
        .select_from(Phase)
        .join(Game, Game.id == Phase.game_id)
        .where(Phase.status == PhaseStatus.OPEN, Game.status == GameStatus.RUNNING)
    )
    beat = s.get(Heartbeat, "daemon")
    return [
        _by_status(
            "pbem_inbound_mails",
            "Mail received and stored, by status: new (waiting to be processed), "
            "answered, ignored (no answer due), failed (processing raised).",
            _per_status(s, InboundMail.status, InboundStatus),
        ),
        _by_status(
            "pbem_outbound_mails",
            "Outgoing mail, by status: pending (in the outbox), sent, failed (for good).",
            by_status,
        ),
        single(
            "pbem_outbox_depth",
            "gauge",
            "Outgoing mail waiting to be sent (status pending).",
            by_status[str(OutboundStatus.PENDING)],
        ),
        single(
            "pbem_outbox_oldest_pending_age_seconds",
            "gauge",
            "Seconds since the oldest pending outgoing mail was queued (0: none pending).",
            max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0,
        ),
        _by_status("pbem_games", "Games, by status.", _per_status(s, Game.status, GameStatus)),
        single(
            "pbem_phases_waiting",
            "gauge",
            "Open phases of running games: waiting for orders or their deadline.",
            waiting or 0,
        ),
        _by_status(
            "pbem_disputes",
            "Disputes, by status: open ones wait for the moderator.",
            _per_status(s, Dispute.status, DisputeStatus),
        ),
        single(
            "pbem_heartbeat_timestamp_seconds",
            "gauge",
            "Unix time a daemon on this database last said it was alive (0: never).",
            beat.at.timestamp() if beat is not None else 0.0,
        ),
    ]


def process_families(stats: ProcessStats, watchdog: Watchdog | None) -> list[Metric]:
    """What this process counted itself."""
    spent = family(
        "pbem_stage_cpu_seconds_total",
        "counter",
        "CPU seconds this daemon process spent per stage of the work (pbem.core.stages: "
        "adjudication, views, context, text, html, maps, compose, commit, sending, "
        "event-loop); its worker processes log theirs (logger pbem.stages at DEBUG).",
        ["stage"],
    )
    for name, seconds in sorted(stages.totals().items()):
        spent.add_metric([name], seconds)
    families = [
        single(
            "pbem_process_start_time_seconds",
            "gauge",
            "Unix time this daemon started.",
            stats.started,
        ),
        single(
            "pbem_mail_fetched_total",
            "counter",
            "Mail this daemon fetched from the mailbox and stored since it started.",
            stats.mail_fetched,
        ),
        single(
            "pbem_mailbox_last_contact_timestamp_seconds",
            "gauge",
            "Unix time this daemon last fetched from the mailbox (IMAP or Maildir); 0: not yet.",
            stats.last_mailbox_contact or 0.0,
        ),
        spent,
    ]
    if watchdog is not None:
        ages = family(
            "pbem_loop_progress_age_seconds",
            "gauge",
            "Seconds since each loop of this daemon last made progress "
            "(0 while it waits on a mail server).",
            ["loop"],
        )
        for loop, age in sorted(watchdog.ages().items()):
            ages.add_metric([loop], age)
        families.append(ages)
    return families


def log_stages() -> None:
    """With ``pbem.stages`` at DEBUG: log this process's CPU per stage (a JSON object
    with its pid) every STAGE_LOG_SECONDS while it changes, from a thread of its own."""
    if not stage_log.isEnabledFor(logging.DEBUG):
        return

    def run() -> None:
        last: dict[str, float] = {}
        while True:
            time.sleep(STAGE_LOG_SECONDS)
            now = stages.totals()
            if now != last:
                stage_log.debug(
                    "stage CPU seconds %s", json.dumps({"pid": os.getpid(), "stages": now})
                )
                last = now

    threading.Thread(target=run, name="pbem-stages", daemon=True).start()


class Metrics(Collector):
    """Collects the families (a prometheus_client collector) and serves them over HTTP."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        stats: ProcessStats,
        watchdog: Watchdog | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.sessions = sessions
        self.stats = stats
        self.watchdog = watchdog
        self.clock = clock
        # A registry of its own: only pbem's families, none of the library's defaults.
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    def collect(self) -> Iterator[Metric]:
        """Every family; a database out of reach is ``pbem_database_up 0``, not an error."""
        families: Sequence[Metric]
        try:
            with self.sessions() as s:
                families = database_families(s, self.clock())
            up = 1
        except SQLAlchemyError as exc:
            log.warning("metrics: the database did not answer: %s", exc)
            families, up = [], 0
        yield single(
            "pbem_database_up", "gauge", "1 if the database answered this scrape, else 0.", up
        )
        yield from families
        yield from process_families(self.stats, self.watchdog)

    def exposition(self, accept: str | None = None) -> tuple[bytes, str]:
        """The families as prometheus_client writes them for a scraper's Accept header:
        (body, content type)."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type

    def text(self) -> str:
        """The Prometheus text format."""
        return self.exposition()[0].decode()

    def app(self) -> web.Application:
        app = application()
        app.router.add_get("/metrics", self._scrape)
        return app

    async def serve(self, host: str, port: int) -> Site:
        site = await Site(self.app(), "metrics").start(host, port)
        log.info("metrics at %smetrics", site.url)
        return site

    async def _scrape(self, request: web.Request) -> web.Response:
        # The database is read in a thread: the daemon's loop never waits on it.
        body, content_type = await asyncio.to_thread(self.exposition, request.headers.get("Accept"))
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response
