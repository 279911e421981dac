"""Corrections to a game's line of play: a rollback to an earlier phase, and the
correcting edit of the open phase's state (an upheld dispute).

A rollback leaves the game held for the moderator (``Game.held``): no orders,
no clock, no adjudication, and a pause stays a pause, until he says ADJUDICATE
(re-run now) or RESUME (the sides that may plot get a fresh deadline, the
phase's seed commitment and an order form). He may EDIT meanwhile.

An ended game is closed: END mailed the full record to every side, so it is
rolled back only with FORCE and a reason, and the notice says that every side
has seen everything. The EDITs of one command mail are announced together, one
notice per seat (``batched``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.core.ruleset import CheckedState, Ruleset, State
from pbem.lifecycle import deadlines
from pbem.lifecycle.announce import announce
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.phases import PhaseMachine
from pbem.record import journal
from pbem.record.chain import state_hash
from pbem.record.edits import EditError, apply_edit, value_at
from pbem.record.payloads import HoldReleased, RolledBack, StateEdited
from pbem.record.replay import replay_line
from pbem.record.rules import last_upgrade
from pbem.secrecy.plots import seal, unseal
from pbem.secrecy.seeds import unseal_seed
from pbem.storage.enums import GameStatus, PhaseStatus, PlotSource
from pbem.storage.models import Game, GameState, Phase, Plot, RecordEntry

# The largest integer every JSON reader holds exactly (I-JSON, RFC 7493 2.2): a
# state's counts are far below it, so a longer number is a slip of the keyboard.
SAFE_INTEGER = 2**53 - 1


@dataclass(frozen=True)
class Edit:
    """One correcting edit, kept for the notice of its command mail."""

    entry: RecordEntry
    phase: Phase
    pointer: str
    old: Any
    value: Any


class Corrections:
    """Rollbacks and state edits, bound to one transaction."""

    def __init__(self, desk: Desk, lookups: Lookups, phases: PhaseMachine) -> None:
        self.desk = desk
        self.lookups = lookups
        self.phases = phases
        self._edits: list[Edit] | None = None  # inside ``batched``: announced at its end

    def rollback(
        self,
        game_id: str,
        turn: int,
        phase_name: str,
        *,
        replot: bool = False,
        reason: str = "",
        force: bool = False,
    ) -> Phase:
        """Reopen an earlier phase; the state there is recomputed from the record.

        By default the orders that phase had are kept and locked, so ``ADJUDICATE``
        re-runs it with the same inputs (after a data correction or a fixed bug).
        With ``replot`` the sides plot again. Whenever a side may send orders
        (``replot``, or a side that had sent none) the phase gets a new seed: the
        old one is public now, and known dice must not meet fresh orders. The
        game is left held for the moderator (see the module's docstring). An
        ended game only with ``force`` and a ``reason``.
        """
        game = self.lookups.game(game_id)
        if game.status not in (GameStatus.RUNNING, GameStatus.PAUSED, GameStatus.OVER):
            raise LifecycleError(f"game {game_id} has not started")
        ended = game.status == GameStatus.OVER
        if ended and not (force and reason.strip()):
            raise LifecycleError(_closed(game_id, turn, phase_name))
        line = self.lookups.line_of_play(game_id)
        target = next((p for p in line if (p.turn, p.name) == (turn, phase_name)), None)
        if target is None:
            known = ", ".join(f"{p.turn}/{p.name}" for p in line)
            # A game ended while held at its only phase has none left in its line.
            phases = f"its phases: {known}" if known else "it has no phase left to go back to"
            raise LifecycleError(f"game {game_id} has no phase turn {turn} {phase_name}; {phases}")
        ruleset = self.lookups.ruleset(game)
        state = self._replayed(game, ruleset, target)
        for p in line:
            if p.seq >= target.seq:
                p.status = PhaseStatus.SUPERSEDED
        epoch = max(p.epoch for p in line) + 1
        old_plots = {side: self.lookups.current_plot(target, side) for side in target.sides}
        key = self.desk.key
        may_plot = [s for s in target.sides if replot or old_plots[s] is None]
        old_seed = (
            None
            if may_plot
            else unseal_seed(key, target.seed_sealed, game=game_id, phase_id=target.id)
        )
        if game.status != GameStatus.PAUSED:  # a pause stays a pause
            game.status = GameStatus.RUNNING
        game.outcome = None
        game.held = f"rollback to turn {turn} phase {phase_name}"[:200]
        entry = self.desk.record(
            game,
            RolledBack(
                to_seq=target.seq,
                turn=turn,
                phase=phase_name,
                replot=replot,
                epoch=epoch,
                fresh_seed=bool(may_plot),
                reason=reason,
            ),
        )
        demand = ruleset.pending(state)
        if demand is None:
            raise LifecycleError("the ruleset demands nothing at that phase")
        # Without REPLOT: the same sealed orders, carried over and locked (and the same
        # seed, unless a side that had sent none may send orders now).
        phase = self.phases.new_phase(game, demand, state, target.seq, epoch, seed=old_seed)
        if not replot:
            self._carry_plots(game_id, target, phase, old_plots)
        announce(
            self.desk,
            self.lookups,
            game,
            entry,
            f"rolled back to turn {turn} {phase_name}",
            _rollback_notice(game_id, target, phase, may_plot, reason, ended=ended),
        )
        return phase

    def _replayed(self, game: Game, ruleset: Ruleset, target: Phase) -> State:
        """The state at ``target``, recomputed from the record and checked against it."""
        entries = journal.entries(self.desk.session, game.id)
        upgrade = last_upgrade(entries)
        if upgrade is not None and target.seq < int(upgrade["payload"]["phase_seq"]):
            raise LifecycleError(
                f"phase {target.seq} was played by other rules, before the UPGRADE of record "
                f"entry {upgrade['seq']}: a rollback goes back no further than phase "
                f"{upgrade['payload']['phase_seq']}"
            )
        states = replay_line(ruleset, game.id, game.scenario, game.options, entries)
        state = states.get(target.seq)
        if state is None or state_hash(state) != target.state_hash:
            raise LifecycleError(f"the record does not reproduce the state of phase {target.seq}")
        return state

    def _carry_plots(
        self, game_id: str, target: Phase, phase: Phase, old_plots: Mapping[str, Plot | None]
    ) -> None:
        """Without REPLOT: the sealed orders of ``target`` carried over to the new
        ``phase``, sealed again to it and locked."""
        s, key = self.desk.session, self.desk.key
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

    def may_plot(self, phase: Phase) -> frozenset[str]:
        """The sides that may send orders for ``phase``: all but those whose orders
        a rollback carried over, locked."""
        return frozenset(
            side
            for side in phase.sides
            if (plot := self.lookups.current_plot(phase, side)) is None
            or plot.source != PlotSource.ROLLBACK
        )

    def replot_owed(self, game: Game, phase: Phase) -> list[str]:
        """The sides a rollback to ``phase`` told they may send orders (REPLOT, or
        none on file) that have not sent them yet."""
        last = self.desk.session.scalars(
            select(RecordEntry)
            .where(RecordEntry.game_id == game.id, RecordEntry.kind == RolledBack.kind)
            .order_by(RecordEntry.seq.desc())
            .limit(1)
        ).first()
        if last is None or not last.payload.get("fresh_seed"):
            return []
        if (last.payload["to_seq"], last.payload["epoch"]) != (phase.seq, phase.epoch):
            return []  # the phase a rollback reopened was adjudicated since
        plotted = self.lookups.who_has_plotted(phase)
        return sorted(side for side in self.may_plot(phase) if not plotted.get(side))

    def release(self, game: Game) -> Phase | None:
        """End the hold a rollback left by RESUME: the open phase's deadline runs from
        now; the sides that may plot get its seed commitment and an order form.
        (ADJUDICATE ends it too: ``PhaseMachine.adjudicate_now``.)"""
        game.held = None
        phase = self.lookups.open_phase(game.id)
        if phase is None:
            return None
        if phase.deadline is not None:
            times = deadlines.phase_times(self.desk.now, game.settings)
            phase.deadline, phase.grace_until = times.deadline, times.grace_until
            phase.remind_at = times.remind_at
            phase.reminded = []
        entry = self.desk.record(
            game,
            HoldReleased(
                phase_seq=phase.seq,
                by="resume",
                deadline=phase.deadline.isoformat() if phase.deadline else None,
            ),
        )
        sides = self.may_plot(phase)
        announce(
            self.desk,
            self.lookups,
            game,
            entry,
            f"turn {phase.turn} {phase.name} open again",
            f"The moderator has released game {game.id}: turn {phase.turn} phase "
            f"{phase.name} goes on"
            + (
                f"; orders are taken from {', '.join(sorted(sides))}."
                if sides
                else "; the orders on file are adjudicated (early adjudication or deadline)."
            ),
            phase=phase,
            may_plot=sides,
        )
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
            value_at(cached.state, pointer)  # EDIT changes what exists, creates nothing
            new_state, old = apply_edit(cached.state, pointer, value)
        except EditError as exc:
            raise LifecycleError(f"{exc}; EDIT changes existing values only") from None
        self._check_edit(game, phase, pointer, old, value, new_state)
        cached.state = new_state  # a new object, so the JSON column sees the change
        self.lookups.remember_state(phase, new_state)
        phase.state_hash = state_hash(new_state)
        entry = self.desk.record(
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
        edit = Edit(entry, phase, pointer, old, value)
        if self._edits is not None:
            self._edits.append(edit)
        else:
            self._announce_edits(game, [edit])
        return phase, old

    @contextmanager
    def batched(self) -> Iterator[list[Edit]]:
        """The EDITs made inside are announced at its end, one notice per seat and
        game; clear the list it yields to announce none (the mail was undone)."""
        edits: list[Edit] = []
        self._edits = edits
        try:
            yield edits
        finally:
            self._edits = None
        for game_id in dict.fromkeys(e.entry.game_id for e in edits):
            game = self.lookups.game(game_id)
            self._announce_edits(game, [e for e in edits if e.entry.game_id == game_id])

    def _announce_edits(self, game: Game, edits: Sequence[Edit]) -> None:
        """What was changed may be hidden from a side: the sides hear that the state
        was corrected, never where or to what; omniscient observers see it all."""
        last = edits[-1].phase
        plain = (
            f"The moderator has corrected the state of game {game.id} at turn {last.turn} "
            f"phase {last.name}; your next report shows the corrected position."
        )
        texts: dict[str | None, str] = {side: plain for side in self.lookups.sides_of(game)}
        texts[None] = f"{plain}\n\n" + "\n".join(
            f"{e.pointer}: {json.dumps(e.old)} -> {json.dumps(e.value)}" for e in edits
        )
        announce(self.desk, self.lookups, game, edits[0].entry, "state corrected", texts)

    def _check_edit(
        self, game: Game, phase: Phase, pointer: str, old: Any, value: Any, state: State
    ) -> None:
        """Refuse an edit the ruleset could not live with: a value of another JSON
        type than the one it replaces (a null excepted; an integer stays an integer, a
        number may replace a float), a number past ``SAFE_INTEGER``, a state the
        ruleset's own checks refuse (``CheckedState``: ranges, units that exist), or
        a state the ruleset fails on (its demand, each side's
        view, order form and order check, tried now instead of at adjudication)."""
        if (
            old is not None  # a null: the ruleset's own checks below decide
            and _json_type(value) != _json_type(old)
            and not (_json_type(old) == "number" and _json_type(value) == "integer")
        ):
            raise LifecycleError(
                f"{pointer} holds {_json_type(old)} {json.dumps(old)}; "
                f"{json.dumps(value)} is {_json_type(value)}: nothing was changed"
            )
        if _too_large(value):
            raise LifecycleError(
                f"{json.dumps(value)} is out of range: a number in a game state is at most "
                f"{SAFE_INTEGER} in size; nothing was changed"
            )
        ruleset = self.lookups.ruleset(game)
        if isinstance(ruleset, CheckedState) and (problems := ruleset.state_problems(state)):
            raise LifecycleError(
                f"the {game.ruleset} rules refuse {pointer} = {json.dumps(value)}: "
                f"{'; '.join(problems)}; nothing was changed"
            )
        try:
            ruleset.pending(state)
            for side in phase.sides:
                ruleset.view(state, (), side)
                ruleset.order_template(state, side)
                ruleset.validate(state, side, "")
            ruleset.view(state, (), None)
        except Exception as exc:  # any failure of the ruleset on the edited state
            raise LifecycleError(
                f"the {game.ruleset} rules cannot use the state with {pointer} = "
                f"{json.dumps(value)} ({type(exc).__name__}: {exc}); nothing was changed"
            ) from None


def _closed(game_id: str, turn: int, phase_name: str) -> str:
    """Why an ended game is not rolled back without FORCE and a reason."""
    return (
        f"game {game_id} has ended and END mailed its full record to every side: it is "
        f"closed. To reopen it all the same, say ROLLBACK {game_id} {turn} {phase_name} "
        "FORCE and a reason (the sides are told they have seen everything); nothing was done"
    )


def _too_large(value: Any) -> bool:
    """Whether a value holds a number no JSON reader is sure to hold exactly."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return abs(value) > SAFE_INTEGER
    if isinstance(value, list):
        return any(_too_large(v) for v in value)
    if isinstance(value, dict):
        return any(_too_large(v) for v in value.values())
    return False


def _json_type(value: Any) -> str:
    """The JSON kind of a value: integer, number (a float), string, boolean, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


def _rollback_notice(
    game_id: str,
    target: Phase,
    phase: Phase,
    may_plot: Sequence[str],
    reason: str,
    *,
    ended: bool = False,
) -> str:
    """What every player is told of a rollback: which reports are void, whose orders
    stand, and the new seed's commitment where sides plot again; of an ended game,
    that every side has seen everything."""
    why = f" ({reason})" if reason else ""
    seen = (
        "\n\nThe game had ended, and its full record (every side's orders, forces and "
        "dice) was mailed to every side: each side has seen everything, the other "
        "side's secrets included. The game goes on all the same, by the moderator's "
        "decision."
        if ended
        else ""
    )
    orders = (
        "The orders of every side stand as they were and are re-adjudicated."
        if not may_plot
        else "Orders for the phase will be taken again from: "
        + ", ".join(may_plot)
        + ", under a new dice seed; its commitment is "
        + phase.seed_commitment
        + "."
    )
    return (
        f"The moderator has rolled game {game_id} back to turn {target.turn} phase "
        f"{target.name}{why}. Reports of that phase and later ones are void; "
        "corrected reports will follow."
        + seen
        + "\n\n"
        + orders
        + "\n\nThe game is held until the moderator releases it; you will hear "
        "when orders are due."
    )
