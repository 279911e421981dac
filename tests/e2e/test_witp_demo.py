"""``pbem demo --ruleset witp`` (issue 16 item 4): Coral Sea, May 1942, played to its
end through the real daemon on the embedded default (SQLite + Maildir), both sides
mailing signed orders every round, then ``pbem verify`` on the export.

The whole demo runs as a user would start it: the daemon is a separate process, the
moderator's CREATE goes by signed mail, each scripted side answers the report it was
mailed (pbem.demo_witp), and the archive is verified at the end.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pbem.demo_witp import Reading, allied, japanese
from tests.unit.test_cli_errors import pbem

ROUNDS = [f"T{t}-naval{n}-plot" for t in (1, 2, 3) for n in (1, 2, 3)]
# 42.3.1 (R70): the Allies hold the SI advantage openly, so each Plot Segment is two
# rounds: the Japanese plot alone, then the Allied plot. Each side plots once in each.
PHASES = [half for r in ROUNDS for half in (f"{r}-japanese", r)]


def test_witp_demo_plays_coral_sea_to_its_end_and_verifies(tmp_path: Path) -> None:
    run = pbem(tmp_path, "demo", "--dir", "d", "--ruleset", "witp")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    out = run.stdout
    assert "CREATE demo-1 witp" not in out  # the commands went by signed mail
    assert "game over: the scenario's 3 Game-Turns are played" in out
    assert "verify: OK" in out
    for side in ("japanese", "allied"):
        assert out.count(f"   {side} signs and mails orders: PASS") == len(ROUNDS)
        assert out.count(f"   {side}: answer says accepted 1") == len(ROUNDS)
    with sqlite3.connect(tmp_path / "d" / "pbem.sqlite3") as db:
        game = db.execute("SELECT ruleset, scenario, status FROM games").fetchall()
        phases = [n for (n,) in db.execute("SELECT name FROM phases ORDER BY seq")]
    assert game == [("witp", "coral-sea-1942", "over")]
    assert [p for p in phases if p != "T1-open"] == PHASES
    # verify re-ran every round and checked each side's sealed orders of each.
    assert f"{2 * len(ROUNDS)} plot commitments confirmed" in out


def test_the_scripted_sides_read_their_own_forces_from_the_report_alone() -> None:
    """Reading takes the form's round and offered orders and the report's own forces;
    a stage-0 form offers PASS only, so each side plots PASS."""
    form = "Game: demo-1\nSide: japanese\nTurn: 1\nPhase: T1-naval1-plot\n\n# comment\nPASS\n"
    report = (
        "Your forces\n-----------\n"
        "MO Main Force (R.Adm. Goto) at Rabaul [data-pack]\n"
        "    CVL Shoho, CA Aoba\n"
        "Port Moresby Invasion Force (R.Adm. Kajioka) at Rabaul [data-pack]\n"
        "    CL Yubari\n\nWhere this report rests\n"
    )
    r = Reading.of("japanese", form, report)
    assert (r.turn, r.round, r.segment) == (1, "T1-naval1-plot", "plot")
    assert r.offered == {"PASS"}
    assert dict(r.forces) == {
        "MO Main Force": "Rabaul",
        "Port Moresby Invasion Force": "Rabaul",
    }
    assert japanese(r) == ["PASS"] and allied(Reading.of("allied", form, "")) == ["PASS"]
    half = Reading.of("japanese", form.replace("plot\n", "plot-japanese\n"), report)
    assert (half.round, half.segment) == ("T1-naval1-plot-japanese", "plot")
    # Once a form offers the MOVE card, the intents become mission cards.
    staged = Reading(r.side, r.turn, r.round, frozenset({"PASS", "MOVE"}), r.forces)
    assert japanese(staged) == [
        "MOVE MO Main Force TO Deboyne",
        "MOVE Port Moresby Invasion Force TO Jomard",
    ]
