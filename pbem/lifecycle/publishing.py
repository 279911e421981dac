"""Publishing reports: each audience's view, rendered, archived and queued for mail.

The game master calls the ``Publisher`` (its report sink) after each
adjudication, at game end and for reminders. For each seat the ruleset cuts
the view to what that audience may know and describes its map; the reports
package renders text, HTML and picture; the report is stored in the archive
exactly as sent and queued in the outbox in the same transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core import stages
from pbem.core.events import Event
from pbem.core.ruleset import MappedRuleset, Ruleset, State
from pbem.lifecycle import deadlines
from pbem.lifecycle.lookups import Lookups
from pbem.outbox.queue import enqueue
from pbem.record import journal
from pbem.reports.context import Header, heading
from pbem.reports.render import render
from pbem.reports.report import render_report
from pbem.storage.enums import OutboundKind
from pbem.storage.models import Game, Phase, Report, Seat


def audience_view(
    ruleset: Ruleset, state: State, events: Sequence[Event], side: str | None
) -> Mapping[str, Any]:
    """The ruleset's view for ``side``: the ruleset itself applies what its rules
    hide (for U.S.N., pbem.rulesets.usn.fog in the game's fog mode)."""
    return ruleset.view(state, events, side)


def _one_per_address(seats: Sequence[Seat]) -> list[Seat]:
    """One report per address and view: an observer seated twice (before OBSERVE
    refused duplicates) still gets one copy."""
    seen: set[tuple[str, str | None]] = set()
    unique = []
    for seat in seats:
        if (seat.email, seat.side) not in seen:
            seen.add((seat.email, seat.side))
            unique.append(seat)
    return unique


def report_subject(
    game_id: str,
    previous: Mapping[str, Any] | None,
    phase: Phase | None,
    *,
    deadline: str,
    owes: bool,
    player: bool,
) -> str:
    """A report mail's subject: the phase reported on, then what is due next and by
    when, short enough for a mail client's subject column. Only what every side may
    know goes in (the phases, the deadline, whether this side owes orders)."""
    done = ""
    if previous:
        # A report that replaces one sent before a rollback says so (see _correction).
        again = " (corrected)" if previous.get("correction") else ""
        done = f"turn {previous['turn']} {previous['phase']} report{again}"
    if phase is None:
        return f"[pbem {game_id}] {done + '; ' if done else ''}game over"
    done = done or "game started"
    due = ""
    if owes:
        due = f", orders due {deadline}" if deadline else ", orders due"
    elif player:
        due = ", no orders from you"
    return f"[pbem {game_id}] {done}; next turn {phase.turn} {phase.name}{due}"


class Publisher:
    """The report sink the service wires into every game master (lifecycle.sink)."""

    def phase_reports(
        self, lookups: Lookups, game: Game, phase: Phase, state: State, events: Sequence[Event]
    ) -> None:
        previous = self._previous(lookups, game, phase.seq)
        for seat in _one_per_address(lookups.seats(game.id)):
            self._report(lookups, game, seat, phase, state, events, previous, outcome=None)

    def seat_report(self, lookups: Lookups, game: Game, phase: Phase, seat: Seat) -> None:
        state = lookups.state_of(phase)
        previous = self._previous(lookups, game, phase.seq)
        self._report(lookups, game, seat, phase, state, (), previous, outcome=None)

    def final_reports(
        self, lookups: Lookups, game: Game, state: State, events: Sequence[Event]
    ) -> None:
        previous = self._previous(lookups, game)
        for seat in _one_per_address(lookups.seats(game.id)):
            self._report(lookups, game, seat, None, state, events, previous, outcome=game.outcome)

    def _previous(
        self, lookups: Lookups, game: Game, before: int | None = None
    ) -> dict[str, Any] | None:
        """The phase just adjudicated (before phase ``before``, if given), with its
        revealed seed and plot commitments: the last adjudication of that place in
        the line of play, so never one a rollback superseded."""
        # The only kinds read here: a long game's other entries are not worth loading.
        entries = journal.entries(lookups.s, game.id, kinds=("phase-adjudicated", "rolled-back"))
        adjudicated = [
            e
            for e in entries
            if e["kind"] == "phase-adjudicated"
            and (before is None or int(e["payload"]["seq"]) < before)
        ]
        if not adjudicated:
            return None
        last = adjudicated[-1]
        p = last["payload"]
        return {
            "turn": p["turn"],
            "phase": p["phase"],
            "seed": p["seed"],
            "seed_commitment": p["seed_commitment"],
            "commitments": {s: v["commitment"] for s, v in p["plots"].items() if v["commitment"]},
            "nonces": {s: v["nonce"] for s, v in p["plots"].items() if v["nonce"]},
            "correction": self._correction(entries, last),
        }

    def _correction(self, entries: list[dict[str, Any]], last: dict[str, Any]) -> str:
        """What a report replaces and why, when its phase was adjudicated before and
        a rollback superseded that (else "")."""
        seq = int(last["payload"]["seq"])
        earlier = [
            e
            for e in entries
            if e["seq"] < last["seq"]
            and e["kind"] == "phase-adjudicated"
            and int(e["payload"]["seq"]) == seq
        ]
        rollbacks = [
            e["payload"]
            for e in entries
            if e["kind"] == "rolled-back"
            and e["seq"] < last["seq"]
            and e["payload"]["to_seq"] <= seq
        ]
        if not earlier or not rollbacks:
            return ""
        rb = rollbacks[-1]
        why = f" ({rb['reason']})" if rb.get("reason") else ""
        return (
            f"Corrected report: it replaces the report of turn {last['payload']['turn']} phase "
            f"{last['payload']['phase']} sent before, since the moderator rolled the game back "
            f"to turn {rb['turn']} phase {rb['phase']}{why}."
        )

    def _report(
        self,
        lookups: Lookups,
        game: Game,
        seat: Seat,
        phase: Phase | None,
        state: State,
        events: Sequence[Event],
        previous: dict[str, Any] | None,
        outcome: dict[str, Any] | None,
    ) -> None:
        ruleset = lookups.ruleset(game)
        # At game end everything is disclosed: every audience gets the full view.
        side = None if outcome else seat.side
        audience = seat.side or "omniscient"
        with stages.stage("views"):
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
            order_form=self._order_form(game, phase, ruleset, state, seat.side)
            if owes and seat.side
            else "",
        )
        with stages.stage("maps"):
            map_picture = ruleset.map_picture(view) if isinstance(ruleset, MappedRuleset) else None
        rendered = render_report(header, view, map_picture)
        lookups.s.add(
            Report(
                game_id=game.id,
                phase_id=phase.id if phase else None,
                audience=audience,
                created_at=lookups.desk.now,
                subject=heading(header),
                text=rendered.text,
                html=rendered.html,
                png=rendered.png,
            )
        )
        enqueue(
            lookups.s,
            lookups.desk.config,
            kind=OutboundKind.REPORT,
            cause=(game.id, str(phase.id if phase else "end"), str(seat.id)),
            to=seat.email,
            subject=report_subject(
                game.id,
                previous,
                phase,
                deadline=deadlines.local_time(phase.deadline, seat.timezone, year=False)
                if phase is not None and phase.deadline
                else "",
                owes=owes,
                player=seat.role == "player",
            ),
            text=rendered.text,
            html=rendered.html,
            attachments=rendered.attachments,
            now=lookups.desk.now,
            game_id=game.id,
            side=seat.side,
        )

    def _order_form(
        self, game: Game, phase: Phase | None, ruleset: Ruleset, state: State, side: str
    ) -> str:
        assert phase is not None
        header = f"Game: {game.id}\nSide: {side}\nTurn: {phase.turn}\nPhase: {phase.name}\n\n"
        return header + ruleset.order_template(state, side)

    def reminder(self, lookups: Lookups, game: Game, phase: Phase, side: str) -> None:
        seat = lookups.player(game.id, side)
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
            lookups.s,
            lookups.desk.config,
            kind=OutboundKind.REMINDER,
            cause=(game.id, str(phase.id), side),
            to=seat.email,
            subject=f"[pbem {game.id}] reminder: orders due for turn {phase.turn} {phase.name}",
            text=text,
            now=lookups.desk.now,
            game_id=game.id,
            side=side,
        )
