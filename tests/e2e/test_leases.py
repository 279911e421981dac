"""Several daemons on one PostgreSQL (issue 19): leases, not guesses; the
database's clock; timeouts that bound what a stalled daemon costs the others."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import signal
import socket
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, text, update

from pbem.config import Config, DatabaseConfig, SecretsConfig
from pbem.core.errors import ConfigError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.clock import DatabaseClock, utcnow
from pbem.service.daemon import Daemon
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker, tcp_user_timeout
from pbem.storage.models import (
    DaemonLease,
    Game,
    InboundMail,
    MailboxLease,
    OutboundMail,
    Phase,
)
from tests.conftest import make_database
from tests.e2e.helpers import (
    DaemonProcess,
    ModeratorDesk,
    Player,
    compose,
    delivered,
    moderator_desk,
    new_player,
    signed,
    submit,
    wait_until,
)
from tests.maillab import MailLab

KEYS = {side: generate_keypair(side)[1] for side in ("north", "south")}


@pytest.fixture
def pg_url(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield from make_database("postgresql", tmp_path)


def _config(url: str, tmp_path: Path, **database: object) -> Config:
    return Config(
        database=DatabaseConfig(url=url, **database),  # type: ignore[arg-type]
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )


# --------------------------------------------------------------- timeouts


def test_every_postgresql_connection_has_timeouts_and_keepalives(pg_url, tmp_path) -> None:
    config = _config(pg_url, tmp_path, lock_timeout=3, statement_timeout=45.5)
    engine = make_engine(pg_url, config.database)
    try:
        with engine.connect() as conn:
            shown = {
                name: conn.execute(text(f"SHOW {name}")).scalar_one()
                for name in (
                    "lock_timeout",
                    "statement_timeout",
                    "idle_in_transaction_session_timeout",
                )
            }
            dbapi = conn.connection.dbapi_connection
            params = dbapi.info.get_parameters()  # type: ignore[union-attr]
            # Set on the socket itself, not only asked for.
            with socket.socket(fileno=os.dup(dbapi.pgconn.socket)) as sock:  # type: ignore[union-attr]
                user_timeout_ms = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT)
    finally:
        engine.dispose()
    assert shown == {
        "lock_timeout": "3s",
        "statement_timeout": "45500ms",
        "idle_in_transaction_session_timeout": "30s",
    }
    assert (params["keepalives"], params["keepalives_idle"]) == ("1", "10")
    assert (params["keepalives_interval"], params["keepalives_count"]) == ("5", "3")
    # A statement in flight on a silent link fails within interval x count (15 s),
    # under half the lease (60 s by default).
    assert params["tcp_user_timeout"] == "15000" and user_timeout_ms == 15000
    assert tcp_user_timeout(config.database) == 15.0


def test_the_tcp_user_timeout_stays_under_half_the_lease() -> None:
    """With a short lease the keepalives' 15 s would outlast it: capped at half."""
    assert tcp_user_timeout(DatabaseConfig(lease_seconds=60)) == 15.0
    short = DatabaseConfig(lease_seconds=10, lock_timeout=3, idle_in_transaction_timeout=6)
    assert tcp_user_timeout(short) == 5.0


def test_timeouts_longer_than_the_lease_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"idle_in_transaction_timeout \(30.0\) must be less"):
        DatabaseConfig(lease_seconds=20)


# ------------------------------------------------------------------ clock


async def test_a_daemon_with_a_skewed_clock_refuses_to_start(pg_url, tmp_path) -> None:
    config = _config(pg_url, tmp_path)
    create_all(make_engine(pg_url))
    daemon = Daemon(config, clock=lambda: utcnow() + timedelta(seconds=8))
    try:
        with pytest.raises(ConfigError) as refused:
            await daemon.run()
    finally:
        daemon.engine.dispose()
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("this host's clock is 8.0 s ahead of the database's")
    assert "[database] max_clock_skew" in message
    with daemon.worker.sessions() as s:  # it took no lease
        assert s.scalars(select(DaemonLease)).all() == []


async def test_a_daemon_within_the_bound_reads_the_database_clock(pg_url, tmp_path) -> None:
    """A host clock 3 s behind is within the default 5 s: the daemon starts; each
    transaction reads the database's time, and estimates outside one are corrected
    by the offset measured at start."""
    create_all(make_engine(pg_url))
    clock = DatabaseClock(host=lambda: utcnow() - timedelta(seconds=3))  # 3 s slow
    daemon = Daemon(_config(pg_url, tmp_path), clock=clock)
    try:
        await asyncio.to_thread(daemon._set_clock)
        with daemon.worker.sessions() as s:
            read = daemon.worker._now(s)
            then = s.scalar(select(func.statement_timestamp()))
        assert timedelta(0) <= then - read < timedelta(seconds=1)  # not 3 s apart
        with daemon.engine.connect() as conn:
            before = clock()
            db_now = conn.execute(text("SELECT now()")).scalar_one()
            after = clock()
    finally:
        daemon.engine.dispose()
    assert before - timedelta(seconds=0.5) <= db_now <= after + timedelta(seconds=0.5)


def test_a_skewed_host_clock_judges_deadlines_and_leases_as_the_database_does(
    pg_url, tmp_path
) -> None:
    """Two workers, one on a host clock 30 s fast, one right: both judge a grace
    period's end, their leases, claims and the clock's next wake by the database's
    time, to the same microsecond where they read it in one moment."""
    config = _config(pg_url, tmp_path)
    engine = make_engine(pg_url, config.database)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        db_now = s.scalar(select(func.statement_timestamp()))
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), db_now), Publisher())
        gm.acts.create_game("g1", "demo", "duel")
        for side in ("north", "south"):
            gm.acts.assign("g1", side, f"{side}@example.org", public_key=KEYS[side])
        gm.acts.start("g1")
    # The grace period ends 3 s from now (database time); no reminder is owed.
    with sessions.begin() as s:
        db_now = s.scalar(select(func.statement_timestamp()))
        grace_end = db_now + timedelta(seconds=3)
        s.execute(
            update(Phase)
            .where(Phase.game_id == "g1")
            .values(
                deadline=db_now + timedelta(seconds=2),
                grace_until=grace_end,
                remind_at=db_now,
                reminded=["north", "south"],
            )
        )
    fast = Worker(config, sessions, "fast", DatabaseClock(host=lambda: utcnow() + timedelta(30)))
    right = Worker(config, sessions, "right", DatabaseClock())
    try:
        for worker in (fast, right):
            worker.start_up()
            # Not due yet, though the fast host's clock is long past the grace end.
            assert worker.due_for_tick() == []
            assert worker.plan_wake() == db_now + timedelta(seconds=2)  # the deadline
        with sessions() as s:
            leases = dict(s.execute(select(DaemonLease.id, DaemonLease.lease_until)).all())
            read_at = s.scalar(select(func.statement_timestamp()))
        lease = timedelta(seconds=config.database.lease_seconds)
        for owner in ("fast", "right"):
            assert read_at - timedelta(seconds=5) < leases[owner] - lease <= read_at
        claim = fast.claim_games(["g1"])
        assert read_at < claim.until - lease <= read_at + timedelta(seconds=5)
        fast.release_games(["g1"])

        def past_grace() -> bool:
            with sessions() as s:
                return bool(s.scalar(select(func.statement_timestamp())) >= grace_end)

        wait_until(past_grace, 30, "the database's clock to pass the grace end")
        for worker in (fast, right):
            assert worker.due_for_tick() == ["g1"]
        assert [d.split(":")[0] for d in right.tick_some(["g1"])] == ["g1"]
    finally:
        engine.dispose()


# ------------------------------------------------------- a paused daemon


def _orders(lab: MailLab, desk: ModeratorDesk, players: list[Player], n: int) -> list[str]:
    sent = []
    for k in range(n):
        player = players[k % 2]
        msg = compose(
            player.address,
            desk.address,
            f"orders {k}",
            signed(player, "g1", [f"SEND SQN-{1 + k % 3} A"]),
        )
        submit(lab, msg)
        sent.append(str(msg["Message-ID"]))
    return sent


def _all_answered(desk: ModeratorDesk, n: int) -> bool:
    with desk.sessions() as s:
        statuses = list(s.scalars(select(InboundMail.status)))
        pending = list(s.scalars(select(OutboundMail.id).where(OutboundMail.status == "pending")))
    return len(statuses) == n and "new" not in statuses and not pending


def _fetcher(desk: ModeratorDesk) -> str | None:
    with desk.sessions() as s:
        return s.scalar(select(MailboxLease.owner))


