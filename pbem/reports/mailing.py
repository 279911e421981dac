"""Turning views into reports, archiving them and queuing them for mail.

The lifecycle calls the ``Reporter`` after each adjudication, at game end and
for reminders. A report is rendered once per audience (each side's player,
each observer), stored in the archive exactly as sent, and queued in the
outbox in the same transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pbem.core.events import Event
from pbem.core.ruleset import State
from pbem.lifecycle import deadlines, record
from pbem.outbox.queue import enqueue
from pbem.reports.render import render
from pbem.storage.models import Game, Phase, Report, Seat

if TYPE_CHECKING:
    from pbem.lifecycle.games import GameMaster


def view_text(value: Any, indent: int = 0) -> str:
    """A readable plain-text rendering of a JSON view (for rulesets without templates)."""
    pad = "  " * indent
    if isinstance(value, Mapping):
        lines = []
        for k, v in value.items():
            if isinstance(v, (Mapping, list, tuple)) and v:
                lines.append(f"{pad}{k}:")
                lines.append(view_text(v, indent + 1))
            else:
                lines.append(f"{pad}{k}: {v if v not in ({}, [], ()) else '-'}")
        return "\n".join(lines)
    if isinstance(value, (list, tuple)):
        return "\n".join(
            f"{pad}-\n{view_text(v, indent + 1)}"
            if isinstance(v, (Mapping, list, tuple))
            else f"{pad}- {v}"
            for v in value
        )
    return f"{pad}{value}"


class Reporter:
    def phase_reports(
        self, gm: GameMaster, game: Game, phase: Phase, state: State, events: Sequence[Event]
    ) -> None:
        previous = self._previous(gm, game, phase)
        for seat in gm.seats(game.id):
            self._report(gm, game, seat, phase, state, events, previous, outcome=None)

    def final_reports(
        self, gm: GameMaster, game: Game, state: State, events: Sequence[Event]
    ) -> None:
        previous = self._previous(gm, game, None)
        for seat in gm.seats(game.id):
            self._report(gm, game, seat, None, state, events, previous, outcome=game.outcome)

    def _previous(self, gm: GameMaster, game: Game, phase: Phase | None) -> dict[str, Any] | None:
        """The phase just adjudicated, with its revealed seed and plot commitments."""
        adjudicated = [e for e in record.entries(gm.s, game.id) if e["kind"] == "phase-adjudicated"]
        if not adjudicated:
            return None
        p = adjudicated[-1]["payload"]
        return {
            "turn": p["turn"],
            "phase": p["phase"],
            "seed": p["seed"],
            "seed_commitment": p["seed_commitment"],
            "commitments": {s: v["commitment"] for s, v in p["plots"].items() if v["commitment"]},
            "nonces": {s: v["nonce"] for s, v in p["plots"].items() if v["nonce"]},
        }

    def _report(
        self,
        gm: GameMaster,
        game: Game,
        seat: Seat,
        phase: Phase | None,
        state: State,
        events: Sequence[Event],
        previous: dict[str, Any] | None,
        outcome: dict[str, Any] | None,
    ) -> None:
        ruleset = gm.ruleset(game)
        side = seat.side  # None: omniscient observer
        audience = side or "omniscient"
        # At game end everything is disclosed: every audience gets the full view.
        view = ruleset.view(state, events, None if outcome else side)
        owes = (
            phase is not None
            and side is not None
            and seat.role == "player"
            and (side in phase.sides)
        )
        title = (
            f"{game.id}: game over"
            if phase is None
            else f"{game.id}: turn {phase.turn} phase {phase.name}"
        )
        context = {
            "title": title,
            "game": {"id": game.id, "ruleset_title": ruleset.title, "scenario": game.scenario},
            "audience": audience,
            "previous": previous,
            "outcome": outcome,
            "view": view,
            "view_text": view_text(view),
            "phase": None
            if phase is None
            else {
                "turn": phase.turn,
                "name": phase.name,
                "title": phase.title,
                "sides": phase.sides,
                "deadline": deadlines.local_time(phase.deadline, seat.timezone)
                if phase.deadline
                else "none (automatic)",
                "seed_commitment": phase.seed_commitment,
            },
            "order_form": self._order_form(gm, game, phase, state, side) if owes else "",
        }
        text = render(game.ruleset, "report.txt.j2", context)
        gm.s.add(
            Report(
                game_id=game.id,
                phase_id=phase.id if phase else None,
                audience=audience,
                created_at=gm.desk.now,
                subject=title,
                text=text,
            )
        )
        enqueue(
            gm.s,
            gm.desk.config,
            kind="report",
            cause=(game.id, str(phase.id if phase else "end"), str(seat.id)),
            to=seat.email,
            subject=f"[pbem {game.id}] {title[len(game.id) + 2 :]}",
            text=text,
            now=gm.desk.now,
            game_id=game.id,
            side=side,
        )

    def _order_form(
        self, gm: GameMaster, game: Game, phase: Phase | None, state: State, side: str
    ) -> str:
        assert phase is not None
        header = f"Game: {game.id}\nSide: {side}\nTurn: {phase.turn}\nPhase: {phase.name}\n\n"
        return header + gm.ruleset(game).order_template(state, side)

    def reminder(self, gm: GameMaster, game: Game, phase: Phase, side: str) -> None:
        seat = gm.player(game.id, side)
        if seat is None or phase.deadline is None:
            return
        text = render(
            game.ruleset,
            "reminder.txt.j2",
            {
                "game": game.id,
                "turn": phase.turn,
                "phase": phase.name,
                "side": side,
                "deadline": deadlines.local_time(phase.deadline, seat.timezone),
                "grace_until": deadlines.local_time(phase.grace_until, seat.timezone)
                if phase.grace_until
                else "",
                "policy": deadlines.no_orders_policy(game.settings, side),
            },
        )
        enqueue(
            gm.s,
            gm.desk.config,
            kind="reminder",
            cause=(game.id, str(phase.id), side),
            to=seat.email,
            subject=f"[pbem {game.id}] reminder: orders due for turn {phase.turn} {phase.name}",
            text=text,
            now=gm.desk.now,
            game_id=game.id,
            side=side,
        )
