"""Benchmark: PostgreSQL restarted under three working daemons and 1,000 orders.

Usage:  python bench/restart.py [--orders 1000] [--daemons 3] [--restarts 1] [--games 10]
                                [--workers 1] [--lease 15]

A private PostgreSQL cluster (``initdb`` into a temporary folder, on a free port,
trust authentication; never the machine's cluster), a private mail lab
(tests/maillab.py: Dovecot IMAP for the moderator's mailbox) and an aiosmtpd server
in its own process (bench/outbox.py's) that logs the Message-ID of every mail it
accepts. A database with ``--games`` running demo games (bench/intake.py's), and
``--daemons`` real ``pbem serve`` processes on it, configured as the e2e restart test
configures its two (short leases: ``--lease`` seconds). ``--orders`` signed order
mails are sent to the moderator through the lab's SMTP server, as fast as it takes
them, while the daemons work; when ``k / (restarts + 1)`` of the orders are
answered, the cluster is restarted with ``pg_ctl -m fast restart`` (every session
ends at once), ``--restarts`` times in all.

Measured per restart, from the database's return (``pg_ctl`` back, accepting
connections): the claims still held at the return (stored mail not yet decided,
outgoing mail not yet sent; ``claim_owner`` set, the claim running) and how long
until none of them is left stranded (each decided, sent, or given back); the time
until the first order is decided again (its ``processed_at``, the database's time)
and until the first answer reaches the SMTP server again; after the last return, the
time until every order is answered. Over the run: answers the server received
twice (by Message-ID, from its own log), orders never answered, ERROR and
Traceback lines in the daemons' logs.

Requirements (exit 1 if one fails): every claim held at a return cleared within one
lease time; orders decided again within one lease time; every order answered
within one lease time of the last return beyond the time its backlog takes at the
rate measured before the first restart; no answer twice; none lost; no ERROR or
traceback; each daemon stops cleanly. Needs root (Dovecot stores mail as ``vmail``;
the cluster runs as ``postgres``).
"""

from __future__ import annotations

import argparse
import base64
import glob
import os
import shutil
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine, func, select  # noqa: E402

from bench.siblings import sibling  # noqa: E402
from pbem.config import Config, ModeratorConfig, SecretsConfig  # noqa: E402
from pbem.service.leases import CLAIM_SECONDS  # noqa: E402
from pbem.storage.db import make_engine  # noqa: E402
from pbem.storage.models import InboundMail, OutboundMail  # noqa: E402
from tests.e2e.helpers import stamp_head  # noqa: E402
from tests.maillab import MailLab, free_port  # noqa: E402

intake = sibling("intake")
outbox = sibling("outbox")

# Give up on the run this long after the last return: a claim stranded until it runs out
# (CLAIM_SECONDS) shows as orders lost, not as a wait of five minutes more.
GIVE_UP = CLAIM_SECONDS / 2


class Cluster:
    """A private PostgreSQL cluster in ``folder`` on a free port, trust authentication,
    run as ``postgres`` (initdb and the server refuse root)."""

    def __init__(self, folder: Path) -> None:
        versions = sorted(
            glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
            key=lambda p: int(Path(p).parts[-3]),
        )
        if not versions:
            raise SystemExit("no PostgreSQL binaries in /usr/lib/postgresql/*/bin")
        self.bin = Path(versions[-1]).parent
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()
        self.log = folder / "postgresql.log"
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self._ctl("start")
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "pbem")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/pbem"

    def _run(self, tool: str, *args: str) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [*as_postgres, str(self.bin / tool), *args],
            check=True,
            capture_output=True,
            timeout=120,
            cwd=self.folder,
        )

    def _ctl(self, action: str, *args: str) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder}"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-o", options, action, *args
        )

    def restart(self) -> None:
        """``pg_ctl -m fast restart``: every session ends at once; returns when the
        server accepts connections again."""
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        self._ctl("stop", "-m", "immediate")


def answers_accepted(log: Path) -> list[tuple[str, float]]:
    """The SMTP server's log so far: (Message-ID, epoch) of each mail accepted."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text(encoding="utf-8").splitlines():
        message_id, _, at = line.rpartition(" ")
        if message_id and at:
            out.append((message_id, float(at)))
    return out


@dataclass
class Restart:
    """One restart as measured from the database's return."""

    down_s: float  # pg_ctl restart, start to back
    back: float  # epoch of the return
    backlog: int  # orders not yet answered at the return
    claims: dict[tuple[str, int], tuple[str, Any]] = field(default_factory=dict)
    cleared_s: float | None = None  # until no claim held at the return is left stranded
    deciding_s: float | None = None  # until the first order decided after the return
    flowing_s: float | None = None  # until the first answer accepted after the return


