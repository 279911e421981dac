"""Issue 18, "wrong today": the moderator's desk, by ``moderator.execute`` and by mail.

Rulings that keep secrets, a rollback that waits for the moderator with a fresh
seed where a side may plot, acts announced to the seats they concern, command
mails all or nothing from registered addresses only, arguments checked, and
answers to a seat's registered address.
"""

from __future__ import annotations

import email
import email.policy
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.outbox.queue import open_outbound
from pbem.storage.models import Game, OutboundMail
from tests.unit.lifecycle import test_moderator
from tests.unit.lifecycle.test_moderator import _mail, _sheet, do, entries, kinds, play_turn

# The moderator's key and addresses (human, deputy) of the commands-by-mail tests.
config = test_moderator.config
umpire_key = test_moderator.umpire_key


def mails(table, since: int = 0) -> list[tuple[str, str, str]]:
    """(recipient, subject, text) of every queued mail with an id above ``since``."""

    def read(gm):
        out = []
        for m in gm.desk.session.scalars(
            select(OutboundMail).where(OutboundMail.id > since).order_by(OutboundMail.id)
        ):
            msg = email.message_from_bytes(
                open_outbound(gm.desk.key, m), policy=email.policy.default
            )
            assert isinstance(msg, EmailMessage)
            part = msg.get_body(("plain",))
            assert part is not None
            out.append((m.recipient, str(msg["Subject"]), str(part.get_content())))
        return out

    return table.run(read)


def last_id(table) -> int:
    return table.run(lambda gm: max(gm.desk.session.scalars(select(OutboundMail.id)), default=0))


def observed_game(table, keys) -> None:
    def setup(gm):
        gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": True})
        gm.acts.assign("g1", "north", "north@example.org", public_key=keys["north"][1])
        gm.acts.assign("g1", "south", "south@example.org", public_key=keys["south"][1])
        gm.acts.add_observer("g1", "press@example.org", None)
        gm.acts.start("g1")

    table.run(setup)


# ------------------------------------------------------------------ 1. rulings


def test_a_ruling_per_side_reaches_only_that_side_and_never_the_dispute_text(table, keys):
    observed_game(table, keys)
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    secret = "DISPUTE my transport TK-7 carries the 4th Division to zone C"
    dispute = table.run(lambda gm: gm.disputes.file("g1", "south", 1, "plot", secret).id)
    before = last_id(table)
    said = do(
        table,
        f'RULE g1 {dispute} UPHELD north="A south unit was misplaced; turn 1 is replayed" '
        f'south="Your transport\'s landing is corrected"',
    )
    assert said.endswith("(each side its own text)")
    got = {to: text for to, _, text in mails(table, before)}
    assert set(got) == {"north@example.org", "south@example.org", "press@example.org"}
    assert "misplaced" in got["north@example.org"] and "landing" not in got["north@example.org"]
    assert "landing" in got["south@example.org"] and "misplaced" not in got["south@example.org"]
    assert "misplaced" in got["press@example.org"] and "landing" in got["press@example.org"]
    assert not any("TK-7" in text for text in got.values())
    ruled = entries(table)[-1]["payload"]
    assert ruled["rulings"]["south"] == "Your transport's landing is corrected"


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ('north="only one side"', "names every side of g1 .* missing: south"),
        ('north="a" north="b"', "north is given two rulings"),
        ('north="a" south=', "the ruling for south is empty"),
        ('north="a" east="b"', 'write side="text" for each side'),
    ],
)
def test_a_ruling_per_side_names_every_side_once(table, demo_game, words, message):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    dispute = table.run(lambda gm: gm.disputes.file("g1", "north", 1, "plot", "DISPUTE x").id)
    with pytest.raises(LifecycleError, match=message):
        do(table, f"RULE g1 {dispute} DISMISSED {words}")


# ------------------------------------------------------------------ 2, 3. rollback


