"""Issue 18 "wrong today", end to end through a real ``pbem serve`` and real mailboxes.

The moderator and the players send signed mail (the moderator also uses the CLI);
each reads only his own mailbox:

- a dispute naming what the other side must not know goes to the moderator
  only; each side gets the ruling written for it (RULE ... side="text");
- ROLLBACK ... REPLOT leaves the game held: orders sent meanwhile are refused
  and nothing is re-adjudicated, until RESUME (by CLI) mails each side the
  phase's new seed commitment and an order form; the next report shows that
  seed and says it is a corrected report;
- a command mail with an apostrophe in a reason fails at that line and runs
  nothing; a command from an unregistered address is refused and the moderator
  alerted at once; the moderator is never rate-limited;
- END (by CLI) sends the final reports; the record says who gave each command,
  by mail or CLI.
"""

from __future__ import annotations

import asyncio
import base64
import getpass
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import urllib.request
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
from PIL import Image
from sqlalchemy import select

from pbem.config import load_config
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import OutboundKind, OutboundStatus
from pbem.storage.models import ModeratorRead, OutboundMail
from tests.e2e.helpers import wait_until
from tests.e2e.test_archive_site import FLAGS, browse, chromium
from tests.e2e.test_game_by_mail import (
    Person,
    Table,
    all_done,
    orders,
    person,
    read_record,
    sheet,
)
from tests.e2e.test_season_tools import Dashboard
from tests.maillab import MailLab

RATE_LIMIT = 3  # players stay within it; the moderator sends more and is never limited
PUBLIC = {side: generate_keypair(side)[1] for side in ("north", "south")}


