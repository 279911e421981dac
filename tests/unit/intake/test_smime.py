"""S/MIME signed order mail: our verifier against cryptography- and OpenSSL-signed mail,
cross-checked with ``openssl smime -verify``."""

from __future__ import annotations

import base64
import datetime
import email.policy
import quopri
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from pbem.core.errors import IntakeError, SignatureError
from pbem.intake.mime import message_object, parse_mail
from pbem.intake.sheet import parse_sheet
from pbem.intake.signatures import canonical_orders, generate_keypair, sign_block
from pbem.intake.smime import (
    certificate_fingerprint,
    make_self_signed_certificate,
    sign_smime,
    signed_part_bytes,
    verify_smime,
    verify_smime_bytes,
)

ORDERS = (
    "Game: coral-1\n"
    "Side: japanese\n"
    "Turn: 2\n"
    "Phase: J-1\n"
    "Nonce: c0ffee00c0ffee00\n"
    "\n"
    "MOVE CV-Akagi 0790 0791\n"
    "# Kidō Butai turns north\n"
    "From 0791 strike 0892\n"
)
HEADERS = {"From": "japan@example.org", "To": "moderator@example.org", "Subject": "orders"}


@pytest.fixture(scope="module", params=["ec", "rsa"])
def identity(request: pytest.FixtureRequest) -> tuple[bytes, bytes]:
    return make_self_signed_certificate("japan@example.org", key_type=request.param)


def _registered(cert_pem: bytes) -> dict[str, bytes]:
    return {certificate_fingerprint(cert_pem): cert_pem}


def _openssl_verifies(raw: bytes, tmp_path: Path) -> bool:
    """The cross-check: OpenSSL's verdict on the signature (chain checks off)."""
    path = tmp_path / "check.eml"
    path.write_bytes(raw)
    result = subprocess.run(
        ["openssl", "smime", "-verify", "-noverify", "-in", str(path), "-out", "/dev/null"],
        capture_output=True,
    )
    return result.returncode == 0


def _openssl_sign(
    tool: str, entity: bytes, identity: tuple[bytes, bytes], tmp_path: Path, *extra: str
) -> bytes:
    """Sign a MIME entity with ``openssl smime`` or ``openssl cms`` as a mail client would."""
    cert_pem, key_pem = identity
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    (tmp_path / "key.pem").write_bytes(key_pem)
    (tmp_path / "entity").write_bytes(entity)
    command = [
        "openssl", tool, "-sign", "-in", str(tmp_path / "entity"),
        "-signer", str(tmp_path / "cert.pem"), "-inkey", str(tmp_path / "key.pem"),
        "-from", HEADERS["From"], "-to", HEADERS["To"], "-subject", HEADERS["Subject"],
        *extra,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, check=True).stdout


def _entity(text: str, *, cte: str = "quoted-printable", flowed: bool = False) -> bytes:
    """A text/plain MIME entity with CRLF line endings, ready to be signed."""
    body = text.encode("utf-8")
    if cte == "quoted-printable":
        body = quopri.encodestring(body)
    elif cte == "base64":
        body = base64.encodebytes(body)
    params = "; format=flowed" if flowed else ""
    head = f"Content-Type: text/plain; charset=utf-8{params}\nContent-Transfer-Encoding: {cte}\n\n"
    return (head.encode("ascii") + body).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


# --- signed by cryptography -------------------------------------------------------------


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
def test_cryptography_signed_mail_verifies(
    identity: tuple[bytes, bytes], cte: str, tmp_path: Path
) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS, cte=cte)
    assert b'protocol="application/x-pkcs7-signature"' in raw
    sheet = verify_smime_bytes(raw, _registered(identity[0]))
    assert sheet.text == canonical_orders(ORDERS)
    assert sheet.method == "smime"
    assert sheet.key_fingerprint == certificate_fingerprint(identity[0])
    assert len(sheet.signature_digest) == 64
    assert parse_sheet(sheet.text).side == "japanese"
    assert _openssl_verifies(raw, tmp_path)


def test_new_style_pkcs7_signature_type_verifies(
    identity: tuple[bytes, bytes], tmp_path: Path
) -> None:
    """Renaming the type outside the signed part (as newer clients write it) changes nothing."""
    raw = sign_smime(ORDERS, *identity, HEADERS).replace(
        b"application/x-pkcs7-signature", b"application/pkcs7-signature"
    )
    assert b"x-pkcs7" not in raw
    assert verify_smime_bytes(raw, _registered(identity[0])).text == canonical_orders(ORDERS)
    assert _openssl_verifies(raw, tmp_path)


