"""Configuration: one TOML file, environment variables override.

Every key is documented in ``EXAMPLE`` (what ``pbem init`` writes). An
environment variable ``PBEM_<SECTION>_<KEY>`` overrides ``[section] key``
(e.g. ``PBEM_DATABASE_URL``, ``PBEM_SECRETS_PLOT_KEY``). Settings are loaded
once and passed in; nothing reads a global.

The file is parsed into closed types: an unknown section, key or value is a
:class:`ConfigError` naming the key and what it accepts. Every relative path,
the SQLite file in a database URL included, is relative to the configuration
file's folder (``Config.base_dir``). :func:`redact` is the one way a text that
may hold a secret is made fit to print or log.
"""

from __future__ import annotations

import base64
import functools
import ipaddress
import logging
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, get_type_hints
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.core.errors import ConfigError

EXAMPLE = """\
# pbem configuration. Every key is optional unless marked REQUIRED.
# Environment variables override keys: PBEM_<SECTION>_<KEY>, e.g. PBEM_DATABASE_URL.
# An unknown section, key or value is an error; yes/no keys take true or false.
# Relative paths (Maildirs, a SQLite file) are relative to this file's folder.

[moderator]
# The address pbem sends from and players write to.
address = "moderator@pbem.example"
# Display name on outgoing mail.
name = "pbem moderator"
# The human moderator's own address: disputes and notices go there.
human = "umpire@pbem.example"
# The human moderator's Ed25519 public key (OpenSSH line, as `pbem keygen` prints it):
# order blocks signed with it and headed "Side: moderator" carry moderator commands.
public_key = ""
# Commands are taken only from `human` and these addresses (space-separated); every
# answer to a command is copied to `human`.
command_from = ""
# The moderator's time zone (IANA name): the dashboard shows deadlines in it and in UTC.
timezone = "UTC"

[signing]
# The game's own keys: every mail pbem sends is signed with one of them, so players'
# mail clients show it as verified and a forged report stands out. `pbem init` and
# `pbem mailkeys` make them; publish the .asc and .pem files to the players and keep
# the .key files secret (mode 0600). Empty: mail goes out unsigned.
# OpenPGP secret key (armoured): PGP/MIME signatures (RFC 3156), used when set.
openpgp_key = "%(openpgp_key)s"
# S/MIME private key and certificate (PEM): signatures when no OpenPGP key is set,
# and on mail encrypted to a player's S/MIME certificate.
smime_key = "%(smime_key)s"
smime_certificate = "%(smime_certificate)s"

[database]
# SQLAlchemy URL. SQLite is the embedded default; for PostgreSQL use e.g.
# "postgresql+psycopg://pbem@127.0.0.1:5432/pbem" (several daemons may share it).
# A relative SQLite path is relative to this file's folder.
url = "sqlite:///pbem.sqlite3"
# Several daemons (deploy/OPERATIONS.md): a daemon's claims on mail and on the
# mailbox are a lease it renews every few seconds; a daemon silent this long
# (killed, paused, cut off) loses them to the others.
lease_seconds = 60
# A daemon refuses to start when this host's clock is further than this from the
# database's (leases and deadlines are judged by the database's time).
max_clock_skew = 5.0
# PostgreSQL only, seconds: a wait for a row lock ends in an error after
# lock_timeout, a statement after statement_timeout, and the server ends a session
# left idle inside a transaction (a paused or cut-off daemon holding locks) after
# idle_in_transaction_timeout; TCP keepalives find a dead peer after
# keepalive_idle + keepalive_count * keepalive_interval.
lock_timeout = 10.0
statement_timeout = 60.0
idle_in_transaction_timeout = 30.0
keepalive_idle = 10
keepalive_interval = 5
keepalive_count = 3

[secrets]
# REQUIRED. Base64 of 32 random bytes: seals plots and phase seeds with AES-256-GCM.
# Never stored in the database. `pbem init` generates one.
plot_key = "%(plot_key)s"

[intake]
# "maildir" (embedded default, no server) or "imap".
transport = "maildir"
# Maildir watched for incoming mail (created if missing). Deliver into it by writing
# each mail to tmp/ and renaming it into new/, or with `pbem send --maildir DIR`.
maildir = "mail/inbox"
# Largest mail accepted, in bytes; larger mail gets an error answer and is not processed.
max_size = 1048576
# A sender may send at most this many mails per window (seconds); more are filed, not
# answered. Counted in the database: the limit holds across workers, daemons, restarts.
rate_limit = 30
rate_window = 3600
# Seconds between polls where IMAP IDLE is not offered (and for Maildir).
poll_interval = 2.0
# Processes that decide on stored mail. 1: the daemon itself; more use more cores
# (e.g. the number of cores), each with its own database connection.
workers = 1
# Lateness is judged by when the mailbox received a mail (IMAP INTERNALDATE, a
# Maildir file's time), never earlier than the Received headers that these hosts
# of OUR OWN (comma-separated; "*.example.org" for a domain) wrote on top of the
# mail. Received headers below them, which a sender can write, are never read.
trusted_received = ""

[imap]
host = "127.0.0.1"
port = 143
user = "moderator"
password = ""
tls = false
folder = "INBOX"
# Processed mail is moved here (never deleted) once committed to the database.
processed_folder = "pbem-processed"

[outbox]
# "maildir" (embedded default: mail is written to a folder) or "smtp".
transport = "maildir"
maildir = "mail/outbox"
# Temporary SMTP failures (4xx, server unreachable) are retried with exponential
# backoff: retry_base seconds, doubling, at most retry_cap seconds apart, for as long
# as the mail's game is not over; mail of no game (answers to strangers, notices), and
# mail of a game that ended, is retried for retry_window_hours of backoff before it is
# marked failed. Failed mail (and mail refused for good, 5xx) is never dropped: the
# human moderator is mailed (a digest of every failure, at most one an hour), STATUS
# shows it, and the commands FAILED [game] and RESEND-MAIL id list it and send it again.
retry_base = 30.0
retry_cap = 3600.0
retry_window_hours = 168.0
# The sent journal: a line for each mail the moment the server accepted it, read
# back into the database before any mail is sent (a daemon killed before its
# database mark does not send the mail again). "" puts it beside a SQLite file
# (<file>.sent, shared by the daemons using that file), else in this file's
# folder (outbox.sent); keep it on a local disk.
journal = ""

[smtp]
host = "127.0.0.1"
port = 25
username = ""
password = ""
starttls = false
# Connections used at once: a burst of mail (a turn's reports) drains at the server's pace.
connections = 4

[games]
# Defaults for new games (each game may override).
deadline_hours = 72
grace_hours = 24
reminder_hours = 24
early_adjudication = true
# "standing" (standing orders, else do nothing), "nothing" or "forfeit".
no_orders_policy = "standing"
# Caps on moderator acts per game.
max_pauses = 3
max_pause_days = 14
max_extension_hours = 168

[log]
# "DEBUG", "INFO", "WARNING" or "ERROR".
level = "INFO"
# "text" (one line per event) or "json" (one JSON object per line: time, level,
# logger, message, the event's fields, and the exception's traceback if any).
format = "text"

[metrics]
# The daemon serves Prometheus metrics at http://HOST:PORT/metrics when port is set
# (0: off). Keep it on loopback; put a proxy in front to expose it further.
host = "127.0.0.1"
port = 0

[reports]
# Where the player's docs (guides, order references, rule index) are published:
# `pbem docs html FOLDER` writes them, `pbem archive html` puts them beside a game's
# site. Reports and answers link each rule ID to <docs_url>/usn-rule-index.html#ID.
# "": none published; each player's first mail then carries the docs as an
# attachment, and rule IDs say "see the attached guide".
docs_url = ""
"""


