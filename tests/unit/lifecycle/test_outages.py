"""Deadlines pushed back when no daemon could work (issues 14 and 19): by the outage
to the second, once, and never while another daemon worked."""

from __future__ import annotations

from datetime import timedelta

from pbem.record import journal
from pbem.service.work import Worker
from pbem.storage.models import Heartbeat
from tests.unit.lifecycle.conftest import T0

DEADLINE = T0 + timedelta(hours=72)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.now


def pushed(table) -> list[dict]:  # type: ignore[no-untyped-def]
    return table.run(
        lambda gm: [
            e["payload"]
            for e in journal.entries(gm.desk.session, "g1")
            if e["kind"] == "deadline-pushed-back"
        ]
    )


def deadline(table):  # type: ignore[no-untyped-def]
    return table.run(lambda gm: gm.lookups.open_phase("g1").deadline)


def test_downtime_is_measured_from_the_last_beat_not_rounded_to_an_interval(
    table, demo_game, sessions, config
) -> None:
    clock = Clock()
    first = Worker(config, sessions, "host:1", clock)
    clock.now = DEADLINE - timedelta(seconds=20)
    first.start_up()
    clock.now = DEADLINE - timedelta(seconds=15)
    first.heartbeat()  # its last beat: then it is killed
    clock.now = DEADLINE + timedelta(seconds=49)  # 64 s after that beat
    assert Worker(config, sessions, "host:2", clock).start_up() == ["g1"]
    assert deadline(table) == DEADLINE + timedelta(seconds=64)
    assert [p["downtime_seconds"] for p in pushed(table)] == [64]


def test_restarting_one_daemon_while_another_works_moves_nothing(
    table, demo_game, sessions, config
) -> None:
    clock = Clock()
    working = Worker(config, sessions, "host:1", clock)
    clock.now = DEADLINE - timedelta(seconds=40)
    working.start_up()
    Worker(config, sessions, "host:2", clock).start_up()  # then stopped
    for seconds in range(-35, 0, 5):  # host:1 beats on; its last beat 2 s before the deadline
        clock.now = DEADLINE + timedelta(seconds=seconds + 3)
        working.heartbeat()
    # host:2 starts again 3 s after the deadline, 5 s after host:1's last beat.
    clock.now = DEADLINE + timedelta(seconds=3)
    assert Worker(config, sessions, "host:3", clock).start_up() == []
    assert deadline(table) == DEADLINE and pushed(table) == []
    with sessions() as s:
        names = {h.name for h in s.query(Heartbeat)}
    assert {"daemon host:1", "daemon host:2", "daemon host:3"} <= names


def test_a_mailbox_outage_pushes_back_by_its_length_once(
    table, demo_game, sessions, config
) -> None:
    clock = Clock()
    first = Worker(config, sessions, "host:1", clock)
    second = Worker(config, sessions, "host:2", clock)
    clock.now = DEADLINE - timedelta(seconds=40)
    first.start_up()
    second.start_up()
    last_answer = DEADLINE - timedelta(seconds=37)
    clock.now = DEADLINE - timedelta(seconds=36)
    # Both see the mailbox gone; their rows go back to its last answer.
    assert first.heartbeat(last_answer) == [] and second.heartbeat(last_answer) == []
    assert not first.pulse.beating()
    clock.now = DEADLINE + timedelta(seconds=27)  # the mailbox answers again: 64 s later
    assert first.heartbeat() == ["g1"]
    assert second.heartbeat() == []  # recorded once, by whichever beat first
    assert first.heartbeat() == []
    assert deadline(table) == DEADLINE + timedelta(seconds=64)
    assert [p["downtime_seconds"] for p in pushed(table)] == [64]


def test_a_short_blip_or_one_daemon_losing_the_mailbox_moves_nothing(
    table, demo_game, sessions, config
) -> None:
    clock = Clock()
    cut_off = Worker(config, sessions, "host:1", clock)
    fine = Worker(config, sessions, "host:2", clock)
    clock.now = DEADLINE - timedelta(seconds=60)
    cut_off.start_up()
    fine.start_up()
    cut_off.heartbeat(DEADLINE - timedelta(seconds=59))
    for seconds in range(-55, 60, 5):  # host:2 keeps working throughout
        clock.now = DEADLINE + timedelta(seconds=seconds)
        fine.heartbeat()
    assert cut_off.heartbeat() == []
    assert deadline(table) == DEADLINE and pushed(table) == []


def test_legacy_shared_heartbeat_still_counts_once(table, demo_game, sessions, config) -> None:
    # A database from before per-daemon heartbeats: only the shared row.
    with sessions.begin() as s:
        s.add(Heartbeat(name="daemon", at=DEADLINE - timedelta(hours=1)))
    clock = Clock()
    clock.now = DEADLINE + timedelta(hours=1)
    assert Worker(config, sessions, "host:1", clock).start_up() == ["g1"]
    assert deadline(table) == DEADLINE + timedelta(hours=2)
