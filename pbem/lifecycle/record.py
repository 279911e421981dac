"""Appending to and reading a game's hash-chained record."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.record.chain import GENESIS, entry_hash
from pbem.storage.models import RecordEntry


def append(
    session: Session, game_id: str, kind: str, payload: dict[str, Any], at: datetime
) -> RecordEntry:
    """Add one entry; the caller holds the game's row lock, so ``seq`` cannot race."""
    last = session.scalars(
        select(RecordEntry)
        .where(RecordEntry.game_id == game_id)
        .order_by(RecordEntry.seq.desc())
        .limit(1)
    ).first()
    seq = 1 if last is None else last.seq + 1
    prev = GENESIS if last is None else last.hash
    stamp = at.isoformat()
    entry = RecordEntry(
        game_id=game_id,
        seq=seq,
        at=at,
        kind=kind,
        payload=payload,
        prev_hash=prev,
        hash=entry_hash(seq, stamp, kind, payload, prev),
    )
    session.add(entry)
    session.flush()
    return entry


def entries(session: Session, game_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(RecordEntry).where(RecordEntry.game_id == game_id).order_by(RecordEntry.seq)
    )
    return [
        {
            "seq": r.seq,
            "at": r.at.isoformat(),
            "kind": r.kind,
            "payload": r.payload,
            "prev_hash": r.prev_hash,
            "hash": r.hash,
        }
        for r in rows
    ]
