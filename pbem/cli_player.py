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
        "next to it as PATH.pub. Give the printed public key line to the moderator.",
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
        f"text mail over SMTP. A password for --user is read from ${SMTP_PASSWORD_ENV}.",
    )
    send.add_argument("file", metavar="FILE", help="order file ('-' reads standard input)")
    send.add_argument(
        "--key", type=Path, default=DEFAULT_KEY, help=f"private key file (default {DEFAULT_KEY})"
    )
    send.add_argument("--to", required=True, metavar="ADDR", help="the moderator's address")
    send.add_argument("--from", dest="sender", required=True, metavar="ADDR", help="your address")
    send.add_argument(
        "--smtp",
        default=DEFAULT_SMTP,
        metavar="HOST:PORT",
        help=f"SMTP server (default {DEFAULT_SMTP})",
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


def _keygen(args: argparse.Namespace) -> int:
    path: Path = args.out
    public_path = path.with_name(path.name + ".pub")
    if not args.force and (path.exists() or public_path.exists()):
        raise ConfigError(f"{path} already exists (use --force to overwrite it)")
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


def _signed_block(file: str, key: Path) -> tuple[str, OrderSheet]:
    """Read, check and sign an order file: (armoured block, parsed sheet)."""
    text = add_nonce(_read_order_file(file))
    sheet = parse_sheet(canonical_orders(text))  # tell the player now, not the moderator later
    try:
        private_pem = key.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read key file {key}: {exc}") from None
    try:
        return sign_block(text, private_pem), sheet
    except ValueError as exc:
        raise ConfigError(f"{file}: {exc}") from None


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
    host, port = _smtp_address(args.smtp)
    message = compose_order_mail(block, sheet, args.sender, args.to, args.subject)
    password = os.environ.get(SMTP_PASSWORD_ENV) if args.user else None
    security = _Security(tls=args.tls, starttls=not args.no_starttls, cafile=args.cafile)
    try:
        asyncio.run(_deliver(message, host, port, args.user, password, security))
    except OSError as exc:  # TimeoutError included
        raise TransportError(f"cannot send to {host}:{port}: {exc}") from None
    print(f"sent {message['Subject']} to {args.to} ({message['Message-ID']})")
    return 0


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
        context = ssl.create_default_context(cafile=str(security.cafile))
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
