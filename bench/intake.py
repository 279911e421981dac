"""Benchmark: signed order mails through the real IMAP server into accepted orders.

Usage:  python bench/intake.py [--orders 1000] [--games 10 10000] [--db sqlite postgresql]

For each database and game count: a private mail lab (Dovecot IMAP + SMTP on
loopback, as in the tests) and a fresh database holding that many running demo
games (ten made by the moderator's commands, the rest cloned from them: see
``clone_games``); N signed order mails are sent through the lab's SMTP server
into the moderator's mailbox. Then, in the same run and on the same mails:

* floor: parse, verify and compose an answer for every mail in this process
  (the standard library and ``cryptography``), CPU time per order, measured
  before the daemon runs and again after it (the run's floor is the mean);
* durable floor: the floor plus the writes no correct intake can skip (each
  batch's mails stored with one fsync, one fsync'd commit per batch, each
  answer written durably into a Maildir), CPU time per order;
* bare fetch: aioimaplib alone fetches every message (for the rate only);
* pbem: a real ``pbem serve`` process (intake "imap", outbox "maildir",
  ``--workers`` mail-processing processes) fetches, parses, verifies,
  validates, seals, commits and queues each answer; timed from the daemon's
  "ready" (its worker processes started) to the moment every mail is processed
  in the database. The CPU time (user + system, /proc; the system part is
  printed too) and resident memory
  (VmRSS, VmHWM) of the daemon and its worker processes are read at the end.

Targets: CPU per order of all the daemon's processes at most 2.0 times the
durable floor; RSS with the most games within 10 % of RSS with the fewest. Exits 1
if either is missed. With ``--repeat N`` each database and game count runs N times
and the median run (by its ratio to the durable floor) is judged: one run can stray
by a factor of two on a shared host. The ratio to the floor (the issue's first
target, 2.5) is printed beside it, not judged. ``--py-spy FILE`` samples the
daemon and its workers over the measured span. Needs root (Dovecot stores mail as
``vmail``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import os
import signal
import smtplib
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import aioimaplib  # noqa: E402
from sqlalchemy import Engine, bindparam, func, insert, select, update  # noqa: E402

from pbem.config import Config, ModeratorConfig, SecretsConfig  # noqa: E402
from pbem.intake.mime import parse_mail  # noqa: E402
from pbem.intake.sheet import add_nonce  # noqa: E402
from pbem.intake.signatures import (  # noqa: E402
    find_blocks,
    generate_keypair,
    key_fingerprint,
    sign_block,
    verify_block,
)
from pbem.lifecycle.desk import Desk  # noqa: E402
from pbem.lifecycle.games import GameMaster  # noqa: E402
from pbem.lifecycle.publishing import Publisher  # noqa: E402
from pbem.mail.maildir import deliver, ensure_maildir  # noqa: E402
from pbem.outbox.compose import compose_reply, reply_subject  # noqa: E402
from pbem.record.chain import GENESIS, entry_hash  # noqa: E402
from pbem.secrecy.seeds import seal_seed, unseal_seed  # noqa: E402
from pbem.storage.db import create_all, make_engine, make_sessionmaker  # noqa: E402
from pbem.storage.enums import KeyKind, OutboundStatus  # noqa: E402
from pbem.storage.models import (  # noqa: E402
    Game,
    GameState,
    InboundMail,
    OutboundMail,
    Phase,
    RecordEntry,
    Seat,
    SeatKey,
)
from tests.conftest import make_database  # noqa: E402
from tests.e2e.helpers import stamp_head  # noqa: E402
from tests.maillab import MailLab  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """The daemon and its worker processes ([intake] workers)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [pid, *map(int, children)]


