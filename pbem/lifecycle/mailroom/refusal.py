"""Refusal: the answer to a mail whose orders could not be taken, and what else it sets off.

A refused moderator command alerts the moderator (so does a signature refused
on mail from one of his own command addresses); a refusal after a signature
verified is an event of the game the sheet names; a letter without orders from
a seated address is forwarded to the human moderator. What an unverified
sender hears depends only on what he sent, never on the state of any game.
"""

from __future__ import annotations

from sqlalchemy import select

from pbem.core.errors import IntakeError, MailSignatureError, SignatureError
from pbem.intake.mime import ParsedMail
from pbem.intake.sheet import OrderSheet, parse_sheet
from pbem.intake.signatures import orders_in_text
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import notices
from pbem.lifecycle.mailroom.answer import Answer, Reply, note_refusal
from pbem.lifecycle.mailroom.filing import Opened
from pbem.outbox.queue import enqueue
from pbem.storage.models import InboundMail, Seat

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
    "unreadable": (
        "Send the orders again in a new mail, as plain text in the body (not as an "
        "attachment, not forwarded inside another mail)."
    ),
}
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
    "revoked-key": (
        "A revoked key never signs again; pbem has retired it. Make a new key (gpg "
        "--quick-gen-key 'Name <address>' ed25519 sign 2y), send its public part (gpg "
        "--armor --export ADDRESS) to the moderator, who registers it (KEY game side "
        "ADD), and sign your orders with it."
    ),
}


def oversized(size: int, max_size: int) -> Reply:
    answer = Answer(
        error=f"Your mail is {size} bytes; the limit is "
        f"{max_size}. Send the order block alone, as plain text."
    )
    return Reply(answer, "refused: oversized")


def refuse(
    gm: GameMaster, row: InboundMail, opened: Opened, exc: IntakeError, sheet: OrderSheet | None
) -> Reply:
    """The reply to a mail refused with ``exc``; ``sheet``: its order sheet, if its
    signature verified (signed by a key we know: the game it names hears of it)."""
    mail = opened.mail
    if exc.code == "not-moderator" or _forged_command(gm, mail, exc):
        enqueue(
            gm.desk.session,
            gm.desk.config,
            notices.refused_command(gm.desk.config, row, mail, exc.message),
            gm.desk.now,
        )
    if sheet is not None:
        reason = f"{exc.code}: {exc.message}"
        note_refusal(gm, row, sheet.game, sheet.side, sheet.turn, sheet.phase, reason)
    if exc.code == "no-block" and not opened.blocks and _is_letter(mail):
        forwarded = _forward(gm, row, mail)
        if forwarded:
            notes = (
                "Your mail holds no signed orders, so it went to the human moderator of "
                f"{forwarded}, who reads it and answers you himself.",
                HINTS["no-block"],
            )
            return Reply(Answer(notes=notes), f"forwarded to the moderator ({forwarded})")
    hints = MAIL_HINTS if isinstance(exc, MailSignatureError) else HINTS
    answer = Answer(error=exc.message, hint=hints.get(exc.code, ""))
    return Reply(answer, f"refused: {exc.code}: {exc.message}")


def _forged_command(gm: GameMaster, mail: ParsedMail, exc: IntakeError) -> bool:
    """A signature refused on mail from one of the moderator's command addresses:
    someone who knows his address but not his key (or a key he lost), as alarming
    as a moderator command from a stranger."""
    sender = (mail.from_addr or "").lower()
    return isinstance(exc, SignatureError) and sender in gm.desk.config.moderator.command_addresses


def _is_letter(mail: ParsedMail) -> bool:
    """Whether a mail without a signed block is a letter: not empty, and no order
    sheet all the same (unsigned orders are refused as unsigned, with the signing
    hints, never forwarded to the moderator as a letter)."""
    if not mail.text.strip():
        return False
    try:
        parse_sheet(orders_in_text(mail.text))
    except IntakeError:
        return True
    return False


def _forward(gm: GameMaster, row: InboundMail, mail: ParsedMail) -> str:
    """Plain mail (no order block) from an address seated in a game goes to the
    human moderator; returns the games it names ("" if the sender has no seat).
    The answer still goes to the From address only, so a forged From learns
    nothing of the seats."""
    seats = gm.desk.session.scalars(
        select(Seat).where(Seat.email == mail.from_addr, Seat.active.is_(True))
    ).all()
    if not seats:
        return ""
    letter = notices.forwarded(gm.desk.config, row, mail, seats)
    enqueue(gm.desk.session, gm.desk.config, letter, gm.desk.now)
    return notices.seated_games(seats)
