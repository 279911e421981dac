"""Games held by leases (issue 19): the daemon (or worker process) that ticks a
game claims it first, ``FOR UPDATE SKIP LOCKED``, under its daemon's lease; the
tick commits only while the claim is still its own. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.clock import Clock as GameClock
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import PhaseStatus
from pbem.storage.models import Game, Phase
from tests.unit.service.test_process_batch import _config

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
KEYS = {side: generate_keypair(side)[1] for side in ("north", "south")}


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _games(url: str, config: Config, n: int) -> sessionmaker[Session]:
    engine = make_engine(url, config.database)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), T0), Publisher())
        for g in range(1, n + 1):
            gm.acts.create_game(f"g{g}", "demo", "duel")
            for side in ("north", "south"):
                gm.acts.assign(f"g{g}", side, f"{side}-{g}@example.org", public_key=KEYS[side])
            gm.acts.start(f"g{g}")
    return sessions


def _first_phase(sessions: sessionmaker[Session], game: str) -> PhaseStatus:
    with sessions() as s:
        status = s.scalars(select(Phase.status).where(Phase.game_id == game).order_by(Phase.id))
        return PhaseStatus(status.first())


def _open_phases(sessions: sessionmaker[Session], game: str) -> int:
    with sessions() as s:
        return len(
            s.scalars(
                select(Phase.id).where(Phase.game_id == game, Phase.status == PhaseStatus.OPEN)
            ).all()
        )


def _adjudicated(sessions: sessionmaker[Session], game: str) -> int:
    with sessions() as s:
        return len(
            s.scalars(
                select(Phase.id).where(
                    Phase.game_id == game, Phase.status == PhaseStatus.ADJUDICATED
                )
            ).all()
        )


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return _config(tmp_path)


def test_a_lapsed_game_lease_is_taken_over(database_url: str, config: Config) -> None:
    sessions = _games(database_url, config, 2)
    clock = Clock(T0 + timedelta(days=30))  # every deadline and grace period has passed
    stalled, peer = (Worker(config, sessions, f"daemon-{n}", clock) for n in (1, 2))
    try:
        held = stalled.claim_games(["g1"])  # ...and then it stalls (SIGSTOP)
        assert held.games == ["g1"]
        # The peer ticks the other game and leaves g1 alone while the lease runs.
        assert [d.split(":")[0] for d in peer.tick_games()] == ["g2"]
        assert _first_phase(sessions, "g1") == PhaseStatus.OPEN
        clock.now += timedelta(seconds=config.database.lease_seconds / 2)
        peer.heartbeat()
        assert peer.tick_games() == []
        # The stalled daemon's lease lapses (no heartbeat): the peer takes g1 over.
        clock.now += timedelta(seconds=config.database.lease_seconds)
        peer.heartbeat()
        assert [d.split(":")[0] for d in peer.tick_games()] == ["g1"]
        assert _first_phase(sessions, "g1") == PhaseStatus.ADJUDICATED
    finally:
        sessions.kw["bind"].dispose()


def test_a_stale_holders_tick_commits_nothing(
    database_url: str, config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    sessions = _games(database_url, config, 2)
    clock = Clock(T0 + timedelta(days=30))
    stalled, peer = (Worker(config, sessions, f"daemon-{n}", clock) for n in (1, 2))
    try:
        claim = stalled.claim_games(["g1", "g2"])
        clock.now += timedelta(seconds=2 * config.database.lease_seconds)
        peer.heartbeat()
        assert [d.split(":")[0] for d in peer.tick_some(["g1"])] == ["g1"]
        # Long after, the stalled daemon wakes with its old claim: by now g1's next
        # phase is due too, yet its tick commits nothing for g1 (a peer's now);
        # g2, which nobody took, is still its own to tick.
        clock.now += timedelta(days=30)
        stalled.heartbeat()
        did = stalled.tick_claimed(claim)
        assert [d.split(":")[0] for d in did] == ["g2"]
        assert _adjudicated(sessions, "g1") == 1 and _open_phases(sessions, "g1") == 1
        assert "lease on game g1 lost to another daemon; nothing committed" in caplog.messages
        with sessions() as s:  # every claim given back with its tick
            assert s.scalars(select(Game.claim_owner)).all() == [None, None]
    finally:
        sessions.kw["bind"].dispose()


def test_the_lease_is_checked_in_the_ticks_own_commit(database_url: str, config: Config) -> None:
    """The claim is read at the tick's start and given back by a conditional UPDATE
    in the tick's transaction: a claim found changed at the commit (as when a
    peer took it between the two) rolls the whole tick back."""
    sessions = _games(database_url, config, 1)
    worker = Worker(config, sessions, "daemon-1", Clock(T0 + timedelta(days=30)))
    real_tick = GameClock.tick

    def tick_then_taken_over(self: GameClock, game_id: str) -> list[str]:
        did = real_tick(self, game_id)
        self.desk.session.execute(
            update(Game).where(Game.id == game_id).values(claim_owner="daemon-2")
        )
        return did

    try:
        claim = worker.claim_games(["g1"])
        GameClock.tick = tick_then_taken_over  # type: ignore[method-assign]
        try:
            assert worker.tick_claimed(claim) == []
        finally:
            GameClock.tick = real_tick  # type: ignore[method-assign]
        assert _first_phase(sessions, "g1") == PhaseStatus.OPEN  # rolled back
        with sessions() as s:
            assert s.scalar(select(Game.claim_owner)) == "daemon-1"  # as before the tick
    finally:
        sessions.kw["bind"].dispose()


def test_two_workers_never_tick_one_game(database_url: str, config: Config) -> None:
    sessions = _games(database_url, config, 8)
    clock = Clock(T0 + timedelta(days=30))
    first, second = (Worker(config, sessions, f"daemon-{n}", clock) for n in (1, 2))
    games = [f"g{g}" for g in range(1, 9)]
    try:
        # A game claimed by one is skipped by the other, not waited for.
        claim = first.claim_games(games[:4])
        assert [d.split(":")[0] for d in second.tick_some(games)] == games[4:]
        assert [d.split(":")[0] for d in first.tick_claimed(claim)] == games[:4]
        # Both at once on the next round of every game: no tick of a game begins
        # while another tick of it runs.
        clock.now += timedelta(days=30)
        running: Counter[str] = Counter()
        overlaps: list[str] = []
        guard = threading.Lock()
        real_tick = GameClock.tick

        def watched(self: GameClock, game_id: str) -> list[str]:
            with guard:
                if running[game_id]:
                    overlaps.append(game_id)
                running[game_id] += 1
            try:
                return real_tick(self, game_id)
            finally:
                with guard:
                    running[game_id] -= 1

        GameClock.tick = watched  # type: ignore[method-assign]
        try:
            threads = [
                threading.Thread(target=w.tick_some, args=(order,))
                for w, order in ((first, games), (second, games[::-1]))
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
        finally:
            GameClock.tick = real_tick  # type: ignore[method-assign]
        assert overlaps == []
        assert {g: _adjudicated(sessions, g) for g in games} == {g: 2 for g in games}
    finally:
        sessions.kw["bind"].dispose()
