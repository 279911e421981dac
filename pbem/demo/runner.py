"""A demonstration: a whole game played by signed mail through a real daemon.

Everything a real installation does happens here, on the embedded defaults
(SQLite and local Maildirs): the moderator creates the game by a signed mail,
two scripted players read the reports the daemon mails them, fill in the
order form, sign it and mail it back; the daemon (``pbem serve``, a separate
process) verifies, seals, adjudicates and reports until the game is over.
Then the archive is exported and verified.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from pbem.config import example_config
from pbem.core import options as game_options
from pbem.core.errors import ConfigError
from pbem.core.ruleset import ScenarioInfo
from pbem.demo.usn import orders_summary, verdict_lines
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.outbox.gamekeys import generate_game_keys

MODERATOR = "moderator@pbem.example"
MARK = ".pbem-demo"  # in a folder the demo made: it may replace what is there
FORM = re.compile(r"---8<---\n(.*?)\n---8<---", re.S)


def _say(text: str) -> None:
    print(f"[demo] {text}", flush=True)


class Player:
    """A scripted player: reads his reports from the outbox, answers by signed mail."""

    def __init__(self, side: str, email: str, key: bytes, seed: int) -> None:
        self.side = side
        self.email = email
        self.key = key
        self.rng = random.Random(seed)
        self.answered: set[str] = set()
        # Another ruleset's player: (order form, the report it came with) -> orders.
        self.strategy: Callable[[str, str], str] | None = None

    def orders_from_form(self, form: str, report: str = "") -> str:
        """Keep the headers; for each order line, pick a zone (demo) or keep it."""
        if self.strategy is not None:
            return self.strategy(form, report)
        out = []
        for line in form.splitlines():
            words = line.split()
            if len(words) == 3 and words[0] == "SEND":
                line = f"SEND {words[1]} {self.rng.choice('ABC')}"
            out.append(line)
        return "\n".join(out) + "\n"


def _mail(sender: str, subject: str, body: str, in_reply_to: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = MODERATOR
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2])
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    # As a mail client sends it: quoted-printable text.
    msg.set_content(body, cte="quoted-printable")
    return msg.as_bytes()


# The scenario ``pbem demo --ruleset R`` plays unless --scenario names another.
DEFAULT_SCENARIOS = {"usn": "coral-sea", "witp": "coral-sea-1942", "demo": "duel"}


def _scripted_player(ruleset: str) -> Callable[[str, str], Callable[[str, str], str]] | None:
    """The ruleset's scripted players (side, scenario) -> orders_from_form, if any."""
    if ruleset == "usn":  # a simple legal plan per mini-game
        from pbem.demo.usn import strategy as usn

        return usn
    if ruleset == "witp":  # a function per side, from its form and report
        from pbem.demo.witp import strategy as witp

        return witp
    return None


def _scenario(ruleset: str, scenario: str) -> ScenarioInfo:
    from pbem import rulesets

    known = {sc.name: sc for sc in rulesets.get(ruleset).scenarios()}
    if scenario not in known:
        raise ConfigError(
            f"ruleset {ruleset} has no scenario {scenario!r}; known: {', '.join(sorted(known))}"
        )
    return known[scenario]


def _options(info: ScenarioInfo, words: Sequence[str]) -> str:
    """``--option key=value`` words, checked as CREATE checks them (the daemon would
    refuse them later, and the demo would wait in vain): the CREATE words in force."""
    given: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise ConfigError(f"--option {word!r}: write key=value (e.g. fog=double-blind)")
        given[key] = value
    try:
        return game_options.describe(game_options.resolve(info.options, given))
    except game_options.OptionError as exc:
        raise ConfigError(f"--option: {exc}") from None


def run_demo(
    directory: Path,
    ruleset: str,
    scenario: str | None = None,
    timeout: float = 120.0,
    options: Sequence[str] = (),
) -> int:
    scenario = scenario or DEFAULT_SCENARIOS.get(ruleset, "")
    info = _scenario(ruleset, scenario)  # before anything is written
    sides, in_force = tuple(info.sides), _options(info, options)
    mod_key = _install(directory)
    players = _players(sides, ruleset, scenario)
    Path("mail").mkdir(exist_ok=True)
    inbox = mailbox.Maildir("mail/inbox", create=True)
    _create_game(inbox, mod_key, f"{ruleset} {scenario}", in_force, players)
    if not _play(inbox, players, timeout):
        return 1
    return _archive(directory)


