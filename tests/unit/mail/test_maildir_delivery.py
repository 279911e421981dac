"""Delivering into the local Maildir: a file still being written into new/ is never
taken; tmp/ then new/ (``deliver``, ``pbem send --maildir``) is the way in."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pbem.cli import main
from pbem.intake.mime import parse_mail
from pbem.mail.maildir import SETTLE_SECONDS, MaildirInbox, deliver, ensure_maildir

HEAD = b"From: alice@players.test\nTo: moderator@pbem.test\nSubject: orders\n\n"
BODY = b"-----BEGIN PBEM ORDERS-----\nGame: g1\n" * 20


async def test_a_file_still_growing_in_new_is_not_taken(tmp_path: Path) -> None:
    ensure_maildir(tmp_path)
    inbox = MaildirInbox(tmp_path, settle=0)  # two looks suffice: the test writes between
    file = tmp_path / "new" / "1.handwritten.host"
    with open(file, "wb") as writer:
        writer.write(HEAD)
        writer.flush()
        assert await inbox.fetch() == []  # first look: just seen
        writer.write(BODY[:100])
        writer.flush()
        assert await inbox.fetch() == []  # it grew since the last look
        writer.write(BODY[100:])
    assert await inbox.fetch() == []  # grew again
    [message] = await inbox.fetch()  # two looks, the same size: complete
    assert message.raw == HEAD + BODY


async def test_an_empty_file_in_new_waits(tmp_path: Path) -> None:
    ensure_maildir(tmp_path)
    (tmp_path / "new" / "1.empty.host").touch()
    inbox = MaildirInbox(tmp_path, settle=0)
    assert await inbox.fetch() == []
    assert await inbox.fetch() == []  # created, not yet written


async def test_an_old_file_in_new_is_taken_at_once(tmp_path: Path) -> None:
    """After a restart, mail that arrived meanwhile needs no second look."""
    ensure_maildir(tmp_path)
    file = tmp_path / "new" / "1.old.host"
    file.write_bytes(HEAD + BODY)
    old = file.stat().st_mtime_ns - int(2 * SETTLE_SECONDS * 1e9)
    os.utime(file, ns=(old, old))
    [message] = await MaildirInbox(tmp_path).fetch()
    assert message.raw == HEAD + BODY


async def test_a_file_must_stay_unchanged_for_the_settle_time(tmp_path: Path) -> None:
    """Two looks in quick succession (a wake-up, then a fetch) are not enough."""
    ensure_maildir(tmp_path)
    (tmp_path / "new" / "1.handwritten.host").write_bytes(HEAD + BODY)
    inbox = MaildirInbox(tmp_path, settle=3600)
    assert await inbox.fetch() == []
    assert await inbox.fetch() == []


async def test_a_file_in_cur_is_taken_at_once(tmp_path: Path) -> None:
    ensure_maildir(tmp_path)
    (tmp_path / "cur" / "1.read.host:2,S").write_bytes(HEAD + BODY)
    [message] = await MaildirInbox(tmp_path).fetch()
    assert message.ref == "1.read.host"


async def test_wait_for_mail_wakes_once_a_file_written_in_place_settles(tmp_path: Path) -> None:
    ensure_maildir(tmp_path)
    inbox = MaildirInbox(tmp_path, poll_interval=0.01)
    waiter = asyncio.create_task(inbox.wait_for_mail(timeout=30))
    (tmp_path / "new" / "1.handwritten.host").write_bytes(HEAD + BODY)
    await asyncio.wait_for(waiter, timeout=10)
    [message] = await inbox.fetch()
    assert message.raw == HEAD + BODY


def test_deliver_goes_through_tmp(tmp_path: Path) -> None:
    ensure_maildir(tmp_path)
    name = deliver(tmp_path, HEAD + BODY)
    assert (tmp_path / "new" / name).read_bytes() == HEAD + BODY
    assert list((tmp_path / "tmp").iterdir()) == []


async def test_pbem_send_maildir_delivers_a_signed_mail(tmp_path: Path) -> None:
    key = tmp_path / "alice.key"
    assert main(["keygen", "--out", str(key)]) == 0
    orders = tmp_path / "orders.txt"
    orders.write_text("Game: g1\nSide: allied\nTurn: 1\nPhase: setup\n\n# none\n")
    inbox = MaildirInbox(tmp_path / "inbox")
    argv = ["send", str(orders), "--key", str(key), "--to", "moderator@pbem.test",
            "--from", "alice@players.test", "--maildir", str(tmp_path / "inbox")]  # fmt: skip
    assert main(argv) == 0
    assert list((tmp_path / "inbox" / "tmp").iterdir()) == []
    await inbox.wait_for_mail(timeout=10)
    [message] = await inbox.fetch()
    mail = parse_mail(message.raw)
    assert "BEGIN PBEM ORDERS" in mail.text
