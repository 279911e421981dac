"""`pbem doctor`: is this installation able to run? One line per check.

``CHECKS`` is the one list of checks, and ``pbem serve`` runs the same list's
start-up checks (``Check.at_start``) before it starts, refusing to start on any
failure: what the doctor fails, the daemon refuses, and the two cannot drift
apart. Only three checks are the doctor's alone: the IMAP and SMTP servers,
which the daemon rides out being down (it keeps its mail and tries again), and
the players' keys, one of which going bad is that seat's matter (its mail is
answered saying so), not a reason to stop every game.

Each check tries what the daemon will do, the way the daemon does it (the same
configuration, the same libraries, the same TLS settings), and says OK, FAIL
with the reason, or SKIP where the configuration leaves nothing to check (an
IMAP check with a Maildir intake). Nothing is changed anywhere: IMAP opens the
folder read-only (EXAMINE), SMTP stops after the login, the database is only
read. Every line is redacted: a password in a server's answer is never shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import Engine, create_engine, select, text
from sqlalchemy.exc import SQLAlchemyError

from pbem.config import Config, DatabaseConfig, IntakeTransport, OutboxTransport, load_config
from pbem.core.errors import ConfigError
from pbem.intake.keyring import key_warnings, read_key
from pbem.intake.signatures import load_public_key
from pbem.lifecycle.acts import MAILBOX
from pbem.outbox.gamekeys import load_game_keys
from pbem.service.clock import utcnow
from pbem.storage.db import make_engine
from pbem.storage.enums import GameStatus
from pbem.storage.models import Game, Seat, SeatKey

# Seconds a server may take to answer one check.
TIMEOUT = 15.0
# Deadlines are judged by this host's clock, and several daemons share a database:
# a clock further off the database's than this is a failure.
CLOCK_TOLERANCE = DatabaseConfig.max_clock_skew


class Verdict(StrEnum):
    OK = "OK"
    FAIL = "FAIL"
    SKIP = "SKIP"


@dataclass(frozen=True)
class Finding:
    check: str
    verdict: Verdict
    detail: str

    def line(self) -> str:
        return f"{self.verdict.value:<4} {self.check}: {self.detail}"


class Failed(Exception):
    """A check's precise reason to fail."""


def _reason(exc: BaseException) -> str:
    text_ = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text_}" if text_ else type(exc).__name__


# ------------------------------------------------------------------ database


def check_database(engine: Engine) -> str:
    """Connect, and compare the schema's Alembic revision with the newest one."""
    from alembic.config import Config as AlembicConfig
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    file = engine.url.database if engine.dialect.name == "sqlite" else None
    if file and file != ":memory:" and not file.startswith("file:") and not Path(file).exists():
        # Connecting would create an empty file: say what is missing instead.
        raise Failed(f"the SQLite file {file} does not exist: run `pbem db upgrade`")
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            current = MigrationContext.configure(conn).get_current_revision()
    except SQLAlchemyError as exc:
        orig = getattr(exc, "orig", None)
        raise Failed(f"cannot connect: {_reason(orig or exc)}") from None
    scripts = AlembicConfig()
    scripts.set_main_option("script_location", "pbem:migrations")  # as storage.db.upgrade
    head = ScriptDirectory.from_config(scripts).get_current_head()
    if current is None:
        raise Failed("no schema version in the database: run `pbem db upgrade`")
    if current != head:
        raise Failed(f"schema at revision {current}, the newest is {head}: run `pbem db upgrade`")
    return f"{engine.url.render_as_string(hide_password=True)}, schema at revision {head}"


def clock_skew(engine: Engine, clock: Callable[[], datetime]) -> float | None:
    """Seconds ``clock`` is ahead of PostgreSQL's now() (behind: negative), read
    at the midpoint of the round trip; None on SQLite, which lives on this host
    and has no clock of its own."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        before = clock()
        db_now = conn.execute(text("SELECT now()")).scalar_one()
        after = clock()
    skew: float = ((before + (after - before) / 2) - db_now).total_seconds()
    return skew


def check_clock(
    engine: Engine, clock: Callable[[], datetime], tolerance: float = CLOCK_TOLERANCE
) -> str | None:
    """This host's clock against the database's; Failed beyond ``tolerance`` s
    (``[database] max_clock_skew``; the daemon refuses to start then)."""
    skew = clock_skew(engine, clock)
    if skew is None:
        return None
    if problem := skew_problem(skew, tolerance):
        raise Failed(problem)
    return f"within {abs(skew):.2f} s of the database's clock ({clock():%Y-%m-%d %H:%M:%S} UTC)"


def skew_problem(skew: float, tolerance: float) -> str | None:
    """What is wrong with a clock ``skew`` s ahead of the database's, or None."""
    if abs(skew) <= tolerance:
        return None
    return (
        f"this host's clock is {abs(skew):.1f} s {'ahead of' if skew > 0 else 'behind'} "
        f"the database's (more than {tolerance:g} s, [database] max_clock_skew): "
        "leases and deadlines would be judged wrongly; synchronise the clocks (NTP)"
    )


