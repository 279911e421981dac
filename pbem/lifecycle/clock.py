"""The clock: deadlines, reminders, early adjudication, and deadlines moved after an outage."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import distinct, func, select

from pbem.lifecycle import deadlines, upgrades
from pbem.lifecycle.acts import ModeratorActs, shift_deadlines
from pbem.lifecycle.alerts import Alerts
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.phases import PhaseMachine
from pbem.lifecycle.sink import ReportSink
from pbem.record.payloads import AdjudicateOrdered, DeadlinePushedBack
from pbem.storage.enums import GameStatus, PhaseStatus
from pbem.storage.models import Game, OwedReports, Phase, Plot

LIVE = (GameStatus.RUNNING, GameStatus.PAUSED)


class Clock:
    """What time does to games, bound to one transaction."""

    def __init__(
        self,
        desk: Desk,
        lookups: Lookups,
        phases: PhaseMachine,
        acts: ModeratorActs,
        reporter: ReportSink | None = None,
    ) -> None:
        self.desk = desk
        self.lookups = lookups
        self.phases = phases
        self.acts = acts
        # Renders and queues reminders; the service wires pbem.lifecycle.publishing.Publisher.
        self.reporter = reporter

    def live_games(self) -> list[str]:
        """Every running or paused game."""
        return list(self.desk.session.scalars(select(Game.id).where(Game.status.in_(LIVE))))

    def due_games(self, among: Collection[str] | None = None) -> list[str]:
        """The games (of ``among``, if given) whose ``tick`` may have something to do
        now, read in one query.

        A superset of what ``tick`` acts on (a paused game, a running game whose
        open phase is fully plotted, past its deadline or grace, or past its
        reminder time with a side neither plotted nor reminded, or a game whose
        reports a stopped daemon left noted, unsent: pbem.lifecycle.publishing):
        ticking every stored game, one locked transaction each, cost time linear
        in the games.
        """
        plotted = (
            select(func.count(distinct(Plot.side)))
            .where(Plot.phase_id == Phase.id, Plot.current.is_(True))
            .scalar_subquery()
        )
        stmt = (
            select(
                Game.id,
                Game.status,
                Game.settings,
                Phase.sides,
                Phase.opened_at,
                Phase.deadline,
                Phase.grace_until,
                Phase.reminded,
                plotted,
            )
            .outerjoin(Phase, (Phase.game_id == Game.id) & (Phase.status == PhaseStatus.OPEN))
            .where(Game.status.in_(LIVE))
            .order_by(Game.id)
        )
        if among is not None:
            stmt = stmt.where(Game.id.in_(sorted(among)))
        rows = self.desk.session.execute(stmt).all()
        owed = select(OwedReports.game_id).distinct()
        if among is not None:
            owed = owed.where(OwedReports.game_id.in_(sorted(among)))
        seen: set[str] = set(self.desk.session.scalars(owed))
        due: list[str] = sorted(seen)
        for game_id, status, settings, sides, opened, deadline, grace, reminded, count in rows:
            if game_id in seen:
                continue  # another open phase of this game was due already
            if status == GameStatus.PAUSED or self._phase_due(
                settings, sides, opened, deadline, grace, reminded, count
            ):
                seen.add(game_id)
                due.append(game_id)
        return due

    def next_due(self) -> datetime | None:
        """The earliest moment after now at which time alone gives ``tick`` something
        to do: a deadline, grace end or reminder of an open phase of a running game.
        One query, three indexed minima: the daemon sleeps until then (or mail)."""
        now = self.desk.now

        def earliest(column: Any) -> Any:
            return (
                select(func.min(column))
                .join(Game, Game.id == Phase.game_id)
                .where(
                    Phase.status == PhaseStatus.OPEN,
                    column > now,
                    Game.status == GameStatus.RUNNING,
                    Game.held.is_(None),
                )
                .scalar_subquery()
            )

        times = self.desk.session.execute(
            select(earliest(Phase.deadline), earliest(Phase.grace_until), earliest(Phase.remind_at))
        ).one()
        return min((t for t in (*times, self._next_pause_cap()) if t is not None), default=None)

    def _next_pause_cap(self) -> datetime | None:
        """The earliest moment after now a paused game reaches its longest pause
        allowed and resumes by itself (``ModeratorActs.auto_resume_due``): a
        deadline like any other, not left to the next sweep."""
        paused = self.desk.session.execute(
            select(Game.paused_at, Game.settings).where(
                Game.status == GameStatus.PAUSED, Game.paused_at.is_not(None)
            )
        )
        caps = [
            at + timedelta(days=float(settings["max_pause_days"]))
            for at, settings in paused
            if at is not None
        ]
        return min((c for c in caps if c > self.desk.now), default=None)

    def _phase_due(
        self,
        settings: dict[str, Any],
        sides: list[Any] | None,
        opened: datetime | None,
        deadline: datetime | None,
        grace: datetime | None,
        reminded: list[Any] | None,
        plotted: int,
    ) -> bool:
        """Whether ``tick`` may act on a running game with this open phase (see tick)."""
        if sides is None or opened is None:
            return False  # no open phase: tick does nothing
        now = self.desk.now
        all_in = plotted >= len(set(sides))
        if all_in and (
            settings.get("early_adjudication", True) or (deadline is not None and now >= deadline)
        ):
            return True
        if grace is not None and now >= grace:
            return True
        if deadline is None:
            return False
        times = deadlines.phase_times(opened, settings)
        remind_at = deadline - (times.deadline - times.remind_at)
        # A side not yet reminded may owe orders (one that plotted is a false alarm).
        return not all_in and now >= remind_at and bool(set(sides) - set(reminded or ()))

    def tick(self, game_id: str) -> list[str]:
        """Deadlines, reminders and early adjudication for one game, then the
        moderator's digest if one is due. Returns what it did to the game."""
        did = self._tick(game_id)
        # Not among what it did to the game: the digest only tells the moderator.
        Alerts(self.desk, self.lookups).digest(self.lookups.game(game_id))
        return did

    def _tick(self, game_id: str) -> list[str]:
        game = self.lookups.game(game_id)
        did: list[str] = []
        if self.acts.auto_resume_due(game):
            self.acts.resume(game_id, auto=True)
            did.append("resumed (pause cap reached)")
        phase = self.lookups.open_phase(game_id)
        if phase is None or game.status != GameStatus.RUNNING or game.held:
            return did  # held after a rollback: no deadline runs, nobody is reminded
        reason = self.phases.ready_to_adjudicate(game, phase)
        if reason and upgrades.outdated(self.lookups, game):
            upgrades.hold(self.desk, self.lookups, game, phase)  # not by other rules
            did.append(f"held turn {phase.turn} phase {phase.name}: {game.held}")
            return did
        if reason:
            self.desk.record(game, AdjudicateOrdered(phase_seq=phase.seq, reason=reason))
            self.phases.adjudicate(game, phase)
            did.append(f"adjudicated turn {phase.turn} phase {phase.name}: {reason}")
            return did
        times = deadlines.phase_times(phase.opened_at, game.settings)
        remind_at = phase.deadline - (times.deadline - times.remind_at) if phase.deadline else None
        if remind_at is not None and self.desk.now >= remind_at:
            holds = self.lookups.who_holds(phase)
            for side, plotted in self.lookups.who_has_plotted(phase).items():
                # A side whose orders are held open (refused lines) still owes a
                # corrected mail or DONE: it is reminded like a side that sent nothing.
                if (not plotted or holds[side]) and side not in phase.reminded:
                    phase.reminded = [*phase.reminded, side]
                    if self.reporter is not None:
                        self.reporter.reminder(self.lookups, game, phase, side)
                    did.append(f"reminded {side}")
        return did

    def push_back_deadlines(self, last_alive: datetime) -> list[str]:
        """After an outage: deadlines that passed while down move by the downtime."""
        now = self.desk.now
        moved: list[str] = []
        for game_id in self.live_games():
            game = self.lookups.game(game_id)
            phase = self.lookups.open_phase(game_id)
            if phase is None or phase.deadline is None:
                continue
            new = deadlines.pushed_back(phase.deadline, last_alive, now)
            if new is None and phase.grace_until is not None:
                new_grace = deadlines.pushed_back(phase.grace_until, last_alive, now)
                if new_grace is None:
                    continue
            shift = now - last_alive
            shift_deadlines(phase, shift)
            self.desk.record(
                game,
                DeadlinePushedBack(
                    phase_seq=phase.seq,
                    downtime_seconds=int(shift.total_seconds()),
                    deadline=phase.deadline.isoformat() if phase.deadline else None,
                ),
            )
            moved.append(game_id)
        return moved
