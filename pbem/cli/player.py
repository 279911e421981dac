"""Player tools: ``pbem keygen``, ``pbem sign`` and ``pbem send``.

A player makes a key once (``keygen``), gives the public key line to the
moderator to register, then for each phase writes an order file (header lines,
blank line, orders) and either prints a signed block to paste into any mail
(``sign``) or has it mailed directly (``send``).
"""

from __future__ import annotations

import argparse
import asyncio
import email.policy
import mailbox
import os
import ssl
import sys
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from pbem.core.errors import ConfigError, TransportError
from pbem.intake.sheet import OrderSheet, add_nonce, parse_sheet
from pbem.intake.signatures import canonical_orders, generate_keypair, key_fingerprint, sign_block

DEFAULT_KEY = Path.home() / ".pbem" / "id_ed25519"
DEFAULT_SMTP = "localhost:25"
# Read from the environment, never from the command line (which `ps` shows).
SMTP_PASSWORD_ENV = "PBEM_SMTP_PASSWORD"


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register keygen, sign and send."""
    keygen = sub.add_parser(
        "keygen",
        help="make an Ed25519 key pair for signing orders",
        description="Make an Ed25519 key pair for signing orders. The private key is "
        "written with mode 0600 (OpenSSH format, ssh-keygen reads it), the public key "
        "next to it: --out alice.key writes alice.key and alice.pub, --out alice writes "
        "alice and alice.pub. Give the printed public key line (or the .pub file) to the "
        "moderator.",
    )
    keygen.add_argument(
        "--out", type=Path, default=DEFAULT_KEY, help=f"private key file (default {DEFAULT_KEY})"
    )
    keygen.add_argument("--comment", default="", help="comment at the end of the public key line")
    keygen.add_argument("--force", action="store_true", help="overwrite an existing key file")
    keygen.set_defaults(func=_keygen)

    sign = sub.add_parser(
        "sign",
        help="print a signed order block to paste into a mail",
        description="Sign an order file and print the armoured PBEM ORDERS block. The file "
        "holds the header lines (Game, Side, Turn, Phase, optionally Nonce), a blank line "
        "and the orders; a missing Nonce is added. Paste the block into any mail.",
    )
    sign.add_argument("file", metavar="FILE", help="order file ('-' reads standard input)")
    sign.add_argument(
        "--key", type=Path, default=DEFAULT_KEY, help=f"private key file (default {DEFAULT_KEY})"
    )
    sign.set_defaults(func=_sign)

    send = sub.add_parser(
        "send",
        help="sign an order file and mail it to the moderator",
        description="Sign an order file as 'pbem sign' does and mail the block as a plain "
        f"text mail over SMTP. A password for --user is read from ${SMTP_PASSWORD_ENV}. "
        "With --maildir the mail is delivered into a local Maildir instead (the daemon's "
        "[intake] maildir), written to its tmp/ and renamed into new/.",
    )
    send.add_argument("file", metavar="FILE", help="order file ('-' reads standard input)")
    send.add_argument(
        "--key", type=Path, default=DEFAULT_KEY, help=f"private key file (default {DEFAULT_KEY})"
    )
    send.add_argument("--to", required=True, metavar="ADDR", help="the moderator's address")
    send.add_argument("--from", dest="sender", required=True, metavar="ADDR", help="your address")
    route = send.add_mutually_exclusive_group()
    route.add_argument(
        "--smtp",
        default=DEFAULT_SMTP,
        metavar="HOST:PORT",
        help=f"SMTP server (default {DEFAULT_SMTP})",
    )
    route.add_argument(
        "--maildir",
        type=Path,
        default=None,
        metavar="DIR",
        help="deliver into this local Maildir instead of sending by SMTP",
    )
    send.add_argument(
        "--subject", default=None, help="subject (default: game, side, turn and phase)"
    )
    send.add_argument("--user", default=None, help="SMTP login name")
    security = send.add_mutually_exclusive_group()
    security.add_argument(
        "--tls", action="store_true", help="implicit TLS (port 465) instead of STARTTLS"
    )
    security.add_argument(
        "--no-starttls",
        action="store_true",
        help="never use STARTTLS (default: use it when the server offers it)",
    )
    send.add_argument(
        "--cafile",
        type=Path,
        default=None,
        help="trust the certificates in this PEM file (a moderator's self-signed server)",
    )
    send.set_defaults(func=_send)


def public_key_path(private: Path) -> Path:
    """Where keygen puts the public key: alice.key → alice.pub, alice → alice.pub."""
    if private.suffix == ".key":
        return private.with_suffix(".pub")
    return private.with_name(private.name + ".pub")


def _keygen(args: argparse.Namespace) -> int:
    path: Path = args.out
    if path.suffix == ".pub":
        raise ConfigError(f"--out {path}: name the private key file (e.g. alice.key)")
    public_path = public_key_path(path)
    if not args.force:
        for existing in (path, public_path):
            if existing.exists():
                raise ConfigError(f"{existing} already exists (use --force to overwrite it)")
    private_pem, public_line = generate_keypair(args.comment)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (0 if args.force else os.O_EXCL)
    descriptor = os.open(path, flags, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private_pem)
    os.chmod(path, 0o600)  # O_CREAT's mode does not apply to an existing file
    public_path.write_text(public_line + "\n", encoding="ascii")
    print(public_line)
    print(f"fingerprint: {key_fingerprint(public_line)}")
    print(f"private key: {path} (keep it secret); public key: {public_path}")
    return 0


def _read_order_file(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read order file {name}: {exc}") from None


def _private_key(key: Path) -> bytes:
    """The private key file's bytes, or an error that says which file to use instead."""
    try:
        data = key.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"cannot read key file {key}: {exc.strerror or exc} (make one with `pbem keygen`)"
        ) from None
    if data.lstrip().startswith(b"ssh-"):
        private = [p for p in (key.with_suffix(".key"), key.with_suffix("")) if p != key]
        hint = next((f" ({p})" for p in private if p.exists()), "")
        raise ConfigError(
            f"--key {key} is a public key: sign with your private key{hint}; "
            "the public key is for the moderator"
        )
    if b"PRIVATE KEY-----" not in data:
        raise ConfigError(f"--key {key} is not a private key file (make one with `pbem keygen`)")
    return data


