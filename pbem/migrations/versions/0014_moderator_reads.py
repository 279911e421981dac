"""moderator_reads: the moderator's reads (STATUS, LIST, AUDIT ...), kept out of
the games' records in an audit store every process writes

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 23:00:00

Before, a read went only to the ``pbem.audit`` log of the process that ran it (a
CLI read left nothing durable). Never exported: the record is what is published.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "moderator_reads",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("command", sa.String(length=32), nullable=False),
        sa.Column("line", sa.Text(), nullable=False),
        sa.Column("via", sa.String(length=8), nullable=False),
        sa.Column("by", sa.String(length=254), nullable=False),
        sa.Column("origin", sa.String(length=998), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("moderator_reads") as batch_op:
        batch_op.create_index(batch_op.f("ix_moderator_reads_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_moderator_reads_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("moderator_reads") as batch_op:
        batch_op.drop_index(batch_op.f("ix_moderator_reads_game_id"))
        batch_op.drop_index(batch_op.f("ix_moderator_reads_at"))
    op.drop_table("moderator_reads")
