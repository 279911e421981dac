"""What a daemon makes of a partition (issue 19): PostgreSQL out of reach is a
warning its loops retry, not a bug's traceback; a mailbox taken over from a
fetcher cut off from it stays down until it answers the new fetcher."""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import psycopg.errors
import pytest
from sqlalchemy.exc import DBAPIError, OperationalError

from pbem.config import DatabaseConfig
from pbem.service.daemon import Daemon
from pbem.service.loops import round_failed
from pbem.storage.db import database_unreachable
from tests.unit.service.test_process_batch import _config

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _wrapped(orig: Exception, *, invalidated: bool = False) -> DBAPIError:
    cls = (
        OperationalError
        if isinstance(orig, sqlite3.Error | psycopg.OperationalError)
        else DBAPIError
    )
    return cls("SELECT 1", {}, orig, connection_invalidated=invalidated)


def test_a_connection_that_timed_out_or_broke_is_the_database_out_of_reach() -> None:
    # What libpq says when tcp_user_timeout ends a statement on a silent link.
    timed_out = psycopg.OperationalError(
        "consuming input failed: could not receive data from server: Connection timed out"
    )
    assert database_unreachable(_wrapped(timed_out))
    # A connection SQLAlchemy found broken, whatever the driver said.
    assert database_unreachable(_wrapped(psycopg.errors.AdminShutdown(), invalidated=True))


def test_a_statement_the_server_refused_is_no_partition() -> None:
    assert not database_unreachable(_wrapped(psycopg.errors.LockNotAvailable()))
    assert not database_unreachable(_wrapped(psycopg.errors.QueryCanceled()))
    assert not database_unreachable(_wrapped(sqlite3.OperationalError("database is locked")))
    assert not database_unreachable(ValueError("a bug"))


def test_a_round_that_lost_the_database_logs_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pbem.service")
    try:
        raise _wrapped(psycopg.OperationalError("connection timed out\nmore detail"))
    except OperationalError as exc:
        round_failed("outbox", exc)
    try:
        raise KeyError("a bug")
    except KeyError as exc:
        round_failed("processing", exc)
    warned, failed = caplog.records
    assert warned.levelname == "WARNING" and warned.exc_info is None
    assert warned.getMessage() == (
        "outbox round: the database is out of reach, retrying: connection timed out"
    )
    assert failed.levelname == "ERROR" and failed.exc_info is not None
    assert failed.getMessage() == "processing round failed; retrying"


class _Inbox:
    """Only what the heartbeat reads of an inbox."""

    unreachable_since: datetime | None = None

    async def close(self) -> None:
        pass


@pytest.fixture
def daemon(sqlite_url: str, tmp_path: Path) -> Iterator[Daemon]:
    config = dataclasses.replace(_config(tmp_path), database=DatabaseConfig(url=sqlite_url))
    made = Daemon(config, inbox=_Inbox())  # type: ignore[arg-type]
    yield made
    made.engine.dispose()


def test_a_mailbox_taken_over_from_a_cut_off_fetcher_is_down_until_it_answers(
    daemon: Daemon,
) -> None:
    inbox = daemon.inbox
    assert isinstance(inbox, _Inbox)
    # Not fetching: the fetching peer's mailbox went silent at T0.
    daemon.fetcher.fetcher_down_since = T0
    assert daemon.fetcher.mailbox_down_since() == T0
    # We take the mailbox over; still connecting, we have had no answer yet.
    daemon.worker.fetching = daemon.mailbox
    assert daemon.fetcher.mailbox_down_since() == T0
    # Our first attempt times out later: the outage still counts from T0.
    inbox.unreachable_since = T0 + timedelta(seconds=40)
    assert daemon.fetcher.mailbox_down_since() == T0
    # Answered (the intake round clears what it inherited): up.
    inbox.unreachable_since = None
    daemon.fetcher.fetcher_down_since = None
    assert daemon.fetcher.mailbox_down_since() is None
    # Our own mailbox goes silent later: since its last answer.
    inbox.unreachable_since = T0 + timedelta(minutes=5)
    assert daemon.fetcher.mailbox_down_since() == T0 + timedelta(minutes=5)


def test_a_restarting_server_ending_or_refusing_sessions_is_the_database_out_of_reach() -> None:
    """``pg_ctl -m fast restart`` ends every session with 57P01 (admin_shutdown)
    and refuses new ones with 57P03 (cannot_connect_now) while it starts: the
    database out of reach, retried, not a bug's traceback or a mail failed."""
    assert database_unreachable(_wrapped(psycopg.errors.AdminShutdown()))
    assert database_unreachable(_wrapped(psycopg.errors.CannotConnectNow()))
    assert database_unreachable(_wrapped(psycopg.errors.CrashShutdown()))
    assert database_unreachable(_wrapped(psycopg.errors.ConnectionFailure()))
