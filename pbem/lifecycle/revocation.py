"""A revoked OpenPGP key is dead: once pbem has seen its revocation, it is retired.

A revocation is signed by the key itself, so it counts whoever brings it: a
mail that carries it (Thunderbird attaches the sender's key, a player may paste
gpg's revocation certificate) or the moderator's ``KEY game side ADD``. Every
seat that signs with the key loses it at once, its stored copy keeps the
revocation (mail signed with it is refused as revoked, even without the
revocation attached), and the player and the moderator are told what to do next.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.errors import LifecycleError
from pbem.intake import openpgp
from pbem.lifecycle.desk import Desk
from pbem.outbox.queue import Outgoing, enqueue
from pbem.record.payloads import SeatKeyRetired
from pbem.storage.enums import GameStatus, KeyKind, OutboundKind
from pbem.storage.models import Game, Seat, SeatKey
from pbem.storage.seatkeys import keys_with_fingerprint, seat_keys

__all__ = ["Revoked", "apply_revocation", "given_revocation", "is_revoked", "next_step"]


@dataclass(frozen=True)
class Revoked:
    """A key pbem retired because it saw its revocation."""

    seat: Seat
    key: SeatKey


def is_revoked(key: SeatKey) -> bool:
    """Whether the stored copy of an OpenPGP key carries its revocation."""
    if key.kind != KeyKind.OPENPGP:
        return False
    try:
        return openpgp.read_certificate(key.material).is_revoked
    except ValueError:
        return False


def apply_revocation(
    desk: Desk, data: bytes, how: str, *, tell_moderator: bool = True
) -> tuple[str | None, list[Revoked]]:
    """Apply the revocation ``data`` may hold to every registered copy of its key:
    (the revoked key's fingerprint, None if ``data`` revokes nothing; the keys
    retired now). ``how`` says where the revocation came from, for the notices."""
    target = openpgp.revocation_target(data)
    if target is None:
        return None, []
    retired: list[Revoked] = []
    for key, seat in keys_with_fingerprint(desk.session, {target}):
        if key.kind != KeyKind.OPENPGP:
            continue
        merged = openpgp.revoked_with(key.material, data)
        if merged is None:  # revoked before, or not signed by the key itself
            continue
        key.material = merged
        if key.retired_at is None:
            key.retired_at = desk.now
            _retire(desk, seat, key, how, tell_moderator)
            retired.append(Revoked(seat, key))
    desk.session.flush()
    return target, retired


def given_revocation(desk: Desk, game_id: str, side: str, data: bytes) -> str | None:
    """KEY game side ADD with a revoked key or gpg's revocation certificate: the key
    is retired wherever it is registered; the answer (None: ``data`` revokes
    nothing, so it is a key to add). Refused if it revokes no key pbem knows."""
    target, retired = apply_revocation(
        desk, data, "the moderator registered its revocation", tell_moderator=False
    )
    if target is None:
        return None
    here = [
        k for k in seat_keys(desk.session, game_id, side, retired=True) if k.fingerprint == target
    ]
    now_here = [r for r in retired if r.key in here]
    elsewhere = [f"{r.seat.side} in {r.seat.game_id}" for r in retired if r.key not in here]
    also = f"; retired too for {', '.join(elsewhere)} (the player was told)" if elsewhere else ""
    if not here:
        if elsewhere:
            return f"the OpenPGP key {target} is revoked; {side} in {game_id} never signed with it{also}"
        raise LifecycleError(
            f"the OpenPGP key {target} is revoked, and {side} in {game_id} does not sign with "
            "it: a revoked key is never registered. The player makes a new key (gpg "
            "--quick-gen-key 'Name <address>' ed25519 sign 2y) and sends its public part; "
            f"register that with KEY {game_id} {side} ADD @new-key.asc"
        )
    if not now_here:
        return (
            f"the OpenPGP key {target} of {side} in {game_id} was retired already; its stored "
            f"copy now carries the revocation{also}"
        )
    return (
        f"the OpenPGP key {target} of {side} in {game_id} is revoked: retired now, and the "
        f"player was told{also}; {next_step(desk, now_here[0].seat)}"
    )


def next_step(desk: Desk, seat: Seat) -> str:
    """What the side's player does now: the keys he still signs with, or how to get one."""
    left = seat_keys(desk.session, seat.game_id, seat.side or "")
    if left:
        return f"{seat.side} still signs with " + ", ".join(
            f"{k.kind} key {k.fingerprint}" for k in left
        )
    return (
        f"{seat.side} has no key in use in {seat.game_id} now: the player makes a new key "
        "(gpg --quick-gen-key 'Name <address>' ed25519 sign 2y) and sends its public part "
        "(gpg --armor --export ADDRESS) to the moderator, who registers it with "
        f"KEY {seat.game_id} {seat.side} ADD"
    )


def _retire(desk: Desk, seat: Seat, key: SeatKey, how: str, tell_moderator: bool) -> None:
    """Record the retirement; tell the player and the moderator (in a game not over)."""
    game = desk.session.get(Game, seat.game_id, with_for_update=True)  # the record's lock
    assert game is not None
    retired = SeatKeyRetired(
        side=seat.side or "", key_kind=key.kind.value, fingerprint=key.fingerprint
    )
    desk.record(game, retired)
    if game.status == GameStatus.OVER or not seat.active:
        return
    what = (
        f"The OpenPGP key {key.fingerprint} is revoked ({how}). It no longer signs for "
        f"{seat.side} in game {seat.game_id}: pbem retired it, and mail signed with it is "
        f"refused from now on.\n\n{next_step(desk, seat)}.\n"
    )
    cause = ("key-revoked", seat.game_id, str(seat.id), key.fingerprint)
    told = [(seat.email, f"[pbem {seat.game_id}] your OpenPGP key is revoked")]
    if tell_moderator:
        told.append(
            (
                desk.config.moderator.human,
                f"[pbem {seat.game_id}] the OpenPGP key of {seat.side} ({seat.email}) is revoked",
            )
        )
    for to, subject in told:
        notice = Outgoing(
            kind=OutboundKind.NOTICE,
            cause=cause,
            to=to,
            subject=subject,
            text=what,
            game_id=seat.game_id,
            side=seat.side if to == seat.email else None,
        )
        enqueue(desk.session, desk.config, notice, desk.now)
