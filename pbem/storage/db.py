"""Engine and sessions. SQLite is the embedded default; PostgreSQL by URL."""

from __future__ import annotations

import functools
import sqlite3
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from pbem.config import DatabaseConfig
from pbem.core import stages
from pbem.storage.models import Base


def tcp_user_timeout(settings: DatabaseConfig) -> float:
    """Seconds data sent to PostgreSQL may go unacknowledged before the connection
    fails: as long as the keepalives wait for their probes' answers, and under half
    the lease. Keepalives only probe an idle connection: a statement in flight on a
    link gone silent would otherwise wait out the kernel's retransmissions (about
    15 minutes), its daemon stuck long after its lease lapsed."""
    probing = settings.keepalive_interval * settings.keepalive_count
    return min(float(probing), settings.lease_seconds / 2)


def postgresql_connect_args(settings: DatabaseConfig) -> dict[str, Any]:
    """Timeouts and TCP keepalives for every PostgreSQL connection (libpq
    parameters): a paused or cut-off daemon's locks are broken by the server, a
    peer gone silent is noticed, no statement waits for ever, and a statement
    in flight on a silent link fails within ``tcp_user_timeout``."""

    def ms(seconds: float) -> int:
        return max(1, round(seconds * 1000))

    return {
        "options": (
            f"-c lock_timeout={ms(settings.lock_timeout)}"
            f" -c statement_timeout={ms(settings.statement_timeout)}"
            " -c idle_in_transaction_session_timeout="
            f"{ms(settings.idle_in_transaction_timeout)}"
        ),
        "keepalives": 1,
        "keepalives_idle": settings.keepalive_idle,
        "keepalives_interval": settings.keepalive_interval,
        "keepalives_count": settings.keepalive_count,
        "tcp_user_timeout": ms(tcp_user_timeout(settings)),
    }


# A batch's rows go out as one INSERT of many rows (SQLAlchemy's "insertmanyvalues":
# a batch of 50 answers is 800 parameters). psycopg turns a statement's placeholders
# into PostgreSQL's once per statement text, but keeps the result only for statements
# of at most 50 parameters and 4,096 characters (psycopg/_queries.py, after SQLAlchemy
# discussion 10270: one-off giants would crowd its cache), so every batch's INSERTs
# were converted again: 2 ms for 50 answers, 7 % of processing a batch of mail on
# PostgreSQL (py-spy, Worker.process_many). A batch's statements are no one-offs (one text per
# table and batch size): they are kept too, up to these limits. psycopg's cache holds
# 128 statements at most (a 50-row INSERT's conversion: about 210 KiB).
PSYCOPG_CACHED_PARAMS = 1000
PSYCOPG_CACHED_LENGTH = 64 * 1024


def keep_batch_statements() -> None:
    """Raise psycopg's limits on the statements whose conversion it keeps (above)."""
    from psycopg import _queries

    _queries.MAX_CACHED_STATEMENT_PARAMS = max(
        _queries.MAX_CACHED_STATEMENT_PARAMS, PSYCOPG_CACHED_PARAMS
    )
    _queries.MAX_CACHED_STATEMENT_LENGTH = max(
        _queries.MAX_CACHED_STATEMENT_LENGTH, PSYCOPG_CACHED_LENGTH
    )


# SQLSTATE classes that say the server went away or is not taking sessions yet,
# not that it refused a statement: 08 (connection exception) and 57P (operator
# intervention: 57P01 admin_shutdown, as a restart ends every session; 57P02
# crash_shutdown; 57P03 cannot_connect_now, while it starts up).
_SERVER_GONE = ("08", "57P")


def database_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says PostgreSQL is out of reach (a link gone silent or down,
    the server gone or restarting), not that it refused a statement: a connection
    SQLAlchemy found broken, a driver error without a SQLSTATE (the server sent
    none), or one of the server's own that says it ends or refuses sessions."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    if not isinstance(exc, OperationalError):
        return False
    # psycopg's errors carry ``sqlstate``, None when raised by the client side;
    # SQLite's have no such attribute (a locked file is no partition).
    sqlstate = getattr(exc.orig, "sqlstate", "")
    return sqlstate is None or (bool(sqlstate) and sqlstate.startswith(_SERVER_GONE))


# PostgreSQL's lock_not_available (lock_timeout ran out) and query_canceled
# (statement_timeout did).
_WAITED_TOO_LONG = {"55P03", "57014"}