@pytest.mark.parametrize("line_ending", [b"\n", b"\r\n"])
def test_line_endings_changed_in_transit_still_verify(
    identity: tuple[bytes, bytes], line_ending: bytes
) -> None:
    """Maildir stores LF, IMAP returns CRLF: the signed part is hashed in CRLF form."""
    raw = sign_smime(ORDERS, *identity, HEADERS).replace(b"\r\n", b"\n")
    raw = raw.replace(b"\n", line_ending)
    assert verify_smime_bytes(raw, _registered(identity[0])).text == canonical_orders(ORDERS)


def test_verify_from_the_intake_message_object(identity: tuple[bytes, bytes]) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS)
    assert parse_mail(raw).smime_signed
    sheet = verify_smime(message_object(raw), _registered(identity[0]), raw=raw)
    assert sheet.text == canonical_orders(ORDERS)
    # Without the raw bytes the untouched message is re-serialised, which still matches.
    assert verify_smime(message_object(raw), _registered(identity[0])).text == sheet.text


def test_tampered_signed_text_fails_here_and_in_openssl(
    identity: tuple[bytes, bytes], tmp_path: Path
) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS, cte="8bit")
    tampered = raw.replace(b"0892", b"0893")
    assert tampered != raw
    with pytest.raises(SignatureError, match=r"does not match the signed text"):
        verify_smime_bytes(tampered, _registered(identity[0]))
    assert not _openssl_verifies(tampered, tmp_path)


def test_tampered_signed_part_header_fails(identity: tuple[bytes, bytes], tmp_path: Path) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS, cte="8bit")
    tampered = raw.replace(b'charset="utf-8"', b'charset="iso-8859-1"')
    assert tampered != raw
    with pytest.raises(SignatureError, match="does not match"):
        verify_smime_bytes(tampered, _registered(identity[0]))
    assert not _openssl_verifies(tampered, tmp_path)


def test_unregistered_certificate_fails(identity: tuple[bytes, bytes]) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS)
    other, _ = make_self_signed_certificate("japan@example.org")
    with pytest.raises(SignatureError, match=r"self-signed certificate .* is not registered"):
        verify_smime_bytes(raw, _registered(other))


def test_signature_by_another_key_under_the_same_issuer_and_serial_fails(
    tmp_path: Path,
) -> None:
    """Finding the signer by issuer and serial is not trusting it: the key must verify."""
    name = x509.Name([x509.NameAttribute(NameOID.EMAIL_ADDRESS, "japan@example.org")])
    now = datetime.datetime.now(datetime.UTC)

    def certificate(key: ec.EllipticCurvePrivateKey) -> bytes:
        built = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(4242)
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256())
        )
        return built.public_bytes(serialization.Encoding.PEM)

    genuine_key, forger_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    forger_pem = forger_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    raw = sign_smime(ORDERS, certificate(forger_key), forger_pem, HEADERS)
    with pytest.raises(SignatureError, match="not valid for the registered certificate"):
        verify_smime_bytes(raw, _registered(certificate(genuine_key)))
    assert _openssl_verifies(raw, tmp_path)  # valid for the certificate it carries, not ours


def test_expired_and_not_yet_valid_certificates_fail(identity: tuple[bytes, bytes]) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS)
    certificate = x509.load_pem_x509_certificate(identity[0])
    later = certificate.not_valid_after_utc + datetime.timedelta(seconds=1)
    with pytest.raises(SignatureError, match="expired on"):
        verify_smime_bytes(raw, _registered(identity[0]), now=later)
    earlier = certificate.not_valid_before_utc - datetime.timedelta(seconds=1)
    with pytest.raises(SignatureError, match="not valid before"):
        verify_smime_bytes(raw, _registered(identity[0]), now=earlier)


def test_plain_mail_is_not_smime() -> None:
    raw = b"From: a@example.org\r\nContent-Type: text/plain\r\n\r\n" + ORDERS.encode()
    with pytest.raises(SignatureError, match="not an S/MIME signed mail"):
        verify_smime_bytes(raw, {})


def test_mail_signature_after_separator_is_not_part_of_the_orders(
    identity: tuple[bytes, bytes],
) -> None:
    raw = sign_smime(ORDERS + "-- \nAdmiral Yamamoto\n", *identity, HEADERS)
    assert verify_smime_bytes(raw, _registered(identity[0])).text == canonical_orders(ORDERS)


