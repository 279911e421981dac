"""Issue 3 end to end: a whole game run by signed mail through a real ``pbem serve``.

The daemon reads its IMAP inbox on the lab's Dovecot and mails through the lab's
SMTP server; the moderator and both players only ever send signed mail and read
their own mailboxes. The game (the demonstration ruleset, three turns):

- the moderator creates it by mail: CREATE, ASSIGN (keys, time zones), OBSERVE
  (one observer of north, one omniscient), START, EXTEND;
- turn 1: north sends two order sets (the second replaces the first), south one;
  all in, so the phase is adjudicated early;
- turn 2: a short real deadline; south sends nothing, is reminded, and the
  no-orders policy (standing orders) applies when deadline and grace pass;
- south disputes turn 2; the moderator rules UPHELD, rolls back to turn 2 (north's
  orders locked; south, who sent none, may plot, so a new seed), makes a
  correcting EDIT and adjudicates again, all by mail;
- turn 3: a forged moderator command, orders for the wrong phase and a replaced
  player's old key are refused; the new player and north finish the game;
- the archive is exported, ``pbem verify`` passes on it, then fails, naming the
  problem, on copies with a die roll, an order or a hash tampered with.

A second game (issue 13): orders with a refused line hold the round open for a
corrected mail or DONE.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import itertools
import json
import os
import re
import shutil
import signal
import smtplib
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest

from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.record.chain import GENESIS, entry_hash
from pbem.secrecy.plots import PlotContent
from tests.maillab import MailLab

REPO = Path(__file__).resolve().parents[2]
_names = itertools.count(1)
WAIT = 150.0  # seconds: generous, the lab may share the machine with other tests

# Every phase but turn 2 is extended by an hour at once, so only turn 2 runs out.
# The daemon looks at games no mail named on a sweep every 30 s (pbem.service.work),
# so the reminder window (9 s to 57.6 s after the phase opens) holds a sweep for sure.
DEADLINE_HOURS = 0.015  # 54 s
GRACE_HOURS = 0.001  # 3.6 s
REMINDER_HOURS = 0.0125  # reminded 45 s before the deadline


@dataclass
class Person:
    address: str
    key: bytes
    public: str


def person(lab: MailLab, name: str) -> Person:
    address = lab.add_user(f"bymail-{name}{next(_names)}", "pw")  # unique in the shared lab
    key, public = generate_keypair(address.partition("@")[0])
    return Person(address, key, public)


class Table:
    """The moderator's daemon, and what each person sends and finds in his mailbox."""

    def __init__(self, lab: MailLab, folder: Path, database_url: str) -> None:
        self.lab = lab
        self.folder = folder
        self.pbem = person(lab, "pbem")  # the daemon's own mailbox
        self.umpire = person(lab, "umpire")  # the human moderator
        self.config = folder / "pbem.toml"
        self.config.write_text(
            f"""\
[moderator]
address = "{self.pbem.address}"
human = "{self.umpire.address}"
public_key = "{self.umpire.public}"
[database]
url = "{database_url}"
[secrets]
plot_key = "{base64.b64encode(os.urandom(32)).decode()}"
[intake]
transport = "imap"
poll_interval = 0.3
rate_limit = 1000
[imap]
host = "127.0.0.1"
port = {lab.imap_port}
user = "{self.pbem.address}"
password = "pw"
[outbox]
transport = "smtp"
retry_base = 1.0
[smtp]
host = "127.0.0.1"
port = {lab.smtp_port}
[log]
level = "INFO"
"""
        )
        self.log = folder / "daemon.log"
        self.daemon: subprocess.Popen[bytes] | None = None
        self.seen: set[str] = set()

    def pbem_cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pbem", "-c", str(self.config), *args],
            capture_output=True,
            text=True,
            cwd=self.folder,
            timeout=120,
        )

    def start(self) -> None:
        upgraded = self.pbem_cli("db", "upgrade")
        assert upgraded.returncode == 0, upgraded.stderr
        with self.log.open("wb") as log:
            self.daemon = subprocess.Popen(
                [sys.executable, "-m", "pbem", "-c", str(self.config), "serve"],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
            )

    def stop(self) -> None:
        if self.daemon is None or self.daemon.poll() is not None:
            return
        self.daemon.send_signal(signal.SIGTERM)
        try:
            self.daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            self.daemon.wait()

    def log_tail(self) -> str:
        """The daemon's log, without the IMAP library's and the sender's chatter."""
        if not self.log.exists():
            return ""
        lines = self.log.read_text(errors="replace").splitlines()
        quiet = [ln for ln in lines if "aioimaplib" not in ln and "sent mail from" not in ln]
        return "\n".join(quiet[-40:])

    # ---------------------------------------------------------------- mail

    def send(self, sender: Person, sheet: str, subject: str = "orders") -> str:
        """A signed block mailed as a mail client does; returns its Message-ID."""
        msg = EmailMessage(policy=email.policy.SMTP)
        msg["From"] = sender.address
        msg["To"] = self.pbem.address
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain="pbem.test")
        msg.set_content(
            "Here you are.\n\n" + sign_block(add_nonce(sheet), sender.key), cte="quoted-printable"
        )
        with smtplib.SMTP("127.0.0.1", self.lab.smtp_port, timeout=10) as smtp:
            smtp.send_message(msg)
        return str(msg["Message-ID"])

    def mailbox(self, who: Person) -> list[EmailMessage]:
        out = []
        for raw in self.lab.list_messages(who.address):
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            out.append(msg)
        return out

    def wait_for(
        self, who: Person, what: str, match: Callable[[EmailMessage], bool]
    ) -> EmailMessage:
        """The first mail to ``who`` not taken before that ``match``es."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            assert self.daemon is not None and self.daemon.poll() is None, (
                f"the daemon died:\n{self.log_tail()}"
            )
            for msg in self.mailbox(who):
                mid = str(msg["Message-ID"])
                if mid not in self.seen and match(msg):
                    self.seen.add(mid)
                    return msg
            time.sleep(0.2)
        raise AssertionError(f"no {what} for {who.address} in {WAIT} s\n{self.log_tail()}")

    def answer(self, who: Person, message_id: str) -> str:
        """The answer to one mail, its lines joined (answers wrap long sentences)."""
        msg = self.wait_for(who, "answer", lambda m: m["In-Reply-To"] == message_id)
        return " ".join(text_of(msg).split())

    def report(self, who: Person, turn: int | None) -> str:
        """The next report that opens a phase of ``turn`` (its subject names the phase
        reported on, then "next turn N ..."), or the final one (``None``)."""
        want = "game over" if turn is None else f"next turn {turn} "

        def match(m: EmailMessage) -> bool:
            return str(m["Message-ID"]).startswith("<pbem.report.") and want in str(m["Subject"])

        return text_of(self.wait_for(who, f"report ({want.strip()})", match))

    def notice(self, who: Person, words: str) -> str:
        def match(m: EmailMessage) -> bool:
            return str(m["Message-ID"]).startswith("<pbem.") and words in str(m["Subject"])

        return text_of(self.wait_for(who, repr(words), match))


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def sheet(game: str, side: str, turn: int, phase: str, lines: Sequence[str]) -> str:
    return f"Game: {game}\nSide: {side}\nTurn: {turn}\nPhase: {phase}\n\n" + "\n".join(lines)


def orders(*zones: str) -> list[str]:
    return [f"SEND SQN-{i} {zone}" for i, zone in enumerate(zones, start=1)]


def commitment_in(answer: str) -> str:
    found = re.search(r"Commitment: ([0-9a-f]{64})", answer)
    assert found, answer
    return found.group(1)


def all_done(answer: str) -> None:
    assert "Refused (" not in answer and "could not be used" not in answer, answer
    assert "FAILED" not in answer and "nothing done" not in answer, answer


# ------------------------------------------------------------------ the game


def test_game_by_mail_missed_deadline_dispute_rollback_and_verify(
    mail_lab: MailLab, tmp_path: Path, database_url: str
) -> None:
    table = Table(mail_lab, tmp_path, database_url)
    north, south, south2 = (person(mail_lab, n) for n in ("north", "south", "southtwo"))
    watcher, all_seeing = person(mail_lab, "watcher"), person(mail_lab, "allseeing")
    umpire = table.umpire
    table.start()
    try:
        # --------------------------------------------- created by the moderator, by mail
        setup = table.send(
            umpire,
            sheet(
                "g1",
                "moderator",
                1,
                "setup",
                [
                    f"CREATE g1 demo duel deadline_hours={DEADLINE_HOURS} "
                    f"grace_hours={GRACE_HOURS} reminder_hours={REMINDER_HOURS}",
                    f"ASSIGN g1 north {north.address} {north.public} tz=Europe/Berlin",
                    f"ASSIGN g1 south {south.address} {south.public} tz=America/New_York",
                    f"OBSERVE g1 {watcher.address} north",
                    f"OBSERVE g1 {all_seeing.address}",
                    "START g1",
                    "EXTEND g1 1",
                ],
            ),
            "new game",
        )
        answer = table.answer(umpire, setup)
        all_done(answer)
        assert "game g1 started; turn 1 phase plot open" in answer

        # --------------------------------------------- turn 1: two sets from north
        north_report = table.report(north, 1)
        assert "SEND SQN-1" in north_report  # the order form
        # Times are shown in each player's own zone.
        assert re.search(r" \d\d:\d\d CES?T\b", north_report)  # Europe/Berlin
        assert re.search(r" \d\d:\d\d E[SD]T\b", table.report(south, 1))  # America/New_York
        table.report(watcher, 1)
        table.report(all_seeing, 1)

        first = table.answer(
            north, table.send(north, sheet("g1", "north", 1, "plot", orders("A", "A", "C")))
        )
        assert "Accepted (3)" in first and "replace" not in first
        second = table.answer(
            north, table.send(north, sheet("g1", "north", 1, "plot", orders("B", "B", "B")))
        )
        assert "they replace the set you sent before" in second
        north_commitment = commitment_in(second)
        assert north_commitment != commitment_in(first)
        south_answer = table.answer(
            south, table.send(south, sheet("g1", "south", 1, "plot", orders("C", "C", "C")))
        )
        south_commitment = commitment_in(south_answer)

        # --------------------------------------------- views per audience after turn 1
        north_view = table.report(north, 2)
        watcher_view = table.report(watcher, 2)
        omniscient_view = table.report(all_seeing, 2)
        south_view = table.report(south, 2)
        south_lines, north_lines = orders("C", "C", "C"), orders("B", "B", "B")
        for own, secret, text in (
            (north_lines, south_lines, north_view),
            (north_lines, south_lines, watcher_view),  # the observer of north sees what north sees
            (south_lines, north_lines, south_view),
        ):
            assert all(line in text for line in own), text
            assert not any(line in text for line in secret), text
        assert all(line in omniscient_view for line in north_lines + south_lines)

        # --------------------------------------------- turn 2: south misses the deadline
        sent = table.answer(
            north, table.send(north, sheet("g1", "north", 2, "plot", orders("A", "B", "C")))
        )
        assert "Accepted (3)" in sent
        reminder = table.notice(south, "reminder")
        assert "turn 2" in reminder
        table.report(north, 3)  # adjudicated once deadline and grace passed
        table.report(south, 3)  # taken now, so the turn-3 reports awaited below are new ones
        assert not any("reminder" in str(m["Subject"]) for m in table.mailbox(north))

        # --------------------------------------------- a dispute, upheld with a rollback
        disputed = table.send(
            south,
            sheet(
                "g1",
                "south",
                2,
                "plot",
                ["DISPUTE SQN-3 was refitting at strength 2; my standing orders used strength 1"],
            ),
            "dispute",
        )
        assert "Your dispute is filed as number" in table.answer(south, disputed)
        notice = table.notice(umpire, "dispute")
        dispute_id = re.search(r"RULE g1 (\d+) UPHELD", notice)  # the ruling to write
        assert dispute_id, notice
        # The moderator gets the phase's full record: both plots, the seed, the dice.
        assert '"policy:standing"' in notice and "SEND SQN-2 B" in notice and '"seed"' in notice
        ruling = table.send(
            umpire,
            sheet(
                "g1",
                "moderator",
                3,
                "ruling",
                [
                    f"RULE g1 {dispute_id.group(1)} UPHELD SQN-3 fought at the wrong strength",
                    "ROLLBACK g1 2 plot",
                    "EDIT g1 /forces/south/SQN-3 2",
                    # south sent no orders for turn 2: the rollback told it may; NOW
                    # adjudicates without waiting for them
                    "ADJUDICATE g1 NOW",
                    "EXTEND g1 1",
                ],
            ),
            "ruling",
        )
        answer = table.answer(umpire, ruling)
        all_done(answer)
        assert "set to 2 (was 1); recorded as a correcting edit" in answer
        for player in (north, south):
            assert "UPHELD" in table.notice(player, "upheld")
            table.report(player, 3)  # turn 3 again, from the corrected turn 2

        # --------------------------------------------- turn 3: bad input, then the end
        forged = table.send(north, sheet("g1", "moderator", 3, "plot", ["END g1 north wins"]))
        assert "not signed with the moderator's key" in table.answer(north, forged)
        stale = table.send(north, sheet("g1", "north", 1, "plot", orders("A", "A", "A")))
        assert "the phase now open is turn 3 phase plot" in table.answer(north, stale)
        takeover = table.send(
            umpire,
            sheet(
                "g1",
                "moderator",
                3,
                "takeover",
                [f"REPLACE g1 south {south2.address} {south2.public} tz=Asia/Tokyo"],
            ),
        )
        all_done(table.answer(umpire, takeover))
        old_key = table.send(south, sheet("g1", "south", 3, "plot", orders("A", "A", "A")))
        assert "was retired from game g1" in table.answer(south, old_key)
        assert "Accepted (3)" in table.answer(
            south2, table.send(south2, sheet("g1", "south", 3, "plot", orders("B", "A", "C")))
        )
        assert "Accepted (3)" in table.answer(
            north, table.send(north, sheet("g1", "north", 3, "plot", orders("C", "C", "C")))
        )
        for reader in (north, south2, watcher, all_seeing):
            assert "GAME OVER" in table.report(reader, None).upper()
    finally:
        table.stop()

    # ------------------------------------------------- export and verify
    archive = tmp_path / "archive"
    exported = table.pbem_cli("archive", "export", "g1", "--out", str(archive))
    assert exported.returncode == 0, exported.stderr
    verified = table.pbem_cli("verify", str(archive))
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith("OK:")
    entries = read_record(archive)
    check_record(entries, north_commitment, south_commitment)
    check_reports_match_record(archive, entries)

    # ------------------------------------------------- tampered copies fail, loudly
    for name, tamper, problem in TAMPERINGS:
        copy = tmp_path / f"tampered-{name}"
        shutil.copytree(archive, copy)
        write_record(copy, tamper(read_record(copy)))
        result = table.pbem_cli("verify", str(copy))
        assert result.returncode == 1, f"{name}: verify passed a tampered archive"
        assert "FAILED" in result.stderr and re.search(problem, result.stderr), (
            f"{name}: {result.stderr}"
        )


# ------------------------------------------------------------------ the record


def test_refused_lines_hold_the_round_until_corrected_or_done(
    mail_lab: MailLab, tmp_path: Path, database_url: str
) -> None:
    """Issue 13: a mail with a refused line seals the accepted lines but does not
    complete the round, though the other side is in: the player corrects it (turn 1)
    or says DONE (turn 2), and only then is the phase adjudicated."""
    table = Table(mail_lab, tmp_path, database_url)
    north, south = (person(mail_lab, n) for n in ("north", "south"))
    table.start()
    try:
        setup = table.send(
            table.umpire,
            sheet(
                "g2",
                "moderator",
                1,
                "setup",
                [
                    "CREATE g2 demo duel",
                    f"ASSIGN g2 north {north.address} {north.public}",
                    f"ASSIGN g2 south {south.address} {south.public}",
                    "START g2",
                ],
            ),
            "new game",
        )
        all_done(table.answer(table.umpire, setup))
        table.report(north, 1)
        for turn, finish in ((1, orders("B", "B", "B")), (2, ["DONE"])):
            held = table.answer(
                north,
                table.send(
                    north, sheet("g2", "north", turn, "plot", [*orders("A"), "SEND SQN-9 B"])
                ),
            )
            assert "Accepted (1)" in held and "line 2: SEND SQN-9 B" in held, held
            assert "The round waits for you: line 2 was refused" in held, held
            assert "a mail with the single line DONE" in held, held
            # South completes the round; held for north, it is not adjudicated ...
            in_time = table.answer(
                south, table.send(south, sheet("g2", "south", turn, "plot", orders("C", "C")))
            )
            assert "Accepted (2)" in in_time and "round waits" not in in_time, in_time
            # ... so north's next mail is still taken for this turn, and closes it.
            closed = table.answer(
                north, table.send(north, sheet("g2", "north", turn, "plot", finish))
            )
            assert "could not be used" not in closed and "round waits" not in closed, closed
            assert "round no longer waits" in closed or "replace the set" in closed, closed
            table.report(north, turn + 1)  # adjudicated only now
        assert "DONE. The orders you sent before stand as sealed" in closed, closed
        assert commitment_in(held) == commitment_in(closed)
    finally:
        table.stop()


def read_record(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "record.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def write_record(folder: Path, entries: list[dict[str, Any]]) -> None:
    with (folder / "record.jsonl").open("w", encoding="utf-8") as f:
        for e in entries:
            f.write(json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n")


def adjudications(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["payload"] for e in entries if e["kind"] == "phase-adjudicated"]


def check_record(entries: list[dict[str, Any]], north_c: str, south_c: str) -> None:
    kinds = {e["kind"] for e in entries}
    for kind in (
        "game-created",
        "player-assigned",
        "observer-added",
        "deadline-extended",
        "orders-sealed",
        "report-queued",
        "mail-refused",
        "dispute-filed",
        "dispute-ruled",
        "rolled-back",
        "state-edited",
        "player-replaced",
        "game-over",
    ):
        assert kind in kinds, kind
    phases = adjudications(entries)
    turn1 = phases[0]
    # The receipts' commitments are the revealed plots: orders and nonce re-hashed.
    for side, commitment, lines in (
        ("north", north_c, orders("B", "B", "B")),
        ("south", south_c, orders("C", "C", "C")),
    ):
        plot = turn1["plots"][side]
        assert plot["commitment"] == commitment and plot["orders"] == lines
        content = PlotContent("g1", side, 1, "plot", tuple(plot["orders"]), plot["nonce"])
        assert content.commitment() == commitment
    # Turn 2 twice: before and after the rollback, south on standing orders (its
    # turn-1 orders) both times; the edit changed the result. South had sent nothing,
    # so it could have sent orders after the rollback: the phase got a new seed
    # (issue 18: dice printed in the reports never meet fresh orders).
    turn2 = [p for p in phases if p["turn"] == 2]
    assert len(turn2) == 2 and turn2[0]["epoch"] < turn2[1]["epoch"]
    assert turn2[0]["seed"] != turn2[1]["seed"]
    rolled = next(e["payload"] for e in entries if e["kind"] == "rolled-back")
    assert rolled["fresh_seed"] and not rolled["replot"]
    for p in turn2:
        assert p["plots"]["south"]["source"] == "policy:standing"
        assert p["plots"]["south"]["orders"] == orders("C", "C", "C")
    assert turn2[0]["state_hash"] != turn2[1]["state_hash"]  # the correcting edit
    refused = [e["payload"] for e in entries if e["kind"] == "mail-refused"]
    reasons = " | ".join(r["reason"] for r in refused)
    assert "not-moderator" in reasons and "retired-key" in reasons and "turn 1" in reasons
    # A refused mail is recorded, never its orders.
    assert not any("SEND" in json.dumps(r) for r in refused)
    edit = next(e["payload"] for e in entries if e["kind"] == "state-edited")
    assert (edit["pointer"], edit["old"], edit["value"]) == ("/forces/south/SQN-3", 1, 2)


def check_reports_match_record(folder: Path, entries: list[dict[str, Any]]) -> None:
    """Every report-queued entry names the SHA-256 of a report kept in the archive;
    every delivery recorded is of a report queued."""
    sent = [e["payload"] for e in entries if e["kind"] == "report-queued"]
    delivered = {e["payload"]["message_id"] for e in entries if e["kind"] == "report-delivered"}
    assert delivered <= {s["message_id"] for s in sent}
    kept = {
        hashlib.sha256(p.read_text(encoding="utf-8").encode("utf-8")).hexdigest()
        for p in (folder / "reports").glob("*.txt")
    }
    assert sent and {s["text_sha256"] for s in sent} <= kept
    assert {"north", "south", "omniscient"} <= {s["audience"] for s in sent}


def rechain(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a careful forger does after an edit: recompute every hash after it."""
    prev = GENESIS
    for e in entries:
        e["prev_hash"] = prev
        e["hash"] = entry_hash(e["seq"], e["at"], e["kind"], e["payload"], prev)
        prev = e["hash"]
    return entries


