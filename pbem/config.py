"""Configuration: one TOML file, environment variables override.

Every key is documented in ``EXAMPLE`` (what ``pbem init`` writes). An
environment variable ``PBEM_<SECTION>_<KEY>`` overrides ``[section] key``
(e.g. ``PBEM_DATABASE_URL``, ``PBEM_SECRETS_PLOT_KEY``). Settings are loaded
once and passed in; nothing reads a global.
"""

from __future__ import annotations

import base64
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pbem.core.errors import ConfigError

EXAMPLE = """\
# pbem configuration. Every key is optional unless marked REQUIRED.
# Environment variables override keys: PBEM_<SECTION>_<KEY>, e.g. PBEM_DATABASE_URL.

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

[database]
# SQLAlchemy URL. SQLite is the embedded default; for PostgreSQL use e.g.
# "postgresql+psycopg://pbem@127.0.0.1:5432/pbem" (several daemons may share it).
url = "sqlite:///pbem.sqlite3"

[secrets]
# REQUIRED. Base64 of 32 random bytes: seals plots and phase seeds with AES-256-GCM.
# Never stored in the database. `pbem init` generates one.
plot_key = "%(plot_key)s"

[intake]
# "maildir" (embedded default, no server) or "imap".
transport = "maildir"
# Maildir watched for incoming mail (created if missing).
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
# Retries of temporary SMTP failures, with exponential backoff from this many seconds.
max_attempts = 8
retry_base = 30.0

[smtp]
host = "127.0.0.1"
port = 25
username = ""
password = ""
starttls = false

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
level = "INFO"
"""


@dataclass(frozen=True)
class ModeratorConfig:
    address: str = "moderator@pbem.example"
    name: str = "pbem moderator"
    human: str = "umpire@pbem.example"
    public_key: str = ""


@dataclass(frozen=True)
class DatabaseConfig:
    url: str = "sqlite:///pbem.sqlite3"


@dataclass(frozen=True)
class SecretsConfig:
    plot_key: str = ""

    def key_bytes(self) -> bytes:
        try:
            key = base64.b64decode(self.plot_key, validate=True)
        except ValueError as exc:
            raise ConfigError(f"[secrets] plot_key is not base64: {exc}") from None
        if len(key) != 32:
            raise ConfigError("[secrets] plot_key must be base64 of 32 bytes (run `pbem init`)")
        return key


@dataclass(frozen=True)
class IntakeConfig:
    transport: str = "maildir"
    maildir: str = "mail/inbox"
    max_size: int = 1_048_576
    rate_limit: int = 30
    rate_window: int = 3600
    poll_interval: float = 2.0
    workers: int = 1

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"[intake] workers must be 1 or more, not {self.workers}")


@dataclass(frozen=True)
class ImapConfig:
    host: str = "127.0.0.1"
    port: int = 143
    user: str = "moderator"
    password: str = ""
    tls: bool = False
    folder: str = "INBOX"
    processed_folder: str = "pbem-processed"


@dataclass(frozen=True)
class OutboxConfig:
    transport: str = "maildir"
    maildir: str = "mail/outbox"
    max_attempts: int = 8
    retry_base: float = 30.0


@dataclass(frozen=True)
class SmtpConfig:
    host: str = "127.0.0.1"
    port: int = 25
    username: str = ""
    password: str = ""
    starttls: bool = False


@dataclass(frozen=True)
class GamesConfig:
    deadline_hours: float = 72
    grace_hours: float = 24
    reminder_hours: float = 24
    early_adjudication: bool = True
    no_orders_policy: str = "standing"
    max_pauses: int = 3
    max_pause_days: float = 14
    max_extension_hours: float = 168


@dataclass(frozen=True)
class LogConfig:
    level: str = "INFO"


@dataclass(frozen=True)
class Config:
    moderator: ModeratorConfig = field(default_factory=ModeratorConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    secrets: SecretsConfig = field(default_factory=SecretsConfig)
    intake: IntakeConfig = field(default_factory=IntakeConfig)
    imap: ImapConfig = field(default_factory=ImapConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    games: GamesConfig = field(default_factory=GamesConfig)
    log: LogConfig = field(default_factory=LogConfig)
    base_dir: Path = Path(".")

    def path(self, relative: str) -> Path:
        """Paths in the file are relative to the file's folder."""
        p = Path(relative)
        return p if p.is_absolute() else self.base_dir / p


def example_config() -> str:
    key = base64.b64encode(os.urandom(32)).decode()
    return EXAMPLE % {"plot_key": key}


def _coerce(value: Any, default: Any, where: str) -> Any:
    kind = type(default)
    if isinstance(value, str) and kind is not str:
        try:
            if kind is bool:
                return value.strip().lower() in ("1", "true", "yes", "on")
            return kind(value)
        except ValueError:
            raise ConfigError(f"{where}: {value!r} is not a {kind.__name__}") from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind):
        raise ConfigError(f"{where}: expected {kind.__name__}, got {value!r}")
    return value


def load_config(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read the TOML file (``path``, else $PBEM_CONFIG, else ./pbem.toml if present)."""
    env = os.environ if environ is None else environ
    if path is None:
        path = env.get("PBEM_CONFIG") or ("pbem.toml" if Path("pbem.toml").exists() else None)
    data: dict[str, Any] = {}
    base_dir = Path(".")
    if path is not None:
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"configuration file {p} not found (run `pbem init`)") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: {exc}") from None
        base_dir = p.resolve().parent
    sections: dict[str, Any] = {}
    for f in fields(Config):
        if f.name == "base_dir":
            continue
        default_section = f.default_factory()  # type: ignore[operator]
        raw = data.get(f.name, {})
        if not isinstance(raw, dict):
            raise ConfigError(f"[{f.name}] must be a table")
        known = {sf.name for sf in fields(default_section)}
        unknown = set(raw) - known
        if unknown:
            raise ConfigError(f"[{f.name}] unknown key(s): {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {}
        for sf in fields(default_section):
            where = f"[{f.name}] {sf.name}"
            default = getattr(default_section, sf.name)
            env_key = f"PBEM_{f.name.upper()}_{sf.name.upper()}"
            if env_key in env:
                values[sf.name] = _coerce(env[env_key], default, env_key)
            elif sf.name in raw:
                values[sf.name] = _coerce(raw[sf.name], default, where)
        sections[f.name] = type(default_section)(**values)
    unknown_sections = set(data) - set(sections)
    if unknown_sections:
        raise ConfigError(f"unknown section(s): {', '.join(sorted(unknown_sections))}")
    return Config(**sections, base_dir=base_dir)
