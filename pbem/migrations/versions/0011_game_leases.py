"""games.claim_owner/claim_until: the lease of the daemon ticking a game;
phases.remind_at and indexes on the phase times: the daemon sleeps until the
earliest of them (issues 19 and 15)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 10:00:00

The reminder time of phases open at the upgrade is computed from their game's
settings, as the clock always did.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEXED = ("deadline", "grace_until", "remind_at")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch_op:
        batch_op.add_column(sa.Column("claim_owner", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("claim_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_claim_until"), ["claim_until"], unique=False)
    with op.batch_alter_table("phases") as batch_op:
        batch_op.add_column(sa.Column("remind_at", sa.DateTime(timezone=True), nullable=True))
        for column in _INDEXED:
            batch_op.create_index(batch_op.f(f"ix_phases_{column}"), [column], unique=False)
    _fill_remind_at()


def _fill_remind_at() -> None:
    # The clock's arithmetic (pbem.lifecycle.deadlines.phase_times), written out: a
    # migration keeps meaning what it meant when written.
    phases = sa.table(
        "phases",
        sa.column("id", sa.Integer),
        sa.column("game_id", sa.String),
        sa.column("status", sa.String),
        sa.column("deadline", sa.DateTime(timezone=True)),
        sa.column("remind_at", sa.DateTime(timezone=True)),
    )
    games = sa.table("games", sa.column("id", sa.String), sa.column("settings", sa.JSON))
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(phases.c.id, phases.c.deadline, games.c.settings)
        .join(games, games.c.id == phases.c.game_id)
        .where(phases.c.status == "open", phases.c.deadline.is_not(None))
    ).all()
    for phase_id, deadline, settings in rows:
        settings = settings or {}
        if "reminder_hours" not in settings or "deadline_hours" not in settings:
            continue  # the deadline and grace end still wake the daemon
        lead = timedelta(
            hours=min(float(settings["reminder_hours"]), float(settings["deadline_hours"]))
        )
        bind.execute(
            sa.update(phases).where(phases.c.id == phase_id).values(remind_at=deadline - lead)
        )


def downgrade() -> None:
    with op.batch_alter_table("phases") as batch_op:
        for column in _INDEXED:
            batch_op.drop_index(batch_op.f(f"ix_phases_{column}"))
        batch_op.drop_column("remind_at")
    with op.batch_alter_table("games") as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_claim_until"))
        batch_op.drop_column("claim_until")
        batch_op.drop_column("claim_owner")
