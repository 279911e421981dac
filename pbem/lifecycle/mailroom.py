"""The mailroom: one stored incoming mail → exactly one answer (or a reasoned silence).

``file_mail`` (``file_mails`` for a batch; ``file_batch``, the intake's, without ORM
rows) stores the raw bytes (before the transport may drop them);
``process_mail`` then, in one transaction, parses, checks hygiene, verifies
the signature, attributes the sheet to a seat, refuses replays and wrong
phases, validates the orders with the ruleset, seals them and queues the
answer. The answer's Message-ID derives from the mail's digest, so a mail
processed again after a crash cannot be answered twice.

What an unverified sender hears depends only on what he sent, never on the
state of any game.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import func, insert, or_, select
from sqlalchemy.orm import Session

from pbem.core.errors import IntakeError, LifecycleError, MailSignatureError
from pbem.intake.hygiene import classify, fallback_addresses
from pbem.intake.mime import ParsedMail, message_object, parse_mail
from pbem.intake.openpgp import BEGIN_SIGNED, find_signature, verify_openpgp
from pbem.intake.sheet import OrderSheet, parse_sheet
from pbem.intake.signatures import (
    ArmouredBlock,
    VerifiedSheet,
    find_blocks,
    key_fingerprint,
    orders_in_text,
    verify_block,
)
from pbem.intake.smime import is_smime, signer_certificate_fingerprints, verify_smime
from pbem.lifecycle import moderator
from pbem.lifecycle.deadlines import local_time
from pbem.lifecycle.games import GameMaster
from pbem.outbox.compose import reply_subject
from pbem.outbox.privacy import remember_players
from pbem.outbox.queue import enqueue, loop_token, message_id_for, prefetch_unqueued
from pbem.record import journal
from pbem.record.payloads import MailRefused
from pbem.reports.render import render
from pbem.secrecy import sealing
from pbem.storage.enums import InboundStatus, KeyKind, OutboundKind
from pbem.storage.models import Game, InboundMail, Phase, Seat, SeatKey, UsedSignature
from pbem.storage.seatkeys import keys_with_fingerprint

log = logging.getLogger("pbem.mailroom")

HINTS = {
    "no-block": (
        "Orders are sent signed: sign the mail with your mail program (OpenPGP, as "
        "Thunderbird does, or S/MIME) with the key the moderator registered for you, "
        "or write your orders, run `pbem sign FILE` (or `pbem send`), and paste the "
        "whole block from -----BEGIN PBEM ORDERS----- to -----END PBEM ORDERS----- "
        "into the body of a plain-text mail."
    ),
    "bad-signature": (
        "Sign the block again with your own key and paste it unchanged; some mail "
        "programs rewrap or restyle text, so send it as plain text."
    ),
}
# Content types of a mail signed as a whole (S/MIME opaque, PGP/MIME), lower case.
_WHOLE_MAIL_CONTENT_TYPES = (b"pkcs7-mime", b"pgp-signature", b"pgp-encrypted")
# For mail the player's mail program signed (S/MIME, OpenPGP): nothing was pasted.
MAIL_HINTS = {
    "bad-signature": (
        "Send the orders again as a new signed mail; nothing may change the mail "
        "after your mail program signed it (not even a forwarding rule)."
    ),
    "unknown-key": (
        "Sign with the key or certificate the moderator registered for you, or send "
        "your new public key to the moderator (KEY game side ADD)."
    ),
    "expired-key": (
        "Extend your key (gpg --quick-set-expire FINGERPRINT 1y) or get a new "
        "certificate, and send the public part to the moderator (KEY game side ADD)."
    ),
}


@dataclass
class Answer:
    """What the answer to one mail says (rendered by templates/common/answer.txt.j2)."""

    error: str = ""
    hint: str = ""
    game: str = ""
    side: str = ""
    turn: int = 0
    phase: str = ""
    accepted: list[str] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    receipt: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    deadline: str = ""
    # How the round stands for the side after this mail: "held" (refused lines, the
    # round waits for a correction or DONE), "done" (DONE said), or "" (nothing to say).
    round: str = ""
    # A moderator's command mail, line by line: line, text, status
    # (done | FAILED | undone | not run), result or reason.
    commands: list[dict[str, Any]] = field(default_factory=list)


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
    session: Session,
    messages: Sequence[tuple[str, bytes] | tuple[str, bytes, datetime]],
    now: datetime,
    key: bytes,
) -> list[InboundMail]:
    """``file_mail`` for a fetched batch (ref, raw[, when the mailbox received it:
    ``now`` if not given]), with one query for the digests already stored;
    returns the new rows. Commit after."""
    rows = [InboundMail(**values) for values in _unstored(session, messages, now, key)]
    session.add_all(rows)
    session.flush()
    return rows


def file_batch(
    session: Session,
    messages: Sequence[tuple[str, bytes] | tuple[str, bytes, datetime]],
    now: datetime,
    key: bytes,
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
    session: Session,
    messages: Sequence[tuple[str, bytes] | tuple[str, bytes, datetime]],
    now: datetime,
    key: bytes,
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


class Opened(NamedTuple):
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


class Mailroom:
    def __init__(self, gm: GameMaster) -> None:
        self.gm = gm
        self.s = gm.desk.session
        self.config = gm.desk.config
        # Sender -> mails answered in the rate window, this batch's included.
        self._answered: dict[str, int] = {}
        self._seats_by_key: dict[str, list[tuple[SeatKey, Seat]]] = {}
        # Signature digests known unused when the batch began (see prefetch).
        self._unused: set[str] = set()
        # (sender, Message-ID) of mail processed before, and which were looked up.
        self._seen_message_ids: set[tuple[str, str]] = set()
        self._copies_looked_up: set[tuple[str, str]] = set()

    def prefetch(self, batch: Sequence[tuple[InboundMail, Opened]]) -> None:
        """Read in a few queries what processing this batch of mails will ask mail
        by mail: the seats of the keys that signed, which signatures were used
        before, whether the answers are queued, and (through the game master)
        the games those seats play. Only a cache: the checks themselves are
        unchanged and exact."""
        mails = [opened.mail for _, opened in batch]
        self._count_answered({mail.from_addr for mail in mails if mail.from_addr})
        copies = {
            (m.from_addr, m.message_id)
            for m in mails
            if m.from_addr is not None and m.message_id is not None
        }
        if copies:
            self._look_up_copies(copies)
        prefetch_unqueued(
            self.s,
            [
                message_id_for(self.config, "answer", ("answer", row.digest), opened.mail.from_addr)
                for row, opened in batch
                if opened.mail.from_addr
            ],
        )
        blocks = [b for _, opened in batch for b in opened.blocks if not b.quoted and not b.problem]
        if not blocks:
            return
        key_ids = {b.key_id for b in blocks} - self._seats_by_key.keys()
        for key_id in key_ids:
            self._seats_by_key[key_id] = []
        found = keys_with_fingerprint(self.s, key_ids)
        for key, seat in found:
            self._seats_by_key[key.fingerprint].append((key, seat))
        remember_players(self.s, (seat for _, seat in found))  # their answers' encryption
        digests = {hashlib.sha256(b.signature).hexdigest() for b in blocks}
        used = set(
            self.s.scalars(select(UsedSignature.digest).where(UsedSignature.digest.in_(digests)))
        )
        self._unused |= digests - used
        self.gm.lookups.prefetch(
            {
                seat.game_id
                for key_id in key_ids
                for _, seat in self._seats_by_key[key_id]
                if seat.role == "player" and seat.active
            }
        )

    # ---------------------------------------------------------------- entry

    def process(self, row: InboundMail, opened: Opened | None = None) -> str:
        """Handle one stored mail (``opened`` if done already); returns the outcome
        written on the row."""
        opened = opened or open_mail(self.gm.desk.key, row, self.config.intake.max_size)
        mail = opened.mail
        row.sender = mail.from_addr
        row.message_id = mail.message_id
        verdict = classify(
            mail,
            own_addresses={self.config.moderator.address},
            loop_token=loop_token(self.config),
            max_size=self.config.intake.max_size,
        )
        if not verdict.answer:
            return self._close(row, InboundStatus.IGNORED, f"not answered: {verdict.reason}")
        if mail.from_addr is None:
            return self._without_from(row, opened)
        if self._is_copy(row, mail):
            # A flood or a loop of one mail: the first copy had the answer.
            return self._close(
                row,
                InboundStatus.IGNORED,
                "not answered: a copy of an earlier mail (same Message-ID)",
            )
        return self._decide(row, opened, verdict.process)

    def _decide(self, row: InboundMail, opened: Opened, process: bool) -> str:
        """Rate limit, size, signature, attribution, then orders, a dispute or
        moderator commands: a mail with a sender to answer."""
        mail = opened.mail
        assert mail.from_addr is not None
        moderator_address = mail.from_addr.lower() in self.config.moderator.command_addresses
        if not moderator_address and not self._within_rate_limit(mail.from_addr):
            # Never the moderator's own mail: an EXTEND must not be dropped.
            return self._close(
                row, InboundStatus.IGNORED, "not answered: sender over the rate limit"
            )
        if not process:
            answer = Answer(
                error=f"Your mail is {mail.size} bytes; the limit is "
                f"{self.config.intake.max_size}. Send the order block alone, as plain text."
            )
            return self._answer(row, mail, answer, "refused: oversized")
        sheet: OrderSheet | None = None
        try:
            verified = self._verify(opened)
            sheet = parse_sheet(verified.text)
            seat = self._attribute(verified, sheet)
            if seat is None and not moderator_address:
                raise IntakeError(
                    "not-moderator",
                    "moderator commands are taken only from the moderator's registered "
                    "addresses; this mail was refused, nothing was done, and the moderator "
                    "was told",
                )
            if seat is not None and mail.from_addr.lower() != seat.email:
                raise IntakeError(
                    "wrong-address",
                    f"the key {verified.key_fingerprint} plays {seat.side} in {seat.game_id} "
                    "under another address; mail from this address is not taken for that "
                    "side (answers and reports go to the player's registered address)",
                )
            self._refuse_replay(verified, sheet, row)
        except IntakeError as exc:
            if exc.code == "not-moderator":
                self._alert_refused_command(row, mail, exc.message)
            if sheet is not None:  # signed by a key we know: the game it names hears of it
                self._note_refusal(
                    row,
                    sheet.game,
                    sheet.side,
                    sheet.turn,
                    sheet.phase,
                    f"{exc.code}: {exc.message}",
                )
            if (
                exc.code == "no-block"
                and not opened.blocks
                and mail.text.strip()
                and not _looks_like_orders(mail.text)
            ):
                forwarded = self._forward(row, mail)
                if forwarded:
                    return self._answer(
                        row,
                        mail,
                        Answer(
                            notes=[
                                "Your mail holds no signed orders, so it went to the human "
                                f"moderator of {forwarded}, who reads it and answers you "
                                "himself.",
                                HINTS["no-block"],
                            ]
                        ),
                        f"forwarded to the moderator ({forwarded})",
                    )
            hints = MAIL_HINTS if isinstance(exc, MailSignatureError) else HINTS
            answer = Answer(error=exc.message, hint=hints.get(exc.code, ""))
            return self._answer(row, mail, answer, f"refused: {exc.code}: {exc.message}")
        row.game_id = sheet.game
        row.side = sheet.side
        if seat is None:
            return self._moderator_commands(row, mail, sheet)
        if sheet.lines and sheet.lines[0][1].upper().startswith("DISPUTE"):
            return self._dispute(row, mail, sheet, seat)
        return self._orders(row, mail, sheet, seat)

    # ------------------------------------------------ no From, copies

    def _without_from(self, row: InboundMail, opened: Opened) -> str:
        """A mail with no usable From is answered all the same: at the registered
        address of the player whose signature it carries, else at its Sender,
        Reply-To or envelope sender, and then the moderator hears of it too."""
        mail = opened.mail
        address, how = self._signer_address(opened), "the signer's registered address"
        if address is None:
            fallback = fallback_addresses(mail)
            address, how = (
                (fallback[0], "its Sender, Reply-To or envelope sender") if fallback else (None, "")
            )
        if address is None or address == self.config.moderator.address:
            self._tell_moderator(row, mail, "could not be answered: it names no address")
            return self._close(
                row,
                InboundStatus.IGNORED,
                "not answered: no usable From, Sender, Reply-To or envelope sender; "
                "filed for the moderator",
            )
        row.sender = address
        mail = replace(mail, from_addr=address)
        if self._is_copy(row, mail):
            return self._close(
                row,
                InboundStatus.IGNORED,
                "not answered: a copy of an earlier mail (same Message-ID)",
            )
        if how != "the signer's registered address":
            self._tell_moderator(row, mail, f"was answered at {address} ({how})")
        outcome = self._decide(
            row, opened._replace(mail=mail), mail.size <= self.config.intake.max_size
        )
        row.outcome = f"{outcome} (no usable From: answered at {how}, {address})"
        return row.outcome

    def _signer_address(self, opened: Opened) -> str | None:
        """The registered address of the player (or the moderator's human address
        for the moderator) whose key signed the mail's order block, if it verifies."""
        try:
            verified = self._verify(opened)
            sheet = parse_sheet(verified.text)
            seat = self._attribute(verified, sheet)
        except IntakeError:
            return None
        return seat.email if seat is not None else self.config.moderator.human

    def _tell_moderator(self, row: InboundMail, mail: ParsedMail, what: str) -> None:
        enqueue(
            self.s,
            self.config,
            kind=OutboundKind.NOTICE,
            cause=("no-from", row.digest),
            to=self.config.moderator.human,
            subject=f"[pbem] a mail without a usable From {what.split(':')[0]}",
            text=(
                f"Mail {row.id} (Message-ID {mail.message_id or 'none'}, subject "
                f"{mail.subject!r}, stored as {row.digest}) had no usable From and {what}.\n"
                "It is filed in the database with the rest of the incoming mail."
            ),
            now=self.gm.desk.now,
        )

    def _is_copy(self, row: InboundMail, mail: ParsedMail) -> bool:
        """Whether an earlier mail from the same sender had the same Message-ID."""
        if not mail.message_id or not mail.from_addr:
            return False
        key = (mail.from_addr, mail.message_id)
        if key not in self._copies_looked_up:
            self._look_up_copies({key}, besides=row.id)
        if key in self._seen_message_ids:
            return True
        self._seen_message_ids.add(key)
        return False

    def _look_up_copies(self, keys: set[tuple[str, str]], besides: int | None = None) -> None:
        """Note which (sender, Message-ID) of ``keys`` earlier processed mail had."""
        self._copies_looked_up |= keys
        query = select(InboundMail.sender, InboundMail.message_id).where(
            InboundMail.sender.in_({sender for sender, _ in keys}),
            InboundMail.message_id.in_({mid for _, mid in keys}),
            InboundMail.status != InboundStatus.NEW,
        )
        if besides is not None:
            query = query.where(InboundMail.id != besides)
        for sender, message_id in self.s.execute(query):
            if sender is not None and message_id is not None and (sender, message_id) in keys:
                self._seen_message_ids.add((sender, message_id))

    def _forward(self, row: InboundMail, mail: ParsedMail) -> str:
        """Plain mail (no order block) from an address seated in a game goes to the
        human moderator; returns the games it names ("" if the sender has no seat).
        The answer still goes to the From address only, so a forged From learns
        nothing of the seats."""
        seats = self.s.scalars(
            select(Seat).where(Seat.email == mail.from_addr, Seat.active.is_(True))
        ).all()
        if not seats:
            return ""
        games = ", ".join(sorted({s.game_id for s in seats}))
        roles = "; ".join(
            f"{s.side} player in {s.game_id}"
            if s.role == "player"
            else f"observer ({s.side or 'omniscient'}) of {s.game_id}"
            for s in seats
        )
        enqueue(
            self.s,
            self.config,
            kind=OutboundKind.NOTICE,
            cause=("forward", row.digest),
            to=self.config.moderator.human,
            subject=f"[pbem {games}] mail from {mail.from_addr}: {mail.subject or '(no subject)'}",
            text=(
                f"A mail without orders from {mail.from_addr} ({roles}), forwarded to you; "
                "it is not signed, so its sender is not proven. Answer him yourself, or "
                f'with MESSAGE game side "text".\n\nSubject: {mail.subject or ""}\n\n'
                f"{mail.text}\n"
            ),
            now=self.gm.desk.now,
            game_id=seats[0].game_id if len({s.game_id for s in seats}) == 1 else None,
        )
        return games

    def _within_rate_limit(self, sender: str) -> bool:
        """Whether a mail of ``sender`` may be answered: at most ``rate_limit``
        answered mails per ``rate_window`` seconds. Counted in the database, so
        the limit holds across worker processes, daemons and restarts."""
        if sender not in self._answered:
            self._count_answered({sender})
        if self._answered[sender] >= self.config.intake.rate_limit:
            return False
        self._answered[sender] += 1
        return True

    def _count_answered(self, senders: set[str]) -> None:
        since = self.gm.desk.now - timedelta(seconds=self.config.intake.rate_window)
        wanted = senders - self._answered.keys()
        if not wanted:
            return
        counts = {
            sender: n
            for sender, n in self.s.execute(
                select(InboundMail.sender, func.count())
                .where(
                    InboundMail.sender.in_(wanted),
                    InboundMail.processed_at > since,
                    InboundMail.status == InboundStatus.ANSWERED,
                )
                .group_by(InboundMail.sender)
            )
        }
        for sender in wanted:
            self._answered[sender] = counts.get(sender, 0)

    def _close(self, row: InboundMail, status: InboundStatus, outcome: str) -> str:
        row.status = status
        row.outcome = outcome
        row.processed_at = self.gm.desk.now
        log.info(
            "mail %s",
            outcome,
            extra={"game": row.game_id, "side": row.side, "message_id": row.message_id},
        )
        return outcome

    def _note_refusal(
        self, row: InboundMail, game_id: str, side: str, turn: int, phase: str, reason: str
    ) -> None:
        """A refused mail is an event of the game it names: that it came and why it was
        refused, never its content. Only for a signature that verified (else anyone
        could write into any game's record) and a game that exists."""
        if not game_id or self.s.get(Game, game_id) is None:
            return
        self.gm.lookups.game(game_id)  # the row lock under which record entries are numbered
        journal.append(
            self.s,
            game_id,
            MailRefused(mail=row.digest, side=side, turn=turn, phase=phase, reason=reason),
            self.gm.desk.now,
        )

    def _alert_refused_command(self, row: InboundMail, mail: ParsedMail, why: str) -> None:
        """A forged or misdirected moderator command cannot wait for a digest."""
        enqueue(
            self.s,
            self.config,
            kind=OutboundKind.NOTICE,
            cause=("alert", row.digest),
            to=self.config.moderator.human,
            subject="[pbem] ALERT: a moderator command was refused",
            text=(
                f"A mail from {mail.from_addr} (Message-ID {mail.message_id or 'none'}, "
                f"subject {mail.subject!r}) claimed to carry moderator commands and was "
                f"refused:\n\n  {why}\n\nNothing in it was done.\n"
            ),
            now=self.gm.desk.now,
        )

    def _answer(
        self,
        row: InboundMail,
        mail: ParsedMail,
        answer: Answer,
        outcome: str,
        to: str | None = None,
    ) -> str:
        """Queue the answer: to ``to`` (a seat's registered address), else the sender."""
        assert mail.from_addr is not None
        if outcome.startswith("refused") and answer.game:
            # Orders or a dispute from a verified player, refused by the game.
            reason = answer.error or outcome.removeprefix("refused: ")
            self._note_refusal(row, answer.game, answer.side, answer.turn, answer.phase, reason)
        text = render("common", "answer.txt.j2", answer.__dict__)
        enqueue(
            self.s,
            self.config,
            kind=OutboundKind.ANSWER,
            cause=("answer", row.digest),
            to=to or mail.from_addr,
            subject=reply_subject(mail.subject or "your orders"),
            text=text,
            now=self.gm.desk.now,
            in_reply_to=mail.message_id,
            references=(*mail.references, *([mail.message_id] if mail.message_id else [])),
            game_id=answer.game or None,
            side=answer.side or None,
        )
        return self._close(row, InboundStatus.ANSWERED, outcome)

    # ------------------------------------------------------- verification

    def _verify(self, opened: Opened) -> VerifiedSheet:
        raw, mail, blocks = opened
        fresh = [b for b in blocks if not b.quoted]
        # Parsing the whole mail again is only worth it when it may be signed whole.
        lowered = raw.lower()
        if (
            mail.smime_signed
            or any(mark in lowered for mark in _WHOLE_MAIL_CONTENT_TYPES)
            or BEGIN_SIGNED in mail.text
        ):
            message = message_object(raw)
            if mail.smime_signed or is_smime(message):
                carried = signer_certificate_fingerprints(message, raw)
                certs = self._mail_keys(KeyKind.SMIME, mail, carried)
                return verify_smime(message, certs, raw=raw)
            pgp = find_signature(message, raw, mail.text)
            if pgp is not None:
                certs = self._mail_keys(KeyKind.OPENPGP, mail, pgp.issuers)
                try:
                    return verify_openpgp(pgp, certs, now=self.gm.desk.now)
                except MailSignatureError as exc:
                    # A mail program that signs every mail with a key pbem does not
                    # know, around a pasted PBEM ORDERS block: the block decides.
                    if exc.code != "unknown-key" or not fresh:
                        raise
        if not fresh:
            if blocks:
                raise IntakeError(
                    "no-block",
                    "the only PBEM ORDERS block in your mail is quoted from an earlier "
                    "mail ('>' marks); quoted blocks are never taken as new orders",
                )
            raise IntakeError(
                "no-block",
                "no signed PBEM ORDERS block found in your mail, and the mail is not "
                "signed (OpenPGP or S/MIME) either",
            )
        if len(fresh) > 1:
            raise IntakeError(
                "no-block",
                f"your mail holds {len(fresh)} PBEM ORDERS blocks; send one block per mail",
            )
        return verify_block(fresh[0], self._known_keys(fresh[0].key_id))

    def _mail_keys(
        self, kind: KeyKind, mail: ParsedMail, issuers: set[str] | frozenset[str]
    ) -> dict[str, bytes]:
        """Certificates that could have signed a whole mail: every registered one (in use
        or retired) of a seat with the sender's address, or that the mail names (an
        OpenPGP primary key's fingerprint or key ID, an S/MIME certificate it carries).
        Which seat signed is decided after verifying (``_attribute``)."""
        query = select(SeatKey).join(Seat, Seat.id == SeatKey.seat_id).where(SeatKey.kind == kind)
        named = {i for i in issuers if len(i) >= 40}
        ids = {i for i in issuers if len(i) == 16}
        conditions = [Seat.email == (mail.from_addr or "")]
        if named:
            conditions.append(SeatKey.fingerprint.in_(named))
        conditions += [SeatKey.fingerprint.endswith(i) for i in sorted(ids)]
        return {k.fingerprint: k.material for k in self.s.scalars(query.where(or_(*conditions)))}

    def _known_keys(self, key_id: str) -> dict[str, str]:
        """Keys that could have signed: every registered player key (active or retired)
        with that fingerprint, and the moderator's."""
        keys = {
            key.fingerprint: key.material.decode("ascii")
            for key, _ in self._seats_with_key(key_id)
            if key.kind == KeyKind.ED25519
        }
        if self.config.moderator.public_key:
            fp = key_fingerprint(self.config.moderator.public_key)
            keys[fp] = self.config.moderator.public_key
        return keys

    def _seats_with_key(self, fingerprint: str) -> list[tuple[SeatKey, Seat]]:
        """Registered keys with this fingerprint and their seats, read once per Mailroom
        (a batch of mail): verification and attribution both ask, and only moderator
        commands change keys and seats (they clear this)."""
        if fingerprint not in self._seats_by_key:
            self._seats_by_key[fingerprint] = keys_with_fingerprint(self.s, {fingerprint})
        return self._seats_by_key[fingerprint]

    def _attribute(self, verified: VerifiedSheet, sheet: OrderSheet) -> Seat | None:
        """The seat that signed, or None for the moderator. Refuses a key of another
        player, side or game, and a key retired by a takeover."""
        if sheet.side == "moderator":
            mod = self.config.moderator.public_key
            if not mod or key_fingerprint(mod) != verified.key_fingerprint:
                log.warning("moderator command not signed by the moderator's key")
                raise IntakeError(
                    "not-moderator",
                    "this block claims Side: moderator but is not signed with the "
                    "moderator's key; it was refused and logged",
                )
            return None
        keys = self._seats_with_key(verified.key_fingerprint)
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
        if verified.signature_digest in self._unused:
            self._unused.discard(verified.signature_digest)  # its next use is a replay
        elif self.s.get(UsedSignature, verified.signature_digest) is not None:
            raise IntakeError(
                "replay",
                "this signed block was received before; a signed block is accepted once "
                "(sign a new one, which gets a new Nonce)",
            )
        self.s.add(
            UsedSignature(digest=verified.signature_digest, game_id=sheet.game, mail_id=row.id)
        )

    # ------------------------------------------------------------ orders

    def _orders(self, row: InboundMail, mail: ParsedMail, sheet: OrderSheet, seat: Seat) -> str:
        gm = self.gm
        answer = Answer(game=sheet.game, side=sheet.side, turn=sheet.turn, phase=sheet.phase)
        try:
            game, phase = gm.phases.taking_orders(
                sheet.game, seat.side or "", sheet.turn, sheet.phase, at=row.received_at
            )
        except LifecycleError as exc:
            answer.error = str(exc)
            return self._answer(row, mail, answer, f"refused: {exc}", seat.email)
        answer.deadline = self._deadline(phase, seat)
        if sheet.done and not sheet.lines:
            return self._done(row, mail, answer, game, phase, seat)
        ruleset = gm.lookups.ruleset(game)
        numbers = [n for n, _ in sheet.lines]
        validation = ruleset.validate(
            gm.lookups.state_of(phase), seat.side or "", "\n".join(t for _, t in sheet.lines)
        )
        answer.accepted = list(validation.accepted)
        answer.refused = [
            {
                "line": numbers[e.line - 1] if 0 < e.line <= len(numbers) else e.line,
                "text": e.text,
                "message": e.message,
                "rule": e.rule,
            }
            for e in validation.errors
        ]
        if validation.errors and not validation.accepted:
            answer.notes.append(
                "Nothing was sealed: every order was refused"
                + (", so DONE was not applied" if sheet.done else "")
                + ". Orders you sent before for this phase, if any, still stand. Send "
                "corrected orders in a new signed mail, or DONE alone to let the "
                "orders on file stand."
            )
            return self._answer(row, mail, answer, "refused: every order line", seat.email)
        # Past the deadline nothing waits for a correction (see ready_to_adjudicate).
        past_deadline = phase.deadline is not None and gm.desk.now >= phase.deadline
        held = bool(validation.errors) and not sheet.done and not past_deadline
        try:
            receipt = gm.phases.seal_orders(
                game,
                phase,
                seat.side or "",
                validation.accepted,
                mail_id=row.id,
                held=held,
                at=row.received_at,
            )
        except LifecycleError as exc:
            answer.accepted = []
            answer.error = str(exc)
            return self._answer(row, mail, answer, f"refused: {exc}", seat.email)
        answer.receipt = receipt.__dict__
        answer.round = "held" if held else "done" if sheet.done else ""
        if not validation.accepted:
            answer.notes.append("You sent no orders: that is sealed as your orders (do nothing).")
        return self._answer(
            row,
            mail,
            answer,
            f"accepted {len(validation.accepted)}, refused {len(validation.errors)}",
            seat.email,
        )

    def _deadline(self, phase: Phase, seat: Seat) -> str:
        """The phase's deadline in the player's time zone, if it has one."""
        return local_time(phase.deadline, seat.timezone) if phase.deadline else ""

    def _done(
        self,
        row: InboundMail,
        mail: ParsedMail,
        answer: Answer,
        game: Game,
        phase: Phase,
        seat: Seat,
    ) -> str:
        """DONE alone: the orders on file stand and the round no longer waits for the side."""
        receipt = self.gm.phases.stand(
            game, phase, seat.side or "", mail_id=row.id, at=row.received_at
        )
        answer.receipt = receipt.__dict__
        answer.round = "done"
        if not receipt.stood:
            answer.notes.append("You had no orders on file: no orders (do nothing) are sealed.")
        return self._answer(row, mail, answer, "done: the orders on file stand", seat.email)

    def _dispute(self, row: InboundMail, mail: ParsedMail, sheet: OrderSheet, seat: Seat) -> str:
        gm = self.gm
        answer = Answer(game=sheet.game, side=sheet.side, turn=sheet.turn, phase=sheet.phase)
        text = "\n".join(t for _, t in sheet.lines)
        try:
            dispute = gm.disputes.file(sheet.game, seat.side or "", sheet.turn, sheet.phase, text)
        except LifecycleError as exc:
            answer.error = str(exc)
            return self._answer(row, mail, answer, f"refused: {exc}", seat.email)
        phase_record: dict[str, Any] = next(
            (
                e["payload"]
                for e in reversed(journal.entries(self.s, sheet.game))
                if e["kind"] == "phase-adjudicated"
                and (e["payload"]["turn"], e["payload"]["phase"]) == (sheet.turn, sheet.phase)
            ),
            {},
        )
        enqueue(
            self.s,
            self.config,
            kind=OutboundKind.NOTICE,
            cause=("dispute", sheet.game, str(dispute.id)),
            to=self.config.moderator.human,
            subject=f"[pbem {sheet.game}] dispute {dispute.id} by {seat.side} on turn "
            f"{sheet.turn} {sheet.phase}",
            text=(
                f"{seat.side} ({seat.email}) disputes turn {sheet.turn} phase {sheet.phase}:\n\n"
                f"{text}\n\nOnly you read this text; no side is sent it. Rule with one "
                f"text for every side:\n  RULE {sheet.game} {dispute.id} UPHELD|DISMISSED text\n"
                "or one text per side (each side reads only its own):\n"
                f"  RULE {sheet.game} {dispute.id} UPHELD|DISMISSED "
                + " ".join(f'{s}="..."' for s in gm.lookups.sides_of(gm.lookups.game(sheet.game)))
                + f"\nTo correct the turn: ROLLBACK {sheet.game} {sheet.turn} {sheet.phase} "
                "(the game is then held), EDIT if need be, then ADJUDICATE "
                f"{sheet.game}.\n\nThe phase's full record (both sides' "
                "plots, seed, dice, events):\n\n"
                + json.dumps(phase_record, indent=2, sort_keys=True)
            ),
            now=gm.desk.now,
            game_id=sheet.game,
        )
        answer.notes.append(
            f"Your dispute is filed as number {dispute.id}. Only the moderator reads it "
            "(with the phase's full record); the other side is not sent your text. Each "
            "side will hear the moderator's ruling, written by him for that side."
        )
        return self._answer(row, mail, answer, f"dispute {dispute.id} filed", seat.email)

    def _moderator_commands(self, row: InboundMail, mail: ParsedMail, sheet: OrderSheet) -> str:
        """A command mail is all or nothing: its lines run in order in one savepoint;
        the first that fails undoes them all. The answer goes through it line by
        line (done, or which failed and why, undone, not run), to the sender and,
        if he wrote from another registered address, a copy to the moderator."""
        assert mail.from_addr is not None
        answer = Answer()
        actor = moderator.Actor(
            by=mail.from_addr.lower(), via="mail", origin=mail.message_id or row.digest
        )
        # Commands may register, replace or retire keys: ask the seats afresh after.
        self._seats_by_key.clear()
        nested = self.s.begin_nested()
        failed = False
        for number, line in sheet.lines:
            entry: dict[str, Any] = {"line": number, "text": line, "result": ""}
            answer.commands.append(entry)
            if failed:
                entry["status"] = "not run"
                continue
            try:
                entry["result"] = moderator.execute(self.gm, line, actor)
                entry["status"] = "done"
            except LifecycleError as exc:
                failed = True
                entry.update(status="FAILED", result=str(exc))
        if failed:
            nested.rollback()
            self.gm.lookups.forget()
            for entry in answer.commands:
                if entry["status"] == "done":
                    entry["status"] = "undone"
        else:
            nested.commit()
        done = sum(c["status"] == "done" for c in answer.commands)
        outcome = (
            f"moderator: {done} done"
            if not failed
            else f"moderator: refused, line {next(c['line'] for c in answer.commands if c['status'] == 'FAILED')} failed; nothing done"
        )
        if mail.from_addr.lower() != self.config.moderator.human.lower():
            enqueue(
                self.s,
                self.config,
                kind=OutboundKind.NOTICE,
                cause=("answer-copy", row.digest),
                to=self.config.moderator.human,
                subject=f"[pbem] copy: commands from {mail.from_addr}: "
                + reply_subject(mail.subject or "commands"),
                text=render("common", "answer.txt.j2", answer.__dict__),
                now=self.gm.desk.now,
            )
        return self._answer(row, mail, answer, outcome)


def _looks_like_orders(text: str) -> bool:
    """Whether a mail without a signed block holds an order sheet all the same:
    unsigned orders are refused as unsigned (with the signing hints), never
    forwarded to the moderator as a letter."""
    try:
        parse_sheet(orders_in_text(text))
    except IntakeError:
        return False
    return True
