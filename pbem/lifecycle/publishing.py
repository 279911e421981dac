"""Publishing reports: each audience's view, rendered, archived and queued for mail.

The game master calls the ``Publisher`` (its report sink) after each
adjudication, at game end and for reminders. For each seat the ruleset cuts
the view to what that audience may know and describes its map; the reports
package renders text, HTML and picture; the report is stored in the archive
exactly as sent and queued in the outbox.

That happens in the caller's transaction, except in a tick (pbem.service.work):
there the reports an adjudication makes due are decided and noted in its
transaction (``OwedReports``, with the adjudication itself) and rendered after
it, the game still claimed, then archived and queued with the note dropped in a
short second one. On SQLite, one writer at a time, other daemons' and workers'
transactions then wait for the rules, not for the maps; a note a dead daemon
left is rendered before the game's next tick (``publish_owed``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.config import Config
from pbem.core import stages
from pbem.core.events import Event
from pbem.core.ruleset import MappedRuleset, Ruleset, State
from pbem.core.sequence import phase_label
from pbem.lifecycle import deadlines, quiet
from pbem.lifecycle.acts import DATA_KEYS
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.upgrades import game_rules
from pbem.outbox.privacy import encryption_key
from pbem.outbox.protect import EncryptionKey
from pbem.outbox.queue import Composed, Outgoing, compose_outbound, enqueue, store_outbound
from pbem.record import journal
from pbem.record.rules import describe as describe_rules
from pbem.reports.context import Header, heading
from pbem.reports.playerdocs import guide_attachment
from pbem.reports.render import render
from pbem.reports.report import render_report
from pbem.storage.enums import OutboundKind
from pbem.storage.models import Game, GameState, OwedReports, Phase, Report, Seat


def audience_view(
    ruleset: Ruleset, state: State, events: Sequence[Event], side: str | None
) -> Mapping[str, Any]:
    """The ruleset's view for ``side``: the ruleset itself applies what its rules
    hide (for U.S.N., pbem.rulesets.usn.fog in the game's fog mode)."""
    return ruleset.view(state, events, side)


def _encryption_key(lookups: Lookups, game: Game, job: ReportJob) -> EncryptionKey | None:
    """The key a seat's report is encrypted to (its player opted in), read now."""
    return encryption_key(lookups.s, game.id, job.side) if job.side else None


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
        done = f"{phase_label(previous['turn'], previous['phase'])} report{again}"
    if phase is None:
        return f"[pbem {game_id}] {done + '; ' if done else ''}game over"
    done = done or "game started"
    due = ""
    if owes:
        due = f", orders due {deadline}" if deadline else ", orders due"
    elif player:
        due = ", no orders from you"
    return f"[pbem {game_id}] {done}; next {phase_label(phase.turn, phase.name)}{due}"


@dataclass(frozen=True)
class ReportJob:
    """One seat's report, decided in the transaction that made it due: everything
    but the rendering (view, text, HTML, map) and the composing, which need no
    database (``render_due``)."""

    to: str
    side: str | None  # the seat's: the mail is signed for it, encrypted to its player
    view_side: str | None  # whose view: None for the moderator, observers, a game's end
    header: Header
    subject: str  # the mail's
    cause: tuple[str, ...]  # the Message-ID's
    phase_id: int | None
    # The seat's first mail of the game: with no docs URL published, it carries
    # the player's docs as an attachment (pbem.reports.playerdocs).
    first: bool = False
    # The events of the rounds the seat was sent no report of since its last one
    # (pbem.lifecycle.quiet), as JSON, told before the round's own.
    carried: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "header": asdict(self.header), "cause": list(self.cause)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ReportJob:
        return cls(
            **{
                **obj,
                "header": Header(**obj["header"]),
                "cause": tuple(obj["cause"]),
                "carried": tuple(obj.get("carried", ())),
            }
        )


@dataclass
class ReportsDue:
    """The reports of one adjudication or game end, for every seat, as decided; the
    note that keeps them (``note``) until they are queued."""

    game_id: str
    ruleset: Ruleset
    state: State
    events: Sequence[Event]
    now: datetime
    jobs: list[tuple[ReportJob, EncryptionKey | None]]
    note: OwedReports | None = None  # None: rendered at once, never noted


@dataclass(frozen=True)
class Rendered:
    """A report rendered and its mail composed, to be stored (``store_rendered``)."""

    report: Report
    mail: Composed


def render_due(config: Config, owed: ReportsDue) -> list[Rendered]:
    """Each seat's report: view, text, HTML, map and mail. No database: a tick calls
    it after its transaction (the game still claimed), so other writers go on."""
    done = []
    for job, encrypt_to in owed.jobs:
        events = [*(Event.from_json(e) for e in job.carried), *owed.events]
        with stages.stage("views"):
            view = audience_view(owed.ruleset, owed.state, events, job.view_side)
        with stages.stage("maps"):
            ruleset = owed.ruleset
            map_picture = ruleset.map_picture(view) if isinstance(ruleset, MappedRuleset) else None
        docs_url = config.reports.docs_url
        rendered = render_report(job.header, view, map_picture, docs_url=docs_url)
        attachments = tuple(rendered.attachments)
        if job.first and not docs_url:
            attachments += (guide_attachment(job.header.ruleset),)
        report = Report(
            game_id=owed.game_id,
            phase_id=job.phase_id,
            audience=job.header.audience,
            created_at=owed.now,
            subject=heading(job.header),
            text=rendered.text,
            html=rendered.html,
            png=rendered.png,
        )
        outgoing = Outgoing(
            kind=OutboundKind.REPORT,
            cause=job.cause,
            to=job.to,
            subject=job.subject,
            text=rendered.text,
            html=rendered.html,
            attachments=attachments,
            game_id=owed.game_id,
            side=job.side,
        )
        mail = compose_outbound(config, outgoing, owed.now, encrypt_to)
        done.append(Rendered(report, mail))
    return done


def store_rendered(
    session: Session, config: Config, owed: ReportsDue, done: Sequence[Rendered]
) -> None:
    """Archive and queue the rendered reports and drop their note, in the caller's
    transaction: the note gone, exactly these reports stand in its place."""
    for rendered in done:
        session.add(rendered.report)
        store_outbound(session, config, rendered.mail)
    if owed.note is not None:
        session.delete(owed.note)


class Publisher:
    """The report sink the service wires into every game master (lifecycle.sink).

    Reports are rendered and queued in the caller's transaction, unless the
    publisher was made to defer them (``deferring``): then each adjudication's
    reports are decided and noted (``OwedReports``) in the transaction, and
    rendered after it (``render_due``, ``store_rendered``)."""

    def __init__(self, owed: list[ReportsDue] | None = None) -> None:
        self._owed = owed

    def deferring(self, owed: list[ReportsDue]) -> Publisher:
        """A publisher noting the reports due in ``owed``, to be rendered by the caller
        once its transaction is committed (a tick: pbem.service.work)."""
        return Publisher(owed)

    def phase_reports(
        self, lookups: Lookups, game: Game, phase: Phase, state: State, events: Sequence[Event]
    ) -> None:
        previous = self._previous(lookups, game, phase.seq)
        seats = _one_per_address(lookups.seats(game.id))
        ruleset = lookups.ruleset(game)
        jobs = [
            self._quiet_job(lookups, game, seat, phase, state, previous)
            for seat in seats
            if not quiet.skipped(ruleset, seat, phase, first=not previous)
        ]
        self._publish(lookups, game, state, events, jobs, stored_as=phase.id)

    def _quiet_job(
        self,
        lookups: Lookups,
        game: Game,
        seat: Seat,
        phase: Phase,
        state: State,
        previous: dict[str, Any] | None,
    ) -> ReportJob:
        """A seat's report as ``phase`` opens; where quiet rounds apply, with the events
        of the rounds it was sent no report of, which its heading names."""
        carried: list[Event] = []
        if previous and seat.side and quiet.applies(lookups.ruleset(game)):
            carried, rounds = quiet.carried(lookups, game.id, phase, seat.side)
            if rounds:
                previous = {**previous, "since": rounds}
        job = self._job(lookups, game, seat, phase, state, previous, None)
        return replace(job, first=not previous, carried=tuple(e.to_json() for e in carried))

    def seat_report(self, lookups: Lookups, game: Game, phase: Phase, seat: Seat) -> None:
        state = lookups.state_of(phase)
        previous = self._previous(lookups, game, phase.seq)
        job = replace(self._job(lookups, game, seat, phase, state, previous, None), first=True)
        # A new player's report goes out with the act that seated him, even in a tick.
        Publisher()._publish(lookups, game, state, (), [job], stored_as=phase.id)

    def final_reports(
        self, lookups: Lookups, game: Game, state: State, events: Sequence[Event]
    ) -> None:
        previous = self._previous(lookups, game)
        seats = _one_per_address(lookups.seats(game.id))
        jobs = [self._job(lookups, game, s, None, state, previous, game.outcome) for s in seats]
        self._publish(lookups, game, state, events, jobs, stored_as=None)

    def _publish(
        self,
        lookups: Lookups,
        game: Game,
        state: State,
        events: Sequence[Event],
        jobs: Sequence[ReportJob],
        *,
        stored_as: int | None,
    ) -> None:
        """Note the reports due (with what renders them: ``stored_as`` is the phase
        whose stored state is ``state``, else the state goes in the note), then
        render them now, or leave them to the caller (``deferring``)."""
        owed = ReportsDue(
            game.id,
            lookups.ruleset(game),
            state,
            events,
            lookups.desk.now,
            [(job, _encryption_key(lookups, game, job)) for job in jobs],
        )
        if self._owed is None:
            config = lookups.desk.config
            store_rendered(lookups.s, config, owed, render_due(config, owed))
            return
        owed.note = OwedReports(
            game_id=game.id,
            created_at=lookups.desk.now,
            payload={
                "jobs": [job.to_json() for job in jobs],
                "events": [e.to_json() for e in events],
                "state_of_phase": stored_as,
                "state": None if stored_as is not None else dict(state),
            },
        )
        lookups.s.add(owed.note)
        self._owed.append(owed)

    def publish_owed(self, lookups: Lookups, game_id: str) -> int:
        """Render and queue, in the caller's transaction, the reports of ``game_id``
        noted but never queued (the daemon that noted them died before rendering
        them); how many notes. Called before the game's tick, so its reports go out
        in the order of play."""
        notes = lookups.s.scalars(
            select(OwedReports).where(OwedReports.game_id == game_id).order_by(OwedReports.id)
        ).all()
        game = lookups.game(game_id)
        for note in notes:
            p = note.payload
            jobs = [ReportJob.from_json(j) for j in p["jobs"]]
            state_of = p["state_of_phase"]
            state = p["state"] if state_of is None else lookups.s.get_one(GameState, state_of).state
            owed = ReportsDue(
                game_id,
                lookups.ruleset(game),
                state,
                [Event.from_json(e) for e in p["events"]],
                note.created_at,
                [(job, _encryption_key(lookups, game, job)) for job in jobs],
                note,
            )
            store_rendered(
                lookups.s, lookups.desk.config, owed, render_due(lookups.desk.config, owed)
            )
        return len(notes)

    def _previous(
        self, lookups: Lookups, game: Game, before: int | None = None
    ) -> dict[str, Any] | None:
        """The phase just adjudicated (before phase ``before``, if given), with its
        revealed seed and plot commitments: the last adjudication of that place in
        the line of play, so never one a rollback superseded."""
        # Never rolled back (the rule): the last adjudication is the one, read alone;
        # each carries its events, and a long game's are not worth loading.
        last = None
        entries: list[dict[str, Any]] = []
        if journal.latest(lookups.s, game.id, "rolled-back") is None:
            last = journal.latest(lookups.s, game.id, "phase-adjudicated")
            if last is None:
                return None
        if last is None or (before is not None and int(last["payload"]["seq"]) >= before):
            entries = journal.entries(
                lookups.s, game.id, kinds=("phase-adjudicated", "rolled-back")
            )
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

    def _job(
        self,
        lookups: Lookups,
        game: Game,
        seat: Seat,
        phase: Phase | None,
        state: State,
        previous: dict[str, Any] | None,
        outcome: dict[str, Any] | None,
    ) -> ReportJob:
        """What one seat's report is to be, but for its rendering."""
        ruleset = lookups.ruleset(game)
        # At game end everything is disclosed: every audience gets the full view.
        side = None if outcome else seat.side
        audience = seat.side or "omniscient"
        owes = (
            phase is not None
            and seat.side is not None
            and seat.role == "player"
            and (seat.side in phase.sides)
        )
        title = (
            f"{game.id}: game over"
            if phase is None
            else f"{game.id}: {phase_label(phase.turn, phase.name)}"
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
            rests_on={
                "rules": describe_rules(game.ruleset, game_rules(game)),
                "corrections": corrections(game.options),
            },
        )
        return ReportJob(
            to=seat.email,
            side=seat.side,
            view_side=side,
            header=header,
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
            cause=(game.id, str(phase.id if phase else "end"), str(seat.id)),
            phase_id=phase.id if phase else None,
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
        reminder = Outgoing(
            kind=OutboundKind.REMINDER,
            cause=(game.id, str(phase.id), side),
            to=seat.email,
            subject=f"[pbem {game.id}] reminder: orders due for {phase_label(phase.turn, phase.name)}",
            text=text,
            game_id=game.id,
            side=side,
        )
        enqueue(lookups.s, lookups.desk.config, reminder, lookups.desk.now)


def corrections(options: Mapping[str, Any], most: int = 12) -> list[str]:
    """The moderator's per-game data (CREATE's overrides= and datapack=), as the items
    it corrects ("overrides: tables.victory_levels.3.level"): both sides play by them."""
    found: list[str] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if isinstance(value, Mapping) and value and depth < 5:
            for key, inner in value.items():
                walk(inner, f"{path}.{key}" if path else str(key), depth + 1)
        else:
            found.append(path)

    for key in DATA_KEYS:
        if options.get(key):
            start = len(found)
            walk(options[key], "", 0)
            found[start:] = [f"{key}: {item}" for item in found[start:]]
    return found if len(found) <= most else [*found[:most], f"{len(found) - most} more"]
