"""Benchmark: kill -9 a real ``pbem serve`` again and again while answers flow; count
the mails an SMTP server received twice.

Usage:  python bench/killloop.py [--kills 100] [--db sqlite|postgresql|both] [--load K]
                                 [--rate 4] [--games 4] [--workers 1] [--seed 2026]

The outbox marks each mail sent by a commit the moment the server's 250 arrives
(pbem.service.marking, pbem.service.sending); a kill between the server's receipt and
that commit makes the next daemon send the mail again, with the same Message-ID (a
duplicate a mail client shows once; never a second Message-ID). Target: at most one
duplicate per 100 kills, on either database, loaded or not.

One run, per database: a private mail lab (Dovecot IMAP + the lab's SMTP server,
``tests/maillab.py``), a fresh database with ``--games`` demo games (``long-duel``,
two seats each, early adjudication off: every order is sealed and answered, no turn
runs), the moderator's installation as the end-to-end tests make it
(``tests/e2e/helpers.py``: IMAP intake, SMTP outbox, outgoing mail signed), and an
aiosmtpd server in its own process that logs each Message-ID it accepts and when
(``bench/outbox.py``'s); the daemon's answers go there. A thread sends signed order
mails through the lab's SMTP server into the moderator's mailbox at ``--rate`` a
second for the whole loop. ``--load K`` busy processes spin meanwhile (the loaded
case: K + the daemon on this machine's cores).

The loop, ``--kills`` times: start ``pbem serve``; wait for its "ready" line, then for
the server to receive a mail from it (at work: fetching, answering, sending); wait a
random time (seeded, up to ``--max-delay`` s); ``kill -9``; wait until the daemon and
its worker processes are gone; then end the dead daemon's lease in the database, as
its lapse would ``lease_seconds`` later (the restarted daemon is a new owner: without
this, each kill would leave the mailbox and the claimed mails idle for a lease time,
and the loop would spend most of its time, and its kills, on an idle daemon).

Then the stream stops, the load ends, one more daemon runs until every order mail is
processed and every mail sent, and stops cleanly. Reported from the server's log and
the database: kills, order mails, answers delivered, duplicates (extra copies by
Message-ID), orders with answers under two Message-IDs (must be 0), orders never
answered (must be 0), duplicates per 100 kills; and the window: for each mail, the
time from the server's receipt (the last before the mark) to ``sent_at`` (the marking
statement's time; its commit follows), median, p99 and max. Exits 1 if the target is
missed or anything is lost.

Needs root (the mail lab's Dovecot stores mail as ``vmail``) and, for PostgreSQL,
the machine's PostgreSQL (a fresh database, dropped afterwards).
"""

from __future__ import annotations

import argparse
import email.parser
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import func, select, update  # noqa: E402

from bench.siblings import sibling  # noqa: E402
from pbem.outbox.queue import open_outbound  # noqa: E402
from pbem.storage.enums import OutboundKind, OutboundStatus  # noqa: E402
from pbem.storage.models import DaemonLease, InboundMail, OutboundMail  # noqa: E402
from tests.conftest import make_database  # noqa: E402
from tests.e2e.helpers import (  # noqa: E402
    DaemonProcess,
    ModeratorDesk,
    Player,
    compose,
    moderator_desk,
    new_player,
    signed,
    submit,
    wait_until,
)
from tests.maillab import MailLab  # noqa: E402

outbox = sibling("outbox")

# The target: duplicates per 100 kills, at most.
TARGET_PER_100 = 1.0