def test_rulings_rollback_hold_and_the_moderators_mail(
    mail_lab: MailLab, tmp_path: Path, database_url: str
) -> None:
    table = Table(mail_lab, tmp_path, database_url)
    table.config.write_text(
        table.config.read_text().replace("rate_limit = 1000", f"rate_limit = {RATE_LIMIT}")
    )
    north, south, press = (person(mail_lab, n) for n in ("north", "south", "press"))
    umpire = table.umpire
    table.start()
    try:
        setup = table.send(
            umpire,
            sheet(
                "g1",
                "moderator",
                1,
                "setup",
                [
                    "CREATE g1 demo duel deadline_hours=24",
                    f"ASSIGN g1 north {north.address} {north.public}",
                    f"ASSIGN g1 south {south.address} {south.public}",
                    f"OBSERVE g1 {press.address}",
                    "START g1",
                ],
            ),
        )
        all_done(table.answer(umpire, setup))
        for p in (north, south):
            table.report(p, 1)
        for p, side, zones in ((north, "north", "AAA"), (south, "south", "BBB")):
            assert "Accepted (3)" in table.answer(
                p, table.send(p, sheet("g1", side, 1, "plot", orders(*zones)))
            )
        for p in (north, south, press):
            table.report(p, 2)

        # ------------------------------------------------ 1. a dispute that names secrets
        secret = "DISPUTE my transport TK-7 landed the 4th Division in zone C"
        filed = table.answer(south, table.send(south, sheet("g1", "south", 1, "plot", [secret])))
        assert "Only the moderator reads it" in filed
        notice = table.notice(umpire, "dispute")
        assert "TK-7" in notice and 'north="..." south="..."' in notice
        number = re.search(r"RULE g1 (\d+) UPHELD", notice)
        assert number, notice

        # ------------------------------------------------ an apostrophe: nothing runs
        broken = table.send(
            umpire,
            sheet(
                "g1",
                "moderator",
                1,
                "ruling",
                [f"RULE g1 {number.group(1)} UPHELD the carrier's escort", "ROLLBACK g1 1 plot"],
            ),
        )
        answer = table.answer(umpire, broken)
        assert "Nothing was done" in answer and "apostrophe in double quotes" in answer
        assert "ROLLBACK g1 1 plot not run" in answer

        ruling = table.send(
            umpire,
            sheet(
                "g1",
                "moderator",
                1,
                "ruling",
                [
                    f'RULE g1 {number.group(1)} UPHELD north="A unit of the other side was '
                    'misplaced; turn 1 is plotted again" south="Your landing\'s zone is '
                    'corrected; plot turn 1 again"',
                    "ROLLBACK g1 1 plot REPLOT a landing was misplaced",
                ],
            ),
        )
        answer = table.answer(umpire, ruling)
        all_done(answer)
        assert "the game is held" in answer
        north_ruling = table.notice(north, "ruling on dispute")
        south_ruling = table.notice(south, "ruling on dispute")
        assert "misplaced" in north_ruling and "landing" not in north_ruling
        assert "landing's zone" in south_ruling and "misplaced" not in south_ruling
        for text in (north_ruling, south_ruling):
            assert "TK-7" not in text
        # Nothing of the dispute reached north in any mail.
        assert not any("TK-7" in str(m) for m in table.mailbox(north))
        rolled = table.notice(north, "rolled back")
        new_commitment = re.search(r"its commitment is ([0-9a-f]{64})", rolled)
        assert new_commitment, rolled

        # ------------------------------------------------ 2. held: no orders, no re-run
        held = table.answer(
            north, table.send(north, sheet("g1", "north", 1, "plot", orders("C", "C", "C")))
        )
        assert "is held by the moderator" in held
        status = table.pbem_cli("mod", "STATUS", "g1")
        assert "held (rollback to turn 1 phase plot), turn 1 plot" in status.stdout, status.stderr

        # ------------------------------------------------ 3. RESUME by CLI: seed and form
        resumed = table.pbem_cli("mod", "RESUME", "g1")
        assert resumed.returncode == 0 and "released" in resumed.stdout, resumed.stderr
        for p, side in ((north, "north"), (south, "south")):
            reopened = table.notice(p, "open again")
            assert new_commitment.group(1) in reopened
            assert "----- order form -----" in reopened and f"Side: {side}" in reopened
        for p, side, zones in ((north, "north", "CCC"), (south, "south", "ABC")):
            assert "Accepted (3)" in table.answer(
                p, table.send(p, sheet("g1", side, 1, "plot", orders(*zones)))
            )
        corrected = table.report(north, 2)
        assert "Corrected report: it replaces the report of turn 1 phase plot" in " ".join(
            corrected.split()
        )
        seed = re.search(r"\b([0-9a-f]{64})\b", corrected.split("Dice seed (now revealed):", 1)[1])
        assert seed and hashlib.sha256(bytes.fromhex(seed.group(1))).hexdigest() == (
            new_commitment.group(1)
        )

        # ------------------------------------------------ 5. an unregistered address
        intruder = person(mail_lab, "intruder")
        intruder.key, intruder.public = umpire.key, umpire.public  # the stolen key
        forged = table.send(intruder, sheet("g1", "moderator", 2, "x", ["END g1"]))
        assert "registered addresses" in table.answer(intruder, forged)
        assert intruder.address in table.notice(umpire, "ALERT")

        # ------------------------------------------------ 6. never rate-limited
        for _ in range(RATE_LIMIT):
            all_done(
                table.answer(
                    umpire, table.send(umpire, sheet("g1", "moderator", 2, "x", ["STATUS g1"]))
                )
            )

        # ------------------------------------------------ 4. END sends final reports
        ended = table.pbem_cli("mod", "END", "g1", "the season is over")
        assert ended.returncode == 0, ended.stderr
        for p in (north, south, press):
            assert "GAME OVER" in table.report(p, None).upper()
    finally:
        table.stop()

    archive = tmp_path / "archive"
    assert table.pbem_cli("archive", "export", "g1", "--out", str(archive)).returncode == 0
    acted = [e["payload"] for e in read_record(archive) if e["kind"] == "moderator-command"]
    assert {(a["command"], a["via"]) for a in acted} >= {
        ("CREATE", "mail"),
        ("RULE", "mail"),
        ("ROLLBACK", "mail"),
        ("RESUME", "cli"),
        ("END", "cli"),
    }
    assert all(a["by"] == umpire.address for a in acted if a["via"] == "mail")
    verified = table.pbem_cli("verify", str(archive))
    assert verified.returncode == 0, verified.stderr


# ---------------------------------------------------------------- the desk, closed


def _command(table: Table, lines: list[str], sender: Person | None = None) -> str:
    """A signed command mail (by default the moderator's); its answer, lines joined."""
    who = sender or table.umpire
    return table.answer(who, table.send(who, sheet("g1", "moderator", 1, "x", lines)))


