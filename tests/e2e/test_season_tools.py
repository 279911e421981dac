"""Issue 18, "Tools to run a season", end to end: a real ``pbem serve`` on the lab's
Dovecot and SMTP server; the moderator works by signed mail and by ``pbem mod``,
players only mail; the dashboard is read in headless Chromium.

Two games of the demonstration ruleset: g1 is played (both sides in, adjudicated,
disputed, ruled, ended); in g2 south misses a very short deadline and is late
during a long grace period. An observer seated twice gets one copy; an observer
at an address the SMTP server refuses makes a mail that failed for good.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import wait_until
from tests.e2e.test_archive_site import browse
from tests.e2e.test_game_by_mail import Person, Table, orders, person, sheet
from tests.maillab import DOMAIN, MailLab

WAIT = 150.0


def command(table: Table, lines: list[str], subject: str = "commands") -> str:
    """A signed command mail from the moderator; its answer, lines joined."""
    return table.answer(
        table.umpire, table.send(table.umpire, sheet("g1", "moderator", 1, "x", lines), subject)
    )


def cli(table: Table, *words: str) -> str:
    done = table.pbem_cli("mod", *words)
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_refused(table: Table, *words: str) -> str:
    done = table.pbem_cli("mod", *words)
    assert done.returncode == 1, done.stdout
    return done.stderr


def plain_mail(table: Table, sender: Person, text: str) -> str:
    """A mail without any order block, as a player writes to his umpire."""
    import email.policy
    import smtplib
    from email.message import EmailMessage
    from email.utils import make_msgid

    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = sender.address
    msg["To"] = table.pbem.address
    msg["Subject"] = "away next week"
    msg["Message-ID"] = make_msgid(domain="pbem.test")
    msg.set_content(text)
    with smtplib.SMTP("127.0.0.1", table.lab.smtp_port, timeout=10) as smtp:
        smtp.send_message(msg)
    return str(msg["Message-ID"])


def count(table: Table, who: Person, subject_part: str) -> int:
    return sum(subject_part in str(m["Subject"]) for m in table.mailbox(who))


class Dashboard:
    """``pbem mod dashboard --port 0`` as a child process; its URL from its first line."""

    def __init__(self, table: Table) -> None:
        self.log = (table.folder / "dashboard.log").open("wb")  # its request log (stderr)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pbem", "-c", str(table.config), "mod", "dashboard", "--port=0"],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            cwd=table.folder,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()  # blocks until the port is bound
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", first)
        assert found, first
        self.url = found.group(1)

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        assert self.process.stdout is not None
        self.process.stdout.close()
        self.log.close()


@pytest.fixture
def table(mail_lab: MailLab, tmp_path: Path, database_url: str) -> Iterator[Table]:
    t = Table(mail_lab, tmp_path, database_url)
    t.start()
    try:
        yield t
    finally:
        t.stop()


def test_season_tools_by_mail_and_cli_and_the_dashboard(
    table: Table, mail_lab: MailLab, tmp_path: Path
) -> None:
    north, south = person(mail_lab, "north"), person(mail_lab, "south")
    watcher = person(mail_lab, "watcher")
    nobody = f"nobody-here@{DOMAIN}"  # no such mailbox: the SMTP server refuses it for good
    setup = command(
        table,
        [
            "CREATE g1 demo duel early_adjudication=true",
            "CREATE g2 demo duel deadline_hours=0.0003 grace_hours=2",
            *(
                f"ASSIGN {g} {side} {p.address} {p.public}"
                for g in ("g1", "g2")
                for side, p in (("north", north), ("south", south))
            ),
            f"OBSERVE g1 {watcher.address} north",
            f"OBSERVE g1 {watcher.address.upper()} north",  # the same address again
            f"OBSERVE g1 {nobody}",
            "START g1",
            "START g2",
        ],
    )
    assert "Refused" not in setup, setup
    table.report(north, 1)
    table.report(south, 1)

    # ------------------------------------------------ reading: LIST, SEATS (mail)
    table.answer(north, table.send(north, sheet("g2", "north", 1, "plot", orders("A"))))
    # g2's deadline is a second after START: wait for it to pass (an event, not a sleep).
    late_g2 = re.compile(r"g2 \(demo duel\): running, turn 1 plot, deadline [^;]+; LATE: south")
    wait_until(lambda: bool(late_g2.search(cli(table, "LIST"))), WAIT, "g2's deadline to pass")
    seen = command(table, ["LIST", "SEATS g1"])
    assert "g1 (demo duel): running, turn 1 plot" in seen
    assert "awaiting: north, south" in seen  # g1: a deadline days away
    assert late_g2.search(seen)
    assert f"north player: {north.address}, key ed25519 SHA256:" in seen
    assert f"observer (north): {watcher.address}" in seen
    assert seen.count(watcher.address) == 1  # seated once
    assert "time zone UTC" in seen

    # ------------------------------------------------ a player's plain mail
    note = plain_mail(table, south, "I am travelling next week; may I have two more days?")
    heard = table.answer(south, note)
    assert "went to the human moderator of g1, g2" in heard
    forwarded = table.notice(table.umpire, f"mail from {south.address}")
    assert "I am travelling next week; may I have two more days?" in forwarded
    assert "south player in g1; south player in g2" in forwarded

    # ------------------------------------------------ MESSAGE by mail and by CLI
    sent = command(table, ['MESSAGE g2 south "Two more days, then standing orders."'])
    assert f"mailed to {south.address}" in sent
    assert "Two more days, then standing orders." in table.notice(south, "from the moderator")
    assert "mailed to" in cli(table, "MESSAGE", "g1", "all", "Season", "two", "starts", "now")
    for who in (north, south, watcher):
        assert "Season two starts now" in table.notice(who, "from the moderator")

    # ------------------------------------------------ turn 1 of g1, a dispute
    table.send(north, sheet("g1", "north", 1, "plot", orders("A", "B")))
    table.send(south, sheet("g1", "south", 1, "plot", orders("C")))
    turn2 = table.report(north, 2)
    table.report(south, 2)
    table.report(watcher, 2)
    assert count(table, watcher, "turn 2") == 1  # one copy for the observer seated twice
    dispute = table.send(south, sheet("g1", "south", 1, "plot", ["DISPUTE SQN-1 should be in C"]))
    assert "filed as number" in table.answer(south, dispute)
    table.notice(table.umpire, "dispute 1")
    assert "#1 OPEN by south on turn 1 plot" in cli(table, "DISPUTES", "g1")
    ruled = command(table, ["RULE g1 1 DISMISSED the move stands", "DISPUTES"])
    assert "g1: 0 open, 1 ruled" in ruled and "ruling: the move stands" in ruled

    # ------------------------------------------------ RESEND (CLI), a copy marked as such
    assert f"resent to {north.address}" in cli(table, "RESEND", "g1", "north", "2", "plot")
    copy = table.notice(north, "RESENT")
    assert "RESENT at the moderator's request" in copy
    assert turn2.strip().splitlines()[0] in copy

    # ------------------------------------------------ SET, DELETE, UNOBSERVE
    changed = command(table, ["SET g2 grace_hours=3 max_pauses=4 south travels"])
    assert "g2: grace_hours=3.0, max_pauses=4 (south travels)" in changed
    refusal = command(table, ["SET g2 colour=red"])
    assert "SET cannot change 'colour'; it takes: deadline_hours" in refusal
    assert "must be above 0" in cli_refused(table, "SET", "g2", "deadline_hours=-1")
    assert "only a game not started" in command(table, ["DELETE g1"])
    assert "created" in cli(table, "CREATE", "g3", "demo", "duel")
    assert "game g3 deleted" in cli(table, "DELETE", "g3")
    assert "no game 'g3'" in cli_refused(table, "STATUS", "g3")
    gone = command(table, [f"UNOBSERVE g1 {watcher.address}"])
    assert f"{watcher.address} no longer observes g1" in gone

    # ------------------------------------------------ the dashboard in Chromium
    board = Dashboard(table)
    try:
        # The observer the SMTP server refused: mail that failed for good.
        deadline = time.monotonic() + WAIT
        while True:
            dom = browse(board.url, tmp_path / "profile1", "--dump-dom").stdout
            if nobody in dom or time.monotonic() > deadline:
                break
            time.sleep(1)
        games = dom.split('id="games"')[1].split("</section>")[0]
        assert 'id="game-g1"' in games and 'id="game-g2"' in games and "g3" not in games
        assert re.search(r'<span class="late">south: LATE</span>', games)
        late = dom.split('id="late"')[1].split("</section>")[0]
        assert "g2: south owes orders for turn 1 plot" in late
        disputes = dom.split('id="disputes"')[1].split("</section>")[0]
        assert "DISPUTE SQN-1 should be in C" in disputes and "the move stands" in disputes
        failed = dom.split('id="failed-mail"')[1].split("</section>")[0]
        assert nobody in failed and "550" in failed
        # Built afresh on each request: a change shows on the next load.
        cli(table, "END", "g2", "south", "never", "came", "back")
        dom = browse(board.url, tmp_path / "profile2", "--dump-dom").stdout
        row = dom.split('id="game-g2"')[1].split("</tr>")[0]
        assert "over" in row and "south never came back" in row
        shot = tmp_path / "dashboard.png"
        browse(board.url, tmp_path / "profile3", f"--screenshot={shot}", "--window-size=1200,900")
        assert shot.read_bytes().startswith(b"\x89PNG")
        if os.environ.get("PBEM_SCREENSHOT_DIR"):
            (Path(os.environ["PBEM_SCREENSHOT_DIR"]) / "dashboard.png").write_bytes(
                shot.read_bytes()
            )
    finally:
        board.close()

    # ------------------------------------------------ STATUS of a finished game, AUDIT
    assert "outcome: ended by the moderator: south never came back" in command(table, ["STATUS g2"])
    audit = cli(table, "AUDIT", "g2")
    assert "END: south never came back" in audit and "SET grace_hours: 2.0 -> 3.0" in audit
    by_mail = command(table, ["AUDIT g1"])
    for act in ("CREATE demo duel", "OBSERVE", "RULE dispute 1 dismissed", "RESEND report"):
        assert act in by_mail, act
    assert "UNOBSERVE" in by_mail and "MESSAGE to all" in by_mail


@pytest.fixture(autouse=True)
def _only_the_test_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    # The subprocesses must read only the test's configuration file.
    for name in list(os.environ):
        if name.startswith("PBEM_") and name != "PBEM_SCREENSHOT_DIR":
            monkeypatch.delenv(name)
