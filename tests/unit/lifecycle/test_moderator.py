"""Moderator commands (issue 3), by ``moderator.execute`` and by signed mail.

The correcting edit (EDIT), disputes and rulings, observers' views, the
report-queued and mail-refused record entries, and the bad input the issue
names: a moderator command not signed by the moderator, a rollback to a phase
that does not exist, a replaced player's old key.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import logging
import os
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbem import rulesets
from pbem.config import Config, ModeratorConfig, SecretsConfig
from pbem.core.errors import LifecycleError
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle import moderator
from pbem.lifecycle.mailroom import Mailroom, file_mail
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.record.replay import replay
from pbem.storage.models import Game, GameState, OutboundMail, Report

MODERATOR = "pbem@example.org"


@pytest.fixture
def umpire_key() -> tuple[bytes, str]:
    return generate_keypair("umpire")


@pytest.fixture
def config(tmp_path: Path, umpire_key: tuple[bytes, str]) -> Config:
    """The shared lifecycle configuration, with a moderator key for commands by mail."""
    return Config(
        moderator=ModeratorConfig(
            address=MODERATOR,
            human="umpire@example.org",
            public_key=umpire_key[1],
            command_from="deputy@example.org",
        ),
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )


def do(table, line: str) -> str:
    return table.run(lambda gm: moderator.execute(gm, line))


def kinds(table, game: str = "g1") -> list[str]:
    return table.run(lambda gm: [e["kind"] for e in journal.entries(gm.desk.session, game)])


def entries(table, game: str = "g1") -> list[dict[str, Any]]:
    return table.run(lambda gm: journal.entries(gm.desk.session, game))


def open_state(table, game: str = "g1") -> dict[str, Any]:
    return table.run(lambda gm: dict(gm.lookups.state_of(gm.lookups.open_phase(game))))


def replay_problems(table, game: str = "g1") -> list[str]:
    report = replay(rulesets.get("demo"), game, "duel", {}, entries(table, game))
    return report.problems


def play_turn(table, turn: int, north: list[str], south: list[str]) -> None:
    table.run(lambda gm: gm.phases.submit("g1", "north", turn, "plot", north))
    table.run(lambda gm: gm.phases.submit("g1", "south", turn, "plot", south))
    table.run(lambda gm: gm.clock.tick("g1"))


# ------------------------------------------------------------------ EDIT


def test_edit_sets_value_and_is_recorded_as_correcting_edit(table, demo_game):
    before = open_state(table)
    said = do(table, "EDIT g1 /forces/north/SQN-3 5")
    assert (
        said
        == "g1 turn 1 plot: /forces/north/SQN-3 set to 5 (was 1); recorded as a correcting edit"
    )
    after = open_state(table)
    assert after["forces"]["north"]["SQN-3"] == 5
    assert {k: v for k, v in after.items() if k != "forces"} == {
        k: v for k, v in before.items() if k != "forces"
    }
    edit = entries(table)[-1]
    assert edit["kind"] == "state-edited"
    assert edit["payload"]["old"] == 1 and edit["payload"]["value"] == 5
    assert edit["payload"]["before_hash"] != edit["payload"]["state_hash"]
    assert (
        table.run(lambda gm: gm.lookups.open_phase("g1").state_hash)
        == edit["payload"]["state_hash"]
    )


def test_edit_value_is_json_else_a_string(table, demo_game):
    do(table, """EDIT g1 /standing/north '["SEND SQN-1 C"]'""")
    do(table, "EDIT g1 /scenario a corrected name")
    # Not JSON a state may hold: the string "NaN", refused where a number stands.
    with pytest.raises(LifecycleError, match='holds integer 0; "NaN" is string'):
        do(table, "EDIT g1 /score/south NaN")
    state = open_state(table)
    assert state["standing"]["north"] == ["SEND SQN-1 C"]
    assert state["scenario"] == "a corrected name"
    assert state["score"]["south"] == 0


@pytest.mark.parametrize(
    ("pointer", "message"),
    [
        ("score/north", "not a JSON pointer"),
        ("/nowhere/north", "no key 'nowhere'"),
        ("/forces/north/SQN-1/strength", "neither object nor list"),
        ("/standing/north/0", "past the end"),
        ("/standing/north/01", "not a list index"),
    ],
)
def test_edit_refuses_bad_pointer_and_records_nothing(table, demo_game, pointer, message):
    before = kinds(table)
    with pytest.raises(LifecycleError, match=message):
        do(table, f"EDIT g1 {pointer} 3")
    assert kinds(table) == before


def test_edit_needs_an_open_phase(table, demo_game):
    do(table, "END g1 agreed draw")
    with pytest.raises(LifecycleError, match="is over"):
        do(table, "EDIT g1 /score/north 1")


def test_edit_is_replayed_so_adjudication_rollback_and_replay_agree(table, demo_game):
    do(table, "EDIT g1 /forces/south/SQN-3 6")
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-3 A"])
    after_edit = table.run(lambda gm: gm.lookups.open_phase("g1").state_hash)
    assert replay_problems(table) == []
    # The edit is part of turn 1's state: a rollback there recomputes it from the record.
    do(table, "ROLLBACK g1 1 plot")
    do(table, "ADJUDICATE g1")
    assert table.run(lambda gm: gm.lookups.open_phase("g1").state_hash) == after_edit
    assert replay_problems(table) == []


def test_replay_notices_an_edit_the_record_misstates(table, demo_game):
    do(table, "EDIT g1 /forces/south/SQN-3 6")
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-3 A"])
    forged = entries(table)
    edit = next(e for e in forged if e["kind"] == "state-edited")
    edit["payload"]["value"] = 2
    problems = replay(rulesets.get("demo"), "g1", "duel", {}, forged).problems
    assert any("gives another state" in p for p in problems)


# ------------------------------------------------------------------ disputes


def test_dispute_upheld_with_rollback_and_edit_mails_ruling_to_both_sides(table, demo_game):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    first = table.run(lambda gm: gm.lookups.line_of_play("g1")[0].result_hash)
    dispute = table.run(
        lambda gm: gm.disputes.file("g1", "south", 1, "plot", "DISPUTE strength").id
    )
    assert do(table, f"RULE g1 {dispute} UPHELD SQN-3 was at strength 2").startswith(
        f"dispute {dispute} upheld; the players were told"
    )
    do(table, "ROLLBACK g1 1 plot")
    do(table, "EDIT g1 /forces/south/SQN-3 2")
    do(table, "ADJUDICATE g1")
    line = table.run(lambda gm: gm.lookups.line_of_play("g1"))
    assert line[0].result_hash != first  # re-adjudicated from the corrected state
    assert replay_problems(table) == []
    notices = table.run(
        lambda gm: [
            (m.recipient, open_outbound(gm.desk.key, m))
            for m in gm.desk.session.scalars(
                select(OutboundMail).where(OutboundMail.kind == "notice")
            )
        ]
    )
    rulings = [(r, raw) for r, raw in notices if b"ruling on dispute" in raw]
    assert sorted(r for r, _ in rulings) == ["north@example.org", "south@example.org"]
    assert all(b"UPHELD" in raw and b"SQN-3 was at strength 2" in raw for _, raw in rulings)
    # The dispute's own text goes to the moderator only.
    assert not any(b"DISPUTE strength" in raw for _, raw in notices)
    k = kinds(table)
    assert k.index("dispute-ruled") < k.index("rolled-back") < k.index("state-edited")


def test_dispute_dismissed_and_ruled_once(table, demo_game):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    dispute = table.run(lambda gm: gm.disputes.file("g1", "north", 1, "plot", "DISPUTE dice").id)
    assert do(table, f"RULE g1 {dispute} DISMISSED the dice are verifiable").startswith(
        f"dispute {dispute} dismissed"
    )
    with pytest.raises(LifecycleError, match="already ruled dismissed"):
        do(table, f"RULE g1 {dispute} UPHELD changed my mind")
    with pytest.raises(LifecycleError, match="has no dispute 99"):
        do(table, "RULE g1 99 UPHELD nothing")
    with pytest.raises(LifecycleError, match="UPHELD or DISMISSED"):
        do(table, f"RULE g1 {dispute} MAYBE hmm")


def test_dispute_on_a_phase_not_adjudicated_refused(table, demo_game):
    with pytest.raises(LifecycleError, match="has not been adjudicated"):
        table.run(lambda gm: gm.disputes.file("g1", "north", 1, "plot", "DISPUTE too early"))


# ------------------------------------------------------------------ other commands


def test_status_shows_who_is_in_never_the_orders(table, demo_game):
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-2 C"]))
    status = do(table, "STATUS g1")
    assert "north: in, south: missing" in status
    assert "SQN" not in status


def test_rollback_to_a_phase_that_does_not_exist_refused(table, demo_game):
    before = kinds(table)
    with pytest.raises(LifecycleError, match="has no phase turn 7 plot; its phases: 1/plot"):
        do(table, "ROLLBACK g1 7 plot")
    with pytest.raises(LifecycleError, match="not a turn number"):
        do(table, "ROLLBACK g1 one plot")
    assert kinds(table) == before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("LAUNCH g1", "unknown command 'LAUNCH'"),
        ("EDIT g1 /score/north", "usage: EDIT game /json/pointer value"),
        ("EXTEND g1 soon", "not a number of hours"),
        ("START nowhere", "no game 'nowhere'"),
        ("CREATE g9 demo duel deadline_hours=soon", "not a valid value"),
        ("", "empty command"),
    ],
)
def test_bad_moderator_commands_refused_with_reason(table, demo_game, line, message):
    with pytest.raises(LifecycleError, match=message):
        do(table, line)


def test_every_moderator_act_is_in_the_record(table, demo_game, keys):
    do(table, "PAUSE g1 holiday")
    do(table, "RESUME g1")
    do(table, "EXTEND g1 5")
    do(table, "OBSERVE g1 press@example.org")
    do(table, f"REPLACE g1 south new@example.org {generate_keypair()[1]}")
    do(table, "EDIT g1 /score/north 1")
    do(table, "ADJUDICATE g1")
    do(table, "END g1 the club closed")
    k = kinds(table)
    for kind in (
        "paused",
        "resumed",
        "deadline-extended",
        "observer-added",
        "player-replaced",
        "state-edited",
        "adjudicate-ordered",
        "game-over",
    ):
        assert kind in k


# ------------------------------------------------------------------ reports


def test_report_queued_entries_name_each_report_by_hash(table, demo_game):
    sent = [e["payload"] for e in entries(table) if e["kind"] == "report-queued"]
    reports = table.run(lambda gm: list(gm.desk.session.scalars(select(Report))))
    mails = table.run(
        lambda gm: list(
            gm.desk.session.scalars(select(OutboundMail).where(OutboundMail.kind == "report"))
        )
    )
    assert len(sent) == len(reports) == len(mails) == 2
    assert {s["text_sha256"] for s in sent} == {
        hashlib.sha256(r.text.encode("utf-8")).hexdigest() for r in reports
    }
    assert {s["message_id"] for s in sent} == {m.message_id for m in mails}
    assert {(s["audience"], s["to"]) for s in sent} == {
        ("north", "north@example.org"),
        ("south", "south@example.org"),
    }


def test_observers_see_their_side_or_everything(table, keys):
    """Gap 4: an observer of a side gets that side's view; an omniscient one, both."""

    def setup(gm):
        gm.acts.create_game("g1", "demo", "duel")
        gm.acts.assign("g1", "north", "north@example.org", public_key=keys["north"][1])
        gm.acts.assign("g1", "south", "south@example.org", public_key=keys["south"][1])
        gm.acts.add_observer("g1", "watcher@example.org", "north")
        gm.acts.add_observer("g1", "press@example.org", None)
        gm.acts.start("g1")

    table.run(setup)
    play_turn(table, 1, ["SEND SQN-1 B", "SEND SQN-2 B"], ["SEND SQN-1 C", "SEND SQN-2 C"])
    phase_id = table.run(lambda gm: gm.lookups.open_phase("g1").id)
    latest = table.run(
        lambda gm: [
            (r.audience, r.text)
            for r in gm.desk.session.scalars(select(Report).where(Report.phase_id == phase_id))
        ]
    )
    by_audience: dict[str, list[str]] = {}
    for audience, text in latest:
        by_audience.setdefault(audience, []).append(text)
    assert sorted((a, len(t)) for a, t in by_audience.items()) == [
        ("north", 2),
        ("omniscient", 1),
        ("south", 1),
    ]
    for text in by_audience["north"]:
        assert "SEND SQN-1 B" in text and "SEND SQN-1 C" not in text
    assert (
        "SEND SQN-1 C" in by_audience["south"][0] and "SEND SQN-1 B" not in by_audience["south"][0]
    )
    assert "SEND SQN-1 B" in by_audience["omniscient"][0]
    assert "SEND SQN-1 C" in by_audience["omniscient"][0]


