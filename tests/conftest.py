"""Fixtures shared by every test: databases (SQLite and the machine's PostgreSQL)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import Connection, Engine, event

from tests import tiers
from tests.databases import DATABASES, url_of

# No deadline, for everyone: a shared, busy machine makes an example slow, not
# wrong (a WitP property failed on the 200 ms default as a FlakyFailure). A test
# that measures speed would set its own; none does.
settings.register_profile("pbem", deadline=None, print_blob=True)
# CI explores the same examples every run (a property that fails does so on every
# run, not by luck of the seed); elsewhere, hypothesis searches afresh each time.
settings.register_profile("ci", parent=settings.get_profile("pbem"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "pbem")


def pytest_addoption(parser: pytest.Parser) -> None:
    tiers.add_option(parser)


@pytest.hookimpl(tryfirst=True)  # before -m reads the tier marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tiers.select(config, items)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if tiers.outside(collection_path, config) else None


def pytest_sessionfinish(session: pytest.Session) -> None:
    DATABASES.close()


def make_database(kind: str, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of ``kind`` ("sqlite" or "postgresql"); dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
        return
    name = DATABASES.take()
    try:
        yield url_of(name)
    finally:
        DATABASES.give_back(name)


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
