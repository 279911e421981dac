"""Benchmark: a burst of queued answers drained by the outbox to a real SMTP server.

Usage:  python bench/outbox.py [--mails 2000] [--connections 1 4] [--server-ms 0 20]
                               [--db sqlite|postgresql]

For each server pace (``--server-ms``: the milliseconds the SMTP server takes to
accept one mail's DATA, as a real server's spool, filters and fsync do; 0: as
fast as aiosmtpd on loopback goes) and each pool size (``--connections``), in the
same run: a fresh database with N answers queued in one transaction (a burst, as
when a turn's reports or a flood of mail arrive at once), an aiosmtpd server on
loopback that notes the moment it accepts each mail, and pbem's outbox (the
daemon's own send loop, ``Outbox.round``) draining it over that many
connections. Reported: per mail, the wait from queued to accepted by the server:
median and p95; the drain's mails/s; and the pool's speed-up over one connection.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import email
import email.policy
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aiosmtpd.controller import Controller  # noqa: E402
from aiosmtpd.smtp import SMTP, Envelope, Session  # noqa: E402

from pbem.config import (  # noqa: E402
    Config,
    DatabaseConfig,
    IntakeConfig,
    ModeratorConfig,
    OutboxConfig,
    SecretsConfig,
    SmtpConfig,
)
from pbem.outbox.queue import Outgoing, enqueue  # noqa: E402
from pbem.service.daemon import Daemon  # noqa: E402
from pbem.storage.db import create_all, make_engine, make_sessionmaker  # noqa: E402
from tests.conftest import make_database  # noqa: E402
from tests.maillab import free_port, wait_for_port  # noqa: E402


class Server:
    """Accepts every mail after ``delay`` seconds of "work"; writes "Message-ID epoch"
    to ``log`` as it accepts each (run in its own process: see ``serve``)."""

    def __init__(self, delay: float, log: Any) -> None:
        self.delay = delay
        self.log = log

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)  # the server's pace, not pbem's
        raw = envelope.original_content or b""
        message_id = email.message_from_bytes(raw, policy=email.policy.compat32)["Message-ID"]
        self.log.write(f"{message_id} {time.time()}\n")
        self.log.flush()
        return "250 OK queued"


def serve(port: int, delay: float, log_path: str) -> None:
    """The SMTP server process: until terminated."""
    with open(log_path, "a", encoding="utf-8") as log:
        controller = Controller(
            Server(delay, log), hostname="127.0.0.1", port=port, ready_timeout=10
        )
        controller.start()
        signal.sigwait({signal.SIGTERM})
        controller.stop()


class ServerProcess:
    """aiosmtpd in a process of its own, as a real server would be: the pbem side's
    CPU and the server's do not share one interpreter lock."""

    def __init__(self, delay: float, folder: Path) -> None:
        self.port = free_port()
        self.log = folder / "accepted.log"
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # inherited: sigwait
        try:
            self.process = subprocess.Popen(
                [sys.executable, __file__, "--serve", str(self.port), str(delay), str(self.log)]
            )
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        wait_for_port(self.port, timeout=30)

    def stop(self) -> dict[str, float]:
        accepted = {}
        for message_id, at in self._stop():
            accepted[message_id] = at
        return accepted

    def stop_counting(self) -> list[str]:
        """Stopped: the Message-ID of every mail accepted, repeats included."""
        return [message_id for message_id, _ in self._stop()]

    def _stop(self) -> list[tuple[str, float]]:
        self.process.terminate()
        self.process.wait(timeout=30)
        accepted = []
        for line in self.log.read_text(encoding="utf-8").splitlines():
            message_id, at = line.rsplit(" ", 1)
            accepted.append((message_id, float(at)))
        return accepted


class Result(NamedTuple):  # not a dataclass: tests load this file without a module name
    connections: int
    server_ms: float
    mails: int
    median_s: float
    p95_s: float
    drain_s: float

    @property
    def per_second(self) -> float:
        return self.mails / self.drain_s


