"""Benchmark: a player's answer latency against raw mail delivery, in one run.

Usage:  python bench/answers.py [--games 5] [--db sqlite|postgresql]

A private mail lab (tests/maillab.py: Dovecot IMAP + LMTP, aiosmtpd SMTP on
loopback) and ``--games`` running demo games (early adjudication on: the
second side's order mail closes the round, which the daemon then adjudicates
and reports). A real ``pbem serve`` (intake imap with IDLE, outbox smtp through
the lab's SMTP server into the players' mailboxes) is started, and at once:

* **raw delivery**: a plain mail sent by SMTP to a player's address, timed
  until it is in that mailbox (SMTP -> LMTP -> Dovecot), before each order;
* **answer**: a signed order mail sent by SMTP to the moderator, timed until
  the answer is in the player's mailbox (that covers two deliveries, the
  daemon's IDLE wake-up, fetch, processing and the send). The first order
  goes out right after the daemon logged "ready" (the first after start-up);
  then, per game, the side that leaves the round open and the side that
  closes it.

Printed: each latency, the medians for mails that close a round and mails
that do not, and each answer's ratio to the median raw delivery. Targets
(issue 15): every answer within 1.5x the raw delivery (two deliveries make
this one hard: both are printed), and closing a round costs the answer no
more than another mail's (the closing median within 1.5x the other's).
Exits non-zero when a target is missed. Needs root (the lab's Dovecot).
"""

from __future__ import annotations

import argparse
import base64
import os
import statistics
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

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


def seats_for(url: str, config: Config, lab: MailLab, games: int) -> list[list[tuple]]:
    """Running demo games with early adjudication; per game its two seats
    (game, side, key, address), each player a mailbox of the lab."""
    engine = make_engine(url)
    create_all(engine)
    out = []
    with make_sessionmaker(engine).begin() as s:
        from datetime import UTC, datetime

        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher())
        for g in range(games):
            game, seats = f"a{g}", []
            gm.acts.create_game(game, "demo", "long-duel")
            for side in ("north", "south"):
                key, pub = generate_keypair(f"{side}-{g}")
                address = lab.add_user(f"{side}{g}", "pw")
                gm.acts.assign(game, side, address, public_key=pub)
                seats.append((game, side, key, address))
            gm.acts.start(game)
            out.append(seats)
    engine.dispose()
    return out


def wait_for(lab: MailLab, user: str, count: int, limit: float = 120.0) -> float:
    """Seconds until ``user``'s INBOX holds ``count`` messages (polled: this is a
    benchmark, not a test)."""
    t0 = time.perf_counter()
    while lab.count(user) < count:
        if time.perf_counter() - t0 > limit:
            raise SystemExit(f"{user} never got message {count}")
        time.sleep(0.005)
    return time.perf_counter() - t0


def plain(sender: str, to: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "ping"
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg.set_content("ping\n")
    return msg.as_bytes()


def run(games: int, db: str) -> dict[str, list[float]]:
    with MailLab() as lab, tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        databases = make_database(db, folder)
        url = next(databases)
        try:
            return _measure(lab, folder, url, games)
        finally:
            next(databases, None)


def _measure(lab: MailLab, folder: Path, url: str, games: int) -> dict[str, list[float]]:
    moderator = lab.add_user("moderator", "bench")
    plot_key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        moderator=ModeratorConfig(address=moderator), secrets=SecretsConfig(plot_key=plot_key)
    )
    seats = seats_for(url, config, lab, games)
    (folder / "pbem.toml").write_text(
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
[imap]
host = "127.0.0.1"
port = {lab.imap_port}
user = "{moderator}"
password = "bench"
[outbox]
transport = "smtp"
[smtp]
host = "127.0.0.1"
port = {lab.smtp_port}
[log]
level = "WARNING"
"""
    )
    log = (folder / "daemon.log").open("w")
    daemon = subprocess.Popen(
        [sys.executable, "-m", "pbem", "-c", str(folder / "pbem.toml"), "serve"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(REPO), "PBEM_LOG_LEVEL": "INFO"},
        cwd=folder,
    )
    out: dict[str, list[float]] = {"raw": [], "open": [], "close": [], "first": []}
    try:
        while "pbem daemon ready" not in (folder / "daemon.log").read_text(errors="replace"):
            if daemon.poll() is not None:
                raise SystemExit(f"the daemon died; see {folder / 'daemon.log'}")
            time.sleep(0.01)
        # START's reports reach the players first; then one order at a time.
        for game in seats:
            for _, _, _, address in game:
                wait_for(lab, address, 1)
        first = True
        for i, game in enumerate(seats):
            for j, (gid, side, key, address) in enumerate(game):
                had = lab.count(address)
                if not first:  # the first order goes out right after start-up
                    lab.smtp_send(moderator, [address], plain(moderator, address))
                    out["raw"].append(wait_for(lab, address, had + 1))
                    had += 1
                raw = order_mail(gid, side, key, address, moderator, i)
                t0 = time.perf_counter()
                lab.smtp_send(address, [moderator], raw)
                wait_for(lab, address, had + 1)
                spent = time.perf_counter() - t0
                out["first" if first else "close" if j == 1 else "open"].append(spent)
                first = False
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    args = ap.parse_args()
    r = run(args.games, args.db)
    raw = statistics.median(r["raw"])
    ms = lambda xs: " ".join(f"{x * 1000:.0f}" for x in xs)  # noqa: E731
    print(f"{args.games} games, {args.db}")
    print(f"raw SMTP -> IMAP delivery (ms): {ms(r['raw'])}  median {raw * 1000:.0f}")
    print(f"first answer after start-up (ms): {ms(r['first'])}")
    print(f"answers, round left open (ms):   {ms(r['open'])}")
    print(f"answers, round closed (ms):      {ms(r['close'])}")
    answers = r["first"] + r["open"] + r["close"]
    worst = max(answers) / raw
    closing = statistics.median(r["close"]) / statistics.median(r["open"])
    print(f"worst answer / median raw delivery: {worst:.2f} (target <= {TARGET})")
    print(f"closing the round, median / others' median: {closing:.2f} (target <= {TARGET})")
    met = worst <= TARGET and closing <= TARGET
    print("targets:", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