def claims_held(engine: Engine) -> dict[tuple[str, int], tuple[str, Any]]:
    """Stored mail not decided and outgoing mail not sent that someone holds a running
    claim on: (table, id) -> (owner, claim_until)."""
    held: dict[tuple[str, int], tuple[str, Any]] = {}
    with engine.connect() as c:
        now = c.scalar(select(func.now()))
        for model, open_status in ((InboundMail, "new"), (OutboundMail, "pending")):
            rows = c.execute(
                select(model.id, model.claim_owner, model.claim_until).where(
                    model.status == open_status,
                    model.claim_owner.is_not(None),
                    model.claim_until > now,
                )
            )
            for row_id, owner, until in rows:
                held[(model.__tablename__, row_id)] = (owner, until)
    return held


def still_stranded(engine: Engine, claims: dict[tuple[str, int], tuple[str, Any]]) -> int:
    """How many of ``claims`` are still open under the same claim (not decided or sent,
    not given back, not taken over)."""
    left = 0
    with engine.connect() as c:
        for model, open_status in ((InboundMail, "new"), (OutboundMail, "pending")):
            ids = [i for (table, i) in claims if table == model.__tablename__]
            if not ids:
                continue
            for row_id, owner, until in c.execute(
                select(model.id, model.claim_owner, model.claim_until).where(
                    model.id.in_(ids), model.status == open_status
                )
            ):
                if (owner, until) == claims[(model.__tablename__, row_id)]:
                    left += 1
    return left


def first_decided_after(engine: Engine, back: float) -> float | None:
    """When the first order decided after ``back`` (an epoch) was decided (the time
    its transaction read from the database), as an epoch."""
    with engine.connect() as c:
        at = c.scalar(
            select(func.min(InboundMail.processed_at)).where(
                InboundMail.processed_at > datetime.fromtimestamp(back, UTC)
            )
        )
    return None if at is None else at.timestamp()


def progress(engine: Engine) -> tuple[int, int]:
    """Stored mails decided, outgoing mails pending."""
    with engine.connect() as c:
        decided = c.scalar(
            select(func.count()).select_from(InboundMail).where(InboundMail.status != "new")
        )
        pending = c.scalar(
            select(func.count()).select_from(OutboundMail).where(OutboundMail.status == "pending")
        )
    return int(decided or 0), int(pending or 0)


def _retrying(engine: Engine, what: Any, *args: Any) -> Any:
    """``what(engine, ...)``, again until the database answers (it may be restarting)."""
    while True:
        try:
            return what(engine, *args)
        except Exception:  # the session ended with the restart: reconnect
            engine.dispose()
            time.sleep(0.05)


def run(args: Any) -> bool:
    lease = float(args.lease)
    with (
        tempfile.TemporaryDirectory(prefix="pbem-bench-restart-") as tmp,
        MailLab() as lab,
    ):
        folder = Path(tmp)
        folder.chmod(0o755)  # the cluster's folder inside is the postgres user's
        (folder / "pg").mkdir()
        cluster = Cluster(folder / "pg")
        try:
            return _measure(args, lab, cluster, folder, lease)
        finally:
            cluster.stop()


def _measure(args: Any, lab: MailLab, cluster: Cluster, folder: Path, lease: float) -> bool:
    orders: int = args.orders
    password = "bench"
    moderator = lab.add_user("moderator", password)
    plot_key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        moderator=ModeratorConfig(address=moderator), secrets=SecretsConfig(plot_key=plot_key)
    )
    seats = intake.make_games(cluster.url, config, args.games)
    stamp_head(cluster.url)  # `pbem serve` refuses a schema behind the migrations
    mails = []
    for i in range(orders):
        game, side, key, address, _ = seats[i % len(seats)]
        mails.append((address, intake.order_mail(game, side, key, address, moderator, i)))
    server = outbox.ServerProcess(0.0, folder)
    # As the e2e restart test configures its daemons: short leases, so that a daemon
    # cut off is taken over within seconds; locks and idle sessions end before that.
    (folder / "pbem.toml").write_text(
        f"""\
[moderator]
address = "{moderator}"
[database]
url = "{cluster.url}"
lease_seconds = {lease}
lock_timeout = 5
idle_in_transaction_timeout = 10
[secrets]
plot_key = "{plot_key}"
[intake]
transport = "imap"
rate_limit = 1000000
poll_interval = 0.5
workers = {args.workers}
[imap]
host = "127.0.0.1"
port = {lab.imap_port}
user = "{moderator}"
password = "{password}"
[outbox]
transport = "smtp"
retry_base = 0.2
[smtp]
host = "127.0.0.1"
port = {server.port}
starttls = false
[log]
level = "INFO"
"""
    )
    engine = make_engine(cluster.url)
    logs = [folder / f"daemon{n}.log" for n in range(args.daemons)]
    processes: list[subprocess.Popen[bytes]] = []
    restarts: list[Restart] = []
    sent_at: list[float] = []
    done_at: float | None = None
    stopped: list[int | None] = []
    try:
        for log in logs:
            with log.open("wb") as out:
                processes.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "pbem", "-c", str(folder / "pbem.toml"), "serve"],
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                        env={**os.environ, "PYTHONPATH": str(REPO)},
                        cwd=folder,
                    )
                )
        for process, log in zip(processes, logs, strict=True):
            while "pbem daemon ready" not in log.read_text(errors="replace"):
                if process.poll() is not None:
                    raise SystemExit(f"a daemon died:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.05)

        def send() -> None:
            with smtplib.SMTP("127.0.0.1", lab.smtp_port, timeout=60) as smtp:
                for address, raw in mails:
                    smtp.sendmail(address, [moderator], raw.replace(b"\n", b"\r\n"))
                    sent_at.append(time.time())

        sender = threading.Thread(target=send, daemon=True)
        start = time.time()
        sender.start()
        marks = [orders * k // (args.restarts + 1) for k in range(1, args.restarts + 1)]
        while True:
            answered = len(
                {m for m, _ in answers_accepted(server.log) if m.startswith("<pbem.answer.")}
            )
            if marks and answered >= marks[0]:
                marks.pop(0)
                t = time.time()
                cluster.restart()
                back = time.time()
                engine.dispose()  # our own sessions ended too
                decided, _ = _retrying(engine, progress)
                r = Restart(down_s=back - t, back=back, backlog=orders - decided)
                r.claims = _retrying(engine, claims_held)
                restarts.append(r)
                print(
                    f"  restart {len(restarts)}: {answered} answered, down {r.down_s:.2f} s, "
                    f"{len(r.claims)} claim(s) held at the return, {r.backlog} orders "
                    f"undecided; load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
            for r in restarts:
                if r.cleared_s is None and not _retrying(engine, still_stranded, r.claims):
                    r.cleared_s = time.time() - r.back
                if r.deciding_s is None:
                    decided_at = _retrying(engine, first_decided_after, r.back)
                    if decided_at is not None:
                        r.deciding_s = decided_at - r.back
                if r.flowing_s is None:
                    after = [at for _, at in answers_accepted(server.log) if at > r.back]
                    if after:
                        r.flowing_s = min(after) - r.back
            decided, pending = _retrying(engine, progress)
            if (
                not marks
                and decided == orders
                and not pending
                and all(r.cleared_s is not None for r in restarts)
            ):
                done_at = time.time()
                break
            if restarts and time.time() - restarts[-1].back > GIVE_UP:
                break
            if not restarts and time.time() - start > GIVE_UP * 4:
                break  # never reached a restart mark: something is stuck
            time.sleep(0.1)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                stopped.append(process.wait(timeout=60))
            except subprocess.TimeoutExpired:
                process.kill()
                stopped.append(None)
        engine.dispose()
    accepted = server.stop_counting()
    answers = Counter(m for m in accepted if m.startswith("<pbem.answer."))
    twice = sum(n - 1 for n in answers.values() if n > 1)
    lost = orders - len(answers)
    bad = [
        f"{log.name}: {line[:300]}"
        for log in logs
        for line in log.read_text(errors="replace").splitlines()
        if any(mark in line for mark in ("ERROR", "Traceback", "never retrieved"))
    ]
    # Warnings are expected (each round the restart broke says so in one line): counted.
    warnings = sum(log.read_text(errors="replace").count("WARNING") for log in logs)
    print(f"  WARNING lines in the daemons' logs: {warnings}", flush=True)
    accepted_times = [at for m, at in answers_accepted(server.log) if m.startswith("<pbem.answer.")]
    ok = _report(
        args, lease, start, sent_at, restarts, done_at, accepted_times, twice, lost, bad, stopped
    )
    if not ok or args.keep_logs:  # the run's folder goes: its logs are kept for the reader
        kept = Path(tempfile.mkdtemp(prefix="pbem-bench-restart-logs-"))
        for log in [*logs, server.log, cluster.log]:
            shutil.copy(log, kept)
        print(f"  logs kept in {kept}", flush=True)
    return ok


def _report(
    args: Any,
    lease: float,
    start: float,
    sent_at: list[float],
    restarts: list[Restart],
    done_at: float | None,
    accepted_times: list[float],
    twice: int,
    lost: int,
    bad: list[str],
    stopped: list[int | None],
) -> bool:
    ok = True

    def judge(what: str, passed: bool) -> None:
        nonlocal ok
        ok = ok and passed
        print(f"  {'ok  ' if passed else 'FAIL'} {what}", flush=True)

    if sent_at:
        print(f"  {len(sent_at)} orders sent by SMTP in {sent_at[-1] - start:.1f} s", flush=True)
    judge(f"{len(restarts)} of {args.restarts} restart(s) made", len(restarts) == args.restarts)
    if restarts:
        # The rate the daemons answered at before the first restart, from their first
        # answer (not from the first order sent: the first poll and batch would count
        # as slowness) to the restart: the time the backlog at the last return takes at
        # that pace is the work's, not the restart's.
        first = restarts[0]
        went_down = first.back - first.down_s
        before = sorted(t for t in accepted_times if t < went_down)
        rate = len(before) / (went_down - before[0]) if before else 0.0
        for n, r in enumerate(restarts, 1):
            cleared = "never" if r.cleared_s is None else f"in {r.cleared_s:.2f} s"
            judge(
                f"restart {n}: the {len(r.claims)} claim(s) held at the return cleared "
                f"{cleared} (within one lease, {lease:g} s)",
                r.cleared_s is not None and r.cleared_s <= lease,
            )
            deciding = "never" if r.deciding_s is None else f"{r.deciding_s:.2f} s"
            flowing = "never" if r.flowing_s is None else f"{r.flowing_s:.2f} s"
            judge(
                f"restart {n}: orders decided again {deciding} after the return, answers "
                f"sent {flowing} (down {r.down_s:.2f} s; within one lease, {lease:g} s)",
                r.deciding_s is not None and r.deciding_s <= lease,
            )
        last = restarts[-1]
        if done_at is not None and rate > 0:
            took = max(accepted_times) - last.back
            work = last.backlog / rate
            judge(
                f"every order answered {took:.1f} s after the last return: its backlog of "
                f"{last.backlog} at {rate:.1f} answers/s (the rate before the first restart) "
                f"is {work:.1f} s, {took - work:+.1f} s (within one lease, {lease:g} s)",
                took <= work + lease,
            )
        else:
            judge(f"every order answered within {GIVE_UP:.0f} s of the last return", False)
    judge(f"answers delivered twice: {twice}", twice == 0)
    judge(f"orders never answered: {lost}", lost == 0)
    judge(f"ERROR or Traceback lines in the daemons' logs: {len(bad)}", not bad)
    for line in bad[:10]:
        print("      ", line, flush=True)
    judge(f"daemons stopped cleanly (exit codes {stopped})", all(s == 0 for s in stopped))
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--orders", type=int, default=1000)
    parser.add_argument("--daemons", type=int, default=3)
    parser.add_argument("--restarts", type=int, default=1)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1, help="each daemon's [intake] workers")
    parser.add_argument("--lease", type=float, default=15.0, help="[database] lease_seconds")
    parser.add_argument(
        "--keep-logs", action="store_true", help="keep the logs (kept anyway on a failure)"
    )
    args: Any = parser.parse_args(argv)
    print(
        f"{args.daemons} daemons, {args.orders} orders, {args.restarts} restart(s), "
        f"{args.games} games, {args.workers} worker(s) each, lease {args.lease:g} s; "
        f"load average at start {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    ok = run(args)
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    print("requirements:", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