class Stream(threading.Thread):
    """Signed order mails into the moderator's mailbox, ``rate`` a second, until
    stopped; the Message-ID of each one sent."""

    def __init__(
        self, lab: MailLab, desk: ModeratorDesk, seats: list[tuple[str, Player]], rate: float
    ) -> None:
        super().__init__(daemon=True)
        self.lab, self.desk, self.seats, self.rate = lab, desk, seats, rate
        self.sent: list[str] = []
        self.halt = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        rng = random.Random(7)
        due = time.monotonic()
        try:
            while not self.halt.is_set():
                game, player = self.seats[len(self.sent) % len(self.seats)]
                orders = [f"SEND SQN-{n} {rng.choice('ABC')}" for n in (1, 2, 3)]
                msg = compose(
                    player.address,
                    self.desk.address,
                    f"orders {len(self.sent)}",
                    signed(player, game, orders),
                )
                submit(self.lab, msg)
                self.sent.append(str(msg["Message-ID"]))
                due += 1 / self.rate
                self.halt.wait(max(0.0, due - time.monotonic()))
        except BaseException as exc:  # seen by the loop, which stops
            self.error = exc


class Load:
    """``count`` processes that spin on a core each until stopped."""

    def __init__(self, count: int) -> None:
        self.processes = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)
        ]

    def stop(self) -> None:
        for p in self.processes:
            p.kill()
        for p in self.processes:
            p.wait()


@dataclass
class Result:
    db: str
    load: int
    kills: int
    orders: int
    delivered: int  # distinct Message-IDs the server accepted, answers and reports
    answers: int  # of them, answers
    duplicates: int  # extra copies, by Message-ID
    second_ids: int  # orders answered under two or more Message-IDs
    unanswered: int  # orders with no answer delivered
    unprocessed: int  # order mails not filed, or not answered in the database
    unknown: int  # Message-IDs the server got that the database never queued
    windows: list[float]  # seconds, server receipt -> sent_at, per mail marked
    seconds: float  # the kill loop's duration
    load_average: float

    @property
    def per_100(self) -> float:
        return 100 * self.duplicates / max(1, self.kills)

    @property
    def ok(self) -> bool:
        return (
            self.per_100 <= TARGET_PER_100
            and not self.second_ids
            and not self.unanswered
            and not self.unprocessed
            and not self.unknown
        )


def _end_leases(sessions: Any) -> None:
    """The dead daemon's lease ends now, as it would lapse ``lease_seconds`` later: its
    claims and the mailbox are free for the next daemon (and only for it: nothing
    else runs)."""
    past = datetime.now(UTC) - timedelta(seconds=1)
    with sessions.begin() as s:
        s.execute(
            update(DaemonLease).where(DaemonLease.lease_until > past).values(lease_until=past)
        )


def _receipts(log: Path) -> list[tuple[str, float]]:
    """The server's log: (Message-ID, epoch seconds) per mail accepted, repeats too."""
    out = []
    for line in log.read_text(encoding="utf-8").splitlines():
        message_id, at = line.rsplit(" ", 1)
        out.append((message_id, float(at)))
    return out


