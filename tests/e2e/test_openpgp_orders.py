"""OpenPGP-signed orders through the real pipeline (issue 14): players registered
with keys made by GnuPG send Thunderbird-shaped PGP/MIME and clear-signed mail
over SMTP to the moderator's IMAP mailbox; the daemon verifies, seals,
adjudicates and answers each one, and refuses the hostile ones precisely."""

from __future__ import annotations

import re
import smtplib
from pathlib import Path

import pytest

from pbem.service.daemon import Daemon
from pbem.storage.enums import KeyKind
from pbem.storage.seatkeys import seat_keys
from tests.e2e.helpers import (
    ModeratorDesk,
    answers,
    body_text,
    delivered,
    moderator_desk,
    sheet,
)
from tests.gnupg import GnuPG, clearsigned_mail, thunderbird_mail
from tests.maillab import MailLab


def _send(lab: MailLab, sender: str, to: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", lab.smtp_port, timeout=10) as smtp:
        smtp.sendmail(sender, [to], raw)


@pytest.fixture
def desk(mail_lab: MailLab, database_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, database_url, tmp_path)


async def test_openpgp_players_play_a_turn_and_hostile_mail_is_refused(
    mail_lab: MailLab, desk: ModeratorDesk, tmp_path: Path
) -> None:
    gpg = GnuPG(tmp_path / "gnupg")
    north = mail_lab.add_user("pgpnorth", "pw-n")
    south = mail_lab.add_user("pgpsouth", "pw-s")
    gpg.generate(f"North <{north}>")
    gpg.generate(f"South <{south}>")
    gpg.generate("Stranger <stranger@pbem.test>")
    with desk.sessions.begin() as s:
        gm = desk.gm(s)
        gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": True})
        gm.acts.assign("g1", "north", north, openpgp=gpg.export(north))
        gm.acts.assign("g1", "south", south, openpgp=gpg.export(south))
        gm.acts.start("g1")
    to = desk.address
    head = {"To": to, "Subject": "orders"}
    mails = {
        # Thunderbird, with the key attached: accepted.
        "north": thunderbird_mail(
            gpg,
            north,
            sheet("g1", "north", ["SEND SQN-1 A"]),
            {"From": north, **head},
            attach_key=gpg.export(north),
        ),
        # A stranger's key: refused by name.
        "stranger": thunderbird_mail(
            gpg,
            "stranger@pbem.test",
            sheet("g1", "north", ["SEND SQN-2 A"]),
            {"From": north, **head},
        ),
        # south's key for north's side: refused as the wrong side.
        "wrong-side": thunderbird_mail(
            gpg,
            south,
            sheet("g1", "north", ["SEND SQN-2 B"]),
            {"From": south, **head},
        ),
    }
    tampered = thunderbird_mail(
        gpg, north, sheet("g1", "north", ["SEND SQN-3 A"]), {"From": north, **head}
    ).replace(b"SQN-3 A", b"SQN-3 C")
    # clear-signed by south (pasted gpg --clearsign output): accepted, and the turn is in.
    clear = clearsigned_mail(
        gpg, south, sheet("g1", "south", ["SEND SQN-1 B"]), {"From": south, **head}
    )
    daemon = Daemon(desk.config)
    try:
        for name, raw in [*mails.items(), ("tampered", tampered)]:
            _send(mail_lab, north if name != "wrong-side" else south, to, raw)
        await daemon.once()
        _send(mail_lab, south, to, clear)
        # A replay: the same signature in a new mail (its own Message-ID; a copy of the
        # same Message-ID is filed as a copy, see test_senders).
        replay = re.sub(
            rb"Message-ID: <[^>]*>", b"Message-ID: <replay@pbem.test>", clear, flags=re.I
        )
        assert replay != clear
        _send(mail_lab, south, to, replay.replace(b"Subject: orders", b"Subject: again"))
        await daemon.once()
        await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()

    outcomes = [r.outcome for r in desk.mails()]
    assert outcomes == [
        "accepted 1, refused 0",
        "refused: unknown-key: the OpenPGP key "
        + gpg.fingerprint("stranger@pbem.test")
        + " that signed is not registered for this game",
        "refused: wrong-side: the key "
        + gpg.fingerprint(south)
        + " is registered for side south in game g1, not north",
        "refused: bad-signature: the OpenPGP signature does not match the signed text "
        "(was it edited after signing?)",
        "accepted 1, refused 0",
        outcomes[5],
    ]
    assert outcomes[5].startswith("refused: replay")
    north_text = [body_text(m) for m in answers(delivered(mail_lab, north))]
    assert any("Accepted (1)" in t for t in north_text)
    assert any(re.search(r"not registered for this game", t) for t in north_text)
    assert not any("pbem sign" in t for t in north_text)  # no hint for pasted blocks
    # Both sides in: adjudicated, each side got its report.
    for player in (north, south):
        assert [m for m in delivered(mail_lab, player) if m not in answers([m])]
    with desk.sessions() as s:
        assert [k.kind for k in seat_keys(s, "g1", "north")] == [KeyKind.OPENPGP]