def _queue(config: Config, mails: int) -> dict[str, float]:
    """N answers queued in one transaction: Message-ID -> queued at (epoch seconds),
    the moment that transaction committed (from then on the outbox may send them)."""
    engine = make_engine(config.database.url)
    create_all(engine)
    queued: dict[str, float] = {}
    now = datetime.now(UTC)
    with make_sessionmaker(engine).begin() as s:
        for n in range(mails):
            answer = Outgoing(
                kind="answer",
                cause=("answer", f"bench-{n}"),
                to=f"player{n % 50}@players.example",
                subject="Re: orders",
                text=f"Accepted (3): mail {n}\n" + "SEND X Y\n" * 3,
            )
            row = enqueue(s, config, answer, now)
            queued[row.message_id] = 0.0
    committed = time.time()
    engine.dispose()
    return dict.fromkeys(queued, committed)


def one(url: str, mails: int, connections: int, server_ms: float, folder: Path) -> Result:
    server = ServerProcess(server_ms / 1000, folder)
    try:
        config = Config(
            moderator=ModeratorConfig(address="moderator@pbem.example"),
            database=DatabaseConfig(url=url),
            secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
            intake=IntakeConfig(maildir=folder / "inbox"),
            outbox=OutboxConfig(transport="smtp"),  # type: ignore[arg-type]
            smtp=SmtpConfig(port=server.port, connections=connections),
            base_dir=folder,
        )
        queued = _queue(config, mails)

        async def drain() -> float:
            daemon = Daemon(config)
            start = time.time()
            try:
                sent = await daemon.outbox.round()
            finally:
                await daemon.sender.close()
                await daemon.inbox.close()
                daemon.engine.dispose()
            if sent != mails:
                raise SystemExit(f"{sent} of {mails} mails sent")
            return time.time() - start

        drain_s = asyncio.run(drain())
    finally:
        accepted = server.stop()
    if set(accepted) != set(queued):
        raise SystemExit("the server did not receive exactly the queued mails")
    # From the moment of queueing (the burst arrives all at once) to the server's 250.
    waits = sorted(accepted[m] - queued[m] for m in queued)
    return Result(
        connections,
        server_ms,
        mails,
        statistics.median(waits),
        waits[int(0.95 * (len(waits) - 1))],
        drain_s,
    )


def run(
    mails: int = 2000,
    connections: tuple[int, ...] = (1, 4),
    server_ms: tuple[float, ...] = (0.0, 20.0),
    db: str = "sqlite",
) -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory(prefix="pbem-bench-outbox-") as tmp:
        for pace in server_ms:
            for n in connections:
                folder = Path(tmp) / f"{pace}-{n}"
                folder.mkdir()
                for url in make_database(db, folder):
                    results.append(one(url, mails, n, pace, folder))
    return results


def report(results: list[Result]) -> str:
    lines = [
        "| server ms/mail | connections | mails | median wait s | p95 wait s | drain s "
        "| mails/s | vs 1 connection |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base: dict[float, Result] = {r.server_ms: r for r in results if r.connections == 1}
    for r in results:
        one_conn = base.get(r.server_ms)
        ratio = f"{one_conn.drain_s / r.drain_s:.2f}x" if one_conn else "-"
        lines.append(
            f"| {r.server_ms:g} | {r.connections} | {r.mails} | {r.median_s:.2f} | "
            f"{r.p95_s:.2f} | {r.drain_s:.2f} | {r.per_second:.0f} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        serve(int(argv[1]), float(argv[2]), argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=2000)
    parser.add_argument("--connections", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--server-ms", type=float, nargs="+", default=[0.0, 20.0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    args: Any = parser.parse_args(argv)
    results = run(args.mails, tuple(args.connections), tuple(args.server_ms), args.db)
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
