"""ImapInbox: acknowledgements queued together go out as one command (the
intake benchmark's IMAP cost), and each caller still learns its own fate."""

from __future__ import annotations

import asyncio
import logging

import pytest

from pbem.core.errors import TransportError
from pbem.mail.imap import ImapInbox
from tests.maillab import MailLab


def mail(to: str, n: int) -> bytes:
    return f"From: p@pbem.test\nTo: {to}\nSubject: orders {n}\nMessage-ID: <b{n}@pbem.test>\n\nSEND {n}\n".encode()


def inbox_for(lab: MailLab, user: tuple[str, str], **kwargs: object) -> ImapInbox:
    address, password = user
    options: dict[str, object] = {"backoff": (0.05,), "poll_interval": 0.2, "command_timeout": 10.0}
    options.update(kwargs)
    return ImapInbox("127.0.0.1", lab.imap_port, address, password, **options)  # type: ignore[arg-type]


def batches(caplog: pytest.LogCaptureFixture) -> list[int]:
    return [
        int(r.getMessage().split()[1])
        for r in caplog.records
        if r.name == "pbem.mail.imap" and r.getMessage().startswith("acknowledged ")
    ]


@pytest.mark.parametrize("processed_folder", ["pbem-processed", None])
async def test_concurrent_acknowledgements_share_one_command(
    mail_lab: MailLab,
    mail_user: tuple[str, str],
    caplog: pytest.LogCaptureFixture,
    processed_folder: str | None,
) -> None:
    address, _ = mail_user
    for n in range(30):
        mail_lab.inject(address, mail(address, n))
    inbox = inbox_for(mail_lab, mail_user, processed_folder=processed_folder)
    caplog.set_level(logging.INFO, logger="pbem.mail.imap")
    try:
        messages = await inbox.fetch()
        assert len(messages) == 30
        await inbox.acknowledge_many([m.ref for m in messages])
        assert await inbox.fetch() == []
    finally:
        await inbox.close()
    # The first caller goes alone; the 29 queued behind it go together.
    assert sum(batches(caplog)) == 30
    assert len(batches(caplog)) <= 2
    assert mail_lab.count(address, "INBOX") == 0  # moved, or deleted and expunged (UIDPLUS)
    if processed_folder:
        assert mail_lab.count(address, processed_folder) == 30


async def test_a_stale_ref_in_a_batch_is_left_and_the_rest_acknowledged(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    for n in range(3):
        mail_lab.inject(address, mail(address, n))
    inbox = inbox_for(mail_lab, mail_user)
    try:
        messages = await inbox.fetch()
        uid = messages[0].ref.split(":")[1]
        # Another UID space: must not touch the mail with that UID today.
        await inbox.acknowledge_many([f"1:{uid}", messages[1].ref, messages[2].ref])
        with pytest.raises(TransportError, match="not an IMAP ref"):
            await inbox.acknowledge("garbage")
        assert [m.ref for m in await inbox.fetch()] == [messages[0].ref]
    finally:
        await inbox.close()
    assert mail_lab.count(address, "pbem-processed") == 2


async def test_a_refused_batch_fails_every_caller_in_it(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    address, _ = mail_user
    for n in range(5):
        mail_lab.inject(address, mail(address, n))
    # A folder name the server refuses to create or move into.
    inbox = inbox_for(mail_lab, mail_user, processed_folder="no/such/../folder")
    try:
        messages = await inbox.fetch()
        results = await asyncio.gather(
            *(inbox.acknowledge(m.ref) for m in messages), return_exceptions=True
        )
        assert all(isinstance(r, TransportError) for r in results), results
        assert len(await inbox.fetch()) == 5  # nothing acknowledged: all come back
    finally:
        await inbox.close()


async def test_mails_a_peer_moved_on_meanwhile_are_acknowledged_with_the_rest(
    mail_lab: MailLab, mail_user: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Two daemons fetched the same mails (a take-over); the peer moved some on
    first. Dovecot answers the slower one's UID MOVE "NO [EXPUNGEISSUED]": those are
    acknowledged already, so it moves the rest and raises nothing."""
    address, _ = mail_user
    for n in range(6):
        mail_lab.inject(address, mail(address, n))
    slow = inbox_for(mail_lab, mail_user, processed_folder="pbem-processed")
    peer = inbox_for(mail_lab, mail_user, processed_folder="pbem-processed")
    caplog.set_level(logging.INFO, logger="pbem.mail.imap")
    try:
        messages = await slow.fetch()
        assert len(messages) == 6
        theirs = await peer.fetch()
        await peer.acknowledge_many([m.ref for m in theirs[:4]])
        await slow.acknowledge_many([m.ref for m in messages])
        assert await slow.fetch() == []
    finally:
        await slow.close()
        await peer.close()
    assert mail_lab.count(address, "INBOX") == 0
    assert mail_lab.count(address, "pbem-processed") == 6
