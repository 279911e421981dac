"""The game machine: which side owes orders, sealed plots, adjudication, moderator acts.

Every public method runs inside the caller's transaction and takes the game's
row lock first, so on PostgreSQL two daemons never change one game at once;
whatever a method changes (state, record, plots, outgoing mail) is committed
together or not at all. ``desk.now`` is the only clock.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from pbem import rulesets
from pbem.config import Config
from pbem.core.dice import SeededDice, seed_commitment
from pbem.core.errors import LifecycleError
from pbem.core.events import Event
from pbem.core.ruleset import Demand, Ruleset, State
from pbem.lifecycle import deadlines
from pbem.record import journal
from pbem.record.chain import state_hash
from pbem.record.edits import EditError, apply_edit
from pbem.record.replay import replay_line
from pbem.secrecy.plots import PlotContent, seal, unseal
from pbem.secrecy.seeds import new_seed, seal_seed, unseal_seed
from pbem.storage.db import still_in_view
from pbem.storage.models import Dispute, Game, GameState, Phase, Plot, Seat

log = logging.getLogger("pbem.lifecycle")

# Automatic phases (no side owes orders) are adjudicated at once; this bounds a
# ruleset bug that would loop for ever.
MAX_AUTOMATIC_PHASES = 50


@dataclass
class Desk:
    """What a lifecycle operation works with: one transaction, the seal key, the clock."""

    session: Session
    config: Config
    key: bytes
    now: datetime


@dataclass(frozen=True)
class Receipt:
    """What a player is told when his orders are sealed."""

    commitment: str
    replaced: bool
    late: bool
    turn: int
    phase: str


@dataclass
class AdjudicationResult:
    phase: Phase
    events: tuple[Event, ...]
    next_phase: Phase | None
    outcome: dict[str, Any] | None = None
    reports_for: list[Seat] = field(default_factory=list)


class GameMaster:
    """The moderator's game machine for all games, bound to one transaction."""

    def __init__(self, desk: Desk, reporter: Any = None) -> None:
        self.desk = desk
        self.s = desk.session
        # The reporter renders and queues reports (pbem.reports.mailing.Reporter).
        self.reporter = reporter
        # Games whose row lock this transaction holds: the lock lasts to its end.
        self._locked: dict[str, Game] = {}
        # Stored states are never changed in place; one read per phase is enough.
        self._states: dict[int, State] = {}
        # What a batch of order mails asks again and again, remembered for the
        # transaction and checked before use (see still_in_view).
        self._open: dict[str, Phase] = {}
        self._plots: dict[tuple[int, str], Plot | None] = {}  # None: known to have none

    # ----------------------------------------------------------------- lookups

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
                .where(Phase.game_id.in_(ids), Phase.status == "open")
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

    def open_phase(self, game_id: str) -> Phase | None:
        known = self._open.get(game_id)
        if known is not None and still_in_view(known) and known.status == "open":
            return known
        phase = self.s.scalars(
            select(Phase)
            .where(Phase.game_id == game_id, Phase.status == "open")
            .order_by(Phase.id.desc())
            .limit(1)
        ).first()
        if phase is not None:
            self._open[game_id] = phase
        return phase

    def line_of_play(self, game_id: str) -> list[Phase]:
        """The phases that count (not superseded by a rollback), oldest first."""
        return list(
            self.s.scalars(
                select(Phase)
                .where(Phase.game_id == game_id, Phase.status != "superseded")
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

    def seats(self, game_id: str, *, role: str | None = None) -> list[Seat]:
        stmt = select(Seat).where(Seat.game_id == game_id, Seat.active.is_(True))
        if role:
            stmt = stmt.where(Seat.role == role)
        return list(self.s.scalars(stmt.order_by(Seat.id)))

    def player(self, game_id: str, side: str) -> Seat | None:
        for seat in self.seats(game_id, role="player"):
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

    def who_has_plotted(self, phase: Phase) -> dict[str, bool]:
        """What the moderator may see of a sealed phase: who is in, nothing more."""
        return {side: self.current_plot(phase, side) is not None for side in phase.sides}

    def _record(self, game: Game, kind: str, payload: dict[str, Any]) -> None:
        journal.append(self.s, game.id, kind, payload, self.desk.now)

    # ---------------------------------------------------------- moderator acts

    def create_game(
        self,
        game_id: str,
        ruleset_name: str,
        scenario: str,
        options: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> Game:
        if not game_id or not game_id.replace("-", "").replace("_", "").isalnum():
            raise LifecycleError(f"game id {game_id!r} must be letters, digits, '-' or '_'")
        if self.s.get(Game, game_id) is not None:
            raise LifecycleError(f"game {game_id!r} already exists")
        ruleset = rulesets.get(ruleset_name)
        known = {sc.name: sc for sc in ruleset.scenarios()}
        if scenario not in known:
            raise LifecycleError(
                f"ruleset {ruleset_name} has no scenario {scenario!r}; "
                f"known: {', '.join(sorted(known))}"
            )
        merged = deadlines.game_settings(self.desk.config.games, settings or {})
        for side in known[scenario].sides:
            try:
                deadlines.no_orders_policy(merged, side)  # refuse an unknown policy now
            except ValueError as exc:
                raise LifecycleError(str(exc)) from None
        game = Game(
            id=game_id,
            ruleset=ruleset_name,
            scenario=scenario,
            options=dict(options or {}),
            settings=merged,
            created_at=self.desk.now,
        )
        self.s.add(game)
        self.s.flush()
        self._record(
            game,
            "game-created",
            {
                "ruleset": ruleset_name,
                "scenario": scenario,
                "options": game.options,
                "settings": merged,
            },
        )
        log.info("game created", extra={"game": game_id})
        return game

    def sides_of(self, game: Game) -> tuple[str, ...]:
        for sc in self.ruleset(game).scenarios():
            if sc.name == game.scenario:
                return sc.sides
        raise LifecycleError(f"scenario {game.scenario} vanished from ruleset {game.ruleset}")

    def assign(
        self,
        game_id: str,
        side: str,
        email: str,
        *,
        public_key: str | None = None,
        certificate: bytes | None = None,
        timezone: str = "UTC",
    ) -> Seat:
        game = self.game(game_id)
        if side not in self.sides_of(game):
            raise LifecycleError(f"game {game_id} has no side {side!r}")
        if self.player(game_id, side) is not None:
            raise LifecycleError(f"side {side} of {game_id} already has a player; use REPLACE")
        seat = self._new_seat(game, "player", side, email, public_key, certificate, timezone)
        self._record(
            game,
            "player-assigned",
            {
                "side": side,
                "email": seat.email,
                "key": seat.key_fingerprint,
                "certificate": seat.cert_fingerprint,
            },
        )
        return seat

    def _new_seat(
        self,
        game: Game,
        role: str,
        side: str | None,
        email: str,
        public_key: str | None,
        certificate: bytes | None,
        timezone: str,
    ) -> Seat:
        from pbem.intake.signatures import key_fingerprint
        from pbem.intake.smime import certificate_fingerprint

        if role == "player" and not public_key and not certificate:
            raise LifecycleError("a player needs an Ed25519 public key or an S/MIME certificate")
        try:
            fingerprint = key_fingerprint(public_key) if public_key else None
            cert_fp = certificate_fingerprint(certificate) if certificate else None
        except Exception as exc:
            raise LifecycleError(f"unusable key or certificate: {exc}") from None
        try:
            ZoneInfo(timezone)  # shown in the player's zone: a typo must not fall back to UTC
        except (ZoneInfoNotFoundError, ValueError):
            raise LifecycleError(
                f"unknown time zone {timezone!r}; use an IANA name such as Europe/Berlin"
            ) from None
        seat = Seat(
            game_id=game.id,
            role=role,
            side=side,
            email=email.strip().lower(),
            timezone=timezone,
            public_key=public_key.strip() if public_key else None,
            key_fingerprint=fingerprint,
            certificate=certificate,
            cert_fingerprint=cert_fp,
            joined_at=self.desk.now,
        )
        self.s.add(seat)
        self.s.flush()
        return seat

    def add_observer(self, game_id: str, email: str, side: str | None) -> Seat:
        game = self.game(game_id)
        if side is not None and side not in self.sides_of(game):
            raise LifecycleError(f"game {game_id} has no side {side!r}")
        seat = self._new_seat(game, "observer", side, email, None, None, "UTC")
        self._record(game, "observer-added", {"email": seat.email, "side": side})
        return seat

    def start(self, game_id: str) -> Phase | None:
        game = self.game(game_id)
        if game.status != "created":
            raise LifecycleError(f"game {game_id} is {game.status}, not waiting to start")
        missing = [s for s in self.sides_of(game) if self.player(game_id, s) is None]
        if missing:
            raise LifecycleError(f"no player for side(s): {', '.join(missing)}")
        state = self.ruleset(game).initial_state(game.scenario, game.options)
        game.status = "running"
        self._record(game, "game-started", {"state_hash": state_hash(state)})
        return self._open_next(game, state, seq=1, epoch=0, events=())

    def pause(self, game_id: str, reason: str) -> None:
        game = self.game(game_id)
        if game.status != "running":
            raise LifecycleError(f"game {game_id} is {game.status}; only a running game pauses")
        if game.pauses_used >= int(game.settings["max_pauses"]):
            raise LifecycleError(f"game {game_id} has used all {game.pauses_used} pauses allowed")
        game.status = "paused"
        game.paused_at = self.desk.now
        game.pauses_used += 1
        self._record(game, "paused", {"reason": reason, "pauses_used": game.pauses_used})

    def resume(self, game_id: str) -> None:
        game = self.game(game_id)
        if game.status != "paused" or game.paused_at is None:
            raise LifecycleError(f"game {game_id} is not paused")
        held = self.desk.now - game.paused_at
        cap = timedelta(days=float(game.settings["max_pause_days"]))
        game.paused_seconds += int(held.total_seconds())
        game.status = "running"
        game.paused_at = None
        phase = self.open_phase(game_id)
        if phase is not None:  # the clock stood still while paused
            self._shift_deadlines(phase, held)
        self._record(
            game,
            "resumed",
            {"paused_for_seconds": int(held.total_seconds()), "over_cap": held > cap},
        )

    def auto_resume_due(self, game: Game) -> bool:
        cap = timedelta(days=float(game.settings["max_pause_days"]))
        return (
            game.status == "paused"
            and game.paused_at is not None
            and (self.desk.now - game.paused_at >= cap)
        )

    def _shift_deadlines(self, phase: Phase, by: timedelta) -> None:
        if phase.deadline is not None:
            phase.deadline += by
        if phase.grace_until is not None:
            phase.grace_until += by

    def extend(self, game_id: str, hours: float) -> Phase:
        game = self.game(game_id)
        phase = self._require_open(game)
        cap = float(game.settings["max_extension_hours"])
        if not 0 < hours <= cap:
            raise LifecycleError(f"an extension must be more than 0 and at most {cap:g} hours")
        self._shift_deadlines(phase, timedelta(hours=hours))
        self._record(
            game,
            "deadline-extended",
            {
                "phase_seq": phase.seq,
                "hours": hours,
                "deadline": phase.deadline.isoformat() if phase.deadline else None,
            },
        )
        return phase

    def replace_player(
        self,
        game_id: str,
        side: str,
        email: str,
        *,
        public_key: str | None = None,
        certificate: bytes | None = None,
        timezone: str = "UTC",
    ) -> Seat:
        game = self.game(game_id)
        old = self.player(game_id, side)
        if old is None:
            raise LifecycleError(f"side {side} of {game_id} has no player to replace")
        old.active = False
        old.retired_at = self.desk.now
        seat = self._new_seat(game, "player", side, email, public_key, certificate, timezone)
        self._record(
            game,
            "player-replaced",
            {
                "side": side,
                "old_email": old.email,
                "old_key": old.key_fingerprint,
                "email": seat.email,
                "key": seat.key_fingerprint,
            },
        )
        return seat

    def end(self, game_id: str, reason: str, winner: str | None = None) -> None:
        game = self.game(game_id)
        if game.status == "over":
            raise LifecycleError(f"game {game_id} is already over")
        phase = self.open_phase(game_id)
        if phase is not None:
            phase.status = "superseded"
        outcome: dict[str, Any] = {
            "winner": winner,
            "level": "ended by the moderator",
            "summary": reason,
            "scores": {},
        }
        self._finish(game, outcome)

    def _require_open(self, game: Game) -> Phase:
        if game.status not in ("running", "paused"):
            raise LifecycleError(f"game {game.id} is {game.status}")
        phase = self.open_phase(game.id)
        if phase is None:
            raise LifecycleError(f"game {game.id} has no open phase")
        return phase

    # ------------------------------------------------------------ phases

    def _open_next(
        self, game: Game, state: State, *, seq: int, epoch: int, events: Sequence[Event]
    ) -> Phase | None:
        """Open the phase the ruleset asks for next; adjudicate automatic ones at once."""
        ruleset = self.ruleset(game)
        for _ in range(MAX_AUTOMATIC_PHASES):
            demand = ruleset.pending(state)
            if demand is None:
                outcome = ruleset.outcome(state)
                self._finish(
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
            phase = self._new_phase(game, demand, state, seq, epoch)
            if demand.sides:
                self._send_reports(game, phase, state, events)
                return phase
            result = self._adjudicate(game, phase)
            if result.next_phase is not None or game.status == "over":
                return result.next_phase
            return None
        raise LifecycleError(f"{MAX_AUTOMATIC_PHASES} automatic phases in a row: ruleset loop?")

    def _new_phase(
        self,
        game: Game,
        demand: Demand,
        state: State,
        seq: int,
        epoch: int,
        seed: bytes | None = None,
    ) -> Phase:
        seed = seed or new_seed()
        times = deadlines.phase_times(self.desk.now, game.settings)
        phase = Phase(
            game_id=game.id,
            seq=seq,
            epoch=epoch,
            turn=demand.turn,
            name=demand.phase,
            title=demand.title,
            sides=list(demand.sides),
            opened_at=self.desk.now,
            deadline=times.deadline if demand.sides else None,
            grace_until=times.grace_until if demand.sides else None,
            seed_sealed=b"",
            seed_commitment=seed_commitment(seed),
            state_hash=state_hash(state),
        )
        self.s.add(phase)
        self.s.flush()
        phase.seed_sealed = seal_seed(self.desk.key, seed, game=game.id, phase_id=phase.id)
        self.s.add(GameState(phase_id=phase.id, state=dict(state)))
        self._record(
            game,
            "phase-opened",
            {
                "seq": seq,
                "epoch": epoch,
                "turn": demand.turn,
                "phase": demand.phase,
                "title": demand.title,
                "sides": list(demand.sides),
                "seed_commitment": phase.seed_commitment,
                "state_hash": phase.state_hash,
                "deadline": phase.deadline.isoformat() if phase.deadline else None,
            },
        )
        log.info("phase opened", extra={"game": game.id, "phase": f"{demand.turn}/{demand.phase}"})
        return phase

    def submit(
        self,
        game_id: str,
        side: str,
        turn: int,
        phase_name: str,
        orders: Sequence[str],
        *,
        mail_id: int | None = None,
    ) -> Receipt:
        """Seal a side's accepted orders for the open phase (a later set replaces it)."""
        game, phase = self.taking_orders(game_id, side, turn, phase_name)
        return self.seal_orders(game, phase, side, orders, mail_id=mail_id)

    def taking_orders(
        self, game_id: str, side: str, turn: int, phase_name: str
    ) -> tuple[Game, Phase]:
        """The game and its open phase, if it takes ``side``'s orders for
        ``turn``/``phase_name`` now; else LifecycleError saying why not."""
        game = self.game(game_id)
        if game.status == "paused":
            raise LifecycleError(f"game {game_id} is paused; orders are not taken until it resumes")
        phase = self._require_open(game)
        if (turn, phase_name) != (phase.turn, phase.name):
            raise LifecycleError(
                f"these orders are for turn {turn} phase {phase_name}, but the phase now open "
                f"is turn {phase.turn} phase {phase.name}"
            )
        if side not in phase.sides:
            raise LifecycleError(f"side {side} owes no orders in turn {turn} phase {phase_name}")
        now = self.desk.now
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
    ) -> Receipt:
        """Seal accepted orders in a phase ``taking_orders`` returned."""
        now = self.desk.now
        late = phase.deadline is not None and now > phase.deadline
        previous = self.current_plot(phase, side)
        if previous is not None and previous.source == "rollback":
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
            source="mail" if mail_id is not None else "moderator",
            mail_id=mail_id,
        )
        self.s.add(plot)
        self._plots[(phase.id, side)] = plot
        self._record(
            game,
            "orders-sealed",
            {
                "phase_seq": phase.seq,
                "side": side,
                "commitment": plot.commitment,
                "late": late,
                "replaced": previous is not None,
            },
        )
        return Receipt(plot.commitment, previous is not None, late, phase.turn, phase.name)

    def ready_to_adjudicate(self, game: Game, phase: Phase) -> str | None:
        """Why the open phase should be adjudicated now, or None to keep waiting."""
        if game.status != "running":
            return None
        plotted = self.who_has_plotted(phase)
        if all(plotted.values()) and (
            game.settings.get("early_adjudication", True)
            or (phase.deadline is not None and self.desk.now >= phase.deadline)
        ):
            return "all orders in"
        if phase.grace_until is not None and self.desk.now >= phase.grace_until:
            return "deadline and grace period passed"
        return None

    def adjudicate_now(self, game_id: str, reason: str = "moderator") -> AdjudicationResult:
        game = self.game(game_id)
        phase = self._require_open(game)
        self._record(game, "adjudicate-ordered", {"phase_seq": phase.seq, "reason": reason})
        return self._adjudicate(game, phase)

    def _orders_for(
        self, game: Game, phase: Phase, state: State
    ) -> tuple[dict[str, tuple[str, ...]], dict[str, dict[str, Any]], list[str]]:
        """Every side's orders: sealed plots opened, policies applied to the missing."""
        ruleset = self.ruleset(game)
        orders: dict[str, tuple[str, ...]] = {}
        revealed: dict[str, dict[str, Any]] = {}
        forfeits: list[str] = []
        for side in phase.sides:
            plot = self.current_plot(phase, side)
            if plot is not None:
                content = PlotContent.from_canonical(
                    unseal(self.desk.key, plot.sealed, game=game.id, phase_id=phase.id, side=side)
                )
                orders[side] = content.orders
                revealed[side] = {
                    "orders": list(content.orders),
                    "nonce": content.nonce,
                    "commitment": plot.commitment,
                    "source": plot.source,
                    "late": plot.late,
                }
                continue
            policy = deadlines.no_orders_policy(game.settings, side)
            if policy == "forfeit":
                forfeits.append(side)
            chosen = ruleset.default_orders(state, side) if policy == "standing" else ()
            orders[side] = tuple(chosen)
            revealed[side] = {
                "orders": list(chosen),
                "nonce": "",
                "commitment": "",
                "source": f"policy:{policy}",
                "late": False,
            }
        return orders, revealed, forfeits

    def _adjudicate(self, game: Game, phase: Phase) -> AdjudicationResult:
        ruleset = self.ruleset(game)
        state = self.state_of(phase)
        orders, revealed, forfeits = self._orders_for(game, phase, state)
        seed = unseal_seed(self.desk.key, phase.seed_sealed, game=game.id, phase_id=phase.id)
        if forfeits:
            phase.status = "adjudicated"
            phase.seed_revealed = seed.hex()
            phase.adjudicated_at = self.desk.now
            winners = [s for s in self.sides_of(game) if s not in forfeits]
            self._record(game, "forfeit", {"phase_seq": phase.seq, "sides": forfeits})
            self._finish(
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
        result = ruleset.adjudicate(state, orders, dice)
        new_state = dict(result.state)
        phase.status = "adjudicated"
        phase.seed_revealed = seed.hex()
        phase.adjudicated_at = self.desk.now
        phase.result_hash = state_hash(new_state)
        self._record(
            game,
            "phase-adjudicated",
            {
                "seq": phase.seq,
                "epoch": phase.epoch,
                "turn": phase.turn,
                "phase": phase.name,
                "seed": seed.hex(),
                "seed_commitment": phase.seed_commitment,
                "state_hash": phase.state_hash,
                "plots": revealed,
                "rolls": [[v, p] for v, p in dice.rolls],
                "events": [e.to_json() for e in result.events],
                "result_hash": phase.result_hash,
            },
        )
        log.info(
            "phase adjudicated", extra={"game": game.id, "phase": f"{phase.turn}/{phase.name}"}
        )
        nxt = self._open_next(
            game, new_state, seq=phase.seq + 1, epoch=phase.epoch, events=result.events
        )
        return AdjudicationResult(phase, result.events, nxt)

    def _finish(
        self,
        game: Game,
        outcome: dict[str, Any],
        *,
        state: State | None = None,
        events: Sequence[Event] = (),
    ) -> None:
        game.status = "over"
        game.outcome = outcome
        self._record(game, "game-over", {"outcome": outcome})
        if self.reporter is not None and state is not None:
            self.reporter.final_reports(self, game, state, events)

    def _send_reports(
        self, game: Game, phase: Phase, state: State, events: Sequence[Event]
    ) -> None:
        if self.reporter is not None:
            self.reporter.phase_reports(self, game, phase, state, events)

    # ------------------------------------------------------------ rollback

    def rollback(self, game_id: str, turn: int, phase_name: str, *, replot: bool = False) -> Phase:
        """Reopen an earlier phase; the state there is recomputed from the record.

        By default the orders and the seed that phase had are kept and locked, so
        ``ADJUDICATE`` re-runs it with the same inputs (after a data correction or
        a fixed bug). With ``replot`` the sides plot again, under a new seed
        (the old one is public now).
        """
        game = self.game(game_id)
        if game.status not in ("running", "paused", "over"):
            raise LifecycleError(f"game {game_id} has not started")
        line = self.line_of_play(game_id)
        target = next((p for p in line if (p.turn, p.name) == (turn, phase_name)), None)
        if target is None:
            known = ", ".join(f"{p.turn}/{p.name}" for p in line)
            raise LifecycleError(
                f"game {game_id} has no phase turn {turn} {phase_name}; its phases: {known}"
            )
        entries = journal.entries(self.s, game_id)
        ruleset = self.ruleset(game)
        states = replay_line(ruleset, game.id, game.scenario, game.options, entries)
        state = states.get(target.seq)
        if state is None or state_hash(state) != target.state_hash:
            raise LifecycleError(f"the record does not reproduce the state of phase {target.seq}")
        for p in line:
            if p.seq >= target.seq:
                p.status = "superseded"
        epoch = max(p.epoch for p in line) + 1
        old_plots = {side: self.current_plot(target, side) for side in target.sides}
        old_seed = (
            unseal_seed(self.desk.key, target.seed_sealed, game=game_id, phase_id=target.id)
            if not replot
            else None
        )
        game.status = "running"
        game.outcome = None
        self._record(
            game,
            "rolled-back",
            {
                "to_seq": target.seq,
                "turn": turn,
                "phase": phase_name,
                "replot": replot,
                "epoch": epoch,
            },
        )
        demand = ruleset.pending(state)
        if demand is None:
            raise LifecycleError("the ruleset demands nothing at that phase")
        # Without REPLOT: the same seed and the same sealed orders, carried over and locked.
        phase = self._new_phase(game, demand, state, target.seq, epoch, seed=old_seed)
        if old_seed is not None:
            for side, plot in old_plots.items():
                if plot is None:
                    continue
                content = unseal(
                    self.desk.key, plot.sealed, game=game_id, phase_id=target.id, side=side
                )
                self.s.add(
                    Plot(
                        phase_id=phase.id,
                        side=side,
                        sealed=seal(
                            self.desk.key, content, game=game_id, phase_id=phase.id, side=side
                        ),
                        commitment=plot.commitment,
                        received_at=plot.received_at,
                        late=plot.late,
                        source="rollback",
                        mail_id=plot.mail_id,
                    )
                )
            self.s.flush()
        return phase

    # ------------------------------------------------------------ disputes

    def file_dispute(
        self, game_id: str, side: str, turn: int, phase_name: str, text: str
    ) -> Dispute:
        game = self.game(game_id)
        phase = next(
            (
                p
                for p in self.line_of_play(game_id)
                if (p.turn, p.name) == (turn, phase_name) and p.status == "adjudicated"
            ),
            None,
        )
        if phase is None:
            raise LifecycleError(
                f"turn {turn} phase {phase_name} has not been adjudicated; "
                "a dispute names an adjudicated phase"
            )
        dispute = Dispute(
            game_id=game_id, phase_id=phase.id, side=side, text=text, filed_at=self.desk.now
        )
        self.s.add(dispute)
        self.s.flush()
        self._record(
            game,
            "dispute-filed",
            {"dispute": dispute.id, "side": side, "phase_seq": phase.seq, "text": text},
        )
        return dispute

    def rule_dispute(self, game_id: str, dispute_id: int, upheld: bool, reason: str) -> Dispute:
        game = self.game(game_id)
        dispute = self.s.get(Dispute, dispute_id)
        if dispute is None or dispute.game_id != game_id:
            raise LifecycleError(f"game {game_id} has no dispute {dispute_id}")
        if dispute.status != "open":
            raise LifecycleError(f"dispute {dispute_id} was already ruled {dispute.status}")
        dispute.status = "upheld" if upheld else "dismissed"
        dispute.ruling = reason
        self._record(
            game,
            "dispute-ruled",
            {"dispute": dispute_id, "ruling": dispute.status, "reason": reason},
        )
        return dispute

    def edit_state(self, game_id: str, pointer: str, value: Any) -> tuple[Phase, Any]:
        """The correcting edit (an upheld dispute): set one value in the open phase's state.

        Recorded as ``state-edited`` with the hashes before and after, and applied
        again by replay, so rollback and ``pbem verify`` reach the same states.
        Returns the phase and the value replaced.
        """
        game = self.game(game_id)
        phase = self._require_open(game)
        cached = self.s.get(GameState, phase.id)
        if cached is None:
            raise LifecycleError(f"no stored state for phase {phase.id}")
        before = state_hash(cached.state)
        try:
            new_state, old = apply_edit(cached.state, pointer, value)
        except EditError as exc:
            raise LifecycleError(str(exc)) from None
        cached.state = new_state  # a new object, so the JSON column sees the change
        self._states[phase.id] = new_state
        phase.state_hash = state_hash(new_state)
        self._record(
            game,
            "state-edited",
            {
                "phase_seq": phase.seq,
                "turn": phase.turn,
                "phase": phase.name,
                "pointer": pointer,
                "old": old,
                "value": value,
                "before_hash": before,
                "state_hash": phase.state_hash,
            },
        )
        return phase, old

    # ------------------------------------------------------------ clock

    def live_games(self) -> list[str]:
        """Every running or paused game."""
        return list(self.s.scalars(select(Game.id).where(Game.status.in_(("running", "paused")))))

    def due_games(self, among: Collection[str] | None = None) -> list[str]:
        """The games (of ``among``, if given) whose ``tick`` may have something to do
        now, read in one query.

        A superset of what ``tick`` acts on (a paused game, a running game whose
        open phase is fully plotted, past its deadline or grace, or past its
        reminder time with a side neither plotted nor reminded): ticking every
        stored game, one locked transaction each, cost time linear in the games.
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
            .outerjoin(Phase, (Phase.game_id == Game.id) & (Phase.status == "open"))
            .where(Game.status.in_(("running", "paused")))
            .order_by(Game.id)
        )
        if among is not None:
            stmt = stmt.where(Game.id.in_(sorted(among)))
        rows = self.s.execute(stmt).all()
        seen: set[str] = set()
        due: list[str] = []
        for game_id, status, settings, sides, opened, deadline, grace, reminded, count in rows:
            if game_id in seen:
                continue  # another open phase of this game was due already
            if status == "paused" or self._phase_due(
                settings, sides, opened, deadline, grace, reminded, count
            ):
                seen.add(game_id)
                due.append(game_id)
        return due

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
        """Deadlines, reminders and early adjudication for one game. Returns what it did."""
        game = self.game(game_id)
        did: list[str] = []
        if self.auto_resume_due(game):
            self.resume(game_id)
            did.append("resumed (pause cap reached)")
        phase = self.open_phase(game_id)
        if phase is None or game.status != "running":
            return did
        reason = self.ready_to_adjudicate(game, phase)
        if reason:
            self._record(game, "adjudicate-ordered", {"phase_seq": phase.seq, "reason": reason})
            self._adjudicate(game, phase)
            did.append(f"adjudicated turn {phase.turn} phase {phase.name}: {reason}")
            return did
        times = deadlines.phase_times(phase.opened_at, game.settings)
        remind_at = phase.deadline - (times.deadline - times.remind_at) if phase.deadline else None
        if remind_at is not None and self.desk.now >= remind_at:
            for side, plotted in self.who_has_plotted(phase).items():
                if not plotted and side not in phase.reminded:
                    phase.reminded = [*phase.reminded, side]
                    if self.reporter is not None:
                        self.reporter.reminder(self, game, phase, side)
                    did.append(f"reminded {side}")
        return did

    def push_back_deadlines(self, last_alive: datetime) -> list[str]:
        """After an outage: deadlines that passed while down move by the downtime."""
        moved: list[str] = []
        for game_id in self.live_games():
            game = self.game(game_id)
            phase = self.open_phase(game_id)
            if phase is None or phase.deadline is None:
                continue
            new = deadlines.pushed_back(phase.deadline, last_alive, self.desk.now)
            if new is None and phase.grace_until is not None:
                new_grace = deadlines.pushed_back(phase.grace_until, last_alive, self.desk.now)
                if new_grace is None:
                    continue
            shift = self.desk.now - last_alive
            self._shift_deadlines(phase, shift)
            self._record(
                game,
                "deadline-pushed-back",
                {
                    "phase_seq": phase.seq,
                    "downtime_seconds": int(shift.total_seconds()),
                    "deadline": phase.deadline.isoformat() if phase.deadline else None,
                },
            )
            moved.append(game_id)
        return moved
