"""games.held: a rollback leaves the game held for the moderator

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 19:30:00

Held (the reason, e.g. "rollback to turn 2 plot"): no orders taken, no clock, no
adjudication until the moderator says ADJUDICATE or RESUME. Existing games are not held.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("held", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("held")