def cpu_seconds(pid: int) -> dict[str, float]:
    """User and system CPU seconds of the daemon process ("main_user", "main_system")
    and of its worker processes ("workers_user", "workers_system")."""
    out = dict.fromkeys(("main_user", "main_system", "workers_user", "workers_system"), 0.0)
    for i, p in enumerate(process_tree(pid)):
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        who = "main" if i == 0 else "workers"
        out[f"{who}_user"] += int(fields[11]) / TICKS  # utime
        out[f"{who}_system"] += int(fields[12]) / TICKS  # stime
    return out


def machine_ticks() -> tuple[int, int]:
    """The machine's CPU ticks so far, all and stolen (``/proc/stat``): the time the
    host of this virtual machine ran something else while the guest had work.
    Figures read while it steals are not comparable with quiet ones."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields[:8]), fields[7]  # user ... steal (guest time is inside user)


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM, summed over the daemon and its worker processes."""
    out = {"VmRSS": 0, "VmHWM": 0}
    for p in process_tree(pid):
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in out:
                out[key] += int(value.split()[0])
    return out


# Games made through the real code path (acts: create, assign, start); more are cloned.
TEMPLATES = 10
CLONE_CHUNK = 500


def make_games(url: str, config: Config, games: int) -> list[tuple[str, str, bytes, str, str]]:
    """``games`` running demo games; (game, side, key, address, public key) per seat.

    The first ``TEMPLATES`` are made as a moderator makes them (create, assign,
    start: reports and all, their reports then marked sent as a running
    daemon would have). The others are clones of those (``clone_games``), so
    that 10,000 games take seconds, not the minutes their start-up reports'
    maps would take."""
    engine = make_engine(url)
    create_all(engine)
    stamp_head(url)  # `pbem serve` refuses a schema without the migrations' revision
    sessions = make_sessionmaker(engine)
    seats = []
    now = datetime.now(UTC)
    with sessions.begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), now), Publisher())
        for g in range(min(games, TEMPLATES)):
            game = f"b{g}"
            # No early adjudication: each order set is sealed and waits (no turn runs).
            gm.acts.create_game(game, "demo", "long-duel", settings={"early_adjudication": False})
            for side in ("north", "south"):
                key, pub = generate_keypair(f"{side}-{g}")
                address = f"{side}{g}@players.example"
                gm.acts.assign(game, side, address, public_key=pub)
                seats.append((game, side, key, address, pub))
            gm.acts.start(game)
        # Sent long ago: the run measures the intake, not the start-up reports.
        s.execute(update(OutboundMail).values(status=OutboundStatus.SENT, sent_at=now))
    for first in range(TEMPLATES, games, CLONE_CHUNK):
        seats += clone_games(engine, config, range(first, min(games, first + CLONE_CHUNK)))
    engine.dispose()
    return seats


