"""Benchmark: a player's answer latency against two baselines measured in the same run.

Usage:  python bench/answers.py [--games 5] [--db sqlite|postgresql] [--workers 1]

A private mail lab (tests/maillab.py: Dovecot IMAP + LMTP, aiosmtpd SMTP on
loopback) and ``--games`` running demo games (early adjudication on: the
second side's order mail closes the round, which the daemon then adjudicates
and reports). Every player's mailbox is watched the way his mail client sees
it: an aioimaplib client in IDLE on his INBOX, stamping each ``EXISTS``. A real
``pbem serve`` (IMAP intake with IDLE, SMTP outbox through the lab) runs, and
per order, one after another, each timed from the player's send to the mail's
``EXISTS`` in his IDLE client:

* **(a) one-way delivery**: a plain mail sent by SMTP to the player (SMTP ->
  LMTP -> Dovecot -> IDLE notification);
* **(b) echo robot**: the floor of any mail-answering service. A one-line mail
  from the player to the robot's mailbox, where the robot waits in IDLE,
  fetches the new mail and at once sends a one-line reply by SMTP (one
  connection kept warm) to the player: two deliveries and nothing else;
* **answer**: the player's signed order mail to the moderator, until pbem's
  answer is in his mailbox. The first order goes out right after the daemon
  logged "ready" and START's reports arrived (the first after start-up); then,
  per game, the side that leaves the round open and the side that closes it.

Printed: each latency, the medians, each answer's ratio to the robot's median
(b) and to the one-way median (a), and where the daemon's time went per
answer (from its JSON log: IDLE wake, fetch, filing, processing, send).
Targets: every answer within 1.5x the robot's median (b), and
closing a round costs the answer no more than another mail's (the closing
median within 1.5x the others'). "1.5x one-way (a)" is printed too but is no
target: an answer is two deliveries, so no service reaches it (bench/README.md).
Exits non-zero when a target is missed. Needs root (the lab's Dovecot).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path

import aioimaplib
import aiosmtplib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from intake import order_mail  # noqa: E402

from pbem.config import Config, ModeratorConfig, SecretsConfig  # noqa: E402
from pbem.intake.signatures import generate_keypair  # noqa: E402
from pbem.lifecycle.desk import Desk  # noqa: E402
from pbem.lifecycle.games import GameMaster  # noqa: E402
from pbem.lifecycle.publishing import Publisher  # noqa: E402
from pbem.storage.db import create_all, make_engine, make_sessionmaker  # noqa: E402
from tests.conftest import make_database  # noqa: E402
from tests.maillab import MailLab  # noqa: E402

TARGET = 1.5
PASSWORD = "pw"
LIMIT = 120.0  # seconds any one mail may take before the run gives up
_EXISTS = re.compile(rb"^(\d+) EXISTS$")

Seat = tuple[str, str, bytes, str]  # game, side, signing key, address


def seats_for(url: str, config: Config, lab: MailLab, games: int) -> list[list[Seat]]:
    """Running demo games with early adjudication; per game its two seats,
    each player a mailbox of the lab."""
    from datetime import UTC

    engine = make_engine(url)
    create_all(engine)
    out = []
    with make_sessionmaker(engine).begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher())
        for g in range(games):
            game, seats = f"a{g}", []
            gm.acts.create_game(game, "demo", "long-duel")
            for side in ("north", "south"):
                key, pub = generate_keypair(f"{side}-{g}")
                address = lab.add_user(f"{side}{g}", PASSWORD)
                gm.acts.assign(game, side, address, public_key=pub)
                seats.append((game, side, key, address))
            gm.acts.start(game)
            out.append(seats)
    engine.dispose()
    return out


def plain(sender: str, to: str, text: str = "ping") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, text
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg.set_content(text + "\n")
    return msg.as_bytes()


async def _login(lab: MailLab, address: str) -> aioimaplib.IMAP4:
    client = aioimaplib.IMAP4(host="127.0.0.1", port=lab.imap_port, timeout=30)
    await client.wait_hello_from_server()
    await client.login(address, PASSWORD)
    return client


def _exists(lines: list[bytes]) -> int | None:
    counts = [int(m.group(1)) for line in lines if (m := _EXISTS.match(bytes(line)))]
    return counts[-1] if counts else None


class MailClient:
    """A player's mail client: stays in IDLE on his INBOX and stamps (wall clock)
    the moment the server says the mailbox holds n messages."""

    def __init__(self, lab: MailLab, address: str) -> None:
        self.lab, self.address = lab, address
        self.count = 0
        self.seen: dict[int, float] = {}  # message count -> when EXISTS said so
        self.changed = asyncio.Event()

    async def start(self) -> None:
        self.client = await _login(self.lab, self.address)
        selected = await self.client.select("INBOX")
        self.count = _exists(selected.lines) or 0
        self.task = asyncio.create_task(self._idle())

    async def _idle(self) -> None:
        while True:
            idle = await self.client.idle_start(timeout=25 * 60)
            while (
                push := await self.client.wait_server_push()
            ) != aioimaplib.STOP_WAIT_SERVER_PUSH:
                now = time.time()
                if (n := _exists(push)) is not None and n > self.count:
                    for k in range(self.count + 1, n + 1):
                        self.seen[k] = now
                    self.count = n
                    self.changed.set()
            await asyncio.wait_for(idle, 30)

    async def holds(self, n: int) -> float:
        """When the mailbox first held ``n`` messages (waits for it)."""
        async with asyncio.timeout(LIMIT):
            while self.count < n:
                self.changed.clear()
                await self.changed.wait()
        return self.seen.get(n, 0.0)

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        self.client.protocol.transport.close()


class EchoRobot:
    """The floor of any mail-answering service: IDLE on its mailbox; on EXISTS,
    fetch the new mails' From and send each a one-line reply by SMTP over a
    connection kept warm; IDLE again."""

    def __init__(self, lab: MailLab, address: str) -> None:
        self.lab, self.address = lab, address
        self.answered = 0

    async def start(self) -> None:
        self.client = await _login(self.lab, self.address)
        await self.client.select("INBOX")
        self.smtp = aiosmtplib.SMTP(hostname="127.0.0.1", port=self.lab.smtp_port, start_tls=False)
        await self.smtp.connect()
        self.task = asyncio.create_task(self._serve())

    async def _serve(self) -> None:
        last_uid = 0
        while True:
            idle = await self.client.idle_start(timeout=25 * 60)
            while (
                push := await self.client.wait_server_push()
            ) != aioimaplib.STOP_WAIT_SERVER_PUSH:
                if _exists(push) is not None:
                    break
            self.client.idle_done()
            await asyncio.wait_for(idle, 30)
            got = await self.client.uid(
                "fetch", f"{last_uid + 1}:*", "(UID BODY.PEEK[HEADER.FIELDS (FROM)])"
            )
            for line in got.lines:
                if isinstance(line, bytearray):
                    sender = parseaddr(message_from_bytes(bytes(line))["From"] or "")[1]
                    if sender:
                        reply = plain(self.address, sender, "echo")
                        await self.smtp.sendmail(self.address, [sender], reply)
                        self.answered += 1
                elif m := re.search(rb"UID (\d+)", bytes(line)):
                    last_uid = max(last_uid, int(m.group(1)))

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        self.client.protocol.transport.close()
        self.smtp.close()


def run(games: int, db: str, workers: int) -> tuple[dict[str, list[float]], list[str]]:
    with MailLab() as lab, tempfile.TemporaryDirectory() as folder_name:
        folder = Path(os.environ.get("ANSWERS_KEEP", folder_name))
        folder.mkdir(exist_ok=True)
        databases = make_database(db, folder)
        url = next(databases)
        try:
            return asyncio.run(_measure(lab, folder, url, games, workers))
        finally:
            next(databases, None)


def _config(
    folder: Path, moderator: str, url: str, plot_key: str, lab: MailLab, workers: int
) -> Path:
    path = folder / "pbem.toml"
    path.write_text(
        f"""\