def test_a_rollback_holds_the_game_until_the_moderator_resumes_it(table, demo_game):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    do(table, "ROLLBACK g1 1 plot")
    # All orders are in, yet the clock neither adjudicates nor reminds: it waits.
    table.now += timedelta(days=30)
    assert table.run(lambda gm: gm.clock.tick("g1")) == []
    assert table.run(lambda gm: gm.lookups.open_phase("g1").turn) == 1
    before = last_id(table)
    said = do(table, "RESUME g1")
    assert "released (rollback to turn 1 phase plot)" in said
    assert table.run(lambda gm: gm.lookups.game("g1").held) is None
    # Nobody may change orders (both were in): the seed is the one used before.
    k = kinds(table)
    assert k[-1] == "hold-released"
    assert [to for to, subject, _ in mails(table, before)] == [
        "north@example.org",
        "south@example.org",
    ]
    assert "adjudicated" in table.run(lambda gm: gm.clock.tick("g1"))[0]


def test_a_rollback_never_ends_a_pause(table, demo_game):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    do(table, "PAUSE g1 holiday")
    do(table, "ROLLBACK g1 1 plot")
    assert table.run(lambda gm: gm.lookups.game("g1").status) == "paused"
    do(table, "RESUME g1")  # ends the pause and the hold
    game = table.run(lambda gm: (gm.lookups.game("g1").status, gm.lookups.game("g1").held))
    assert game == ("running", None)


def test_whenever_a_side_may_plot_after_a_rollback_the_seed_is_new_and_mailed(table, demo_game):
    # Turn 1: south sends nothing (the no-orders policy applies at the deadline).
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.now += timedelta(days=5)
    table.run(lambda gm: gm.clock.tick("g1"))
    first = table.run(lambda gm: gm.lookups.line_of_play("g1")[0].seed_commitment)
    said = do(table, "ROLLBACK g1 1 plot SQN-3 fought at the wrong strength")
    assert "south may send orders, under a new seed" in said
    phase = table.run(lambda gm: gm.lookups.open_phase("g1"))
    assert phase.seed_commitment != first
    rolled = next(e["payload"] for e in entries(table) if e["kind"] == "rolled-back")
    assert rolled["fresh_seed"] and rolled["reason"] == "SQN-3 fought at the wrong strength"
    # North's orders stay locked; south's may come once released.
    before = last_id(table)
    do(table, "RESUME g1")
    got = {to: text for to, _, text in mails(table, before)}
    assert phase.seed_commitment in got["south@example.org"]
    assert "----- order form -----" in got["south@example.org"]
    assert "order form" not in got["north@example.org"]
    with pytest.raises(LifecycleError, match="cannot be changed"):
        table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 C"]))
    table.run(lambda gm: gm.phases.submit("g1", "south", 1, "plot", ["SEND SQN-2 A"]))


def test_rollback_edit_adjudicate_in_one_go(table, demo_game):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    do(table, "ROLLBACK g1 1 plot SQN-3 fought at the wrong strength")
    do(table, "EDIT g1 /forces/south/SQN-3 2")
    before = last_id(table)
    assert do(table, "ADJUDICATE g1").endswith("turn 2 plot open")
    reports = [(s, t) for to, s, t in mails(table, before) if to == "north@example.org"]
    assert "turn 1 plot report (corrected); next turn 2 plot" in reports[0][0]
    assert (
        "Corrected report: it replaces the report of turn 1 phase plot sent before, since "
        "the moderator rolled the game back to turn 1 phase plot (SQN-3 fought at the wrong "
        "strength)." in " ".join(reports[0][1].split())
    )
    assert table.run(lambda gm: gm.lookups.game("g1").held) is None
    assert "hold-released" in kinds(table)


# ------------------------------------------------------------------ 4. announcements


def test_acts_are_announced_and_an_edit_hides_what_it_changed(table, keys):
    observed_game(table, keys)
    before = last_id(table)
    do(table, "EXTEND g1 5")
    do(table, "PAUSE g1 the moderator is travelling")
    do(table, "RESUME g1")
    do(table, "EDIT g1 /forces/south/SQN-3 4")
    got = mails(table, before)
    subjects = [s for _, s, _ in got]
    for words in ("deadline extended", "game paused", "game resumed", "state corrected"):
        assert sum(words in s for s in subjects) == 3, (words, subjects)
    edits = {to: text for to, s, text in got if "state corrected" in s}
    assert "/forces/south/SQN-3" not in edits["north@example.org"]
    assert "/forces/south/SQN-3" not in edits["south@example.org"]
    assert "/forces/south/SQN-3: 1 -> 4" in edits["press@example.org"]
    assert any("travelling" in t for to, s, t in got if to == "north@example.org")


