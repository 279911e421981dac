"""Fixtures shared by every test: databases (SQLite and the machine's PostgreSQL)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import Connection, Engine, event

# CI explores the same examples every run (a property that fails does so on every
# run, not by luck of the seed); locally, hypothesis searches afresh each time.
# No deadline in CI: a shared, busy machine makes an example slow, not wrong.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _pg_admin_connect():  # type: ignore[no-untyped-def]
    import psycopg

    return psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)


def make_database(kind: str, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of ``kind`` ("sqlite" or "postgresql"); dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
        return
    name = f"pbem_test_{uuid.uuid4().hex[:12]}"
    with _pg_admin_connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        with _pg_admin_connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(autouse=True)
def _engines_closed() -> Iterator[None]:
    """Every database engine a test used is disposed of when the test ends.

    Tests make engines freely (several daemons, Workers, a desk on one database)
    and drop them; a pooled PostgreSQL connection that is collected still open
    warns (ResourceWarning), and warnings fail the run. Held until then, so that
    none is collected open mid-test either.
    """
    used: list[Engine] = []

    def remember(connection: Connection) -> None:
        if connection.engine not in used:
            used.append(connection.engine)

    event.listen(Engine, "engine_connect", remember)
    try:
        yield
    finally:
        event.remove(Engine, "engine_connect", remember)
        for engine in used:
            engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each test using it runs twice: on SQLite and on PostgreSQL."""
    yield from make_database(request.param, tmp_path)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> Iterator[str]:
    yield from make_database("sqlite", tmp_path)