def _cli(table: Table, *words: str, ok: bool = True) -> str:
    done = table.pbem_cli("mod", *words)
    assert (done.returncode == 0) == ok, (done.stdout, done.stderr)
    return done.stdout if ok else done.stderr


def _count(table: Table, who: Person, words: str) -> int:
    return sum(words in str(m["Subject"]) for m in table.mailbox(who))


def test_the_desk_closed_ended_games_stopped_states_replot_edit_and_the_record(
    mail_lab: MailLab, tmp_path: Path, database_url: str
) -> None:
    """By mail and by CLI: an ended game is closed to ROLLBACK but FORCE with a reason
    (the sides told they have seen everything; by mail and by CLI); LIST (by mail and
    by CLI), STATUS and the dashboard show a held, paused, waiting-for-ruling game as
    such; ADJUDICATE after ROLLBACK REPLOT waits unless NOW; EDIT changes existing
    values within the rules' ranges, one notice per seat per mail (in U.S.N. and War in
    the Pacific within its rules' checks, each refusal citing its rule); reads stay out
    of the record, kept in the audit store (AUDIT shows them; never exported), and the
    CLI's user and host out of both; a wrong key from the moderator's address alerts;
    a pause given by CLI ends at its cap, not at the next sweep."""
    table = Table(mail_lab, tmp_path, database_url)
    north, south, press = (person(mail_lab, n) for n in ("north", "south", "press"))
    umpire = table.umpire
    table.start()
    try:
        all_done(
            _command(
                table,
                [
                    "CREATE g1 demo duel deadline_hours=24",
                    f"ASSIGN g1 north {north.address} {north.public}",
                    f"ASSIGN g1 south {south.address} {south.public}",
                    f"OBSERVE g1 {press.address}",
                    "START g1",
                ],
            )
        )
        for p in (north, south):
            table.report(p, 1)

        # -------------------------------- a wrong key from the moderator's own address
        impostor = replace(umpire, key=person(mail_lab, "thief").key)
        refused = _command(table, ["END g1"], impostor)
        assert "not registered" in refused, refused
        assert umpire.address in table.notice(umpire, "ALERT")
        assert "over" not in _cli(table, "STATUS", "g1")

        # -------------------------------- EDIT: existing values only, within the ranges
        for line in ("EDIT g1 /nosuch 1", "EDIT g1 /forces/north/SQN-9 2"):
            assert "EDIT changes existing values only" in _command(table, [line])
        assert "strength -1 is not 0 to 9" in _cli(
            table, "EDIT", "g1", "/forces/north/SQN-1", "-1", ok=False
        )
        assert "out of range" in _command(
            table, ["EDIT g1 /forces/north/SQN-1 12345678901234567890"]
        )
        assert "no key 'SQN-9'" in _cli(table, "EDIT", "g1", "/forces/south/SQN-9", "1", ok=False)
        # Three EDITs in one mail: one notice per seat; one more by CLI: one more each.
        all_done(
            _command(
                table,
                [
                    "EDIT g1 /forces/north/SQN-1 4",
                    "EDIT g1 /forces/north/SQN-2 3",
                    "EDIT g1 /forces/south/SQN-3 2",
                ],
            )
        )
        omniscient = table.notice(press, "state corrected")
        assert "/forces/north/SQN-2: 2 -> 3" in omniscient and "/forces/south/SQN-3" in omniscient
        for p in (north, south):
            assert "/forces" not in table.notice(p, "state corrected")
        assert "set to 2 (was 1)" in _cli(table, "EDIT", "g1", "/forces/north/SQN-3", "2")
        for p in (north, south, press):
            table.notice(p, "state corrected")
            assert _count(table, p, "state corrected") == 2

        # -------------------------------- reads: answered, never recorded, kept for AUDIT
        all_done(_command(table, ["STATUS g1", "LIST", "SEATS g1", "AUDIT g1"]))
        for words in (("STATUS", "g1"), ("LIST",), ("DISPUTES", "g1")):
            _cli(table, *words)
        audit = " ".join(_cli(table, "AUDIT", "g1").split())
        assert f"UTC SEATS g1 by {umpire.address} by mail (<" in audit
        assert "UTC STATUS g1 by moderator by cli (command line)" in audit

        # -------------------------------- a dispute: waiting for its ruling
        for p, side, zones in ((north, "north", "AAA"), (south, "south", "BBB")):
            assert "Accepted (3)" in table.answer(
                p, table.send(p, sheet("g1", side, 1, "plot", orders(*zones)))
            )
        for p in (north, south):
            table.report(p, 2)
        filed = table.send(south, sheet("g1", "south", 1, "plot", ["DISPUTE zone B"]))
        assert "Only the moderator reads it" in table.answer(south, filed)
        number = re.search(r"RULE g1 (\d+) UPHELD", table.notice(umpire, "dispute"))
        assert number
        for listed in (_cli(table, "LIST"), _command(table, ["LIST"])):
            assert "g1 (demo duel): waiting-for-ruling (1 open dispute(s))" in listed

        # -------------------------------- ROLLBACK REPLOT: held, and ADJUDICATE waits
        held = _command(
            table,
            [f"RULE g1 {number.group(1)} UPHELD zone B is replayed", "ROLLBACK g1 1 plot REPLOT"],
        )
        all_done(held)
        for p in (north, south):
            assert "seen everything" not in table.notice(p, "rolled back")  # not ended
        for listed in (_cli(table, "LIST"), _command(table, ["LIST"])):
            assert "g1 (demo duel): held (rollback to turn 1 phase plot), turn 1 plot, " in (
                " ".join(listed.split())
            )
            assert "all orders in" not in listed and "LATE" not in listed
        assert "g1: held (rollback to turn 1 phase plot), turn 1 plot" in _cli(
            table, "STATUS", "g1"
        )
        board = Dashboard(table)
        try:
            with urllib.request.urlopen(board.url, timeout=30) as page:
                dom = page.read().decode()
        finally:
            board.close()
        row = dom.split('id="game-g1"')[1].split("</tr>")[0]
        assert ">held<" in row and "(stopped)" in row
        assert "running" not in row
        waits = _command(table, ["ADJUDICATE g1"])
        assert "north, south were told by the rollback" in waits and "ADJUDICATE g1 NOW" in waits
        assert "ADJUDICATE g1 NOW" in _cli(table, "ADJUDICATE", "g1", ok=False)
        assert "turn 1 plot adjudicated" in _command(table, ["ADJUDICATE g1 NOW"])
        for p in (north, south):
            table.report(p, 2)

        # -------------------------------- PAUSE by CLI: it ends at its cap, not at the sweep
        all_done(_command(table, ["SET g1 max_pause_days=0.0005 a short pause"]))
        assert "game g1 paused" in _cli(table, "PAUSE", "g1", "rain")
        for listed in (_cli(table, "LIST"), _command(table, ["LIST"])):
            assert "g1 (demo duel): paused, turn 2 plot, no deadline runs" in listed
        # 43 s: the resumption comes long before the daemon's 5-minute sweep.
        assert "the longest pause allowed has passed" in table.notice(north, "game resumed")

        # -------------------------------- an ended game is closed
        assert _cli(table, "END", "g1", "the season is over")
        for p in (north, south, press):
            table.report(p, None)
        closed = _command(table, ["ROLLBACK g1 1 plot a wrong roll"])
        assert "has ended" in closed and "FORCE and a reason" in closed
        assert "has ended" in _cli(table, "ROLLBACK", "g1", "1", "plot", "FORCE", ok=False)
        all_done(_command(table, ["ROLLBACK g1 1 plot FORCE the dice server failed"]))
        for p in (north, south):
            notice = " ".join(table.notice(p, "rolled back").split())
            assert "each side has seen everything" in notice, notice
            assert "(the dice server failed)" in notice
        assert "held (rollback to turn 1 phase plot)" in _cli(table, "LIST")
        # Turn 1 adjudicated again (no orders were sent for it: NOW), so a phase stands to
        # roll back to: END supersedes the open phase, the held one the game's only one.
        assert "turn 1 plot adjudicated" in _cli(table, "ADJUDICATE", "g1", "NOW")
        _cli(table, "END", "g1", "the season is over again")
        forced = _cli(table, "ROLLBACK", "g1", "1", "plot", "FORCE", "a rule was misread")
        assert "the game is held" in forced
        for p in (north, south):
            notice = " ".join(table.notice(p, "rolled back").split())
            assert "each side has seen everything" in notice and "(a rule was misread)" in notice
        _cli(table, "END", "g1", "the season is over at last")  # the record is published

        # -------------------------------- EDIT in U.S.N.: its own ranges, by rule
        japan, allies = (person(mail_lab, n) for n in ("japan", "allies"))
        _cli(table, "CREATE", "g2", "usn", "coral-sea")
        for who, side in ((japan, "japanese"), (allies, "allied")):
            _cli(table, "ASSIGN", "g2", side, who.address, who.public)
        _cli(table, "START", "g2")
        off_map = _cli(table, "EDIT", "g2", "/units/0/hex", "9999", ok=False)
        assert "hex 9999 is off the map (hexes run 0001 to 1575, UNIT.MAP)" in off_map
        assert "nothing was changed" in off_map
        late = _cli(table, "EDIT", "g2", "/turn", "7", ok=False)
        assert "Game-Turn 7 is not 1 to 2 (GEN.TURN: coral-sea)" in late

        # -------------------------------- EDIT in War in the Pacific: its state check
        damage = "/private/allied/ships/Neosho/damage"
        witp = _command(
            table,
            [
                "CREATE g3 witp coral-sea-1942",
                f"ASSIGN g3 japanese {japan.address} {japan.public}",
                f"ASSIGN g3 allied {allies.address} {allies.public}",
                "START g3",
                f"EDIT g3 {damage} 2",
            ],
        )
        all_done(witp)
        assert f"{damage} set to 2 (was 0)" in witp
        sunk_and_more = _cli(table, "EDIT", "g3", damage, "6", ok=False)
        assert "allied Neosho: damage 6 is not 0 to 5 (7.8.1: 5 sunk)" in sunk_and_more
        assert "nothing was changed" in sunk_and_more
    finally:
        table.stop()

    archive = tmp_path / "archive"
    assert table.pbem_cli("archive", "export", "g1", "--out", str(archive)).returncode == 0
    entries = read_record(archive)
    acted = [e["payload"] for e in entries if e["kind"] == "moderator-command"]
    commands = {a["command"] for a in acted}
    assert {"CREATE", "EDIT", "RULE", "ROLLBACK", "ADJUDICATE", "PAUSE", "END"} <= commands
    assert not commands & {"STATUS", "LIST", "SEATS", "AUDIT", "DISPUTES"}, commands
    by_cli = [a for a in acted if a["via"] == "cli"]
    assert {a["command"] for a in by_cli} == {"ADJUDICATE", "EDIT", "END", "PAUSE", "ROLLBACK"}
    for a in by_cli:
        assert (a["by"], a["origin"]) == ("moderator", "command line")
    published = json.dumps(entries)
    assert f'"{getpass.getuser()}"' not in published
    assert f'"{socket.gethostname()}"' not in published
    # The reads are in the audit store, by CLI and by mail, and nowhere in the export.
    reads = kept_reads(database_url)
    assert ("g1", "STATUS g1", "cli", "moderator", "command line") in reads
    by_mail = [r for r in reads if r[1] == "SEATS g1"]
    assert by_mail and by_mail[0][2:4] == ("mail", umpire.address)
    assert getpass.getuser() not in repr(reads) and socket.gethostname() not in repr(reads)
    exported = "".join(f.read_text(errors="replace") for f in archive.rglob("*") if f.is_file())
    assert by_mail[0][4] not in exported  # the read mail's Message-ID