def test_end_sends_the_final_reports(table, demo_game):
    before = last_id(table)
    do(table, "END g1 the club closed")
    finals = [(to, s) for to, s, _ in mails(table, before) if "game over" in s]
    assert sorted(to for to, _ in finals) == ["north@example.org", "south@example.org"]


def test_a_replacement_player_gets_his_report_and_form_at_once(table, demo_game):
    before = last_id(table)
    do(table, f"REPLACE g1 south new@example.org {generate_keypair()[1]}")
    got = mails(table, before)
    report = [t for to, s, t in got if to == "new@example.org" and "next turn 1 plot" in s]
    assert report and "SEND SQN-1" in report[0]  # the order form
    assert not any(to == "south@example.org" and "turn 1" in s for to, s, _ in got)


def test_auto_resume_is_announced(table, demo_game):
    do(table, "PAUSE g1 holiday")
    before = last_id(table)
    table.now += timedelta(days=60)
    assert "resumed (pause cap reached)" in table.run(lambda gm: gm.clock.tick("g1"))
    texts = [t for _, s, t in mails(table, before) if "game resumed" in s]
    assert len(texts) == 2 and "the longest pause allowed has passed" in texts[0]


# ------------------------------------------------------------------ 7. input


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("CREATE g9 demo duel deadline_hours=-5", "deadline_hours='-5' is not a valid value"),
        ("CREATE g9 demo duel max_pauses=-1", "max_pauses='-1' is not a valid value"),
        ("CREATE g9 demo duel early_adjudication=perhaps", "not a valid value"),
        ("CREATE g9 demo duel colour=red", "unknown option"),
        ("EXTEND g1 -3", "more than 0"),
        ("OBSERVE g1 not-an-email", "'not-an-email' is not a mail address"),
        ("REPLACE g1 south x@example.org ssh-rsa AAAAB3NzaC1yc2E= bob", "unusable key"),
        ("EDIT g1 /forces/north/SQN-1 strong", 'holds integer 3; "strong" is string'),
        ('EDIT g1 /forces/north "x"', "holds object"),
    ],
)
def test_bad_arguments_refused_and_nothing_stored(table, demo_game, line, message):
    before = kinds(table)
    with pytest.raises(LifecycleError, match=message):
        do(table, line)
    assert kinds(table) == before
    assert table.run(lambda gm: gm.desk.session.get(Game, "g9")) is None


def test_one_key_cannot_play_both_sides(table, keys):
    table.run(lambda gm: gm.acts.create_game("g1", "demo", "duel"))
    do(table, f"ASSIGN g1 north north@example.org {keys['north'][1]}")
    with pytest.raises(LifecycleError, match="that key already plays north in g1"):
        do(table, f"ASSIGN g1 south south@example.org {keys['north'][1]}")


# ------------------------------------------------------------------ 5, 6, 8. by mail


def test_commands_only_from_registered_addresses_and_the_refusal_alerts_at_once(
    table, demo_game, umpire_key
):
    before = kinds(table)
    outcome, answer = _mail(
        table, "intruder@example.org", umpire_key[0], _sheet("moderator", 1, ["END g1"])
    )
    assert outcome.startswith("refused: not-moderator")
    assert "only from the moderator's registered addresses" in answer
    assert table.run(lambda gm: gm.lookups.game("g1").status) == "running"
    assert kinds(table) == [*before, "mail-refused"]
    alert = [(s, t) for to, s, t in mails(table) if to == "umpire@example.org"]
    assert alert and "ALERT" in alert[-1][0] and "intruder@example.org" in alert[-1][1]


