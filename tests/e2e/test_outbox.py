"""The outbox against a real SMTP conversation (issues 2, 14, 19): written to the
database first, then sent over a pool of connections; each mail marked sent by its
own commit the moment the server accepts it; temporary failures retried with a
capped exponential backoff while the game lives; permanent failures recorded, told
to the moderator, listed and resent; a resend after a crash carries the same
Message-ID and bytes; two daemons on one database send each mail once.

The SMTP server here is aiosmtpd on loopback, scripted to answer 4xx or 5xx
before it accepts, so each failure class is a real SMTP reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
from collections.abc import Collection, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from pbem.config import IntakeConfig, OutboxConfig
from pbem.core.errors import LifecycleError
from pbem.lifecycle import moderator
from pbem.mail.base import PermanentMailError
from pbem.mail.smtp import SmtpSender
from pbem.outbox.queue import Outgoing, enqueue
from pbem.service.daemon import Daemon
from pbem.service.leases import CLAIM_SECONDS
from pbem.storage.models import OutboundMail, RecordEntry
from tests.e2e.helpers import ModeratorDesk, moderator_desk, new_player
from tests.e2e.netcut import CuttableProxy
from tests.maillab import MailLab, free_port

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
WIDE = "jdöe@mächine.example"  # a real-world address with non-ASCII on both sides of the @


class ScriptedSmtp:
    """Answers RCPT with the scripted replies in turn (or ``refuse``'s reply for an
    address), then accepts and keeps the mail."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.refuse: dict[str, str] = {}
        self.received: list[bytes] = []
        self.envelopes: list[tuple[list[str], list[str]]] = []  # (RCPT TOs, MAIL options)
        self.attempts = 0
        # The pool test: DATA waits until this many sessions are in DATA at once.
        self.gather = 0
        self.in_data = 0
        self.most_in_data = 0
        self._all_in: asyncio.Event | None = None

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        self.attempts += 1
        if address in self.refuse:
            return self.refuse[address]
        if self.script:
            return self.script.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.gather:
            self._all_in = self._all_in or asyncio.Event()
            self.in_data += 1
            self.most_in_data = max(self.most_in_data, self.in_data)
            if self.in_data >= self.gather:
                self._all_in.set()
            # The timeout only keeps a failing test from hanging; the assertion is on
            # most_in_data.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._all_in.wait(), timeout=20)
            self.in_data -= 1
        self.received.append(envelope.original_content or b"")
        self.envelopes.append((list(envelope.rcpt_tos), list(envelope.mail_options)))
        return "250 OK queued"


def serve(handler: ScriptedSmtp, **smtp_options: object) -> Iterator[tuple[ScriptedSmtp, int]]:
    port = free_port()
    controller = Controller(
        handler, hostname="127.0.0.1", port=port, ready_timeout=10, **smtp_options
    )
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


@pytest.fixture
def smtp() -> Iterator[tuple[ScriptedSmtp, int]]:
    """A server without SMTPUTF8 (aiosmtpd's Controller offers it unless told not to)."""
    yield from serve(ScriptedSmtp(), enable_SMTPUTF8=False)


class Killed(Exception):
    """A kill -9 at this point: nothing after it runs (the daemon is not told)."""


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
        outbox=OutboxConfig(transport="smtp", retry_base=30.0, retry_cap=120.0),
        smtp=replace(desk.config.smtp, port=smtp[1]),
    )
    return desk


def queue_answer(
    desk: ModeratorDesk, cause: str = "digest-1", to: str = "north@players.example"
) -> str:
    with desk.sessions.begin() as s:
        row = enqueue(
            s,
            desk.config,
            Outgoing(
                kind="answer",
                cause=("answer", cause),
                to=to,
                subject="Re: orders",
                text="Accepted (1)",
                in_reply_to="<orders-1@players.example>",
            ),
            T0,
        )
        return row.message_id


def outbound(desk: ModeratorDesk, message_id: str) -> OutboundMail:
    with desk.sessions() as s:
        row = s.query(OutboundMail).filter_by(message_id=message_id).one()
        s.expunge(row)
        return row


