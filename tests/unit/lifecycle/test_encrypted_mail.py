"""Opt-in encryption per player (issue 14): ``ASSIGN ... encrypt=yes`` and ``KEY game
side ENCRYPT yes|no``. Reports and answers to a player who opted in are encrypted
to the player's key and decrypt with the player's own tools (GnuPG, openssl) to the
report the game wrote; mail to a player who did not opt in is signed, not encrypted.
Runs on SQLite and PostgreSQL (the seats.encrypt column, migration 0009)."""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from sqlalchemy import select

from pbem.config import Config, SecretsConfig, SigningConfig
from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.intake.smime import make_self_signed_certificate
from pbem.lifecycle import moderator
from pbem.outbox.gamekeys import KeyFiles, generate_game_keys
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.storage.enums import OutboundKind
from pbem.storage.models import OutboundMail, Report
from tests.gpgtool import Gpg, parse, validsig_primary

NORTH = "north@example.org"
SOUTH = "south@example.org"


@pytest.fixture(scope="module")
def game_key_files(tmp_path_factory: pytest.TempPathFactory) -> KeyFiles:
    return generate_game_keys(tmp_path_factory.mktemp("keys"), "pbem moderator", "pbem@example.org")


@pytest.fixture
def config(tmp_path: Path, game_key_files: KeyFiles) -> Config:
    return Config(
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        signing=SigningConfig(
            openpgp_key=str(game_key_files.openpgp_key),
            smime_key=str(game_key_files.smime_key),
            smime_certificate=str(game_key_files.smime_certificate),
        ),
        base_dir=tmp_path,
    )


@pytest.fixture(scope="module")
def north_gpg(tmp_path_factory: pytest.TempPathFactory, game_key_files: KeyFiles) -> Iterator[Gpg]:
    """North's GnuPG: a key made by gpg (signing + encryption subkey), the game's key imported."""
    gpg = Gpg(tmp_path_factory.mktemp("north-gnupg"))
    gpg.make_key(f"North <{NORTH}>")
    gpg.import_key(game_key_files.openpgp_public)
    yield gpg
    gpg.close()


def openpgp_word(gpg: Gpg) -> str:
    """The KEY word the CLI makes of @north.asc."""
    return "openpgp:" + base64.b64encode(gpg.export(NORTH)).decode()


def do(table, line: str) -> str:  # type: ignore[no-untyped-def]
    return table.run(lambda gm: moderator.execute(gm, line))


def mails_to(table, address: str, kind: OutboundKind) -> list[bytes]:  # type: ignore[no-untyped-def]
    def read(gm) -> list[bytes]:  # type: ignore[no-untyped-def]
        rows = gm.desk.session.scalars(
            select(OutboundMail)
            .where(OutboundMail.recipient == address, OutboundMail.kind == kind)
            .order_by(OutboundMail.id)
        )
        return [open_outbound(gm.desk.key, row) for row in rows]

    return table.run(read)


def report_texts(table, side: str) -> list[str]:  # type: ignore[no-untyped-def]
    return table.run(
        lambda gm: list(
            gm.desk.session.scalars(
                select(Report.text).where(Report.audience == side).order_by(Report.id)
            )
        )
    )


