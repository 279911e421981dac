"""Answers first (issue 15): the answer to an order mail is committed and sent
before the adjudication its arrival triggers, so a player's answer comes as
fast whether or not his mail closed the round; a kill in between still
adjudicates (the next daemon's clock tick)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select

from pbem.config import Config, DatabaseConfig
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.mail.base import InboundMessage
from pbem.service import sending
from pbem.service.daemon import Daemon
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import OutboundKind, PhaseStatus
from pbem.storage.models import OutboundMail, Phase
from tests.unit.service.test_process_batch import KEYS, _config, _orders

PLAYERS = {f"{side}@example.org" for side in KEYS}


def _setup(database_url: str, tmp_path: Path) -> Config:
    """One demo game, early adjudication on (the default): the second order mail
    closes the round."""
    config = _config(tmp_path)
    config = dataclasses.replace(
        config,
        database=DatabaseConfig(url=database_url),
        intake=dataclasses.replace(config.intake, workers=1, rate_limit=10_000),
    )
    engine = make_engine(database_url)
    create_all(engine)
    with make_sessionmaker(engine).begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher())
        gm.acts.create_game("g1", "demo", "long-duel")
        for side, (_, public) in KEYS.items():
            gm.acts.assign("g1", side, f"{side}@example.org", public_key=public)
        gm.acts.start("g1")
    engine.dispose()
    return config


class _Sender:
    """Accepts every mail; says when both players have had one."""

    def __init__(self) -> None:
        self.to: list[str] = []
        self.answered = threading.Event()

    async def send(self, sender: str, recipients: Sequence[str], raw: bytes) -> None:
        self.to.extend(recipients)
        if set(self.to) >= PLAYERS:
            self.answered.set()

    async def close(self) -> None:
        pass


def _first_phase(daemon: Daemon) -> PhaseStatus:
    with daemon.worker.sessions() as s:
        first = s.scalars(select(Phase.status).where(Phase.game_id == "g1").order_by(Phase.id))
        return PhaseStatus(first.first())


def _kinds(daemon: Daemon) -> list[OutboundKind]:
    with daemon.worker.sessions() as s:
        return sorted(s.scalars(select(OutboundMail.kind)))


def test_the_answers_go_out_before_the_round_they_close_is_adjudicated(
    database_url, tmp_path, monkeypatch
):
    # The outbox sends when it is woken: no timed poll may stand in for the wakeup.
    monkeypatch.setattr(sending, "OUTBOX_POLL", 3600.0)
    config = _setup(database_url, tmp_path)
    sender = _Sender()
    daemon = Daemon(config, sender=sender)
    daemon.worker.file_many(
        [("n", _orders("north", ["SEND SQN-1 A"])), ("s", _orders("south", ["SEND SQN-1 B"]))]
    )
    started = _kinds(daemon).count(OutboundKind.REPORT)  # the reports START sent
    real_tick = daemon.worker.due_for_tick
    at_tick: dict[str, object] = {}

    def tick(everything: bool = True) -> list[str]:
        # The event, not a delay: both answers reach the server while the round
        # the second mail closed is still open (without answers first: no answer
        # is sent before the tick ends, and this wait fails).
        at_tick["answered"] = sender.answered.wait(60)
        at_tick["phase"] = _first_phase(daemon)
        at_tick["reports"] = _kinds(daemon).count(OutboundKind.REPORT)
        return real_tick(everything)

    daemon.worker.due_for_tick = tick  # type: ignore[method-assign]

    async def main() -> None:
        idle = asyncio.Event()
        first_round = daemon.outbox.round

        async def outbox_round() -> int:
            sent = await first_round()
            idle.set()
            return sent

        daemon.outbox.round = outbox_round  # type: ignore[method-assign]
        outbox = asyncio.create_task(daemon.outbox.loop())
        # The outbox has sent what was due (START's reports) and waits to be woken.
        await idle.wait()
        sender.to.clear()  # from now on: the answers
        sender.answered.clear()
        try:
            await asyncio.wait_for(daemon.processing.round(), timeout=120)
        finally:
            daemon.request_stop()
            await outbox

    try:
        asyncio.run(main())
    finally:
        daemon.engine.dispose()
    assert at_tick == {"answered": True, "phase": PhaseStatus.OPEN, "reports": started}
    # Then the adjudication: the round is closed and each side's report queued.
    assert _first_phase(daemon) == PhaseStatus.ADJUDICATED
    assert _kinds(daemon).count(OutboundKind.REPORT) >= started + 2


def test_a_kill_between_answer_and_adjudication_still_adjudicates(database_url, tmp_path):
    config = _setup(database_url, tmp_path)
    first = Daemon(config, sender=_Sender())
    first.worker.file_many(
        [("n", _orders("north", ["SEND SQN-1 A"])), ("s", _orders("south", ["SEND SQN-1 B"]))]
    )
    # The mails are answered; the daemon dies before its clock ticks.
    asyncio.run(first.processing.round(tick=False))
    first.engine.dispose()
    assert _first_phase(first) == PhaseStatus.OPEN
    started = _kinds(first).count(OutboundKind.REPORT)
    # The next daemon's first tick finds the round with all orders in.
    later = Daemon(config, sender=_Sender())
    try:
        later.worker.start_up()
        later.worker.tick_games(everything=False)
    finally:
        later.engine.dispose()
    assert _first_phase(later) == PhaseStatus.ADJUDICATED
    assert _kinds(later).count(OutboundKind.REPORT) >= started + 2


class _SlowAckInbox:
    """Hands out one order mail; its acknowledgement waits until released (a
    server slow to answer the UID MOVE)."""

    def __init__(self, raw: bytes) -> None:
        self.raw: bytes | None = raw
        self.release = asyncio.Event()
        self.acknowledged: list[str] = []
        self.unreachable_since: datetime | None = None

    async def fetch(self, limit: int = 100) -> list[InboundMessage]:
        raw, self.raw = self.raw, None
        return [] if raw is None else [InboundMessage(ref="1:1", raw=raw)]

    async def acknowledge(self, ref: str) -> None:
        await self.release.wait()
        self.acknowledged.append(ref)

    async def acknowledge_many(self, refs: Sequence[str]) -> None:
        for ref in refs:
            await self.acknowledge(ref)

    async def wait_for_mail(self, timeout: float) -> None:
        await asyncio.sleep(0)

    async def close(self) -> None:
        pass


def test_a_mail_is_answered_while_the_server_is_still_told_it_was_fetched(database_url, tmp_path):
    # Answers first: processing starts once the mail is committed; the IMAP
    # acknowledgement's round trip is not on the answer's way.
    config = _setup(database_url, tmp_path)
    inbox = _SlowAckInbox(_orders("north", ["SEND SQN-1 A"]))
    daemon = Daemon(config, inbox=inbox, sender=_Sender())

    async def main() -> list[OutboundKind]:
        intake = asyncio.create_task(daemon.fetcher.round())
        try:
            async with asyncio.timeout(120):
                await daemon.fetcher.mail_filed.wait()  # the event, not a delay
            await daemon.processing.round(tick=False)
            kinds = await asyncio.to_thread(_kinds, daemon)
            assert inbox.acknowledged == []  # still waiting for the server
        finally:
            inbox.release.set()
        assert await asyncio.wait_for(intake, timeout=120)
        assert inbox.acknowledged == ["1:1"]
        return kinds

    try:
        kinds = asyncio.run(main())
    finally:
        daemon.engine.dispose()
    assert OutboundKind.ANSWER in kinds
