"""OpenPGP signed order mail (PGP/MIME as Thunderbird sends it, clear-signed text as
``gpg --clearsign`` writes it), verified with pysequoia against keys and
signatures made by real GnuPG; every hostile variant tried on S/MIME too."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from pbem.core.errors import MailSignatureError, SignatureError
from pbem.intake.keyring import read_key
from pbem.intake.mime import message_object, parse_mail
from pbem.intake.openpgp import (
    PgpSignature,
    certificate_fingerprint,
    find_signature,
    read_certificate,
    revocation_target,
    revoked_with,
    verify_openpgp,
)
from pbem.intake.sheet import parse_sheet
from pbem.storage.enums import KeyKind
from tests.gnupg import GnuPG, clearsigned_mail, thunderbird_mail

ALICE = "Alice <alice@example.org>"
ORDERS = (
    "Game: coral-1\n"
    "Side: allied\n"
    "Turn: 2\n"
    "Phase: A-1\n"
    "Nonce: c0ffee00c0ffee00\n"
    "\n"
    "MOVE CV-5 0790 0791\n"
    "# Yorktown turns north, toward Tulagi\n"
    "\n"
    "-- \n"
    "Alice\n"
)
HEADERS = {"From": "alice@example.org", "To": "moderator@example.org", "Subject": "orders"}
PAST = "20260101T000000"  # keys made then with a one-day life have expired


class Keys:
    def __init__(self, gpg: GnuPG) -> None:
        self.gpg = gpg
        self.alice = gpg.generate(ALICE)
        self.bob = gpg.generate("Bob <bob@example.org>")
        self.mallory = gpg.generate("Mallory <mallory@example.org>")
        self.old = gpg.generate("Old <old@example.org>", expire="1d", at=PAST)
        self.sub = gpg.generate("Sub <sub@example.org>", expire="0")
        gpg.add_signing_subkey(self.sub)

    def public(self, uid: str) -> bytes:
        return self.gpg.export(uid)

    def registered(self, *uids: str) -> dict[str, bytes]:
        return {certificate_fingerprint(self.public(u)): self.public(u) for u in uids}


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return Keys(GnuPG(tmp_path_factory.mktemp("gnupg") / "home"))


def _found(raw: bytes) -> PgpSignature:
    found = find_signature(message_object(raw), raw, parse_mail(raw).text)
    assert found is not None
    return found


def _verify(raw: bytes, registered: dict[str, bytes], **kwargs: datetime.datetime) -> str:
    return verify_openpgp(_found(raw), registered, **kwargs).text


def test_thunderbird_pgp_mime_mail_verifies(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    verified = verify_openpgp(_found(raw), keys.registered("alice@example.org"))
    assert verified.method == "openpgp" and verified.key_fingerprint == keys.alice
    sheet = parse_sheet(verified.text)
    assert (sheet.game, sheet.side, sheet.turn) == ("coral-1", "allied", 2)
    assert [t for _, t in sheet.lines] == ["MOVE CV-5 0790 0791"]  # the "-- " signature is cut


def test_thunderbird_mail_with_the_key_attached_verifies(keys: Keys) -> None:
    key = keys.public("alice@example.org")
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS, attach_key=key)
    assert len(_found(raw).attached_keys) == 1
    assert "MOVE CV-5 0790 0791" in _verify(raw, keys.registered("alice@example.org"))


def test_pgp_mime_with_line_ends_changed_in_transit_still_verifies(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    lf = raw.replace(b"\r\n", b"\n")
    assert "MOVE CV-5" in _verify(lf, keys.registered("alice@example.org"))


def test_clearsigned_body_verifies_and_drops_the_mail_signature(keys: Keys) -> None:
    raw = clearsigned_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    text = _verify(raw, keys.registered("alice@example.org"))
    assert text.endswith("MOVE CV-5 0790 0791\n# Yorktown turns north, toward Tulagi\n")
    assert "Alice" not in text.splitlines()[-1]


def test_signature_by_a_signing_subkey_names_the_primary_key(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "sub@example.org", ORDERS, HEADERS)
    assert keys.sub not in _found(raw).issuers  # the subkey signed, not the primary
    verified = verify_openpgp(_found(raw), keys.registered("sub@example.org"))
    assert verified.key_fingerprint == keys.sub


def test_unregistered_key_is_refused_by_name(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "mallory@example.org", ORDERS, HEADERS)
    with pytest.raises(MailSignatureError, match=f"key {keys.mallory} .*not registered") as exc:
        _verify(raw, keys.registered("alice@example.org", "bob@example.org"))
    assert exc.value.code == "unknown-key"


def test_a_key_attached_to_the_mail_is_never_trusted(keys: Keys) -> None:
    mallory = keys.public("mallory@example.org")
    raw = thunderbird_mail(keys.gpg, "mallory@example.org", ORDERS, HEADERS, attach_key=mallory)
    with pytest.raises(SignatureError, match="not registered"):
        _verify(raw, keys.registered("alice@example.org"))


def test_tampered_body_is_refused(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    tampered = raw.replace(b"0790 0791", b"0790 0891")
    assert tampered != raw
    with pytest.raises(SignatureError, match="does not match the signed text") as exc:
        _verify(tampered, keys.registered("alice@example.org"))
    assert exc.value.code == "bad-signature"


def test_tampered_clearsigned_text_is_refused(keys: Keys) -> None:
    raw = clearsigned_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    tampered = raw.replace(b"0790 0791", b"0790 0891")
    with pytest.raises(SignatureError, match="does not match the signed text"):
        _verify(tampered, keys.registered("alice@example.org"))


def test_signed_part_header_changed_is_refused(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    tampered = raw.replace(b"charset=UTF-8; format=flowed", b"charset=UTF-8")
    with pytest.raises(SignatureError, match="does not match"):
        _verify(tampered, keys.registered("alice@example.org"))


def test_signature_of_another_mail_is_refused(keys: Keys) -> None:
    """A genuine signature of the same key over other orders, grafted on."""
    genuine = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    other = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS.replace("0791", "0792"), HEADERS)
    signature = re.compile(rb"-----BEGIN PGP SIGNATURE-----.*?-----END PGP SIGNATURE-----", re.S)
    grafted = signature.sub(signature.search(other).group(0), genuine)  # type: ignore[union-attr]
    assert grafted != genuine
    with pytest.raises(SignatureError, match="does not match"):
        _verify(grafted, keys.registered("alice@example.org"))


def test_swapped_parts_are_refused(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    head, _, body = raw.partition(b"\r\n\r\n")
    boundary = b"------------0xw2hXC8ebIwnZ7mbP3oL9hG"
    preamble, first, second, close = body.split(b"--" + boundary)
    swapped = head + b"\r\n\r\n" + b"--".join([preamble, boundary + second, boundary + first])
    swapped += b"--" + boundary + close
    with pytest.raises(SignatureError, match="second part is"):
        _found(swapped)


def test_wrong_protocol_is_not_taken_for_pgp(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    wrong = raw.replace(b'protocol="application/pgp-signature"', b'protocol="application/x-pgp"')
    assert find_signature(message_object(wrong), wrong, parse_mail(wrong).text) is None


def test_expired_key_is_refused_as_expired(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "old@example.org", ORDERS, HEADERS, at="20260101T010000")
    with pytest.raises(SignatureError, match=f"OpenPGP key {keys.old} expired on 2026-01-02"):
        _verify(raw, keys.registered("old@example.org"))


def test_key_revoked_since_registration_is_refused_when_the_mail_says_so(
    keys: Keys, tmp_path: Path
) -> None:
    """Registered before the revocation; the player's client attaches the revoked key
    (made here in a second GnuPG home, so the first can still sign)."""
    registered = keys.registered("alice@example.org")
    elsewhere = GnuPG(tmp_path / "elsewhere")
    elsewhere.run("--import", data=keys.public("alice@example.org"))
    elsewhere.run("--import", data=keys.gpg.revocation(keys.alice))
    revoked = elsewhere.export("alice@example.org")
    with pytest.raises(ValueError, match="revoked"):  # KEY ADD refuses it outright
        read_key(KeyKind.OPENPGP, revoked)
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS, attach_key=revoked)
    with pytest.raises(SignatureError, match=f"OpenPGP key {keys.alice} is revoked"):
        _verify(raw, registered)
    # Without the revocation at hand the same signature verifies: pbem knows of a
    # revocation when a mail carries it or the moderator gives it (KEY ADD).
    plain = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    assert "MOVE CV-5" in _verify(plain, registered)


def test_a_revocation_counts_only_when_the_key_itself_signed_it(keys: Keys) -> None:
    """gpg's bare revocation certificate revokes the registered key; bob's revocation
    passed off as alice's (her fingerprint on his key's copy) revokes nothing."""
    registered = keys.public("alice@example.org")
    mine = keys.gpg.revocation(keys.alice)
    assert revocation_target(mine) == keys.alice
    merged = revoked_with(registered, mine)
    assert merged is not None and read_certificate(merged).is_revoked
    assert revoked_with(merged, mine) is None  # revoked already: nothing new
    assert revoked_with(registered, keys.gpg.revocation(keys.bob)) is None
    assert revoked_with(registered, keys.public("bob@example.org")) is None
    assert revocation_target(registered) is None  # a key in use revokes nothing


def test_quoted_clearsigned_text_in_a_reply_is_not_taken(keys: Keys) -> None:
    signed = keys.gpg.clearsign(ORDERS, "alice@example.org")
    text = "Here is what I sent:\n\n" + "".join(f"> {line}\n" for line in signed.splitlines())
    raw = (
        "From: alice@example.org\r\nTo: moderator@example.org\r\nSubject: re\r\n\r\n" + text
    ).encode()
    assert find_signature(message_object(raw), raw, parse_mail(raw).text) is None


def test_the_replay_key_is_the_signature_not_its_armour(keys: Keys) -> None:
    raw = thunderbird_mail(keys.gpg, "alice@example.org", ORDERS, HEADERS)
    first = verify_openpgp(_found(raw), keys.registered("alice@example.org"))
    rewrapped = raw.replace(b"Content-Description: OpenPGP digital signature\r\n", b"")
    again = verify_openpgp(_found(rewrapped), keys.registered("alice@example.org"))
    assert first.signature_digest == again.signature_digest


def test_a_secret_key_is_refused_at_registration(keys: Keys) -> None:
    with pytest.raises(ValueError, match="secret key"):
        read_certificate(keys.gpg.export_secret("alice@example.org"))
    with pytest.raises(ValueError, match="not a readable OpenPGP public key"):
        read_certificate(b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n")


def test_a_sha1_signature_is_refused_by_name(keys: Keys) -> None:
    signed = keys.gpg.run(
        "--clearsign", "--digest-algo", "SHA1", "--local-user", "alice@example.org",
        data=ORDERS.encode(),
    ).decode()  # fmt: skip
    raw = ("From: alice@example.org\r\nSubject: orders\r\n\r\n" + signed).encode()
    with pytest.raises(SignatureError, match="uses SHA-1, which is not accepted"):
        _verify(raw, keys.registered("alice@example.org"))


def test_encrypted_pgp_mail_is_refused_as_encrypted() -> None:
    raw = (
        b"From: alice@example.org\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary=b\r\n'
        b"\r\n--b\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n"
        b"--b\r\nContent-Type: application/octet-stream\r\n\r\n-----BEGIN PGP MESSAGE-----\r\n"
        b"\r\nAAAA\r\n-----END PGP MESSAGE-----\r\n--b--\r\n"
    )
    with pytest.raises(MailSignatureError, match="OpenPGP-encrypted") as exc:
        find_signature(message_object(raw), raw, parse_mail(raw).text)
    assert exc.value.code == "encrypted"