[moderator]
address = "{moderator}"
[database]
url = "{url}"
[secrets]
plot_key = "{plot_key}"
[intake]
transport = "imap"
rate_limit = 1000000
workers = {workers}
[imap]
host = "127.0.0.1"
port = {lab.imap_port}
user = "{moderator}"
password = "{PASSWORD}"
[outbox]
transport = "smtp"
[smtp]
host = "127.0.0.1"
port = {lab.smtp_port}
[log]
level = "INFO"
format = "json"
"""
    )
    return path


async def _send(lab: MailLab, sender: str, to: str, raw: bytes) -> float:
    """The player's client hands a mail to the SMTP server; when it began (wall clock)."""
    t0 = time.time()
    await asyncio.to_thread(lab.smtp_send, sender, [to], raw)
    return t0


async def _measure(
    lab: MailLab, folder: Path, url: str, games: int, workers: int
) -> tuple[dict[str, list[float]], list[str]]:
    moderator = lab.add_user("moderator", PASSWORD)
    robot_address = lab.add_user("echo", PASSWORD)
    plot_key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        moderator=ModeratorConfig(address=moderator), secrets=SecretsConfig(plot_key=plot_key)
    )
    seats = await asyncio.to_thread(seats_for, url, config, lab, games)
    clients = {address: MailClient(lab, address) for game in seats for *_, address in game}
    robot = EchoRobot(lab, robot_address)
    for client in clients.values():
        await client.start()
    await robot.start()
    log_path = folder / "daemon.log"
    log = log_path.open("w")
    daemon = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pbem",
            "-c",
            str(_config(folder, moderator, url, plot_key, lab, workers)),
            "serve",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=folder,
    )
    out: dict[str, list[float]] = {"a": [], "b": [], "open": [], "close": [], "first": []}
    stages: list[str] = []
    try:
        while "pbem daemon ready" not in log_path.read_text(errors="replace"):
            if daemon.poll() is not None:
                raise SystemExit(f"the daemon died:\n{log_path.read_text(errors='replace')}")
            await asyncio.sleep(0.01)
        # START's reports reach the players first; then one mail at a time.
        for client in clients.values():
            await client.holds(1)
        first = True
        for i, game in enumerate(seats):
            for j, (gid, side, key, address) in enumerate(game):
                client = clients[address]
                if not first:  # the first order goes out right after start-up
                    t0 = await _send(lab, moderator, address, plain(moderator, address))
                    out["a"].append(await client.holds(client.count + 1) - t0)
                    t0 = await _send(lab, address, robot_address, plain(address, robot_address))
                    out["b"].append(await client.holds(client.count + 1) - t0)
                raw = order_mail(gid, side, key, address, moderator, i)
                before = {a: clients[a].count for *_, a in game}
                t0 = await _send(lab, address, moderator, raw)
                arrived = await client.holds(before[address] + 1)
                kind = "first" if first else "close" if j == 1 else "open"
                out[kind].append(arrived - t0)
                stages.append(_stages(log_path, kind, t0, arrived))
                first = False
                if j == 1:  # the round's reports reach both players before the next mail
                    for seat_address, had in before.items():
                        reports = 2 if seat_address == address else 1  # his answer, then the report
                        await clients[seat_address].holds(had + reports)
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
        for client in clients.values():
            await client.close()
        await robot.close()
    return out, stages


