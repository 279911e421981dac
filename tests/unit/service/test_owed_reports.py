"""Reports rendered outside the tick's write transaction (issue 15): a tick notes
the reports its adjudication makes due and commits; the maps are drawn with no
transaction open; a short second transaction queues them and gives the game's
claim back. A daemon that stops in between leaves the note, and the game's next
tick sends exactly those reports. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, select, text, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.clock import Clock as GameClock
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher, Rendered, ReportsDue
from pbem.service import ticks
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import Game, OutboundMail, OwedReports, Report
from tests.unit.service.test_game_leases import Clock
from tests.unit.service.test_process_batch import _config

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)  # every deadline and grace period has passed


class Stopped(BaseException):
    """The daemon stops dead (SIGKILL) while it renders: no handler runs."""


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return _config(tmp_path)


def _coral_sea(url: str, config: Config) -> sessionmaker[Session]:
    """A U.S.N. Coral Sea game (a real map in every report) at its first set-up phase."""
    engine = make_engine(url, config.database)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), T0), Publisher())
        gm.acts.create_game("coral", "usn", "coral-sea")
        for side, mail in (("japanese", "yamamoto@example.org"), ("allied", "nimitz@example.org")):
            gm.acts.assign("coral", side, mail, public_key=generate_keypair(side)[1])
        gm.acts.start("coral")
    return sessions


def _reports(sessions: sessionmaker[Session]) -> list[tuple[Any, ...]]:
    with sessions() as s:
        return [
            (r.audience, r.subject, r.created_at, r.text, r.html, r.png)
            for r in s.scalars(
                select(Report).where(Report.phase_id.is_not(None)).order_by(Report.id)
            )
        ]


def _count(sessions: sessionmaker[Session], model: Any) -> int:
    with sessions() as s:
        return len(s.scalars(select(model)).all())


def _other_writer(url: str) -> Engine:
    return create_engine(url, **({"connect_args": {"timeout": 0}} if "sqlite" in url else {}))


def _write_at_once(other: Engine) -> None:
    """A write to the game's row that fails rather than wait for another transaction."""
    with other.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.execute(text("BEGIN"))
            conn.execute(text("SELECT id FROM games WHERE id = 'coral' FOR UPDATE NOWAIT"))
        conn.execute(update(Game).where(Game.id == "coral").values(options={"touched": True}))
        conn.execute(text("COMMIT"))


def test_the_probe_fails_inside_a_ticks_transaction(
    database_url: str, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: the same write, tried while the tick's transaction is open
    (as the reports were drawn before), cannot go ahead."""
    sessions = _coral_sea(database_url, config)
    other = _other_writer(database_url)
    real_tick = GameClock.tick
    refused: list[BaseException] = []

    def tick_and_probe(self: GameClock, game_id: str) -> list[str]:
        did = real_tick(self, game_id)
        self.desk.session.flush()
        try:
            _write_at_once(other)
        except OperationalError as exc:
            refused.append(exc)
        return did

    monkeypatch.setattr(GameClock, "tick", tick_and_probe)
    try:
        assert Worker(config, sessions, "daemon-1", Clock(LATER)).tick_some(["coral"])
        assert len(refused) == 1
    finally:
        other.dispose()
        sessions.kw["bind"].dispose()


def test_a_tick_draws_its_reports_with_no_write_transaction_open(
    database_url: str, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the reports are rendered another writer commits at once: on SQLite a
    ``BEGIN IMMEDIATE`` that may not wait a millisecond, on PostgreSQL a
    ``FOR UPDATE NOWAIT`` on the game's own row. Before, both waited for the tick."""
    sessions = _coral_sea(database_url, config)
    before = _count(sessions, Report)
    other = _other_writer(database_url)
    real = ticks.render_due
    written: list[str] = []

    def render_while_another_writes(cfg: Config, due: ReportsDue) -> list[Rendered]:
        _write_at_once(other)
        written.append(due.game_id)
        return real(cfg, due)

    monkeypatch.setattr(ticks, "render_due", render_while_another_writes)
    worker = Worker(config, sessions, "daemon-1", Clock(LATER))
    try:
        did = worker.tick_some(["coral"])
        assert did and "adjudicated turn 1 phase setup-J" in did[0]
        assert written == ["coral"]
        # Every seat's report queued, the note gone, the claim given back.
        assert _count(sessions, Report) == before + 2
        assert _count(sessions, OwedReports) == 0
        with sessions() as s:
            game = s.get_one(Game, "coral")
            assert (game.claim_owner, game.options) == (None, {"touched": True})
            assert (
                len(s.scalars(select(OutboundMail).where(OutboundMail.kind == "report")).all()) == 4
            )
    finally:
        other.dispose()
        sessions.kw["bind"].dispose()


def test_reports_a_stopped_daemon_left_noted_are_sent_by_the_next_tick(
    database_url: str, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon renders its tick's reports, then stops before queuing them: the
    adjudication stands, noted with its reports. When its claim lapses a peer's
    tick renders them from the note, the very reports the daemon had drawn, and
    queues each once; then it goes on with the game."""
    sessions = _coral_sea(database_url, config)
    before = _reports(sessions)
    real = ticks.render_due
    drawn: list[Rendered] = []

    def render_then_stop(cfg: Config, due: ReportsDue) -> list[Rendered]:
        drawn.extend(real(cfg, due))
        raise Stopped

    clock = Clock(LATER)
    stopped, peer = (Worker(config, sessions, f"daemon-{n}", clock) for n in (1, 2))
    monkeypatch.setattr(ticks, "render_due", render_then_stop)
    with pytest.raises(Stopped):
        stopped.tick_some(["coral"])
    monkeypatch.setattr(ticks, "render_due", real)
    try:
        assert len(drawn) == 2
        assert _reports(sessions) == before  # nothing queued...
        assert _count(sessions, OwedReports) == 1  # ...but noted with the adjudication
        # While the stopped daemon's claim runs the peer leaves the game alone.
        assert peer.tick_some(["coral"]) == []
        clock.now += timedelta(seconds=2 * config.database.lease_seconds)
        peer.heartbeat()
        with sessions() as s:  # the game is due for its owed reports alone
            assert GameMaster(
                Desk(s, config, config.secrets.key_bytes(), clock.now)
            ).clock.due_games(among={"coral"}) == ["coral"]
        did = peer.tick_some(["coral"])
        assert did[0] == "coral: sent the reports a stopped daemon left unsent"
        after = _reports(sessions)
        assert after[len(before) : len(before) + 2] == [
            (
                r.report.audience,
                r.report.subject,
                r.report.created_at,
                r.report.text,
                r.report.html,
                r.report.png,
            )
            for r in drawn
        ]
        with sessions() as s:
            ids = s.scalars(
                select(OutboundMail.message_id).where(OutboundMail.kind == "report")
            ).all()
        assert {r.mail.message_id for r in drawn} <= set(ids)
        assert len(ids) == len(set(ids))
        assert _count(sessions, OwedReports) == 0
    finally:
        sessions.kw["bind"].dispose()
