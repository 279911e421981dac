"""Issue 3's properties (hypothesis), on SQLite, each example in a fresh database.

- adjudication is deterministic: same state, orders and seed, same result;
- a sealed plot is unreadable in the database: no order text in its bytes, nor
  anywhere in the database files, until adjudication;
- the commitment in a receipt matches the plot revealed at adjudication;
- rollback then replay reproduces the same states, edits and all.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbem import rulesets
from pbem.config import Config, SecretsConfig
from pbem.core.dice import SeededDice
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.phases import Receipt
from pbem.record import journal
from pbem.record.chain import canonical_json, state_hash
from pbem.record.replay import replay
from pbem.rulesets.demo import SIDES, ZONES
from pbem.secrecy.plots import PlotContent, SealError, unseal
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import GameState, Plot

T = TypeVar("T")
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SQUADRONS = ("SQN-1", "SQN-2", "SQN-3")
RAID = rulesets.get("demo")

PROPERTY = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# One side's plot: each squadron sent at most once, to some zone.
plots = st.dictionaries(st.sampled_from(SQUADRONS), st.sampled_from(ZONES), max_size=3).map(
    lambda d: [f"SEND {sq} {zone}" for sq, zone in sorted(d.items())]
)
turn_orders = st.fixed_dictionaries({side: plots for side in SIDES})


class Bench:
    """A game machine over a fresh SQLite file; no reporter (reports are not the point)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.engine = make_engine(f"sqlite:///{folder / 'pbem.sqlite3'}")
        create_all(self.engine)
        self.sessions: sessionmaker[Session] = make_sessionmaker(self.engine)
        self.config = Config(
            secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
            base_dir=folder,
        )
        self.key = self.config.secrets.key_bytes()
        self.now = T0

    def run(self, fn: Callable[[GameMaster], T]) -> T:
        with self.sessions.begin() as s:
            return fn(GameMaster(Desk(s, self.config, self.key, self.now), None))

    def new_game(self, scenario: str = "long-duel") -> None:
        from pbem.intake.signatures import generate_keypair

        def setup(gm: GameMaster) -> None:
            gm.acts.create_game("g1", "demo", scenario)
            for side in SIDES:
                gm.acts.assign("g1", side, f"{side}@example.org", public_key=generate_keypair()[1])
            gm.acts.start("g1")

        self.run(setup)

    def entries(self) -> list[dict[str, Any]]:
        return self.run(lambda gm: journal.entries(gm.desk.session, "g1"))

    def submit(self, side: str, turn: int, orders: list[str]) -> Receipt:
        return self.run(lambda gm: gm.phases.submit("g1", side, turn, "plot", orders))

    def play(self, turn: int, orders: dict[str, list[str]]) -> None:
        for side in SIDES:
            self.submit(side, turn, orders[side])
        self.run(lambda gm: gm.phases.adjudicate_now("g1"))
        self.now += timedelta(minutes=1)

    def edit(self, pointer: str, value: int) -> None:
        self.run(lambda gm: gm.corrections.edit_state("g1", pointer, value))

    def rollback(self, turn: int, replot: bool) -> None:
        self.run(lambda gm: gm.corrections.rollback("g1", turn, "plot", replot=replot))

    def result_of(self, seq: int) -> str:
        return self.run(lambda gm: _result_of(gm, seq))


@contextmanager
def bench() -> Iterator[Bench]:
    with tempfile.TemporaryDirectory(prefix="pbem-prop-") as folder:
        b = Bench(Path(folder))
        try:
            yield b
        finally:
            b.engine.dispose()


# ------------------------------------------------------------------ determinism


@PROPERTY
@given(
    orders=turn_orders,
    seed=st.binary(min_size=32, max_size=32),
    game=st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True),
    scores=st.tuples(st.integers(0, 9), st.integers(0, 9)),
)
def test_adjudication_is_deterministic(orders, seed, game, scores):
    state = dict(RAID.initial_state("duel", {}))
    state["score"] = dict(zip(SIDES, scores, strict=True))
    runs = []
    for _ in range(2):
        dice = SeededDice(seed, game, 1, "plot")
        result = RAID.adjudicate(state, orders, dice)
        runs.append(
            (
                canonical_json(dict(result.state)),
                canonical_json([e.to_json() for e in result.events]),
                list(dice.rolls),
            )
        )
    assert runs[0] == runs[1]
    assert state["score"] == dict(zip(SIDES, scores, strict=True))  # the input is untouched


# ------------------------------------------------------------------ sealed plots

marker = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=6, max_size=20)


