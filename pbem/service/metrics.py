"""Metrics in the Prometheus text exposition format (version 0.0.4), served on
loopback by the daemon when ``[metrics] port`` is set.

Counts of mail, games and phases come from the database, so they are the same
whichever daemon is asked and survive restarts; what only this process knows
(mail it fetched, when it last reached the mailbox, how long ago each loop
moved) comes from :class:`ProcessStats` and the watchdog.

The server is a few lines of asyncio: GET /metrics answers the text, anything
else 404 or 405; one request per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from pbem.core import stages
from pbem.service.clock import utcnow
from pbem.service.watchdog import Watchdog
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

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# A scraper that sends no request within this many seconds is cut off.
REQUEST_TIMEOUT = 10.0


@dataclass
class ProcessStats:
    """What only this daemon process knows, counted as it happens."""

    started: float = field(default_factory=time.time)
    mail_fetched: int = 0
    last_mailbox_contact: float | None = None  # Unix time of the last successful fetch

    def fetched(self, count: int) -> None:
        self.mail_fetched += count
        self.last_mailbox_contact = time.time()


@dataclass
class Family:
    """One metric: ``# HELP``, ``# TYPE`` and its samples (labels, value)."""

    name: str
    kind: str  # "gauge" or "counter"
    help: str
    samples: list[tuple[dict[str, str], float]] = field(default_factory=list)

    def add(self, value: float, **labels: str) -> Family:
        self.samples.append((labels, value))
        return self


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def render(families: Iterable[Family]) -> str:
    """The text exposition format: per family HELP, TYPE, then one line per sample."""
    lines: list[str] = []
    for f in families:
        lines.append(f"# HELP {f.name} {_escape_help(f.help)}")
        lines.append(f"# TYPE {f.name} {f.kind}")
        for labels, value in f.samples:
            shown = ",".join(f'{k}="{_escape_label(v)}"' for k, v in labels.items())
            lines.append(
                f"{f.name}{{{shown}}} {_number(value)}" if shown else f"{f.name} {_number(value)}"
            )
    return "\n".join(lines) + "\n"


def _per_status(
    s: Session, column: object, statuses: type[StrEnum], *where: object
) -> dict[str, int]:
    counts = {str(v): 0 for v in statuses}
    query = select(column, func.count()).group_by(column)  # type: ignore[call-overload]
    for status, count in s.execute(query.where(*where) if where else query):
        counts[str(status)] = count
    return counts


def database_families(s: Session, now: datetime) -> list[Family]:
    """The counts every daemon on this database shares."""
    inbound = Family(
        "pbem_inbound_mails",
        "gauge",
        "Mail received and stored, by status: new (waiting to be processed), "
        "answered, ignored (no answer due), failed (processing raised).",
    )
    for status, count in _per_status(s, InboundMail.status, InboundStatus).items():
        inbound.add(count, status=status)
    outbound = Family(
        "pbem_outbound_mails",
        "gauge",
        "Outgoing mail, by status: pending (in the outbox), sent, failed (for good).",
    )
    by_status = _per_status(s, OutboundMail.status, OutboundStatus)
    for status, count in by_status.items():
        outbound.add(count, status=status)
    oldest = s.scalar(
        select(func.min(OutboundMail.created_at)).where(
            OutboundMail.status == OutboundStatus.PENDING
        )
    )
    games = Family("pbem_games", "gauge", "Games, by status.")
    for status, count in _per_status(s, Game.status, GameStatus).items():
        games.add(count, status=status)
    waiting = s.scalar(
        select(func.count())
        .select_from(Phase)
        .join(Game, Game.id == Phase.game_id)
        .where(Phase.status == PhaseStatus.OPEN, Game.status == GameStatus.RUNNING)
    )
    disputes = Family(
        "pbem_disputes", "gauge", "Disputes, by status: open ones wait for the moderator."
    )
    for status, count in _per_status(s, Dispute.status, DisputeStatus).items():
        disputes.add(count, status=status)
    beat = s.get(Heartbeat, "daemon")
    return [
        inbound,
        outbound,
        Family(
            "pbem_outbox_depth", "gauge", "Outgoing mail waiting to be sent (status pending)."
        ).add(by_status[str(OutboundStatus.PENDING)]),
        Family(
            "pbem_outbox_oldest_pending_age_seconds",
            "gauge",
            "Seconds since the oldest pending outgoing mail was queued (0: none pending).",
        ).add(max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0),
        games,
        Family(
            "pbem_phases_waiting",
            "gauge",
            "Open phases of running games: waiting for orders or their deadline.",
        ).add(waiting or 0),
        disputes,
        Family(
            "pbem_heartbeat_timestamp_seconds",
            "gauge",
            "Unix time a daemon on this database last said it was alive (0: never).",
        ).add(beat.at.timestamp() if beat is not None else 0.0),
    ]


