"""Crash safety (issue 2): kill -9 a real ``pbem serve`` at many points while real
mail flows, restart it each time, and then check that no accepted order is lost,
none is applied twice, no answer is lost and none is duplicated (a resend may
repeat a Message-ID, never make a second one), and no mail is lost.

Players send through the lab's SMTP server from a thread during the whole run;
the daemon fetches by IMAP from Dovecot and answers by SMTP.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from collections import defaultdict
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbem.storage.models import InboundMail, OutboundMail, Plot
from tests.e2e.helpers import (
    DaemonProcess,
    ModeratorDesk,
    Player,
    answers,
    compose,
    delivered,
    moderator_desk,
    new_player,
    signed,
    submit,
    wait_until,
)
from tests.maillab import MailLab

KILLS = 25
GAMES = 3
MAILS = 90


def _order_mail(
    desk: ModeratorDesk, player: Player, game: str, i: int, rng: random.Random
) -> EmailMessage:
    if i % 15 == 7:  # now and then a mail without a block: answered with an error
        return compose(player.address, desk.address, f"question {i}", "When is the deadline?\n")
    orders = [f"SEND SQN-{n} {rng.choice('ABC')}" for n in (1, 2, 3)]
    if i % 10 == 3:
        orders.append("SEND SQN-7 A")  # one refused line among accepted ones
    return compose(player.address, desk.address, f"orders {i}", signed(player, game, orders))


def _sender(
    lab: MailLab,
    desk: ModeratorDesk,
    seats: list[tuple[str, Player]],
    sent: list[str],
    seed: int,
    stop: threading.Event,
) -> None:
    rng = random.Random(seed)
    for i in range(MAILS):
        if stop.is_set():
            return
        game, player = rng.choice(seats)
        msg = _order_mail(desk, player, game, i, rng)
        submit(lab, msg)
        sent.append(str(msg["Message-ID"]))
        time.sleep(rng.uniform(0.0, 0.5))


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2], ids=["in-daemon", "2-worker-processes"])
def test_kill_9_at_random_points_loses_and_duplicates_nothing(
    mail_lab: MailLab, database_url: str, tmp_path: Path, workers: int
) -> None:
    """With ``workers`` = 2 the kill hits the daemon while its worker processes
    decide on mail; they die with it."""
    desk = moderator_desk(mail_lab, database_url, tmp_path, rate_limit=10_000, workers=workers)
    seats: list[tuple[str, Player]] = []
    for g in range(GAMES):
        players = [new_player(mail_lab, side, prefix="crash") for side in ("north", "south")]
        # No early adjudication: every accepted set is a plot that must stay in once.
        desk.demo_game(f"c{g}", players, scenario="long-duel", early_adjudication=False)
        seats += [(f"c{g}", p) for p in players]
    daemon = DaemonProcess(desk, tmp_path)
    rng = random.Random(2026)
    sent: list[str] = []
    stop = threading.Event()
    sender = threading.Thread(
        target=_sender, args=(mail_lab, desk, seats, sent, 7, stop), daemon=True
    )
    sender.start()

    def processed() -> int:
        with desk.sessions() as s:
            count = s.scalar(
                select(func.count()).select_from(InboundMail).where(InboundMail.status != "new")
            )
        return count or 0

    def at_work(before: int) -> bool:
        """This run decided on a mail, or there is nothing left it could do."""
        return processed() > before or (not sender.is_alive() and processed() == len(sent))

    try:
        for k in range(KILLS):
            before = processed()
            daemon.start()
            if k % 2:
                # At work: fetching, filing, acknowledging, processing, sending. Waited
                # for, not guessed: on a loaded machine a daemon may take seconds.
                daemon.wait_ready(timeout=120)
                wait_until(lambda b=before: at_work(b), 120, "the daemon to be at work")
                time.sleep(rng.uniform(0.0, 1.0))
            else:
                # Anywhere, from "still importing" on, whatever this machine's speed.
                time.sleep(rng.uniform(0.05, 1.5))
            daemon.kill()
        sender.join(timeout=60)
        assert not sender.is_alive()
        # The killed daemons did real work while mail flowed (else this proves little):
        # every kill at work came after its daemon had decided on a mail, or had
        # nothing left to do.
        assert processed() >= 1
        daemon.start()
        daemon.wait_ready()

        def settled() -> bool:
            with desk.sessions() as s:
                filed = s.scalar(select(func.count()).select_from(InboundMail))
                open_ = s.scalar(
                    select(func.count()).select_from(InboundMail).where(InboundMail.status == "new")
                )
                unsent = s.scalar(
                    select(func.count())
                    .select_from(OutboundMail)
                    .where(OutboundMail.status == "pending")
                )
            return filed == len(sent) and open_ == 0 and unsent == 0

        wait_until(settled, 60, "every mail filed, processed and answered")
        assert daemon.stop() == 0
        # No worker process outlived its daemon, whenever the kill came.
        wait_until(lambda: daemon.processes() == [], 10, "every daemon process to be gone")
    finally:
        stop.set()
        daemon.kill()
    # The safety net never caught anything: no mail processing failed.
    assert "processing mail" not in daemon.log()

    rows = desk.mails()
    # No mail lost, none filed twice; all processed, none by the safety net.
    assert sorted(r.message_id or "" for r in rows) == sorted(sent)
    assert {r.status for r in rows} == {"answered"}, [r.outcome for r in rows]
    assert mail_lab.count(desk.address) == 0
    assert mail_lab.count(desk.address, "pbem-processed") == len(sent)

    # Every accepted order set is sealed exactly once; nothing else left a plot.
    with desk.sessions() as s:
        plots_by_mail: dict[int | None, int] = defaultdict(int)
        for mail_id in s.scalars(select(Plot.mail_id)):
            plots_by_mail[mail_id] += 1
    accepted = [r for r in rows if r.outcome.startswith("accepted")]
    assert len(accepted) >= MAILS // 2
    assert {r.id: plots_by_mail[r.id] for r in accepted} == {r.id: 1 for r in accepted}
    assert sum(n for mail_id, n in plots_by_mail.items() if mail_id is not None) == len(accepted)

    # Each order mail has exactly one answer Message-ID among delivered mail.
    ids_by_parent: dict[str, set[str]] = defaultdict(set)
    for _, player in seats:
        for msg in answers(delivered(mail_lab, player.address)):
            ids_by_parent[str(msg["In-Reply-To"])].add(str(msg["Message-ID"]))
    assert set(ids_by_parent) == set(sent)
    assert all(len(ids) == 1 for ids in ids_by_parent.values()), ids_by_parent
    assert daemon.starts == KILLS + 1


def _daemon_with_workers(
    mail_lab: MailLab, url: str, tmp_path: Path, game: str
) -> tuple[ModeratorDesk, list[Player], DaemonProcess]:
    """A running demo game and a started daemon with two worker processes."""
    desk = moderator_desk(mail_lab, url, tmp_path, workers=2)
    players = [new_player(mail_lab, side, prefix=game) for side in ("north", "south")]
    desk.demo_game(game, players, scenario="long-duel", early_adjudication=False)
    daemon = DaemonProcess(desk, tmp_path)
    daemon.start()
    return desk, players, daemon


def _send_orders(
    mail_lab: MailLab, desk: ModeratorDesk, players: list[Player], game: str, rounds: int
) -> int:
    """Each player sends ``rounds`` order mails; returns how many were sent."""
    for n, player in enumerate(players * rounds):
        body = signed(player, game, [f"SEND SQN-{1 + n % 3} A"])
        submit(mail_lab, compose(player.address, desk.address, f"orders {n}", body))
    return len(players) * rounds


def _workers(daemon: DaemonProcess) -> list[int]:
    return [
        pid
        for pid in daemon.processes()
        if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]


def _niceness(pid: int) -> int:
    # /proc/PID/stat: the 19th field, counted after the command's closing bracket.
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def _all_answered(desk: ModeratorDesk, count: int) -> bool:
    return [r.status for r in desk.mails()] == ["answered"] * count


def test_worker_processes_die_with_a_killed_daemon(
    mail_lab: MailLab, sqlite_url: str, tmp_path: Path
) -> None:
    desk, players, daemon = _daemon_with_workers(mail_lab, sqlite_url, tmp_path, "orphan")
    try:
        daemon.wait_ready()
        sent = _send_orders(mail_lab, desk, players, "orphan", 1)
        wait_until(lambda: _all_answered(desk, sent), 30, "the mails answered by the workers")
        assert len(daemon.processes()) >= 3  # the daemon, its two workers (and a tracker)
        # The workers yield the cores to the daemon's loop (fetching, answers, sending).
        assert daemon.process is not None
        workers = _workers(daemon)
        assert [_niceness(pid) for pid in workers] == [_niceness(daemon.process.pid) + 5] * 2
        daemon.kill()
        wait_until(lambda: daemon.processes() == [], 10, "the worker processes to die")
    finally:
        daemon.kill()


def test_a_worker_process_that_dies_is_replaced_and_its_mail_processed(
    mail_lab: MailLab, sqlite_url: str, tmp_path: Path
) -> None:
    desk, players, daemon = _daemon_with_workers(mail_lab, sqlite_url, tmp_path, "phoenix")
    try:
        daemon.wait_ready()
        assert daemon.process is not None
        workers = _workers(daemon)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        sent = _send_orders(mail_lab, desk, players, "phoenix", 2)
        wait_until(
            lambda: _all_answered(desk, sent),
            60,
            "every mail answered after a worker process died",
        )
        assert daemon.process.poll() is None  # the daemon itself carried on
        assert "worker process died; restarting the pool" in daemon.log()
    finally:
        daemon.kill()


def test_worker_processes_die_with_a_daemon_killed_while_they_start(
    mail_lab: MailLab, sqlite_url: str, tmp_path: Path
) -> None:
    """Killed before its workers have run a line of pbem, the daemon takes them along:
    they are stopped (SIGSTOP) as soon as they exist, so only a death signal set
    before they ran (not one they would ask for after their imports) can end them."""
    desk = moderator_desk(mail_lab, sqlite_url, tmp_path, workers=2)
    daemon = DaemonProcess(desk, tmp_path)
    stopped: set[int] = set()

    def stop_new_workers() -> bool:
        for pid in daemon.processes():
            if pid in stopped:
                continue
            try:
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGSTOP)
                    stopped.add(pid)
            except (OSError, ProcessLookupError):
                continue
        return len(stopped) >= 2

    daemon.start()
    try:
        wait_until(stop_new_workers, 60, "two worker processes to exist")
        assert "pbem daemon ready" not in daemon.log()  # still starting up
        daemon.kill()
        wait_until(lambda: not stopped & set(daemon.processes()), 10, "the workers to die")
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGCONT)
        daemon.kill()