def kept_reads(database_url: str) -> list[tuple[str | None, str, str, str, str]]:
    """(game, line, via, by, origin) of each read in the audit store."""
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as s:
            rows = s.scalars(select(ModeratorRead).order_by(ModeratorRead.id))
            return [(r.game_id, r.line, r.via, r.by, r.origin) for r in rows]
    finally:
        engine.dispose()


# ---------------------------------------------------------------- the dashboard

SEASON = 50  # games on the worklist
SCREEN = (1280, 800)
# What the worklist puts first (pbem.reports.dashboard.urgency), by the games' kinds
# below; held and paused games both wait for the moderator, in one rank (by id).
URGENCY = ["disputed", "late", "failed-mail", "held", "running", "not-started", "ended"]
RANK = {**{kind: URGENCY.index(kind) for kind in URGENCY}, "paused": URGENCY.index("held")}
LONG = "The carrier TF-16 was placed in zone C although its orders " + "read-B " * 80


def kind_of(n: int) -> str:
    kinds = ["disputed", "late", "paused", "ended", "failed-mail", "not-started", "held"]
    return kinds[n % 10] if n % 10 < len(kinds) else "running"


def season_of_games(database_url: str, folder: Path) -> Path:
    """SEASON games of every kind, made through the lifecycle; the configuration's path."""
    key = base64.b64encode(os.urandom(32)).decode()
    config_file = folder / "pbem.toml"
    config_file.write_text(
        f'[moderator]\ntimezone = "America/New_York"\n[database]\nurl = "{database_url}"\n'
        f'[secrets]\nplot_key = "{key}"\n'
    )
    config = load_config(config_file)
    engine = make_engine(database_url)
    create_all(engine)
    now = datetime.now(UTC)
    for n in range(SEASON):
        game, kind = f"s{n:02d}", kind_of(n)
        made_at = now - timedelta(hours=2) if kind == "late" else now
        with make_sessionmaker(engine).begin() as s:
            gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), made_at), Publisher())
            hours = 1 if kind == "late" else 6 + n
            gm.acts.create_game(game, "demo", "duel", settings={"deadline_hours": hours})
            if kind == "not-started":
                continue
            for side in ("north", "south"):
                gm.acts.assign(game, side, f"{side}-{n}@example.org", public_key=PUBLIC[side])
            gm.acts.start(game)
            if kind in ("disputed", "held"):
                gm.phases.submit(game, "north", 1, "plot", ["SEND SQN-1 A"])
                gm.phases.adjudicate_now(game)
            if kind == "disputed":
                gm.disputes.file(game, "south", 1, "plot", LONG if n == 0 else "SQN-1 is wrong")
            elif kind == "held":  # a rollback holds the game for the moderator
                gm.corrections.rollback(game, 1, "plot", replot=False, reason="a wrong roll")
            elif kind == "paused":
                gm.acts.pause(game, "a player is away")
            elif kind == "ended":
                gm.acts.end(game, "the season is over")
            elif kind == "failed-mail":
                s.add(failed_mail_to(game, n, now))
    engine.dispose()
    return config_file


