"""Time as the mailbox saw it (issue 14): lateness by delivery, not by fetch; IMAP
INTERNALDATE read with each message; a reconnect leaves no IDLE task behind."""

from __future__ import annotations

import asyncio
import gc
import imaplib
import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.mail.imap import ImapInbox
from pbem.record import journal
from pbem.service.daemon import Daemon
from pbem.storage.models import Plot
from tests.e2e.helpers import (
    ModeratorDesk,
    Player,
    answers,
    body_text,
    compose,
    delivered,
    moderator_desk,
    new_player,
    signed,
    submit,
    wait_until,
)
from tests.e2e.netcut import CuttableProxy
from tests.maillab import MailLab

FAST = (0.05, 0.1, 0.2)


def _imap_tasks() -> list[asyncio.Task[object]]:
    """aioimaplib's tasks still pending in this loop."""
    return [t for t in asyncio.all_tasks() if "aioimaplib" in repr(t)]


@pytest.fixture
def desk(mail_lab: MailLab, database_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, database_url, tmp_path)


@pytest.fixture
def players(mail_lab: MailLab, desk: ModeratorDesk) -> dict[str, Player]:
    found = {side: new_player(mail_lab, side) for side in ("north", "south")}
    desk.demo_game("g1", list(found.values()), early_adjudication=False)
    return found


async def test_orders_delivered_before_the_deadline_are_on_time_when_fetched_after_grace(
    mail_lab: MailLab, desk: ModeratorDesk, players: dict[str, Player]
) -> None:
    north = players["north"]
    orders = compose(north.address, desk.address, "orders", signed(north, "g1", ["SEND SQN-1 A"]))
    submit(mail_lab, orders)
    wait_until(lambda: mail_lab.count(desk.address) == 1, 15, "delivery into the mailbox")
    delivered_by = datetime.now(UTC)
    # The daemon fetches only after deadline (72 h) and grace (24 h) have passed: the
    # mailbox was out of reach, or the daemon down, meanwhile.
    later = delivered_by + timedelta(hours=97)
    daemon = Daemon(desk.config, clock=lambda: later)
    try:
        await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()

    [row] = desk.mails()
    assert row.outcome == "accepted 1, refused 0"
    assert row.received_at <= delivered_by  # the mailbox's time, not the fetch's
    with desk.sessions() as s:
        [plot] = s.scalars(select(Plot).where(Plot.side == "north"))
        assert not plot.late and plot.received_at == row.received_at
    [answer] = answers(delivered(mail_lab, north.address))
    text = body_text(answer)
    assert "Accepted (1)" in text and "after the deadline" not in text


async def test_fetch_gives_the_internaldate_of_each_message(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, password = mail_user
    appended = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=5)
    with imaplib.IMAP4("127.0.0.1", mail_lab.imap_port) as client:
        client.login(address, password)
        raw = b"From: a@pbem.test\r\nSubject: old\r\nMessage-ID: <old@pbem.test>\r\n\r\nhi\r\n"
        status, _ = client.append("INBOX", "", imaplib.Time2Internaldate(appended), raw)
        assert status == "OK"
    inbox = ImapInbox("127.0.0.1", mail_lab.imap_port, address, password, backoff=FAST)
    try:
        [message] = await inbox.fetch()
    finally:
        await inbox.close()
    assert message.delivered_at == appended


async def test_a_reconnect_leaves_no_idle_task_to_be_destroyed(
    mail_lab: MailLab, mail_user: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="asyncio")
    address, password = mail_user
    proxy = CuttableProxy(mail_lab.imap_port)
    await proxy.start()
    inbox = ImapInbox("127.0.0.1", proxy.port, address, password, backoff=FAST)
    try:
        await inbox.fetch()
        for _ in range(3):
            waiter = asyncio.create_task(inbox.wait_for_mail(timeout=60))
            # In IDLE: the server has acknowledged the command.
            while not (inbox._client is not None and inbox._client.has_pending_idle()):
                await asyncio.sleep(0.02)
            connections = inbox.connections
            await proxy.cut()  # the path breaks: no BYE, the IDLE never completes
            while inbox.unreachable_since is None:
                await asyncio.sleep(0.02)
            await proxy.restore()
            while inbox.connections == connections:
                await asyncio.sleep(0.02)
            assert inbox.unreachable_since is None
            waiter.cancel()
            await asyncio.gather(waiter, return_exceptions=True)
            # The broken session's IDLE task ended with it (left pending, it would be
            # "destroyed but pending" once collected), and so did the new one's.
            assert _imap_tasks() == []
    finally:
        await inbox.close()
        await proxy.close()
    assert _imap_tasks() == []
    gc.collect()
    await asyncio.sleep(0)
    destroyed = [r.getMessage() for r in caplog.records if "destroyed" in r.getMessage()]
    assert destroyed == []


