"""The game machine on the demonstration ruleset: phases, plots, adjudication, record."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.record.chain import verify_chain
from pbem.storage.models import OutboundMail, Plot


def test_start_opens_first_phase_and_mails_reports(table, demo_game):
    def check(gm):
        phase = gm.lookups.open_phase(demo_game)
        assert (phase.turn, phase.name, phase.sides) == (1, "plot", ["north", "south"])
        assert phase.deadline == table.now + timedelta(hours=72)
        reports = gm.desk.session.scalars(
            select(OutboundMail).where(OutboundMail.kind == "report")
        ).all()
        assert sorted(r.recipient for r in reports) == ["north@example.org", "south@example.org"]
        assert b"SEND SQN-1" in open_outbound(gm.desk.key, reports[0])  # the order form

    table.run(check)


def test_sealed_plot_is_not_plaintext_in_database(table, demo_game):
    table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 B"]))

    def check(gm):
        plot = gm.desk.session.scalars(select(Plot)).one()
        assert b"SQN-1" not in plot.sealed
        assert gm.lookups.who_has_plotted(gm.lookups.open_phase(demo_game)) == {
            "north": True,
            "south": False,
        }

    table.run(check)


def test_all_orders_in_adjudicates_early_and_record_chain_holds(table, demo_game):
    table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 B"]))
    table.run(lambda gm: gm.phases.submit(demo_game, "south", 1, "plot", ["SEND SQN-1 A"]))
    did = table.run(lambda gm: gm.clock.tick(demo_game))
    assert did and "adjudicated" in did[0]

    def check(gm):
        phase = gm.lookups.open_phase(demo_game)
        assert phase.turn == 2
        entries = journal.entries(gm.desk.session, demo_game)
        assert verify_chain(entries) == []
        adjudicated = [e for e in entries if e["kind"] == "phase-adjudicated"]
        assert adjudicated[0]["payload"]["plots"]["north"]["orders"] == ["SEND SQN-1 B"]
        assert len(adjudicated[0]["payload"]["rolls"]) == 6

    table.run(check)


def test_second_order_set_replaces_first(table, demo_game):
    first = table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 B"]))
    second = table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 C"]))
    assert not first.replaced and second.replaced
    assert first.commitment != second.commitment


def test_no_late_changes_during_grace(table, demo_game):
    table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 B"]))
    table.now += timedelta(hours=73)  # past the deadline, inside the 24 h grace
    with pytest.raises(LifecycleError, match="no late changes"):
        table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 C"]))
    late = table.run(lambda gm: gm.phases.submit(demo_game, "south", 1, "plot", ["SEND SQN-2 A"]))
    assert late.late


def test_missed_deadline_applies_no_orders_policy(table, demo_game):
    table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 B"]))
    table.now += timedelta(hours=72 + 24)
    did = table.run(lambda gm: gm.clock.tick(demo_game))
    assert "deadline and grace period passed" in did[0]

    def check(gm):
        last = [
            e
            for e in journal.entries(gm.desk.session, demo_game)
            if e["kind"] == "phase-adjudicated"
        ]
        assert last[-1]["payload"]["plots"]["south"]["source"] == "policy:standing"

    table.run(check)


def test_forfeit_policy_ends_game(table, keys):
    def setup(gm):
        gm.acts.create_game(
            "g2", "demo", "duel", settings={"no_orders_policy": {"south": "forfeit"}}
        )
        gm.acts.assign("g2", "north", "n@example.org", public_key=keys["north"][1])
        gm.acts.assign("g2", "south", "s@example.org", public_key=keys["south"][1])
        gm.acts.start("g2")

    table.run(setup)
    table.now += timedelta(hours=97)
    table.run(lambda gm: gm.clock.tick("g2"))
    game = table.run(lambda gm: gm.lookups.game("g2"))
    assert game.status == "over" and game.outcome["winner"] == "north"


def test_orders_for_wrong_phase_refused(table, demo_game):
    with pytest.raises(LifecycleError, match="turn 1 phase plot"):
        table.run(lambda gm: gm.phases.submit(demo_game, "north", 2, "plot", ["SEND SQN-1 B"]))


def test_pause_resume_shifts_deadline_and_caps(table, demo_game):
    before = table.run(lambda gm: gm.lookups.open_phase(demo_game).deadline)
    table.run(lambda gm: gm.acts.pause(demo_game, "holiday"))
    table.now += timedelta(hours=10)
    table.run(lambda gm: gm.acts.resume(demo_game))
    after = table.run(lambda gm: gm.lookups.open_phase(demo_game).deadline)
    assert after - before == timedelta(hours=10)
    for _ in range(2):
        table.run(lambda gm: gm.acts.pause(demo_game, "again"))
        table.run(lambda gm: gm.acts.resume(demo_game))
    with pytest.raises(LifecycleError, match="used all"):
        table.run(lambda gm: gm.acts.pause(demo_game, "one too many"))


def test_extend_is_capped(table, demo_game):
    with pytest.raises(LifecycleError, match="at most 168"):
        table.run(lambda gm: gm.acts.extend(demo_game, 500))
    phase = table.run(lambda gm: gm.acts.extend(demo_game, 24))
    assert phase.deadline == table.now + timedelta(hours=96)


def test_deadline_pushed_back_after_downtime(table, demo_game):
    last_alive = table.now + timedelta(hours=70)
    table.now += timedelta(hours=80)  # down from hour 70 to 80: deadline (72) passed while down
    moved = table.run(lambda gm: gm.clock.push_back_deadlines(last_alive))
    assert moved == [demo_game]
    deadline = table.run(lambda gm: gm.lookups.open_phase(demo_game).deadline)
    assert deadline == table.now + timedelta(hours=2)  # the 2 h that were left


def test_rollback_replays_same_state(table, demo_game):
    """Rollback-then-replay: the same orders and seed give the same states."""
    opened = {}
    for turn in (1, 2):
        table.run(
            lambda gm, t=turn: gm.phases.submit(demo_game, "north", t, "plot", ["SEND SQN-1 B"])
        )
        table.run(
            lambda gm, t=turn: gm.phases.submit(demo_game, "south", t, "plot", ["SEND SQN-2 B"])
        )
        table.run(lambda gm: gm.clock.tick(demo_game))
        opened[turn + 1] = table.run(lambda gm: gm.lookups.open_phase(demo_game).state_hash)
    table.run(lambda gm: gm.corrections.rollback(demo_game, 1, "plot"))
    assert table.run(lambda gm: gm.lookups.open_phase(demo_game).turn) == 1
    # Held for the moderator: no orders, and the clock does not re-run it.
    with pytest.raises(LifecycleError, match="is held by the moderator"):
        table.run(lambda gm: gm.phases.submit(demo_game, "north", 1, "plot", ["SEND SQN-1 C"]))
    assert table.run(lambda gm: gm.clock.tick(demo_game)) == []
    table.run(lambda gm: gm.phases.adjudicate_now(demo_game))
    assert table.run(lambda gm: gm.lookups.open_phase(demo_game).state_hash) == opened[2]
    # Rolling back again to turn 2 of the new line needs turn 2 plotted afresh.
    table.run(lambda gm: gm.corrections.rollback(demo_game, 1, "plot", replot=True))
    phase = table.run(lambda gm: gm.lookups.open_phase(demo_game))
    assert table.run(lambda gm: gm.lookups.who_has_plotted(phase)) == {
        "north": False,
        "south": False,
    }


def test_rollback_to_missing_phase_refused(table, demo_game):
    with pytest.raises(LifecycleError, match="has no phase turn 9"):
        table.run(lambda gm: gm.corrections.rollback(demo_game, 9, "plot"))


def test_replaced_player_gets_new_seat(table, demo_game, keys):
    seat = table.run(
        lambda gm: gm.acts.replace_player(
            demo_game, "south", "new@example.org", public_key=generate_keypair()[1]
        )
    )
    assert seat.active
    players = table.run(lambda gm: [s.email for s in gm.lookups.seats(demo_game, role="player")])
    assert "south@example.org" not in players
