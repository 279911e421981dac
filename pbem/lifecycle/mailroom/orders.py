"""Orders: a player's sheet validated by the ruleset and sealed, or DONE said.

Lines the ruleset refuses are answered line by line; the accepted ones are
sealed (with a commitment receipt). Refused lines hold the round open for the
side until a corrected mail, DONE, or the deadline.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.errors import LifecycleError
from pbem.core.ruleset import Validation
from pbem.intake.sheet import OrderSheet
from pbem.lifecycle.deadlines import local_time
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom.answer import Answer, Reply
from pbem.storage.models import Game, InboundMail, Phase, Seat

_ALL_REFUSED = (
    "Nothing was sealed: every order was refused{done}. Orders you sent before for this "
    "phase, if any, still stand. Send corrected orders in a new signed mail, or DONE "
    "alone to let the orders on file stand."
)


def take_orders(gm: GameMaster, row: InboundMail, sheet: OrderSheet, seat: Seat) -> Reply:
    """Validate the sheet's orders and seal the accepted ones (DONE alone: ``stand``)."""
    side = seat.side or ""
    answer = Answer(game=sheet.game, side=sheet.side, turn=sheet.turn, phase=sheet.phase)
    try:
        game, phase = gm.phases.taking_orders(
            sheet.game, side, sheet.turn, sheet.phase, at=row.received_at
        )
    except LifecycleError as exc:
        return Reply(replace(answer, error=str(exc)), f"refused: {exc}", seat.email)
    answer = replace(answer, deadline=_deadline(phase, seat))
    if sheet.done and not sheet.lines:
        return stand(gm, row, answer, game, phase, seat)
    validation = gm.lookups.ruleset(game).validate(
        gm.lookups.state_of(phase), side, "\n".join(t for _, t in sheet.lines)
    )
    answer = replace(
        answer, accepted=tuple(validation.accepted), refused=_refused(sheet, validation)
    )
    if validation.errors and not validation.accepted:
        note = _ALL_REFUSED.format(done=", so DONE was not applied" if sheet.done else "")
        return Reply(replace(answer, notes=(note,)), "refused: every order line", seat.email)
    # Past the deadline nothing waits for a correction (see ready_to_adjudicate).
    past_deadline = phase.deadline is not None and gm.desk.now >= phase.deadline
    held = bool(validation.errors) and not sheet.done and not past_deadline
    try:
        receipt = gm.phases.seal_orders(
            game, phase, side, validation.accepted, mail_id=row.id, held=held, at=row.received_at
        )
    except LifecycleError as exc:
        return Reply(replace(answer, accepted=(), error=str(exc)), f"refused: {exc}", seat.email)
    answer = replace(
        answer,
        receipt=receipt.__dict__,
        round="held" if held else "done" if sheet.done else "",
        notes=()
        if validation.accepted
        else ("You sent no orders: that is sealed as your orders (do nothing).",),
    )
    outcome = f"accepted {len(validation.accepted)}, refused {len(validation.errors)}"
    return Reply(answer, outcome, seat.email)


def _refused(sheet: OrderSheet, validation: Validation) -> tuple[dict[str, Any], ...]:
    """The refused lines, numbered as in the mail."""
    numbers = [n for n, _ in sheet.lines]
    return tuple(
        {
            "line": numbers[e.line - 1] if 0 < e.line <= len(numbers) else e.line,
            "text": e.text,
            "message": e.message,
            "rule": e.rule,
        }
        for e in validation.errors
    )


def _deadline(phase: Phase, seat: Seat) -> str:
    """The phase's deadline in the player's time zone, if it has one."""
    return local_time(phase.deadline, seat.timezone) if phase.deadline else ""


def stand(
    gm: GameMaster, row: InboundMail, answer: Answer, game: Game, phase: Phase, seat: Seat
) -> Reply:
    """DONE alone: the orders on file stand and the round no longer waits for the side."""
    receipt = gm.phases.stand(game, phase, seat.side or "", mail_id=row.id, at=row.received_at)
    notes = (
        () if receipt.stood else ("You had no orders on file: no orders (do nothing) are sealed.",)
    )
    answer = replace(answer, receipt=receipt.__dict__, round="done", notes=notes)
    return Reply(answer, "done: the orders on file stand", seat.email)
