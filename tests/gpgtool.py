"""A player's GnuPG reading what pbem sends (issue 14), on ``tests.gnupg.GnuPG``:
keys that can take encrypted mail, and gpg's verdict (exit code and its
``[GNUPG:]`` status lines) on a PGP/MIME signed mail, its two parts cut out as a
client cuts them (RFC 3156 §5: canonical CRLF line ends), or on an encrypted one."""

from __future__ import annotations

import email.policy
import os
import re
import subprocess
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pysequoia

from pbem.intake.smime import signed_part_bytes
from tests.gnupg import GnuPG


class Gpg(GnuPG):
    def status(self, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        """gpg's verdict, not raised: the exit code, and the status lines on stderr."""
        return subprocess.run(
            ["gpg", "--batch", "--no-tty", "--status-fd", "2", *args],
            input=stdin,
            capture_output=True,
            env={**os.environ, "GNUPGHOME": str(self.home)},
            timeout=60,
            check=False,
        )

    def make_key(self, user_id: str) -> str:
        """An Ed25519 key with a Curve25519 encryption subkey, as Thunderbird makes
        one; its fingerprint."""
        fingerprint = self.generate(user_id)
        self.run("--quick-add-key", fingerprint, "cv25519", "encr", "0")
        return fingerprint

    def cert(self, user_id: str) -> pysequoia.Cert:
        """The public key as ``gpg --armor --export`` gives it to the moderator."""
        return pysequoia.Cert.from_bytes(self.export(user_id))

    def import_key(self, path: Path) -> None:
        self.run("--import", str(path))

    def verify_pgp_mime(self, raw: bytes, folder: Path) -> subprocess.CompletedProcess[bytes]:
        """``gpg --verify`` on the two parts of a multipart/signed mail."""
        signed, signature = signed_part_bytes(raw)
        armoured = parse(signature).get_content()  # application/*: bytes
        assert isinstance(armoured, bytes)
        (folder / "signed-part").write_bytes(re.sub(rb"\r?\n", b"\r\n", signed))
        (folder / "signed-part.asc").write_bytes(armoured)
        return self.status("--verify", str(folder / "signed-part.asc"), str(folder / "signed-part"))

    def decrypt(self, armoured: bytes) -> subprocess.CompletedProcess[bytes]:
        return self.status("--decrypt", stdin=armoured)

    def close(self) -> None:
        subprocess.run(
            ["gpgconf", "--kill", "all"],
            env={**os.environ, "GNUPGHOME": str(self.home)},
            capture_output=True,
            timeout=60,
            check=False,
        )


def validsig_primary(result: subprocess.CompletedProcess[bytes]) -> str:
    """The primary key fingerprint of gpg's one VALIDSIG status line."""
    lines = [line for line in result.stderr.splitlines() if line.startswith(b"[GNUPG:] VALIDSIG")]
    assert len(lines) == 1, result.stderr
    return lines[0].split()[-1].decode()


def parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg
