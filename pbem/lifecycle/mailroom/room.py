"""The Mailroom: runs one stored mail through the stages, in one transaction.

hygiene (answered at all? a copy? the rate limit) → verify (the signature, by
its scheme) → attribute (seat, game, side, turn, phase; replays) → act (orders
and DONE, a dispute, moderator commands; or a refusal) → answer (queued, the
row closed). Each stage is a module of this package; the Mailroom only holds
what they share for a batch of mail (the keys read, the senders counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.core.errors import IntakeError
from pbem.intake.hygiene import fallback_addresses
from pbem.intake.mime import message_object
from pbem.intake.openpgp import offered_keys
from pbem.intake.sheet import OrderSheet, parse_sheet
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import answer, notices, refusal
from pbem.lifecycle.mailroom.attribute import Attribution, Signed
from pbem.lifecycle.mailroom.commands import run_commands
from pbem.lifecycle.mailroom.dispute import file_dispute, is_dispute
from pbem.lifecycle.mailroom.filing import Opened, open_mail
from pbem.lifecycle.mailroom.hygiene import Screen
from pbem.lifecycle.mailroom.keyring import SeatKeys
from pbem.lifecycle.mailroom.orders import take_orders
from pbem.lifecycle.mailroom.verify import Verifier
from pbem.lifecycle.revocation import apply_revocation
from pbem.outbox.privacy import remember_players
from pbem.outbox.queue import enqueue
from pbem.storage.enums import InboundStatus
from pbem.storage.models import InboundMail

_COPY = "not answered: a copy of an earlier mail (same Message-ID)"
_SIGNER = "the signer's registered address"


class Mailroom:
    def __init__(self, gm: GameMaster) -> None:
        self.gm = gm
        self.config = gm.desk.config
        self.keys = SeatKeys(gm.desk.session)
        self.screen = Screen(gm.desk)
        self.verifier = Verifier(gm.desk, self.keys)
        self.attribution = Attribution(gm.desk, self.keys)

    def prefetch(self, batch: Sequence[tuple[InboundMail, Opened]]) -> None:
        """Read in a few queries what processing this batch of mails will ask mail
        by mail: the senders' answered mail and Message-IDs, whether the answers
        are queued, the seats of the keys that signed, which signatures were used
        before, and (through the game master) the games those seats play. Only a
        cache: the checks themselves are unchanged and exact."""
        self.screen.prefetch([opened.mail for _, opened in batch])
        answer.prefetch_answers(self.gm.desk.session, self.config, batch)
        blocks = [b for _, opened in batch for b in opened.blocks if not b.quoted and not b.problem]
        if not blocks:
            return
        found = self.keys.prefetch({b.key_id for b in blocks})
        seats = [seat for _, seat in found]
        remember_players(self.gm.desk.session, seats)  # their answers' encryption
        self.attribution.prefetch(blocks)
        self.gm.lookups.prefetch({s.game_id for s in seats if s.role == "player" and s.active})

    def process(self, row: InboundMail, opened: Opened | None = None) -> str:
        """Handle one stored mail (``opened`` if done already); returns the outcome
        written on the row."""
        opened = opened or open_mail(self.gm.desk.key, row, self.config.intake.max_size)
        mail = opened.mail
        row.sender = mail.from_addr
        row.message_id = mail.message_id
        verdict = self.screen.verdict(mail)
        if not verdict.answer:
            reason = f"not answered: {verdict.reason}"
            return answer.close(self.gm, row, InboundStatus.IGNORED, reason)
        if mail.from_addr is None:
            return self._without_from(row, opened)
        if self.screen.is_copy(row, mail):
            # A flood or a loop of one mail: the first copy had the answer.
            return answer.close(self.gm, row, InboundStatus.IGNORED, _COPY)
        return self._decide(row, opened, verdict.process)

    def _decide(self, row: InboundMail, opened: Opened, process: bool) -> str:
        """Rate limit, size, signature, attribution, then orders, a dispute or
        moderator commands: a mail with a sender to answer."""
        mail = opened.mail
        assert mail.from_addr is not None
        if not self.screen.within_rate_limit(mail.from_addr):
            over = "not answered: sender over the rate limit"
            return answer.close(self.gm, row, InboundStatus.IGNORED, over)
        if not process:
            reply = refusal.oversized(mail.size, self.config.intake.max_size)
            return answer.queue_answer(self.gm, row, mail, reply)
        self._take_revocations(opened)
        sheet: OrderSheet | None = None
        try:
            verified = self.verifier.verify(opened)
            sheet = parse_sheet(verified.text)
            signed = self.attribution.attribute(row, mail.from_addr, verified, sheet)
        except IntakeError as exc:
            reply = refusal.refuse(self.gm, row, opened, exc, sheet)
            return answer.queue_answer(self.gm, row, mail, reply)
        row.game_id = sheet.game
        row.side = sheet.side
        return answer.queue_answer(self.gm, row, mail, self._act(row, opened, signed))

    def _take_revocations(self, opened: Opened) -> None:
        """A revocation of a registered OpenPGP key, anywhere in the mail, retires the
        key before anything is verified: signed by the key itself, it counts
        whoever sends it, and mail signed with the key is refused from now on."""
        pasted = "BEGIN PGP PUBLIC KEY BLOCK" in opened.mail.text
        if not pasted and b"pgp-keys" not in opened.raw.lower():
            return
        how = f"its revocation came with a mail from {opened.mail.from_addr}"
        for data in offered_keys(message_object(opened.raw), opened.mail.text):
            apply_revocation(self.gm.desk, data, how)

    def _act(self, row: InboundMail, opened: Opened, signed: Signed) -> answer.Reply:
        """Moderator commands, a dispute or orders (DONE among them)."""
        sheet, seat = signed.sheet, signed.seat
        if seat is None:
            return run_commands(self.gm, row, opened.mail, sheet, self.keys)
        if is_dispute(sheet):
            return file_dispute(self.gm, row, sheet, seat)
        return take_orders(self.gm, row, sheet, seat)

    def _without_from(self, row: InboundMail, opened: Opened) -> str:
        """A mail with no usable From is answered all the same: at the registered
        address of the player whose signature it carries, else at its Sender,
        Reply-To or envelope sender, and then the moderator hears of it too."""
        mail = opened.mail
        address, how = self._signer_address(opened), _SIGNER
        if address is None:
            fallback = fallback_addresses(mail)
            address, how = (
                (fallback[0], "its Sender, Reply-To or envelope sender") if fallback else (None, "")
            )
        if address is None or address == self.config.moderator.address:
            self._tell_moderator(row, opened, "could not be answered: it names no address")
            return answer.close(
                self.gm,
                row,
                InboundStatus.IGNORED,
                "not answered: no usable From, Sender, Reply-To or envelope sender; "
                "filed for the moderator",
            )
        row.sender = address
        opened = replace(opened, mail=replace(mail, from_addr=address))
        if self.screen.is_copy(row, opened.mail):
            return answer.close(self.gm, row, InboundStatus.IGNORED, _COPY)
        if how != _SIGNER:
            self._tell_moderator(row, opened, f"was answered at {address} ({how})")
        outcome = self._decide(row, opened, mail.size <= self.config.intake.max_size)
        row.outcome = f"{outcome} (no usable From: answered at {how}, {address})"
        return row.outcome

    def _signer_address(self, opened: Opened) -> str | None:
        """The registered address of the player (or the moderator's human address
        for the moderator) whose key signed the mail's order block, if it verifies."""
        try:
            verified = self.verifier.verify(opened)
            seat = self.attribution.signer(verified, parse_sheet(verified.text))
        except IntakeError:
            return None
        return seat.email if seat is not None else self.config.moderator.human

    def _tell_moderator(self, row: InboundMail, opened: Opened, what: str) -> None:
        notice = notices.without_from(self.config, row, opened.mail, what)
        enqueue(self.gm.desk.session, self.config, notice, self.gm.desk.now)