def failed_mail_to(game: str, n: int, now: datetime) -> OutboundMail:
    return OutboundMail(
        message_id=f"<failed-{n}@pbem.test>",
        kind=OutboundKind.REPORT,
        game_id=game,
        sender="moderator@pbem.test",
        recipient=f"gone-{n}@example.org",
        raw=b"",
        created_at=now,
        next_attempt_at=now,
        status=OutboundStatus.FAILED,
        attempts=8,
        last_error="550 5.1.1 <gone@example.org>: mailbox unavailable " + "x" * 300,
    )


def evaluate(url: str, profile: Path, expression: str) -> Any:
    """``expression``'s value (JSON) in the page at ``url``, in headless Chromium at
    SCREEN, over the DevTools protocol (aiohttp's WebSocket client)."""
    browser = subprocess.Popen(
        [
            chromium(),
            *FLAGS,
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            f"--window-size={SCREEN[0]},{SCREEN[1]}",
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        active = profile / "DevToolsActivePort"
        wait_until(lambda: len(_lines(active)) == 2, 60, "Chromium's DevTools port")
        port = _lines(active)[0]
        return asyncio.run(_evaluate(f"http://127.0.0.1:{port}", url, expression))
    finally:
        browser.terminate()
        browser.wait(timeout=30)


def _lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


async def _evaluate(devtools: str, url: str, expression: str) -> Any:
    async with aiohttp.ClientSession() as http:
        while True:  # the page's target, once it has loaded the URL
            async with http.get(f"{devtools}/json/list") as r:
                pages = [t for t in await r.json() if t["type"] == "page" and t["url"] == url]
            if pages:
                break
            await asyncio.sleep(0.1)
        async with http.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            # Asked again until the page at the URL has loaded (the target shows the URL
            # before its document is there).
            ready = f"document.readyState === 'complete' && location.href === {json.dumps(url)}"
            for n in range(1, 600):
                await ws.send_json(
                    {
                        "id": n,
                        "method": "Runtime.evaluate",
                        "params": {
                            "expression": f"({ready}) ? JSON.stringify({expression}) : ''",
                            "returnByValue": True,
                        },
                    }
                )
                async for message in ws:
                    answer = json.loads(message.data)
                    if answer.get("id") == n:
                        break
                value = answer.get("result", {}).get("result", {}).get("value")
                if value:
                    return json.loads(value)
                await asyncio.sleep(0.1)
    raise AssertionError("no answer from Chromium")


LAYOUT = """(() => {
  const rows = [...document.querySelectorAll('#games tr[id^="game-"]')];
  const overflowing = [...document.querySelectorAll('td, pre')]
    .filter(e => e.scrollWidth > e.clientWidth + 1).length;
  return {
    pageWidth: document.documentElement.scrollWidth, viewWidth: innerWidth,
    rows: rows.length, links: rows.filter(r => r.querySelector('a[href^="game/"]')).length,
    rowsInFirstScreen: rows.filter(r => r.getBoundingClientRect().bottom <= innerHeight).length,
    tallestRow: Math.max(...rows.map(r => r.getBoundingClientRect().height)),
    overflowing,
  };
})()"""


def test_the_dashboard_as_a_worklist_of_fifty_games_in_chromium(
    tmp_path: Path, database_url: str
) -> None:
    config_file = season_of_games(database_url, tmp_path)
    board = subprocess.Popen(
        [sys.executable, "-m", "pbem", "-c", str(config_file), "mod", "dashboard", "--port=0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert board.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", board.stdout.readline())
        assert found, "the dashboard did not start"
        url = found.group(1)
        dom = browse(url, tmp_path / "p1", "--dump-dom").stdout
        order = re.findall(r'<tr id="game-s(\d\d)"', dom)
        assert len(order) == SEASON
        kinds = [kind_of(int(n)) for n in order]
        assert kinds == sorted(kinds, key=RANK.__getitem__), kinds
        # Within the running games: the soonest deadline first (6 + n hours).
        running = [int(n) for n in order if kind_of(int(n)) == "running"]
        assert running == sorted(running)
        assert '<span class="mark dispute">1 dispute(s) waiting</span>' in dom
        assert re.search(r'<span class="mark late">late: north, south</span>', dom)
        assert '<span class="mark failed">1 mail(s) failed</span>' in dom
        assert '<span class="mark held">paused</span>' in dom
        held = dom.split('id="game-s06"')[1].split("</tr>")[0]  # rolled back, held
        assert '<span class="mark held">held</span>' in held and "(stopped)" in held
        assert re.search(
            r"\d\d:\d\d E[SD]T <span class=\"utc\">\d\d-\d\d \d\d:\d\d UTC</span>", dom
        )  # New York, UTC

        layout = evaluate(url, tmp_path / "p2", LAYOUT)
        print(f"the worklist at {SCREEN[0]}x{SCREEN[1]}: {layout}")
        assert layout["rows"] == layout["links"] == SEASON
        assert layout["pageWidth"] <= layout["viewWidth"] == SCREEN[0]  # no sideways scroll
        assert layout["overflowing"] == 0  # long text wraps in its cell
        assert layout["rowsInFirstScreen"] >= 12 and layout["tallestRow"] < 60

        page = browse(url + "game/s00", tmp_path / "p3", "--dump-dom").stdout
        assert "north-0@example.org" in page and "south-0@example.org" in page
        assert "read-B read-B" in page and "turn 1 plot" in page
        assert re.search(r'id="deadline">Deadline: <b>[^<]+E[SD]T</b>', page)
        reports = page.split('id="reports"')[1].split("</section>")[0]
        assert "for <span" in reports  # the turn's reports, newest first
        game_layout = evaluate(url + "game/s00", tmp_path / "p4", LAYOUT)
        assert game_layout["pageWidth"] <= SCREEN[0] and game_layout["overflowing"] == 0

        for name, target in (("dashboard-worklist", url), ("dashboard-game", url + "game/s00")):
            shot = tmp_path / f"{name}.png"
            size = f"--window-size={SCREEN[0]},{SCREEN[1]}"
            browse(target, tmp_path / f"shot-{name}", f"--screenshot={shot}", size)
            with Image.open(shot) as picture:
                assert picture.size == SCREEN
            print(f"screenshot: {shot}")
            if os.environ.get("PBEM_SCREENSHOT_DIR"):
                kept = Path(os.environ["PBEM_SCREENSHOT_DIR"]) / f"{name}-{database_url[:6]}.png"
                kept.write_bytes(shot.read_bytes())
    finally:
        board.terminate()
        board.wait(timeout=30)
        if board.stdout is not None:
            board.stdout.close()
