"""index for the rate limit: a sender's answered mails in the last window

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 23:58:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_inbound_sender_processed", "inbound_mails", ["sender", "processed_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_inbound_sender_processed", table_name="inbound_mails")
