"""A player's public key as the moderator registers it: Ed25519 (OpenSSH line),
S/MIME (PEM certificate) or OpenPGP (armoured public key), read and named by
its fingerprint the same way whichever way it came (CLI, signed mail)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from cryptography import x509

from pbem.intake import openpgp
from pbem.intake.signatures import key_fingerprint, load_public_key
from pbem.intake.smime import certificate_fingerprint
from pbem.storage.enums import KeyKind

__all__ = ["PublicKey", "key_warnings", "read_key"]


@dataclass(frozen=True)
class PublicKey:
    """A key checked readable; ``material`` is what is stored (``SeatKey.material``)."""

    kind: KeyKind
    fingerprint: str
    material: bytes


def read_key(kind: KeyKind, material: bytes) -> PublicKey:
    """Read and fingerprint a key of ``kind``; ``ValueError`` saying what is wrong."""
    if kind == KeyKind.ED25519:
        try:
            line = material.decode("ascii").strip()
        except UnicodeDecodeError:
            raise ValueError("an OpenSSH public key line is ASCII text") from None
        load_public_key(line)
        return PublicKey(kind, key_fingerprint(line), line.encode("ascii"))
    if kind == KeyKind.SMIME:
        try:
            return PublicKey(kind, certificate_fingerprint(material), material)
        except ValueError as exc:
            raise ValueError(f"not a readable PEM certificate: {exc}") from None
    certificate = openpgp.read_certificate(material)
    if certificate.is_revoked:
        raise ValueError(f"the OpenPGP key {certificate.fingerprint.lower()} is revoked")
    return PublicKey(kind, certificate.fingerprint.lower(), str(certificate).encode("ascii"))


def key_warnings(key: PublicKey, now: datetime.datetime) -> list[str]:
    """What the moderator should hear about a key he registers: accepted, but mail
    signed with it will be refused until (or since) the dates say."""
    if key.kind == KeyKind.SMIME:
        certificate = x509.load_pem_x509_certificate(key.material)
        if now < certificate.not_valid_before_utc:
            return [
                f"warning: the S/MIME certificate {key.fingerprint[:16]}... is not valid before "
                f"{certificate.not_valid_before_utc:%Y-%m-%d %H:%M} UTC; mail signed with it "
                "is refused until then"
            ]
        if now > certificate.not_valid_after_utc:
            return [
                f"warning: the S/MIME certificate {key.fingerprint[:16]}... expired on "
                f"{certificate.not_valid_after_utc:%Y-%m-%d}; mail signed with it is refused "
                "(the player needs a new certificate: KEY game side ADD)"
            ]
    if key.kind == KeyKind.OPENPGP:
        problem = openpgp.certificate_problem(openpgp.read_certificate(key.material), now)
        if problem:
            return [
                f"warning: {problem}; mail signed with it is refused (the player can extend "
                "it with gpg --quick-set-expire and send it again: KEY game side ADD)"
            ]
    return []
