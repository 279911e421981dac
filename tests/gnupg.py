"""Real GnuPG for the OpenPGP tests: keys and signatures made by ``gpg`` in a
throw-away GNUPGHOME, and mails shaped as Thunderbird sends them (PGP/MIME,
RFC 3156) or as a player pastes ``gpg --clearsign`` output."""

from __future__ import annotations

import os
import shutil
import subprocess
from email.utils import formatdate, make_msgid
from pathlib import Path

import pytest

CRLF = b"\r\n"


class GnuPG:
    """One GNUPGHOME; every call is ``gpg --batch`` with no passphrase."""

    def __init__(self, home: Path) -> None:
        if shutil.which("gpg") is None:
            pytest.skip("GnuPG (gpg) is not installed")
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.home = home

    def run(self, *args: str, data: bytes | None = None, at: str | None = None) -> bytes:
        """``at`` (e.g. 20260101T000000) runs gpg at a faked time: keys that expired."""
        faked = ["--faked-system-time", at] if at else []
        result = subprocess.run(
            [
                "gpg",
                "--batch",
                "--yes",
                "--no-tty",
                "--passphrase",
                "",
                "--pinentry-mode",
                "loopback",
                *faked,
                *args,
            ],
            input=data,
            capture_output=True,
            env={**os.environ, "GNUPGHOME": str(self.home)},
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"gpg {' '.join(args)}: {result.stderr.decode(errors='replace')}")
        return result.stdout

    def generate(
        self, uid: str, *, algo: str = "ed25519", expire: str = "0", at: str | None = None
    ) -> str:
        """A new signing key for ``uid``; returns its fingerprint (lowercase hex)."""
        self.run("--quick-gen-key", uid, algo, "sign", expire, at=at)
        return self.fingerprint(uid)

    def fingerprint(self, uid: str) -> str:
        for line in self.run("--with-colons", "--list-keys", uid).decode().splitlines():
            if line.startswith("fpr:"):
                return line.split(":")[9].lower()
        raise LookupError(uid)

    def add_signing_subkey(self, fingerprint: str) -> None:
        self.run("--quick-add-key", fingerprint, "ed25519", "sign", "0")

    def export(self, uid: str) -> bytes:
        return self.run("--armor", "--export", uid)

    def export_secret(self, uid: str) -> bytes:
        return self.run("--armor", "--export-secret-keys", uid)

    def revocation(self, fingerprint: str) -> bytes:
        """The revocation certificate gpg made with the key (import it to revoke)."""
        certificate = self.home / "openpgp-revocs.d" / f"{fingerprint.upper()}.rev"
        return certificate.read_text().replace(":-----BEGIN", "-----BEGIN").encode()

    def clearsign(self, text: str, uid: str, *, at: str | None = None) -> str:
        return self.run("--clearsign", "--local-user", uid, data=text.encode(), at=at).decode()

    def detach_sign(self, data: bytes, uid: str, *, at: str | None = None) -> bytes:
        return self.run("--detach-sign", "--armor", "--local-user", uid, data=data, at=at)


def thunderbird_mail(
    gpg: GnuPG,
    uid: str,
    text: str,
    headers: dict[str, str],
    *,
    attach_key: bytes | None = None,
    signer: str | None = None,
    at: str | None = None,
) -> bytes:
    """A PGP/MIME signed mail as Thunderbird 115 sends it: the signed part is a
    multipart/mixed with protected headers, the text/plain part (format=flowed)
    and optionally the sender's key as an application/pgp-keys attachment; it is
    signed as its bytes on the wire (CRLF). ``signer`` signs instead of ``uid``."""
    inner_boundary = "------------3QnUrYF0vbLhV9WkEuXl1Ayq"
    outer_boundary = "------------0xw2hXC8ebIwnZ7mbP3oL9hG"
    body = text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
    parts = [
        b'Content-Type: multipart/mixed; boundary="' + inner_boundary.encode() + b'";',
        b' protected-headers="v1"',
        *(f"{name}: {value}".encode() for name, value in headers.items() if name != "Date"),
        b"",
        b"--" + inner_boundary.encode(),
        b"Content-Type: text/plain; charset=UTF-8; format=flowed",
        b"Content-Transfer-Encoding: 8bit",
        b"",
        body,
    ]
    if attach_key is not None:
        parts += [
            b"--" + inner_boundary.encode(),
            b'Content-Type: application/pgp-keys; name="OpenPGP_0xKEY.asc"',
            b'Content-Disposition: attachment; filename="OpenPGP_0xKEY.asc"',
            b"Content-Description: OpenPGP public key",
            b"Content-Transfer-Encoding: 7bit",
            b"",
            attach_key.replace(b"\r\n", b"\n").replace(b"\n", CRLF).rstrip(CRLF),
        ]
    parts += [b"--" + inner_boundary.encode() + b"--", b""]
    signed = CRLF.join(parts)
    signature = gpg.detach_sign(signed, signer or uid, at=at)
    outer = {
        **headers,
        "Date": headers.get("Date", formatdate()),
        "Message-ID": headers.get("Message-ID", make_msgid(domain="example.org")),
        "MIME-Version": "1.0",
        "Content-Type": 'multipart/signed; micalg=pgp-sha256;\r\n protocol="application/pgp-signature";\r\n'
        f' boundary="{outer_boundary}"',
    }
    head = CRLF.join(f"{name}: {value}".encode() for name, value in outer.items())
    return CRLF.join(
        [
            head,
            b"",
            b"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)",
            b"--" + outer_boundary.encode(),
            signed,
            b"--" + outer_boundary.encode(),
            b'Content-Type: application/pgp-signature; name="OpenPGP_signature.asc"',
            b"Content-Description: OpenPGP digital signature",
            b'Content-Disposition: attachment; filename="OpenPGP_signature.asc"',
            b"",
            signature.replace(b"\r\n", b"\n").replace(b"\n", CRLF).rstrip(CRLF),
            b"--" + outer_boundary.encode() + b"--",
            b"",
        ]
    )


def clearsigned_mail(
    gpg: GnuPG, uid: str, text: str, headers: dict[str, str], *, at: str | None = None
) -> bytes:
    """A plain-text mail whose body is ``gpg --clearsign`` output, as a player pastes it."""
    body = gpg.clearsign(text, uid, at=at)
    outer = {
        **headers,
        "Date": headers.get("Date", formatdate()),
        "Message-ID": headers.get("Message-ID", make_msgid(domain="example.org")),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Transfer-Encoding": "8bit",
    }
    head = CRLF.join(f"{name}: {value}".encode() for name, value in outer.items())
    return head + CRLF + CRLF + body.replace("\n", "\r\n").encode("utf-8")
