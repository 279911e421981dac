"""Attribute: whose orders a verified mail carries, for which game, side, turn and phase.

The key that signed must be registered for the seat the sheet names (or be the
moderator's), the mail must come from that seat's address, and a signed block
is taken once: a replay is refused.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import select

from pbem.core.errors import IntakeError
from pbem.intake.sheet import OrderSheet
from pbem.intake.signatures import ArmouredBlock, VerifiedSheet, key_fingerprint
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.mailroom.keyring import SeatKeys
from pbem.storage.db import insert_unless_taken
from pbem.storage.models import InboundMail, Seat, UsedSignature

log = logging.getLogger("pbem.mailroom")


@dataclass(frozen=True)
class Signed:
    """A mail's orders, attributed: the sheet, the signature that verified, the seat."""

    sheet: OrderSheet
    verified: VerifiedSheet
    seat: Seat | None  # None: the moderator, by his own key


class Attribution:
    def __init__(self, desk: Desk, keys: SeatKeys) -> None:
        self.desk = desk
        self.keys = keys
        # Signature digests known used when the batch began (see prefetch).
        self._used: set[str] = set()

    def prefetch(self, blocks: Collection[ArmouredBlock]) -> None:
        """Which of these blocks' signatures were used before, in one query: their
        replays are refused without a try at recording them."""
        digests = {hashlib.sha256(b.signature).hexdigest() for b in blocks}
        self._used |= set(
            self.desk.session.scalars(
                select(UsedSignature.digest).where(UsedSignature.digest.in_(digests))
            )
        )

    def attribute(
        self, row: InboundMail, sender: str, verified: VerifiedSheet, sheet: OrderSheet
    ) -> Signed:
        """The sheet's seat, mailed from its address (the moderator's: one of his command
        addresses), its signature used for the first time (recorded now); raises
        ``IntakeError`` saying why not."""
        seat = self.signer(verified, sheet)
        sender = sender.lower()
        if seat is None and sender not in self.desk.config.moderator.command_addresses:
            raise IntakeError(
                "not-moderator",
                "moderator commands are taken only from the moderator's registered "
                "addresses; this mail was refused, nothing was done, and the moderator "
                "was told",
            )
        if seat is not None and sender != seat.email:
            raise IntakeError(
                "wrong-address",
                f"the key {verified.key_fingerprint} plays {seat.side} in {seat.game_id} "
                "under another address; mail from this address is not taken for that "
                "side (answers and reports go to the player's registered address)",
            )
        self._refuse_replay(verified, sheet, row)
        return Signed(sheet, verified, seat)

    def signer(self, verified: VerifiedSheet, sheet: OrderSheet) -> Seat | None:
        """The seat that signed, or None for the moderator. Refuses a key of another
        player, side or game, and a key retired by a takeover."""
        if sheet.side == "moderator":
            mod = self.desk.config.moderator.public_key
            if not mod or key_fingerprint(mod) != verified.key_fingerprint:
                log.warning("moderator command not signed by the moderator's key")
                raise IntakeError(
                    "not-moderator",
                    "this block claims Side: moderator but is not signed with the "
                    "moderator's key; it was refused and logged",
                )
            return None
        keys = self.keys.seats_with_key(verified.key_fingerprint)
        in_game = [(k, s) for k, s in keys if s.game_id == sheet.game and s.role == "player"]
        if not in_game:
            raise IntakeError(
                "unknown-key",
                f"the key {verified.key_fingerprint} is not registered for game {sheet.game}",
            )
        active = [s for k, s in in_game if s.active and k.retired_at is None]
        if not active:
            if any(s.active for _, s in in_game):
                raise IntakeError(
                    "retired-key",
                    f"the key {verified.key_fingerprint} was retired from game {sheet.game} "
                    "by the moderator (KEY RETIRE); sign with your current key",
                )
            raise IntakeError(
                "retired-key",
                f"the key {verified.key_fingerprint} was retired from game {sheet.game} when "
                "another player took over the side",
            )
        seat = active[0]
        if seat.side != sheet.side:
            raise IntakeError(
                "wrong-side",
                f"the key {verified.key_fingerprint} is registered for side {seat.side} in "
                f"game {sheet.game}, not {sheet.side}",
            )
        return seat

    def _refuse_replay(self, verified: VerifiedSheet, sheet: OrderSheet, row: InboundMail) -> None:
        """Record the signature's use; refuse it if it was used before. Recorded at once
        (not at the batch's commit): a peer deciding the same block in its own batch
        (two workers, one block mailed twice) waits for ours and takes it as a replay,
        an ordinary answer rather than a unique violation undoing its batch."""
        if verified.signature_digest in self._used or not insert_unless_taken(
            self.desk.session,
            UsedSignature,
            digest=verified.signature_digest,
            game_id=sheet.game,
            mail_id=row.id,
        ):
            raise IntakeError(
                "replay",
                "this signed block was received before; a signed block is accepted once "
                "(sign a new one, which gets a new Nonce)",
            )
