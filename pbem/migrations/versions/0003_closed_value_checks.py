"""CHECK constraints: status, role, source and kind columns hold only their enum's values

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 16:10:00

The values stored do not change (each enum member is the string stored before),
so an existing database upgrades in place. Batch mode: SQLite cannot add a
constraint to a table, so Alembic copies the table; PostgreSQL alters it.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> (constraint name, column, allowed values). Spelled out rather than read
# from pbem.storage.enums: a migration keeps meaning what it meant when written.
CHECKS: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {
    "games": [("ck_games_status", "status", ("created", "running", "paused", "over"))],
    "seats": [("ck_seats_role", "role", ("player", "observer"))],
    "phases": [("ck_phases_status", "status", ("open", "adjudicated", "superseded"))],
    "plots": [("ck_plots_source", "source", ("mail", "moderator", "rollback"))],
    "inbound_mails": [
        ("ck_inbound_mails_status", "status", ("new", "answered", "ignored", "failed"))
    ],
    "outbound_mails": [
        (
            "ck_outbound_mails_kind",
            "kind",
            ("answer", "receipt", "report", "reminder", "notice"),
        ),
        ("ck_outbound_mails_status", "status", ("pending", "sent", "failed")),
    ],
    "disputes": [("ck_disputes_status", "status", ("open", "upheld", "dismissed"))],
}


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    for table, checks in CHECKS.items():
        with op.batch_alter_table(table) as batch_op:
            for name, column, values in checks:
                batch_op.create_check_constraint(name, _in(column, values))


def downgrade() -> None:
    for table, checks in reversed(CHECKS.items()):
        with op.batch_alter_table(table) as batch_op:
            for name, _column, _values in checks:
                batch_op.drop_constraint(name, type_="check")
