"""The whole mail pipeline against real servers (issue 2).

Players send composed mail through the lab's SMTP server as a mail client does;
the daemon (intake "imap", outbox "smtp", both pointed at the lab) fetches it
from Dovecot, answers through SMTP, and the answers arrive in the players' IMAP
mailboxes. Every test runs on SQLite and on PostgreSQL (``database_url``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.service.daemon import Daemon
from pbem.storage.models import InboundMail, Plot
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
)
from tests.maillab import MailLab


@pytest.fixture
def desk(mail_lab: MailLab, database_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, database_url, tmp_path)


@pytest.fixture
def players(mail_lab: MailLab, desk: ModeratorDesk) -> dict[str, Player]:
    found = {side: new_player(mail_lab, side) for side in ("north", "south")}
    desk.demo_game("g1", list(found.values()))
    return found


async def test_every_order_mail_gets_one_threaded_answer(
    mail_lab: MailLab, desk: ModeratorDesk, players: dict[str, Player]
) -> None:
    north, south = players["north"], players["south"]
    # 1. quoted-printable, one refused line (line 2 of the orders)
    first = compose(
        north.address,
        desk.address,
        "orders turn 1",
        "My orders:\n\n" + signed(north, "g1", ["SEND SQN-1 A", "SEND SQN-9 B", "SEND SQN-2 C"]),
    )
    # 2. HTML only (as some webmail sends it): replaces the first set
    second = compose(
        north.address,
        desk.address,
        "Re: orders turn 1",
        signed(north, "g1", ["SEND SQN-1 B", "SEND SQN-2 B", "SEND SQN-3 B"]),
        html_only=True,
    )
    # 3. iso-8859-1, 8-bit, with an accented comment inside the signed text
    third = compose(
        south.address,
        desk.address,
        "ordres",
        "Voilà:\n\n" + signed(south, "g1", ["# café à midi", "SEND SQN-1 C", "SEND SQN-3 A"]),
        charset="iso-8859-1",
        cte="8bit",
    )
    daemon = Daemon(desk.config)
    try:
        for msg in (first, second):
            submit(mail_lab, msg)
        await daemon.once()
        submit(mail_lab, third)
        await daemon.once()
        await daemon.once()  # nothing new: must not answer anything twice
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()

    north_answers = answers(delivered(mail_lab, north.address))
    south_answers = answers(delivered(mail_lab, south.address))
    assert len(north_answers) == 2 and len(south_answers) == 1
    by_parent = {str(a["In-Reply-To"]): a for a in north_answers + south_answers}
    assert set(by_parent) == {str(m["Message-ID"]) for m in (first, second, third)}

    text = body_text(by_parent[str(first["Message-ID"])])
    assert "Accepted (2), as understood:" in text
    assert "SEND SQN-1 A" in text and "SEND SQN-2 C" in text
    # The refused line is named by its line number in the order part, with the reason.
    assert re.search(r"line 2: SEND SQN-9 B\n\s+-> SQN-9 is not one of your squadrons", text)
    assert re.search(r"Commitment: [0-9a-f]{64}", text)
    assert by_parent[str(first["Message-ID"])]["Subject"] == "Re: orders turn 1"

    text = body_text(by_parent[str(second["Message-ID"])])
    assert "Accepted (3)" in text and "they replace the set you sent before" in text
    text = body_text(by_parent[str(third["Message-ID"])])
    assert "Accepted (2)" in text and "SEND SQN-3 A" in text

    # Both sides in: the turn was adjudicated and each side got a report (not an answer).
    for player in (north, south):
        reports = [m for m in delivered(mail_lab, player.address) if m not in answers([m])]
        assert reports, f"{player.side} got no report"
    # Processed mail sits in the processed folder; the inbox is empty; nothing lost.
    assert mail_lab.count(desk.address) == 0
    assert mail_lab.count(desk.address, "pbem-processed") == 3
    rows = desk.mails()
    assert [r.status for r in rows] == ["answered"] * 3
    assert [r.outcome for r in rows] == [
        "accepted 2, refused 1",
        "accepted 3, refused 0",
        "accepted 2, refused 0",
    ]
    sent = desk.outgoing()
    assert all(o.status == "sent" for o in sent)
    assert len({o.message_id for o in sent}) == len(sent)
    with desk.sessions() as s:
        plots = s.query(Plot).filter(Plot.mail_id.is_not(None)).all()
    assert sorted(p.mail_id or 0 for p in plots) == [r.id for r in rows]


async def test_mail_moves_to_processed_folder_only_after_commit(
    mail_lab: MailLab, desk: ModeratorDesk, players: dict[str, Player]
) -> None:
    north = players["north"]
    msg = compose(north.address, desk.address, "orders", signed(north, "g1", ["SEND SQN-1 A"]))
    submit(mail_lab, msg)
    daemon = Daemon(desk.config)
    real_file = daemon.worker.file_many

    def broken_file(messages: object) -> bool:
        raise RuntimeError("database unavailable")

    try:
        daemon.worker.file_many = broken_file  # type: ignore[method-assign]
        with pytest.raises(RuntimeError, match="database unavailable"):
            await daemon.once()
        # Not committed, so not acknowledged: the mail is still in the inbox.
        assert desk.mails() == []
        assert mail_lab.count(desk.address) == 1
        assert mail_lab.count(desk.address, "pbem-processed") == 0

        daemon.worker.file_many = real_file  # type: ignore[method-assign]
        await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()
    assert [r.status for r in desk.mails()] == ["answered"]
    assert mail_lab.count(desk.address) == 0
    assert mail_lab.count(desk.address, "pbem-processed") == 1
    [answer] = answers(delivered(mail_lab, north.address))
    assert answer["In-Reply-To"] == msg["Message-ID"]


async def test_a_mail_fetched_twice_is_filed_and_answered_once(
    mail_lab: MailLab, desk: ModeratorDesk, players: dict[str, Player]
) -> None:
    """A crash between commit and acknowledgement: the server hands the mail out again."""
    south = players["south"]
    msg = compose(south.address, desk.address, "orders", signed(south, "g1", ["SEND SQN-2 B"]))
    submit(mail_lab, msg)
    daemon = Daemon(desk.config)

    async def forgetful_ack(ref: str) -> None:
        return None

    real_ack = daemon.inbox.acknowledge
    try:
        daemon.inbox.acknowledge = forgetful_ack  # type: ignore[method-assign]
        await daemon.once()
        await daemon.once()
        assert mail_lab.count(desk.address) == 1
        daemon.inbox.acknowledge = real_ack  # type: ignore[method-assign]
        await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()
    assert len(desk.mails()) == 1
    assert len(answers(delivered(mail_lab, south.address))) == 1
    assert mail_lab.count(desk.address) == 0


async def test_a_mail_that_breaks_the_mailroom_is_filed_failed_and_spares_its_batch(
    mail_lab: MailLab,
    desk: ModeratorDesk,
    players: dict[str, Player],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug (not bad input) in one mail of a batch: that mail is kept and marked
    failed; the others of the same transaction are answered."""
    from pbem.lifecycle.mailroom import Mailroom, open_inbound

    north, south = players["north"], players["south"]
    real_process = Mailroom.process

    def process(self: Mailroom, row: InboundMail) -> str:
        if b"SQN-3" in open_inbound(self.gm.desk.key, row):
            raise RuntimeError("a bug in the mailroom")
        return real_process(self, row)

    monkeypatch.setattr(Mailroom, "process", process)
    mails = [
        compose(north.address, desk.address, "a", signed(north, "g1", ["SEND SQN-1 A"])),
        compose(south.address, desk.address, "b", signed(south, "g1", ["SEND SQN-3 A"])),
        compose(south.address, desk.address, "c", signed(south, "g1", ["SEND SQN-2 C"])),
    ]
    for msg in mails:
        submit(mail_lab, msg)
    daemon = Daemon(desk.config)
    try:
        await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()
    rows = desk.mails()
    assert [r.status for r in rows] == ["answered", "failed", "answered"]
    assert "a bug in the mailroom" in rows[1].outcome
    with desk.sessions() as s:
        assert sorted(p.mail_id or 0 for p in s.query(Plot)) == [rows[0].id, rows[2].id]
