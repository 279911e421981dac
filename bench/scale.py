"""Benchmark: one, two and three daemons on the same load, in one run.

Usage:  python bench/scale.py [--orders 300] [--games 10] [--daemons 1 2 3]

For each daemon count, on one PostgreSQL (127.0.0.1:5432, a fresh database per
count), the same load: ``--orders`` signed order mails (``bench/intake.py``'s)
waiting in the moderator's real IMAP mailbox (the mail lab's Dovecot), each
answered by the daemons through a real SMTP server (aiosmtpd in its own process,
``bench/outbox.py``'s, which logs the Message-ID of every mail it accepts). That
many ``pbem serve`` processes are started on the same configuration; the clock
runs from the last one's "ready" until every mail is processed and every answer
accepted by the server. Reported per count: orders/s, its ratio to one daemon's
(measured in the same run), CPU ms per order (all daemons together), and the
duplicates the SMTP server received (its own log; target 0). Fails when any
mail was sent twice.

Needs root (the mail lab's Dovecot stores mail as ``vmail``) and PostgreSQL.
"""

from __future__ import annotations

import argparse
import base64
import os
import smtplib
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import func, select  # noqa: E402

from bench.siblings import sibling  # noqa: E402
from pbem.config import Config, ModeratorConfig, SecretsConfig  # noqa: E402
from pbem.storage.db import make_engine, make_sessionmaker  # noqa: E402
from pbem.storage.models import InboundMail, OutboundMail  # noqa: E402
from tests.conftest import make_database  # noqa: E402
from tests.maillab import MailLab  # noqa: E402

intake = sibling("intake")
outbox = sibling("outbox")


class Result(NamedTuple):  # not a dataclass: tests load this file without a module name
    daemons: int
    orders: int
    seconds: float
    cpu_seconds: float
    answers: int
    duplicates: int

    @property
    def per_second(self) -> float:
        return self.orders / self.seconds


def _measure(lab: MailLab, folder: Path, url: str, daemons: int, orders: int, games: int) -> Result:
    password = "bench"
    moderator = lab.add_user(f"moderator{daemons}", password)
    plot_key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        moderator=ModeratorConfig(address=moderator), secrets=SecretsConfig(plot_key=plot_key)
    )
    seats = intake.make_games(url, config, games)
    with smtplib.SMTP("127.0.0.1", lab.smtp_port, timeout=30) as smtp:
        for i in range(orders):
            game, side, key, address, _ = seats[i % len(seats)]
            raw = intake.order_mail(game, side, key, address, moderator, i)
            smtp.sendmail(address, [moderator], raw.replace(b"\n", b"\r\n"))
    assert lab.count(moderator) == orders
    server = outbox.ServerProcess(0.0, folder)
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
poll_interval = 0.5
workers = 1
[imap]
host = "127.0.0.1"
port = {lab.imap_port}
user = "{moderator}"
password = "{password}"
[outbox]
transport = "smtp"
[smtp]
host = "127.0.0.1"
port = {server.port}
starttls = false
[log]
level = "WARNING"
"""
    )
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    logs = [folder / f"daemon{n}.log" for n in range(daemons)]
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for log in logs:
            with log.open("wb") as out:
                processes.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "pbem", "-c", str(folder / "pbem.toml"), "serve"],
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        env={**os.environ, "PYTHONPATH": str(REPO), "PBEM_LOG_LEVEL": "INFO"},
                        cwd=folder,
                    )
                )
        for process, log in zip(processes, logs, strict=True):
            while "pbem daemon ready" not in log.read_text(errors="replace"):
                if process.poll() is not None:
                    raise SystemExit(f"a daemon died:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.01)
        t0 = time.perf_counter()
        cpu0 = sum(sum(intake.cpu_seconds(p.pid).values()) for p in processes)
        while True:
            with sessions() as s:
                done = s.scalar(
                    select(func.count()).select_from(InboundMail).where(InboundMail.status != "new")
                )
                unsent = s.scalar(
                    select(func.count())
                    .select_from(OutboundMail)
                    .where(OutboundMail.status == "pending")
                )
            if done == orders and unsent == 0:
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - t0
        cpu = sum(sum(intake.cpu_seconds(p.pid).values()) for p in processes) - cpu0
        with sessions() as s:
            queued = s.scalar(select(func.count()).select_from(OutboundMail)) or 0
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=60)
        engine.dispose()
    accepted = Counter(server.stop_counting())
    errors = [log.name for log in logs if "Traceback" in log.read_text(errors="replace")]
    if errors:
        raise SystemExit(f"tracebacks in {', '.join(errors)} (in {folder})")
    assert len(accepted) == queued, (len(accepted), queued)
    return Result(daemons, orders, seconds, cpu, queued, sum(n - 1 for n in accepted.values()))


def run(orders: int, games: int, counts: tuple[int, ...]) -> list[Result]:
    results = []
    with MailLab() as lab:
        for daemons in counts:
            with tempfile.TemporaryDirectory() as folder_name:
                databases = make_database("postgresql", Path(folder_name))
                url = next(databases)
                try:
                    results.append(_measure(lab, Path(folder_name), url, daemons, orders, games))
                finally:
                    next(databases, None)  # drops the database
            print(f"  {daemons} daemon(s): {results[-1].per_second:.1f} orders/s", flush=True)
    return results


def report(results: list[Result]) -> str:
    base = results[0].per_second
    lines = [
        "| daemons | orders | orders/s | vs. one | CPU ms/order | answers | duplicates |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.daemons} | {r.orders} | {r.per_second:.1f} | {r.per_second / base:.2f} "
            f"| {r.cpu_seconds * 1000 / r.orders:.1f} | {r.answers} | {r.duplicates} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--orders", type=int, default=300)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--daemons", type=int, nargs="+", default=[1, 2, 3])
    args: Any = parser.parse_args(argv)
    results = run(args.orders, args.games, tuple(args.daemons))
    print(report(results))
    return 1 if any(r.duplicates for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
