"""What the mailroom tells the human moderator besides the answer: a dispute, a
letter forwarded, a refused command, a mail without a usable From, a copy of a
command mail's answer. Each is an ``Outgoing`` mail, queued by the stage that
decided on it; its cause names the mail, so it is queued once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pbem.config import Config
from pbem.core.sequence import phase_label
from pbem.intake.mime import ParsedMail
from pbem.intake.sheet import OrderSheet
from pbem.outbox.compose import reply_subject
from pbem.outbox.queue import Outgoing
from pbem.storage.enums import OutboundKind
from pbem.storage.models import InboundMail, Seat


def _notice(
    config: Config, cause: tuple[str, ...], subject: str, text: str, game_id: str | None = None
) -> Outgoing:
    return Outgoing(
        kind=OutboundKind.NOTICE,
        cause=cause,
        to=config.moderator.human,
        subject=subject,
        text=text,
        game_id=game_id,
    )


def without_from(config: Config, row: InboundMail, mail: ParsedMail, what: str) -> Outgoing:
    return _notice(
        config,
        ("no-from", row.digest),
        f"[pbem] a mail without a usable From {what.split(':')[0]}",
        f"Mail {row.id} (Message-ID {mail.message_id or 'none'}, subject "
        f"{mail.subject!r}, stored as {row.digest}) had no usable From and {what}.\n"
        "It is filed in the database with the rest of the incoming mail.",
    )


def refused_command(config: Config, row: InboundMail, mail: ParsedMail, why: str) -> Outgoing:
    """A forged or misdirected moderator command cannot wait for a digest."""
    return _notice(
        config,
        ("alert", row.digest),
        "[pbem] ALERT: a moderator command was refused",
        f"A mail from {mail.from_addr} (Message-ID {mail.message_id or 'none'}, "
        f"subject {mail.subject!r}) claimed to carry moderator commands and was "
        f"refused:\n\n  {why}\n\nNothing in it was done.\n",
    )


def seated_games(seats: Sequence[Seat]) -> str:
    return ", ".join(sorted({s.game_id for s in seats}))


def forwarded(
    config: Config, row: InboundMail, mail: ParsedMail, seats: Sequence[Seat]
) -> Outgoing:
    """A letter (no orders) from an address seated in ``seats``' games."""
    games = seated_games(seats)
    roles = "; ".join(
        f"{s.side} player in {s.game_id}"
        if s.role == "player"
        else f"observer ({s.side or 'omniscient'}) of {s.game_id}"
        for s in seats
    )
    return _notice(
        config,
        ("forward", row.digest),
        f"[pbem {games}] mail from {mail.from_addr}: {mail.subject or '(no subject)'}",
        f"A mail without orders from {mail.from_addr} ({roles}), forwarded to you; "
        "it is not signed, so its sender is not proven. Answer him yourself, or "
        f'with MESSAGE game side "text".\n\nSubject: {mail.subject or ""}\n\n'
        f"{mail.text}\n",
        seats[0].game_id if len({s.game_id for s in seats}) == 1 else None,
    )


def dispute(
    config: Config,
    sheet: OrderSheet,
    seat: Seat,
    number: int,
    text: str,
    sides: Sequence[str],
    phase_record: dict[str, Any],
) -> Outgoing:
    """Dispute ``number`` with the phase's full record: only the moderator reads it."""
    game = sheet.game
    return _notice(
        config,
        ("dispute", game, str(number)),
        f"[pbem {game}] dispute {number} by {seat.side} on {phase_label(sheet.turn, sheet.phase)}",
        f"{seat.side} ({seat.email}) disputes turn {sheet.turn} phase {sheet.phase}:\n\n"
        f"{text}\n\nOnly you read this text; no side is sent it. Rule with one "
        f"text for every side:\n  RULE {game} {number} UPHELD|DISMISSED text\n"
        "or one text per side (each side reads only its own):\n"
        f"  RULE {game} {number} UPHELD|DISMISSED "
        + " ".join(f'{s}="..."' for s in sides)
        + f"\nTo correct the turn: ROLLBACK {game} {sheet.turn} {sheet.phase} "
        "(the game is then held), EDIT if need be, then ADJUDICATE "
        f"{game}.\n\nThe phase's full record (both sides' "
        "plots, seed, dice, events):\n\n" + json.dumps(phase_record, indent=2, sort_keys=True),
        game,
    )


def answer_copy(config: Config, row: InboundMail, mail: ParsedMail, answer_text: str) -> Outgoing:
    """The answer to commands mailed from another registered address than his own."""
    return _notice(
        config,
        ("answer-copy", row.digest),
        f"[pbem] copy: commands from {mail.from_addr}: "
        + reply_subject(mail.subject or "commands"),
        answer_text,
    )