def _first_adjudication(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in entries if e["kind"] == "phase-adjudicated")


def change_roll(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    roll = _first_adjudication(entries)["payload"]["rolls"][0]
    roll[0] = roll[0] % 6 + 1
    return entries


def change_roll_rechained(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return rechain(change_roll(entries))


def change_order_rechained(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    plot = _first_adjudication(entries)["payload"]["plots"]["south"]
    plot["orders"][0] = "SEND SQN-1 A"
    return rechain(entries)


def change_hash(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    e = entries[len(entries) // 2]
    e["hash"] = hashlib.sha256(b"forged").hexdigest()
    return entries


def change_edit_rechained(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    edit = next(e for e in entries if e["kind"] == "state-edited")
    edit["payload"]["value"] = 3
    return rechain(entries)


TAMPERINGS: list[tuple[str, Callable[[list[dict[str, Any]]], list[dict[str, Any]]], str]] = [
    ("roll", change_roll, r"hash mismatch, content altered"),
    ("roll-rechained", change_roll_rechained, r"die rolls differ from the record"),
    ("order-rechained", change_order_rechained, r"south's plot does not match its commitment"),
    ("hash", change_hash, r"previous-hash link broken|hash mismatch"),
    ("edit-rechained", change_edit_rechained, r"the edit at /forces/south/SQN-3 gives another"),
]


@pytest.fixture(autouse=True)
def _only_the_test_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    # The daemon subprocess must read only the test's configuration file.
    for name in list(os.environ):
        if name.startswith("PBEM_"):
            monkeypatch.delenv(name)
