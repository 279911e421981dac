"""plots.held: a side's orders with refused lines keep the round open for it

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 17:30:00

Existing plots were sealed under the old rule (every plot closes the round), so
they are not held: the column defaults to false.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("plots") as batch:
        batch.add_column(sa.Column("held", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("plots") as batch:
        batch.drop_column("held")
