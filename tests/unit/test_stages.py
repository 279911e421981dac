"""CPU per stage (pbem.core.stages), commits counted by the storage hooks, and the
outbox woken by commits that queued mail (what bench/storm.py reads and relies on)."""

from __future__ import annotations

import base64
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from pbem.config import Config, SecretsConfig
from pbem.core import stages
from pbem.outbox.queue import Outgoing, enqueue, on_queued
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import OutboundKind


def _busy(cpu_seconds: float) -> None:
    end = time.thread_time() + cpu_seconds
    while time.thread_time() < end:
        pass


def test_nested_stages_count_exclusively_and_add_up() -> None:
    before = stages.totals()
    start = time.thread_time()
    with stages.stage("test-outer"):
        _busy(0.005)
        with stages.stage("test-inner"):
            _busy(0.05)
    whole = time.thread_time() - start
    after = stages.totals()
    outer = after["test-outer"] - before.get("test-outer", 0.0)
    inner = after["test-inner"] - before.get("test-inner", 0.0)
    assert inner >= 0.05
    assert outer < inner / 2  # the inner stage's time is not the outer's too
    assert abs(outer + inner - whole) < 0.01


def test_a_commit_is_counted_as_commit_unless_inside_another_stage(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        s.execute(text("CREATE TABLE t (x INTEGER)"))
    before = stages.totals().get("commit", 0.0)
    with sessions.begin() as s:
        s.execute(text("INSERT INTO t VALUES (1)"))
    counted = stages.totals().get("commit", 0.0)
    assert counted > before
    with stages.stage("test-sending"), sessions.begin() as s:
        s.execute(text("INSERT INTO t VALUES (2)"))
    assert stages.totals().get("commit", 0.0) == counted


def test_a_commit_that_queued_mail_calls_the_outbox_back(tmp_path: Path) -> None:
    config = Config(secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()))
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    create_all(engine)
    sessions = make_sessionmaker(engine)
    calls: list[int] = []
    stop = on_queued(lambda: calls.append(1))
    try:

        def queue(n: int) -> None:
            notice = Outgoing(
                kind=OutboundKind.NOTICE,
                cause=("test", str(n)),
                to="a@players.example",
                subject="s",
                text="t",
            )
            enqueue(s, config, notice, datetime.now(UTC))

        with sessions.begin() as s:
            s.execute(text("SELECT 1"))
        assert calls == []  # nothing queued: no wake-up
        with sessions.begin() as s:
            queue(1)
            queue(2)
        assert calls == [1]  # once per commit
        s = sessions()
        with s.begin():
            queue(3)
            s.rollback()
        s.close()
        with sessions.begin() as s:
            s.execute(text("SELECT 1"))
        assert calls == [1]  # the rolled-back mail woke nobody, then or later
    finally:
        stop()
    with sessions.begin() as s:
        queue(4)
    assert calls == [1]
