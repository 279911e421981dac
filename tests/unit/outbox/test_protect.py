"""pbem.outbox.protect: mail pbem sends is signed with the game's key (PGP/MIME or
S/MIME) and, for a player who opted in, encrypted to the player's key (issue 14).

Checked with the tools players' clients stand for: GnuPG verifies and decrypts
the PGP/MIME mails, ``openssl smime`` the S/MIME ones. Nothing here checks a
signature with pbem's own code.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pysequoia
import pytest
from cryptography import x509

from pbem.config import SigningConfig
from pbem.intake.smime import make_self_signed_certificate, signed_part_bytes
from pbem.outbox.compose import compose_reply
from pbem.outbox.gamekeys import GameKeys, KeyFiles, generate_game_keys, load_game_keys
from pbem.outbox.protect import encrypt_smime, protect, sign_pgp_mime, sign_smime
from tests.gpgtool import Gpg, parse, validsig_primary

MODERATOR = "moderator@pbem.example"
PLAYER = "alice@example.org"
WHEN = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
# Trailing blanks, a "From " line and non-ASCII: what a mail path could alter.
TEXT = (
    "Turn 3, Allied report   \n"
    "From the Coral Sea: TF 17 sighted at 0912.\n"
    "Lexington — damaged.\n"
    "\tindented line\t\n"
)
HTML = "<p>Turn 3, Allied report</p>\n<p>Lexington &mdash; damaged.</p>\n"


def report(**overrides: Any) -> bytes:
    args: dict[str, Any] = {
        "to": PLAYER,
        "sender": f"pbem moderator <{MODERATOR}>",
        "subject": "g1: turn 3 report (allied)",
        "text": TEXT,
        "html": HTML,
        "in_reply_to": None,
        "message_id": "<pbem.report.abc@pbem.example>",
        "loop_token": MODERATOR,
        "date": WHEN,
        "attachments": [("map.png", "image/png", PNG)],
        "auto_submitted": "auto-generated",
    }
    args.update(overrides)
    return compose_reply(**args)


def assert_report_content(msg: EmailMessage) -> None:
    """The text, the HTML and the map picture, as a mail client shows them."""
    plain = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    assert plain is not None and html is not None
    assert plain.get_content().replace("\r\n", "\n") == TEXT
    assert html.get_content().replace("\r\n", "\n") == HTML
    pictures = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert [p.get_content() for p in pictures] == [PNG]


# --- keys and tools -------------------------------------------------------------------


@pytest.fixture(scope="module")
def key_files(tmp_path_factory: pytest.TempPathFactory) -> KeyFiles:
    return generate_game_keys(tmp_path_factory.mktemp("keys"), "pbem moderator", MODERATOR)


@pytest.fixture(scope="module")
def keys(key_files: KeyFiles) -> GameKeys:
    return load_game_keys(
        SigningConfig(
            openpgp_key=str(key_files.openpgp_key),
            smime_key=str(key_files.smime_key),
            smime_certificate=str(key_files.smime_certificate),
        )
    )


@pytest.fixture(scope="module")
def player_gpg(tmp_path_factory: pytest.TempPathFactory, key_files: KeyFiles) -> Iterator[Gpg]:
    """Alice's GnuPG: her own key made by gpg, the game's public key imported."""
    gpg = Gpg(tmp_path_factory.mktemp("gnupg"))
    gpg.make_key(f"Alice <{PLAYER}>")
    gpg.import_key(key_files.openpgp_public)
    yield gpg
    gpg.close()


def player_cert(gpg: Gpg) -> pysequoia.Cert:
    return gpg.cert(PLAYER)


def gpg_verify(gpg: Gpg, tmp_path: Path, raw: bytes) -> subprocess.CompletedProcess[bytes]:
    return gpg.verify_pgp_mime(raw, tmp_path)


def openssl(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["openssl", "smime", *args], input=stdin, capture_output=True, timeout=60, check=False
    )


# --- signing --------------------------------------------------------------------------


def test_pgp_mime_signed_report_verifies_with_gnupg(
    keys: GameKeys, player_gpg: Gpg, tmp_path: Path
) -> None:
    raw = protect(report(), keys)
    msg = parse(raw)
    assert msg.get_content_type() == "multipart/signed"
    assert msg.get_param("protocol") == "application/pgp-signature"
    assert msg.get_param("micalg") == "pgp-sha512"
    assert msg["Message-ID"] == "<pbem.report.abc@pbem.example>"
    assert msg["Subject"] == "g1: turn 3 report (allied)"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert len(msg.get_all("Content-Type", [])) == 1

    verified = gpg_verify(player_gpg, tmp_path, raw)
    assert verified.returncode == 0, verified.stderr
    assert keys.openpgp is not None
    fingerprint = keys.openpgp.extract_certificate().fingerprint.upper()
    assert b"[GNUPG:] GOODSIG" in verified.stderr
    assert validsig_primary(verified) == fingerprint  # the game's key, nobody else's

    # Everything the player reads is inside the signed part.
    signed, _ = signed_part_bytes(raw)
    inner = parse(signed)
    assert_report_content(inner)
    assert_report_content(msg)  # and a client finds it in the whole mail as before


def test_a_changed_byte_fails_gnupg(keys: GameKeys, player_gpg: Gpg, tmp_path: Path) -> None:
    raw = protect(report(), keys)
    forged = raw.replace(b"damaged", b"sunk!!!", 1)
    assert forged != raw
    verified = gpg_verify(player_gpg, tmp_path, forged)
    assert verified.returncode != 0
    assert b"BADSIG" in verified.stderr


def test_lines_a_mail_path_could_alter_go_quoted_printable(keys: GameKeys) -> None:
    assert keys.openpgp is not None
    raw = sign_pgp_mime(report(), keys.openpgp)
    signed, _ = signed_part_bytes(raw)
    assert signed.isascii()
    assert not any(line.endswith((b" ", b"\t")) for line in signed.split(b"\r\n"))
    assert b"\r\nFrom " not in signed
    assert b"\n" not in signed.replace(b"\r\n", b"")  # CRLF only


def test_smime_signed_report_verifies_with_openssl(keys: GameKeys, key_files: KeyFiles) -> None:
    assert keys.smime is not None
    raw = sign_smime(report(), keys.smime)
    msg = parse(raw)
    assert msg.get_content_type() == "multipart/signed"
    assert msg.get_param("protocol") == "application/pkcs7-signature"
    assert_report_content(msg)

    verified = openssl("-verify", "-CAfile", str(key_files.smime_certificate), stdin=raw)
    assert verified.returncode == 0, verified.stderr
    assert b"Verification successful" in verified.stderr
    assert_report_content(parse(verified.stdout))

    forged = openssl(
        "-verify",
        "-CAfile",
        str(key_files.smime_certificate),
        stdin=raw.replace(b"damaged", b"sunk!!!", 1),
    )
    assert forged.returncode != 0


def test_smime_signs_when_the_game_has_no_openpgp_key(keys: GameKeys) -> None:
    raw = protect(report(), GameKeys(smime=keys.smime))
    assert parse(raw).get_param("protocol") == "application/pkcs7-signature"


def test_without_keys_the_mail_is_unchanged() -> None:
    assert protect(report(), GameKeys()) == report()


def test_plain_answer_without_attachments_is_signed_too(
    keys: GameKeys, player_gpg: Gpg, tmp_path: Path
) -> None:
    raw = protect(report(text="Orders understood.\n", html=None, attachments=()), keys)
    assert parse(raw).get_content_type() == "multipart/signed"
    assert gpg_verify(player_gpg, tmp_path, raw).returncode == 0
    body = parse(raw).get_body(("plain",))
    assert body is not None and body.get_content() == "Orders understood.\r\n"  # as unsigned


# --- encryption -----------------------------------------------------------------------


def test_pgp_mime_encrypted_report_decrypts_with_gnupg(keys: GameKeys, player_gpg: Gpg) -> None:
    raw = protect(report(), keys, encrypt_to=player_cert(player_gpg))
    assert b"Lexington" not in raw and b"PNG" not in raw
    msg = parse(raw)
    assert msg.get_content_type() == "multipart/encrypted"
    assert msg.get_param("protocol") == "application/pgp-encrypted"
    version, payload = msg.iter_parts()
    assert version.get_content_type() == "application/pgp-encrypted"
    assert version.get_content().strip() == b"Version: 1"
    assert payload.get_content_type() == "application/octet-stream"
    armoured = payload.get_content()
    assert isinstance(armoured, bytes)

    decrypted = player_gpg.decrypt(armoured)
    assert decrypted.returncode == 0, decrypted.stderr
    assert b"DECRYPTION_OKAY" in decrypted.stderr
    assert b"[GNUPG:] GOODSIG" in decrypted.stderr  # signed inside (sign-then-encrypt)
    assert keys.openpgp is not None
    assert validsig_primary(decrypted) == keys.openpgp.extract_certificate().fingerprint.upper()
    assert_report_content(parse(decrypted.stdout))


def test_smime_encrypted_report_decrypts_and_verifies_with_openssl(
    keys: GameKeys, key_files: KeyFiles, tmp_path: Path
) -> None:
    cert_pem, key_pem = make_self_signed_certificate(PLAYER, key_type="rsa")
    (tmp_path / "alice.pem").write_bytes(cert_pem)
    (tmp_path / "alice.key").write_bytes(key_pem)
    raw = protect(report(), keys, encrypt_to=x509.load_pem_x509_certificate(cert_pem))
    assert b"Lexington" not in raw
    msg = parse(raw)
    assert msg.get_content_type() == "application/pkcs7-mime"
    assert msg.get_param("smime-type") == "enveloped-data"

    decrypted = openssl(
        "-decrypt",
        "-recip",
        str(tmp_path / "alice.pem"),
        "-inkey",
        str(tmp_path / "alice.key"),
        stdin=raw,
    )
    assert decrypted.returncode == 0, decrypted.stderr
    inner = decrypted.stdout
    assert parse(inner).get_param("protocol") == "application/pkcs7-signature"
    verified = openssl("-verify", "-CAfile", str(key_files.smime_certificate), stdin=inner)
    assert verified.returncode == 0, verified.stderr
    assert_report_content(parse(verified.stdout))


def test_smime_encryption_refuses_a_non_rsa_certificate(keys: GameKeys) -> None:
    cert_pem, _ = make_self_signed_certificate(PLAYER, key_type="ec")
    with pytest.raises(ValueError, match="only RSA certificates"):
        encrypt_smime(report(), x509.load_pem_x509_certificate(cert_pem))


def test_pgp_encryption_without_an_openpgp_key_of_our_own_keeps_the_smime_signature(
    keys: GameKeys, player_gpg: Gpg
) -> None:
    raw = protect(report(), GameKeys(smime=keys.smime), encrypt_to=player_cert(player_gpg))
    payload = list(parse(raw).iter_parts())[1].get_content()
    decrypted = player_gpg.decrypt(payload)
    assert decrypted.returncode == 0, decrypted.stderr
    inner = parse(decrypted.stdout)
    assert inner.get_param("protocol") == "application/pkcs7-signature"
    assert_report_content(inner)
