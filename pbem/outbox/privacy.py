"""Which key a player's mail is encrypted to: every mail is signed with the
game's key and encrypted for a player who opted in, as it is composed
(``pbem.outbox.queue.compose_outbound``).

A player opts in at ASSIGN (``encrypt=yes``) or later (``KEY game side ENCRYPT
yes``); the key is the newest of the seat's keys in use that can take encrypted
mail: an OpenPGP key with an encryption subkey, else an RSA S/MIME certificate.
An Ed25519 order-signing key cannot encrypt.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import pysequoia
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.outbox.protect import EncryptionKey
from pbem.storage.db import still_in_view, transaction_memo
from pbem.storage.enums import KeyKind, SeatRole
from pbem.storage.models import Seat, SeatKey
from pbem.storage.seatkeys import seat_keys

__all__ = ["encryption_key", "encryption_key_of"]

log = logging.getLogger(__name__)


def encryption_key_of(keys: list[SeatKey]) -> tuple[SeatKey, EncryptionKey] | None:
    """The key mail to this seat is encrypted to, of ``keys`` (oldest first): the
    newest OpenPGP key that can encrypt, else the newest RSA S/MIME certificate."""
    for kind in (KeyKind.OPENPGP, KeyKind.SMIME):
        for key in reversed([k for k in keys if k.kind == kind and k.active]):
            usable = _usable(key)
            if usable is not None:
                return key, usable
    return None


def _usable(key: SeatKey) -> EncryptionKey | None:
    if key.kind == KeyKind.OPENPGP:
        try:
            cert = pysequoia.Cert.from_bytes(key.material)
            pysequoia.encrypt(b"", recipients=[cert])  # no encryption subkey, expired: raises
        except Exception:  # pysequoia raises plain Exceptions
            return None
        return cert
    try:
        certificate = x509.load_pem_x509_certificate(key.material)
    except ValueError:
        return None
    return certificate if isinstance(certificate.public_key(), rsa.RSAPublicKey) else None


def encryption_key(session: Session, game_id: str, side: str) -> EncryptionKey | None:
    """The key mail to the side's player is encrypted to, or None: not opted in."""
    seat = _player(session, game_id, side)
    if seat is None or not seat.encrypt:
        return None
    found = encryption_key_of(seat_keys(session, game_id, side))
    if found is None:
        # The key was retired or expired since the opt-in. The mail still goes out,
        # signed: holding a report back would stop the game. The log says so.
        log.warning(
            "no key to encrypt to: mail goes out unencrypted",
            extra={"game": game_id, "side": side},
        )
        return None
    return found[1]


def _players(session: Session) -> dict[tuple[str, str], Seat]:
    players: dict[tuple[str, str], Seat] = transaction_memo(session).setdefault(
        "outbox.players", {}
    )
    return players


def remember_players(session: Session, seats: Iterable[Seat]) -> None:
    """Note seats the caller read in this transaction (a mail batch's signers) as
    their sides' players, so that their answers need no query of their own."""
    players = _players(session)
    for seat in seats:
        if seat.role == SeatRole.PLAYER and seat.active and seat.side is not None:
            players.setdefault((seat.game_id, seat.side), seat)


def _player(session: Session, game_id: str, side: str) -> Seat | None:
    """The side's player now, remembered for the transaction: a batch's answers and
    reports ask once per side, not once per mail (a query would also flush)."""
    players = _players(session)
    seat = players.get((game_id, side))
    if seat is not None and still_in_view(seat) and seat.active:
        return seat  # its encrypt flag is read live: an opt-in in this transaction counts
    with session.no_autoflush:
        seat = session.scalars(
            select(Seat).where(
                Seat.game_id == game_id,
                Seat.side == side,
                Seat.role == SeatRole.PLAYER,
                Seat.active.is_(True),
            )
        ).first()
    if seat is not None:  # no player yet is not remembered: ASSIGN may come next
        players[(game_id, side)] = seat
    return seat
