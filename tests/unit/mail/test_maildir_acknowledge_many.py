"""MaildirInbox.acknowledge_many: the Inbox protocol's batch acknowledgement."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core.errors import TransportError
from pbem.mail.maildir import MaildirInbox

from .test_maildir import deliver


async def test_acknowledge_many_moves_each_to_processed(tmp_path: Path) -> None:
    for n in range(3):
        deliver(tmp_path, f"{n}.a.host", f"Subject: {n}\n\nbody {n}\n".encode())
    inbox = MaildirInbox(tmp_path)
    await inbox.wait_for_mail(timeout=10)  # a fresh file in new/ is taken on a second look
    messages = await inbox.fetch()
    await inbox.acknowledge_many([m.ref for m in messages[:2]])
    assert [m.ref for m in await inbox.fetch()] == [messages[2].ref]
    assert len(list((tmp_path / ".processed" / "cur").iterdir())) == 2


async def test_acknowledge_many_refuses_a_bad_key(tmp_path: Path) -> None:
    inbox = MaildirInbox(tmp_path)
    with pytest.raises(TransportError, match="not a Maildir key"):
        await inbox.acknowledge_many(["../etc"])
