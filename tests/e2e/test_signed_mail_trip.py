"""Signed orders over the real trip: SMTP (aiosmtpd) → LMTP → Dovecot → IMAP fetch."""

from __future__ import annotations

import asyncio
import email.policy
import subprocess
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.core.errors import SignatureError
from pbem.intake.mime import message_object, parse_mail
from pbem.intake.openpgp import certificate_fingerprint as certificate_fingerprint_pgp
from pbem.intake.openpgp import find_signature, verify_openpgp
from pbem.intake.sheet import parse_sheet
from pbem.intake.signatures import generate_keypair, key_fingerprint, sign_block, verify_text
from pbem.intake.smime import (
    certificate_fingerprint,
    make_self_signed_certificate,
    sign_smime,
    signed_part_bytes,
    verify_smime,
)
from pbem.mail.imap import ImapInbox
from tests.gnupg import GnuPG, clearsigned_mail, thunderbird_mail
from tests.maillab import MailLab

SHEET = (
    "Game: coral-1\nSide: allied\nTurn: 1\nPhase: A-3\nNonce: 1234abcd5678ef90\n\n"
    "MOVE CV-5 0790 0791\n"
    "From 0791 the strike goes in\n"
    ".a line starting with a dot\n"
    "# Ångström — café\n"
)


async def _fetch_one(lab: MailLab, user: tuple[str, str]) -> bytes:
    address, password = user
    inbox = ImapInbox("127.0.0.1", lab.imap_port, address, password, command_timeout=10.0)
    try:
        [message] = await inbox.fetch()
    finally:
        await inbox.close()
    assert b"\r\n" in message.raw  # as IMAP returns it
    return message.raw


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
async def test_ed25519_block_survives_smtp_to_imap(
    mail_lab: MailLab, mail_user: tuple[str, str], cte: str
) -> None:
    private_pem, public = generate_keypair()
    message = EmailMessage(policy=email.policy.default)
    message["From"] = "allied@pbem.test"
    message["To"] = mail_user[0]
    message["Subject"] = "orders"
    message.set_content("Orders:\n\n" + sign_block(SHEET, private_pem), cte=cte)
    mail_lab.smtp_send("allied@pbem.test", [mail_user[0]], message.as_bytes())
    raw = await _fetch_one(mail_lab, mail_user)
    sheet = parse_sheet(verify_text(parse_mail(raw).text, {key_fingerprint(public): public}).text)
    assert sheet.lines[1] == (2, "From 0791 the strike goes in")
    assert sheet.lines[2] == (3, ".a line starting with a dot")


async def test_tampered_block_fails_after_the_trip(
    mail_lab: MailLab, mail_user: tuple[str, str]
) -> None:
    private_pem, public = generate_keypair()
    raw = (
        f"From: allied@pbem.test\nTo: {mail_user[0]}\nSubject: orders\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        + sign_block(SHEET, private_pem).replace("0791", "0792")
    ).encode()
    mail_lab.smtp_send("allied@pbem.test", [mail_user[0]], raw)
    received = await _fetch_one(mail_lab, mail_user)
    with pytest.raises(SignatureError, match="does not match"):
        verify_text(parse_mail(received).text, {key_fingerprint(public): public})


async def test_smime_mail_survives_smtp_to_imap_and_openssl_agrees(
    mail_lab: MailLab, mail_user: tuple[str, str], tmp_path: Path
) -> None:
    cert_pem, key_pem = make_self_signed_certificate("allied@pbem.test", key_type="rsa")
    headers = {"From": "allied@pbem.test", "To": mail_user[0], "Subject": "orders"}
    mail_lab.smtp_send(
        "allied@pbem.test", [mail_user[0]], sign_smime(SHEET, cert_pem, key_pem, headers)
    )
    raw = await _fetch_one(mail_lab, mail_user)
    registered = {certificate_fingerprint(cert_pem): cert_pem}
    sheet = verify_smime(message_object(raw), registered, raw=raw)
    assert parse_sheet(sheet.text).nonce == "1234abcd5678ef90"
    (tmp_path / "got.eml").write_bytes(raw)
    checked = subprocess.run(
        [
            "openssl",
            "smime",
            "-verify",
            "-noverify",
            "-in",
            str(tmp_path / "got.eml"),
            "-out",
            "/dev/null",
        ],
        capture_output=True,
    )
    assert checked.returncode == 0


