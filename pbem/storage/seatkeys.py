"""Looking up the keys a seat signs with (the ``seat_keys`` table).

Intake verifies mail with them; the outbox (encryption to a player) reads a
player's OpenPGP key or S/MIME certificate from them too.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.storage.enums import KeyKind, SeatRole
from pbem.storage.models import Seat, SeatKey

__all__ = ["keys_with_fingerprint", "seat_keys"]


def seat_keys(
    session: Session,
    game_id: str,
    side: str,
    *,
    kind: KeyKind | None = None,
    retired: bool = False,
) -> list[SeatKey]:
    """The keys of the player who holds ``side`` in ``game_id`` now (the active
    seat), oldest first; only keys in use unless ``retired``; only ``kind`` if given."""
    query = (
        select(SeatKey)
        .join(Seat, Seat.id == SeatKey.seat_id)
        .where(
            Seat.game_id == game_id,
            Seat.side == side,
            Seat.role == SeatRole.PLAYER,
            Seat.active.is_(True),
        )
        .order_by(SeatKey.id)
    )
    if kind is not None:
        query = query.where(SeatKey.kind == kind)
    if not retired:
        query = query.where(SeatKey.retired_at.is_(None))
    return list(session.scalars(query))


def keys_with_fingerprint(
    session: Session, fingerprints: set[str] | frozenset[str]
) -> list[tuple[SeatKey, Seat]]:
    """Every registered key (in use or retired, of any seat and game) with one of
    these fingerprints, with its seat: what a signature's key names is looked up here."""
    if not fingerprints:
        return []
    return [
        (key, seat)
        for key, seat in session.execute(
            select(SeatKey, Seat)
            .join(Seat, Seat.id == SeatKey.seat_id)
            .where(SeatKey.fingerprint.in_(fingerprints))
            .order_by(SeatKey.id)
        )
    ]
