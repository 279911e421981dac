"""Transports against real servers: aiosmtpd → LMTP → Dovecot, read back over IMAP."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator

import pytest

from pbem.core.errors import TransportError
from pbem.mail.base import Inbox, MailSender, PermanentMailError, TemporaryMailError
from pbem.mail.imap import ImapInbox
from pbem.mail.smtp import SmtpSender
from tests.maillab import MailLab, free_port

MODERATOR = "moderator@pbem.test"
FAST = (0.05, 0.1, 0.2)  # backoff for tests: reconnects within a fraction of a second


def order_mail(to: str, text: str = "MOVE TF-16 from 2214 to 2415") -> bytes:
    # A "From " line and a leading dot exercise mbox-escaping and dot-stuffing.
    return (
        f"From: {MODERATOR}\nTo: {to}\nSubject: Turn 3 orders\nMessage-ID: <{text!r}@pbem.test>\n"
        f"\n{text}\nFrom here on, silence.\n.end of orders\n"
    ).encode()


def as_stored(fetched: bytes) -> bytes:
    """Fetched bytes with LF line endings and without the trace header LMTP adds."""
    lf = fetched.replace(b"\r\n", b"\n")
    if lf.startswith(b"Return-Path: "):
        lf = lf.split(b"\n", 1)[1]
    return lf


def inbox_for(lab: MailLab, user: tuple[str, str], **kwargs: object) -> ImapInbox:
    address, password = user
    options: dict[str, object] = {"backoff": FAST, "poll_interval": 0.2, "command_timeout": 10.0}
    options.update(kwargs)
    return ImapInbox("127.0.0.1", lab.imap_port, address, password, **options)  # type: ignore[arg-type]


@pytest.fixture
async def smtp(mail_lab: MailLab) -> AsyncIterator[SmtpSender]:
    sender = SmtpSender("127.0.0.1", mail_lab.smtp_port, timeout=10)
    yield sender
    await sender.close()


@pytest.fixture
def restart_guard(mail_lab: MailLab) -> Iterator[MailLab]:
    """For tests that stop Dovecot: it is running again afterwards, whatever happens."""
    yield mail_lab
    mail_lab.start_imap()


async def test_protocols_are_satisfied(mail_lab: MailLab, mail_user: tuple[str, str]) -> None:
    inbox = inbox_for(mail_lab, mail_user)
    assert isinstance(inbox, Inbox)
    assert isinstance(SmtpSender("127.0.0.1", 1), MailSender)
    await inbox.close()


async def test_smtp_to_imap_round_trip_is_byte_exact(
    mail_lab: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    address, _ = mail_user
    raw = order_mail(address)
    await smtp.send(MODERATOR, [address], raw)
    inbox = inbox_for(mail_lab, mail_user)
    try:
        [message] = await inbox.fetch()
    finally:
        await inbox.close()
    assert b"\r\n" in message.raw  # IMAP speaks CRLF
    assert as_stored(message.raw) == raw
    assert message.ref.split(":")[1] == "1"


async def test_fetch_marks_nothing_seen(mail_lab: MailLab, mail_user: tuple[str, str]) -> None:
    address, _ = mail_user
    mail_lab.inject(address, order_mail(address))
    inbox = inbox_for(mail_lab, mail_user)
    await inbox.fetch()
    await inbox.close()
    out = mail_lab._doveadm("search", "-u", address, "mailbox", "INBOX", "SEEN")
    assert out.strip() == ""


async def test_acknowledge_moves_to_processed_folder(
    mail_lab: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    address, _ = mail_user
    for n in range(3):
        await smtp.send(MODERATOR, [address], order_mail(address, f"order {n}"))
    inbox = inbox_for(mail_lab, mail_user)
    try:
        messages = await inbox.fetch()
        assert [as_stored(m.raw) for m in messages] == [
            order_mail(address, f"order {n}") for n in range(3)
        ]
        await inbox.acknowledge(messages[1].ref)
        await inbox.acknowledge(messages[1].ref)  # twice is harmless
        assert mail_lab.count(address, "INBOX") == 2
        assert mail_lab.count(address, "pbem-processed") == 1
        assert [as_stored(m) for m in mail_lab.list_messages(address, "pbem-processed")] == [
            order_mail(address, "order 1")
        ]
        rest = await inbox.fetch()
        assert [m.ref for m in rest] == [messages[0].ref, messages[2].ref]
    finally:
        await inbox.close()


async def test_unacknowledged_message_is_fetched_again_after_reconnect(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    mail_lab.inject(address, order_mail(address))
    first = inbox_for(mail_lab, mail_user)
    [before] = await first.fetch()
    await first.close()  # the daemon "crashed" before committing
    second = inbox_for(mail_lab, mail_user)
    try:
        [after] = await second.fetch()
        assert after == before
        await second.acknowledge(after.ref)
        assert await second.fetch() == []
    finally:
        await second.close()
    assert mail_lab.count(address, "INBOX") == 0
    assert mail_lab.count(address, "pbem-processed") == 1


async def test_acknowledge_deletes_without_processed_folder(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    mail_lab.inject(address, order_mail(address))
    inbox = inbox_for(mail_lab, mail_user, processed_folder=None)
    try:
        [message] = await inbox.fetch()
        await inbox.acknowledge(message.ref)
        assert await inbox.fetch() == []
    finally:
        await inbox.close()
    assert mail_lab.count(address, "INBOX") == 0
    assert mail_lab.count(address, "pbem-processed") == 0


async def test_stale_uidvalidity_is_not_acknowledged(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    mail_lab.inject(address, order_mail(address))
    inbox = inbox_for(mail_lab, mail_user)
    try:
        [message] = await inbox.fetch()
        uid = message.ref.split(":")[1]
        await inbox.acknowledge(f"1:{uid}")  # another UID space: must not touch the mail
        assert mail_lab.count(address, "INBOX") == 1
        with pytest.raises(TransportError):
            await inbox.acknowledge("garbage")
    finally:
        await inbox.close()


async def test_fetch_respects_limit(mail_lab: MailLab, mail_user: tuple[str, str]) -> None:
    address, _ = mail_user
    for n in range(5):
        mail_lab.inject(address, order_mail(address, f"order {n}"))
    inbox = inbox_for(mail_lab, mail_user)
    try:
        got = await inbox.fetch(limit=2)
        assert [as_stored(m.raw) for m in got] == [
            order_mail(address, f"order {n}") for n in (0, 1)
        ]
        # Unreturned mail is still waiting: wait_for_mail returns at once.
        await asyncio.wait_for(inbox.wait_for_mail(timeout=30), timeout=10)
    finally:
        await inbox.close()


async def test_idle_wakes_wait_for_mail_on_delivery(
    mail_lab: MailLab,
    mail_user: tuple[str, str],
    smtp: SmtpSender,
    caplog: pytest.LogCaptureFixture,
) -> None:
    address, _ = mail_user
    inbox = inbox_for(mail_lab, mail_user, poll_interval=3600.0)  # polling could not wake it
    caplog.set_level(logging.INFO, logger="pbem.mail.imap")
    try:
        assert await inbox.fetch() == []
        waiter = asyncio.create_task(inbox.wait_for_mail(timeout=60))
        await asyncio.sleep(0.3)
        assert not waiter.done()
        await smtp.send(MODERATOR, [address], order_mail(address))
        # Dovecot notifies IDLE clients about 0.5 s after delivery; 60 s is the fallback.
        await asyncio.wait_for(waiter, timeout=10)
        assert any("IDLE: new mail" in r.getMessage() for r in caplog.records)
        assert len(await inbox.fetch()) == 1
    finally:
        await inbox.close()


async def test_fetch_from_another_task_interrupts_idle(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    inbox = inbox_for(mail_lab, mail_user)
    try:
        await inbox.fetch()
        waiter = asyncio.create_task(inbox.wait_for_mail(timeout=60))
        await asyncio.sleep(0.3)
        assert not waiter.done()
        mail_lab.inject(address, order_mail(address))
        # The session is busy in IDLE; fetch must not wait for IDLE's 60 s to pass.
        got = await asyncio.wait_for(inbox.fetch(), timeout=10)
        assert waiter.done()
        assert len(got) == 1
        await asyncio.wait_for(inbox.acknowledge(got[0].ref), timeout=10)
    finally:
        await inbox.close()


async def test_close_interrupts_idle(mail_lab: MailLab, mail_user: tuple[str, str]) -> None:
    inbox = inbox_for(mail_lab, mail_user)
    await inbox.fetch()
    waiter = asyncio.create_task(inbox.wait_for_mail(timeout=60))
    await asyncio.sleep(0.3)
    await asyncio.wait_for(inbox.close(), timeout=10)
    await asyncio.wait_for(waiter, timeout=10)  # returned, did not wait out its 60 s
    with pytest.raises(TransportError):
        await inbox.fetch()


async def test_reconnects_after_dovecot_restart(
    restart_guard: MailLab, mail_user: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    lab = restart_guard
    address, _ = mail_user
    caplog.set_level(logging.INFO, logger="pbem.mail.imap")
    inbox = inbox_for(lab, mail_user)
    try:
        assert await inbox.fetch() == []
        assert inbox.connections == 1
        lab.stop_imap()
        pending = asyncio.create_task(inbox.fetch())
        await asyncio.sleep(0.5)  # several failed reconnects meanwhile
        assert not pending.done()  # fetch does not raise while the server is away
        lab.start_imap()
        lab.inject(address, order_mail(address))
        got = await asyncio.wait_for(pending, timeout=15)
        if not got:  # it may have reconnected just before the injection
            got = await inbox.fetch()
        assert [as_stored(m.raw) for m in got] == [order_mail(address)]
        assert inbox.connections == 2
        assert any("reconnecting in" in r.getMessage() for r in caplog.records)
    finally:
        await inbox.close()


async def test_idle_survives_dovecot_restart(
    restart_guard: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    lab = restart_guard
    address, _ = mail_user
    inbox = inbox_for(lab, mail_user)
    try:
        await inbox.fetch()
        waiter = asyncio.create_task(inbox.wait_for_mail(timeout=60))
        await asyncio.sleep(0.3)
        lab.stop_imap()
        await asyncio.sleep(0.3)
        assert not waiter.done()
        lab.start_imap()
        await asyncio.sleep(0.5)  # let it reconnect and re-enter IDLE
        await smtp.send(MODERATOR, [address], order_mail(address))
        await asyncio.wait_for(waiter, timeout=15)
        assert inbox.connections == 2
        assert len(await inbox.fetch()) == 1
    finally:
        await inbox.close()


async def test_bad_password_retries_until_closed(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    inbox = inbox_for(mail_lab, (address, "wrong"))
    pending = asyncio.create_task(inbox.fetch())
    await asyncio.sleep(0.5)
    assert not pending.done()  # retries with backoff instead of raising
    await inbox.close()
    with pytest.raises(TransportError):
        await asyncio.wait_for(pending, timeout=10)
    assert inbox.connections == 0


# -- a server without IDLE and MOVE ------------------------------------------------


@pytest.fixture(scope="module")
def plain_lab() -> Iterator[MailLab]:
    # Post-login capabilities without IDLE and MOVE: exercises polling and COPY+EXPUNGE.
    lab = MailLab(extra_config="imap_capability = IMAP4rev1 LITERAL+ UIDPLUS")
    try:
        yield lab
    finally:
        lab.close()


async def test_polling_fallback_and_copy_acknowledge_without_idle_or_move(
    plain_lab: MailLab, caplog: pytest.LogCaptureFixture
) -> None:
    address = plain_lab.add_user("polly", "pw")
    caplog.set_level(logging.INFO, logger="pbem.mail.imap")
    inbox = inbox_for(plain_lab, (address, "pw"), poll_interval=0.1)
    try:
        assert await inbox.fetch() == []
        assert any("IDLE no, MOVE no" in r.getMessage() for r in caplog.records)
        waiter = asyncio.create_task(inbox.wait_for_mail(timeout=60))
        await asyncio.sleep(0.3)
        assert not waiter.done()
        plain_lab.inject(address, order_mail(address))
        await asyncio.wait_for(waiter, timeout=10)
        [message] = await inbox.fetch()
        await inbox.acknowledge(message.ref)
        assert await inbox.fetch() == []
    finally:
        await inbox.close()
    assert plain_lab.count(address, "INBOX") == 0
    assert plain_lab.count(address, "pbem-processed") == 1


# -- SMTP error mapping ---------------------------------------------------------------


async def test_smtp_foreign_domain_is_permanent(smtp: SmtpSender) -> None:
    with pytest.raises(PermanentMailError) as caught:
        await smtp.send(MODERATOR, ["someone@elsewhere.test"], order_mail("someone@elsewhere.test"))
    assert caught.value.code == 550
    assert set(caught.value.refused) == {"someone@elsewhere.test"}
    assert caught.value.delivered_to == ()


async def test_smtp_partial_refusal_reports_delivered(
    mail_lab: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    address, _ = mail_user
    with pytest.raises(PermanentMailError) as caught:
        await smtp.send(MODERATOR, [address, "x@elsewhere.test"], order_mail(address))
    assert caught.value.delivered_to == (address,)
    assert mail_lab.count(address) == 1
    # The connection is still usable afterwards.
    await smtp.send(MODERATOR, [address], order_mail(address, "second"))
    assert mail_lab.count(address) == 2


async def test_smtp_connection_refused_is_temporary() -> None:
    sender = SmtpSender("127.0.0.1", free_port(), timeout=5)
    with pytest.raises(TemporaryMailError) as caught:
        await sender.send(MODERATOR, ["a@pbem.test"], b"Subject: x\n\nx\n")
    assert caught.value.code is None
    await sender.close()


async def test_smtp_lmtp_down_is_temporary(
    restart_guard: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    address, _ = mail_user
    restart_guard.stop_imap()  # LMTP goes with it: the relay answers 451
    with pytest.raises(TemporaryMailError) as caught:
        await smtp.send(MODERATOR, [address], order_mail(address))
    assert caught.value.code == 451
    restart_guard.start_imap()
    await smtp.send(MODERATOR, [address], order_mail(address))
    assert restart_guard.count(address) == 1


async def test_smtp_reconnects_after_server_restart(
    mail_lab: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    address, _ = mail_user
    await smtp.send(MODERATOR, [address], order_mail(address, "one"))
    mail_lab.stop_smtp()
    try:
        # The kept connection is dead and a new one is refused: temporary.
        with pytest.raises(TemporaryMailError):
            await smtp.send(MODERATOR, [address], order_mail(address, "lost"))
    finally:
        mail_lab.start_smtp()
    await smtp.send(MODERATOR, [address], order_mail(address, "two"))
    stored = [as_stored(m) for m in mail_lab.list_messages(address)]
    assert stored == [order_mail(address, "one"), order_mail(address, "two")]


async def test_acknowledge_refused_by_server_raises(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    mail_lab.inject(address, order_mail(address))
    # Dovecot cannot create a folder with so long a name, so MOVE into it is refused.
    inbox = inbox_for(mail_lab, mail_user, processed_folder="p" * 300)
    try:
        [message] = await inbox.fetch()
        with pytest.raises(TransportError, match="MOVE refused"):
            await inbox.acknowledge(message.ref)
        assert [m.ref for m in await inbox.fetch()] == [message.ref]  # still there
    finally:
        await inbox.close()
    assert mail_lab.count(address) == 1


# -- TLS ------------------------------------------------------------------------------


async def test_imap_over_tls(
    mail_lab: MailLab, mail_user: tuple[str, str], smtp: SmtpSender
) -> None:
    address, password = mail_user
    await smtp.send(MODERATOR, [address], order_mail(address))
    inbox = ImapInbox(
        "127.0.0.1",
        mail_lab.imaps_port,
        address,
        password,
        use_tls=True,
        ssl_context=mail_lab.client_tls_context(),
        backoff=FAST,
    )
    try:
        [message] = await inbox.fetch()
        assert as_stored(message.raw) == order_mail(address)
        await inbox.acknowledge(message.ref)
    finally:
        await inbox.close()
    assert mail_lab.count(address, "pbem-processed") == 1


async def test_imap_tls_refuses_untrusted_certificate(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, password = mail_user
    # Default context: the system trust store does not know the lab's certificate.
    inbox = ImapInbox(
        "127.0.0.1", mail_lab.imaps_port, address, password, use_tls=True, backoff=FAST
    )
    pending = asyncio.create_task(inbox.fetch())
    await asyncio.sleep(0.3)
    assert not pending.done()  # keeps retrying, never logs in
    await inbox.close()
    with pytest.raises(TransportError):
        await asyncio.wait_for(pending, timeout=10)
    assert inbox.connections == 0


async def test_smtp_starttls(mail_lab: MailLab, mail_user: tuple[str, str]) -> None:
    address, _ = mail_user
    sender = SmtpSender(
        "127.0.0.1",
        mail_lab.smtp_port,
        starttls=True,
        tls_context=mail_lab.client_tls_context(),
        timeout=10,
    )
    try:
        await sender.send(MODERATOR, [address], order_mail(address))
    finally:
        await sender.close()
    assert [as_stored(m) for m in mail_lab.list_messages(address)] == [order_mail(address)]


async def test_smtp_starttls_untrusted_certificate_is_temporary(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    sender = SmtpSender("127.0.0.1", mail_lab.smtp_port, starttls=True, timeout=10)
    with pytest.raises(TemporaryMailError):
        await sender.send(MODERATOR, [address], order_mail(address))
    await sender.close()
    assert mail_lab.count(address) == 0


async def test_cancelled_fetch_leaves_inbox_usable(
    restart_guard: MailLab, mail_user: tuple[str, str]
) -> None:
    lab = restart_guard
    address, _ = mail_user
    inbox = inbox_for(lab, mail_user)
    try:
        await inbox.fetch()
        lab.stop_imap()
        pending = asyncio.create_task(inbox.fetch())
        await asyncio.sleep(0.2)
        pending.cancel()  # e.g. the daemon shutting down mid-backoff
        with pytest.raises(asyncio.CancelledError):
            await pending
        lab.start_imap()
        lab.inject(address, order_mail(address))
        got = await asyncio.wait_for(inbox.fetch(), timeout=15)
        assert [as_stored(m.raw) for m in got] == [order_mail(address)]
    finally:
        await inbox.close()


async def test_a_send_given_up_mid_data_resets_the_connection_so_nothing_is_delivered_later() -> (
    None
):
    """A send cancelled after the final dot left pbem but before the server's reply (a
    send the lease bounds, on a cut link) drops the session with a TCP reset: a
    graceful close would let the kernel deliver the buffered mail when the link
    returns, after a peer has sent it (issue 19: nothing sent twice)."""
    got_dot = asyncio.Event()
    after: list[object] = []

    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"220 test ESMTP\r\n")
        replies = {b"EHLO": b"250 test\r\n", b"MAIL": b"250 ok\r\n", b"RCPT": b"250 ok\r\n"}
        while line := await reader.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                writer.write(b"354 go on\r\n")
                while await reader.readline() not in (b".\r\n", b""):
                    pass
                got_dot.set()  # the mail is in; the 250 never comes
                try:
                    after.append(await reader.read())  # b"": a FIN; a reset raises
                except ConnectionResetError as exc:
                    after.append(exc)
                return
            writer.write(replies.get(verb, b"250 ok\r\n"))

    listening = await asyncio.start_server(server, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    sender = SmtpSender("127.0.0.1", port, timeout=60)
    try:
        sending = asyncio.create_task(
            sender.send("a@x.test", ["b@x.test"], b"Subject: s\r\n\r\nhi\r\n")
        )
        await got_dot.wait()
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        while not after:
            await asyncio.sleep(0.01)
    finally:
        listening.close()
        await sender.close()
    assert isinstance(after[0], ConnectionResetError), after