def test_a_deputy_address_acts_the_moderator_gets_a_copy_and_the_record_says_who(
    table, demo_game, umpire_key
):
    before = last_id(table)
    outcome, _ = _mail(
        table, "deputy@example.org", umpire_key[0], _sheet("moderator", 1, ["EXTEND g1 2"])
    )
    assert outcome == "moderator: 1 done"
    copies = [s for to, s, _ in mails(table, before) if to == "umpire@example.org"]
    assert copies and "copy: commands from deputy@example.org" in copies[0]
    acted = entries(table)[-1]
    assert acted["kind"] == "moderator-command"
    assert acted["payload"]["by"] == "deputy@example.org"
    assert acted["payload"]["via"] == "mail" and acted["payload"]["command"] == "EXTEND"


def test_the_moderator_is_never_rate_limited(table, demo_game, umpire_key, config):
    for n in range(config.intake.rate_limit + 2):
        outcome, _ = _mail(
            table, "umpire@example.org", umpire_key[0], _sheet("moderator", 1, ["STATUS g1"])
        )
        assert outcome == "moderator: 1 done", n


def test_an_apostrophe_fails_its_line_and_nothing_after_it_runs(table, demo_game, umpire_key):
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    dispute = table.run(lambda gm: gm.disputes.file("g1", "north", 1, "plot", "DISPUTE x").id)
    lines = [f"RULE g1 {dispute} UPHELD the carrier's escort was wrong", "ROLLBACK g1 1 plot"]
    outcome, answer = _mail(
        table, "umpire@example.org", umpire_key[0], _sheet("moderator", 2, lines)
    )
    assert outcome == "moderator: refused, line 1 failed; nothing done"
    assert "apostrophe in double quotes" in answer and "ROLLBACK g1 1 plot not run" in answer
    assert "rolled-back" not in kinds(table)
    lines[0] = f'RULE g1 {dispute} UPHELD "the carrier\'s escort was wrong"'
    outcome, _ = _mail(table, "umpire@example.org", umpire_key[0], _sheet("moderator", 2, lines))
    assert outcome == "moderator: 2 done"


def test_after_replace_the_old_address_gets_nothing_and_is_refused(table, demo_game, umpire_key):
    new_key, new_public = generate_keypair("new-south")
    do(table, f"REPLACE g1 south new@example.org {new_public}")
    before = last_id(table)
    outcome, answer = _mail(
        table, "south@example.org", new_key, _sheet("south", 1, ["SEND SQN-1 A"])
    )
    assert outcome.startswith("refused: wrong-address")
    assert "under another address" in answer
    play_turn(table, 1, ["SEND SQN-1 A"], ["SEND SQN-1 B"])
    assert [to for to, s, _ in mails(table, before) if "turn 2" in s] == [
        "north@example.org",
        "new@example.org",
    ]


# ------------------------------------------------------------------ 9. alerts


def test_the_moderator_gets_a_digest_at_most_once_an_hour(table, demo_game):
    def deadline_passes() -> list[str]:
        phase = table.run(lambda gm: gm.lookups.open_phase("g1"))
        table.now = phase.grace_until + timedelta(minutes=1)
        return table.run(lambda gm: gm.clock.tick("g1"))

    def digests() -> list[str]:
        return [t for to, s, t in mails(table) if to == "umpire@example.org" and "digest" in s]

    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    assert "deadline and grace period passed" in deadline_passes()[0]
    assert "missed turn: south sent no orders for turn 1 plot" in digests()[0]
    # Turn 2 is missed too, within the hour (adjudicated at once): no second mail yet.
    table.run(lambda gm: gm.phases.submit("g1", "north", 2, "plot", ["SEND SQN-1 B"]))
    do(table, "ADJUDICATE g1")
    table.run(lambda gm: gm.clock.tick("g1"))
    assert len(digests()) == 1
    table.now += timedelta(hours=1)
    table.run(lambda gm: gm.clock.tick("g1"))
    assert "missed turn: south sent no orders for turn 2 plot" in digests()[1]
    assert "turn 1 plot" not in digests()[1]