def check_keys(config: Config) -> str:
    """The plot key and the moderator's key: each readable and of the type pbem uses."""
    config.secrets.key_bytes()  # ConfigError names the problem
    said = ["plot key: 32 bytes"]
    if config.moderator.public_key:
        try:
            load_public_key(config.moderator.public_key)
        except ValueError as exc:
            raise Failed(f"[moderator] public_key: {exc}") from None
        said.append("moderator key: ssh-ed25519")
    return "; ".join(said)


def check_signing(config: Config) -> str:
    """The game's signing keys load and can sign, as the outbox loads them."""
    keys = load_game_keys(config.signing)  # ConfigError names the file and the problem
    said = []
    if keys.openpgp is not None:
        said.append(f"OpenPGP key {keys.openpgp.extract_certificate().fingerprint}")
    if keys.smime is not None:
        said.append(f"S/MIME certificate {keys.smime.certificate.subject.rfc4514_string()}")
    return ", ".join(said) or "no keys named in [signing]: mail goes out unsigned"


def check_moderator(config: Config) -> str:
    """The addresses mail goes from and to: each a mail address (name@example.org)."""
    m = config.moderator
    named = [("address", m.address), ("human", m.human)]
    named += [("command_from", a) for a in m.command_from.split()]
    wrong = [f"[moderator] {key} {value!r}" for key, value in named if not MAILBOX.fullmatch(value)]
    if wrong:
        raise Failed(f"{', '.join(wrong)}: not a mail address (name@example.org)")
    return f"mail goes from {m.address}; notices to {m.human}"


def check_seat_keys(engine: Engine) -> str:
    """Every key and certificate of a seat in a game not over: each readable and of
    the type pbem verifies, none expired or about to."""
    problems: list[str] = []
    seats: set[int] = set()
    now = datetime.now(UTC)
    with engine.connect() as conn:
        rows = conn.execute(
            select(Seat.id, Seat.game_id, Seat.side, Seat.email, SeatKey.kind, SeatKey.material)
            .join(Game, Game.id == Seat.game_id)
            .join(SeatKey, SeatKey.seat_id == Seat.id)
            .where(
                Seat.active.is_(True),
                SeatKey.retired_at.is_(None),
                Game.status != GameStatus.OVER,
            )
            .order_by(Seat.game_id, Seat.id, SeatKey.id)
        ).all()
    for seat_id, game, side, email, kind, material in rows:
        seats.add(seat_id)
        who = f"game {game}, {side or 'observer'} ({email})"
        try:
            # The same reading and the same warnings as ASSIGN and KEY ADD give.
            problems.extend(f"{who}: {w}" for w in key_warnings(read_key(kind, material), now))
        except ValueError as exc:
            problems.append(f"{who}: {kind} key not readable: {exc}")
    if problems:
        raise Failed("; ".join(problems))
    return f"{len(seats)} seat(s) in games not over"


def check_metrics(config: Config) -> str | None:
    """The metrics endpoint's address can be listened on (None: no endpoint)."""
    c = config.metrics
    if not c.port:
        return None
    try:
        with socket.create_server((c.host, c.port)):
            pass
    except OSError as exc:
        raise Failed(
            f"cannot listen on {c.host}:{c.port}: {exc.strerror or exc} "
            "(is a daemon running on this host already?)"
        ) from None
    return f"http://{c.host}:{c.port}/metrics can be served"


# ---------------------------------------------------------------- mail servers


