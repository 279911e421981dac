"""The moderator's desk, what was wrong: an ended game reopened without a word,
stopped games listed as running, ADJUDICATE right after a replot, EDIT creating
keys, reads in the published record, one mail per EDIT and seat, no alert for a
wrong key from the moderator's own address, a pause's end left to the sweep."""

from __future__ import annotations

import base64
import email
import email.policy
import logging
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbem.config import Config, ModeratorConfig, SecretsConfig
from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle import moderator
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.rulesets.demo import RaidRuleset
from pbem.service.dashboard import worklist_page
from pbem.storage.models import OutboundMail
from tests.unit.lifecycle.test_moderator import _mail, _sheet


@pytest.fixture
def umpire_key() -> tuple[bytes, str]:
    return generate_keypair("umpire")


@pytest.fixture
def config(tmp_path: Path, umpire_key: tuple[bytes, str]) -> Config:
    """A moderator with a key, for commands by mail."""
    return Config(
        moderator=ModeratorConfig(
            address="pbem@example.org", human="umpire@example.org", public_key=umpire_key[1]
        ),
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )


CLI = moderator.Actor(by="alice", via="cli", origin="desk-pc.local")


def do(table, line: str, actor: moderator.Actor | None = None) -> str:  # type: ignore[no-untyped-def]
    return table.run(lambda gm: moderator.execute(gm, line, actor))


def refused(table, line: str) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(LifecycleError) as caught:
        do(table, line)
    return str(caught.value)


def entries(table) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return table.run(lambda gm: journal.entries(gm.desk.session, "g1"))