def _measure(lab: MailLab, folder: Path, url: str, db: str, args: argparse.Namespace) -> Result:
    desk = moderator_desk(lab, url, folder, rate_limit=1_000_000, workers=args.workers)
    server = outbox.ServerProcess(0.0, folder)
    desk.config = replace(desk.config, smtp=replace(desk.config.smtp, port=server.port))
    seats: list[tuple[str, Player]] = []
    for g in range(args.games):
        players = [new_player(lab, side, prefix="kill") for side in ("north", "south")]
        desk.demo_game(f"k{g}", players, scenario="long-duel", early_adjudication=False)
        seats += [(f"k{g}", p) for p in players]
    sessions = desk.sessions
    daemon = DaemonProcess(desk, folder)
    rng = random.Random(args.seed)
    stream = Stream(lab, desk, seats, args.rate)
    load = Load(args.load)
    load_averages = []
    kill_times: list[float] = []
    stream.start()
    t0 = time.monotonic()
    try:
        for k in range(args.kills):
            if stream.error is not None:
                raise SystemExit(f"the order stream failed: {stream.error!r}")
            daemon.start()
            daemon.wait_ready(timeout=180)
            received = server.log.stat().st_size if server.log.exists() else 0
            # At work: the server received a mail from this daemon (an answer, or one
            # the last daemon left in flight), so its outbox is sending.
            wait_until(
                lambda r=received: server.log.exists() and server.log.stat().st_size > r,
                180,
                "the daemon to send",
            )
            time.sleep(rng.uniform(0.0, args.max_delay))
            daemon.kill()
            kill_times.append(time.time())
            wait_until(lambda: daemon.processes() == [], 30, "the daemon's processes to die")
            _end_leases(sessions)
            load_averages.append(os.getloadavg()[0])
            if (k + 1) % 10 == 0:
                print(
                    f"    {k + 1} kills, {len(stream.sent)} orders sent, "
                    f"load {load_averages[-1]:.1f}",
                    flush=True,
                )
        seconds = time.monotonic() - t0
    finally:
        stream.halt.set()
        stream.join(timeout=60)
        load.stop()
        daemon.kill()
    orders = list(stream.sent)
    try:
        daemon.start()
        daemon.wait_ready(timeout=180)

        def settled() -> bool:
            with sessions() as s:
                filed = s.scalar(select(func.count()).select_from(InboundMail))
                open_ = s.scalar(
                    select(func.count()).select_from(InboundMail).where(InboundMail.status == "new")
                )
                unsent = s.scalar(
                    select(func.count())
                    .select_from(OutboundMail)
                    .where(OutboundMail.status == OutboundStatus.PENDING)
                )
            return filed == len(orders) and open_ == 0 and unsent == 0

        wait_until(settled, 600, "every order filed, processed and answered")
        daemon.stop()
    finally:
        daemon.kill()
    if "Traceback" in daemon.log():
        print(f"  tracebacks in the daemons' log: {daemon.log_path}", flush=True)
    received = _receipts(server.log)
    server.stop_counting()
    result = _count(desk, db, args, orders, received, seconds, load_averages)
    if args.detail:
        _detail(desk, received, kill_times)
    return result


def _count(
    desk: ModeratorDesk,
    db: str,
    args: argparse.Namespace,
    orders: list[str],
    received: list[tuple[str, float]],
    seconds: float,
    load_averages: list[float],
) -> Result:
    copies = Counter(message_id for message_id, _ in received)
    at: dict[str, list[float]] = defaultdict(list)
    for message_id, when in received:
        at[message_id].append(when)
    key = desk.config.secrets.key_bytes()
    headers = email.parser.BytesHeaderParser()
    answer_of: dict[str, str] = {}  # answer Message-ID -> the order's (its In-Reply-To)
    windows = []
    with desk.sessions() as s:
        rows = s.execute(
            select(
                OutboundMail.message_id, OutboundMail.kind, OutboundMail.raw, OutboundMail.sent_at
            )
        ).all()
        inbound = s.execute(select(InboundMail.message_id, InboundMail.status)).all()
    for row in rows:
        if row.kind == OutboundKind.ANSWER:
            # The bytes sent are the bytes stored: its In-Reply-To names the order.
            answer_of[row.message_id] = str(
                headers.parsebytes(open_outbound(key, row))["In-Reply-To"]
            )
        if row.sent_at is not None and row.message_id in at:
            marked = row.sent_at.timestamp()
            # The receipt the mark followed: the last before it (a resent mail's first
            # copy was never marked).
            before = [t for t in at[row.message_id] if t <= marked]
            if before:
                windows.append(marked - before[-1])
    ids_of_order: dict[str, set[str]] = defaultdict(set)
    for message_id in copies:
        if message_id in answer_of:
            ids_of_order[answer_of[message_id]].add(message_id)
    queued = {row.message_id for row in rows}
    answered = {m for m, status in inbound if status == "answered"}
    return Result(
        db=db,
        load=args.load,
        kills=args.kills,
        orders=len(orders),
        delivered=len(copies),
        answers=sum(1 for m in copies if m in answer_of),
        duplicates=sum(n - 1 for n in copies.values()),
        second_ids=sum(1 for ids in ids_of_order.values() if len(ids) > 1),
        unanswered=sum(1 for m in orders if not ids_of_order.get(m)),
        unprocessed=sum(1 for m in orders if m not in answered),
        unknown=sum(1 for m in copies if m not in queued),
        windows=windows,
        seconds=seconds,
        load_average=statistics.mean(load_averages) if load_averages else 0.0,
    )


