"""Whom the daemon answers, through the real servers (issue 14): signed orders
without a From, one Message-ID many times, no-reply senders."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.service.daemon import Daemon
from tests.e2e.helpers import (
    ModeratorDesk,
    Player,
    answers,
    delivered,
    moderator_desk,
    new_player,
    signed,
    wait_until,
)
from tests.maillab import MailLab


@pytest.fixture
def desk(mail_lab: MailLab, sqlite_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, sqlite_url, tmp_path)


@pytest.fixture
def players(mail_lab: MailLab, desk: ModeratorDesk) -> dict[str, Player]:
    found = {side: new_player(mail_lab, side) for side in ("north", "south")}
    desk.demo_game("g1", list(found.values()), early_adjudication=False)
    return found


async def test_no_from_copies_and_no_reply_mail_get_the_right_answers(
    mail_lab: MailLab, desk: ModeratorDesk, players: dict[str, Player]
) -> None:
    north, south = players["north"], players["south"]
    # Signed orders whose From got lost on the way, sent with a bogus envelope sender.
    no_from = (
        f"To: {desk.address}\nSubject: orders\nMessage-ID: <nofrom@elsewhere.test>\n\n"
        + signed(north, "g1", ["SEND SQN-1 A"])
    ).encode()
    mail_lab.smtp_send("bounces@elsewhere.test", [desk.address], no_from)
    # One mail of south's, looped back twenty times by a broken relay.
    for n in range(20):
        copy = (
            f"From: {south.address}\nTo: {desk.address}\nSubject: question\n"
            f"Message-ID: <loop@{mail_lab.domain}>\nX-Relay-Hop: {n}\n\nWhen is the deadline?\n"
        ).encode()
        mail_lab.smtp_send(south.address, [desk.address], copy)
    noreply = (
        f"From: noreply@{mail_lab.domain}\nTo: {desk.address}\nSubject: Your receipt\n"
        "Message-ID: <receipt@x.test>\n\nThanks for your purchase.\n"
    ).encode()
    mail_lab.smtp_send(f"noreply@{mail_lab.domain}", [desk.address], noreply)
    wait_until(lambda: mail_lab.count(desk.address) == 22, 30, "every mail delivered")
    daemon = Daemon(desk.config)
    try:
        for _ in range(3):
            await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()

    rows = desk.mails()
    assert len(rows) == 22 and all(r.status != "new" for r in rows)
    # The orders were sealed and answered at north's registered address.
    [north_answer] = answers(delivered(mail_lab, north.address))
    assert str(north_answer["In-Reply-To"]) == "<nofrom@elsewhere.test>"
    # South hears once about his looping mail; the copies are filed as copies.
    [south_answer] = answers(delivered(mail_lab, south.address))
    assert str(south_answer["In-Reply-To"]) == f"<loop@{mail_lab.domain}>"
    copies = [r for r in rows if r.outcome.endswith("(same Message-ID)")]
    assert len(copies) == 19
    # Nothing to the no-reply sender; the mail is filed.
    [receipt] = [r for r in rows if r.message_id == "<receipt@x.test>"]
    assert receipt.outcome == "not answered: no-reply"
    assert not [o for o in desk.outgoing() if o.recipient.startswith("noreply@")]