@pytest.mark.slow
def test_a_daemon_paused_past_its_lease_is_taken_over_and_sends_nothing_twice(
    mail_lab: MailLab, pg_url: str, tmp_path: Path
) -> None:
    """SIGSTOP a daemon that fetches and answers: a second daemon takes the mailbox
    within one lease time and does all the work; woken, the first neither fetches
    nor sends what is no longer its own. Every order is answered once (the SMTP
    server's deliveries counted), filed once in the processed folder, and neither
    daemon logs an error."""
    desk = moderator_desk(mail_lab, pg_url, tmp_path)
    players = [new_player(mail_lab, side, prefix="lease") for side in ("north", "south")]
    desk.demo_game("g1", players, scenario="long-duel", early_adjudication=False)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = DaemonProcess(desk, tmp_path / "a"), DaemonProcess(desk, tmp_path / "b")
    sent: list[str] = []
    try:
        first.start()
        first.wait_ready()
        sent += _orders(mail_lab, desk, players, 3)
        wait_until(lambda: _all_answered(desk, 3), 60, "the first daemon to answer")
        paused_owner = _fetcher(desk)
        assert paused_owner is not None
        assert first.process is not None
        os.kill(first.process.pid, signal.SIGSTOP)
        try:
            second.start()
            second.wait_ready()
            sent += _orders(mail_lab, desk, players, 3)
            # Within one lease (15 s in these tests) and the time to do the work.
            wait_until(lambda: _all_answered(desk, 6), 90, "the second daemon to take over")
            assert _fetcher(desk) not in (None, paused_owner)
        finally:
            os.kill(first.process.pid, signal.SIGCONT)
        with desk.sessions() as s:
            woke_at = s.scalar(select(text("now()")))

        def renewed() -> bool:  # the woken daemon is at work again (its heartbeat)
            with desk.sessions() as s:
                row = s.get(DaemonLease, paused_owner)
                return row is not None and row.lease_until > woke_at + timedelta(seconds=10)

        wait_until(renewed, 60, "the woken daemon to beat again")
        sent += _orders(mail_lab, desk, players, 2)
        wait_until(lambda: _all_answered(desk, 8), 60, "both daemons to answer")
        assert _fetcher(desk) not in (None, paused_owner)  # it did not take the mailbox back
        assert first.stop() == 0 and second.stop() == 0
    finally:
        first.kill()
        second.kill()
    # Each order answered by exactly one delivered mail: nothing sent twice.
    replies = Counter(
        str(m["In-Reply-To"])
        for p in players
        for m in delivered(mail_lab, p.address)
        if m["In-Reply-To"] is not None
    )
    assert replies == Counter({m: 1 for m in sent})
    assert mail_lab.count(desk.address) == 0
    assert mail_lab.count(desk.address, "pbem-processed") == len(sent)
    for log in (first.log(), second.log()):
        assert "Traceback" not in log and "ERROR" not in log, log[-3000:]


# ------------------------------------------------- a stalled lock holder


def test_a_stalled_game_lock_stops_no_other_game_and_is_broken_in_time(
    pg_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A daemon stalled inside a transaction holding game g1's row lock (as when
    paused or cut off mid-tick): another daemon still adjudicates g2 and skips
    g1 without waiting (its claim picks rows FOR UPDATE SKIP LOCKED); the server
    ends the stalled session after idle_in_transaction_timeout, well within one
    lease; then g1 is adjudicated."""
    config = _config(
        pg_url, tmp_path, lease_seconds=10, lock_timeout=1, idle_in_transaction_timeout=2
    )
    engine = make_engine(pg_url, config.database)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), utcnow()), Publisher())
        for game in ("g1", "g2"):
            gm.acts.create_game(game, "demo", "duel")
            for side in ("north", "south"):
                gm.acts.assign(game, side, f"{side}-{game}@example.org", public_key=KEYS[side])
            gm.acts.start(game)
    later = utcnow() + timedelta(days=30)  # every deadline has passed
    worker = Worker(config, sessions, "peer", lambda: later)
    stalled = make_engine(pg_url, config.database).connect()
    try:
        stalled.begin()
        stalled.execute(text("SELECT id FROM games WHERE id = 'g1' FOR UPDATE"))
        stalled_pid = stalled.execute(text("SELECT pg_backend_pid()")).scalar_one()
        done = worker.tick_games()
        assert [d for d in done if d.startswith("g2:")] and not [
            d for d in done if d.startswith("g1:")
        ]
        # Skipped, not waited for: the claim picks rows FOR UPDATE SKIP LOCKED.
        assert "game g1 is locked by another daemon; ticked later" not in caplog.messages
        with sessions() as s:
            assert s.scalar(select(Game.claim_owner).where(Game.id == "g1")) is None
        assert not [r for r in caplog.records if r.levelname == "ERROR"]

        def broken() -> bool:
            with engine.connect() as conn:
                return not conn.execute(
                    text("SELECT 1 FROM pg_stat_activity WHERE pid = :pid"), {"pid": stalled_pid}
                ).all()

        wait_until(broken, config.database.lease_seconds, "the server to end the stalled session")
        assert [d for d in worker.tick_games() if d.startswith("g1:")]
    finally:
        with contextlib.suppress(Exception):
            stalled.close()
        stalled.engine.dispose()
        engine.dispose()