def _detail(desk: ModeratorDesk, received: list[tuple[str, float]], kills: list[float]) -> None:
    """Each duplicate: its kind, its receipts and its mark, by the kill before each."""
    at: dict[str, list[float]] = defaultdict(list)
    for message_id, when in received:
        at[message_id].append(when)
    with desk.sessions() as s:
        rows = {
            r.message_id: r
            for r in s.execute(
                select(OutboundMail.message_id, OutboundMail.kind, OutboundMail.sent_at)
            )
        }

    def since_kill(t: float) -> str:
        before = [k for k in kills if k <= t]
        after = [k for k in kills if k > t]
        return (
            f"{t - before[-1]:+.3f} s after kill {len(before)}"
            if before and (not after or t - before[-1] < after[0] - t)
            else f"{t - after[0]:+.3f} s before kill {len(before) + 1}"
            if after
            else f"{t:.3f}"
        )

    for message_id, times in at.items():
        if len(times) < 2:
            continue
        row = rows.get(message_id)
        marked = row.sent_at.timestamp() if row is not None and row.sent_at else None
        print(
            f"  duplicate {message_id[:30]} ({row.kind if row else '?'}): received "
            + ", ".join(since_kill(t) for t in times)
            + (f"; marked {since_kill(marked)}" if marked else "; never marked"),
            flush=True,
        )


def run_once(db: str, args: argparse.Namespace) -> Result:
    with MailLab() as lab, tempfile.TemporaryDirectory(prefix="pbem-bench-kill-") as name:
        folder = Path(name)
        databases = make_database(db, folder)
        url = next(databases)
        try:
            return _measure(lab, folder, url, db, args)
        finally:
            next(databases, None)  # drops a PostgreSQL database


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def report(results: list[Result]) -> str:
    lines = [
        "| db | load | kills | orders | delivered (answers) | duplicates | per 100 kills "
        "| second Message-IDs | unanswered | window ms: median, p99, max | loop s "
        "| load average |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in results:
        w = sorted(r.windows)
        window = (
            f"{_ms(statistics.median(w))}, {_ms(w[int(0.99 * (len(w) - 1))])}, {_ms(w[-1])}"
            if w
            else "-"
        )
        lines.append(
            f"| {r.db} | {r.load} | {r.kills} | {r.orders} | {r.delivered} ({r.answers}) "
            f"| {r.duplicates} | **{r.per_100:.1f}** | {r.second_ids} "
            f"| {r.unanswered + r.unprocessed} | {window} | {r.seconds:.0f} "
            f"| {r.load_average:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--load", type=int, default=0, help="busy processes during the loop")
    parser.add_argument("--rate", type=float, default=4.0, help="order mails a second")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1, help="the daemon's [intake] workers")
    parser.add_argument(
        "--max-delay", type=float, default=2.0, help="seconds at work before a kill, at most"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--detail", action="store_true", help="list each duplicate")
    args = parser.parse_args(argv)
    results = []
    for db in ["sqlite", "postgresql"] if args.db == "both" else [args.db]:
        print(
            f"{db}: {args.kills} kills, {args.rate:g} orders/s, load {args.load}, "
            f"load average at start {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        results.append(run_once(db, args))
        print(report(results[-1:]), flush=True)
    print(report(results))
    for r in results:
        if r.second_ids or r.unanswered or r.unprocessed or r.unknown:
            print(
                f"{r.db}: LOST OR DOUBLED: {r.second_ids} orders with two Message-IDs, "
                f"{r.unanswered} never answered, {r.unprocessed} not processed, "
                f"{r.unknown} unknown Message-IDs"
            )
    ok = all(r.ok for r in results)
    print("target (<= 1 duplicate per 100 kills, nothing lost):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
