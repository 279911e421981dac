"""The reads of the game machine: games (row-locked), phases, states, seats, plots.

What a transaction reads is remembered for that transaction (a batch of order
mails asks the same things again and again) and checked before use (see
``still_in_view``); the writers tell these caches what they change.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select

from pbem import rulesets
from pbem.core.errors import LifecycleError
from pbem.core.ruleset import Ruleset, State
from pbem.lifecycle.desk import Desk
from pbem.record import journal
from pbem.storage.db import still_in_view
from pbem.storage.enums import GameStatus, PhaseStatus, SeatRole
from pbem.storage.models import Game, GameState, Phase, Plot, Seat


class Lookups:
    """What the game machine reads, bound to one transaction."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.s = desk.session
        # Games whose row lock this transaction holds: the lock lasts to its end.
        self._locked: dict[str, Game] = {}
        # Stored states are never changed in place; one read per phase is enough.
        self._states: dict[int, State] = {}
        self._open: dict[str, Phase] = {}
        self._plots: dict[tuple[int, str], Plot | None] = {}  # None: known to have none

    def forget(self) -> None:
        """After a savepoint rollback: what was read or made since may be undone
        (an edited state, a phase, a row lock), so read everything again."""
        self._locked.clear()
        self._states.clear()
        self._open.clear()
        self._plots.clear()

    def game(self, game_id: str, *, lock: bool = True) -> Game:
        if game_id in self._locked:
            return self._locked[game_id]
        stmt = select(Game).where(Game.id == game_id)
        if lock:
            stmt = stmt.with_for_update()
        game = self.s.scalars(stmt).first()
        if game is None:
            raise LifecycleError(f"no game {game_id!r}")
        if lock:
            self._locked[game_id] = game
        return game

    def prefetch(self, game_ids: Collection[str]) -> None:
        """Lock and read, in a few queries, what a batch of order mails for these
        games will ask one by one: the game rows (locked in id order, so two
        daemons cannot deadlock), open phases, their states and current plots,
        and the record's newest entries. Only a cache: every lookup still works
        for a game not prefetched."""
        ids = sorted(set(game_ids) - self._locked.keys())
        if not ids:
            return
        for game in self.s.scalars(
            select(Game).where(Game.id.in_(ids)).order_by(Game.id).with_for_update()
        ):
            self._locked[game.id] = game
        phases = {
            p.game_id: p
            for p in self.s.scalars(
                select(Phase)
                .where(Phase.game_id.in_(ids), Phase.status == PhaseStatus.OPEN)
                .order_by(Phase.id)  # the newest wins, as in open_phase
            )
        }
        self._open.update(phases)
        by_id = {p.id: p for p in phases.values()}
        for stored in self.s.scalars(select(GameState).where(GameState.phase_id.in_(by_id))):
            self._states[stored.phase_id] = stored.state
        for phase in by_id.values():
            for side in phase.sides:
                self._plots[(phase.id, side)] = None
        for plot in self.s.scalars(
            select(Plot).where(Plot.phase_id.in_(by_id), Plot.current.is_(True))
        ):
            self._plots[(plot.phase_id, plot.side)] = plot
        journal.prefetch_heads(self.s, ids)

    def ruleset(self, game: Game) -> Ruleset:
        return rulesets.get(game.ruleset)

    def sides_of(self, game: Game) -> tuple[str, ...]:
        for sc in self.ruleset(game).scenarios():
            if sc.name == game.scenario:
                return sc.sides
        raise LifecycleError(f"scenario {game.scenario} vanished from ruleset {game.ruleset}")

    def open_phase(self, game_id: str) -> Phase | None:
        known = self._open.get(game_id)
        if known is not None and still_in_view(known) and known.status == PhaseStatus.OPEN:
            return known
        phase = self.s.scalars(
            select(Phase)
            .where(Phase.game_id == game_id, Phase.status == PhaseStatus.OPEN)
            .order_by(Phase.id.desc())
            .limit(1)
        ).first()
        if phase is not None:
            self._open[game_id] = phase
        return phase

    def require_open(self, game: Game) -> Phase:
        """The open phase of a running or paused game; else LifecycleError."""
        if game.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
            raise LifecycleError(f"game {game.id} is {game.status}")
        phase = self.open_phase(game.id)
        if phase is None:
            raise LifecycleError(f"game {game.id} has no open phase")
        return phase

    def line_of_play(self, game_id: str) -> list[Phase]:
        """The phases that count (not superseded by a rollback), oldest first."""
        return list(
            self.s.scalars(
                select(Phase)
                .where(Phase.game_id == game_id, Phase.status != PhaseStatus.SUPERSEDED)
                .order_by(Phase.seq)
            )
        )

    def state_of(self, phase: Phase) -> State:
        if phase.id in self._states:
            return self._states[phase.id]
        stored = self.s.get(GameState, phase.id)
        if stored is None:
            raise LifecycleError(f"no stored state for phase {phase.id}")
        self._states[phase.id] = stored.state
        return stored.state

    def remember_state(self, phase: Phase, state: State) -> None:
        """A phase's stored state was replaced (a correcting edit)."""
        self._states[phase.id] = state

    def seats(self, game_id: str, *, role: SeatRole | None = None) -> list[Seat]:
        stmt = select(Seat).where(Seat.game_id == game_id, Seat.active.is_(True))
        if role:
            stmt = stmt.where(Seat.role == role)
        return list(self.s.scalars(stmt.order_by(Seat.id)))

    def player(self, game_id: str, side: str) -> Seat | None:
        for seat in self.seats(game_id, role=SeatRole.PLAYER):
            if seat.side == side:
                return seat
        return None

    def current_plot(self, phase: Phase, side: str) -> Plot | None:
        if (phase.id, side) in self._plots:
            known = self._plots[(phase.id, side)]
            if known is None or (still_in_view(known) and known.current):
                return known
        plot = self.s.scalars(
            select(Plot).where(Plot.phase_id == phase.id, Plot.side == side, Plot.current.is_(True))
        ).first()
        if plot is not None:
            self._plots[(phase.id, side)] = plot
        return plot

    def remember_plot(self, plot: Plot) -> None:
        """A side's plot was sealed: it is now the current one."""
        self._plots[(plot.phase_id, plot.side)] = plot

    def who_has_plotted(self, phase: Phase) -> dict[str, bool]:
        """What the moderator may see of a sealed phase: who is in, nothing more."""
        return {side: self.current_plot(phase, side) is not None for side in phase.sides}

    def who_holds(self, phase: Phase) -> dict[str, bool]:
        """Which sides' orders are held open (refused lines, no DONE yet): sealed, but
        the round waits for a corrected mail until the deadline."""
        return {
            side: (plot := self.current_plot(phase, side)) is not None and plot.held
            for side in phase.sides
        }
