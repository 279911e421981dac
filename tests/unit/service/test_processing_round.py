"""The daemon's processing round (issue 2): every stored mail is processed once,
in the daemon or in its worker processes, and a mail another daemon holds is
left to it, without spinning on it."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from pbem.config import DatabaseConfig
from pbem.service.daemon import Daemon
from pbem.service.leases import Lease
from pbem.storage.models import InboundMail
from tests.unit.service.test_process_batch import _config, _orders, _sessions


@pytest.fixture(params=[1, 2], ids=["in-daemon", "2-worker-processes"])
def workers(request: pytest.FixtureRequest) -> int:
    return int(request.param)


async def _round(daemon: Daemon) -> None:
    if daemon.pool is not None:
        await daemon.pool.start()
    try:
        await asyncio.wait_for(daemon.processing.round(), timeout=60)
    finally:
        if daemon.pool is not None:
            daemon.pool.close()
        daemon.engine.dispose()


def _daemon(database_url: str, tmp_path: Path, workers: int) -> Daemon:
    config = _config(tmp_path)
    config = dataclasses.replace(
        config,
        database=DatabaseConfig(url=database_url),
        intake=dataclasses.replace(config.intake, workers=workers, rate_limit=10_000),
    )
    # Worker processes keep the real time: so do the games and the daemon here.
    _sessions(database_url, config, datetime.now(UTC))  # schema and two running games
    return Daemon(config)


def test_a_round_processes_every_stored_mail_once(database_url, tmp_path, workers):
    daemon = _daemon(database_url, tmp_path, workers)
    worker = daemon.worker
    # More than one batch per worker process in flight, so batches queue up.
    mails = [
        _orders(("north", "south")[i % 2], [f"SEND SQN-1 {'ABC'[i % 3]}"], ("g1", "g2")[i // 2 % 2])
        for i in range(130)
    ]
    worker.file_many([(f"ref{i}", raw) for i, raw in enumerate(mails)])
    asyncio.run(_round(daemon))
    with worker.sessions() as s:
        statuses = list(s.scalars(select(InboundMail.status)))
        outcomes = list(s.scalars(select(InboundMail.outcome)))
    assert statuses == ["answered"] * 130
    assert outcomes == ["accepted 1, refused 0"] * 130


def test_a_mail_another_daemon_holds_is_left_to_it(database_url, tmp_path, workers):
    daemon = _daemon(database_url, tmp_path, workers)
    worker = daemon.worker
    worker.file_many(
        [("a", _orders("north", ["SEND SQN-1 A"])), ("b", _orders("south", ["SEND SQN-1 B"]))]
    )
    held, free = worker.pending_mail()
    peer = Lease("peer-daemon", 60)  # a live daemon elsewhere: its lease runs
    with worker.sessions.begin() as s:
        peer.hold(s, datetime.now(UTC))
        s.execute(
            update(InboundMail)
            .where(InboundMail.id == held)
            .values(claim_owner=peer.owner, claim_until=datetime.now(UTC) + timedelta(minutes=5))
        )
    assert worker.pending_mail() == [free]
    asyncio.run(_round(daemon))  # returns: it does not wait for, or spin on, the held mail
    with worker.sessions() as s:
        status = {i: st for i, st in s.execute(select(InboundMail.id, InboundMail.status))}
    assert status == {held: "new", free: "answered"}
    # Once the claim has expired, the mail is anyone's.
    with worker.sessions.begin() as s:
        s.execute(
            update(InboundMail)
            .where(InboundMail.id == held)
            .values(claim_until=datetime.now(UTC) - timedelta(seconds=1))
        )
    later = Daemon(daemon.config)
    assert later.worker.pending_mail() == [held]
    asyncio.run(_round(later))
    with worker.sessions() as s:
        assert s.scalar(select(InboundMail.status).where(InboundMail.id == held)) == "answered"


def test_a_mail_held_by_a_daemon_whose_lease_ran_out_is_taken_over(database_url, tmp_path):
    """Issue 19: a claim is only as good as its owner's lease. A daemon killed or
    paused stops renewing it; one lease time later its claims are anyone's, on any
    host (no pid is asked), though the claim itself would run for minutes more."""
    daemon = _daemon(database_url, tmp_path, 1)
    worker = daemon.worker
    worker.file_many([("a", _orders("north", ["SEND SQN-1 A"]))])
    (held,) = worker.pending_mail()
    peer = Lease("paused-daemon", 60)
    with worker.sessions.begin() as s:
        peer.hold(s, datetime.now(UTC) - timedelta(seconds=61))  # its last renewal
        s.execute(
            update(InboundMail)
            .where(InboundMail.id == held)
            .values(claim_owner=peer.owner, claim_until=datetime.now(UTC) + timedelta(minutes=4))
        )
    assert worker.pending_mail() == [held]
    asyncio.run(_round(daemon))
    with worker.sessions() as s:
        row = s.get(InboundMail, held)
        assert row is not None and row.status == "answered"
