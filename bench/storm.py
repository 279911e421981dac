"""Benchmark: a deadline storm, N games whose rounds close at the same deadline.

Usage:  python bench/storm.py [--games 1000] [--db sqlite|postgresql] [--workers 2]
                              [--mix demo=20,mini=60,campaign=20]

``--games`` games in the proportions of ``--mix``: ``demo`` (``demo``/``long-duel``),
``mini`` (the U.S.N. mini-games in turn: Coral Sea, Midway, Eastern Solomons,
Santa Cruz) and ``campaign`` (U.S.N. Campaign Games 1, 2 and 3 in turn). Each is
created, assigned, started and played through its set-up rounds on the standing
orders by the lifecycle itself (``GameMaster``, no reports: fast), then every
side that owes orders in the round now open has them sealed (U.S.N.: every unit
that can move does, as in ``bench/adjudicate.py``, validated by the ruleset),
early adjudication off, and every open round's deadline set to one moment a few
seconds ahead.

A real ``pbem serve`` (Maildir intake with nothing in it, ``[intake] workers``
processes, SMTP outbox) runs across the deadline, sending to an aiosmtpd server
in a process of its own that accepts everything and logs when it accepted each
Message-ID (``bench/outbox.py``'s). Measured:

* deadline -> first and last report accepted by the SMTP server (two per game);
* CPU (user + system, ``/proc``) of the daemon and its worker processes over that
  span, per game-round;
* where it goes: the daemon's own per-stage CPU counters (``pbem.core.stages``:
  adjudication, views, context, text, html, maps, compose, commit, sending, the
  event loop), which each process logs every second at DEBUG (logger
  ``pbem.stages``), summed over the processes; the rest is "other";
* the ratio drain / ((adjudication + rendering CPU) / cores), rendering being
  views, context, text, HTML and maps. Target: <= 1.5;
* the outbox never holds mail the server would take: every SAMPLE seconds the
  outbox's pending count (read-only, beside the daemon) and the server's count
  of accepted mail; a stall is time with mail pending and none accepted. Target:
  no stall longer than STALL seconds.

The daemon's clock sleeps until the earliest open deadline
(``pbem.service.work.Worker.plan_wake``) and spreads the ticks over its worker
processes, each claiming its games by lease.

Exits non-zero when a target is missed. The database server's own CPU
(PostgreSQL) is not counted.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from adjudicate import orders_for  # noqa: E402
from intake import cpu_seconds  # noqa: E402
from outbox import ServerProcess  # noqa: E402
from sqlalchemy import create_engine, func, select, update  # noqa: E402

from pbem.config import Config, ModeratorConfig, SecretsConfig  # noqa: E402
from pbem.intake.signatures import generate_keypair  # noqa: E402
from pbem.lifecycle.desk import Desk  # noqa: E402
from pbem.lifecycle.games import GameMaster  # noqa: E402
from pbem.rulesets.usn.state import GameState  # noqa: E402
from pbem.storage.db import create_all, make_engine, make_sessionmaker  # noqa: E402
from pbem.storage.enums import OutboundStatus, PhaseStatus  # noqa: E402
from pbem.storage.models import OutboundMail, Phase  # noqa: E402
from tests.conftest import make_database  # noqa: E402

MODERATOR = "moderator@storm.example"
TARGET = 1.5
STALL = 1.0  # seconds: the longest the outbox may hold mail while the server takes none
SAMPLE = 0.1  # seconds between samples of the outbox and the server
LEAD = 10.0  # seconds from the set-up's end to the deadline (the daemon starts meanwhile)
GAMES_PER_TRANSACTION = 25
KINDS = {
    "demo": [("demo", "long-duel")],
    "mini": [("usn", s) for s in ("coral-sea", "midway", "eastern-solomons", "santa-cruz")],
    "campaign": [("usn", f"campaign-{n}") for n in (1, 2, 3)],
}
RENDERING = ("views", "context", "text", "html", "maps")
STAGES = ("adjudication", *RENDERING, "compose", "commit", "sending", "event-loop")
STAGE_LINE = re.compile(r"stage CPU seconds (\{.*\})")
DEMO_ORDERS = "SEND SQN-1 A\nSEND SQN-2 B\nSEND SQN-3 C"


def game_list(games: int, mix: dict[str, int]) -> list[tuple[str, str]]:
    """(ruleset, scenario) per game, in the proportions of ``mix``, interleaved."""
    total = sum(mix.values())
    counts = {k: games * v // total for k, v in mix.items()}
    counts[max(mix, key=lambda k: mix[k])] += games - sum(counts.values())
    out: list[tuple[str, str]] = []
    for kind, n in counts.items():
        out += [KINDS[kind][i % len(KINDS[kind])] for i in range(n)]
    random.Random(15).shuffle(out)
    return out


def _storm_orders(gm: GameMaster, game_id: str, rng: random.Random) -> None:
    """Play the set-up rounds on the standing orders, then seal the storm round's orders."""
    game = gm.lookups.game(game_id)
    ruleset = gm.lookups.ruleset(game)
    while True:
        phase = gm.lookups.require_open(game)
        state = gm.lookups.state_of(phase)
        if not phase.name.startswith("setup"):
            break
        for side in phase.sides:
            orders = list(ruleset.default_orders(state, side))
            gm.phases.submit(game_id, side, phase.turn, phase.name, orders)
        gm.phases.adjudicate_now(game_id, "bench set-up")
    for side in phase.sides:
        if game.ruleset == "usn":
            sheet = orders_for(ruleset.geo, GameState.from_json(state), side, rng)  # type: ignore[attr-defined]
        else:
            sheet = DEMO_ORDERS
        accepted = list(ruleset.validate(state, side, sheet).accepted)
        gm.phases.submit(game_id, side, phase.turn, phase.name, accepted)


