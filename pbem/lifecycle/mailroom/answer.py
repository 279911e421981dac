"""Answer: the one answer a mail gets, or the reasoned silence it is closed with.

The answer's Message-ID derives from the mail's digest (its cause), so a mail
processed again after a crash cannot be answered twice.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from pbem.config import Config
from pbem.intake.mime import ParsedMail
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom.filing import Opened
from pbem.outbox.compose import reply_subject
from pbem.outbox.queue import Outgoing, enqueue, message_id_for, prefetch_unqueued
from pbem.record import journal
from pbem.record.payloads import MailRefused
from pbem.reports.playerdocs import links
from pbem.reports.render import render
from pbem.storage.enums import InboundStatus, OutboundKind
from pbem.storage.models import Game, InboundMail

log = logging.getLogger("pbem.mailroom")


@dataclass(frozen=True)
class Answer:
    """What the answer to one mail says (rendered by templates/common/answer.txt.j2)."""

    error: str = ""
    hint: str = ""
    game: str = ""
    side: str = ""
    turn: int = 0
    phase: str = ""
    accepted: tuple[str, ...] = ()
    refused: tuple[dict[str, Any], ...] = ()  # line, text, message, rule
    receipt: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()
    deadline: str = ""
    # How the round stands for the side after this mail: "held" (refused lines, the
    # round waits for a correction or DONE), "done" (DONE said), or "" (nothing to say).
    round: str = ""
    # A moderator's command mail, line by line: line, text, status
    # (done | FAILED | undone | not run), result or reason.
    commands: tuple[dict[str, Any], ...] = ()

    def text(self, docs: Mapping[str, str] | None = None) -> str:
        """The answer's words; ``docs`` says where the player's docs are (rule links)."""
        return render("common", "answer.txt.j2", {**vars(self), "docs": docs or {}})


@dataclass(frozen=True)
class Reply:
    """What a mail gets: its answer, the outcome written on its row, and where the
    answer goes (a seat's registered address; None: the sender)."""

    answer: Answer
    outcome: str
    to: str | None = None


def _cause(row: InboundMail) -> tuple[str, ...]:
    return ("answer", row.digest)


def prefetch_answers(
    session: Session, config: Config, batch: Sequence[tuple[InboundMail, Opened]]
) -> None:
    """Which of a batch's answers are queued already (a mail processed again), in one query."""
    prefetch_unqueued(
        session,
        [
            message_id_for(config, OutboundKind.ANSWER, _cause(row), opened.mail.from_addr)
            for row, opened in batch
            if opened.mail.from_addr
        ],
    )


def queue_answer(gm: GameMaster, row: InboundMail, mail: ParsedMail, reply: Reply) -> str:
    """Queue the answer and close the mail answered; returns its outcome."""
    assert mail.from_addr is not None
    answer = reply.answer
    if reply.outcome.startswith("refused") and answer.game:
        # Orders or a dispute from a verified player, refused by the game.
        reason = answer.error or reply.outcome.removeprefix("refused: ")
        note_refusal(gm, row, answer.game, answer.side, answer.turn, answer.phase, reason)
    outgoing = Outgoing(
        kind=OutboundKind.ANSWER,
        cause=_cause(row),
        to=reply.to or mail.from_addr,
        subject=reply_subject(mail.subject or "your orders"),
        text=answer.text(_docs(gm, answer.game)),
        in_reply_to=mail.message_id,
        references=(*mail.references, *([mail.message_id] if mail.message_id else [])),
        game_id=answer.game or None,
        side=answer.side or None,
    )
    enqueue(gm.desk.session, gm.desk.config, outgoing, gm.desk.now)
    return close(gm, row, InboundStatus.ANSWERED, reply.outcome)


def _docs(gm: GameMaster, game_id: str) -> dict[str, str] | None:
    """Where the player of ``game_id`` reads the docs its rule IDs point to."""
    game = gm.desk.session.get(Game, game_id) if game_id else None
    return None if game is None else links(game.ruleset, gm.desk.config.reports.docs_url)


def close(gm: GameMaster, row: InboundMail, status: InboundStatus, outcome: str) -> str:
    """Write how the mail ended on its row; returns the outcome."""
    row.status = status
    row.outcome = outcome
    row.processed_at = gm.desk.now
    log.info(
        "mail %s",
        outcome,
        extra={"game": row.game_id, "side": row.side, "message_id": row.message_id},
    )
    return outcome


def note_refusal(
    gm: GameMaster, row: InboundMail, game_id: str, side: str, turn: int, phase: str, reason: str
) -> None:
    """A refused mail is an event of the game it names: that it came and why it was
    refused, never its content. Only for a signature that verified (else anyone
    could write into any game's record) and a game that exists."""
    if not game_id or gm.desk.session.get(Game, game_id) is None:
        return
    gm.lookups.game(game_id)  # the row lock under which record entries are numbered
    journal.append(
        gm.desk.session,
        game_id,
        MailRefused(mail=row.digest, side=side, turn=turn, phase=phase, reason=reason),
        gm.desk.now,
    )
