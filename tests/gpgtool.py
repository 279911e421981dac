"""Real GnuPG for the tests, as a player's mail client stands for it: a temporary
GNUPGHOME, keys made by gpg itself, and ``gpg --verify`` on the parts of a PGP/MIME
signed mail as a client cuts them out (RFC 3156 §5: canonical CRLF line ends)."""

from __future__ import annotations

import email.policy
import os
import re
import subprocess
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pysequoia

from pbem.intake.smime import signed_part_bytes


@dataclass
class Gpg:
    home: Path

    def run(self, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        """gpg in batch mode; its status lines ([GNUPG:] ...) on stderr."""
        return subprocess.run(
            ["gpg", "--batch", "--status-fd", "2", *args],
            input=stdin,
            capture_output=True,
            env={**os.environ, "GNUPGHOME": str(self.home)},
            timeout=60,
            check=False,
        )

    def make_key(self, user_id: str) -> str:
        """An Ed25519 signing key with a Curve25519 encryption subkey; its fingerprint."""
        made = self.run("--passphrase", "", "--quick-gen-key", user_id, "ed25519", "sign", "0")
        assert made.returncode == 0, made.stderr
        listed = self.run("--with-colons", "--list-keys", user_id).stdout.decode()
        fingerprint = next(
            line.split(":")[9] for line in listed.splitlines() if line.startswith("fpr:")
        )
        added = self.run("--passphrase", "", "--quick-add-key", fingerprint, "cv25519", "encr", "0")
        assert added.returncode == 0, added.stderr
        return fingerprint

    def cert(self, user_id: str) -> pysequoia.Cert:
        """The public key as ``gpg --armor --export`` gives it to the moderator."""
        exported = self.run("--armor", "--export", user_id)
        assert exported.returncode == 0 and exported.stdout, exported.stderr
        return pysequoia.Cert.from_bytes(exported.stdout)

    def import_key(self, path: Path) -> None:
        imported = self.run("--import", str(path))
        assert imported.returncode == 0, imported.stderr

    def verify_pgp_mime(self, raw: bytes, folder: Path) -> subprocess.CompletedProcess[bytes]:
        """``gpg --verify`` on the two parts of a multipart/signed mail."""
        signed, signature = signed_part_bytes(raw)
        armoured = parse(signature).get_content()  # application/*: bytes
        assert isinstance(armoured, bytes)
        (folder / "signed-part").write_bytes(re.sub(rb"\r?\n", b"\r\n", signed))
        (folder / "signed-part.asc").write_bytes(armoured)
        return self.run("--verify", str(folder / "signed-part.asc"), str(folder / "signed-part"))

    def close(self) -> None:
        subprocess.run(
            ["gpgconf", "--kill", "all"],
            env={**os.environ, "GNUPGHOME": str(self.home)},
            capture_output=True,
            timeout=60,
            check=False,
        )


def new_gpg(folder: Path) -> Gpg:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    return Gpg(folder)


def validsig_primary(result: subprocess.CompletedProcess[bytes]) -> str:
    """The primary key fingerprint of gpg's one VALIDSIG status line."""
    lines = [line for line in result.stderr.splitlines() if line.startswith(b"[GNUPG:] VALIDSIG")]
    assert len(lines) == 1, result.stderr
    return lines[0].split()[-1].decode()


def parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg
