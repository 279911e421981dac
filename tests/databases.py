"""Fresh PostgreSQL databases for the tests, made and dropped beside them.

Every test on PostgreSQL gets a database of its own, new and empty (some create
the tables, some run Alembic, some expect none). CREATE DATABASE copies a
template and DROP DATABASE removes its files, both with fsyncs: a second or
more on a busy machine, paid twice a test, while the test process itself
waited. Here one thread does both: it has the next test's database made while
the current test runs, and drops a used one after its test, so a test waits
only when the thread fell behind. Each test still gets a database nobody has
used, made the same way.
"""

from __future__ import annotations

import os
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
_BASE = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)


def admin_connect() -> Any:
    import psycopg

    return psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)


def _create() -> str:
    name = f"pbem_test_{uuid.uuid4().hex[:12]}"
    with admin_connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def _drop(name: str) -> None:
    with admin_connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def url_of(name: str) -> str:
    return f"{_BASE}/{name}"


class Databases:
    """Hands out new, empty databases; one made ahead, the used ones dropped behind."""

    def __init__(self) -> None:
        self._thread: ThreadPoolExecutor | None = None
        self._next: Future[str] | None = None
        self._drops: list[Future[None]] = []

    def _worker(self) -> ThreadPoolExecutor:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-test-db")
        return self._thread

    def take(self) -> str:
        """The name of a new, empty database; the next one is started."""
        ready, self._next = self._next, None
        name = ready.result() if ready is not None else _create()
        self._next = self._worker().submit(_create)
        return name

    def give_back(self, name: str) -> None:
        """Drop ``name`` (its connections ended), after the test, in the thread."""
        self._drops.append(self._worker().submit(_drop, name))

    def close(self) -> None:
        """Drop the one made ahead and wait for every drop: nothing is left behind,
        and a drop that failed fails the run, as it failed its test before."""
        if self._thread is None:
            return
        if self._next is not None:
            ahead, self._next = self._next, None
            self._drops.append(self._thread.submit(lambda: _drop(ahead.result())))
        self._thread.shutdown(wait=True)
        self._thread = None
        drops, self._drops = self._drops, []
        for drop in drops:
            drop.result()


# One per test process, whichever way a test reaches it (a fixture or make_database).
DATABASES = Databases()