# ------------------------------------------------------------------ by mail


def _mail(table, sender: str, key: bytes, sheet: str) -> tuple[str, str]:
    """File and process one signed mail; returns (outcome, answer text)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = MODERATOR
    msg["Subject"] = "orders"
    msg["Message-ID"] = f"<{os.urandom(8).hex()}@example.org>"
    msg.set_content("Orders below.\n\n" + sign_block(add_nonce(sheet), key))
    raw = msg.as_bytes()

    def go(gm):
        row = file_mail(gm.desk.session, "ref", raw, gm.desk.now, gm.desk.key)
        assert row is not None  # new bytes: filed
        outcome = Mailroom(gm).process(row)
        answer = gm.desk.session.scalars(
            select(OutboundMail)
            .where(OutboundMail.recipient == sender)
            .order_by(OutboundMail.id.desc())
        ).first()
        if answer is None:
            return outcome, ""
        parsed = email.message_from_bytes(
            open_outbound(gm.desk.key, answer), policy=email.policy.default
        )
        assert isinstance(parsed, EmailMessage)
        part = parsed.get_body(("plain",))
        assert part is not None
        return outcome, " ".join(part.get_content().split())

    return table.run(go)


def _sheet(side: str, turn: int, lines: list[str], game: str = "g1") -> str:
    return f"Game: {game}\nSide: {side}\nTurn: {turn}\nPhase: plot\n\n" + "\n".join(lines) + "\n"


def test_moderator_commands_by_signed_mail_same_as_cli(table, umpire_key, keys):
    lines = [
        "CREATE g1 demo duel deadline_hours=12",
        f"ASSIGN g1 north north@example.org {keys['north'][1]} tz=Europe/Berlin",
        f"ASSIGN g1 south south@example.org {keys['south'][1]}",
        "ROLLBACK g1 3 plot",  # fails: the mail is all or nothing
        "START g1",
    ]
    outcome, answer = _mail(
        table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, lines)
    )
    assert outcome == "moderator: refused, line 4 failed; nothing done"
    assert "Nothing was done: a command mail is all or nothing, and line 4 failed" in answer
    assert "line 1: CREATE g1 demo duel deadline_hours=12 undone: game g1 created" in answer
    assert "line 4: ROLLBACK g1 3 plot FAILED: game g1 has not started" in answer
    assert "line 5: START g1 not run" in answer
    assert table.run(lambda gm: gm.desk.session.get(Game, "g1")) is None
    del lines[3]
    outcome, answer = _mail(
        table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, lines)
    )
    assert outcome == "moderator: 4 done"
    assert "All 4 command(s) done" in answer and "game g1 started" in answer
    assert (
        table.run(
            lambda gm: gm.lookups.open_phase("g1").deadline - gm.lookups.open_phase("g1").opened_at
        ).total_seconds()
        == 12 * 3600
    )


def test_assign_by_mail_naming_a_key_file_says_to_paste_the_key(table, umpire_key, keys):
    """By mail there is no file to read: ``alice.pub`` (the CLI's @FILE with its "@"
    forgotten) is answered with how to paste the key, not the parser's words."""
    lines = ["CREATE g1 demo duel", "ASSIGN g1 north north@example.org north.pub"]
    outcome, answer = _mail(
        table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, lines)
    )
    assert outcome == "moderator: refused, line 2 failed; nothing done"
    words = " ".join(answer.split())
    assert "'north.pub' is not a key: paste the public key itself" in words
    assert "the whole line of the .pub file, 'ssh-ed25519 AAAA... comment'" in words
    assert "Invalid line format" not in answer
    lines[1] = f"ASSIGN g1 north north@example.org {keys['north'][1]}"
    outcome, _ = _mail(table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, lines))
    assert outcome == "moderator: 2 done"  # the key pasted whole is taken


