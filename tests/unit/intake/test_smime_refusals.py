"""Precise S/MIME answers (issue 14): a foreign CA, a look-alike CA, a self-signed
certificate, another certificate of the same CA, an expired certificate each get
their own refusal; opaque ``application/pkcs7-mime`` signed-data is verified and
its content read (made by ``openssl smime -nodetach`` and by cryptography)."""

from __future__ import annotations

import base64
import datetime
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.serialization import pkcs7

from pbem.core.errors import MailSignatureError
from pbem.intake.mime import message_object
from pbem.intake.sheet import parse_sheet
from pbem.intake.smime import (
    certificate_fingerprint,
    is_smime,
    make_self_signed_certificate,
    sign_smime,
    signer_certificate_fingerprints,
    verify_smime,
    verify_smime_bytes,
)
from tests.smimeca import CA, NOW

ORDERS = "Game: coral-1\nSide: japanese\nTurn: 2\nPhase: J-1\nNonce: 0a0b0c0d\n\nMOVE CV-Akagi 0790 0791\n"
HEADERS = {"From": "japan@example.org", "To": "moderator@example.org", "Subject": "orders"}


@pytest.fixture(scope="module")
def genuine_ca() -> CA:
    return CA("Example Mail CA")


@pytest.fixture(scope="module")
def registered(genuine_ca: CA) -> dict[str, bytes]:
    cert, _ = genuine_ca.issue("japan@example.org")
    return {certificate_fingerprint(cert): cert}


def _refusal(raw: bytes, registered: dict[str, bytes]) -> MailSignatureError:
    with pytest.raises(MailSignatureError) as exc:
        verify_smime_bytes(raw, registered)
    return exc.value


def test_foreign_ca(registered: dict[str, bytes]) -> None:
    raw = sign_smime(ORDERS, *CA("Other Trust Services").issue("japan@example.org"), HEADERS)
    refusal = _refusal(raw, registered)
    assert refusal.code == "unknown-key"
    assert "issued by 'Other Trust Services', a CA none of the certificates" in refusal.message


def test_look_alike_ca(registered: dict[str, bytes]) -> None:
    raw = sign_smime(ORDERS, *CA("Example Mail CA").issue("japan@example.org"), HEADERS)
    refusal = _refusal(raw, registered)
    assert "has the name of your registered certificate's CA ('Example Mail CA')" in (
        refusal.message
    )
    assert "look-alike CA" in refusal.message


def test_another_certificate_of_the_same_ca(genuine_ca: CA, registered: dict[str, bytes]) -> None:
    raw = sign_smime(ORDERS, *genuine_ca.issue("japan@example.org"), HEADERS)
    refusal = _refusal(raw, registered)
    assert "another certificate from the CA of your registered one" in refusal.message
    assert "KEY game side ADD" in refusal.message


def test_self_signed(registered: dict[str, bytes]) -> None:
    raw = sign_smime(ORDERS, *make_self_signed_certificate("japan@example.org"), HEADERS)
    refusal = _refusal(raw, registered)
    assert "self-signed certificate ('japan@example.org'" in refusal.message


def test_unregistered_and_expired_is_refused_as_expired(registered: dict[str, bytes]) -> None:
    old = NOW - datetime.timedelta(days=400)
    raw = sign_smime(ORDERS, *CA("Gone CA").issue("japan@example.org", days=30, start=old), HEADERS)
    refusal = _refusal(raw, registered)
    assert refusal.code == "expired-key"
    assert refusal.message.startswith(
        f"the mail is signed with an S/MIME certificate that expired on "
        f"{old + datetime.timedelta(days=30):%Y-%m-%d} ('japan@example.org', issued by 'Gone CA'"
    )


def test_an_expired_certificate_of_the_same_ca_is_refused_as_expired(
    genuine_ca: CA, registered: dict[str, bytes]
) -> None:
    """Not as "another certificate from your CA": registering it would not help."""
    old = NOW - datetime.timedelta(days=400)
    raw = sign_smime(ORDERS, *genuine_ca.issue("japan@example.org", days=30, start=old), HEADERS)
    refusal = _refusal(raw, registered)
    assert refusal.code == "expired-key"
    assert "expired on" in refusal.message and "another certificate" not in refusal.message


