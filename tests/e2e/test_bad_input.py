"""Bad input through the real pipeline (issue 2): answered precisely or deliberately
silent, never a crash, never a lost mail (every mail is filed with a status).

Each case is a mail sent through the lab's SMTP server to the moderator's IMAP
mailbox; the daemon fetches, files, processes and answers; the answers are read
back from the senders' IMAP mailboxes and matched by In-Reply-To.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbem.intake.signatures import sign_block
from pbem.intake.smime import sign_smime
from pbem.service.daemon import Daemon
from tests.e2e.helpers import (
    ModeratorDesk,
    Player,
    answers,
    body_text,
    compose,
    delivered,
    moderator_desk,
    new_player,
    sheet,
    signed,
    submit,
)
from tests.maillab import MailLab
from tests.smimeca import CA, NOW

MAX_SIZE = 64 * 1024


@dataclass
class Case:
    name: str
    message_id: str
    send: Callable[[], object]
    # None: deliberately silent; else a pattern the answer's text must hold
    answer: str | None
    outcome: str  # pattern for inbound_mails.outcome


@dataclass
class World:
    lab: MailLab
    desk: ModeratorDesk
    north: Player
    south: Player
    stranger: Player  # a lab mailbox whose key no game knows


def _raw(world: World, sender: str, headers: str, body: bytes, envelope: str | None = None) -> Case:
    """A hand-made mail (for what a composing library would refuse to produce)."""
    mid = make_msgid(domain="pbem.test")
    head = f"From: {sender}\nTo: {world.desk.address}\nMessage-ID: {mid}\n{headers}"
    raw = head.encode() + b"\n" + body
    return Case(
        "",
        mid,
        lambda: world.lab.smtp_send(
            sender if envelope is None else envelope, [world.desk.address], raw
        ),
        None,
        "",
    )


def _mail(world: World, msg: EmailMessage) -> Case:
    return Case("", str(msg["Message-ID"]), lambda: submit(world.lab, msg), None, "")


def _nested(text: str, depth: int) -> bytes:
    """The body of a mail of ``depth`` multipart/mixed parts one inside the other,
    ``text`` innermost; the mail's own header opens the outermost (``NESTED``)."""
    opening = "--n0\n" + "".join(
        f'Content-Type: multipart/mixed; boundary="n{i}"\n\n--n{i}\n' for i in range(1, depth)
    )
    closing = "".join(f"\n--n{i}--\n" for i in reversed(range(depth)))
    return (opening + "Content-Type: text/plain\n\n" + text + closing).encode()


NESTED = 'Subject: orders\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="n0"\n'


