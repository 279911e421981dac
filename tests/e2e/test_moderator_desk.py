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

import hashlib
import re
from pathlib import Path

from tests.e2e.test_game_by_mail import (
    Table,
    all_done,
    orders,
    person,
    read_record,
    sheet,
)
from tests.maillab import MailLab

RATE_LIMIT = 3  # players stay within it; the moderator sends more and is never limited


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
        seed = re.search(r"\b([0-9a-f]{64})\b", corrected.split("was adjudicated.", 1)[1])
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
