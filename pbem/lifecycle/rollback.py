"""Corrections to a game's line of play: a rollback to an earlier phase, and the
correcting edit of the open phase's state (an upheld dispute)."""

from __future__ import annotations

from typing import Any

from pbem.core.errors import LifecycleError
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.phases import PhaseMachine
from pbem.record import journal
from pbem.record.chain import state_hash
from pbem.record.edits import EditError, apply_edit
from pbem.record.payloads import RolledBack, StateEdited
from pbem.record.replay import replay_line
from pbem.secrecy.plots import seal, unseal
from pbem.secrecy.seeds import unseal_seed
from pbem.storage.enums import GameStatus, PhaseStatus, PlotSource
from pbem.storage.models import GameState, Phase, Plot


class Corrections:
    """Rollbacks and state edits, bound to one transaction."""

    def __init__(self, desk: Desk, lookups: Lookups, phases: PhaseMachine) -> None:
        self.desk = desk
        self.lookups = lookups
        self.phases = phases

    def rollback(self, game_id: str, turn: int, phase_name: str, *, replot: bool = False) -> Phase:
        """Reopen an earlier phase; the state there is recomputed from the record.

        By default the orders and the seed that phase had are kept and locked, so
        ``ADJUDICATE`` re-runs it with the same inputs (after a data correction or
        a fixed bug). With ``replot`` the sides plot again, under a new seed
        (the old one is public now).
        """
        game = self.lookups.game(game_id)
        if game.status not in (GameStatus.RUNNING, GameStatus.PAUSED, GameStatus.OVER):
            raise LifecycleError(f"game {game_id} has not started")
        line = self.lookups.line_of_play(game_id)
        target = next((p for p in line if (p.turn, p.name) == (turn, phase_name)), None)
        if target is None:
            known = ", ".join(f"{p.turn}/{p.name}" for p in line)
            raise LifecycleError(
                f"game {game_id} has no phase turn {turn} {phase_name}; its phases: {known}"
            )
        s = self.desk.session
        entries = journal.entries(s, game_id)
        ruleset = self.lookups.ruleset(game)
        states = replay_line(ruleset, game.id, game.scenario, game.options, entries)
        state = states.get(target.seq)
        if state is None or state_hash(state) != target.state_hash:
            raise LifecycleError(f"the record does not reproduce the state of phase {target.seq}")
        for p in line:
            if p.seq >= target.seq:
                p.status = PhaseStatus.SUPERSEDED
        epoch = max(p.epoch for p in line) + 1
        old_plots = {side: self.lookups.current_plot(target, side) for side in target.sides}
        key = self.desk.key
        old_seed = (
            unseal_seed(key, target.seed_sealed, game=game_id, phase_id=target.id)
            if not replot
            else None
        )
        game.status = GameStatus.RUNNING
        game.outcome = None
        self.desk.record(
            game,
            RolledBack(to_seq=target.seq, turn=turn, phase=phase_name, replot=replot, epoch=epoch),
        )
        demand = ruleset.pending(state)
        if demand is None:
            raise LifecycleError("the ruleset demands nothing at that phase")
        # Without REPLOT: the same seed and the same sealed orders, carried over and locked.
        phase = self.phases.new_phase(game, demand, state, target.seq, epoch, seed=old_seed)
        if old_seed is not None:
            for side, plot in old_plots.items():
                if plot is None:
                    continue
                content = unseal(key, plot.sealed, game=game_id, phase_id=target.id, side=side)
                s.add(
                    Plot(
                        phase_id=phase.id,
                        side=side,
                        sealed=seal(key, content, game=game_id, phase_id=phase.id, side=side),
                        commitment=plot.commitment,
                        received_at=plot.received_at,
                        late=plot.late,
                        source=PlotSource.ROLLBACK,
                        mail_id=plot.mail_id,
                    )
                )
            s.flush()
        return phase

    def edit_state(self, game_id: str, pointer: str, value: Any) -> tuple[Phase, Any]:
        """The correcting edit (an upheld dispute): set one value in the open phase's state.

        Recorded as ``state-edited`` with the hashes before and after, and applied
        again by replay, so rollback and ``pbem verify`` reach the same states.
        Returns the phase and the value replaced.
        """
        game = self.lookups.game(game_id)
        phase = self.lookups.require_open(game)
        cached = self.desk.session.get(GameState, phase.id)
        if cached is None:
            raise LifecycleError(f"no stored state for phase {phase.id}")
        before = state_hash(cached.state)
        try:
            new_state, old = apply_edit(cached.state, pointer, value)
        except EditError as exc:
            raise LifecycleError(str(exc)) from None
        cached.state = new_state  # a new object, so the JSON column sees the change
        self.lookups.remember_state(phase, new_state)
        phase.state_hash = state_hash(new_state)
        self.desk.record(
            game,
            StateEdited(
                phase_seq=phase.seq,
                turn=phase.turn,
                phase=phase.name,
                pointer=pointer,
                old=old,
                value=value,
                before_hash=before,
                state_hash=phase.state_hash,
            ),
        )
        return phase, old
