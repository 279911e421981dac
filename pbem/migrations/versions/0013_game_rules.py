"""games.rules: the rules a game plays by (ruleset version, data fingerprint)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07 16:00:00

A game keeps the rules it started with across an upgrade of pbem: the daemon holds a
game whose rules differ from its own until the moderator moves it (UPGRADE). Existing
games get None: they were played by their ruleset's legacy rules (pbem.rulesets.LEGACY).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("rules", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rules")
