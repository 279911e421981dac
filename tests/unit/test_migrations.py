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


def test_seats_single_keys_move_into_seat_keys(database_url: str) -> None:
    """0007: each seat's key and certificate become rows of seat_keys, in use; the
    downgrade puts them back."""
    from pbem.intake.signatures import generate_keypair, key_fingerprint
    from pbem.intake.smime import certificate_fingerprint, make_self_signed_certificate

    _, public = generate_keypair("north")
    certificate, _ = make_self_signed_certificate("south@example.org")
    command.upgrade(_alembic(database_url), "0004")
    engine = make_engine(database_url)
    seat = (
        "INSERT INTO seats (id, game_id, role, side, email, timezone, public_key, key_fingerprint,"
        " certificate, cert_fingerprint, active, joined_at) VALUES (:id, 'old', :role, :side,"
        " :email, 'UTC', :key, :fp, :cert, :cert_fp, :active, '2026-12-01 12:00:00+00:00')"
    )
    rows = [
        {
            "id": 1,
            "role": "player",
            "side": "north",
            "email": "n@example.org",
            "key": public,
            "fp": key_fingerprint(public),
            "cert": None,
            "cert_fp": None,
            "active": True,
        },
        {
            "id": 2,
            "role": "player",
            "side": "south",
            "email": "s@example.org",
            "key": None,
            "fp": None,
            "cert": certificate,
            "cert_fp": certificate_fingerprint(certificate),
            "active": False,
        },
        {
            "id": 3,
            "role": "observer",
            "side": None,
            "email": "o@example.org",
            "key": None,
            "fp": None,
            "cert": None,
            "cert_fp": None,
            "active": True,
        },
    ]
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO games (id, ruleset, scenario, options, settings, status,"
                    " created_at, pauses_used, paused_seconds) VALUES ('old', 'demo', 'duel',"
                    " '{}', '{}', 'running', '2026-12-01 12:00:00+00:00', 0, 0)"
                )
            )
            for row in rows:
                conn.execute(text(seat), row)
        engine.dispose()
        command.upgrade(_alembic(database_url), "head")
        with engine.begin() as conn:
            moved = conn.execute(
                text(
                    "SELECT seat_id, kind, fingerprint, material, retired_at FROM seat_keys"
                    " ORDER BY seat_id"
                )
            ).all()
            assert [(r[0], r[1], r[2], bytes(r[3]), r[4]) for r in moved] == [
                (1, "ed25519", key_fingerprint(public), public.encode(), None),
                (2, "smime", certificate_fingerprint(certificate), certificate, None),
            ]
            assert "public_key" not in {c["name"] for c in inspect(conn).get_columns("seats")}
        engine.dispose()
        command.downgrade(_alembic(database_url), "0004")
        with engine.begin() as conn:
            back = conn.execute(
                text("SELECT id, public_key, cert_fingerprint FROM seats ORDER BY id")
            ).all()
            assert [tuple(r) for r in back] == [
                (1, public, None),
                (2, None, certificate_fingerprint(certificate)),
                (3, None, None),
            ]
    finally:
        engine.dispose()