class IntakeTransport(StrEnum):
    MAILDIR = "maildir"
    IMAP = "imap"


class OutboxTransport(StrEnum):
    MAILDIR = "maildir"
    SMTP = "smtp"


class NoOrdersPolicy(StrEnum):
    """What happens to a side that sent no orders by the end of the grace period."""

    STANDING = "standing"  # the ruleset's standing orders
    NOTHING = "nothing"  # no orders at all
    FORFEIT = "forfeit"  # the side loses the game


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


class LogLevel(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"


REDACTED = "***"
# scheme://user:PASSWORD@host: the password part of any URL.
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@", re.IGNORECASE)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` fit to print or log: the password of every URL in it and each of
    ``secrets`` (passwords, key material) replaced by ``***``."""
    text = _URL_PASSWORD.sub(rf"\1{REDACTED}@", text)
    for secret in secrets:
        if secret:
            text = _secret_pattern(secret).sub(REDACTED, text)
    return text


@functools.lru_cache(maxsize=64)
def _secret_pattern(secret: str) -> re.Pattern[str]:
    """Whole words only: a short password must not eat every letter it shares.
    Compiled once per secret (every log line is redacted)."""
    return re.compile(rf"(?<!\w){re.escape(secret)}(?!\w)")


class RedactingFilter(logging.Filter):
    """A log filter that passes every record through :func:`redact`."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = tuple(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message, self.secrets)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def _allowed(kind: type) -> str:
    if kind is bool:
        return "true or false (no quotes)"
    if issubclass(kind, StrEnum):
        return "one of " + ", ".join(f'"{v}"' for v in kind)
    if kind is Path:
        return "a path (a string)"
    return {int: "a whole number", float: "a number", str: "a string"}[kind]


def _typed(kind: type, value: Any, where: str) -> Any:
    """``value`` as ``kind``, as TOML gives it, or a ConfigError naming ``where``."""
    ok: bool
    if kind is bool:
        ok = isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind is float:
        # A whole number stays one: game settings keep what the file said.
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind is Path:
        ok = isinstance(value, str | Path) and str(value) != ""
        value = Path(value) if ok else value
    elif issubclass(kind, StrEnum):
        ok = isinstance(value, str) and value in kind._value2member_map_
        value = kind(value) if ok else value
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise ConfigError(f"{where}: {value!r} is not allowed; use {_allowed(kind)}")
    return value


def _from_environment(kind: type, text: str, where: str) -> Any:
    """An environment variable's text as ``kind`` (then checked by :func:`_typed`)."""
    if kind is bool:
        if text not in ("true", "false"):
            raise ConfigError(f"{where}: {text!r} is not allowed; use true or false")
        return text == "true"
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise ConfigError(f"{where}: {text!r} is not {_allowed(kind)}") from None
    return text


class _Section:
    """A ``[section]`` of the file: every value checked against its declared type
    when made, however it is made (file, environment, code)."""

    NAME: ClassVar[str]
    SECRETS: ClassVar[tuple[str, ...]] = ()  # keys whose values never show

    def __post_init__(self) -> None:
        for name, kind in get_type_hints(type(self)).items():
            if name.isupper():  # NAME, SECRETS
                continue
            value = _typed(kind, getattr(self, name), f"[{self.NAME}] {name}")
            object.__setattr__(self, name, value)
        self.check()

    def check(self) -> None:
        """Rules on values beyond their type."""

    def _positive(self, *names: str) -> None:
        for name in names:
            if getattr(self, name) <= 0:
                raise ConfigError(
                    f"[{self.NAME}] {name} must be more than 0, not {getattr(self, name)}"
                )

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self.SECRETS and value:
                value = REDACTED
            elif isinstance(value, str):
                value = redact(value)
            shown.append(f"{f.name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


@dataclass(frozen=True, repr=False)
class ModeratorConfig(_Section):
    NAME = "moderator"

    address: str = "moderator@pbem.example"
    name: str = "pbem moderator"
    human: str = "umpire@pbem.example"
    public_key: str = ""
    command_from: str = ""
    timezone: str = "UTC"

    def check(self) -> None:
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"[moderator] timezone {self.timezone!r} is no IANA time zone "
                '(e.g. "Europe/Berlin", "UTC")'
            ) from None

    @property
    def command_addresses(self) -> frozenset[str]:
        """The addresses moderator commands are taken from (lower case)."""
        return frozenset(a.lower() for a in (self.human, *self.command_from.split()) if a)


@dataclass(frozen=True, repr=False)
class SigningConfig(_Section):
    """The game's signing keys: paths to files, "" for none (see EXAMPLE)."""

    NAME = "signing"

    openpgp_key: str = ""
    smime_key: str = ""
    smime_certificate: str = ""

    def check(self) -> None:
        if bool(self.smime_key) != bool(self.smime_certificate):
            raise ConfigError(
                "[signing] smime_key and smime_certificate go together: set both or neither"
            )


# The databases pbem runs on, with any SQLAlchemy driver: sqlite[+driver]://...
_DATABASE_URL = re.compile(r"^(sqlite|postgresql)(\+\w+)?://")


@dataclass(frozen=True, repr=False)
class DatabaseConfig(_Section):
    NAME = "database"

    url: str = "sqlite:///pbem.sqlite3"
    lease_seconds: float = 60.0
    max_clock_skew: float = 5.0
    lock_timeout: float = 10.0
    statement_timeout: float = 60.0
    idle_in_transaction_timeout: float = 30.0
    keepalive_idle: int = 10
    keepalive_interval: int = 5
    keepalive_count: int = 3

    def check(self) -> None:
        self._positive(
            "lease_seconds",
            "max_clock_skew",
            "lock_timeout",
            "statement_timeout",
            "idle_in_transaction_timeout",
            "keepalive_idle",
            "keepalive_interval",
            "keepalive_count",
        )
        if self.lease_seconds < 10:
            # Renewed every 5 s (the heartbeat): a shorter lease lapses on a busy host.
            raise ConfigError(
                f"[database] lease_seconds must be 10 or more, not {self.lease_seconds}"
            )
        # A paused daemon's locks must go before its lease does: else it costs the
        # others more than one lease time.
        for name in ("lock_timeout", "idle_in_transaction_timeout"):
            if getattr(self, name) >= self.lease_seconds:
                raise ConfigError(
                    f"[database] {name} ({getattr(self, name)}) must be less than "
                    f"lease_seconds ({self.lease_seconds})"
                )
        if not _DATABASE_URL.match(self.url):
            raise ConfigError(
                f"[database] url: {redact(self.url)!r} is not allowed; use a SQLite or "
                'PostgreSQL URL, e.g. "sqlite:///pbem.sqlite3" or '
                '"postgresql+psycopg://pbem@127.0.0.1:5432/pbem"'
            )

    def password(self) -> str:
        """The URL's password, decoded ("" if none)."""
        return unquote(urlsplit(self.url).password or "")


@dataclass(frozen=True, repr=False)
class SecretsConfig(_Section):
    NAME = "secrets"
    SECRETS = ("plot_key",)

    plot_key: str = ""

    def key_bytes(self) -> bytes:
        try:
            key = base64.b64decode(self.plot_key, validate=True)
        except ValueError as exc:
            raise ConfigError(f"[secrets] plot_key is not base64: {exc}") from None
        if len(key) != 32:
            raise ConfigError("[secrets] plot_key must be base64 of 32 bytes (run `pbem init`)")
        return key


@dataclass(frozen=True, repr=False)
class IntakeConfig(_Section):
    NAME = "intake"

    transport: IntakeTransport = IntakeTransport.MAILDIR
    maildir: Path = Path("mail/inbox")
    max_size: int = 1_048_576
    rate_limit: int = 30
    rate_window: int = 3600
    poll_interval: float = 2.0
    workers: int = 1
    trusted_received: str = ""

    def trusted_hosts(self) -> tuple[str, ...]:
        """The hosts of ``trusted_received``, lower-case."""
        return tuple(h.strip().lower() for h in self.trusted_received.split(",") if h.strip())

    def check(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"[intake] workers must be 1 or more, not {self.workers}")
        self._positive("max_size", "rate_limit", "rate_window", "poll_interval")


def _check_port(section: _Section, port: int) -> None:
    if not 0 < port < 65536:
        raise ConfigError(f"[{section.NAME}] port must be 1 to 65535, not {port}")


@dataclass(frozen=True, repr=False)
class ImapConfig(_Section):
    NAME = "imap"
    SECRETS = ("password",)

    host: str = "127.0.0.1"
    port: int = 143
    user: str = "moderator"
    password: str = ""
    tls: bool = False
    folder: str = "INBOX"
    processed_folder: str = "pbem-processed"

    def check(self) -> None:
        _check_port(self, self.port)


@dataclass(frozen=True, repr=False)
class OutboxConfig(_Section):
    NAME = "outbox"

    transport: OutboxTransport = OutboxTransport.MAILDIR
    maildir: Path = Path("mail/outbox")
    retry_base: float = 30.0
    retry_cap: float = 3600.0
    retry_window_hours: float = 168.0
    journal: str = ""  # "": beside a SQLite file, else outbox.sent here (Config.sent_journal)
    # Retired: temporary failures are retried for as long as the game is alive (see
    # EXAMPLE). Still read, so that an older pbem.toml keeps working; 0: not set.
    max_attempts: int = 0

    def check(self) -> None:
        self._positive("retry_base", "retry_cap", "retry_window_hours")
        if self.retry_cap < self.retry_base:
            raise ConfigError(
                f"[outbox] retry_cap ({self.retry_cap}) must be at least "
                f"retry_base ({self.retry_base})"
            )

    def notes(self) -> list[str]:
        """What the operator should change in this section (logged at start-up)."""
        if self.max_attempts:
            return [
                "[outbox] max_attempts is no longer used and may be removed: temporary "
                "failures are retried (backoff up to retry_cap) while the game is alive, "
                "else for retry_window_hours; failed mail is reported to the moderator "
                "(FAILED, RESEND-MAIL)"
            ]
        return []


@dataclass(frozen=True, repr=False)
class SmtpConfig(_Section):
    NAME = "smtp"
    SECRETS = ("password",)

    host: str = "127.0.0.1"
    port: int = 25
    username: str = ""
    password: str = ""
    starttls: bool = False
    connections: int = 4

    def check(self) -> None:
        _check_port(self, self.port)
        self._positive("connections")


@dataclass(frozen=True, repr=False)
class GamesConfig(_Section):
    NAME = "games"

    deadline_hours: float = 72
    grace_hours: float = 24
    reminder_hours: float = 24
    early_adjudication: bool = True
    no_orders_policy: NoOrdersPolicy = NoOrdersPolicy.STANDING
    max_pauses: int = 3
    max_pause_days: float = 14
    max_extension_hours: float = 168


@dataclass(frozen=True, repr=False)
class LogConfig(_Section):
    NAME = "log"

    level: LogLevel = LogLevel.INFO
    format: LogFormat = LogFormat.TEXT


@dataclass(frozen=True, repr=False)
class MetricsConfig(_Section):
    NAME = "metrics"

    host: str = "127.0.0.1"
    port: int = 0  # 0: no metrics endpoint

    def check(self) -> None:
        if not 0 <= self.port < 65536:
            raise ConfigError(f"[metrics] port must be 0 (off) or 1 to 65535, not {self.port}")
        if not self.host:
            raise ConfigError('[metrics] host must be an address, e.g. "127.0.0.1"')
        if not _loopback(self.host):
            # The endpoint has no access control: only this machine may scrape it.
            raise ConfigError(
                f"[metrics] host must be a loopback address (127.0.0.1, any 127.x.y.z, ::1 "
                f"or localhost), not {self.host!r}: the endpoint has no access control; "
                "scrape it on this host or through a proxy that has"
            )


def _loopback(host: str) -> bool:
    """``host`` is this machine only: 127.0.0.0/8, ::1, or the name localhost."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # another name: it could resolve to anything


@dataclass(frozen=True, repr=False)
class ReportsConfig(_Section):
    NAME = "reports"

    docs_url: str = ""  # where players read the docs: http(s):// or file://; "": attached

    def check(self) -> None:
        if self.docs_url and not re.match(r"^(https?|file)://", self.docs_url):
            raise ConfigError(
                f"[reports] docs_url must start with https://, http:// or file://, "
                f"not {self.docs_url!r}"
            )
        object.__setattr__(self, "docs_url", self.docs_url.rstrip("/"))


# A relative SQLite file in a database URL: sqlite[+driver]:///PATH[?query].
_SQLITE_FILE = re.compile(r"^(sqlite(?:\+\w+)?:///)([^?]*)(\?.*)?$")


def resolve_path(base_dir: Path, path: str | Path) -> Path:
    """The one rule for paths in the configuration: relative to ``base_dir``."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else base_dir / path


def _resolve_url(base_dir: Path, url: str) -> str:
    match = _SQLITE_FILE.match(url)
    if match is None:
        return url
    prefix, file, query = match.groups()
    if not file or file == ":memory:" or file.startswith("file:"):
        return url
    return f"{prefix}{resolve_path(base_dir, file)}{query or ''}"


@dataclass(frozen=True)
class Config:
    """The whole configuration. Made with ``base_dir`` (the file's folder), every
    path in it is absolute: Maildirs and a SQLite database file alike."""

    moderator: ModeratorConfig = field(default_factory=ModeratorConfig)
    signing: SigningConfig = field(default_factory=SigningConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    secrets: SecretsConfig = field(default_factory=SecretsConfig)
    intake: IntakeConfig = field(default_factory=IntakeConfig)
    imap: ImapConfig = field(default_factory=ImapConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    games: GamesConfig = field(default_factory=GamesConfig)
    log: LogConfig = field(default_factory=LogConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    reports: ReportsConfig = field(default_factory=ReportsConfig)
    base_dir: Path = Path(".")

    def __post_init__(self) -> None:
        base = Path(self.base_dir).resolve()
        resolved = {
            "base_dir": base,
            "intake": replace(self.intake, maildir=resolve_path(base, self.intake.maildir)),
            "outbox": replace(self.outbox, maildir=resolve_path(base, self.outbox.maildir)),
            "database": replace(self.database, url=_resolve_url(base, self.database.url)),
            "signing": replace(
                self.signing,
                **{
                    f.name: str(resolve_path(base, getattr(self.signing, f.name)))
                    for f in fields(self.signing)
                    if getattr(self.signing, f.name)  # "" stays "": no key
                },
            ),
        }
        for name, value in resolved.items():
            object.__setattr__(self, name, value)

    def sent_journal(self) -> Path | None:
        """The outbox's sent journal (pbem.service.sentjournal): ``[outbox] journal``,
        else beside a SQLite file (the daemons sharing it share the journal), else in
        the configuration's folder; None for an in-memory SQLite database."""
        if self.outbox.journal:
            return resolve_path(self.base_dir, self.outbox.journal)
        if not self.database.url.startswith("sqlite"):
            return self.base_dir / "outbox.sent"
        match = _SQLITE_FILE.match(self.database.url)
        file = "" if match is None else match.group(2)
        if not file or file == ":memory:" or file.startswith("file:"):
            return None
        return Path(f"{file}.sent")

    def secret_values(self) -> tuple[str, ...]:
        """Every secret this configuration holds, for :func:`redact`."""
        return tuple(
            s
            for s in (
                self.secrets.plot_key,
                self.imap.password,
                self.smtp.password,
                self.database.password(),
            )
            if s
        )

    def redact(self, text: str) -> str:
        """``text`` without this configuration's secrets (see :func:`redact`)."""
        return redact(text, self.secret_values())


SECTIONS: dict[str, type[_Section]] = {
    cls.NAME: cls
    for cls in (
        ModeratorConfig,
        SigningConfig,
        DatabaseConfig,
        SecretsConfig,
        IntakeConfig,
        ImapConfig,
        OutboxConfig,
        SmtpConfig,
        GamesConfig,
        LogConfig,
        MetricsConfig,
        ReportsConfig,
    )
}


def example_config(openpgp_key: str = "", smime_key: str = "", smime_certificate: str = "") -> str:
    """The commented configuration with a fresh plot key and these signing key paths."""
    key = base64.b64encode(os.urandom(32)).decode()
    return EXAMPLE % {
        "plot_key": key,
        "openpgp_key": openpgp_key,
        "smime_key": smime_key,
        "smime_certificate": smime_certificate,
    }


def _section(cls: type[_Section], raw: Mapping[str, Any], env: Mapping[str, str]) -> _Section:
    kinds = {f.name: get_type_hints(cls)[f.name] for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - set(kinds))
    if unknown:
        raise ConfigError(
            f"[{cls.NAME}] unknown key {unknown[0]!r}; the keys are: {', '.join(kinds)}"
        )
    values = dict(raw)
    prefix = f"PBEM_{cls.NAME.upper()}_"
    for variable in sorted(v for v in env if v.startswith(prefix)):
        name = variable[len(prefix) :].lower()
        if name not in kinds:
            raise ConfigError(
                f"{variable}: [{cls.NAME}] has no key {name!r}; the keys are: {', '.join(kinds)}"
            )
        values[name] = _from_environment(kinds[name], env[variable], variable)
    return cls(**values)


def load_config(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read the TOML file (``path``, else $PBEM_CONFIG, else ./pbem.toml); the
    environment's ``PBEM_<SECTION>_<KEY>`` variables override its keys."""
    env = os.environ if environ is None else environ
    if path is None:
        path = env.get("PBEM_CONFIG") or ("pbem.toml" if Path("pbem.toml").exists() else None)
    if path is None:
        raise ConfigError(
            "no configuration file: make one with `pbem init pbem.toml`, "
            "then name it with -c FILE or $PBEM_CONFIG (or run pbem in its folder)"
        )
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"configuration file {p} not found: make one with `pbem init {p}`"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read configuration file {p}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigError(
            f"unknown section [{unknown[0]}]; the sections are: {', '.join(SECTIONS)}"
        )
    sections: dict[str, Any] = {}
    for name, cls in SECTIONS.items():
        raw = data.get(name, {})
        if not isinstance(raw, dict):
            raise ConfigError(f"[{name}] must be a table (a [{name}] heading), not {raw!r}")
        sections[name] = _section(cls, raw, env)
    return Config(**sections, base_dir=p.resolve().parent)