def process_families(stats: ProcessStats, watchdog: Watchdog | None) -> list[Family]:
    """What this process counted itself."""
    families = [
        Family("pbem_process_start_time_seconds", "gauge", "Unix time this daemon started.").add(
            stats.started
        ),
        Family(
            "pbem_mail_fetched_total",
            "counter",
            "Mail this daemon fetched from the mailbox and stored since it started.",
        ).add(stats.mail_fetched),
        Family(
            "pbem_mailbox_last_contact_timestamp_seconds",
            "gauge",
            "Unix time this daemon last fetched from the mailbox (IMAP or Maildir); 0: not yet.",
        ).add(stats.last_mailbox_contact or 0.0),
    ]
    spent = Family(
        "pbem_stage_cpu_seconds_total",
        "counter",
        "CPU seconds this daemon process spent per stage of the work (pbem.core.stages: "
        "adjudication, views, context, text, html, maps, compose, commit, sending, "
        "event-loop); its worker processes log theirs (logger pbem.stages at DEBUG).",
    )
    for name, seconds in sorted(stages.totals().items()):
        spent.add(seconds, stage=name)
    families.append(spent)
    if watchdog is not None:
        ages = Family(
            "pbem_loop_progress_age_seconds",
            "gauge",
            "Seconds since each loop of this daemon last made progress "
            "(0 while it waits on a mail server).",
        )
        for loop, age in sorted(watchdog.ages().items()):
            ages.add(age, loop=loop)
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


class Metrics:
    """Collects the families and serves them over HTTP."""

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

    def collect(self) -> list[Family]:
        """Every family; a database out of reach is ``pbem_database_up 0``, not an error."""
        families: Sequence[Family]
        up = Family("pbem_database_up", "gauge", "1 if the database answered this scrape, else 0.")
        try:
            with self.sessions() as s:
                families = database_families(s, self.clock())
            up.add(1)
        except SQLAlchemyError as exc:
            log.warning("metrics: the database did not answer: %s", exc)
            families = []
            up.add(0)
        return [up, *families, *process_families(self.stats, self.watchdog)]

    def text(self) -> str:
        return render(self.collect())

    async def serve(self, host: str, port: int) -> asyncio.Server:
        server = await asyncio.start_server(self._handle, host, port)
        log.info("metrics at http://%s:%d/metrics", host, port)
        return server

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            status, body = await asyncio.wait_for(self._answer(reader), REQUEST_TIMEOUT)
        except (TimeoutError, ValueError, ConnectionError, asyncio.IncompleteReadError):
            status, body = "400 Bad Request", "bad request\n"
        except Exception:  # a bug must not take the daemon down with it
            log.exception("metrics: answering a scrape failed")
            status, body = "500 Internal Server Error", "internal error\n"
        data = body.encode()
        head = (
            f"HTTP/1.1 {status}\r\nContent-Type: {CONTENT_TYPE}\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        )
        with contextlib.suppress(ConnectionError):
            writer.write(head.encode() + data)
            await writer.drain()
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[str, str]:
        request = (await reader.readline()).decode("latin-1").split()
        while (await reader.readline()).strip():  # headers: not needed
            pass
        if len(request) != 3 or not request[2].startswith("HTTP/"):
            raise ValueError("not an HTTP request")
        method, target = request[0], request[1].split("?", 1)[0]
        if target != "/metrics":
            return "404 Not Found", "not found: the metrics are at /metrics\n"
        if method != "GET":
            return "405 Method Not Allowed", "use GET\n"
        return "200 OK", await asyncio.to_thread(self.text)