def set_up(url: str, config: Config, games: list[tuple[str, str]]) -> None:
    """The games, created by the lifecycle without reports (the storm's are what counts)."""
    engine = make_engine(url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    rng = random.Random(1)
    keys = [generate_keypair(f"k{i}")[1] for i in range(2 * len(games))]
    for first in range(0, len(games), GAMES_PER_TRANSACTION):
        with sessions.begin() as s:
            gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)))
            for g in range(first, min(first + GAMES_PER_TRANSACTION, len(games))):
                ruleset, scenario = games[g]
                game_id = f"s{g}"
                game = gm.acts.create_game(
                    game_id, ruleset, scenario, settings={"early_adjudication": False}
                )
                for n, side in enumerate(gm.lookups.sides_of(game)):
                    address = f"{side}{g}@players.example"
                    gm.acts.assign(game_id, side, address, public_key=keys[2 * g + n])
                gm.acts.start(game_id)
                _storm_orders(gm, game_id, rng)
    engine.dispose()


def run(games: list[tuple[str, str]], db: str, workers: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        databases = make_database(db, folder)
        url = next(databases)
        try:
            return _measure(folder, url, games, workers)
        finally:
            next(databases, None)


class Watch:
    """Samples the outbox's pending count beside the daemon, and the server's log."""

    def __init__(self, url: str, accepted_log: Path) -> None:
        # A plain engine: make_engine's SQLite connections take the write lock at BEGIN.
        self.engine = create_engine(url)
        self.log = accepted_log
        self.offset = 0
        self.reports: list[float] = []  # when the server accepted each report
        self.accepted = 0  # every mail accepted
        self.stalls: list[float] = []
        self._stall_from: float | None = None
        self._seen = 0  # accepted, at the last sample
        self._at = time.time()  # the last sample's time

    def _read(self) -> None:
        if not self.log.exists():
            return
        with self.log.open("rb") as f:
            f.seek(self.offset)
            chunk = f.read()
        end = chunk.rfind(b"\n") + 1
        self.offset += end
        for line in chunk[:end].decode().splitlines():
            message_id, at = line.rsplit(" ", 1)
            self.accepted += 1
            if message_id.startswith("<pbem.report."):
                self.reports.append(float(at))

    def sample(self) -> None:
        self._read()
        with self.engine.connect() as c:
            pending = c.scalar(
                select(func.count())
                .select_from(OutboundMail)
                .where(OutboundMail.status == OutboundStatus.PENDING)
            )
        # Counted from the last sample that saw progress to the last that saw none:
        # a lower bound, to within one SAMPLE.
        if pending and self.accepted == self._seen:
            if self._stall_from is None:
                self._stall_from = self._at
        elif self._stall_from is not None:
            self.stalls.append(self._at - self._stall_from)
            self._stall_from = None
        self._seen, self._at = self.accepted, time.time()

    def close(self) -> None:
        if self._stall_from is not None:
            self.stalls.append(self._at - self._stall_from)
        self.engine.dispose()


def stage_totals(log: Path, upto: int | None = None) -> dict[int, dict[str, float]]:
    """The last stage CPU totals each process logged (in the first ``upto`` bytes)."""
    text = log.read_bytes()[:upto].decode(errors="replace")
    last: dict[int, dict[str, float]] = {}
    for m in STAGE_LINE.finditer(text):
        entry = json.loads(m.group(1))
        last[int(entry["pid"])] = entry["stages"]
    return last


def _summed(
    after: dict[int, dict[str, float]], before: dict[int, dict[str, float]]
) -> dict[str, float]:
    out: dict[str, float] = {}
    for pid, totals in after.items():
        for name, seconds in totals.items():
            out[name] = out.get(name, 0.0) + seconds - before.get(pid, {}).get(name, 0.0)
    return out


def _daemon(
    folder: Path, url: str, port: int, workers: int, plot_key: str
) -> subprocess.Popen[bytes]:
    (folder / "inbox").mkdir()
    (folder / "pbem.toml").write_text(
        f"""\
[moderator]
address = "{MODERATOR}"
[database]
url = "{url}"
[secrets]
plot_key = "{plot_key}"
[intake]
transport = "maildir"
maildir = "{folder / "inbox"}"
poll_interval = 0.5
workers = {workers}
[outbox]
transport = "smtp"
[smtp]
host = "127.0.0.1"
port = {port}
[log]
level = "DEBUG"
"""
    )
    return subprocess.Popen(
        [sys.executable, "-m", "pbem", "-c", str(folder / "pbem.toml"), "serve"],
        stdout=(folder / "daemon.log").open("w"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=folder,
    )


def _until(deadline: float, daemon: subprocess.Popen[bytes], folder: Path) -> Iterator[None]:
    while time.time() < deadline:
        if daemon.poll() is not None:
            raise SystemExit(f"the daemon died; see {folder / 'daemon.log'}")
        yield


def _measure(folder: Path, url: str, games: list[tuple[str, str]], workers: int) -> dict[str, Any]:
    plot_key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        moderator=ModeratorConfig(address=MODERATOR), secrets=SecretsConfig(plot_key=plot_key)
    )
    t = time.perf_counter()
    set_up(url, config, games)
    setup_s = time.perf_counter() - t
    print(f"  {len(games)} games set up, orders sealed, in {setup_s:.1f} s", flush=True)
    server = ServerProcess(0.0, folder)
    deadline = datetime.now(UTC) + timedelta(seconds=LEAD)
    engine = make_engine(url)
    with make_sessionmaker(engine).begin() as s:
        s.execute(
            update(Phase)
            .where(Phase.status == PhaseStatus.OPEN)
            .values(deadline=deadline, grace_until=deadline + timedelta(hours=1))
        )
    engine.dispose()
    daemon = _daemon(folder, url, server.port, workers, plot_key)
    log = folder / "daemon.log"
    watch = Watch(url, server.log)
    expected = 2 * len(games)
    try:
        for _ in _until(deadline.timestamp(), daemon, folder):
            time.sleep(0.01)
        cpu0 = sum(cpu_seconds(daemon.pid).values())
        stages0 = stage_totals(log, log.stat().st_size)
        for _ in _until(deadline.timestamp() + 1800, daemon, folder):
            watch.sample()
            if len(watch.reports) >= expected:
                break
            time.sleep(SAMPLE)
        else:
            raise SystemExit(f"only {len(watch.reports)} of {expected} reports in 30 min")
        cpu = sum(cpu_seconds(daemon.pid).values()) - cpu0
        drained = max(watch.reports) - deadline.timestamp()
        first = min(watch.reports) - deadline.timestamp()
        # The stage counters are logged every second: wait for the lines that cover
        # the drain, then take the CPU over the same longer span for their table.
        time.sleep(2.5)
        cpu_stages = sum(cpu_seconds(daemon.pid).values()) - cpu0
        stages = _summed(stage_totals(log), stages0)
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)
        watch.close()
        server.stop()
    return {
        "games": len(games),
        "setup_s": setup_s,
        "drain_s": drained,
        "first_s": first,
        "cpu_s": cpu,
        "cpu_stages_s": cpu_stages,
        "stages": stages,
        "stalls": watch.stalls,
    }


