"""Helpers for the pipeline tests: players who compose and send signed mail the way
a mail client does, a demo game in a fresh database, a daemon configured for the
mail lab (in process or as a real ``pbem serve``), and readers for what arrived.

The demo ruleset ("north"/"south", scenario "duel", orders ``SEND SQN-n A|B|C``,
one phase "plot" per turn) stands in for a real wargame.
"""

from __future__ import annotations

import atexit
import base64
import email
import email.policy
import functools
import itertools
import os
import shutil
import smtplib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import (
    Config,
    DatabaseConfig,
    ImapConfig,
    IntakeConfig,
    ModeratorConfig,
    OutboxConfig,
    SecretsConfig,
    SigningConfig,
    SmtpConfig,
)
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.outbox.gamekeys import KeyFiles, generate_game_keys
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import InboundMail, OutboundMail
from tests.maillab import MailLab

REPO = Path(__file__).resolve().parents[2]
_lab_names = itertools.count(1)


@dataclass
class Player:
    side: str
    address: str
    password: str
    key: bytes
    public: str


def new_player(lab: MailLab, side: str, prefix: str = "") -> Player:
    """A mailbox in the lab and an Ed25519 key pair for ``side``."""
    n = next(_lab_names)
    password = f"pw-{side}-{n}"
    address = lab.add_user(f"{prefix}{side}{n}", password)
    key, public = generate_keypair(address)
    return Player(side, address, password, key, public)


def sheet(game: str, side: str, orders: Sequence[str], turn: int = 1, phase: str = "plot") -> str:
    """An order sheet with a fresh Nonce, as ``pbem sign`` expects it."""
    head = f"Game: {game}\nSide: {side}\nTurn: {turn}\nPhase: {phase}\n\n"
    return add_nonce(head + "\n".join(orders) + "\n")


def signed(player: Player, game: str, orders: Sequence[str], turn: int = 1) -> str:
    return sign_block(sheet(game, player.side, orders, turn), player.key)


def compose(
    sender: str,
    to: str,
    subject: str,
    body: str,
    *,
    cte: str = "quoted-printable",
    charset: str = "utf-8",
    html_only: bool = False,
    in_reply_to: str | None = None,
) -> EmailMessage:
    """A mail as a mail client composes it (Message-ID, Date, a text/plain or HTML body)."""
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = email.utils.formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2])
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    if html_only:
        paragraphs = "".join(f"<p>{line}</p>\n" for line in body.splitlines())
        msg.set_content(f"<html><body>\n{paragraphs}</body></html>\n", subtype="html", cte=cte)
    else:
        msg.set_content(body, charset=charset, cte=cte)
    return msg


def submit(lab: MailLab, msg: EmailMessage) -> None:
    """Send through the lab's SMTP server as a mail client does (send_message)."""
    with smtplib.SMTP("127.0.0.1", lab.smtp_port, timeout=10) as smtp:
        smtp.send_message(msg)


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None, "no text/plain part"
    content = part.get_content()
    assert isinstance(content, str)
    return content


def delivered(lab: MailLab, address: str) -> list[EmailMessage]:
    return [parse(raw) for raw in lab.list_messages(address)]


def answers(messages: Iterable[EmailMessage]) -> list[EmailMessage]:
    """The moderator's answers (stable Message-IDs ``<pbem.answer.…>``), not reports."""
    return [m for m in messages if str(m.get("Message-ID", "")).startswith("<pbem.answer.")]


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


# --------------------------------------------------------------- the moderator's desk


@dataclass
class ModeratorDesk:
    """A moderator's installation: its mailbox in the lab, a database, a configuration."""

    lab: MailLab
    url: str
    config: Config
    moderator_password: str
    sessions: sessionmaker[Session] = field(repr=False)

    @property
    def address(self) -> str:
        return self.config.moderator.address

    def gm(self, session: Session, now: datetime | None = None) -> GameMaster:
        desk = Desk(session, self.config, self.config.secrets.key_bytes(), now or datetime.now(UTC))
        return GameMaster(desk, Publisher())

    def demo_game(
        self,
        game_id: str,
        players: Sequence[Player],
        *,
        scenario: str = "duel",
        early_adjudication: bool = True,
        **settings: object,
    ) -> None:
        """A demo game started now; ``settings`` on top (``deadline_hours`` ...)."""
        with self.sessions.begin() as s:
            gm = self.gm(s)
            gm.acts.create_game(
                game_id,
                "demo",
                scenario,
                settings={"early_adjudication": early_adjudication, **settings},
            )
            for p in players:
                gm.acts.assign(game_id, p.side, p.address, public_key=p.public)
            gm.acts.start(game_id)

    def mails(self) -> list[InboundMail]:
        with self.sessions() as s:
            return list(s.scalars(select(InboundMail).order_by(InboundMail.id)))

    def outgoing(self) -> list[OutboundMail]:
        with self.sessions() as s:
            return list(s.scalars(select(OutboundMail).order_by(OutboundMail.id)))

    def toml(self) -> str:
        """The configuration as a file for a ``pbem serve`` subprocess."""
        c = self.config
        return f"""\
[moderator]
address = "{c.moderator.address}"
human = "{c.moderator.human}"
[database]
url = "{c.database.url}"
lease_seconds = {c.database.lease_seconds}
lock_timeout = {c.database.lock_timeout}
idle_in_transaction_timeout = {c.database.idle_in_transaction_timeout}
[secrets]
plot_key = "{c.secrets.plot_key}"
[signing]
openpgp_key = "{c.signing.openpgp_key}"
smime_key = "{c.signing.smime_key}"
smime_certificate = "{c.signing.smime_certificate}"
[intake]
transport = "imap"
rate_limit = {c.intake.rate_limit}
max_size = {c.intake.max_size}
poll_interval = {c.intake.poll_interval}
workers = {c.intake.workers}
[imap]
host = "{c.imap.host}"
port = {c.imap.port}
user = "{c.imap.user}"
password = "{c.imap.password}"
processed_folder = "{c.imap.processed_folder}"
[outbox]
transport = "{c.outbox.transport}"
maildir = "{c.outbox.maildir}"
retry_base = {c.outbox.retry_base}
[smtp]
host = "{c.smtp.host}"
port = {c.smtp.port}
[log]
level = "INFO"
"""