def test_armoured_block_pasted_into_smime_mail_gives_its_sheet(
    identity: tuple[bytes, bytes],
) -> None:
    private_pem, _ = generate_keypair()
    text = "Orders below.\n\n" + sign_block(ORDERS, private_pem) + "\n-- \nYamamoto\n"
    raw = sign_smime(text, *identity, HEADERS)
    assert verify_smime_bytes(raw, _registered(identity[0])).text == canonical_orders(ORDERS)


def test_empty_signed_text_is_refused(identity: tuple[bytes, bytes]) -> None:
    raw = sign_smime("\n\n", *identity, HEADERS)
    with pytest.raises(IntakeError, match="empty"):
        verify_smime_bytes(raw, _registered(identity[0]))


def test_signed_part_bytes_are_cut_at_the_boundary(identity: tuple[bytes, bytes]) -> None:
    raw = sign_smime(ORDERS, *identity, HEADERS, cte="8bit")
    signed, signature = signed_part_bytes(raw)
    assert signed.startswith(b"Content-Type: text/plain")
    assert signed.endswith(b"From 0791 strike 0892\r\n")  # the boundary's CRLF is not included
    assert signature.startswith(b"Content-Type: application/x-pkcs7-signature")


# --- signed by OpenSSL ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "signature_type"),
    [("smime", b"application/x-pkcs7-signature"), ("cms", b"application/pkcs7-signature")],
)
def test_openssl_signed_mail_verifies_and_tampering_fails(
    identity: tuple[bytes, bytes], tool: str, signature_type: bytes, tmp_path: Path
) -> None:
    raw = _openssl_sign(tool, _entity(ORDERS), identity, tmp_path)
    assert b"Content-Type: " + signature_type in raw
    assert _openssl_verifies(raw, tmp_path)
    assert verify_smime_bytes(raw, _registered(identity[0])).text == canonical_orders(ORDERS)
    tampered = raw.replace(b"0892", b"0992")
    assert tampered != raw
    assert not _openssl_verifies(tampered, tmp_path)
    with pytest.raises(SignatureError, match="does not match"):
        verify_smime_bytes(tampered, _registered(identity[0]))


def test_openssl_text_mode_headerless_content_verifies(
    identity: tuple[bytes, bytes], tmp_path: Path
) -> None:
    """``-text`` makes OpenSSL add the text/plain header itself, from LF input."""
    (tmp_path / "plain").write_bytes(ORDERS.encode())
    raw = _openssl_sign("smime", ORDERS.encode(), identity, tmp_path, "-text")
    assert _openssl_verifies(raw, tmp_path)
    assert verify_smime_bytes(raw, _registered(identity[0])).text == canonical_orders(ORDERS)


def test_openssl_signed_format_flowed_is_unflowed(
    identity: tuple[bytes, bytes], tmp_path: Path
) -> None:
    long_order = "MOVE CV-Akagi 0790 0791 0792 0793 0794 0795 0796 0797 0798 0799"
    cut = long_order.rindex(" ", 0, 40) + 1  # a soft break: the line ends in a space
    flowed = ORDERS.replace("MOVE CV-Akagi 0790 0791", long_order[:cut] + "\n" + long_order[cut:])
    flowed = flowed.replace("\nFrom 0791", "\n From 0791")  # space-stuffing
    raw = _openssl_sign("smime", _entity(flowed, cte="8bit", flowed=True), identity, tmp_path)
    assert _openssl_verifies(raw, tmp_path)
    sheet = verify_smime_bytes(raw, _registered(identity[0]))
    assert sheet.text == canonical_orders(ORDERS.replace("MOVE CV-Akagi 0790 0791", long_order))


def test_openssl_sha1_signature_is_refused(identity: tuple[bytes, bytes], tmp_path: Path) -> None:
    raw = _openssl_sign("smime", _entity(ORDERS), identity, tmp_path, "-md", "sha1")
    assert _openssl_verifies(raw, tmp_path)
    with pytest.raises(SignatureError, match="sha1 is not accepted"):
        verify_smime_bytes(raw, _registered(identity[0]))


def test_the_whole_mail_as_parsed_with_policy_default_keeps_signed_bytes(
    identity: tuple[bytes, bytes], tmp_path: Path
) -> None:
    """OpenSSL's boundary style (dashes) and LF endings, read back as a Maildir would."""
    raw = _openssl_sign("cms", _entity(ORDERS, cte="base64"), identity, tmp_path)
    raw = raw.replace(b"\r\n", b"\n")
    message = message_object(raw)
    assert message.policy == email.policy.default
    assert verify_smime(message, _registered(identity[0]), raw=raw).text == canonical_orders(ORDERS)