# The daemon's log lines that mark an answer's way, in order (the JSON log's "message").
_MARKS: list[tuple[str, Callable[[str], bool]]] = [
    ("idle", lambda m: m.startswith("IDLE: new mail")),
    ("fetched", lambda m: m.startswith("fetched ")),
    ("filed", lambda m: m == "mail filed"),
    ("processed", lambda m: m.startswith("processed ")),
    ("acknowledged", lambda m: m.startswith("acknowledged ")),
    ("sent", lambda m: m.startswith("sent mail")),
]


def _log_times(path: Path) -> Iterator[tuple[float, str]]:
    for line in path.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        yield datetime.fromisoformat(entry["time"]).timestamp(), entry["message"]


def _stages(path: Path, kind: str, t0: float, arrived: float) -> str:
    """Where this answer's time went, from the daemon's log: each mark's first
    line between the send and the arrival, in ms after the send."""
    found: dict[str, float] = {}
    for when, message in _log_times(path):
        if t0 - 0.001 <= when <= arrived:
            for name, test in _MARKS:
                if name not in found and test(message):
                    found[name] = when
    parts = [
        f"{name} {(when - t0) * 1000:.0f}"
        for name, when in sorted(found.items(), key=lambda x: x[1])
    ]
    return (
        f"{kind:5}: " + ", ".join(parts) + f", in the player's client {(arrived - t0) * 1000:.0f}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    ap.add_argument("--workers", type=int, default=1, help="[intake] workers of the daemon")
    args = ap.parse_args()
    r, stages = run(args.games, args.db, args.workers)
    one_way, robot = statistics.median(r["a"]), statistics.median(r["b"])
    ms = lambda xs: " ".join(f"{x * 1000:.0f}" for x in xs)  # noqa: E731
    print(f"{args.games} games, {args.db}, {args.workers} worker(s), load {os.getloadavg()[0]:.1f}")
    print(f"(a) one-way delivery, IDLE client (ms):    {ms(r['a'])}  median {one_way * 1000:.0f}")
    print(f"(b) echo robot, send to reply seen (ms):   {ms(r['b'])}  median {robot * 1000:.0f}")
    print(f"first answer after start-up (ms):          {ms(r['first'])}")
    print(f"answers, round left open (ms):             {ms(r['open'])}")
    print(f"answers, round closed (ms):                {ms(r['close'])}")
    print("where the daemon's time went (ms after the player's send):")
    for line in stages:
        print("  " + line)
    answers = r["first"] + r["open"] + r["close"]
    worst = max(answers)
    closing = statistics.median(r["close"]) / statistics.median(r["open"])
    print(f"robot (b) / one-way (a): {robot / one_way:.2f}")
    print(
        f"answers / robot median (b): first {r['first'][0] / robot:.2f}, "
        f"worst {worst / robot:.2f}, median {statistics.median(answers) / robot:.2f} "
        f"(target <= {TARGET} for every answer)"
    )
    print(
        f"answers / one-way median (a): worst {worst / one_way:.2f}, "
        f"median {statistics.median(answers) / one_way:.2f} (no target: two deliveries)"
    )
    print(f"closing the round, median / others' median: {closing:.2f} (target <= {TARGET})")
    met = worst / robot <= TARGET and closing <= TARGET
    print("targets:", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
