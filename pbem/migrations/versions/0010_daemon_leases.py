"""daemons: one row per daemon start, whose lease backs its claims; mailbox_leases:
which daemon fetches

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 20:45:00

Claims left by daemons of older versions ("host:pid" owners) name no row here:
they are free at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "daemons",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("daemons") as batch_op:
        batch_op.create_index(batch_op.f("ix_daemons_lease_until"), ["lease_until"], unique=False)
    op.create_table(
        "mailbox_leases",
        sa.Column("mailbox", sa.String(length=255), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("mailbox"),
    )


def downgrade() -> None:
    op.drop_table("mailbox_leases")
    op.drop_table("daemons")
