"""MaildirInbox / MaildirSender: round trip, crash safety, envelope format."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pbem.core.errors import TransportError
from pbem.mail.base import Inbox, MailSender, PermanentMailError
from pbem.mail.maildir import (
    MaildirInbox,
    MaildirSender,
    add_envelope,
    ensure_maildir,
    split_envelope,
)

MAIL = b"From: a@x.test\nTo: b@y.test\nSubject: orders\n\nMOVE TF1 0812\n"


def deliver(maildir: Path, name: str, raw: bytes) -> None:
    """What an MDA does: write in tmp/, rename into new/."""
    ensure_maildir(maildir)
    (maildir / "tmp" / name).write_bytes(raw)
    os.rename(maildir / "tmp" / name, maildir / "new" / name)


def test_protocols_are_satisfied(tmp_path: Path) -> None:
    assert isinstance(MaildirInbox(tmp_path / "in"), Inbox)
    assert isinstance(MaildirSender(tmp_path / "out"), MailSender)


def test_inbox_creates_missing_maildir(tmp_path: Path) -> None:
    MaildirInbox(tmp_path / "a" / "b")
    for sub in ("tmp", "new", "cur", ".processed/cur"):
        assert (tmp_path / "a" / "b" / sub).is_dir()


async def test_sender_to_inbox_round_trip(tmp_path: Path) -> None:
    box = tmp_path / "box"
    sender = MaildirSender(box)
    await sender.send("moderator@x.test", ["alice@y.test", "bob@y.test"], MAIL)
    await sender.send("moderator@x.test", ["carol@y.test"], MAIL.replace(b"\n", b"\r\n"))
    assert list((box / "tmp").iterdir()) == []  # nothing half-written left behind

    inbox = MaildirInbox(box)
    await inbox.wait_for_mail(timeout=10)  # a fresh file in new/ is taken on a second look
    got = await inbox.fetch()
    assert len(got) == 2
    first = split_envelope(got[0].raw)
    assert first == ("moderator@x.test", ["alice@y.test", "bob@y.test"], MAIL)
    second = split_envelope(got[1].raw)
    assert second == ("moderator@x.test", ["carol@y.test"], MAIL.replace(b"\n", b"\r\n"))
    # The envelope headers use the message's own line ending.
    assert got[1].raw.startswith(b"X-Pbem-Envelope-From: moderator@x.test\r\n")


async def test_unacknowledged_message_is_fetched_again(tmp_path: Path) -> None:
    deliver(tmp_path, "1.a.host", MAIL)
    first = MaildirInbox(tmp_path)
    await first.wait_for_mail(timeout=10)
    [msg] = await first.fetch()
    await first.close()  # "crash" before acknowledging

    again = MaildirInbox(tmp_path)
    await again.wait_for_mail(timeout=10)
    assert await again.fetch() == [msg]
    await again.acknowledge(msg.ref)
    assert await again.fetch() == []
    assert await MaildirInbox(tmp_path).fetch() == []


async def test_acknowledge_keeps_the_file_in_processed(tmp_path: Path) -> None:
    deliver(tmp_path, "1.a.host", MAIL)
    inbox = MaildirInbox(tmp_path)
    await inbox.wait_for_mail(timeout=10)
    [msg] = await inbox.fetch()
    await inbox.acknowledge(msg.ref)
    kept = list((tmp_path / ".processed" / "cur").iterdir())
    assert [p.read_bytes() for p in kept] == [MAIL]


async def test_two_fetchers_acknowledge_the_same_file(tmp_path: Path) -> None:
    deliver(tmp_path, "1.a.host", MAIL)
    one, two = MaildirInbox(tmp_path), MaildirInbox(tmp_path)
    await asyncio.gather(one.wait_for_mail(timeout=10), two.wait_for_mail(timeout=10))
    [a] = await one.fetch()
    [b] = await two.fetch()
    assert a == b
    await one.acknowledge(a.ref)
    await two.acknowledge(b.ref)  # second acknowledge is a no-op
    assert len(list((tmp_path / ".processed" / "cur").iterdir())) == 1


async def test_acknowledge_finds_message_moved_to_cur_with_flags(tmp_path: Path) -> None:
    ensure_maildir(tmp_path)
    (tmp_path / "cur" / "7.b.host:2,S").write_bytes(MAIL)
    inbox = MaildirInbox(tmp_path)
    [msg] = await inbox.fetch()
    assert msg.ref == "7.b.host"
    await inbox.acknowledge(msg.ref)
    assert (tmp_path / ".processed" / "cur" / "7.b.host:2,S").exists()


async def test_acknowledge_unknown_ref_raises(tmp_path: Path) -> None:
    inbox = MaildirInbox(tmp_path)
    with pytest.raises(TransportError):
        await inbox.acknowledge("nope")
    with pytest.raises(TransportError):
        await inbox.acknowledge("../etc")


async def test_fetch_limit_and_order(tmp_path: Path) -> None:
    for i in range(5):
        deliver(tmp_path, f"{i}.a.host", MAIL + str(i).encode())
        os.utime(tmp_path / "new" / f"{i}.a.host", ns=(i * 10**9, i * 10**9))
    inbox = MaildirInbox(tmp_path)
    got = await inbox.fetch(limit=3)
    assert [m.ref for m in got] == ["0.a.host", "1.a.host", "2.a.host"]


async def test_wait_for_mail_wakes_on_new_file(tmp_path: Path) -> None:
    inbox = MaildirInbox(tmp_path, poll_interval=0.01)
    waiter = asyncio.create_task(inbox.wait_for_mail(timeout=30))
    await asyncio.sleep(0.05)
    assert not waiter.done()
    deliver(tmp_path, "1.a.host", MAIL)
    await asyncio.wait_for(waiter, timeout=10)  # woke long before its own timeout


async def test_wait_for_mail_ignores_already_fetched(tmp_path: Path) -> None:
    deliver(tmp_path, "1.a.host", MAIL)
    inbox = MaildirInbox(tmp_path, poll_interval=0.01)
    await inbox.wait_for_mail(timeout=5)  # returns at once: unfetched mail waits
    await inbox.fetch()
    waiter = asyncio.create_task(inbox.wait_for_mail(timeout=30))
    await asyncio.sleep(0.05)
    assert not waiter.done()  # the fetched, unacknowledged mail does not wake it
    waiter.cancel()


async def test_closed_inbox_raises(tmp_path: Path) -> None:
    inbox = MaildirInbox(tmp_path)
    await inbox.close()
    with pytest.raises(TransportError):
        await inbox.fetch()


def test_envelope_refuses_header_injection() -> None:
    with pytest.raises(PermanentMailError):
        add_envelope("a@x.test", ["b@y.test\nBcc: evil@z.test"], MAIL)
    with pytest.raises(PermanentMailError):
        add_envelope("a@x.test", [], MAIL)


def test_split_envelope_refuses_plain_mail() -> None:
    with pytest.raises(TransportError):
        split_envelope(MAIL)
