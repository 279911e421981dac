"""Filing arrived mail: stored sealed as it came, opened again to be read.

The raw bytes are stored (``file_mail``, ``file_mails``; ``file_batch``, the
intake's, without ORM rows) before the transport may drop them, sealed because
a mail may carry orders. ``open_mail`` unseals and parses a stored mail outside
the transaction that decides on it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from pbem.intake.mime import ParsedMail, parse_mail
from pbem.intake.signatures import ArmouredBlock, find_blocks
from pbem.secrecy import sealing
from pbem.storage.enums import InboundStatus
from pbem.storage.models import InboundMail

# (transport ref, raw bytes[, when the mailbox received it])
Arrived = tuple[str, bytes] | tuple[str, bytes, datetime]


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def file_mail(
    session: Session, ref: str, raw: bytes, now: datetime, key: bytes
) -> InboundMail | None:
    """Store an arrived mail, sealed (it may carry orders), unless the same bytes are
    already stored. Commit after."""
    rows = file_mails(session, [(ref, raw)], now, key)
    return rows[0] if rows else None


def file_mails(
    session: Session, messages: Sequence[Arrived], now: datetime, key: bytes
) -> list[InboundMail]:
    """``file_mail`` for a fetched batch (ref, raw[, when the mailbox received it:
    ``now`` if not given]), with one query for the digests already stored;
    returns the new rows. Commit after."""
    rows = [InboundMail(**values) for values in _unstored(session, messages, now, key)]
    session.add_all(rows)
    session.flush()
    return rows


def file_batch(
    session: Session, messages: Sequence[Arrived], now: datetime, key: bytes
) -> list[tuple[int, str]]:
    """``file_mails`` for the intake, which needs no ORM objects back: one Core
    INSERT of the new rows (no unit of work), returning their (id, transport ref).
    Commit after."""
    values = _unstored(session, messages, now, key)
    if not values:
        return []
    filed = session.connection().execute(
        insert(InboundMail).returning(
            InboundMail.id, InboundMail.transport_ref, sort_by_parameter_order=True
        ),
        [
            {
                **v,
                "status": InboundStatus.NEW,
                "outcome": "",
                "sender": None,
                "message_id": None,
                "game_id": None,
                "side": None,
                "claim_owner": None,
                "claim_until": None,
                "processed_at": None,
            }
            for v in values
        ],
    )
    return [(row.id, row.transport_ref) for row in filed]


def _unstored(
    session: Session, messages: Sequence[Arrived], now: datetime, key: bytes
) -> list[dict[str, Any]]:
    """The columns of the mails of a batch not stored yet (one query for the digests
    already stored), sealed; a mail twice in the batch once."""
    by_digest = {digest(m[1]): (m[0], m[1], m[2] if len(m) > 2 else now) for m in messages}
    stored = set(
        session.scalars(select(InboundMail.digest).where(InboundMail.digest.in_(by_digest)))
    )
    return [
        {
            "digest": d,
            "transport_ref": ref,
            "raw": sealing.seal(key, raw, sealing.inbound_context(d)),
            "received_at": received,
        }
        for d, (ref, raw, received) in by_digest.items()
        if d not in stored
    ]


def open_inbound(key: bytes, row: InboundMail) -> bytes:
    """The stored mail's bytes, as they arrived."""
    return sealing.unseal(key, row.raw, sealing.inbound_context(row.digest))


@dataclass(frozen=True)
class Opened:
    """A stored mail unsealed and parsed, its armoured order blocks found: the
    part of processing that needs no database, done before the transaction that
    decides on the mail. No blocks are looked for in S/MIME mail, nor in mail
    over ``max_size`` (refused unread)."""

    raw: bytes
    mail: ParsedMail
    blocks: tuple[ArmouredBlock, ...]


def open_mail(key: bytes, row: InboundMail, max_size: int) -> Opened:
    raw = open_inbound(key, row)
    mail = parse_mail(raw)
    if mail.smime_signed or mail.size > max_size:
        return Opened(raw, mail, ())
    return Opened(raw, mail, tuple(find_blocks(mail.text)))