def test_moderator_command_not_signed_by_moderator_refused_and_logged(
    table, demo_game, keys, caplog
):
    before = kinds(table)
    with caplog.at_level(logging.WARNING, logger="pbem.mailroom"):
        outcome, answer = _mail(
            table, "north@example.org", keys["north"][0], _sheet("moderator", 1, ["END g1 I win"])
        )
    assert outcome.startswith("refused: not-moderator")
    assert "not signed with the moderator's key" in answer
    assert "not signed by the moderator" in caplog.text
    assert table.run(lambda gm: gm.lookups.game("g1").status) == "running"
    assert kinds(table) == [*before, "mail-refused"]
    refusal = entries(table)[-1]["payload"]
    assert refusal["side"] == "moderator" and refusal["reason"].startswith("not-moderator")


def test_replaced_players_old_key_refused_by_mail(table, demo_game, keys):
    fresh_key, fresh_public = generate_keypair("new-south")
    do(table, f"REPLACE g1 south new@example.org {fresh_public}")
    outcome, answer = _mail(
        table, "south@example.org", keys["south"][0], _sheet("south", 1, ["SEND SQN-1 A"])
    )
    assert outcome.startswith("refused: retired-key")
    assert "was retired from game g1" in answer
    assert entries(table)[-1]["kind"] == "mail-refused"
    outcome, _ = _mail(table, "new@example.org", fresh_key, _sheet("south", 1, ["SEND SQN-1 A"]))
    assert outcome == "accepted 1, refused 0"


