"""The outbox against a real SMTP conversation (issue 2): written to the database
first, then sent; temporary failures retried with exponential backoff; permanent
failures recorded; a resend after a crash carries the same Message-ID and bytes.

The SMTP server here is aiosmtpd on loopback, scripted to answer 451 or 550
before it accepts, so each failure class is a real SMTP reply.
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.config import IntakeConfig, OutboxConfig
from pbem.outbox.queue import enqueue
from pbem.service.daemon import Daemon
from pbem.storage.models import OutboundMail
from tests.e2e.helpers import ModeratorDesk, moderator_desk
from tests.maillab import MailLab, free_port

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class ScriptedSmtp:
    """Answers RCPT with the scripted replies in turn, then accepts and keeps the mail."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.received: list[bytes] = []
        self.attempts = 0

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        self.attempts += 1
        if self.script:
            return self.script.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.received.append(envelope.original_content or b"")
        return "250 OK queued"


@pytest.fixture
def smtp() -> Iterator[tuple[ScriptedSmtp, int]]:
    handler = ScriptedSmtp()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port, ready_timeout=10)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def desk(
    mail_lab: MailLab, database_url: str, tmp_path: Path, smtp: tuple[ScriptedSmtp, int]
) -> ModeratorDesk:
    desk = moderator_desk(mail_lab, database_url, tmp_path)
    # Intake from an (empty) Maildir: these tests are about the way out.
    desk.config = replace(
        desk.config,
        intake=IntakeConfig(transport="maildir", maildir=str(tmp_path / "inbox")),
        outbox=OutboxConfig(transport="smtp", retry_base=30.0, max_attempts=4),
        smtp=replace(desk.config.smtp, port=smtp[1]),
    )
    return desk


def queue_answer(desk: ModeratorDesk, cause: str = "digest-1") -> str:
    with desk.sessions.begin() as s:
        row = enqueue(
            s,
            desk.config,
            kind="answer",
            cause=("answer", cause),
            to="north@players.example",
            subject="Re: orders",
            text="Accepted (1)",
            now=T0,
            in_reply_to="<orders-1@players.example>",
        )
        return row.message_id


def outbound(desk: ModeratorDesk, message_id: str) -> OutboundMail:
    with desk.sessions() as s:
        row = s.query(OutboundMail).filter_by(message_id=message_id).one()
        s.expunge(row)
        return row


async def close(daemon: Daemon) -> None:
    await daemon.inbox.close()
    await daemon.sender.close()
    daemon.engine.dispose()


async def test_temporary_failures_are_retried_with_exponential_backoff(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    server.script = ["451 4.3.0 try again later"] * 2
    message_id = queue_answer(desk)
    clock = Clock()
    daemon = Daemon(desk.config, clock=clock)
    try:
        assert await daemon._outbox_round() == 0
        row = outbound(desk, message_id)
        assert (row.status, row.attempts) == ("pending", 1)
        assert "451" in row.last_error
        assert row.next_attempt_at == T0 + timedelta(seconds=30)

        clock.now = T0 + timedelta(seconds=29)
        assert await daemon._outbox_round() == 0
        assert server.attempts == 1  # not due yet: no attempt made

        clock.now = T0 + timedelta(seconds=30)
        assert await daemon._outbox_round() == 0
        row = outbound(desk, message_id)
        assert row.attempts == 2
        assert row.next_attempt_at == clock.now + timedelta(seconds=60)  # doubled

        clock.now += timedelta(seconds=60)
        assert await daemon._outbox_round() == 1
    finally:
        await close(daemon)
    row = outbound(desk, message_id)
    assert (row.status, row.attempts) == ("sent", 3)
    [raw] = server.received
    assert email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"] == message_id


async def test_temporary_failures_give_up_after_max_attempts(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    server.script = ["421 4.4.2 busy"] * 10
    message_id = queue_answer(desk)
    clock = Clock()
    daemon = Daemon(desk.config, clock=clock)
    try:
        for _ in range(6):
            await daemon._outbox_round()
            clock.now += timedelta(hours=1)
    finally:
        await close(daemon)
    row = outbound(desk, message_id)
    assert (row.status, row.attempts) == ("failed", 4)
    assert server.received == []


async def test_a_permanent_failure_is_recorded_and_never_retried(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    server.script = ["550 5.1.1 no such user"]
    message_id = queue_answer(desk)
    clock = Clock()
    daemon = Daemon(desk.config, clock=clock)
    try:
        await daemon._outbox_round()
        clock.now += timedelta(days=1)
        await daemon._outbox_round()
    finally:
        await close(daemon)
    row = outbound(desk, message_id)
    assert (row.status, row.attempts) == ("failed", 1)
    assert "550" in row.last_error and "no such user" in row.last_error
    assert server.attempts == 1 and server.received == []


async def test_a_resend_after_a_crash_carries_the_same_message_id_and_bytes(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    """Sent, then killed before "sent" was committed: the next daemon sends it again,
    recognisably the same mail."""
    server, _ = smtp
    message_id = queue_answer(desk)
    clock = Clock()
    first = Daemon(desk.config, clock=clock)

    def crash(row_ids: Sequence[int]) -> None:
        raise SystemExit("killed before the commit")

    first.worker.sent = crash  # type: ignore[method-assign]
    try:
        with pytest.raises(SystemExit):
            await first._outbox_round()
    finally:
        await close(first)
    assert outbound(desk, message_id).status == "pending"
    # The dead daemon's claim expires; then another daemon picks the mail up.
    clock.now += timedelta(minutes=10)
    second = Daemon(desk.config, clock=clock)
    try:
        assert await second._outbox_round() == 1
        assert await second._outbox_round() == 0  # and only once
    finally:
        await close(second)
    assert len(server.received) == 2
    assert server.received[0] == server.received[1]
    ids = {
        email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"]
        for raw in server.received
    }
    assert ids == {message_id}
    # Queuing the same cause again (a crash before the answer's commit) adds nothing.
    assert queue_answer(desk) == message_id
    with desk.sessions() as s:
        assert s.query(OutboundMail).count() == 1