@functools.cache
def game_keys() -> KeyFiles:
    """The game's signing keys (issue 14), made once per test process: every desk's
    mail goes out signed, as a real installation's does (RSA keys are slow to make)."""
    folder = Path(tempfile.mkdtemp(prefix="pbem-game-keys-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return generate_game_keys(folder, "pbem moderator", "moderator@pbem.example")


def stamp_head(url: str) -> None:
    """The schema create_all made is the migrations' head (test_migrations proves it)."""
    from alembic import command
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", "pbem:migrations")
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.stamp(cfg, "head")


def moderator_desk(lab: MailLab, url: str, base_dir: Path, **intake: object) -> ModeratorDesk:
    """A fresh moderator mailbox and schema; intake by IMAP, outbox by SMTP, both the lab's;
    outgoing mail signed with the game's OpenPGP key."""
    n = next(_lab_names)
    password = f"mod-pw-{n}"
    address = lab.add_user(f"moderator{n}", password)
    keys = game_keys()
    config = Config(
        moderator=ModeratorConfig(address=address, human=lab.add_user(f"umpire{n}", "u")),
        signing=SigningConfig(
            openpgp_key=str(keys.openpgp_key),
            smime_key=str(keys.smime_key),
            smime_certificate=str(keys.smime_certificate),
        ),
        # Short leases: a daemon killed by a test is taken over within seconds.
        database=DatabaseConfig(
            url=url, lease_seconds=15, lock_timeout=5, idle_in_transaction_timeout=10
        ),
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        intake=replace(IntakeConfig(transport="imap", poll_interval=0.5), **intake),  # type: ignore[arg-type]
        imap=ImapConfig(port=lab.imap_port, user=address, password=password),
        outbox=OutboxConfig(transport="smtp", retry_base=0.2),
        smtp=SmtpConfig(port=lab.smtp_port),
        base_dir=base_dir,
    )
    engine = make_engine(url)
    create_all(engine)
    stamp_head(url)  # `pbem serve` refuses a schema behind the migrations, as the doctor does
    return ModeratorDesk(lab, url, config, password, make_sessionmaker(engine))


# ------------------------------------------------------------- a real daemon process


class DaemonProcess:
    """``pbem -c FILE serve`` as a child process, its log appended to one file.

    ``wrapper`` runs it through another command, e.g. in a network namespace
    (``ip netns exec NAME``, which execs it: the process is the daemon)."""

    def __init__(self, desk: ModeratorDesk, folder: Path, wrapper: Sequence[str] = ()) -> None:
        self.config_path = folder / "pbem.toml"
        self.config_path.write_text(desk.toml())
        self.wrapper = list(wrapper)
        self.log_path = folder / "daemon.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._ready_before = 0
        # Inherited by the daemon's worker processes: finds them all, orphans included.
        self.marker = f"PBEM_TEST_DAEMON={os.urandom(8).hex()}"

    def start(self) -> None:
        assert self.process is None or self.process.poll() is not None
        env = {**os.environ, "PYTHONPATH": str(REPO), **dict([self.marker.split("=")])}
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [*self.wrapper, sys.executable, "-m", "pbem", "-c", str(self.config_path), "serve"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )
        self.starts += 1
        self._ready_before = self.log().count("pbem daemon ready")

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Until this run logged "ready" (its signal handlers are installed by then)."""
        wait_until(
            lambda: self.log().count("pbem daemon ready") > self._ready_before,
            timeout,
            "the daemon to be ready",
        )

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> int:
        """SIGTERM and wait: a clean shutdown."""
        assert self.process is not None
        self.process.terminate()
        return self.process.wait(timeout=30)

    def processes(self) -> list[int]:
        """Every live process started by this daemon's runs (workers too), but zombies."""
        found = []
        for proc in Path("/proc").iterdir():
            try:
                if self.marker.encode() not in (proc / "environ").read_bytes().split(b"\0"):
                    continue
                if (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(proc.name))
            except (OSError, ValueError):
                continue  # not a process, gone meanwhile, or not ours to read
        return found

    def log(self) -> str:
        if not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")