def test_an_expired_look_alike_is_refused_as_a_look_alike(registered: dict[str, bytes]) -> None:
    old = NOW - datetime.timedelta(days=400)
    issued = CA("Example Mail CA").issue("japan@example.org", days=30, start=old)
    refusal = _refusal(sign_smime(ORDERS, *issued, HEADERS), registered)
    assert refusal.code == "unknown-key"
    assert "look-alike CA" in refusal.message and "it also expired on" in refusal.message


def test_registered_but_expired(genuine_ca: CA) -> None:
    old = NOW - datetime.timedelta(days=400)
    cert, key = genuine_ca.issue("japan@example.org", days=30, start=old)
    raw = sign_smime(ORDERS, cert, key, HEADERS)
    refusal = _refusal(raw, {certificate_fingerprint(cert): cert})
    assert refusal.code == "expired-key"
    expiry = x509.load_pem_x509_certificate(cert).not_valid_after_utc
    assert refusal.message == f"the S/MIME certificate expired on {expiry:%Y-%m-%d}"


def test_the_mail_names_the_certificates_it_carries(registered: dict[str, bytes]) -> None:
    cert, key = make_self_signed_certificate("japan@example.org")
    raw = sign_smime(ORDERS, cert, key, HEADERS)
    assert signer_certificate_fingerprints(message_object(raw), raw) == {
        certificate_fingerprint(cert)
    }


# --- opaque signed-data ------------------------------------------------------------------


def _entity() -> bytes:
    return (
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"
        + ORDERS.replace("\n", "\r\n").encode()
    )


def _headers() -> bytes:
    return b"".join(f"{k}: {v}\r\n".encode() for k, v in HEADERS.items())


def test_opaque_signed_data_from_openssl_verifies(tmp_path: Path) -> None:
    cert, key = make_self_signed_certificate("japan@example.org")
    (tmp_path / "cert.pem").write_bytes(cert)
    (tmp_path / "key.pem").write_bytes(key)
    (tmp_path / "entity").write_bytes(_entity())
    raw = subprocess.run(
        ["openssl", "smime", "-sign", "-nodetach", "-binary", "-in", str(tmp_path / "entity"),
         "-signer", str(tmp_path / "cert.pem"), "-inkey", str(tmp_path / "key.pem")],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    raw = _headers() + raw
    assert b"pkcs7-mime" in raw and b"signed-data" in raw
    assert is_smime(message_object(raw))
    verified = verify_smime(message_object(raw), {certificate_fingerprint(cert): cert}, raw=raw)
    assert parse_sheet(verified.text).lines[0][1] == "MOVE CV-Akagi 0790 0791"


def test_opaque_signed_data_from_cryptography_verifies_and_tampering_fails() -> None:
    cert, key = make_self_signed_certificate("japan@example.org")
    signed = (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(_entity())
        .add_signer(
            x509.load_pem_x509_certificate(cert),
            serialization.load_pem_private_key(key, password=None),  # type: ignore[arg-type]
            hashes.SHA256(),
        )
        .sign(serialization.Encoding.DER, [pkcs7.PKCS7Options.Binary])
    )

    def mail(der: bytes) -> bytes:
        return (
            _headers()
            + b"MIME-Version: 1.0\r\nContent-Type: application/pkcs7-mime; smime-type=signed-data;"
            b' name="smime.p7m"\r\nContent-Transfer-Encoding: base64\r\n\r\n'
            + base64.encodebytes(der).replace(b"\n", b"\r\n")
        )

    registered = {certificate_fingerprint(cert): cert}
    assert "MOVE CV-Akagi" in verify_smime_bytes(mail(signed), registered).text
    tampered = signed.replace(b"0790 0791", b"0790 0891")
    assert tampered != signed
    with pytest.raises(MailSignatureError, match="does not match the signed text"):
        verify_smime_bytes(mail(tampered), registered)


def test_encrypted_smime_mail_is_refused_as_encrypted() -> None:
    cert, _ = make_self_signed_certificate("moderator@example.org", key_type="rsa")
    enveloped = (
        pkcs7.PKCS7EnvelopeBuilder()
        .set_data(_entity())
        .add_recipient(x509.load_pem_x509_certificate(cert))
        .encrypt(serialization.Encoding.SMIME, [])
    )
    raw = _headers() + enveloped.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    with pytest.raises(MailSignatureError, match="S/MIME-encrypted") as exc:
        verify_smime_bytes(raw, {})
    assert exc.value.code == "encrypted"