def clone_games(
    engine: Engine, config: Config, numbers: range
) -> list[tuple[str, str, bytes, str, str]]:
    """Games ``b{n}``, each the rows of template ``b{n % TEMPLATES}`` with its id, its
    players' addresses and keys, its phase's sealed seed (the same seed, sealed
    for the new game) and its record (the same entries, re-chained with the
    record's own hash) replaced; Core inserts, one transaction per chunk. Not
    cloned: the template's start-up reports (its ``reports``, ``outbound_mails``
    and their ``report-queued`` record entries), which the intake never reads."""
    key = config.secrets.key_bytes()
    seats_out = []
    bases = [f"b{n}" for n in range(TEMPLATES)]
    with engine.begin() as c:
        template = {
            "games": {r.id: r for r in c.execute(select(Game.__table__).where(Game.id.in_(bases)))},
            "seats": c.execute(
                select(Seat.__table__).where(Seat.game_id.in_(bases)).order_by(Seat.id)
            ).all(),
            "phases": {
                r.game_id: r
                for r in c.execute(select(Phase.__table__).where(Phase.game_id.in_(bases)))
            },
            "states": {
                r.phase_id: r
                for r in c.execute(
                    select(GameState.__table__).join(Phase).where(Phase.game_id.in_(bases))
                )
            },
            "record": c.execute(
                select(RecordEntry.__table__)
                .where(RecordEntry.game_id.in_(bases), RecordEntry.kind != "report-queued")
                .order_by(RecordEntry.game_id, RecordEntry.seq)
            ).all(),
        }
        games, seats, keys, phases, states, record, seeds = [], [], [], [], [], [], []
        new_key: dict[tuple[str, str], str] = {}
        for n in numbers:
            base, game = f"b{n % TEMPLATES}", f"b{n}"
            games.append({**template["games"][base]._asdict(), "id": game})
            for seat in template["seats"]:
                if seat.game_id != base:
                    continue
                private, public = generate_keypair(f"{seat.side}-{n}")
                address = f"{seat.side}{n}@players.example"
                row = {**seat._asdict(), "game_id": game, "email": address}
                del row["id"]
                seats.append(row)
                keys.append((game, seat.side, public, seat.joined_at))
                new_key[(game, seat.side)] = key_fingerprint(public)
                seats_out.append((game, seat.side, private, address, public))
            phase = template["phases"][base]
            row = {**phase._asdict(), "game_id": game, "seed_sealed": b""}
            del row["id"]
            phases.append(row)
        c.execute(insert(Game.__table__), games)
        c.execute(insert(Seat.__table__), seats)
        names = [g["id"] for g in games]
        seat_ids = {
            (r.game_id, r.side): r.id
            for r in c.execute(
                select(Seat.id, Seat.game_id, Seat.side).where(Seat.game_id.in_(names))
            )
        }
        c.execute(
            insert(SeatKey.__table__),
            [
                {
                    "seat_id": seat_ids[(game, side)],
                    "kind": KeyKind.ED25519,
                    "fingerprint": key_fingerprint(public),
                    "material": public.encode(),
                    "added_at": joined,
                    "retired_at": None,
                }
                for game, side, public, joined in keys
            ],
        )
        c.execute(insert(Phase.__table__), phases)
        for phase_id, game in c.execute(
            select(Phase.id, Phase.game_id).where(Phase.game_id.in_(names))
        ):
            base_phase = template["phases"][f"b{int(game[1:]) % TEMPLATES}"]
            seed = unseal_seed(
                key, base_phase.seed_sealed, game=base_phase.game_id, phase_id=base_phase.id
            )
            seeds.append(
                {"pid": phase_id, "seed": seal_seed(key, seed, game=game, phase_id=phase_id)}
            )
            states.append({"phase_id": phase_id, "state": template["states"][base_phase.id].state})
        c.execute(
            update(Phase.__table__)
            .where(Phase.__table__.c.id == bindparam("pid"))
            .values(seed_sealed=bindparam("seed")),
            seeds,
        )
        c.execute(insert(GameState.__table__), states)
        for game in names:
            base = f"b{int(game[1:]) % TEMPLATES}"
            prev = GENESIS
            for seq, entry in enumerate((e for e in template["record"] if e.game_id == base), 1):
                payload = dict(entry.payload)
                if entry.kind == "player-assigned":
                    payload["email"] = f"{payload['side']}{game[1:]}@players.example"
                    payload["key"] = new_key[(game, payload["side"])]
                digest = entry_hash(seq, entry.at.isoformat(), entry.kind, payload, prev)
                record.append(
                    {
                        "game_id": game,
                        "seq": seq,
                        "at": entry.at,
                        "kind": entry.kind,
                        "payload": payload,
                        "prev_hash": prev,
                        "hash": digest,
                    }
                )
                prev = digest
        c.execute(insert(RecordEntry.__table__), record)
    return seats_out


def order_mail(game: str, side: str, key: bytes, sender: str, to: str, i: int) -> bytes:
    sheet = add_nonce(
        f"Game: {game}\nSide: {side}\nTurn: 1\nPhase: plot\n\n"
        f"SEND SQN-1 {'ABC'[i % 3]}\nSEND SQN-2 B\nSEND SQN-3 C\n"
    )
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = f"orders {i}"
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg.set_content("My orders:\n\n" + sign_block(sheet, key), cte="quoted-printable")
    return msg.as_bytes()


