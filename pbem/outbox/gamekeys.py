"""The game's own keys: the moderator's OpenPGP and S/MIME identities.

Every mail pbem sends is signed with one of them (``pbem.outbox.protect``), so
that players' mail clients show the moderator's mail as verified and a forged
report, mailed by the opponent, stands out. ``pbem init`` and ``pbem mailkeys``
make them; the configuration's ``[signing]`` section names the files.

The secret keys carry no passphrase: the daemon signs unattended. They are
written with mode 0600, like the configuration that holds the plot key.
"""

from __future__ import annotations

import datetime
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import pysequoia
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from pbem.config import SigningConfig
from pbem.core.errors import ConfigError
from pbem.secrecy import certificates

__all__ = [
    "GameKeys",
    "KeyFiles",
    "SmimeIdentity",
    "generate_game_keys",
    "key_files",
    "load_game_keys",
]

# Three years, as OpenPGP tools suggest; the moderator makes new ones with `pbem mailkeys`.
_CERTIFICATE_DAYS = 3 * 365


@dataclass(frozen=True)
class SmimeIdentity:
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
    certificate: x509.Certificate


@dataclass(frozen=True)
class GameKeys:
    """The keys outgoing mail is signed with; both None: mail goes out unsigned."""

    openpgp: pysequoia.Tsk | None = None
    smime: SmimeIdentity | None = None


@dataclass(frozen=True)
class KeyFiles:
    """What ``generate_game_keys`` wrote: two secret keys, two files to publish."""

    openpgp_key: Path
    openpgp_public: Path
    smime_key: Path
    smime_certificate: Path

    @property
    def secret(self) -> tuple[Path, Path]:
        return self.openpgp_key, self.smime_key

    @property
    def public(self) -> tuple[Path, Path]:
        return self.openpgp_public, self.smime_certificate

    def refuse_to_replace(self) -> None:
        existing = [str(p) for p in (*self.secret, *self.public) if p.exists()]
        if existing:
            raise ConfigError(
                f"{', '.join(existing)} exist(s); use --force to replace the game's keys"
            )


def key_files(folder: Path) -> KeyFiles:
    """The files of the game's keys in ``folder``."""
    return KeyFiles(
        openpgp_key=folder / "openpgp.key",
        openpgp_public=folder / "openpgp.asc",
        smime_key=folder / "smime.key",
        smime_certificate=folder / "smime.pem",
    )


def load_game_keys(signing: SigningConfig) -> GameKeys:
    """The configured keys, read once per file version (a replaced file is read again).

    A missing, unreadable or unusable file is a ConfigError naming the key.
    """
    stamps = tuple(_stamp(path, name) for name, path in _named_paths(signing))
    return _load(signing.openpgp_key, signing.smime_key, signing.smime_certificate, stamps)


def _named_paths(signing: SigningConfig) -> list[tuple[str, str]]:
    named = [
        ("openpgp_key", signing.openpgp_key),
        ("smime_key", signing.smime_key),
        ("smime_certificate", signing.smime_certificate),
    ]
    return [(name, path) for name, path in named if path]


def _stamp(path: str, name: str) -> tuple[int, int]:
    try:
        status = os.stat(path)
    except OSError as exc:
        raise ConfigError(
            f"[signing] {name}: cannot read {path}: {exc.strerror or exc} "
            "(make the game's keys with `pbem mailkeys`)"
        ) from None
    return status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=8)
def _load(
    openpgp_key: str, smime_key: str, smime_certificate: str, _stamps: tuple[object, ...]
) -> GameKeys:
    openpgp = _load_openpgp(openpgp_key) if openpgp_key else None
    smime = _load_smime(smime_key, smime_certificate) if smime_key else None
    return GameKeys(openpgp=openpgp, smime=smime)


def _read(path: str, name: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"[signing] {name}: cannot read {path}: {exc.strerror or exc}") from None


def _load_openpgp(path: str) -> pysequoia.Tsk:
    data = _read(path, "openpgp_key")
    try:
        tsk = pysequoia.Tsk.from_bytes(data)
    except Exception:  # pysequoia raises plain Exceptions for unreadable input
        raise ConfigError(
            f"[signing] openpgp_key: {path} is not an OpenPGP secret key "
            "(an armoured PRIVATE KEY BLOCK, as `pbem mailkeys` or `gpg --export-secret-keys` write)"
        ) from None
    try:
        tsk.signer()
    except Exception:
        raise ConfigError(
            f"[signing] openpgp_key: {path} has no usable signing key without a passphrase "
            "(the daemon signs unattended: remove the passphrase, keep the file mode 0600)"
        ) from None
    return tsk


def _load_smime(key_path: str, certificate_path: str) -> SmimeIdentity:
    try:
        key = serialization.load_pem_private_key(_read(key_path, "smime_key"), password=None)
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            f"[signing] smime_key: {key_path} is not a PEM private key without a passphrase: {exc}"
        ) from None
    if not isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
        raise ConfigError(f"[signing] smime_key: {key_path} must be an RSA or EC key")
    try:
        certificate = x509.load_pem_x509_certificate(_read(certificate_path, "smime_certificate"))
    except ValueError as exc:
        raise ConfigError(
            f"[signing] smime_certificate: {certificate_path} is not a PEM certificate: {exc}"
        ) from None
    if certificate.public_key() != key.public_key():
        raise ConfigError(
            f"[signing] smime_certificate: {certificate_path} is not the certificate of "
            f"the key in {key_path}"
        )
    return SmimeIdentity(key=key, certificate=certificate)


# --- making them ----------------------------------------------------------------------


def generate_game_keys(folder: Path, name: str, address: str, *, force: bool = False) -> KeyFiles:
    """Make the game's OpenPGP key (Ed25519/Cv25519, RFC 4880 so GnuPG 2.2 and
    Thunderbird read it) and a self-signed S/MIME certificate (RSA 3072, the most
    widely accepted), both for ``name <address>``, as files in ``folder``."""
    files = key_files(folder)
    if not force:
        files.refuse_to_replace()
    folder.mkdir(parents=True, exist_ok=True)
    tsk = pysequoia.Tsk.generate(f"{name} <{address}>", profile=pysequoia.Profile.RFC4880)
    key, certificate = _self_signed(name, address)
    _write(files.openpgp_key, str(tsk).encode("ascii"), secret=True)
    _write(files.openpgp_public, str(tsk.extract_certificate()).encode("ascii"), secret=False)
    _write(
        files.smime_key,
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
        secret=True,
    )
    _write(
        files.smime_certificate,
        certificate.public_bytes(serialization.Encoding.PEM),
        secret=False,
    )
    return files


def _write(path: Path, data: bytes, *, secret: bool) -> None:
    """Write ``path``; a secret file is never readable by others, not even briefly."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if secret else 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _self_signed(name: str, address: str) -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=3072)
    start = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    certificate = certificates.self_signed(
        key,
        name,
        address,
        not_before=start,
        not_after=start + datetime.timedelta(days=_CERTIFICATE_DAYS),
    )
    return key, certificate
