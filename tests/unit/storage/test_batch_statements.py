"""A batch's many-row INSERTs are converted by psycopg once, not once a batch
(pbem.storage.db.keep_batch_statements)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from psycopg import _queries
from sqlalchemy.orm import Session

from pbem.storage.db import create_all, make_engine
from pbem.storage.models import RecordEntry
from tests.conftest import make_database


@pytest.fixture
def postgresql_url(tmp_path: Path) -> Iterator[str]:
    yield from make_database("postgresql", tmp_path)


def _fifty_entries(game: str) -> list[RecordEntry]:
    at = datetime(2026, 12, 2, tzinfo=UTC)
    return [
        RecordEntry(game_id=game, seq=n, at=at, kind="k", payload={"n": n}, prev_hash="", hash="")
        for n in range(1, 51)
    ]


def test_a_batch_insert_is_converted_once_then_found_in_psycopgs_cache(
    postgresql_url: str,
) -> None:
    engine = make_engine(postgresql_url)
    create_all(engine)
    # Fifty rows of seven columns: one statement of several hundred parameters, past
    # psycopg's own limit of 50 for the statements whose conversion it keeps.
    assert _queries.MAX_CACHED_STATEMENT_PARAMS >= 400
    with Session(engine) as s:
        s.add_all(_fifty_entries("g1"))
        s.commit()
    before = _queries._query2pg.cache_info()
    with Session(engine) as s:
        s.add_all(_fifty_entries("g2"))
        s.commit()
    after = _queries._query2pg.cache_info()
    assert after.hits > before.hits  # the second batch's INSERT was found, not converted
    with Session(engine) as s:
        assert s.query(RecordEntry).count() == 100