# Mails decided per transaction by the daemon (pbem.service.daemon.PROCESS_BATCH): the
# durable floor commits as often.
BATCH = 50


def floor(
    mails: list[bytes], public_keys: set[str], config: Config, durable: Path | None = None
) -> tuple[float, float]:
    """CPU seconds (user, system), on one core, of the three steps no pipeline that does what the
    issue asks can skip, done with the libraries it names: parse the mail
    (email, policy default), verify its Ed25519 block (cryptography), compose
    the answer (email). Nothing stored, validated or sealed. Run twice; the
    second (warm, as a running daemon is) is returned.

    With ``durable`` (a folder), the **durable floor**: the same, plus the writes
    no correct intake can skip, with the standard library alone: each batch of
    ``BATCH`` mails' bytes appended to one file and fsync'd once (stored before the
    mailbox may forget them), one fsync'd commit per batch (a line per mail: its
    digest and outcome, appended to a journal), and each answer written durably
    as pbem's Maildir outbox writes it (``deliver``: create in tmp/, write, fsync,
    rename). Still nothing validated, sealed, encrypted or hash-chained, and no
    database: what is left above it is pbem's own bookkeeping."""
    keys = {key_fingerprint(k): k for k in public_keys}
    answer = (
        "Game b0, north, turn 1 phase plot\nAccepted (3), as understood:\n"
        + "  SEND SQN-1 A\n" * 3
        + "\nReceipt: your orders are sealed.\n  Commitment: "
        + "0" * 64
        + "\n" * 4
    )
    now = datetime.now(UTC)
    seconds = (0.0, 0.0)
    for attempt in range(2):
        if durable is not None:
            where = durable / f"pass{attempt}"
            outbox = ensure_maildir(where / "outbox")
            stored = (where / "mails").open("ab")
            journal = (where / "journal").open("ab")
        t = os.times()
        for first in range(0, len(mails), BATCH):
            batch = mails[first : first + BATCH]
            if durable is not None:
                stored.write(b"".join(batch))
                stored.flush()
                os.fsync(stored.fileno())
            answers = []
            for i, raw in enumerate(batch, first):
                mail = parse_mail(raw)
                block = find_blocks(mail.text)[0]
                # As the daemon does: only the keys registered with the block's fingerprint.
                verify_block(block, {block.key_id: keys[block.key_id]})
                assert mail.from_addr is not None
                answers.append(
                    compose_reply(
                        to=mail.from_addr,
                        sender=f"{config.moderator.name} <{config.moderator.address}>",
                        subject=reply_subject(mail.subject),
                        text=answer,
                        in_reply_to=mail.message_id,
                        references=mail.references,
                        message_id=f"<pbem.answer.{i}@pbem.example>",
                        loop_token=config.moderator.address,
                        date=now,
                    )
                )
            if durable is not None:
                journal.write(
                    b"".join(
                        hashlib.sha256(raw).hexdigest().encode() + b" accepted 3, refused 0\n"
                        for raw in batch
                    )
                )
                journal.flush()
                os.fsync(journal.fileno())
                for reply in answers:
                    deliver(outbox, reply)
        end = os.times()
        seconds = (end.user - t.user, end.system - t.system)
        if durable is not None:
            stored.close()
            journal.close()
    return seconds