def parse_mix(text: str) -> dict[str, int]:
    mix = {}
    for part in text.split(","):
        kind, _, share = part.partition("=")
        if kind not in KINDS:
            raise SystemExit(f"--mix: {kind!r} is none of {', '.join(KINDS)}")
        mix[kind] = int(share)
    return mix


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--mix", default="demo=20,mini=60,campaign=20")
    args = ap.parse_args()
    mix = parse_mix(args.mix)
    games = game_list(args.games, mix)
    print(
        f"{args.games} games ({args.mix}), {args.db}, {args.workers} worker(s), "
        f"load average {os.getloadavg()[0]:.1f}:",
        flush=True,
    )
    r = run(games, args.db, args.workers)
    cores = os.cpu_count() or 1
    stages = r["stages"]
    work = stages.get("adjudication", 0.0) + sum(stages.get(k, 0.0) for k in RENDERING)
    ratio = r["drain_s"] / (work / cores) if work else float("inf")
    stalls = r["stalls"]
    print(f"deadline -> first report accepted: {r['first_s']:.2f} s")
    print(f"deadline -> last report accepted:  {r['drain_s']:.2f} s ({2 * r['games']} reports)")
    print(
        f"CPU over that span: {r['cpu_s']:.2f} s, {r['cpu_s'] * 1000 / r['games']:.1f} ms per "
        f"game-round (daemon and workers; the database server's not counted)"
    )
    total = r["cpu_stages_s"]
    print(f"where it goes (CPU ms per game-round; span + 2.5 s, {total:.2f} s in all):")
    for name in (*STAGES, *sorted(set(stages) - set(STAGES))):
        seconds = stages.get(name, 0.0)
        print(f"  {name:<13} {seconds * 1000 / r['games']:8.1f}  {100 * seconds / total:5.1f} %")
    other = total - sum(stages.values())
    print(f"  {'other':<13} {other * 1000 / r['games']:8.1f}  {100 * other / total:5.1f} %")
    print(
        f"drain / ((adjudication + rendering CPU {work:.2f} s) / {cores} cores): "
        f"{ratio:.2f} (target <= {TARGET})"
    )
    longest = max(stalls, default=0.0)
    print(
        f"outbox holding mail while the server took none: {len(stalls)} time(s), "
        f"{sum(stalls):.2f} s in all, longest {longest:.2f} s (target <= {STALL} s)"
    )
    met = ratio <= TARGET and longest <= STALL
    print("targets:", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