async def test_an_idle_the_server_never_acknowledges_marks_the_mailbox_out_of_reach(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    """The path breaks the moment IDLE goes out, so the server's "+ idling" never
    comes (a packet filter's drop: no FIN, no reset). aioimaplib's idle_start has
    no timeout of its own; the wait must give up after the command timeout like any
    other command and report the mailbox out of reach, else a daemon renews its
    mailbox lease for ever and no peer takes the mailbox over (the partition test's
    fetcher that was never replaced)."""
    address, password = mail_user
    proxy = CuttableProxy(mail_lab.imap_port)
    await proxy.start()
    inbox = ImapInbox("127.0.0.1", proxy.port, address, password, backoff=FAST, command_timeout=1.0)
    waiter: asyncio.Task[None] | None = None
    try:
        await inbox.fetch()
        proxy.silence_on(b" IDLE\r\n")
        waiter = asyncio.create_task(inbox.wait_for_mail(timeout=600))
        await proxy.silenced.wait()

        async def out_of_reach() -> None:
            while inbox.unreachable_since is None:
                await asyncio.sleep(0.02)

        # Generous: the command timeout is 1 s; without one this waits for ever.
        await asyncio.wait_for(out_of_reach(), timeout=120)
    finally:
        if waiter is not None:
            waiter.cancel()
            await asyncio.gather(waiter, return_exceptions=True)
        await inbox.close()
        await proxy.close()
    assert _imap_tasks() == []


async def test_an_acknowledgement_lost_on_the_way_is_given_up_and_made_again(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    """The path breaks as UID MOVE goes out (aioimaplib gives it no timeout of its
    own): the inbox gives up after the command timeout, reports the mailbox out of
    reach, and once the path is back moves the message on a new session."""
    address, password = mail_user
    with imaplib.IMAP4("127.0.0.1", mail_lab.imap_port) as client:
        client.login(address, password)
        raw = b"From: a@pbem.test\r\nSubject: o\r\nMessage-ID: <ack@pbem.test>\r\n\r\nhi\r\n"
        assert client.append("INBOX", "", None, raw)[0] == "OK"
    proxy = CuttableProxy(mail_lab.imap_port)
    await proxy.start()
    inbox = ImapInbox("127.0.0.1", proxy.port, address, password, backoff=FAST, command_timeout=1.0)
    try:
        [message] = await inbox.fetch()
        proxy.silence_on(b"UID MOVE")
        moving = asyncio.create_task(inbox.acknowledge(message.ref))
        await proxy.silenced.wait()

        async def out_of_reach() -> None:
            while inbox.unreachable_since is None:
                await asyncio.sleep(0.02)

        # Generous bounds: the command timeout is 1 s; without one this waits for ever.
        await asyncio.wait_for(out_of_reach(), timeout=120)
        await proxy.restore()
        await asyncio.wait_for(moving, timeout=120)
    finally:
        await inbox.close()
        await proxy.close()
    assert mail_lab.count(address) == 0
    assert len(mail_lab.list_messages(address, "pbem-processed")) == 1


async def test_deadlines_wait_while_the_mailbox_is_out_of_reach_and_move_by_the_outage(
    mail_lab: MailLab, desk: ModeratorDesk, tmp_path: Path
) -> None:
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    proxy = CuttableProxy(mail_lab.imap_port)
    await proxy.start()
    config = replace(desk.config, imap=replace(desk.config.imap, port=proxy.port))
    with desk.sessions.begin() as s:
        gm = desk.gm(s)
        # The deadline falls a few seconds into the outage below; no grace.
        settings = {"deadline_hours": 12 / 3600, "grace_hours": 0, "early_adjudication": False}
        gm.acts.create_game("g1", "demo", "duel", settings=settings)
        for p in (north, south):
            gm.acts.assign("g1", p.side, p.address, public_key=p.public)
        gm.acts.start("g1")
        phase = gm.lookups.open_phase("g1")
        assert phase is not None and phase.deadline is not None
        first_deadline = phase.deadline
    daemon = Daemon(config)
    running = asyncio.create_task(daemon.run())
    try:
        while not (daemon.worker.pulse.beating() and daemon.inbox.connections):
            await asyncio.sleep(0.05)
        cut = datetime.now(UTC)
        await proxy.cut()
        while daemon.inbox.unreachable_since is None:
            await asyncio.sleep(0.05)
        # Dovecot itself is up: the orders reach the mailbox before the deadline.
        submit(
            mail_lab,
            compose(north.address, desk.address, "o", signed(north, "g1", ["SEND SQN-1 A"])),
        )
        wait_until(lambda: mail_lab.count(desk.address) == 1, 15, "delivery")
        assert datetime.now(UTC) < first_deadline
        while datetime.now(UTC) < first_deadline + timedelta(seconds=3):
            await asyncio.sleep(0.1)
        # Past the deadline, the mailbox still out of reach: the phase waits.
        with desk.sessions() as s:
            phase = desk.gm(s).lookups.open_phase("g1")
            assert phase is not None and phase.seq == 1 and phase.deadline == first_deadline
        restored = datetime.now(UTC)
        await proxy.restore()
        while not [r for r in desk.mails() if r.status == "answered"]:
            await asyncio.sleep(0.1)
        answered = datetime.now(UTC)
    finally:
        daemon.request_stop()
        await asyncio.wait_for(running, timeout=60)
        await proxy.close()
    [row] = desk.mails()
    assert row.outcome == "accepted 1, refused 0"
    with desk.sessions() as s:
        [pushed] = [
            e["payload"] for e in journal.entries(s, "g1") if e["kind"] == "deadline-pushed-back"
        ]
        [plot] = s.scalars(select(Plot).where(Plot.side == "north"))
        assert not plot.late
    # From the mailbox's last answer (at most the cut) to the first beat after it
    # answered again (after the restore): no heartbeat interval more.
    assert (restored - cut).total_seconds() - 1 <= pushed["downtime_seconds"]
    assert pushed["downtime_seconds"] <= (answered - cut).total_seconds() + 1