def message_ids(server: ScriptedSmtp) -> list[str]:
    return [
        str(email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"])
        for raw in server.received
    ]


def record(desk: ModeratorDesk, game_id: str) -> list[RecordEntry]:
    with desk.sessions() as s:
        rows = list(
            s.scalars(
                select(RecordEntry).where(RecordEntry.game_id == game_id).order_by(RecordEntry.seq)
            )
        )
        s.expunge_all()
        return rows


def mod(desk: ModeratorDesk, line: str, now: datetime = T0) -> str:
    with desk.sessions.begin() as s:
        return moderator.execute(desk.gm(s, now), line)


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
        assert await daemon.outbox.round() == 0
        row = outbound(desk, message_id)
        assert (row.status, row.attempts) == ("pending", 1)
        assert "451" in row.last_error
        assert row.next_attempt_at == T0 + timedelta(seconds=30)

        clock.now = T0 + timedelta(seconds=29)
        assert await daemon.outbox.round() == 0
        assert server.attempts == 1  # not due yet: no attempt made

        clock.now = T0 + timedelta(seconds=30)
        assert await daemon.outbox.round() == 0
        row = outbound(desk, message_id)
        assert row.attempts == 2
        assert row.next_attempt_at == clock.now + timedelta(seconds=60)  # doubled

        clock.now += timedelta(seconds=60)
        assert await daemon.outbox.round() == 1
    finally:
        await close(daemon)
    row = outbound(desk, message_id)
    assert (row.status, row.attempts) == ("sent", 3)
    [raw] = server.received
    assert email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"] == message_id


async def test_a_permanent_failure_is_recorded_and_never_retried(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    server.script = ["550 5.1.1 no such user"]
    message_id = queue_answer(desk)
    clock = Clock()
    daemon = Daemon(desk.config, clock=clock)
    try:
        await daemon.outbox.round()
        clock.now += timedelta(days=1)
        await daemon.outbox.round()
    finally:
        await close(daemon)
    row = outbound(desk, message_id)
    assert (row.status, row.attempts) == ("failed", 1)
    assert "550" in row.last_error and "no such user" in row.last_error
    # One try of the answer; the other RCPT is the moderator's notice, delivered.
    assert server.attempts == 2
    assert [rcpts for rcpts, _ in server.envelopes] == [[desk.config.moderator.human]]


async def test_a_resend_after_a_crash_carries_the_same_message_id_and_bytes(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    """Sent, then killed before "sent" was committed, and the sent journal lost too
    (a power cut before the kernel wrote it; or the next daemon on another host,
    which cannot read it): the next daemon sends it again, recognisably the same
    mail."""
    server, _ = smtp
    message_id = queue_answer(desk)
    clock = Clock()
    first = Daemon(desk.config, clock=clock)

    def crash(row_ids: Collection[int]) -> set[int]:
        raise Killed("before the commit")

    first.worker.sent = crash  # type: ignore[method-assign]
    try:
        with pytest.raises(Killed):
            await first.outbox.round()
    finally:
        await close(first)
    assert outbound(desk, message_id).status == "pending"
    journal = desk.config.sent_journal()
    assert journal is not None and message_id in journal.read_text()
    journal.unlink()
    # The dead daemon's claim expires; then another daemon picks the mail up.
    clock.now += timedelta(minutes=10)
    second = Daemon(desk.config, clock=clock)
    try:
        assert await second.outbox.round() == 1
        assert await second.outbox.round() == 0  # and only once
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


def digests(server: ScriptedSmtp, desk: ModeratorDesk) -> list[str]:
    """The failed-mail digests the SMTP server took, in order: their text."""
    told = [email.message_from_bytes(raw, policy=email.policy.default) for raw in server.received]
    return [
        m.get_body().get_content()  # type: ignore[union-attr]
        for m in told
        if m["To"] == desk.config.moderator.human and "could not be sent" in m["Subject"]
    ]


def named(digest: str) -> set[int]:
    return {int(line.split()[2]) for line in digest.splitlines() if line.startswith("- mail ")}


async def test_every_failed_mail_is_in_an_hourly_digest_with_or_without_a_game(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int], mail_lab: MailLab
) -> None:
    """A game's report refused: told at once. An answer to a stranger (no game)
    refused in the same hour: not lost, but in the next hour's digest, which the
    outbox queues by itself. One digest an hour at most, none untold, none twice."""
    server, _ = smtp
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    server.refuse = {
        "gone@players.example": "550 5.1.1 no such user",
        south.address: "550 5.2.1 mailbox disabled",
    }
    desk.demo_game("g1", [north, south])  # its opening reports: south's is refused
    clock = Clock()
    clock.now = max(m.created_at for m in desk.outgoing()).replace(tzinfo=UTC)
    # The next hour's start: the reports are due, and the hour has an hour to run.
    clock.now = clock.now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    daemon = Daemon(desk.config, clock=clock)
    try:
        await daemon.outbox.round()  # refused; the hour's digest, sent in the same round
        [report] = [
            m for m in desk.outgoing() if m.kind == "report" and m.recipient == south.address
        ]
        assert report.status == "failed"
        assert [named(d) for d in digests(server, desk)] == [{report.id}]

        clock.now += timedelta(minutes=20)  # the same hour
        stranger = queue_answer(desk, "d2", to="gone@players.example")
        await daemon.outbox.round()
        assert outbound(desk, stranger).status == "failed"
        assert len(digests(server, desk)) == 1  # the hour's digest is out: it waits

        clock.now += timedelta(hours=1)
        await daemon.outbox.round()  # the outbox looks: a digest is due, and queued
        await daemon.outbox.round()  # and sent
        clock.now += timedelta(hours=1)
        await daemon.outbox.round()  # nothing failed since: no digest
    finally:
        await close(daemon)
    first, second = digests(server, desk)
    assert f"mail {report.id} (report of game g1) to {south.address}: " in first
    assert "550 5.2.1 mailbox disabled" in first and "RESEND-MAIL" in first
    failed = outbound(desk, stranger).id
    assert named(second) == {failed}
    assert f"mail {failed} (answer of no game) to gone@players.example: " in second
    assert "550 5.1.1 no such user" in second
    notices = [m for m in desk.outgoing() if m.kind == "notice"]
    assert [(n.game_id, n.status) for n in notices] == [("g1", "sent"), (None, "sent")]
    listing = mod(desk, "FAILED")
    assert f"mail {report.id}:" in listing and f"mail {failed}:" in listing


async def test_temporary_failures_are_retried_past_the_old_limit_while_the_game_lives(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int], mail_lab: MailLab
) -> None:
    """An SMTP outage of many hours: the opening reports wait at the capped interval
    and go out when the server is back (max_attempts used to drop them after ~1 h)."""
    server, _ = smtp
    players = [new_player(mail_lab, "north"), new_player(mail_lab, "south")]
    desk.demo_game("g1", players)
    reports = [m for m in desk.outgoing() if m.kind == "report"]
    assert len(reports) >= 2
    server.script = ["421 4.4.2 busy"] * 10_000
    clock = Clock()
    clock.now = max(m.created_at for m in reports).replace(tzinfo=UTC)
    daemon = Daemon(desk.config, clock=clock)
    try:
        for _ in range(14):  # 30, 60, 120, 120 ... s: far past the old 8 attempts
            await daemon.outbox.round()
            clock.now += timedelta(seconds=120)
        rows = [outbound(desk, m.message_id) for m in reports]
        assert {r.status for r in rows} == {"pending"}
        assert min(r.attempts for r in rows) >= 12
        assert {r.next_attempt_at.replace(tzinfo=UTC) - clock.now for r in rows} == {
            timedelta(0)
        }  # the cap: 120 s after the last try, which was 120 s ago
        server.script = []
        assert await daemon.outbox.round() == len(reports)
    finally:
        await close(daemon)
    assert {outbound(desk, m.message_id).status for m in reports} == {"sent"}


async def test_mail_of_no_game_is_retried_for_the_window_then_failed_and_told(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    desk.config = replace(desk.config, outbox=replace(desk.config.outbox, retry_window_hours=0.1))
    server.script = ["451 4.3.0 try again later"] * 10_000
    message_id = queue_answer(desk)
    clock = Clock()
    daemon = Daemon(desk.config, clock=clock)
    try:
        # Backoff 30, 60, 120, 120: 330 s waited after the 5th try, 450 s after the 6th,
        # past the window's 360 s: the 6th failure is the last.
        for attempt in range(1, 7):
            row = outbound(desk, message_id)
            assert (row.status, row.attempts) == ("pending", attempt - 1)
            clock.now = row.next_attempt_at.replace(tzinfo=UTC)
            await daemon.outbox.round()
    finally:
        await close(daemon)
    row = outbound(desk, message_id)
    assert (row.status, row.attempts) == ("failed", 6)
    assert "0.1 h of retries" in row.last_error and "451" in row.last_error
    [notice] = [m for m in desk.outgoing() if m.kind == "notice"]
    assert notice.recipient == desk.config.moderator.human
    assert server.received == []  # the notice waits for the server like any mail


async def test_a_refused_report_is_recorded_shown_listed_and_resent(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int], mail_lab: MailLab
) -> None:
    server, _ = smtp
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    desk.demo_game("g1", [north, south])
    reports = {m.recipient: m for m in desk.outgoing() if m.kind == "report"}
    queued = [e for e in record(desk, "g1") if e.kind == "report-queued"]
    assert {e.payload["message_id"] for e in queued} == {m.message_id for m in reports.values()}
    assert not [e for e in record(desk, "g1") if e.kind in ("report-sent", "report-delivered")]
    server.refuse = {south.address: "550 5.2.1 mailbox disabled"}
    clock = Clock()
    clock.now = max(m.created_at for m in reports.values()).replace(tzinfo=UTC)
    daemon = Daemon(desk.config, clock=clock)
    try:
        await daemon.outbox.round()
        refused = outbound(desk, reports[south.address].message_id)
        assert refused.status == "failed"
        [notice] = [m for m in desk.outgoing() if m.kind == "notice"]
        assert (notice.status, notice.game_id) == ("sent", "g1")
        entries = record(desk, "g1")
        delivered = {e.payload["message_id"] for e in entries if e.kind == "report-delivered"}
        assert delivered == {m.message_id for a, m in reports.items() if a != south.address}
        [failed] = [e.payload for e in entries if e.kind == "report-failed"]
        assert failed["message_id"] == refused.message_id and failed["to"] == south.address
        assert "550 5.2.1 mailbox disabled" in failed["reason"]

        assert "1 mail(s) failed to send (FAILED g1)" in mod(desk, "STATUS g1")
        assert f"mail {refused.id}: report of g1 to {south.address}" in mod(desk, "FAILED g1")
        assert mod(desk, "FAILED nosuchgame") == "no failed mail in nosuchgame"
        with pytest.raises(LifecycleError, match="no failed mail 99999"):
            mod(desk, f"RESEND-MAIL {refused.id} 99999")
        with pytest.raises(LifecycleError, match="usage: RESEND-MAIL"):
            mod(desk, "RESEND-MAIL g1")

        server.refuse = {}  # the player mended the mailbox
        assert mod(desk, f"RESEND-MAIL {refused.id}", clock.now) == (
            f"mail {refused.id} queued to be sent again"
        )
        again = outbound(desk, refused.message_id)
        assert (again.status, again.attempts, again.last_error) == ("pending", 0, "")
        assert await daemon.outbox.round() == 1  # the notice went out in the first round
    finally:
        await close(daemon)
    # Sent at the first try since RESEND-MAIL: no old error next to "sent".
    sent = outbound(desk, refused.message_id)
    assert (sent.status, sent.attempts, sent.last_error) == ("sent", 1, "")
    assert "failed to send" not in mod(desk, "STATUS g1")
    entries = record(desk, "g1")
    assert refused.message_id in {
        e.payload["message_id"] for e in entries if e.kind == "report-delivered"
    }


async def test_a_non_ascii_address_is_refused_precisely_and_the_next_mail_goes_out(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    """Issue 14: the encoding error left MAIL FROM open and the next mail got 503."""
    server, _ = smtp
    wide = queue_answer(desk, "d1", to=WIDE)
    plain = queue_answer(desk, "d2")
    clock = Clock()
    daemon = Daemon(
        replace(desk.config, smtp=replace(desk.config.smtp, connections=1)), clock=clock
    )
    try:
        assert await daemon.outbox.round() == 2  # the plain answer, the moderator's notice
    finally:
        await close(daemon)
    row = outbound(desk, wide)
    assert (row.status, row.attempts) == ("failed", 1)
    assert "not ASCII" in row.last_error and "SMTPUTF8" in row.last_error
    assert outbound(desk, plain).status == "sent"
    [notice] = [m for m in desk.outgoing() if m.kind == "notice"]
    assert message_ids(server) == [plain, notice.message_id]


async def test_after_every_kind_of_error_the_next_mail_goes_out(
    smtp: tuple[ScriptedSmtp, int],
) -> None:
    """One connection: a refused RCPT, an address that cannot be encoded, a refused
    sender, each followed by an ordinary mail on the same sender."""
    server, port = smtp
    sender = SmtpSender("127.0.0.1", port, timeout=10)
    raw = b"Subject: x\r\nMessage-ID: <x@pbem.example>\r\n\r\nhi\r\n"
    try:
        server.refuse = {"gone@players.example": "550 5.1.1 no such user"}
        with pytest.raises(PermanentMailError, match="no such user"):
            await sender.send("mod@pbem.example", ["gone@players.example"], raw)
        await sender.send("mod@pbem.example", ["north@players.example"], raw)
        with pytest.raises(PermanentMailError, match="SMTPUTF8"):
            await sender.send("mod@pbem.example", [WIDE], raw)
        await sender.send("mod@pbem.example", ["north@players.example"], raw)
        with pytest.raises(PermanentMailError):
            await sender.send("mod@pbem.example", ["not an address <"], raw)
        await sender.send("mod@pbem.example", ["north@players.example"], raw)
    finally:
        await sender.close()
    assert [rcpts for rcpts, _ in server.envelopes] == [["north@players.example"]] * 3


@pytest.fixture
def smtputf8() -> Iterator[tuple[ScriptedSmtp, int]]:
    yield from serve(ScriptedSmtp(), enable_SMTPUTF8=True)


async def test_a_non_ascii_address_is_delivered_where_the_server_offers_smtputf8(
    desk: ModeratorDesk, smtputf8: tuple[ScriptedSmtp, int]
) -> None:
    server, port = smtputf8
    config = replace(desk.config, smtp=replace(desk.config.smtp, port=port, connections=1))
    wide = queue_answer(desk, "d1", to=WIDE)
    plain = queue_answer(desk, "d2")
    daemon = Daemon(config, clock=Clock())
    try:
        assert await daemon.outbox.round() == 2
    finally:
        await close(daemon)
    assert {outbound(desk, m).status for m in (wide, plain)} == {"sent"}
    assert message_ids(server) == [wide, plain]
    (wide_rcpts, wide_options), (plain_rcpts, plain_options) = server.envelopes
    assert wide_rcpts == [WIDE] and "SMTPUTF8" in wide_options
    assert plain_rcpts == ["north@players.example"] and "SMTPUTF8" not in plain_options


@pytest.mark.parametrize("journal", ["kept", "lost"])
async def test_a_kill_after_the_servers_250_sends_nothing_again(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int], journal: str
) -> None:
    """Each mail is written down in the sent journal the moment the server's 250
    arrives, then marked sent by a commit (with the other connections' mails
    accepted meanwhile; here one connection): killed between the 250 for the
    third mail and its commit, the next daemon marks the third sent from the
    journal and sends the other two, each mail once. Without the journal (lost
    in a power cut; a peer on another host) it sends the one in flight again,
    no other."""
    server, _ = smtp
    ids = [queue_answer(desk, f"d{n}") for n in range(5)]
    config = replace(desk.config, smtp=replace(desk.config.smtp, connections=1))
    clock = Clock()
    first = Daemon(config, clock=clock)
    marked = first.worker.sent

    def killed_at_the_third(row_ids: Collection[int]) -> set[int]:
        if outbound(desk, ids[2]).id in row_ids:
            raise Killed("after the 250, before the commit")
        return marked(row_ids)

    first.worker.sent = killed_at_the_third  # type: ignore[method-assign]
    try:
        with pytest.raises(Killed):
            await first.outbox.round()
    finally:
        await close(first)
    assert [outbound(desk, m).status for m in ids] == ["sent", "sent"] + ["pending"] * 3
    sent_journal = config.sent_journal()
    assert sent_journal is not None
    if journal == "lost":
        sent_journal.unlink()
    clock.now += timedelta(seconds=CLAIM_SECONDS + 1)  # the dead daemon's lease runs out
    second = Daemon(config, clock=clock)
    try:
        assert await second.outbox.round() == (2 if journal == "kept" else 3)
    finally:
        await close(second)
    if journal == "kept":
        assert message_ids(server) == ids
    else:
        assert message_ids(server) == ids[:3] + ids[2:]  # the one in flight, twice
    assert {outbound(desk, m).status for m in ids} == {"sent"}


async def test_two_daemons_on_one_database_send_each_mail_once(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    """Issue 19: the claim did not require status pending, so mail a peer had just
    sent was claimed and sent again. Two daemons drain one outbox side by side."""
    server, _ = smtp
    ids = {queue_answer(desk, f"d{n}") for n in range(150)}
    clock = Clock()
    daemons = [Daemon(desk.config, clock=clock) for _ in range(2)]
    try:
        sent = await asyncio.gather(*(d.outbox.round() for d in daemons))
        assert sum(sent) == 150
    finally:
        for daemon in daemons:
            await close(daemon)
    received = message_ids(server)
    assert len(received) == len(set(received)) == 150 and set(received) == ids
    assert {m.status for m in desk.outgoing()} == {"sent"}


async def test_a_daemon_stalled_past_its_lease_sends_nothing(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    ids = [queue_answer(desk, f"d{n}") for n in range(3)]
    clock = Clock()
    stalled, peer = Daemon(desk.config, clock=clock), Daemon(desk.config, clock=clock)
    try:
        batch = await asyncio.to_thread(stalled.worker.due_outgoing)
        assert len(batch.mails) == 3
        assert await peer.outbox.round() == 0  # claimed: the peer leaves them alone
        clock.now += timedelta(seconds=CLAIM_SECONDS + 1)  # stalled past its lease
        assert await peer.outbox.round() == 3
        assert await stalled.outbox.send_batch(batch) == 0  # wakes up: its lease is gone
    finally:
        await close(stalled)
        await close(peer)
    assert sorted(message_ids(server)) == sorted(ids)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_daemon_cut_off_from_postgresql_mid_batch_sends_nothing_twice(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int], database_url: str
) -> None:
    """Issue 19, a partition: a daemon holding a claimed batch loses its path to
    PostgreSQL (a proxy cut, no FIN). Its lease runs out unrenewed; a peer takes
    the batch over and sends it. Cut off, the first sends nothing (the claim is
    checked in the database once its lease is half gone); back, it finds the
    mails its peer's."""
    server, _ = smtp
    ids = [queue_answer(desk, f"d{n}") for n in range(4)]
    proxy = CuttableProxy(5432)
    await proxy.start()
    through = desk.config.database.url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    assert through != desk.config.database.url
    clock = Clock()
    cut_off = Daemon(
        replace(desk.config, database=replace(desk.config.database, url=through)), clock=clock
    )
    peer = Daemon(desk.config, clock=clock)
    try:
        batch = await asyncio.to_thread(cut_off.worker.due_outgoing)
        assert len(batch.mails) == 4
        await proxy.cut()
        assert await peer.outbox.round() == 0  # its lease still runs: left alone
        clock.now += timedelta(seconds=desk.config.database.lease_seconds + 1)
        assert await peer.outbox.round() == 4  # unrenewed, the lease lapsed: taken over
        with pytest.raises(OperationalError):
            await cut_off.outbox.send_batch(batch)  # cannot check its claim: sends nothing
        await proxy.restore()
        assert await cut_off.outbox.send_batch(batch) == 0  # back: the mails are its peer's
    finally:
        await close(cut_off)
        await close(peer)
        await proxy.close()
    assert sorted(message_ids(server)) == sorted(ids)
    assert {outbound(desk, m).status for m in ids} == {"sent"}


async def test_the_pool_has_several_mails_in_flight_at_once(
    desk: ModeratorDesk, smtp: tuple[ScriptedSmtp, int]
) -> None:
    server, _ = smtp
    server.gather = 4  # DATA answers only once four sessions are in DATA together
    ids = [queue_answer(desk, f"d{n}") for n in range(8)]
    daemon = Daemon(
        replace(desk.config, smtp=replace(desk.config.smtp, connections=4)), clock=Clock()
    )
    try:
        assert await daemon.outbox.round() == 8
    finally:
        await close(daemon)
    assert server.most_in_data == 4
    assert sorted(message_ids(server)) == sorted(ids)
