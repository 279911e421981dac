"""A revoked OpenPGP key is dead, through the real pipeline: the revocation pbem has
seen (attached to a mail, pasted into one, or given by KEY ADD) retires the key at
once, mail signed with it is refused as revoked with the next step, and the player
and the moderator are told (keys and revocations made by GnuPG; mail through the
lab's SMTP and Dovecot; the database is PostgreSQL when the lab has it)."""

from __future__ import annotations

import base64
import smtplib
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.core.errors import LifecycleError
from pbem.lifecycle import moderator
from pbem.service.daemon import Daemon
from tests.e2e.helpers import (
    ModeratorDesk,
    answers,
    body_text,
    delivered,
    moderator_desk,
    new_player,
    sheet,
    submit,
)
from tests.gnupg import GnuPG, clearsigned_mail, thunderbird_mail
from tests.maillab import MailLab


def _send(lab: MailLab, sender: str, to: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", lab.smtp_port, timeout=10) as smtp:
        smtp.sendmail(sender, [to], raw)


def _mod(desk: ModeratorDesk, line: str) -> str:
    with desk.sessions.begin() as s:
        return moderator.execute(desk.gm(s, datetime.now(UTC)), line)


def _revoked_copy(gpg: GnuPG, uid: str, fingerprint: str, home: Path) -> bytes:
    """The key as exported after importing its revocation, in another GnuPG home (so
    ``gpg`` can still sign with it: a stolen key, or a client that ignores it)."""
    elsewhere = GnuPG(home)
    elsewhere.run("--import", data=gpg.export(uid))
    elsewhere.run("--import", data=gpg.revocation(fingerprint))
    return elsewhere.export(uid)


def _notices(lab: MailLab, address: str, subject: str) -> list[EmailMessage]:
    return [m for m in delivered(lab, address) if subject in str(m["Subject"])]


@pytest.fixture
def desk(mail_lab: MailLab, database_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, database_url, tmp_path)


async def _run(daemon: Daemon, rounds: int = 2) -> None:
    for _ in range(rounds):
        await daemon.once()


async def _close(daemon: Daemon) -> None:
    await daemon.inbox.close()
    await daemon.sender.close()
    daemon.engine.dispose()


async def test_a_revocation_in_any_mail_retires_the_key_and_mail_signed_with_it_is_refused(
    mail_lab: MailLab, desk: ModeratorDesk, tmp_path: Path
) -> None:
    gpg = GnuPG(tmp_path / "gnupg")
    north, south = new_player(mail_lab, "north").address, new_player(mail_lab, "south").address
    north_key = gpg.generate(f"North <{north}>")
    south_key = gpg.generate(f"South <{south}>")
    with desk.sessions.begin() as s:
        gm = desk.gm(s)
        gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": False})
        gm.acts.assign("g1", "north", north, openpgp=gpg.export(north))
        gm.acts.assign("g1", "south", south, openpgp=gpg.export(south))
        gm.acts.start("g1")
    assert _mod(desk, "KEY g1 north LIST") == f"north in g1: openpgp {north_key} in use"
    head = {"To": desk.address, "Subject": "orders"}
    revoked = _revoked_copy(gpg, north, north_key, tmp_path / "elsewhere")
    daemon = Daemon(desk.config)
    # Thunderbird attaches the revoked key to orders signed with it.
    _send(
        mail_lab,
        north,
        desk.address,
        thunderbird_mail(
            gpg,
            north,
            sheet("g1", "north", ["SEND SQN-1 A"]),
            {"From": north, **head},
            attach_key=revoked,
        ),
    )
    # south pastes gpg's revocation certificate into a plain letter (no orders).
    letter = EmailMessage()
    letter["From"], letter["To"], letter["Subject"] = south, desk.address, "my key is lost"
    letter.set_content(
        "I lost my laptop; here is my revocation.\n\n" + gpg.revocation(south_key).decode()
    )
    submit(mail_lab, letter)
    await _run(daemon)
    # Later, north's orders signed with the key but without the revocation attached.
    _send(
        mail_lab,
        north,
        desk.address,
        clearsigned_mail(
            gpg, north, sheet("g1", "north", ["SEND SQN-2 A"]), {"From": north, **head}
        ),
    )
    await _run(daemon)
    await _close(daemon)

    outcomes = [r.outcome for r in desk.mails()]
    refused = f"refused: revoked-key: the OpenPGP key {north_key} is revoked"
    assert outcomes[0] == refused and outcomes[2] == refused, outcomes
    assert outcomes[1].startswith("forwarded to the moderator (g1)"), outcomes
    for line, key in (("KEY g1 north LIST", north_key), ("KEY g1 south LIST", south_key)):
        assert _mod(desk, line).endswith(
            f"openpgp {key} retired {datetime.now(UTC):%Y-%m-%d} (revoked)"
        )
    # The refusals say what to do next.
    texts = [" ".join(body_text(m).split()) for m in answers(delivered(mail_lab, north))]
    assert len(texts) == 2
    assert all("A revoked key never signs again" in t and "KEY game side ADD" in t for t in texts)
    # Each player and the moderator heard of it once, with the next step.
    for player, key in ((north, north_key), (south, south_key)):
        [notice] = _notices(mail_lab, player, "your OpenPGP key is revoked")
        text = " ".join(body_text(notice).split())
        assert f"The OpenPGP key {key} is revoked" in text
        assert "has no key in use in g1 now" in text and "KEY g1" in text
    human = desk.config.moderator.human
    assert len(_notices(mail_lab, human, "the OpenPGP key of north")) == 1
    assert len(_notices(mail_lab, human, "the OpenPGP key of south")) == 1


async def test_key_add_of_a_revoked_key_retires_it_and_never_registers_it(
    mail_lab: MailLab, desk: ModeratorDesk, tmp_path: Path
) -> None:
    gpg = GnuPG(tmp_path / "gnupg")
    north, south = new_player(mail_lab, "north").address, new_player(mail_lab, "south").address
    old = gpg.generate(f"North <{north}>")
    new = gpg.generate(f"North new <{north}>")
    gpg.generate(f"South <{south}>")
    with desk.sessions.begin() as s:
        gm = desk.gm(s)
        gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": False})
        gm.acts.assign("g1", "north", north, openpgp=gpg.export(old))
        gm.acts.assign("g1", "south", south, openpgp=gpg.export(south))
        gm.acts.start("g1")
    _mod(desk, f"KEY g1 north ADD openpgp:{base64.b64encode(gpg.export(new)).decode()}")
    revoked = _revoked_copy(gpg, old, old, tmp_path / "elsewhere")
    given = f"openpgp:{base64.b64encode(revoked).decode()}"

    # Registered for north: retired at once, and north still signs with the new key.
    answer = _mod(desk, f"KEY g1 north ADD {given}")
    assert answer == (
        f"the OpenPGP key {old} of north in g1 is revoked: retired now, and the player was "
        f"told; north still signs with openpgp key {new}"
    )
    assert _mod(desk, "KEY g1 north LIST").startswith(f"north in g1: openpgp {old} retired")
    # Given again: nothing new; for a side that never held it: refused, with the next step.
    assert "was retired already" in _mod(desk, f"KEY g1 north ADD {given}")
    with pytest.raises(LifecycleError, match=r"is revoked, and south in g1 does not sign with it"):
        _mod(desk, f"KEY g1 south ADD {given}")
    assert "in use" in _mod(desk, "KEY g1 south LIST")
    daemon = Daemon(desk.config)
    await _run(daemon, rounds=1)
    [notice] = _notices(mail_lab, north, "your OpenPGP key is revoked")
    assert f"north still signs with openpgp key {new}" in " ".join(body_text(notice).split())
    # The moderator gave the command: his answer told him; no second notice.
    assert not _notices(mail_lab, desk.config.moderator.human, "is revoked")
    # Orders signed with the revoked key (no revocation attached) are refused as revoked.
    head = {"From": north, "To": desk.address, "Subject": "orders"}
    _send(
        mail_lab,
        north,
        desk.address,
        clearsigned_mail(gpg, old, sheet("g1", "north", ["SEND SQN-1 A"]), head),
    )
    await _run(daemon)
    await _close(daemon)
    assert desk.mails()[-1].outcome == f"refused: revoked-key: the OpenPGP key {old} is revoked"