def test_refused_orders_are_recorded_without_their_content(table, demo_game, keys):
    outcome, answer = _mail(
        table, "north@example.org", keys["north"][0], _sheet("north", 1, ["SEND SQN-9 Q"])
    )
    assert outcome == "refused: every order line"
    assert "SQN-9 is not one of your squadrons" in answer
    refusal = entries(table)[-1]
    assert refusal["kind"] == "mail-refused"
    assert refusal["payload"]["reason"] == "every order line"
    assert "SQN-9" not in str(refusal["payload"])
    outcome, _ = _mail(
        table, "north@example.org", keys["north"][0], _sheet("north", 2, ["SEND SQN-1 A"])
    )
    assert outcome.startswith("refused: these orders are for turn 2 phase plot")
    assert "phase now open is turn 1 phase plot" in entries(table)[-1]["payload"]["reason"]


def test_unverified_mail_leaves_no_trace_in_any_record(table, demo_game):
    stranger_key, _ = generate_keypair("stranger")
    before = kinds(table)
    outcome, _ = _mail(table, "x@example.org", stranger_key, _sheet("north", 1, ["SEND SQN-1 A"]))
    assert outcome.startswith("refused: ")
    assert kinds(table) == before


def test_second_order_set_by_mail_says_it_replaces_the_first(table, demo_game, keys):
    _mail(table, "north@example.org", keys["north"][0], _sheet("north", 1, ["SEND SQN-1 A"]))
    outcome, answer = _mail(
        table, "north@example.org", keys["north"][0], _sheet("north", 1, ["SEND SQN-1 B"])
    )
    assert outcome == "accepted 1, refused 0"
    assert "they replace the set you sent before" in answer


