"""Turning views into reports, archiving them and queuing them for mail.

The lifecycle calls the ``Reporter`` after each adjudication, at game end and
for reminders. A report is rendered once per audience (each side's player,
each observer): a plain-text part, the same content as HTML, and a PNG map of
that audience's view. It is stored in the archive exactly as sent and queued
in the outbox in the same transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pbem.core.events import Event
from pbem.core.ruleset import Ruleset, State
from pbem.lifecycle import deadlines
from pbem.outbox.queue import enqueue
from pbem.record import journal
from pbem.reports.context import Header, report_context, view_text
from pbem.reports.pictures import picture
from pbem.reports.render import render
from pbem.storage.models import Game, Phase, Report, Seat

if TYPE_CHECKING:
    from pbem.lifecycle.games import GameMaster

__all__ = ["RenderedReport", "Reporter", "audience_view", "render_report", "view_text"]


@dataclass(frozen=True, slots=True)
class RenderedReport:
    text: str
    html: str
    png: bytes | None
    attachment: str  # the PNG's file name: names the game, turn and audience only

    @property
    def attachments(self) -> list[tuple[str, str, bytes]]:
        return [] if self.png is None else [(self.attachment, "image/png", self.png)]


def audience_view(
    ruleset: Ruleset, state: State, events: Sequence[Event], side: str | None
) -> Mapping[str, Any]:
    """The ruleset's view for ``side``: the ruleset itself applies what its rules
    hide (for U.S.N., pbem.rulesets.usn.fog in the game's fog mode)."""
    return ruleset.view(state, events, side)


def render_report(
    header: Header, view: Mapping[str, Any], *, with_map: bool = True
) -> RenderedReport:
    """Text, HTML and map picture of one report, from the audience's view alone.
    ``with_map`` False skips the picture (tests that need only the words)."""
    ctx = report_context(header, view)
    text = render(header.ruleset, "report.txt.j2", ctx)
    html = render(header.ruleset, "report.html.j2", ctx)
    turn = header.phase["turn"] if header.phase else "end"
    png = picture(header.ruleset, view, header.title) if with_map else None
    return RenderedReport(text, html, png, f"{header.game_id}-{turn}-{header.audience}-map.png")


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
        adjudicated = [e for e in journal.entries(gm.s, game.id) if e["kind"] == "phase-adjudicated"]
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
        # At game end everything is disclosed: every audience gets the full view.
        side = None if outcome else seat.side
        audience = seat.side or "omniscient"
        view = audience_view(ruleset, state, events, side)
        owes = (
            phase is not None
            and seat.side is not None
            and seat.role == "player"
            and (seat.side in phase.sides)
        )
        title = (
            f"{game.id}: game over"
            if phase is None
            else f"{game.id}: turn {phase.turn} phase {phase.name}"
        )
        header = Header(
            game_id=game.id,
            ruleset=game.ruleset,
            ruleset_title=ruleset.title,
            scenario=game.scenario,
            audience=audience,
            side=side,
            title=title,
            phase=None
            if phase is None
            else {
                "turn": phase.turn,
                "name": phase.name,
                "title": phase.title,
                "sides": list(phase.sides),
                "deadline": deadlines.local_time(phase.deadline, seat.timezone)
                if phase.deadline
                else "none (automatic)",
                "seed_commitment": phase.seed_commitment,
            },
            previous=previous,
            outcome=outcome,
            order_form=self._order_form(gm, game, phase, state, seat.side)
            if owes and seat.side
            else "",
        )
        rendered = render_report(header, view)
        gm.s.add(
            Report(
                game_id=game.id,
                phase_id=phase.id if phase else None,
                audience=audience,
                created_at=gm.desk.now,
                subject=title,
                text=rendered.text,
                html=rendered.html,
                png=rendered.png,
            )
        )
        enqueue(
            gm.s,
            gm.desk.config,
            kind="report",
            cause=(game.id, str(phase.id if phase else "end"), str(seat.id)),
            to=seat.email,
            subject=f"[pbem {game.id}] {title[len(game.id) + 2 :]}",
            text=rendered.text,
            html=rendered.html,
            attachments=rendered.attachments,
            now=gm.desk.now,
            game_id=game.id,
            side=seat.side,
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
