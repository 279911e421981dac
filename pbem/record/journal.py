"""Appending to and reading a game's hash-chained record."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, tuple_
from sqlalchemy.orm import Session

from pbem.record.chain import GENESIS, entry_hash
from pbem.record.payloads import Payload
from pbem.storage.db import still_in_view, transaction_memo
from pbem.storage.models import RecordEntry


def _heads(session: Session) -> dict[str, RecordEntry]:
    """Game id -> the newest entry this transaction appended or read (the caller
    holds the game's row lock until the transaction ends)."""
    heads: dict[str, RecordEntry] = transaction_memo(session).setdefault("record.heads", {})
    return heads


def _head(session: Session, game_id: str) -> RecordEntry | None:
    """The game's newest entry. Remembered for the transaction (a mail batch appends
    to the same few games); an entry undone by a savepoint rollback turns
    transient, and then the head is read again."""
    heads = _heads(session)
    last = heads.get(game_id)
    if last is not None and still_in_view(last):
        return last
    last = session.scalars(
        select(RecordEntry)
        .where(RecordEntry.game_id == game_id)
        .order_by(RecordEntry.seq.desc())
        .limit(1)
    ).first()
    if last is not None:
        heads[game_id] = last
    return last


def prefetch_heads(session: Session, game_ids: Collection[str]) -> None:
    """Read the newest entry of each of these games in one query (for a batch of
    mail that will append to them)."""
    if not game_ids:
        return
    newest = (
        select(RecordEntry.game_id, func.max(RecordEntry.seq))
        .where(RecordEntry.game_id.in_(game_ids))
        .group_by(RecordEntry.game_id)
    )
    heads = _heads(session)
    for entry in session.scalars(
        select(RecordEntry).where(tuple_(RecordEntry.game_id, RecordEntry.seq).in_(newest))
    ):
        heads[entry.game_id] = entry


def append(session: Session, game_id: str, payload: Payload, at: datetime) -> RecordEntry:
    """Add one entry; the caller holds the game's row lock, so ``seq`` cannot race.

    The entry is flushed with the session's next query or commit."""
    kind, content = payload.kind, payload.to_dict()
    last = _head(session, game_id)
    seq = 1 if last is None else last.seq + 1
    prev = GENESIS if last is None else last.hash
    stamp = at.isoformat()
    entry = RecordEntry(
        game_id=game_id,
        seq=seq,
        at=at,
        kind=kind,
        payload=content,
        prev_hash=prev,
        hash=entry_hash(seq, stamp, kind, content, prev),
    )
    session.add(entry)
    _heads(session)[game_id] = entry
    return entry


def entries(
    session: Session, game_id: str, kinds: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The game's record entries in order (of these ``kinds`` only, if given)."""
    query = select(RecordEntry).where(RecordEntry.game_id == game_id)
    if kinds is not None:
        query = query.where(RecordEntry.kind.in_(kinds))
    return [_entry(r) for r in session.scalars(query.order_by(RecordEntry.seq))]


def latest(session: Session, game_id: str, kind: str) -> dict[str, Any] | None:
    """The game's last record entry of this kind, if any: one row, however long the game."""
    row = session.scalars(
        select(RecordEntry)
        .where(RecordEntry.game_id == game_id, RecordEntry.kind == kind)
        .order_by(RecordEntry.seq.desc())
        .limit(1)
    ).first()
    return None if row is None else _entry(row)


def _entry(r: RecordEntry) -> dict[str, Any]:
    return {
        "seq": r.seq,
        "at": r.at.isoformat(),
        "kind": r.kind,
        "payload": r.payload,
        "prev_hash": r.prev_hash,
        "hash": r.hash,
    }