def _install(directory: Path) -> bytes:
    """A fresh installation in ``directory`` (made the working folder): configuration,
    the game's signing keys and the database; the moderator's private key."""
    if (directory / "pbem.toml").exists() and not (directory / MARK).exists():
        raise ConfigError(
            f"{directory} holds a pbem.toml the demo did not write, and the demo replaces "
            "its database and mail: choose another --dir (or remove an old demo's folder)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARK).touch()
    os.chdir(directory)
    for leftover in ("pbem.sqlite3", "pbem.sqlite3-wal", "pbem.sqlite3-shm"):
        Path(leftover).unlink(missing_ok=True)
    for folder in ("mail", "archive"):
        if Path(folder).exists():
            import shutil

            shutil.rmtree(folder)
    mod_key, mod_pub = generate_keypair("moderator")
    # The game's signing keys: every mail the daemon sends is signed.
    generate_game_keys(Path("keys"), "pbem moderator", MODERATOR, force=True)
    config = example_config(
        openpgp_key="keys/openpgp.key",
        smime_key="keys/smime.key",
        smime_certificate="keys/smime.pem",
    ).replace('public_key = ""', f'public_key = "{mod_pub}"')
    Path("pbem.toml").write_text(config)
    _say(f"working in {directory}: configuration pbem.toml, database pbem.sqlite3")
    subprocess.run([sys.executable, "-m", "pbem", "-c", "pbem.toml", "db", "upgrade"], check=True)
    return mod_key


def _players(sides: Sequence[str], ruleset: str, scenario: str) -> list[Player]:
    """A player a side, with his key pair written beside the configuration."""
    players = []
    for i, side in enumerate(sides):
        private, public = generate_keypair(side)
        Path(f"{side}.key").write_bytes(private)
        Path(f"{side}.pub").write_text(public + "\n")
        players.append(Player(side, f"{side}@players.example", private, seed=i))
        scripted = _scripted_player(ruleset)
        if scripted is not None:
            players[-1].strategy = scripted(side, scenario)
    return players


def _create_game(
    inbox: mailbox.Maildir, mod_key: bytes, game: str, in_force: str, players: Sequence[Player]
) -> None:
    """The moderator's signed mail: CREATE ``game`` (ruleset and scenario), ASSIGN, START."""
    commands = [f"CREATE demo-1 {game} deadline_hours=48 {in_force}".rstrip()]
    commands += [
        f"ASSIGN demo-1 {p.side} {p.email} {Path(p.side + '.pub').read_text().strip()}"
        for p in players
    ]
    commands += ["START demo-1"]
    block = sign_block(
        add_nonce("Game: demo-1\nSide: moderator\nTurn: 1\nPhase: setup\n\n" + "\n".join(commands)),
        mod_key,
    )
    inbox.add(_mail("umpire@pbem.example", "new game", "Please set this up.\n\n" + block))
    _say(
        f"the moderator mailed a signed block: CREATE ({in_force or 'no options'}), ASSIGN both sides, START"
    )


def _play(inbox: mailbox.Maildir, players: Sequence[Player], timeout: float) -> bool:
    """Runs the daemon while the players answer what it mails them: True once the game
    is over; False (said why) if the daemon died or the game did not end in time."""
    log = open("daemon.log", "w")  # noqa: SIM115 (open for the daemon's whole life)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "pbem", "-c", "pbem.toml", "serve"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    _say(f"daemon started (pid {daemon.pid}); its log is daemon.log")
    seen: set[str] = set()
    over = False
    deadline = time.monotonic() + timeout
    try:
        while not over and time.monotonic() < deadline:
            time.sleep(0.3)
            if daemon.poll() is not None:
                _say("the daemon died; see daemon.log")
                return False
            for raw in _new_mail(Path("mail/outbox"), seen):
                over = _read(raw, players, inbox, over) or over
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        log.close()
    if not over:
        _say("the game did not finish in time; see daemon.log")
    return over


def _new_mail(outbox: Path, seen: set[str]) -> Iterator[bytes]:
    """The daemon's outgoing mail not read yet, in the order it was queued."""
    if not outbox.exists():
        return
    out = mailbox.Maildir(str(outbox), create=False)
    for name in sorted(out.keys()):
        if name not in seen:
            seen.add(name)
            yield out.get_bytes(name)


def _read(raw: bytes, players: Sequence[Player], inbox: mailbox.Maildir, over: bool) -> bool:
    """One mail of the daemon's, answered by the player it is for; True if it says the
    game is over (its verdict is told the first time)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    to = str(msg["To"])
    subject = str(msg["Subject"])
    assert isinstance(msg, EmailMessage)
    body_part = msg.get_body(("plain",))
    text = body_part.get_content() if body_part is not None else ""
    text = text.replace("\r\n", "\n")  # base64 bodies keep their CRLF
    _say(f"mail to {to}: {subject}")
    ended = "game over" in subject
    if ended and not over:
        for line in verdict_lines(text):
            _say(f"   {line}")
    for player in players:
        if player.email in to:
            _answer(player, msg, text, inbox)
    return ended


def _answer(player: Player, msg: EmailMessage, text: str, inbox: mailbox.Maildir) -> None:
    """An answer to his orders is told; an order form is filled in, signed and mailed."""
    subject = str(msg["Subject"])
    if subject.startswith("Re:"):
        summary = re.search(r"Accepted \((\d+)\)", text)
        refused = re.search(r"Refused \((\d+)\)", text)
        _say(
            f"   {player.side}: answer says accepted {summary.group(1) if summary else 0}"
            + (f", refused {refused.group(1)}" if refused else "")
        )
        return
    form = FORM.search(text)
    if not form:
        return
    orders = player.orders_from_form(form.group(1), text)
    signed = sign_block(add_nonce(orders), player.key)
    inbox.add(_mail(player.email, f"Re: {subject}", signed, str(msg["Message-ID"])))
    _say(f"   {player.side} signs and mails {orders_summary(orders)}")


def _archive(directory: Path) -> int:
    """Exports the game's archive and verifies it, as a player would."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pbem",
            "-c",
            "pbem.toml",
            "archive",
            "export",
            "demo-1",
            "--out",
            "archive/demo-1",
        ],
        check=True,
    )
    check = subprocess.run(
        [sys.executable, "-m", "pbem", "verify", "archive/demo-1"], capture_output=True, text=True
    )
    _say(("verify: " + check.stdout.strip()) if check.returncode == 0 else check.stderr)
    _say(f"all mail the daemon sent: {directory / 'mail/outbox/new'}")
    _say(f"the game's archive (record, reports): {directory / 'archive/demo-1'}")
    return check.returncode