async def test_pbem_send_to_the_lab_arrives_verifiable(
    mail_lab: MailLab, mail_user: tuple[str, str], tmp_path: Path
) -> None:
    key = tmp_path / "id"
    assert main(["keygen", "--out", str(key)]) == 0
    public = (tmp_path / "id.pub").read_text().strip()
    orders = tmp_path / "orders.txt"
    orders.write_text(SHEET.replace("Nonce: 1234abcd5678ef90\n", ""), encoding="utf-8")
    argv = [
        "send", str(orders), "--key", str(key), "--to", mail_user[0],
        "--from", "allied@pbem.test", "--smtp", f"127.0.0.1:{mail_lab.smtp_port}",
        "--cafile", str(mail_lab.tls_cert),
    ]  # fmt: skip
    # The CLI runs its own event loop: give it a thread of its own.
    assert await asyncio.to_thread(main, argv) == 0
    raw = await _fetch_one(mail_lab, mail_user)
    verified = verify_text(parse_mail(raw).text, {key_fingerprint(public): public})
    assert parse_sheet(verified.text).lines[0] == (1, "MOVE CV-5 0790 0791")


async def test_pbem_send_checks_the_servers_certificate(
    mail_lab: MailLab, mail_user: tuple[str, str], tmp_path: Path
) -> None:
    """The lab offers STARTTLS with a self-signed certificate: refused unless trusted."""
    key = tmp_path / "id"
    assert main(["keygen", "--out", str(key)]) == 0
    orders = tmp_path / "orders.txt"
    orders.write_text(SHEET, encoding="utf-8")
    argv = [
        "send", str(orders), "--key", str(key), "--to", mail_user[0],
        "--from", "allied@pbem.test", "--smtp", f"127.0.0.1:{mail_lab.smtp_port}",
    ]  # fmt: skip
    assert await asyncio.to_thread(main, argv) == 1
    assert mail_lab.count(mail_user[0]) == 0
    assert await asyncio.to_thread(main, [*argv, "--no-starttls"]) == 0
    assert mail_lab.count(mail_user[0]) == 1


@pytest.mark.parametrize("shape", ["thunderbird", "clearsigned"])
async def test_openpgp_mail_survives_smtp_to_imap_and_gnupg_agrees(
    mail_lab: MailLab, mail_user: tuple[str, str], tmp_path: Path, shape: str
) -> None:
    """Signed by real GnuPG, as Thunderbird (PGP/MIME, key attached) or a pasted
    clear-signed text; fetched by IMAP, verified by pbem, and by gpg on the parts."""
    gpg = GnuPG(tmp_path / "gnupg")
    gpg.generate("Allied <allied@pbem.test>")
    key = gpg.export("allied@pbem.test")
    headers = {"From": "allied@pbem.test", "To": mail_user[0], "Subject": "orders"}
    if shape == "thunderbird":
        sent = thunderbird_mail(gpg, "allied@pbem.test", SHEET, headers, attach_key=key)
    else:
        sent = clearsigned_mail(gpg, "allied@pbem.test", SHEET, headers)
    mail_lab.smtp_send("allied@pbem.test", [mail_user[0]], sent)
    raw = await _fetch_one(mail_lab, mail_user)
    found = find_signature(message_object(raw), raw, parse_mail(raw).text)
    assert found is not None and found.pgp_mime == (shape == "thunderbird")
    verified = verify_openpgp(found, {certificate_fingerprint_pgp(key): key})
    assert parse_sheet(verified.text).nonce == "1234abcd5678ef90"
    if shape == "thunderbird":
        signed, signature = signed_part_bytes(raw)
        (tmp_path / "signed").write_bytes(signed)
        (tmp_path / "signature.asc").write_bytes(signature.split(b"\r\n\r\n", 1)[1])
        gpg.run("--verify", str(tmp_path / "signature.asc"), str(tmp_path / "signed"))
    else:
        gpg.run("--verify", data=parse_mail(raw).text.encode("utf-8"))
    tampered = raw.replace(b"0790 0791", b"0790 0792")
    again = find_signature(message_object(tampered), tampered, parse_mail(tampered).text)
    assert again is not None
    with pytest.raises(SignatureError, match="does not match the signed text"):
        verify_openpgp(again, {certificate_fingerprint_pgp(key): key})
