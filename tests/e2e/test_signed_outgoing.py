"""Every mail pbem sends arrives signed with the game's key (issue 14, "Reports only
the player can read, and that provably come from the moderator").

Through the real lab: the daemon answers and reports by SMTP, Dovecot stores the
mail, and the player's GnuPG (with the game's published key) verifies what
arrived. A report the opponent forges does not verify.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.outbox.gamekeys import load_game_keys
from pbem.service.daemon import Daemon
from tests.e2e.helpers import (
    ModeratorDesk,
    answers,
    body_text,
    compose,
    game_keys,
    moderator_desk,
    new_player,
    parse,
    signed,
    submit,
)
from tests.gpgtool import Gpg, validsig_primary
from tests.maillab import MailLab


@pytest.fixture
def desk(mail_lab: MailLab, database_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, database_url, tmp_path)


@pytest.fixture
def player_gpg(tmp_path: Path) -> Iterator[Gpg]:
    """A player's GnuPG with the game's public key imported, as docs/players-openpgp.md says."""
    gpg = Gpg(tmp_path / "gnupg")
    gpg.import_key(game_keys().openpgp_public)
    yield gpg
    gpg.close()


async def test_answers_and_reports_arrive_signed_and_verify_with_gnupg(
    mail_lab: MailLab, desk: ModeratorDesk, player_gpg: Gpg, tmp_path: Path
) -> None:
    players = {side: new_player(mail_lab, side) for side in ("north", "south")}
    desk.demo_game("g1", list(players.values()))
    north, south = players["north"], players["south"]
    daemon = Daemon(desk.config)
    try:
        for player, orders in ((north, ["SEND SQN-1 A"]), (south, ["SEND SQN-1 C"])):
            submit(
                mail_lab,
                compose(player.address, desk.address, "orders", signed(player, "g1", orders)),
            )
        await daemon.once()
        await daemon.once()
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()

    game_key = load_game_keys(desk.config.signing).openpgp
    assert game_key is not None
    fingerprint = game_key.extract_certificate().fingerprint.upper()
    received = mail_lab.list_messages(north.address)
    kinds = {str(parse(raw)["Message-ID"]).split(".")[1] for raw in received}
    assert kinds == {"answer", "report"}  # the answer and the turn's report, at least
    for raw in received:
        msg = parse(raw)
        assert msg.get_content_type() == "multipart/signed", msg["Subject"]
        assert msg.get_param("protocol") == "application/pgp-signature"
        verified = player_gpg.verify_pgp_mime(raw, tmp_path)
        assert verified.returncode == 0, verified.stderr
        assert validsig_primary(verified) == fingerprint
        assert body_text(msg)  # a client still finds the text

    answer = answers([parse(raw) for raw in received])[0]
    assert "Accepted (1)" in body_text(answer)

    # The opponent forges a report: same headers, other text. It does not verify.
    report = next(raw for raw in received if b"<pbem.report." in raw)
    plain = parse(report).get_body(("plain",))
    assert plain is not None
    first_line = plain.get_content().splitlines()[0].encode()
    forged = report.replace(first_line, first_line[::-1], 1)
    assert forged != report
    refused = player_gpg.verify_pgp_mime(forged, tmp_path)
    assert refused.returncode != 0 and b"[GNUPG:] BADSIG" in refused.stderr


async def test_a_player_who_opted_in_reads_his_report_with_gnupg_the_other_side_in_clear(
    mail_lab: MailLab, desk: ModeratorDesk, player_gpg: Gpg, tmp_path: Path
) -> None:
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    player_gpg.make_key(f"North <{north.address}>")
    exported = player_gpg.export(north.address)
    with desk.sessions.begin() as s:
        gm = desk.gm(s)
        gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": True})
        gm.acts.assign("g1", "north", north.address, public_key=north.public, openpgp=exported)
        gm.acts.assign("g1", "south", south.address, public_key=south.public)
        gm.acts.set_encryption("g1", "north", True)
        gm.acts.start("g1")
    daemon = Daemon(desk.config)
    try:
        await daemon.once()  # sends the opening reports
    finally:
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()

    (north_raw,) = mail_lab.list_messages(north.address)
    (south_raw,) = mail_lab.list_messages(south.address)
    encrypted = parse(north_raw)
    assert encrypted.get_content_type() == "multipart/encrypted"
    assert b"SEND SQN-1" not in north_raw  # the order form is inside, unreadable
    decrypted = player_gpg.decrypt(list(encrypted.iter_parts())[1].get_content())
    assert decrypted.returncode == 0, decrypted.stderr
    game_key = load_game_keys(desk.config.signing).openpgp
    assert game_key is not None
    assert validsig_primary(decrypted) == game_key.extract_certificate().fingerprint.upper()
    assert "SEND SQN-1" in body_text(parse(decrypted.stdout))

    clear = parse(south_raw)
    assert clear.get_content_type() == "multipart/signed"
    assert "SEND SQN-1" in body_text(clear)