def notices(table, subject: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(recipient, text) of each mail queued whose subject holds ``subject``."""

    def read(gm):  # type: ignore[no-untyped-def]
        found = []
        for row in gm.desk.session.scalars(select(OutboundMail).order_by(OutboundMail.id)):
            mail = email.message_from_bytes(
                open_outbound(gm.desk.key, row), policy=email.policy.default
            )
            if subject in str(mail["Subject"]):
                body = mail.get_body(("plain",))
                found.append((row.recipient, " ".join(str(body.get_content()).split())))
        return found

    return table.run(read)


def play(table, turn: int) -> None:  # type: ignore[no-untyped-def]
    for side in ("north", "south"):
        table.run(lambda gm, s=side: gm.phases.submit("g1", s, turn, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.clock.tick("g1"))


def test_rollback_of_an_ended_game_needs_force_and_a_reason(table, demo_game):  # type: ignore[no-untyped-def]
    play(table, 1)
    do(table, "END g1 the season is over")
    assert "has ended" in refused(table, "ROLLBACK g1 1 plot a wrong roll")
    assert "FORCE and a reason" in refused(table, "ROLLBACK g1 1 plot FORCE")
    assert entries(table)[-1]["kind"] != "rolled-back"
    said = do(table, "ROLLBACK g1 1 plot REPLOT FORCE the dice server failed")
    assert "the game is held" in said
    rolled = [e for e in entries(table) if e["kind"] == "rolled-back"][-1]["payload"]
    assert rolled["replot"] and rolled["reason"] == "the dice server failed"
    told = notices(table, "rolled back")
    assert sorted(to for to, _ in told) == ["north@example.org", "south@example.org"]
    for _, text in told:
        assert "each side has seen everything" in text and "the dice server failed" in text


def test_a_rollback_of_a_running_game_says_nothing_of_secrets_seen(table, demo_game):  # type: ignore[no-untyped-def]
    play(table, 1)
    do(table, "ROLLBACK g1 1 plot")
    # No FORCE needed, and no word of a disclosure that did not happen.
    assert do(table, "STATUS g1").startswith("g1: held (rollback to turn 1 phase plot), turn 1")
    (_, text), _ = notices(table, "rolled back")
    assert "seen everything" not in text


def test_list_status_show_held_paused_and_waiting_for_ruling(table, demo_game):  # type: ignore[no-untyped-def]
    play(table, 1)
    table.now += timedelta(days=30)  # the deadline long past
    table.run(lambda gm: gm.disputes.file("g1", "south", 1, "plot", "DISPUTE zone A"))
    assert "g1 (demo duel): waiting-for-ruling (1 open dispute(s)), turn 2" in do(table, "LIST")
    do(table, "RULE g1 1 UPHELD zone A again")
    do(table, "ROLLBACK g1 1 plot")
    listed = do(table, "LIST")
    assert (
        "g1 (demo duel): held (rollback to turn 1 phase plot), turn 1 plot, no deadline runs;"
        in listed
    )
    assert "orders: north in, south in" in listed
    assert "all orders in" not in listed and "LATE" not in listed
    do(table, "PAUSE g1 rain")
    assert "paused, held (rollback to turn 1 phase plot)" in do(table, "LIST")
    page = table.run(lambda gm: worklist_page(gm, gm.desk.now, "UTC"))
    row = page.split('id="game-g1"')[1].split("</tr>")[0]
    assert "paused, held<" in row and "(stopped)" in row and "running" not in row


def test_a_game_held_by_changed_rules_is_listed_rules_held(table, demo_game, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(RaidRuleset, "version", "2")
    play(table, 1)
    listed = do(table, "LIST")
    assert "g1 (demo duel): rules-held (rules changed: version 1 -> 2), turn 1 plot" in listed
    assert "all orders in" not in listed


def test_adjudicate_after_rollback_replot_waits_unless_now(table, demo_game):  # type: ignore[no-untyped-def]
    play(table, 1)
    do(table, "ROLLBACK g1 1 plot REPLOT a zone was wrong")
    why = refused(table, "ADJUDICATE g1")
    assert "north, south were told by the rollback" in why and "ADJUDICATE g1 NOW" in why
    do(table, "RESUME g1")
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-2 B"]))
    assert "south was told by the rollback" in refused(table, "ADJUDICATE g1")
    assert "usage: ADJUDICATE game [NOW]" in refused(table, "ADJUDICATE g1 LATER")
    assert "turn 1 plot adjudicated" in do(table, "ADJUDICATE g1 NOW")


def test_adjudicate_after_a_rollback_keeping_the_orders_needs_no_now(table, demo_game):  # type: ignore[no-untyped-def]
    play(table, 1)
    do(table, "ROLLBACK g1 1 plot")
    assert "turn 1 plot adjudicated" in do(table, "ADJUDICATE g1")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("EDIT g1 /nosuch 1", "no key 'nosuch'"),
        ("EDIT g1 /forces/north/SQN-9 2", "no key 'SQN-9'"),
        ('EDIT g1 /standing/north/0 "SEND SQN-1 A"', "past the end"),
        ("EDIT g1 /forces/north/SQN-1 -1", "strength -1 is not 0 to 9"),
        ("EDIT g1 /forces/north/SQN-1 12345678901234567890", "out of range"),
        ("EDIT g1 /score/north -2", "score -2 is not 0 to 9"),
        ("""EDIT g1 /forces/north '{"SQN-1": 3, "SQN-7": 4}'""", "no squadron SQN-7"),
    ],
)
def test_edit_changes_existing_values_within_the_rules_ranges(table, demo_game, line, why):  # type: ignore[no-untyped-def]
    before = entries(table)
    assert why in refused(table, line)
    assert entries(table) == before


def test_reads_stay_out_of_the_record_and_the_cli_names_no_user(table, demo_game, caplog):  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.INFO, logger="pbem.audit"):
        for line in ("STATUS g1", "SEATS g1", "AUDIT g1", "DISPUTES g1", "KEY g1 north LIST"):
            do(table, line, CLI)
    assert not [e for e in entries(table) if e["kind"] == "moderator-command"]
    assert "moderator read STATUS by alice via cli (desk-pc.local)" in caplog.text
    do(table, "PAUSE g1 rain", CLI)
    acted = entries(table)[-1]
    assert acted["kind"] == "moderator-command"
    assert acted["payload"] == {
        "command": "PAUSE",
        "by": "moderator",
        "via": "cli",
        "origin": "command line",
    }


def test_edits_of_one_mail_make_one_notice_per_seat(table, umpire_key, keys):  # type: ignore[no-untyped-def]
    lines = [
        "CREATE g1 demo duel",
        f"ASSIGN g1 north north@example.org {keys['north'][1]}",
        f"ASSIGN g1 south south@example.org {keys['south'][1]}",
        "OBSERVE g1 press@example.org",
        "START g1",
    ]
    _mail(table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, lines))
    edits = [f"EDIT g1 /forces/{s}/SQN-{n} 4" for s in ("north", "south") for n in (1, 2)]
    edits.append("EDIT g1 /score/north 1")
    outcome, _ = _mail(table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, edits))
    assert outcome == "moderator: 5 done"
    to = [to for to, _ in notices(table, "state corrected")]
    assert sorted(to) == ["north@example.org", "press@example.org", "south@example.org"]
    # A mail undone announces nothing.
    undone = ["EDIT g1 /score/south 1", "EDIT g1 /nosuch 1"]
    _mail(table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, undone))
    assert len(notices(table, "state corrected")) == 3


def test_a_wrong_key_from_the_moderators_address_alerts_him(table, umpire_key):  # type: ignore[no-untyped-def]
    thief, _ = generate_keypair("thief")
    outcome, answer = _mail(table, "umpire@example.org", thief, _sheet("moderator", 1, ["LIST"]))
    assert outcome.startswith("refused: bad-signature") and "not registered" in answer
    ((to, text),) = notices(table, "ALERT")
    assert to == "umpire@example.org" and "Nothing in it was done" in text


def test_a_paused_game_wakes_the_daemon_at_its_pause_cap(table, demo_game):  # type: ignore[no-untyped-def]
    do(table, "SET g1 max_pause_days=1 short")
    do(table, "PAUSE g1 rain")
    cap = table.now + timedelta(days=1)
    assert table.run(lambda gm: gm.clock.next_due()) == cap
    table.now = cap
    assert table.run(lambda gm: gm.clock.tick("g1")) == ["resumed (pause cap reached)"]
