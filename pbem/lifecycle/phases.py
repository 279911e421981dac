"""The phase machine: open the phase the ruleset asks for, seal orders, adjudicate, finish.

Automatic phases (no side owes orders) are adjudicated as soon as they open.
Orders stay sealed until adjudication opens them all at once, with the seed
committed to when the phase opened.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.config import NoOrdersPolicy
from pbem.core import stages
from pbem.core.dice import SeededDice, seed_commitment
from pbem.core.errors import LifecycleError
from pbem.core.events import Event
from pbem.core.ruleset import Demand, State
from pbem.lifecycle import deadlines, upgrades
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.sink import ReportSink
from pbem.record.chain import state_hash
from pbem.record.payloads import (
    AdjudicateOrdered,
    DoneSaid,
    Forfeit,
    GameOver,
    HoldReleased,
    OrdersSealed,
    PhaseAdjudicated,
    PhaseOpened,
)
from pbem.secrecy.plots import PlotContent, seal, unseal
from pbem.secrecy.seeds import new_seed, seal_seed, unseal_seed
from pbem.storage.enums import GameStatus, PhaseStatus, PlotSource
from pbem.storage.models import Game, GameState, Phase, Plot, Seat

log = logging.getLogger("pbem.lifecycle")

# Automatic phases (no side owes orders) are adjudicated at once; this bounds a
# ruleset bug that would loop for ever.
MAX_AUTOMATIC_PHASES = 50


@dataclass(frozen=True)
class Receipt:
    """What a player is told when his orders are sealed."""

    commitment: str
    replaced: bool
    late: bool
    turn: int
    phase: str
    # The round waits for a corrected mail or DONE from this side (refused lines).
    held: bool = False
    # DONE alone: the orders sealed before stand; nothing new was sealed.
    stood: bool = False


@dataclass
class AdjudicationResult:
    phase: Phase
    events: tuple[Event, ...]
    next_phase: Phase | None
    outcome: dict[str, Any] | None = None
    reports_for: list[Seat] = field(default_factory=list)


class PhaseMachine:
    """Phases of all games: opening, sealed orders, adjudication, the end."""

    def __init__(self, desk: Desk, lookups: Lookups, reporter: ReportSink | None = None) -> None:
        self.desk = desk
        self.lookups = lookups
        # Renders and queues reports; the service wires pbem.lifecycle.publishing.Publisher.
        self.reporter = reporter

    # ---------------------------------------------------------------- opening

    def open_next(
        self,
        game: Game,
        state: State,
        *,
        seq: int,
        epoch: int,
        events: Sequence[Event],
        known_hash: str | None = None,
    ) -> Phase | None:
        """Open the phase the ruleset asks for next; adjudicate automatic ones at once.
        ``known_hash``: ``state``'s hash, if the caller has it (a large state's
        canonical JSON is worth making once)."""
        ruleset = self.lookups.ruleset(game)
        for _ in range(MAX_AUTOMATIC_PHASES):
            demand = ruleset.pending(state)
            if demand is None:
                outcome = ruleset.outcome(state)
                self.finish(
                    game,
                    {
                        "winner": outcome.winner,
                        "level": outcome.level,
                        "summary": outcome.summary,
                        "scores": dict(outcome.scores),
                    }
                    if outcome
                    else {"winner": None, "level": "", "summary": "game over", "scores": {}},
                    state=state,
                    events=events,
                )
                return None
            phase = self.new_phase(game, demand, state, seq, epoch, known_hash=known_hash)
            if demand.sides:
                if self.reporter is not None:
                    self.reporter.phase_reports(self.lookups, game, phase, state, events)
                return phase
            result = self.adjudicate(game, phase)
            if result.next_phase is not None or game.status == GameStatus.OVER:
                return result.next_phase
            return None
        raise LifecycleError(f"{MAX_AUTOMATIC_PHASES} automatic phases in a row: ruleset loop?")

    def new_phase(
        self,
        game: Game,
        demand: Demand,
        state: State,
        seq: int,
        epoch: int,
        seed: bytes | None = None,
        known_hash: str | None = None,
    ) -> Phase:
        """Store a phase opening on ``state``, its seed sealed and committed to
        (``known_hash``: ``state``'s hash, if known)."""
        seed = seed or new_seed()
        now = self.desk.now
        times = deadlines.phase_times(now, game.settings)
        phase = Phase(
            game_id=game.id,
            seq=seq,
            epoch=epoch,
            turn=demand.turn,
            name=demand.phase,
            title=demand.title,
            sides=list(demand.sides),
            opened_at=now,
            deadline=times.deadline if demand.sides else None,
            grace_until=times.grace_until if demand.sides else None,
            remind_at=times.remind_at if demand.sides else None,
            seed_sealed=b"",
            seed_commitment=seed_commitment(seed),
            state_hash=known_hash or state_hash(state),
        )
        s = self.desk.session
        s.add(phase)
        s.flush()
        phase.seed_sealed = seal_seed(self.desk.key, seed, game=game.id, phase_id=phase.id)
        s.add(GameState(phase_id=phase.id, state=dict(state)))
        self.desk.record(
            game,
            PhaseOpened(
                seq=seq,
                epoch=epoch,
                turn=demand.turn,
                phase=demand.phase,
                title=demand.title,
                sides=list(demand.sides),
                seed_commitment=phase.seed_commitment,
                state_hash=phase.state_hash,
                deadline=phase.deadline.isoformat() if phase.deadline else None,
            ),
        )
        log.info("phase opened", extra={"game": game.id, "phase": f"{demand.turn}/{demand.phase}"})
        return phase

    # ----------------------------------------------------------------- orders

    def submit(
        self,
        game_id: str,
        side: str,
        turn: int,
        phase_name: str,
        orders: Sequence[str],
        *,
        mail_id: int | None = None,
        held: bool = False,
    ) -> Receipt:
        """Seal a side's accepted orders for the open phase (a later set replaces it);
        ``held`` keeps the round open for the side (see ``seal_orders``)."""
        game, phase = self.taking_orders(game_id, side, turn, phase_name)
        return self.seal_orders(game, phase, side, orders, mail_id=mail_id, held=held)

    def taking_orders(
        self, game_id: str, side: str, turn: int, phase_name: str, *, at: datetime | None = None
    ) -> tuple[Game, Phase]:
        """The game and its open phase, if it takes ``side``'s orders for
        ``turn``/``phase_name`` received ``at`` (default now: see ``received``);
        else LifecycleError saying why not."""
        game = self.lookups.game(game_id)
        if game.status == GameStatus.PAUSED:
            raise LifecycleError(f"game {game_id} is paused; orders are not taken until it resumes")
        if game.held:
            raise LifecycleError(
                f"game {game_id} is held by the moderator ({game.held}); orders are taken "
                "again once he releases it, and you will be told"
            )
        phase = self.lookups.require_open(game)
        if (turn, phase_name) != (phase.turn, phase.name):
            raise LifecycleError(
                f"these orders are for turn {turn} phase {phase_name}, but the phase now open "
                f"is turn {phase.turn} phase {phase.name}"
            )
        if side not in phase.sides:
            raise LifecycleError(f"side {side} owes no orders in turn {turn} phase {phase_name}")
        now = self.received(at)
        if phase.grace_until is not None and now >= phase.grace_until:
            # The clock may not have ticked yet; the phase is closed all the same.
            raise LifecycleError(
                f"the deadline and grace period of turn {turn} phase {phase_name} have passed; "
                "orders are no longer taken (the no-orders policy applies)"
            )
        return game, phase

    def seal_orders(
        self,
        game: Game,
        phase: Phase,
        side: str,
        orders: Sequence[str],
        *,
        mail_id: int | None = None,
        held: bool = False,
        at: datetime | None = None,
    ) -> Receipt:
        """Seal accepted orders in a phase ``taking_orders`` returned; ``at`` is when
        they were received (see ``received``), which decides whether they are late.

        ``held``: some lines of the mail were refused and it did not say DONE, so the
        round stays open for this side (no early adjudication) until a corrected
        mail, a DONE or the deadline; these orders stand if nothing else comes."""
        now = self.received(at)
        late = phase.deadline is not None and now > phase.deadline
        previous = self.lookups.current_plot(phase, side)
        if previous is not None and previous.source == PlotSource.ROLLBACK:
            raise LifecycleError(
                "this phase is being re-adjudicated with the orders already on file; "
                "they cannot be changed"
            )
        if late and previous is not None and not previous.late:
            # No late changes: a side that was on time cannot revise during grace.
            raise LifecycleError(
                "the deadline has passed and your orders were in on time; they can no longer "
                "be changed (no late changes during the grace period)"
            )
        content = PlotContent.new(game.id, side, phase.turn, phase.name, orders)
        if previous is not None:
            previous.current = False
        plot = Plot(
            phase_id=phase.id,
            side=side,
            sealed=seal(
                self.desk.key, content.canonical(), game=game.id, phase_id=phase.id, side=side
            ),
            commitment=content.commitment(),
            received_at=now,
            late=late,
            source=PlotSource.MAIL if mail_id is not None else PlotSource.MODERATOR,
            mail_id=mail_id,
            held=held,
            # Set here, not left to the column default (applied only at the INSERT): the
            # next mail of the batch for this side finds it current in the lookups'
            # cache, instead of asking the database (and flushing) for it.
            current=True,
        )
        self.desk.session.add(plot)
        self.lookups.remember_plot(plot)
        self.desk.record(
            game,
            OrdersSealed(
                phase_seq=phase.seq,
                side=side,
                commitment=plot.commitment,
                late=late,
                replaced=previous is not None,
            ),
        )
        return Receipt(
            plot.commitment, previous is not None, late, phase.turn, phase.name, held=held
        )

    def received(self, at: datetime | None) -> datetime:
        """When orders count as received: when the moderator's mailbox received the
        mail that carried them (``at``), not when the daemon got round to it (a
        mailbox out of reach, a restart, a backlog are not the player's fault);
        never later than now. Orders with no mail (the moderator's) are received now."""
        return self.desk.now if at is None else min(at, self.desk.now)

    def stand(
        self,
        game: Game,
        phase: Phase,
        side: str,
        *,
        mail_id: int | None = None,
        at: datetime | None = None,
    ) -> Receipt:
        """DONE with no orders: the side's orders on file stand as accepted and the
        round is no longer held for it. With nothing on file, DONE seals no orders."""
        previous = self.lookups.current_plot(phase, side)
        if previous is None:
            receipt = self.seal_orders(game, phase, side, (), mail_id=mail_id, at=at)
        else:
            previous.held = False
            receipt = Receipt(
                previous.commitment, False, previous.late, phase.turn, phase.name, stood=True
            )
        # The record shows the DONE: it changed the round (the side no longer holds it).
        self.desk.record(
            game,
            DoneSaid(
                phase_seq=phase.seq, side=side, commitment=receipt.commitment, stood=receipt.stood
            ),
        )
        return receipt

    # ----------------------------------------------------------- adjudication

    def ready_to_adjudicate(self, game: Game, phase: Phase) -> str | None:
        """Why the open phase should be adjudicated now, or None to keep waiting."""
        if game.status != GameStatus.RUNNING or game.held:
            return None  # a held game waits for the moderator's ADJUDICATE or RESUME
        plotted = self.lookups.who_has_plotted(phase)
        past_deadline = phase.deadline is not None and self.desk.now >= phase.deadline
        # A side whose mail had refused lines holds the round open for its correction,
        # but only until the deadline: then its accepted orders stand.
        held = not past_deadline and any(self.lookups.who_holds(phase).values())
        if (
            all(plotted.values())
            and not held
            and (game.settings.get("early_adjudication", True) or past_deadline)
        ):
            return "all orders in"
        if phase.grace_until is not None and self.desk.now >= phase.grace_until:
            return "deadline and grace period passed"
        return None

    def adjudicate_now(self, game_id: str, reason: str = "moderator") -> AdjudicationResult:
        game = self.lookups.game(game_id)
        phase = self.lookups.require_open(game)
        upgrades.refuse_other_rules(self.lookups, game)  # a rules hold ends by UPGRADE
        if game.held:  # the moderator's word ends the hold a rollback left
            game.held = None
            self.desk.record(
                game, HoldReleased(phase_seq=phase.seq, by="adjudicate", deadline=None)
            )
        self.desk.record(game, AdjudicateOrdered(phase_seq=phase.seq, reason=reason))
        return self.adjudicate(game, phase)

    def _orders_for(
        self, game: Game, phase: Phase, state: State
    ) -> tuple[dict[str, tuple[str, ...]], dict[str, dict[str, Any]], list[str]]:
        """Every side's orders: sealed plots opened, policies applied to the missing."""
        ruleset = self.lookups.ruleset(game)
        orders: dict[str, tuple[str, ...]] = {}
        revealed: dict[str, dict[str, Any]] = {}
        forfeits: list[str] = []
        for side in phase.sides:
            plot = self.lookups.current_plot(phase, side)
            if plot is not None:
                content = PlotContent.from_canonical(
                    unseal(self.desk.key, plot.sealed, game=game.id, phase_id=phase.id, side=side)
                )
                orders[side] = content.orders
                revealed[side] = {
                    "orders": list(content.orders),
                    "nonce": content.nonce,
                    "commitment": plot.commitment,
                    "source": plot.source.value,
                    "late": plot.late,
                }
                continue
            policy = deadlines.no_orders_policy(game.settings, side)
            if policy == NoOrdersPolicy.FORFEIT:
                forfeits.append(side)
            chosen = (
                ruleset.default_orders(state, side) if policy == NoOrdersPolicy.STANDING else ()
            )
            orders[side] = tuple(chosen)
            revealed[side] = {
                "orders": list(chosen),
                "nonce": "",
                "commitment": "",
                "source": f"policy:{policy.value}",
                "late": False,
            }
        return orders, revealed, forfeits

    def adjudicate(self, game: Game, phase: Phase) -> AdjudicationResult:
        """Open the sealed orders, reveal the seed, let the ruleset resolve the phase,
        and open the next one."""
        upgrades.refuse_other_rules(self.lookups, game)
        ruleset = self.lookups.ruleset(game)
        state = self.lookups.state_of(phase)
        orders, revealed, forfeits = self._orders_for(game, phase, state)
        seed = unseal_seed(self.desk.key, phase.seed_sealed, game=game.id, phase_id=phase.id)
        if forfeits:
            phase.status = PhaseStatus.ADJUDICATED
            phase.seed_revealed = seed.hex()
            phase.adjudicated_at = self.desk.now
            winners = [s for s in self.lookups.sides_of(game) if s not in forfeits]
            self.desk.record(game, Forfeit(phase_seq=phase.seq, sides=forfeits))
            self.finish(
                game,
                {
                    "winner": winners[0] if len(winners) == 1 else None,
                    "level": "forfeit",
                    "summary": f"{', '.join(forfeits)} sent no orders and forfeited",
                    "scores": {},
                },
                state=state,
            )
            return AdjudicationResult(phase, (), None)
        dice = SeededDice(seed, game.id, phase.turn, phase.name)
        with stages.stage("adjudication"):
            result = ruleset.adjudicate(state, orders, dice)
        new_state = dict(result.state)
        phase.status = PhaseStatus.ADJUDICATED
        phase.seed_revealed = seed.hex()
        phase.adjudicated_at = self.desk.now
        phase.result_hash = state_hash(new_state)
        self.desk.record(
            game,
            PhaseAdjudicated(
                seq=phase.seq,
                epoch=phase.epoch,
                turn=phase.turn,
                phase=phase.name,
                seed=seed.hex(),
                seed_commitment=phase.seed_commitment,
                state_hash=phase.state_hash,
                plots=revealed,
                rolls=[[v, p] for v, p in dice.rolls],
                events=[e.to_json() for e in result.events],
                result_hash=phase.result_hash,
                rules=upgrades.game_rules(game),
            ),
        )
        log.info(
            "phase adjudicated", extra={"game": game.id, "phase": f"{phase.turn}/{phase.name}"}
        )
        nxt = self.open_next(
            game,
            new_state,
            seq=phase.seq + 1,
            epoch=phase.epoch,
            events=result.events,
            known_hash=phase.result_hash,
        )
        return AdjudicationResult(phase, result.events, nxt)

    def finish(
        self,
        game: Game,
        outcome: dict[str, Any],
        *,
        state: State | None = None,
        events: Sequence[Event] = (),
    ) -> None:
        """The game is over: record the outcome; final reports if there is a state to show."""
        game.status = GameStatus.OVER
        game.outcome = outcome
        self.desk.record(game, GameOver(outcome=outcome))
        if self.reporter is not None and state is not None:
            self.reporter.final_reports(self.lookups, game, state, events)
