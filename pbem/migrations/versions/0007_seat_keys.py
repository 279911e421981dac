"""seat_keys: a seat holds several keys (Ed25519, S/MIME, OpenPGP) and rotates them

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-01 19:30:00

Each seat's single key and certificate (seats.public_key, seats.certificate) move
into the new table, added when the seat joined; then those columns go. A seat
retired by a takeover keeps its key on file, in use no more than the seat is
(the seat's ``active`` flag decides), so its mail is still refused as retired.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_seats = sa.table(
    "seats",
    sa.column("id", sa.Integer()),
    sa.column("public_key", sa.Text()),
    sa.column("key_fingerprint", sa.String(80)),
    sa.column("certificate", sa.LargeBinary()),
    sa.column("cert_fingerprint", sa.String(80)),
    sa.column("joined_at", sa.DateTime(timezone=True)),
)
_keys = sa.table(
    "seat_keys",
    sa.column("seat_id", sa.Integer()),
    sa.column("kind", sa.String(16)),
    sa.column("fingerprint", sa.String(80)),
    sa.column("material", sa.LargeBinary()),
    sa.column("added_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    op.create_table(
        "seat_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("fingerprint", sa.String(length=80), nullable=False),
        sa.Column("material", sa.LargeBinary(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('ed25519', 'smime', 'openpgp')", name="ck_seat_keys_kind"),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("seat_id", "fingerprint", name="uq_seat_keys_seat_fingerprint"),
    )
    with op.batch_alter_table("seat_keys") as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_keys_seat_id"), ["seat_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_seat_keys_fingerprint"), ["fingerprint"], unique=False)
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(
            _seats.c.id,
            _seats.c.public_key,
            _seats.c.key_fingerprint,
            _seats.c.certificate,
            _seats.c.cert_fingerprint,
            _seats.c.joined_at,
        ).order_by(_seats.c.id)
    ).all()
    moved = []
    for seat_id, public_key, key_fp, certificate, cert_fp, joined_at in rows:
        if public_key and key_fp:
            moved.append(
                {
                    "seat_id": seat_id,
                    "kind": "ed25519",
                    "fingerprint": key_fp,
                    "material": public_key.encode("utf-8"),
                    "added_at": joined_at,
                }
            )
        if certificate and cert_fp:
            moved.append(
                {
                    "seat_id": seat_id,
                    "kind": "smime",
                    "fingerprint": cert_fp,
                    "material": bytes(certificate),
                    "added_at": joined_at,
                }
            )
    if moved:
        op.bulk_insert(_keys, moved)
    with op.batch_alter_table("seats") as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_key_fingerprint"))
        batch_op.drop_column("public_key")
        batch_op.drop_column("key_fingerprint")
        batch_op.drop_column("certificate")
        batch_op.drop_column("cert_fingerprint")


def downgrade() -> None:
    """Back to one key and one certificate per seat: the first of each kind in use."""
    with op.batch_alter_table("seats") as batch_op:
        batch_op.add_column(sa.Column("public_key", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("key_fingerprint", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("certificate", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("cert_fingerprint", sa.String(length=80), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_seats_key_fingerprint"), ["key_fingerprint"], unique=False
        )
    bind = op.get_bind()
    keys = sa.table(
        "seat_keys",
        sa.column("id", sa.Integer()),
        sa.column("seat_id", sa.Integer()),
        sa.column("kind", sa.String(16)),
        sa.column("fingerprint", sa.String(80)),
        sa.column("material", sa.LargeBinary()),
        sa.column("retired_at", sa.DateTime(timezone=True)),
    )
    done: set[tuple[int, str]] = set()
    for seat_id, kind, fingerprint, material in bind.execute(
        sa.select(keys.c.seat_id, keys.c.kind, keys.c.fingerprint, keys.c.material)
        .where(keys.c.retired_at.is_(None), keys.c.kind.in_(("ed25519", "smime")))
        .order_by(keys.c.id)
    ):
        if (seat_id, kind) in done:
            continue
        done.add((seat_id, kind))
        values = (
            {"public_key": bytes(material).decode("utf-8"), "key_fingerprint": fingerprint}
            if kind == "ed25519"
            else {"certificate": bytes(material), "cert_fingerprint": fingerprint}
        )
        bind.execute(sa.update(_seats).where(_seats.c.id == seat_id).values(**values))
    op.drop_table("seat_keys")
