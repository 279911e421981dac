"""`pbem db upgrade` (Alembic) builds the schema the models describe, on SQLite
and PostgreSQL: a migration forgotten or wrong shows up as a difference."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from pbem.storage.db import make_engine, upgrade
from pbem.storage.models import Base


def test_migrations_build_the_models_schema(database_url: str) -> None:
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()
    assert diff == []
