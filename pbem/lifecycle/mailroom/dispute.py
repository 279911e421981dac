"""Disputes: a player's dispute of an adjudication, filed and sent to the moderator alone.

The moderator reads the text with the phase's full record; the other side is
never sent it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.errors import LifecycleError
from pbem.intake.sheet import OrderSheet
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import notices
from pbem.lifecycle.mailroom.answer import Answer, Reply
from pbem.outbox.queue import enqueue
from pbem.record import journal
from pbem.storage.models import InboundMail, Seat


def is_dispute(sheet: OrderSheet) -> bool:
    return bool(sheet.lines) and sheet.lines[0][1].upper().startswith("DISPUTE")


def file_dispute(gm: GameMaster, row: InboundMail, sheet: OrderSheet, seat: Seat) -> Reply:
    answer = Answer(game=sheet.game, side=sheet.side, turn=sheet.turn, phase=sheet.phase)
    text = "\n".join(t for _, t in sheet.lines)
    try:
        dispute = gm.disputes.file(sheet.game, seat.side or "", sheet.turn, sheet.phase, text)
    except LifecycleError as exc:
        return Reply(replace(answer, error=str(exc)), f"refused: {exc}", seat.email)
    sides = gm.lookups.sides_of(gm.lookups.game(sheet.game))
    notice = notices.dispute(
        gm.desk.config, sheet, seat, dispute.id, text, sides, _phase_record(gm, sheet)
    )
    enqueue(gm.desk.session, gm.desk.config, notice, gm.desk.now)
    note = (
        f"Your dispute is filed as number {dispute.id}. Only the moderator reads it "
        "(with the phase's full record); the other side is not sent your text. Each "
        "side will hear the moderator's ruling, written by him for that side."
    )
    return Reply(replace(answer, notes=(note,)), f"dispute {dispute.id} filed", seat.email)


def _phase_record(gm: GameMaster, sheet: OrderSheet) -> dict[str, Any]:
    """The disputed phase's record entry (plots, seed, dice, events), if adjudicated."""
    return next(
        (
            e["payload"]
            for e in reversed(journal.entries(gm.desk.session, sheet.game))
            if e["kind"] == "phase-adjudicated"
            and (e["payload"]["turn"], e["payload"]["phase"]) == (sheet.turn, sheet.phase)
        ),
        {},
    )
