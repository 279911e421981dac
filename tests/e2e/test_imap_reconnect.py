"""The IMAP server back after a long outage: the daemon reconnects within a
second or two of its return, however long its backoff had grown, and the
deadlines move by the outage as measured, not by the outage and a backoff."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.record import journal
from pbem.service.daemon import Daemon
from pbem.service.heartbeat import OUTAGE_AFTER
from tests.conftest import make_database
from tests.e2e.helpers import ModeratorDesk, moderator_desk, new_player
from tests.e2e.netcut import CuttableProxy
from tests.maillab import MailLab

# Failed reconnects waited for: the backoff at its cap by then (it used to grow to
# 30 and 60 s: an answer that late, and as much more outage credited).
FAILED_RECONNECTS = 6


@pytest.fixture
def desk(mail_lab: MailLab, tmp_path: Path) -> Iterator[ModeratorDesk]:
    for url in make_database("postgresql", tmp_path):
        yield moderator_desk(mail_lab, url, tmp_path)


async def _until(what: str, predicate: object, timeout: float = 180) -> None:
    """Wait for an event (the generous timeout: a loaded machine)."""
    assert callable(predicate)
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_the_daemon_reconnects_within_seconds_of_the_imap_servers_return(
    mail_lab: MailLab, desk: ModeratorDesk, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    players = [new_player(mail_lab, side) for side in ("north", "south")]
    # The deadline falls during the outage below; no grace.
    desk.demo_game("g1", players, early_adjudication=False, deadline_hours=10 / 3600, grace_hours=0)
    proxy = CuttableProxy(mail_lab.imap_port)
    await proxy.start()
    config = replace(desk.config, imap=replace(desk.config.imap, port=proxy.port))
    daemon = Daemon(config)  # the daemon's own backoff, not a test's
    running = asyncio.create_task(daemon.run())

    def failed_reconnects() -> int:
        return sum("reconnecting in" in r.getMessage() for r in caplog.records)

    try:
        await _until("the daemon at work", lambda: daemon.worker.pulse.beating())
        await _until("a session", lambda: daemon.inbox.connections > 0)
        cut = datetime.now(UTC)
        await proxy.cut()
        # Long enough to count as an outage, the deadline passed, the backoff grown.
        await _until(
            "the outage",
            lambda: (
                failed_reconnects() >= FAILED_RECONNECTS
                and datetime.now(UTC) - cut > OUTAGE_AFTER + timedelta(seconds=1)
            ),
        )
        restored = datetime.now(UTC)
        await proxy.restore()
        await _until("the reconnect", lambda: daemon.inbox.unreachable_since is None)
        reconnected = datetime.now(UTC)

        def pushed() -> list[dict[str, float]]:
            with desk.sessions() as s:
                return [
                    e["payload"]
                    for e in journal.entries(s, "g1")
                    if e["kind"] == "deadline-pushed-back"
                ]

        await _until("the deadline to move", lambda: bool(pushed()))
    finally:
        daemon.request_stop()
        await asyncio.wait_for(running, timeout=60)
        await proxy.close()
    # Within a probe or two of the server's return, not a backoff of 30 or 60 s.
    assert (reconnected - restored).total_seconds() < 5
    # Credited as measured: from the mailbox's last answer (at most the cut) to the
    # first beat after it answered again (a heartbeat check, a second, later).
    [credit] = pushed()
    outage = (restored - cut).total_seconds()
    assert outage - 1 <= credit["downtime_seconds"] <= (reconnected - cut).total_seconds() + 2
