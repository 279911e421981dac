"""`pbem db upgrade` (Alembic) builds the schema the models describe, on SQLite
and PostgreSQL: a migration forgotten or wrong shows up as a difference."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config as AlembicConfig
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, inspect, text
from sqlalchemy.exc import IntegrityError

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


def test_migrations_build_the_models_check_constraints(database_url: str) -> None:
    """Alembic's comparison leaves CHECK constraints out; they are compared here."""
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        inspector = inspect(engine)
        for table in Base.metadata.sorted_tables:
            declared = {
                c.name for c in table.constraints if isinstance(c, CheckConstraint) and c.name
            }
            built = {c["name"] for c in inspector.get_check_constraints(table.name)}
            assert built == declared, table.name
    finally:
        engine.dispose()


def _alembic(url: str) -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", "pbem:migrations")
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def test_existing_rows_survive_the_check_constraints(database_url: str) -> None:
    """A database from before the enums upgrades with its rows, then refuses
    a value outside the closed set."""
    command.upgrade(_alembic(database_url), "0002")
    engine = make_engine(database_url)
    insert = (
        "INSERT INTO games (id, ruleset, scenario, options, settings, status, created_at,"
        " pauses_used, paused_seconds) VALUES (:id, 'demo', 'duel', '{}', '{}', :status,"
        " '2026-12-01 12:00:00+00:00', 0, 0)"
    )
    try:
        with engine.begin() as conn:
            conn.execute(text(insert), {"id": "old", "status": "paused"})
        engine.dispose()
        command.upgrade(_alembic(database_url), "head")
        with engine.begin() as conn:
            assert conn.execute(text("SELECT status FROM games")).scalar_one() == "paused"
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(text(insert), {"id": "new", "status": "sleeping"})
    finally:
        engine.dispose()
