"""Deadlines (issue 3): stored in UTC, shown in each player's zone; reminders; grace;
deadlines that passed while the daemon was down are pushed back, not enforced."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from pbem.config import GamesConfig
from pbem.core.errors import LifecycleError
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import sign_block
from pbem.lifecycle import deadlines, moderator
from pbem.lifecycle.mailroom import Mailroom, file_mail
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.service.work import Worker
from pbem.storage.models import Heartbeat, OutboundMail, Report

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)  # the lifecycle fixtures' clock


def text_of(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    part = msg.get_body(("plain",))
    assert part is not None
    return " ".join(str(part.get_content()).split())


@pytest.fixture
def zoned_game(table, keys) -> str:
    """g1 with north in Berlin and south in New York; deadline 72 h after T0."""

    def setup(gm):
        gm.acts.create_game("g1", "demo", "duel")
        gm.acts.assign(
            "g1",
            "north",
            "north@example.org",
            public_key=keys["north"][1],
            timezone="Europe/Berlin",
        )
        gm.acts.assign(
            "g1",
            "south",
            "south@example.org",
            public_key=keys["south"][1],
            timezone="America/New_York",
        )
        gm.acts.start("g1")

    table.run(setup)
    return "g1"


# ------------------------------------------------------------------ pure arithmetic


@pytest.mark.parametrize(
    ("at", "tz", "shown"),
    [
        (datetime(2026, 11, 4, 12, 0, tzinfo=UTC), "Europe/Berlin", "Wed 04 Nov 2026 13:00 CET"),
        (datetime(2026, 7, 4, 12, 0, tzinfo=UTC), "Europe/Berlin", "Sat 04 Jul 2026 14:00 CEST"),
        (datetime(2026, 11, 4, 12, 0, tzinfo=UTC), "America/New_York", "Wed 04 Nov 2026 07:00 EST"),
        (datetime(2026, 11, 4, 20, 0, tzinfo=UTC), "Asia/Tokyo", "Thu 05 Nov 2026 05:00 JST"),
        (datetime(2026, 11, 4, 12, 0, tzinfo=UTC), "UTC", "Wed 04 Nov 2026 12:00 UTC"),
    ],
)
def test_local_time_shows_the_players_zone(at, tz, shown):
    assert deadlines.local_time(at, tz) == shown


def test_phase_times_deadline_grace_and_reminder():
    settings = deadlines.game_settings(GamesConfig(), {"deadline_hours": 48, "grace_hours": 6})
    times = deadlines.phase_times(T0, settings)
    assert times.deadline == T0 + timedelta(hours=48)
    assert times.grace_until == T0 + timedelta(hours=54)
    assert times.remind_at == T0 + timedelta(hours=24)  # reminder_hours defaults to 24
    short = deadlines.phase_times(T0, {**settings, "deadline_hours": 2})
    assert short.remind_at == T0  # never before the phase opened


def test_no_orders_policy_per_side():
    settings = {"no_orders_policy": {"north": "forfeit", "south": "nothing"}}
    assert deadlines.no_orders_policy(settings, "north") == "forfeit"
    assert deadlines.no_orders_policy(settings, "south") == "nothing"
    assert deadlines.no_orders_policy({"no_orders_policy": {}}, "north") == "standing"
    with pytest.raises(ValueError, match="unknown no-orders policy"):
        deadlines.no_orders_policy({"no_orders_policy": "maybe"}, "north")


moments = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)


@given(deadline=moments, last_alive=moments, now=moments)
def test_pushed_back_keeps_exactly_the_time_that_was_left(deadline, last_alive, now):
    moved = deadlines.pushed_back(deadline, last_alive, now)
    if last_alive < deadline <= now:
        assert moved is not None
        assert moved - now == deadline - last_alive  # what was left when the daemon went away
        assert moved > now
    else:
        assert moved is None


# ------------------------------------------------------------------ the game machine


def test_deadline_stored_in_utc_shown_in_each_players_zone(table, zoned_game):
    phase = table.run(lambda gm: gm.lookups.open_phase("g1"))
    assert phase.deadline == T0 + timedelta(hours=72)
    assert phase.deadline.utcoffset() == timedelta(0)
    texts = table.run(
        lambda gm: {r.audience: r.text for r in gm.desk.session.scalars(select(Report))}
    )
    assert "Wed 04 Nov 2026 13:00 CET" in texts["north"]
    assert "Wed 04 Nov 2026 07:00 EST" in texts["south"]
    assert "07:00 EST" not in texts["north"] and "13:00 CET" not in texts["south"]


def test_times_given_in_another_zone_are_stored_as_utc(table, zoned_game):
    table.now = T0.astimezone(ZoneInfo("Asia/Tokyo")) + timedelta(hours=1)
    table.run(lambda gm: gm.acts.extend("g1", 1))
    phase = table.run(lambda gm: gm.lookups.open_phase("g1"))
    assert phase.deadline.tzinfo is not None and phase.deadline.utcoffset() == timedelta(0)
    assert phase.deadline == T0 + timedelta(hours=73)


def test_unknown_time_zone_refused(table, keys):
    table.run(lambda gm: gm.acts.create_game("g1", "demo", "duel"))
    with pytest.raises(LifecycleError, match="unknown time zone 'Mars/Olympus'"):
        table.run(
            lambda gm: moderator.execute(
                gm, f"ASSIGN g1 north n@example.org {keys['north'][1]} tz=Mars/Olympus"
            )
        )


def test_unknown_no_orders_policy_refused_as_a_moderator_error(table):
    with pytest.raises(LifecycleError, match="unknown no-orders policy 'sometimes'"):
        table.run(
            lambda gm: moderator.execute(gm, "CREATE g1 demo duel no_orders_policy=sometimes")
        )


def test_reminder_to_the_side_that_owes_orders_in_its_zone(table, zoned_game):
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.now = T0 + timedelta(hours=47)
    assert table.run(lambda gm: gm.clock.tick("g1")) == []  # not yet: 24 h before the deadline
    table.now = T0 + timedelta(hours=48, minutes=1)
    assert table.run(lambda gm: gm.clock.tick("g1")) == ["reminded south"]
    assert table.run(lambda gm: gm.clock.tick("g1")) == []  # once
    reminders = table.run(
        lambda gm: [
            (m.recipient, text_of(open_outbound(gm.desk.key, m)))
            for m in gm.desk.session.scalars(
                select(OutboundMail).where(OutboundMail.kind == "reminder")
            )
        ]
    )
    assert len(reminders) == 1
    to, text = reminders[0]
    assert to == "south@example.org"
    assert "by Wed 04 Nov 2026 07:00 EST" in text
    assert "(Thu 05 Nov 2026 07:00 EST)" in text and "policy applies: standing" in text


def test_answer_shows_the_deadline_in_the_senders_zone(table, zoned_game, keys):
    msg = EmailMessage()
    msg["From"] = "north@example.org"
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = "orders"
    msg["Message-ID"] = "<t1@example.org>"
    block = "Game: g1\nSide: north\nTurn: 1\nPhase: plot\n\nSEND SQN-1 B\n"
    msg.set_content(sign_block(add_nonce(block), keys["north"][0]))

    def go(gm):
        row = file_mail(gm.desk.session, "ref", msg.as_bytes(), gm.desk.now, gm.desk.key)
        assert row is not None
        Mailroom(gm).process(row)
        answer = gm.desk.session.scalars(
            select(OutboundMail).where(OutboundMail.kind == "answer")
        ).one()
        return text_of(open_outbound(gm.desk.key, answer))

    assert "Deadline: Wed 04 Nov 2026 13:00 CET" in table.run(go)


def test_late_orders_accepted_within_grace_then_refused(table, zoned_game):
    table.now = T0 + timedelta(hours=80)  # past the deadline, within the 24 h grace
    receipt = table.run(lambda gm: gm.phases.submit("g1", "south", 1, "plot", ["SEND SQN-2 B"]))
    assert receipt.late
    # A side already late may still correct itself within grace; an on-time side may not.
    assert table.run(
        lambda gm: gm.phases.submit("g1", "south", 1, "plot", ["SEND SQN-2 C"])
    ).replaced
    table.now = T0 + timedelta(hours=97)
    did = table.run(lambda gm: gm.clock.tick("g1"))
    assert did == ["adjudicated turn 1 phase plot: deadline and grace period passed"]
    with pytest.raises(LifecycleError, match="turn 2 phase plot"):
        table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))


def test_orders_after_grace_refused_even_before_the_clock_ticks(table, keys):
    def setup(gm):
        gm.acts.create_game("g1", "demo", "duel", settings={"grace_hours": 0})  # late: refused
        gm.acts.assign("g1", "north", "north@example.org", public_key=keys["north"][1])
        gm.acts.assign("g1", "south", "south@example.org", public_key=keys["south"][1])
        gm.acts.start("g1")

    table.run(setup)
    table.now = T0 + timedelta(hours=72)
    with pytest.raises(LifecycleError, match="deadline and grace period of turn 1 phase plot"):
        table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.now = T0 + timedelta(hours=71, minutes=59)
    assert not table.run(
        lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"])
    ).late


# ------------------------------------------------------------------ downtime


def _pushed(table) -> list[dict]:
    return table.run(
        lambda gm: [
            e["payload"]
            for e in journal.entries(gm.desk.session, "g1")
            if e["kind"] == "deadline-pushed-back"
        ]
    )


def test_deadline_passed_while_down_is_pushed_back_not_enforced(table, zoned_game):
    last_alive = T0 + timedelta(hours=71)  # one hour left when the daemon went away
    table.now = T0 + timedelta(hours=100)  # past deadline and grace on restart
    assert table.run(lambda gm: gm.clock.push_back_deadlines(last_alive)) == ["g1"]
    phase = table.run(lambda gm: gm.lookups.open_phase("g1"))
    assert phase.deadline == table.now + timedelta(hours=1)
    assert phase.grace_until == phase.deadline + timedelta(hours=24)
    # Nothing adjudicated retroactively: the sides that owe orders are reminded instead.
    assert table.run(lambda gm: gm.clock.tick("g1")) == ["reminded north", "reminded south"]
    assert _pushed(table) == [
        {"phase_seq": 1, "downtime_seconds": 29 * 3600, "deadline": phase.deadline.isoformat()}
    ]
    # On time still counts as on time: the hour that was left.
    assert not table.run(
        lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"])
    ).late


def test_grace_passed_while_down_is_pushed_back(table, zoned_game):
    last_alive = T0 + timedelta(hours=80)  # went down during the grace period
    table.now = T0 + timedelta(hours=100)
    assert table.run(lambda gm: gm.clock.push_back_deadlines(last_alive)) == ["g1"]
    phase = table.run(lambda gm: gm.lookups.open_phase("g1"))
    assert phase.grace_until == table.now + timedelta(hours=16)
    assert not any("adjudicated" in did for did in table.run(lambda gm: gm.clock.tick("g1")))
    assert table.run(lambda gm: gm.lookups.open_phase("g1").seq) == 1


def test_deadline_not_reached_while_down_is_left_alone(table, zoned_game):
    table.now = T0 + timedelta(hours=30)
    assert table.run(lambda gm: gm.clock.push_back_deadlines(T0 + timedelta(hours=10))) == []
    assert table.run(lambda gm: gm.lookups.open_phase("g1").deadline) == T0 + timedelta(hours=72)
    assert _pushed(table) == []


def test_restart_pushes_back_from_the_heartbeat(table, zoned_game, sessions, config):
    with sessions.begin() as s:
        s.add(Heartbeat(name="daemon", at=T0 + timedelta(hours=70)))
    restart = T0 + timedelta(hours=90)
    worker = Worker(config, sessions, "test:1", lambda: restart)
    assert worker.start_up() == ["g1"]
    assert table.run(lambda gm: gm.lookups.open_phase("g1").deadline) == restart + timedelta(
        hours=2
    )
    with sessions() as s:
        beat = s.get(Heartbeat, "daemon")
        assert beat is not None and beat.at == restart
    # A second start-up at once finds nothing more to move.
    assert worker.start_up() == []