def plain(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert isinstance(text, str)
    return text.replace("\r\n", "\n")


def start_game(table, north_key: str, south_key: str, north_options: str = "") -> str:  # type: ignore[no-untyped-def]
    do(table, "CREATE g1 demo duel")
    assigned = do(table, f"ASSIGN g1 north {NORTH} {north_key} {north_options}".strip())
    do(table, f"ASSIGN g1 south {SOUTH} {south_key}")
    do(table, "START g1")
    return assigned


def test_a_player_who_opted_in_gets_reports_only_his_gnupg_can_read(
    table, north_gpg: Gpg, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    south_key = generate_keypair("south")[1]
    assigned = start_game(table, openpgp_word(north_gpg), south_key, "encrypt=yes")
    fingerprint = north_gpg.cert(NORTH).fingerprint
    assert f"encrypted to openpgp key {fingerprint}" in assigned

    (north_raw,) = mails_to(table, NORTH, OutboundKind.REPORT)
    (north_text,) = report_texts(table, "north")
    assert north_text.splitlines()[0].encode() not in north_raw  # nothing readable on the way
    msg = parse(north_raw)
    assert msg.get_content_type() == "multipart/encrypted"
    armoured = list(msg.iter_parts())[1].get_content()
    decrypted = north_gpg.decrypt(armoured)
    assert decrypted.returncode == 0, decrypted.stderr
    assert b"[GNUPG:] DECRYPTION_OKAY" in decrypted.stderr
    assert validsig_primary(decrypted).lower() == north_gpg.fingerprint("pbem@example.org")
    assert plain(parse(decrypted.stdout)) == north_text.replace("\r\n", "\n").rstrip("\n") + "\n"

    # South did not opt in: his report is signed, readable, not encrypted.
    (south_raw,) = mails_to(table, SOUTH, OutboundKind.REPORT)
    (south_text,) = report_texts(table, "south")
    south = parse(south_raw)
    assert south.get_content_type() == "multipart/signed"
    assert plain(south) == south_text.replace("\r\n", "\n").rstrip("\n") + "\n"
    verified = north_gpg.verify_pgp_mime(south_raw, tmp_path)
    assert verified.returncode == 0, verified.stderr

    assert [
        (e["payload"]["side"], e["payload"]["encrypt"], e["payload"]["fingerprint"])
        for e in table.run(lambda gm: journal.entries(gm.desk.session, "g1"))
        if e["kind"] == "encryption-chosen"
    ] == [("north", True, fingerprint)]


def test_opting_out_sends_the_next_reports_signed_only(table, north_gpg: Gpg) -> None:  # type: ignore[no-untyped-def]
    start_game(table, openpgp_word(north_gpg), generate_keypair("south")[1], "encrypt=yes")
    answer = do(table, "KEY g1 north ENCRYPT no")
    assert answer == "answers and reports to north in g1 are no longer encrypted"
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.phases.submit("g1", "south", 1, "plot", ["SEND SQN-1 B"]))
    table.run(lambda gm: gm.clock.tick("g1"))
    first, *later = mails_to(table, NORTH, OutboundKind.REPORT)
    assert parse(first).get_content_type() == "multipart/encrypted"
    assert later and all(parse(r).get_content_type() == "multipart/signed" for r in later)
    again = do(table, "KEY g1 north ENCRYPT yes")
    fingerprint = north_gpg.cert(NORTH).fingerprint
    assert again == f"answers and reports to north in g1 are encrypted to openpgp key {fingerprint}"


def test_encrypt_needs_a_key_that_can_encrypt(table) -> None:  # type: ignore[no-untyped-def]
    do(table, "CREATE g1 demo duel")
    with pytest.raises(LifecycleError, match="has no key mail can be encrypted to"):
        do(table, f"ASSIGN g1 north {NORTH} {generate_keypair('north')[1]} encrypt=yes")
    # Refused as a whole: no player was seated half-way, so ASSIGN works without it.
    assert "plays north" in do(table, f"ASSIGN g1 north {NORTH} {generate_keypair('n')[1]}")
    do(table, "CREATE g2 demo duel")
    with pytest.raises(LifecycleError, match="is not yes or no"):
        do(table, f"ASSIGN g2 north {NORTH} {generate_keypair('north')[1]} encrypt=maybe")


def test_an_rsa_smime_certificate_takes_encrypted_mail_openssl_decrypts(
    table, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    cert_pem, key_pem = make_self_signed_certificate(NORTH, key_type="rsa")
    der = x509.load_pem_x509_certificate(cert_pem).public_bytes(Encoding.DER)
    start_game(
        table, "smime:" + base64.b64encode(der).decode(), generate_keypair("s")[1], "encrypt=yes"
    )
    (raw,) = mails_to(table, NORTH, OutboundKind.REPORT)
    assert parse(raw).get_content_type() == "application/pkcs7-mime"
    (tmp_path / "north.pem").write_bytes(cert_pem)
    (tmp_path / "north.key").write_bytes(key_pem)
    decrypted = subprocess.run(
        [
            "openssl",
            "smime",
            "-decrypt",
            "-recip",
            str(tmp_path / "north.pem"),
            "-inkey",
            str(tmp_path / "north.key"),
        ],
        input=raw,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert decrypted.returncode == 0, decrypted.stderr
    (text,) = report_texts(table, "north")
    inner = parse(decrypted.stdout)
    assert inner.get_param("protocol") == "application/pkcs7-signature"  # S/MIME-signed inside
    assert plain(inner) == text.replace("\r\n", "\n").rstrip("\n") + "\n"