async def check_imap(config: Config) -> str:
    """Log in as the daemon will and open the folder read-only (EXAMINE)."""
    import aioimaplib

    c = config.imap
    client: aioimaplib.IMAP4 = (
        aioimaplib.IMAP4_SSL(host=c.host, port=c.port, timeout=TIMEOUT)
        if c.tls
        else aioimaplib.IMAP4(host=c.host, port=c.port, timeout=TIMEOUT)
    )
    where = f"{c.user} at {c.host}:{c.port}"
    try:
        try:
            await client.wait_hello_from_server()
        except (OSError, TimeoutError, aioimaplib.AioImapException) as exc:
            raise Failed(f"cannot connect to {c.host}:{c.port}: {_reason(exc)}") from None
        login = await client.login(c.user, c.password)
        if login.result != "OK":
            raise Failed(f"LOGIN as {c.user} refused: {_lines(login.lines)}")
        folder = '"' + c.folder.replace("\\", "\\\\").replace('"', '\\"') + '"'
        examined = await client.examine(folder)
        if examined.result != "OK":
            raise Failed(f"folder {c.folder!r}: {_lines(examined.lines)}")
        count = next(
            (
                int(bytes(line).split()[0])
                for line in examined.lines
                if isinstance(line, bytes | bytearray) and bytes(line).endswith(b" EXISTS")
            ),
            0,
        )
        with_tls = "TLS" if c.tls else "no TLS"
        return f"logged in as {where} ({with_tls}); {c.folder} holds {count} message(s)"
    finally:
        if client.protocol is not None and client.protocol.state in (
            aioimaplib.AUTH,
            aioimaplib.SELECTED,
        ):
            with contextlib.suppress(OSError, TimeoutError, aioimaplib.AioImapException):
                await asyncio.wait_for(client.logout(), TIMEOUT)
        transport = getattr(client.protocol, "transport", None)
        if transport is not None:
            transport.close()


def _lines(lines: list[bytes | bytearray | str]) -> str:
    return " ".join(
        (bytes(x).decode(errors="replace") if not isinstance(x, str) else x) for x in lines
    ).strip()


async def check_smtp(config: Config) -> str:
    """Connect (with STARTTLS if configured) and log in if a username is set."""
    import aiosmtplib

    c = config.smtp
    smtp = aiosmtplib.SMTP(
        hostname=c.host,
        port=c.port,
        username=c.username or None,
        password=c.password or None,
        start_tls=c.starttls,
        timeout=TIMEOUT,
    )
    try:
        await smtp.connect()
    except aiosmtplib.SMTPAuthenticationError as exc:
        raise Failed(f"login as {c.username} refused: {exc.code} {exc.message}") from None
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise Failed(f"{c.host}:{c.port}: {_reason(exc)}") from None
    try:
        how = "STARTTLS" if c.starttls else "no TLS"
        who = f"logged in as {c.username}" if c.username else "no login configured"
        return f"{c.host}:{c.port} accepted EHLO ({how}, {who})"
    finally:
        try:
            await smtp.quit()
        except (aiosmtplib.SMTPException, OSError):
            smtp.close()


def check_maildir(path: Path) -> str:
    """The folder exists (or can be made) and this user may write into it."""
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise Failed(f"{probe} is not a folder")
    if not os.access(probe, os.R_OK | os.W_OK | os.X_OK):
        raise Failed(f"{probe}: this user ({_user()}) may not read and write it")
    if probe == path:
        missing = [d for d in ("new", "cur", "tmp") if not (path / d).is_dir()]
        if missing:
            return f"{path} (the daemon adds {', '.join(missing)})"
        return f"{path}"
    return f"{path} does not exist yet; the daemon creates it in {probe}"


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return str(os.geteuid())


# ---------------------------------------------------------------------- all


class Skipped(Exception):
    """Nothing for a check to look at here: why."""


@dataclass(frozen=True)
class Installation:
    """What the checks look at: the configuration and the database's engine,
    ``usable`` once the database check passed (the checks that read it skip else)."""

    config: Config
    engine: Engine
    clock: Callable[[], datetime]
    usable: bool = False

    def database(self) -> Engine:
        if not self.usable:
            raise Skipped("the database is out of reach")
        return self.engine


@dataclass(frozen=True)
class Check:
    """One line of the doctor's. ``at_start``: ``pbem serve`` runs it too, and does
    not start if it fails. ``applies``: whether the configuration has it at all."""

    name: str
    work: Callable[[Installation], str | None]  # None: SKIP, nothing to compare
    at_start: bool = True
    applies: Callable[[Config], bool] = lambda config: True
    network: bool = False  # asynchronous, on the event loop (the mail servers)


def _imap(config: Config) -> bool:
    return config.intake.transport is IntakeTransport.IMAP


def _smtp(config: Config) -> bool:
    return config.outbox.transport is OutboxTransport.SMTP


def _sync_probe(
    probe: Callable[[Config], Coroutine[Any, Any, str]],
) -> Callable[[Installation], str]:
    """A mail server's check, on an event loop of its own in the check's thread."""
    return lambda at: asyncio.run(probe(at.config))