def lock_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says a peer's transaction held what we needed past our
    timeouts (PostgreSQL's lock_timeout or statement_timeout; SQLite's write lock
    past its busy timeout): nothing wrong with the work, which waits for a later
    round while the server ends the peer's transaction (a stalled daemon's, within
    idle_in_transaction_timeout)."""
    if not isinstance(exc, OperationalError):
        return False
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if sqlstate is not None:
        return sqlstate in _WAITED_TOO_LONG
    return "database is locked" in str(exc.orig)


SQLITE_BUSY_TIMEOUT = 30.0  # seconds a SQLite writer waits for the write lock, then fails
# Seconds between a waiting writer's tries for the write lock: from the first to the cap,
# growing by half each try (bench/storm.py: tries every 0.5 ms cost 10 % more CPU).
SQLITE_TURN_PAUSE = 0.0005
SQLITE_TURN_PAUSE_CAP = 0.002


def _begin_immediate(conn: Any) -> None:
    """BEGIN IMMEDIATE, waiting for the write lock by trying again and again, a
    couple of milliseconds apart at most, for up to SQLITE_BUSY_TIMEOUT.

    SQLite's own busy handler sleeps 1, 2, 5 ... up to 100 ms between tries: a
    writer that has waited a while sleeps through the moments the lock is free,
    and a newcomer takes it. In a deadline storm the outbox's "sent" commits
    starved that way behind the workers' ticks for seconds (bench/storm.py). So
    the wait for BEGIN is this loop's, with the busy timeout off meanwhile; a
    statement inside a transaction still has SQLite's own (it never waits for
    the write lock there, holding it). The last try goes through SQLAlchemy, so
    a lock still held then fails as every "database is locked" does."""
    raw = conn.connection.dbapi_connection
    raw.execute("PRAGMA busy_timeout = 0")
    try:
        give_up = time.monotonic() + SQLITE_BUSY_TIMEOUT
        pause = SQLITE_TURN_PAUSE
        while time.monotonic() < give_up:
            try:
                raw.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    break  # not the lock: raised, wrapped, by the last try
            time.sleep(pause)
            pause = min(SQLITE_TURN_PAUSE_CAP, pause * 1.5)
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    finally:
        raw.execute(f"PRAGMA busy_timeout = {round(SQLITE_BUSY_TIMEOUT * 1000)}")


def make_engine(url: str, settings: DatabaseConfig | None = None) -> Engine:
    """An engine for ``url``; on PostgreSQL with the timeouts of ``settings``
    (the [database] section; its defaults if None)."""
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        # One writer at a time; wait for it rather than fail.
        kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT}
    elif url.startswith("postgresql"):
        kwargs["connect_args"] = postgresql_connect_args(settings or DatabaseConfig())
        keep_batch_statements()
    engine = create_engine(url, **kwargs)
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # pysqlite's own transaction handling breaks SAVEPOINT; let SQLAlchemy
            # emit BEGIN itself (the recipe in SQLAlchemy's SQLite dialect docs).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            # FULL, not NORMAL: in WAL mode NORMAL may lose the last commits to a power
            # cut, while the answer they led to (fsync'd into the Maildir, or taken by
            # the SMTP server) survives: an order answered "accepted" and then lost.
            cur.execute("PRAGMA synchronous=FULL")
            cur.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # IMMEDIATE: take the write lock at BEGIN, so two writers wait instead of
            # deadlocking on lock upgrade.
            _begin_immediate(conn)

    return engine


_MEMO = "pbem.transaction-memo"


def transaction_memo(session: Session) -> dict[str, Any]:
    """A dict for what one transaction may remember between queries (a batch's
    lookups); emptied when the session's outermost transaction ends, since
    another daemon may change anything after that."""
    memo: dict[str, Any] = session.info.setdefault(_MEMO, {})
    return memo


def still_in_view(row: object) -> bool:
    """Whether a row remembered in ``transaction_memo`` (or a like cache) may still
    be used: a savepoint rolled back turns the rows it added transient (and
    expires the others, so their attributes are read again)."""
    state = inspect(row)
    return (state.persistent or state.pending) and not state.deleted


@event.listens_for(Session, "after_transaction_end")
def _forget_memo(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_MEMO, None)


_COMMIT_STARTED = "pbem.commit-started"


@event.listens_for(Session, "before_commit")
def _commit_starts(session: Session) -> None:
    # The outermost commit only: its flush and the database's COMMIT (a savepoint's
    # release is part of the work around it).
    if not session.in_nested_transaction():
        session.info[_COMMIT_STARTED] = time.thread_time()


@event.listens_for(Session, "after_commit")
def _commit_done(session: Session) -> None:
    started = session.info.pop(_COMMIT_STARTED, None)
    # A commit inside a stage (the outbox marking a mail sent) is that stage's work.
    if started is not None and not stages.inside_stage():
        stages.counted("commit", time.thread_time() - started)


@event.listens_for(Session, "after_rollback")
def _commit_failed(session: Session) -> None:
    session.info.pop(_COMMIT_STARTED, None)


def insert_unless_taken(session: Session, model: type[Base], **values: Any) -> bool:
    """INSERT one row unless its key is taken (ON CONFLICT DO NOTHING): True if it
    went in. On PostgreSQL a peer's insert of the same key, not yet committed, is
    waited for, so two daemons racing for one key end with one row and one False,
    not with a unique violation (an ERROR in the server's log and a failed batch).

    Through Core, on the session's connection (in its transaction): the session's
    pending rows are not flushed for it, so a batch's rows still go out in one
    flush at its commit instead of one flush per mail (the replay guard runs once
    a mail). The row must therefore not refer to a row still pending."""
    statement = _insert_unless_taken_statement(session.get_bind().dialect.name, model)
    return session.connection().execute(statement, values).first() is not None


@functools.cache
def _insert_unless_taken_statement(dialect: str, model: type[Base]) -> Any:
    """``insert_unless_taken``'s statement for ``model``, built once: building it
    cost more than running it (its values are bound parameters)."""
    from sqlalchemy.dialects import postgresql, sqlite

    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    # RETURNING, not the row count: psycopg's pipeline leaves that unknown (-1).
    keys = inspect(model).primary_key
    return insert(model).on_conflict_do_nothing().returning(*keys)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def upgrade(url: str) -> tuple[str | None, str | None]:
    """Bring the database to the newest schema with Alembic (``pbem db upgrade``):
    the schema's revision before (None: a database without pbem's tables) and after."""
    from alembic import command
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    # Alembic finds the scripts inside the package, installed or not.
    cfg.set_main_option("script_location", "pbem:migrations")
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    before = schema_revision(url)
    command.upgrade(cfg, "head")
    return before, schema_revision(url)


def schema_revision(url: str) -> str | None:
    """The Alembic revision the database's schema is at; None when it has none yet."""
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def create_all(engine: Engine) -> None:
    """Tests only: make the schema without Alembic."""
    Base.metadata.create_all(engine)