@PROPERTY
@given(words=st.lists(marker, min_size=1, max_size=4, unique=True))
def test_sealed_plot_is_unreadable_in_the_database(words):
    # Arbitrary order text (the machine seals what the ruleset accepted, whatever it is).
    orders = [f"SEND Z{w}" for w in words]
    with bench() as b:
        b.new_game()
        receipt = b.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", orders))
        b.engine.dispose()  # close connections: everything is in the files now
        plot = b.run(lambda gm: gm.desk.session.scalars(select(Plot)).one())
        stored = b"".join(p.read_bytes() for p in b.folder.iterdir() if p.is_file())
        for w in words:
            needle = f"Z{w}".encode()
            assert needle not in plot.sealed
            assert needle not in stored, "an order is readable in the database files"
        # Yet the plot is there, opens with the configured key only, and is the one receipted.
        content = PlotContent.from_canonical(
            unseal(b.key, plot.sealed, game="g1", phase_id=plot.phase_id, side="north")
        )
        assert list(content.orders) == orders and content.commitment() == receipt.commitment
        with pytest.raises(SealError):
            unseal(os.urandom(32), plot.sealed, game="g1", phase_id=plot.phase_id, side="north")
        # Nor may it be moved to another side's row.
        with pytest.raises(SealError):
            unseal(b.key, plot.sealed, game="g1", phase_id=plot.phase_id, side="south")


# ------------------------------------------------------------------ commitments


@PROPERTY
@given(
    sets=st.fixed_dictionaries({side: st.lists(plots, min_size=1, max_size=3) for side in SIDES})
)
def test_commitment_in_receipt_matches_revealed_plot(sets):
    with bench() as b:
        b.new_game()
        receipts: dict[str, list[str]] = {}
        for side in SIDES:
            for orders in sets[side]:
                receipts.setdefault(side, []).append(b.submit(side, 1, orders).commitment)
        b.run(lambda gm: gm.phases.adjudicate_now("g1"))
        revealed = next(e for e in b.entries() if e["kind"] == "phase-adjudicated")["payload"]
        for side in SIDES:
            plot = revealed["plots"][side]
            # The last set sent is the one used, and its receipt is what was revealed.
            assert plot["orders"] == sets[side][-1]
            assert plot["commitment"] == receipts[side][-1]
            content = PlotContent("g1", side, 1, "plot", tuple(plot["orders"]), plot["nonce"])
            assert content.commitment() == receipts[side][-1]
            # An earlier set's receipt (even for the same orders: a new nonce) is not it.
            assert plot["commitment"] not in receipts[side][:-1]


# ------------------------------------------------------------------ rollback and replay

actions = st.lists(
    st.one_of(
        st.tuples(st.just("play"), turn_orders),
        st.tuples(
            st.just("edit"),
            st.tuples(st.sampled_from(SIDES), st.sampled_from(SQUADRONS), st.integers(0, 9)),
        ),
        st.tuples(st.just("rollback"), st.tuples(st.integers(0, 20), st.booleans())),
    ),
    min_size=1,
    max_size=8,
)


def _stored_line(gm: GameMaster) -> list[tuple[int, str, str | None]]:
    """Each phase of the line of play: seq, hash of its stored state, its result hash."""
    out = []
    for phase in gm.lookups.line_of_play("g1"):
        cached = gm.desk.session.get(GameState, phase.id)
        assert cached is not None
        out.append((phase.seq, state_hash(cached.state), phase.result_hash))
    return out


@PROPERTY
@given(script=actions)
def test_rollback_then_replay_reproduces_the_same_states(script):
    with bench() as b:
        b.new_game()
        results: dict[int, str] = {}  # seq -> result hash, for phases re-run unchanged
        for action, arg in script:
            phase = b.run(lambda gm: gm.lookups.open_phase("g1"))
            assert phase is not None
            if action == "play":
                b.play(phase.turn, arg)
                results.setdefault(phase.seq, b.result_of(phase.seq))
            elif action == "edit":
                side, squadron, strength = arg
                pointer = f"/forces/{side}/{squadron}"
                b.edit(pointer, strength)
                results = {s: h for s, h in results.items() if s < phase.seq}
            else:
                index, replot = arg
                line = b.run(lambda gm: [(p.turn, p.seq) for p in gm.lookups.line_of_play("g1")])
                turn, seq = line[index % len(line)]
                b.rollback(turn, replot)
                rolled = [e for e in b.entries() if e["kind"] == "rolled-back"][-1]
                if replot:
                    results = {s: h for s, h in results.items() if s < seq}
                    # The rollback holds the game; RESUME lets the sides plot.
                    b.run(lambda gm: gm.corrections.release(gm.lookups.game("g1")))
                else:
                    b.run(lambda gm: gm.phases.adjudicate_now("g1"))
                    again = b.result_of(seq)
                    if rolled["payload"]["fresh_seed"]:
                        # A side had sent no orders, so it could have: a new seed.
                        results = {s: h for s, h in results.items() if s < seq}
                    # Same orders, same seed: adjudicated again, the same result.
                    assert results.setdefault(seq, again) == again
                    results = {s: h for s, h in results.items() if s <= seq}
        report = replay(RAID, "g1", "long-duel", {}, b.entries())
        assert report.problems == []
        # Every phase of the line of play starts from the state replay computes
        # (replay itself compares every result with the record's).
        for seq, stored, _result in b.run(_stored_line):
            assert state_hash(report.states[seq]) == stored


def _result_of(gm: GameMaster, seq: int) -> str:
    phase = next(p for p in gm.lookups.line_of_play("g1") if p.seq == seq)
    assert phase.result_hash is not None
    return phase.result_hash