def _signed_block(file: str, key: Path) -> tuple[str, OrderSheet]:
    """Read, check and sign an order file: (armoured block, parsed sheet)."""
    private_pem = _private_key(key)
    text = add_nonce(_read_order_file(file))
    sheet = parse_sheet(canonical_orders(text))  # tell the player now, not the moderator later
    try:
        return sign_block(text, private_pem), sheet
    except TypeError as exc:  # cryptography: "Key is password-protected."
        raise ConfigError(f"--key {key}: {exc} (pbem signs with a key without one)") from None
    except ValueError as exc:
        where = f"--key {key}" if "private key" in str(exc) else file
        raise ConfigError(f"{where}: {exc}") from None


def _sign(args: argparse.Namespace) -> int:
    block, _ = _signed_block(args.file, args.key)
    sys.stdout.write(block)
    return 0


def _smtp_address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--smtp must be HOST:PORT, not {value!r}")
    return host, int(port)


def compose_order_mail(
    block: str, sheet: OrderSheet, sender: str, to: str, subject: str | None
) -> EmailMessage:
    """A plain text mail carrying a signed block (quoted-printable keeps lines intact)."""
    message = EmailMessage(policy=email.policy.default)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject or (
        f"orders {sheet.game} {sheet.side} turn {sheet.turn} phase {sheet.phase}"
    )
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(block, cte="quoted-printable")
    return message


def _send(args: argparse.Namespace) -> int:
    block, sheet = _signed_block(args.file, args.key)
    message = compose_order_mail(block, sheet, args.sender, args.to, args.subject)
    if args.maildir is not None:
        name = _deliver_to_maildir(message, args.maildir)
        print(f"delivered {message['Subject']} into {args.maildir / 'new' / name}")
        return 0
    host, port = _smtp_address(args.smtp)
    password = os.environ.get(SMTP_PASSWORD_ENV) if args.user else None
    security = _Security(tls=args.tls, starttls=not args.no_starttls, cafile=args.cafile)
    try:
        asyncio.run(_deliver(message, host, port, args.user, password, security))
    except OSError as exc:  # TimeoutError included
        raise TransportError(f"cannot send to {host}:{port}: {exc}") from None
    print(f"sent {message['Subject']} to {args.to} ({message['Message-ID']})")
    return 0


def _deliver_to_maildir(message: EmailMessage, maildir: Path) -> str:
    if not all((maildir / sub).is_dir() for sub in ("tmp", "new", "cur")):
        raise ConfigError(
            f"--maildir {maildir} is not a Maildir (no tmp/, new/ and cur/): "
            "name the daemon's [intake] maildir"
        )
    try:
        # The standard library's Maildir writes into tmp/ and then moves the file
        # into new/, so the daemon never reads it half-written.
        return mailbox.Maildir(maildir, factory=None, create=False).add(message)
    except OSError as exc:
        raise TransportError(f"cannot deliver into {maildir}: {exc}") from None


@dataclass(frozen=True)
class _Security:
    tls: bool  # implicit TLS from the first byte
    starttls: bool  # STARTTLS when the server offers it
    cafile: Path | None


async def _deliver(
    message: EmailMessage,
    host: str,
    port: int,
    user: str | None,
    password: str | None,
    security: _Security,
) -> None:
    import aiosmtplib  # only the send command needs it

    context = None
    if security.cafile is not None:
        try:
            context = ssl.create_default_context(cafile=str(security.cafile))
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"--cafile {security.cafile}: {exc.strerror or exc}") from None
    try:
        await aiosmtplib.send(
            message,
            hostname=host,
            port=port,
            username=user,
            password=password,
            use_tls=security.tls,
            # None: STARTTLS when the server offers it; certificates are always checked.
            start_tls=False if security.tls or not security.starttls else None,
            tls_context=context,
        )
    except aiosmtplib.SMTPException as exc:
        raise TransportError(f"cannot send to {host}:{port}: {exc}") from None