async def bare_fetch(lab: MailLab, user: str, password: str) -> tuple[int, float]:
    """aioimaplib alone: every message of INBOX, 100 per UID FETCH. (count, seconds)"""
    start = time.perf_counter()
    client = aioimaplib.IMAP4(host="127.0.0.1", port=lab.imap_port, timeout=60)
    await client.wait_hello_from_server()
    await client.login(user, password)
    await client.select("INBOX")
    response = await client.uid_search("ALL")
    uids = [int(t) for line in response.lines[:-1] for t in bytes(line).split() if t.isdigit()]
    count = 0
    for i in range(0, len(uids), 100):
        chunk = ",".join(map(str, uids[i : i + 100]))
        response = await client.uid("fetch", chunk, "(UID BODY.PEEK[])")
        count += sum(1 for line in response.lines if isinstance(line, bytearray))
    await client.logout()
    return count, time.perf_counter() - start


def start_py_spy(pid: int, path: Path) -> subprocess.Popen[bytes]:
    """py-spy (``pip install py-spy``) sampling the daemon and its worker processes
    from now until it is sent SIGINT, into ``path`` as collapsed stacks (one line
    a stack and its count; each worker's stacks start with the daemon's process
    frame, then its own). Sampled without pausing the processes (--nonblocking),
    but its own CPU competes with theirs: a profiled run's figures are not judged
    against unprofiled ones."""
    py_spy = Path(sys.executable).with_name("py-spy")
    return subprocess.Popen(
        [
            *(str(py_spy), "record", "--pid", str(pid), "--subprocesses", "--nonblocking"),
            *("--rate", "200", "--format", "raw", "--output", str(path)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def run_once(
    orders: int, games: int, db: str, workers: int, profile: Path | None = None
) -> dict[str, float]:
    with MailLab() as lab, tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        # A fresh database per run: SQLite in the run's folder, or a new PostgreSQL
        # database on 127.0.0.1:5432 (dropped afterwards), as the tests make them.
        databases = make_database(db, folder)
        url = next(databases)
        try:
            return _measure(lab, folder, url, orders, games, workers, profile)
        finally:
            next(databases, None)  # runs make_database's clean-up (drops a PostgreSQL db)


def _measure(
    lab: MailLab,
    folder: Path,
    url: str,
    orders: int,
    games: int,
    workers: int,
    profile: Path | None = None,
) -> dict[str, float]:
    mod_password = "bench"
    moderator = lab.add_user("moderator", mod_password)
    plot_key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        moderator=ModeratorConfig(address=moderator),
        secrets=SecretsConfig(plot_key=plot_key),
    )
    t = time.perf_counter()
    seats = make_games(url, config, games)
    print(f"  {games} games set up in {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    mails = [
        order_mail(*seats[i % len(seats)][:3], seats[i % len(seats)][3], moderator, i)
        for i in range(orders)
    ]
    with smtplib.SMTP("127.0.0.1", lab.smtp_port, timeout=30) as smtp:
        for raw in mails:
            sender = seats[0][3]
            smtp.sendmail(sender, [moderator], raw.replace(b"\n", b"\r\n"))
    print(f"  {orders} mails sent by SMTP in {time.perf_counter() - t:.1f} s", flush=True)
    assert lab.count(moderator) == orders

    fetched, bare_seconds = asyncio.run(bare_fetch(lab, moderator, mod_password))
    assert fetched == orders, fetched
    keys = {seat[4] for seat in seats}
    # Measured before the daemon runs and again after it (the mean is the run's floor):
    # this machine's speed drifts by a third within minutes, and a floor measured on
    # one side of the run only would tilt its ratio with the drift.
    floors = [floor(mails, keys, config)]
    # On the disk the daemon's database and outbox are on (the run's folder).
    durables = [floor(mails, keys, config, folder / "durable-before")]

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
workers = {workers}
[imap]
host = "127.0.0.1"
port = {lab.imap_port}
user = "{moderator}"
password = "{mod_password}"
[outbox]
transport = "maildir"
maildir = "{folder / "outbox"}"
[log]
level = "WARNING"
"""
    )
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    log = (folder / "daemon.log").open("w")
    daemon = subprocess.Popen(
        [sys.executable, "-m", "pbem", "-c", str(folder / "pbem.toml"), "serve"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(REPO), "PBEM_LOG_LEVEL": "INFO"},
        cwd=folder,
    )
    try:
        # Ready: the daemon logged "ready" (start-up done, worker processes started).
        while "pbem daemon ready" not in (folder / "daemon.log").read_text(errors="replace"):
            if daemon.poll() is not None:
                # The run's folder goes with the run: its log is shown here.
                tail = (folder / "daemon.log").read_text(errors="replace")[-3000:]
                raise SystemExit(f"the daemon died; its log ends:\n{tail}")
            time.sleep(0.01)
        spy = None if profile is None else start_py_spy(daemon.pid, profile)
        t0 = time.perf_counter()
        cpu0 = cpu_seconds(daemon.pid)
        ticks0 = machine_ticks()
        while True:
            with sessions() as s:
                done = s.scalar(
                    select(func.count()).select_from(InboundMail).where(InboundMail.status != "new")
                )
            if done == orders:
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - t0
        cpu = {k: v - cpu0[k] for k, v in cpu_seconds(daemon.pid).items()}
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its samples and exits
            spy.wait(timeout=60)
        ticks = [b - a for a, b in zip(ticks0, machine_ticks(), strict=True)]
        cpu_main = cpu["main_user"] + cpu["main_system"]
        cpu_workers = cpu["workers_user"] + cpu["workers_system"]
        memory = memory_kib(daemon.pid)
        with sessions() as s:
            accepted = s.scalar(
                select(func.count())
                .select_from(InboundMail)
                .where(InboundMail.outcome.like("accepted 3, refused 0"))
            )
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
        engine.dispose()
        # Warnings cost CPU too (a batch undone and decided again one mail at a time):
        # shown, so that a figure is never read without them.
        for line in (folder / "daemon.log").read_text(errors="replace").splitlines():
            if '"WARNING"' in line or '"ERROR"' in line or "WARNING" in line[:40]:
                print("  daemon:", line[:300], flush=True)
    assert accepted == orders, f"only {accepted} of {orders} accepted"
    floors.append(floor(mails, keys, config))
    durables.append(floor(mails, keys, config, folder / "durable-after"))

    def ms(seconds: float) -> float:
        return seconds * 1000 / orders

    return {
        "games": games,
        "orders": orders,
        "bare_rate": orders / bare_seconds,
        "pbem_rate": orders / seconds,
        "floor_ms": ms(sum(map(sum, floors)) / 2),
        "floor_before_ms": ms(sum(floors[0])),
        "floor_after_ms": ms(sum(floors[1])),
        "floor_system_ms": ms(sum(f[1] for f in floors) / 2),
        "durable_ms": ms(sum(map(sum, durables)) / 2),
        "durable_system_ms": ms(sum(f[1] for f in durables) / 2),
        "cpu_ms": (cpu_main + cpu_workers) * 1000 / orders,
        "cpu_main_ms": cpu_main * 1000 / orders,
        "system_ms": (cpu["main_system"] + cpu["workers_system"]) * 1000 / orders,
        "main_system_ms": cpu["main_system"] * 1000 / orders,
        "rss_mib": memory["VmRSS"] / 1024,
        "hwm_mib": memory["VmHWM"] / 1024,
        "steal": ticks[1] / max(1, ticks[0]),
    }


# Targets: the whole intake's CPU per order (daemon + workers) at most this many
# times the durable floor measured in the same run (the floor's ratio, the issue's
# first target of 2.5, is printed beside it); resident memory at the most games
# within this fraction of the memory at the fewest.
DURABLE_TARGET = 2.0
MEMORY_SPREAD = 0.10


def print_run(r: dict[str, float]) -> None:
    """One run's line: the ratios to the floor and to the durable floor (the
    target's: what pbem spends above the work and the writes it cannot skip)."""
    ratio = r["cpu_ms"] / r["floor_ms"]
    durable_ratio = r["cpu_ms"] / r["durable_ms"]
    print(
        f"  CPU {r['cpu_ms']:.2f} ms/order, all processes ({r['cpu_main_ms']:.2f} in "
        f"the daemon process; system {r['system_ms']:.2f}, of it "
        f"{r['main_system_ms']:.2f} in the daemon process) | floor "
        f"{r['floor_ms']:.2f} ms/order (before {r['floor_before_ms']:.2f}, after "
        f"{r['floor_after_ms']:.2f}; system {r['floor_system_ms']:.2f}), ratio "
        f"{ratio:.2f} | durable floor "
        f"{r['durable_ms']:.2f} ms/order (system {r['durable_system_ms']:.2f}; "
        f"{r['durable_ms'] / r['floor_ms']:.2f} x the floor), ratio {durable_ratio:.2f} "
        f"(target <= {DURABLE_TARGET}) | "
        f"pbem {r['pbem_rate']:.0f} orders/s, bare fetch {r['bare_rate']:.0f} mails/s | "
        f"RSS {r['rss_mib']:.0f} MiB (peak {r['hwm_mib']:.0f} MiB) | "
        f"load {os.getloadavg()[0]:.2f}, host steal {r['steal']:.0%}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--orders", type=int, default=1000)
    parser.add_argument("--games", type=int, nargs="+", default=[10, 10000])
    parser.add_argument(
        "--db", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"]
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="the daemon's [intake] workers (default: one per core, as deploy/ suggests)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs per database and game count; the median run's ratio is judged",
    )
    parser.add_argument(
        "--py-spy",
        type=Path,
        metavar="FILE",
        help="sample the daemon and its workers with py-spy over each measured span "
        "into FILE (collapsed stacks; a run's number is appended with --repeat)",
    )
    args = parser.parse_args()
    ok = True
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    for db in args.db:
        results = []
        for games in args.games:
            print(
                f"{db}, {games} games, {args.orders} order mails, {args.workers} worker(s):",
                flush=True,
            )
            runs = []
            for i in range(args.repeat):
                profile = args.py_spy
                if profile is not None and args.repeat > 1:
                    profile = profile.with_name(f"{profile.name}.{i + 1}")
                r = run_once(args.orders, games, db, args.workers, profile)
                runs.append(r)
                print_run(r)
            # The median run (by its ratio to the durable floor) stands for the
            # configuration: one run can stray by a factor of two on a shared host
            # (bench/README.md), a median of three less.
            runs.sort(key=lambda r: r["cpu_ms"] / r["durable_ms"])
            r = runs[len(runs) // 2]
            results.append(r)
            ratio = r["cpu_ms"] / r["durable_ms"]
            ok = ok and ratio <= DURABLE_TARGET
            if len(runs) > 1:
                durables = ", ".join(f"{x['cpu_ms'] / x['durable_ms']:.2f}" for x in runs)
                ratios = ", ".join(f"{x['cpu_ms'] / x['floor_ms']:.2f}" for x in runs)
                print(
                    f"  median of {len(runs)} runs: ratio to the durable floor {ratio:.2f} "
                    f"(target <= {DURABLE_TARGET}; runs {durables}) | that run to the floor "
                    f"{r['cpu_ms'] / r['floor_ms']:.2f} (runs {ratios})",
                    flush=True,
                )
        if len(results) > 1:
            fewest, most = results[0]["rss_mib"], results[-1]["rss_mib"]
            flat = abs(most - fewest) <= MEMORY_SPREAD * fewest
            ok = ok and flat
            print(
                f"{db}: RSS from {results[0]['games']} to {results[-1]['games']} games: "
                f"{most - fewest:+.1f} MiB ({(most - fewest) / fewest:+.1%}; target within "
                f"{MEMORY_SPREAD:.0%}): {'flat' if flat else 'NOT flat'}",
                flush=True,
            )
    print("targets:", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