# The one list, in the order the lines are printed. The database's comes first:
# the checks after it that read the database skip when it failed.
CHECKS: tuple[Check, ...] = (
    Check("database", lambda at: check_database(at.engine)),
    Check("keys", lambda at: check_keys(at.config)),
    Check("signing", lambda at: check_signing(at.config)),
    Check("moderator", lambda at: check_moderator(at.config)),
    Check(
        "clock",
        lambda at: check_clock(at.database(), at.clock, at.config.database.max_clock_skew),
    ),
    Check("seat keys", lambda at: check_seat_keys(at.database()), at_start=False),
    Check("metrics", lambda at: check_metrics(at.config)),
    Check("imap", _sync_probe(check_imap), at_start=False, applies=_imap),
    Check(
        "intake maildir",
        lambda at: check_maildir(at.config.intake.maildir),
        applies=lambda config: not _imap(config),
    ),
    Check("smtp", _sync_probe(check_smtp), at_start=False, applies=_smtp),
    Check(
        "outbox maildir",
        lambda at: check_maildir(at.config.outbox.maildir),
        applies=lambda config: not _smtp(config),
    ),
)

_SKIP_WHY = {
    "clock": "nothing to compare on SQLite (same host)",
    "metrics": "no metrics endpoint ([metrics] port = 0)",
}


def _run(check: Check, at: Installation) -> Finding:
    config = at.config
    try:
        detail = check.work(at)
    except Skipped as exc:
        return Finding(check.name, Verdict.SKIP, str(exc))
    except (Failed, ConfigError) as exc:
        return Finding(check.name, Verdict.FAIL, config.redact(str(exc)))
    except TimeoutError:
        return Finding(check.name, Verdict.FAIL, f"no answer within {TIMEOUT + 5:.0f} s")
    except Exception as exc:  # a doctor reports; it never dies with a traceback
        return Finding(check.name, Verdict.FAIL, config.redact(_reason(exc)))
    if detail is None:
        return Finding(check.name, Verdict.SKIP, _SKIP_WHY.get(check.name, "nothing to check"))
    return Finding(check.name, Verdict.OK, config.redact(detail))


def _engine(url: str) -> Engine:
    # A PostgreSQL host that drops packets must not hold the doctor for minutes.
    if url.startswith("postgresql"):
        return create_engine(url, connect_args={"connect_timeout": int(TIMEOUT)})
    return make_engine(url)


async def examine(
    config: Config, clock: Callable[[], datetime] = utcnow, *, at_start: bool = False
) -> list[Finding]:
    """Every check after the configuration, in order (``at_start``: only those
    ``pbem serve`` runs before it starts). Each in a thread of its own, bounded by
    TIMEOUT: a server that never answers is a FAIL, not a hang."""
    engine = _engine(config.database.url)
    try:
        at = Installation(config, engine, clock)
        found: list[Finding] = []
        for check in CHECKS:
            if not check.applies(config) or (at_start and not check.at_start):
                continue
            try:
                finding = await asyncio.wait_for(asyncio.to_thread(_run, check, at), TIMEOUT + 5)
            except TimeoutError:
                finding = Finding(check.name, Verdict.FAIL, f"no answer within {TIMEOUT + 5:.0f} s")
            found.append(finding)
            if check.name == "database" and finding.verdict is Verdict.OK:
                at = Installation(config, engine, clock, usable=True)
        return found
    finally:
        engine.dispose()


def start_up_failures(config: Config, clock: Callable[[], datetime] = utcnow) -> list[Finding]:
    """What ``pbem serve`` refuses to start on: the failed start-up checks."""
    return [
        f for f in asyncio.run(examine(config, clock, at_start=True)) if f.verdict is Verdict.FAIL
    ]


def findings(path: str | None, clock: Callable[[], datetime] = utcnow) -> Iterator[Finding]:
    """The configuration first; the rest only if it loads."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        yield Finding("configuration", Verdict.FAIL, str(exc))
        return
    where = path or os.environ.get("PBEM_CONFIG") or "pbem.toml"
    yield Finding(
        "configuration",
        Verdict.OK,
        f"{where}: intake {config.intake.transport}, outbox {config.outbox.transport}, "
        f"database {config.database.url.split(':', 1)[0]}",
    )
    yield from asyncio.run(examine(config, clock))


def run_doctor(path: str | None, out: TextIO | None = None) -> int:
    """Print one line per check (to stdout); 1 if any failed, else 0."""
    out = out or sys.stdout
    failed = False
    for finding in findings(path):
        print(finding.line(), file=out, flush=True)
        failed = failed or finding.verdict is Verdict.FAIL
    return 1 if failed else 0