def test_edit_by_mail(table, demo_game, umpire_key):
    outcome, answer = _mail(
        table,
        "umpire@example.org",
        umpire_key[0],
        _sheet("moderator", 1, ["EDIT g1 /score/north 2"]),
    )
    assert outcome == "moderator: 1 done"
    assert "recorded as a correcting edit" in answer
    assert open_state(table)["score"]["north"] == 2
    assert (
        table.run(
            lambda gm: gm.desk.session.get(GameState, gm.lookups.open_phase("g1").id).state[
                "score"
            ]["north"]
        )
        == 2
    )


# ------------------------------------------------ game options (issue 13): checked at CREATE


def stored_options(table, game: str = "g1") -> dict[str, Any]:
    return table.run(lambda gm: dict(gm.lookups.game(game).options))


def test_create_echoes_every_option_in_force_defaults_included(table):
    answer = do(table, "CREATE g1 usn coral-sea fog=Double-Blind subs=ON")
    assert answer == "game g1 created (usn, coral-sea); options: fog=double-blind subs=true"
    assert stored_options(table) == {"fog": "double-blind", "subs": True}
    assert do(table, "CREATE g2 usn midway").endswith("options: fog=open subs=false")
    assert stored_options(table, "g2") == {"fog": "open", "subs": False}


