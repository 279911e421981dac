"""SQLite writers wait for the write lock by trying again, a couple of
milliseconds apart (pbem.storage.db._begin_immediate), not through SQLite's busy
handler; the waiting is measured in bench/storm.py, these tests hold its rules."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from pbem.storage import db
from pbem.storage.db import lock_unavailable, make_engine


def _engine(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'pbem.db'}")
    with engine.begin() as c:
        c.execute(text("CREATE TABLE t (writer TEXT)"))
    return engine


def test_a_writer_waiting_for_the_lock_writes_once_it_is_free(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    holder = engine.connect()
    holder.begin()
    holder.execute(text("INSERT INTO t VALUES ('first')"))
    started = threading.Event()
    failed: list[BaseException] = []

    def second() -> None:
        started.set()
        try:
            with engine.begin() as c:
                c.execute(text("INSERT INTO t VALUES ('second')"))
        except BaseException as exc:  # reported below, not lost in the thread
            failed.append(exc)

    waiter = threading.Thread(target=second)
    waiter.start()
    started.wait()
    # The waiter cannot have written: the lock is ours until we commit.
    assert holder.execute(text("SELECT writer FROM t")).scalars().all() == ["first"]
    holder.commit()
    holder.close()
    waiter.join()
    assert not failed
    with engine.connect() as c:
        assert c.execute(text("SELECT writer FROM t")).scalars().all() == ["first", "second"]
    engine.dispose()


def test_a_lock_held_past_the_busy_timeout_fails_as_database_is_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "SQLITE_BUSY_TIMEOUT", 0.05)
    engine = _engine(tmp_path)
    with engine.connect() as holder:
        holder.begin()
        holder.execute(text("INSERT INTO t VALUES ('held')"))
        with pytest.raises(OperationalError) as raised, engine.begin() as c:
            c.execute(text("INSERT INTO t VALUES ('never')"))
        # The daemon's loops take this for a peer's lock, to wait out, not a fault.
        assert lock_unavailable(raised.value)
        holder.rollback()
    engine.dispose()


def test_statements_inside_a_transaction_keep_sqlites_busy_timeout(tmp_path: Path) -> None:
    # The tries are for BEGIN alone; afterwards the connection waits as SQLite does
    # (a reader in WAL mode may meet a checkpoint's brief lock).
    engine = _engine(tmp_path)
    with engine.begin() as c:
        timeout_ms = c.execute(text("PRAGMA busy_timeout")).scalar_one()
    assert timeout_ms == round(db.SQLITE_BUSY_TIMEOUT * 1000)
    engine.dispose()


def test_an_error_at_begin_that_is_not_the_lock_is_raised_at_once(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    with engine.connect() as c:
        # A transaction already open on the connection: BEGIN IMMEDIATE is refused.
        c.connection.dbapi_connection.execute("BEGIN")  # type: ignore[union-attr]
        with pytest.raises(OperationalError, match="within a transaction"):
            db._begin_immediate(c)
    engine.dispose()