def cases(world: World) -> list[Case]:
    d, north, south, stranger = world.desk, world.north, world.south, world.stranger
    out: list[Case] = []

    def add(name: str, case: Case, answer: str | None, outcome: str) -> None:
        case.name, case.answer, case.outcome = name, answer, outcome
        out.append(case)

    good = signed(north, "g1", ["SEND SQN-1 A"])
    add(
        "malformed-mime",
        _raw(
            world,
            north.address,
            'Subject: broken\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="zz"\n'
            "Content-Transfer-Encoding: 7bit\n",
            # The boundary is never used and never closed: the body is a lone preamble.
            b"--yy\nContent-Type: text/plain\n\n" + good.encode() + b"\n--yy",
        ),
        # The stray preamble is read as the text: the block in it is found and verified.
        r"Accepted \(1\), as understood: SEND SQN-1 A",
        r"^accepted 1, refused 0",
    )
    # The block base64-encoded, the encoding cut short and spoilt: its end is lost.
    encoded = base64.b64encode(good.encode()).decode()
    add(
        "broken-base64",
        _raw(
            world,
            north.address,
            "Subject: orders\nMIME-Version: 1.0\nContent-Type: text/plain\n"
            "Content-Transfer-Encoding: base64\n",
            (encoded[: len(encoded) // 2 + 1] + "*#").encode(),
        ),
        r"a part of your mail is base64-encoded and the encoding is broken",
        r"^refused: unreadable: a part of your mail is base64-encoded",
    )
    add(
        "nested-50-deep",
        _raw(world, north.address, NESTED, _nested(good, 50)),
        r"your mail's MIME parts are nested more than 24 deep",
        r"^refused: unreadable: your mail's MIME parts are nested",
    )
    add(
        "no-order-block",
        _mail(world, compose(stranger.address, d.address, "hello", "Just saying hello.\n")),
        r"no signed PBEM ORDERS block found in your mail",
        r"^refused: no-block",
    )
    add(
        "no-order-block-from-a-player",  # forwarded to the human moderator (issue 18)
        _mail(world, compose(north.address, d.address, "hello", "Just saying hello.\n")),
        r"Your mail holds no signed orders, so it went to the human moderator of g1",
        r"^forwarded to the moderator \(g1\)",
    )
    add(
        "bad-signature",
        _mail(
            world,
            compose(
                north.address,
                d.address,
                "orders",
                signed(north, "g1", ["SEND SQN-1 A"]).replace("SQN-1 A", "SQN-1 B"),
            ),
        ),
        r"signature does not match the order text",
        r"^refused: bad-signature",
    )
    unsigned = good.split("-----BEGIN PBEM SIGNATURE-----")[0] + "-----END PBEM ORDERS-----\n"
    add(
        "missing-signature",
        _mail(world, compose(north.address, d.address, "orders", unsigned)),
        r"malformed armour: no BEGIN PBEM SIGNATURE line",
        r"^refused: bad-signature",
    )
    add(
        "unknown-key",
        _mail(world, compose(stranger.address, d.address, "orders", signed(stranger, "g1", ["x"]))),
        r"key SHA256:\S+ is not registered for this game",
        r"^refused: bad-signature",
    )
    # south's key, but the block says Side: north
    add(
        "key-of-another-side",
        _mail(
            world,
            compose(
                south.address,
                d.address,
                "orders",
                sign_block(sheet("g1", "north", ["SEND SQN-1 A"]), south.key),
            ),
        ),
        r"is registered for side south in game g1, not north",
        r"^refused: wrong-side",
    )
    # north's key used for game g2, where north plays no part
    add(
        "orders-for-another-game",
        _mail(
            world,
            compose(north.address, d.address, "orders", signed(north, "g2", ["SEND SQN-1 A"])),
        ),
        r"is not registered for game g2",
        r"^refused: unknown-key",
    )
    add(
        "stale-or-future-phase",
        _mail(
            world,
            compose(
                north.address, d.address, "orders", signed(north, "g1", ["SEND SQN-1 A"], turn=2)
            ),
        ),
        r"these orders are for turn 2 phase plot, but the phase now open is turn 1 phase plot",
        r"^refused: these orders are for turn 2 phase plot, but the phase now open is turn 1",
    )
    replayed = signed(south, "g1", ["SEND SQN-3 C"])
    add(
        "first-of-a-replay",
        _mail(world, compose(south.address, d.address, "orders", replayed)),
        r"Accepted \(1\)",
        r"^accepted 1, refused 0",
    )
    add(
        "replayed-signed-block",
        _mail(world, compose(south.address, d.address, "orders again", "Again:\n\n" + replayed)),
        r"this signed block was received before",
        r"^refused: replay",
    )
    big = compose(north.address, d.address, "big", good + "\n" + "padding line\n" * 8000)
    add(
        "oversized",
        _mail(world, big),
        rf"bytes; the limit is {MAX_SIZE}\. Send the order block alone",
        r"^refused: oversized",
    )
    attachment_only = EmailMessage()
    attachment_only["From"] = north.address
    attachment_only["To"] = d.address
    attachment_only["Subject"] = "see attachment"
    attachment_only["Message-ID"] = make_msgid(domain="pbem.test")
    attachment_only.add_attachment(
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "image", "png", filename="map.png"
    )
    add(
        "attachments-only",
        _mail(world, attachment_only),
        r"no signed PBEM ORDERS block found",
        r"^refused: no-block",
    )
    add(
        "koi8-r-charset",
        _mail(
            world,
            compose(
                north.address,
                d.address,
                "приказы",
                "Приказы:\n\n" + signed(north, "g1", ["# в зону B", "SEND SQN-2 B"]),
                charset="koi8-r",
                cte="8bit",
            ),
        ),
        r"Accepted \(1\), as understood: SEND SQN-2 B",
        r"^accepted 1, refused 0",
    )
    add(
        "undeclared-8bit-latin1",
        _raw(
            world,
            north.address,
            "Subject: orders\nContent-Type: text/plain\n",
            "Ordres, café:\n\n".encode("latin-1")
            + signed(north, "g1", ["SEND SQN-3 A"]).encode("ascii"),
        ),
        r"Accepted \(1\)",
        r"^accepted 1, refused 0",
    )
    add(
        "empty-body",
        _raw(world, north.address, "Subject: \n", b""),
        r"no signed PBEM ORDERS block found",
        r"^refused: no-block",
    )
    add(
        "from-the-moderators-own-address",
        _mail(world, compose(d.address, d.address, "loop?", good)),
        None,
        r"not answered: own-address",
    )
    add(
        "bounce",
        _raw(
            world,
            f"MAILER-DAEMON@{world.lab.domain}",
            "Subject: Undelivered Mail Returned to Sender\nMIME-Version: 1.0\n"
            'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\n',
            b"--b1\nContent-Type: text/plain\n\nYour mail could not be delivered.\n"
            b"--b1\nContent-Type: message/delivery-status\n\nStatus: 5.1.1\n--b1--\n",
            envelope="",
        ),
        None,
        r"not answered: bounce",
    )
    add(
        "auto-reply",
        _raw(
            world,
            north.address,
            "Subject: Out of office\nAuto-Submitted: auto-replied\n",
            b"I am away until Monday.\n",
        ),
        None,
        r"not answered: auto-submitted",
    )
    add(
        "mailing-list",
        _raw(
            world,
            north.address,
            "Subject: [wargamers] news\nList-Id: <wargamers.example.org>\n",
            b"Digest of the week.\n",
        ),
        None,
        r"not answered: mailing-list",
    )
    return out


@pytest.fixture
def world(mail_lab: MailLab, database_url: str, tmp_path: Path) -> World:
    desk = moderator_desk(mail_lab, database_url, tmp_path, max_size=MAX_SIZE)
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    # Two games: north and south play g1; g2 is someone else's.
    desk.demo_game("g1", [north, south], early_adjudication=False)
    desk.demo_game("g2", [new_player(mail_lab, "north"), new_player(mail_lab, "south")])
    return World(mail_lab, desk, north, south, new_player(mail_lab, "stranger"))


async def _run(desk: ModeratorDesk, rounds: int = 2) -> None:
    daemon = Daemon(desk.config)
    try:
        for _ in range(rounds):
            await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()


async def test_every_bad_input_is_answered_precisely_or_silent_and_filed(world: World) -> None:
    todo = cases(world)
    for case in todo:
        case.send()
    await _run(world.desk)

    rows = {r.message_id: r for r in world.desk.mails()}
    # Nothing lost: every mail is filed, processed, and has a status.
    assert len(rows) == len(todo)
    assert world.lab.count(world.desk.address) == 0
    got = {}
    for p in (world.north, world.south, world.stranger):
        for a in answers(delivered(world.lab, p.address)):
            assert a["In-Reply-To"] not in got, f"two answers to {a['In-Reply-To']}"
            got[str(a["In-Reply-To"])] = a
    assert len(got) == sum(1 for c in todo if c.answer is not None)
    for case in todo:
        row = rows[case.message_id]
        assert row.status in ("answered", "ignored"), (case.name, row.status, row.outcome)
        assert re.search(case.outcome, row.outcome), (case.name, row.outcome)
        if case.answer is None:
            assert row.status == "ignored", case.name
            assert case.message_id not in got, case.name
            continue
        assert row.status == "answered", case.name
        answer = got[case.message_id]
        assert answer["To"] == row.sender, case.name  # to the sender only
        # The answer wraps long lines: compare with runs of whitespace as one space.
        text = " ".join(body_text(answer).split())
        assert re.search(case.answer, text), (case.name, text)
    # The moderator's own mail and the machine mail drew no answer to anyone.
    assert all(o.recipient != world.desk.address for o in world.desk.outgoing())


async def test_an_unverified_sender_learns_nothing_about_the_game(world: World) -> None:
    """The same stranger's block for an existing and for a made-up game: the answers
    differ only in the game's name (no status, turn, phase or side is revealed)."""
    s = world.stranger
    real = compose(s.address, world.desk.address, "orders", signed(s, "g1", ["SEND SQN-1 A"]))
    fake = compose(s.address, world.desk.address, "orders", signed(s, "zz", ["SEND SQN-1 A"]))
    submit(world.lab, real)
    submit(world.lab, fake)
    await _run(world.desk, rounds=1)
    by_parent = {
        str(a["In-Reply-To"]): body_text(a) for a in answers(delivered(world.lab, s.address))
    }
    real_text, fake_text = by_parent[str(real["Message-ID"])], by_parent[str(fake["Message-ID"])]
    assert real_text == fake_text
    for secret in ("turn", "Turn", "phase", "north", "south", "running"):
        assert secret not in real_text


async def test_a_flooding_sender_is_rate_limited(
    mail_lab: MailLab, database_url: str, tmp_path: Path
) -> None:
    desk = moderator_desk(mail_lab, database_url, tmp_path, rate_limit=3)
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    desk.demo_game("g1", [north, south], early_adjudication=False)
    for i in range(6):
        submit(mail_lab, compose(north.address, desk.address, f"flood {i}", "hello\n"))
    await _run(desk, rounds=1)
    outcomes = [r.outcome for r in desk.mails()]
    assert len(outcomes) == 6
    assert outcomes.count("not answered: sender over the rate limit") == 3
    assert len(answers(delivered(mail_lab, north.address))) == 3


async def test_an_expired_smime_certificate_is_refused_as_expired(world: World) -> None:
    """Signed with an old certificate of the player's own CA: refused as expired (with
    the hint to get a new one), not as "another certificate from your CA" to register."""
    ca = CA("Example Mail CA")
    player = new_player(world.lab, "north", prefix="smime")
    registered, _ = ca.issue(player.address)
    with world.desk.sessions.begin() as s:
        gm = world.desk.gm(s)
        gm.acts.create_game("g3", "demo", "duel", settings={"early_adjudication": False})
        gm.acts.assign("g3", "north", player.address, certificate=registered)
        gm.acts.assign("g3", "south", world.south.address, public_key=world.south.public)
        gm.acts.start("g3")
    old_cert, old_key = ca.issue(player.address, days=30, start=NOW - timedelta(days=400))
    mid = make_msgid(domain="pbem.test")
    headers = {"From": player.address, "To": world.desk.address, "Message-ID": mid}
    raw = sign_smime(sheet("g3", "north", ["SEND SQN-1 A"]), old_cert, old_key, headers)
    world.lab.smtp_send(player.address, [world.desk.address], raw)
    await _run(world.desk)
    [row] = [r for r in world.desk.mails() if r.message_id == mid]
    expired = f"{NOW - timedelta(days=370):%Y-%m-%d}"
    assert row.outcome.startswith(
        "refused: expired-key: the mail is signed with an S/MIME certificate that expired "
        f"on {expired}"
    ), row.outcome
    [answer] = [a for a in answers(delivered(world.lab, player.address)) if a["In-Reply-To"] == mid]
    text = " ".join(body_text(answer).split())
    assert f"expired on {expired}" in text and "another certificate" not in text
    assert "get a new certificate" in text  # the hint: what to do next
