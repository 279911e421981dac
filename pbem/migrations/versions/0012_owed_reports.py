"""owed_reports: the reports a tick made due, rendered after its write
transaction

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "owed_reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("owed_reports") as batch_op:
        batch_op.create_index(batch_op.f("ix_owed_reports_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("owed_reports") as batch_op:
        batch_op.drop_index(batch_op.f("ix_owed_reports_game_id"))
    op.drop_table("owed_reports")