@pytest.mark.parametrize(
    ("word", "value"),
    [("true", True), ("Yes", True), ("on", True), ("FALSE", False), ("no", False), ("Off", False)],
)
def test_boolean_option_words(table, word, value):
    do(table, f"CREATE g1 usn coral-sea subs={word}")
    assert stored_options(table)["subs"] is value


@pytest.mark.parametrize(
    ("line", "message"),
    [
        # The two the issue saw: an open game from a misspelt mode, subs on from "false".
        ("CREATE g1 usn coral-sea fog=doubleblind", r"fog='doubleblind'.*open, double-blind"),
        ("CREATE g1 usn coral-sea subs=maybe", r"subs=.maybe.*true/false, yes/no or on/off"),
        ("CREATE g1 usn coral-sea garrisons=true", r"unknown option\(s\) garrisons.*fog .*subs"),
        ("CREATE g1 demo duel fog=double-blind", "takes no options"),
    ],
)
def test_unknown_options_and_values_refused_with_the_allowed_ones(table, line, message):
    with pytest.raises(LifecycleError, match=message):
        do(table, line)
    assert table.run(lambda gm: gm.desk.session.get(Game, "g1")) is None


def test_campaign_options_come_from_its_optional_rules(table):
    answer = do(table, "CREATE g1 usn campaign-1 burma=yes garrisons=no")
    assert "burma=true" in answer and "garrisons=false" in answer and "fog=open" in answer
    assert set(stored_options(table)) == {
        "fog",
        "subs",
        "variable_deployment",
        "japanese_variable_deployment",
        "garrisons",
        "ferry_carriers",
        "burma",
    }


def test_options_checked_the_same_by_signed_mail(table, umpire_key):
    lines = [
        "CREATE g1 usn coral-sea fog=doubleblind",
        "CREATE g2 usn coral-sea fog=double-blind subs=true",
    ]
    outcome, answer = _mail(
        table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, lines)
    )
    assert outcome == "moderator: refused, line 1 failed; nothing done"
    assert "fog takes open, double-blind" in answer
    assert "line 2: CREATE g2 usn coral-sea fog=double-blind subs=true not run" in answer
    assert table.run(lambda gm: gm.desk.session.get(Game, "g2")) is None
