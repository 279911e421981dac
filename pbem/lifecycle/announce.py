"""Announcements of the moderator's acts to the seats they concern.

Each audience gets its own text: a player and the observers of his side the
text for that side, an omniscient observer the one for everybody (``None``).
A text is written per audience by the act that announces, never cut from a
text meant for another side, so nothing hidden from a side reaches it here.
A mail's identity derives from the record entry of the act, so an act
committed once is announced once.
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.lifecycle import deadlines
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.outbox.queue import Outgoing, enqueue
from pbem.storage.enums import OutboundKind, SeatRole
from pbem.storage.models import Game, Phase, RecordEntry

# One text for every audience (nothing in it hidden from anyone), or audience -> text
# where the key None is the omniscient observers' text.
Texts = str | Mapping[str | None, str]


def announce(
    desk: Desk,
    lookups: Lookups,
    game: Game,
    entry: RecordEntry,
    subject: str,
    texts: Texts,
    *,
    phase: Phase | None = None,
    may_plot: frozenset[str] = frozenset(),
) -> int:
    """Queue ``texts`` to every active seat of ``game``; a player of a side in
    ``may_plot`` gets ``phase``'s deadline in his zone and his order form.
    Returns how many mails were queued."""
    queued = 0
    for seat in lookups.seats(game.id):
        text = texts if isinstance(texts, str) else texts.get(seat.side)
        if text is None:
            continue
        if phase is not None and seat.role == SeatRole.PLAYER and seat.side in may_plot:
            text += _orders_due(lookups, game, phase, seat.side, seat.timezone)
        notice = Outgoing(
            kind=OutboundKind.NOTICE,
            cause=("act", game.id, str(entry.seq), str(seat.id)),
            to=seat.email,
            subject=f"[pbem {game.id}] {subject}",
            text=text.rstrip() + "\n",
            game_id=game.id,
            side=seat.side,
        )
        enqueue(desk.session, desk.config, notice, desk.now)
        queued += 1
    return queued


def _orders_due(lookups: Lookups, game: Game, phase: Phase, side: str, zone: str) -> str:
    """The deadline, the seed commitment and the order form of an open phase."""
    ruleset = lookups.ruleset(game)
    due = deadlines.local_time(phase.deadline, zone) if phase.deadline else "none"
    form = f"Game: {game.id}\nSide: {side}\nTurn: {phase.turn}\nPhase: {phase.name}\n\n"
    form += ruleset.order_template(lookups.state_of(phase), side)
    return (
        f"\n\nYour orders for turn {phase.turn} phase {phase.name} are due by {due}.\n"
        f"Dice seed commitment of this phase: {phase.seed_commitment}\n"
        "(the seed is revealed with the results; its SHA-256 must match this line)\n\n"
        "----- order form -----\n"
        f"{form.rstrip()}\n"
        "----- end of order form -----\n"
    )
