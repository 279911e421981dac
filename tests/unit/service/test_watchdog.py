"""The watchdog pings systemd only while every loop moves (a fake clock; the real
socket and daemon are in tests/e2e/test_operations.py)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from pbem.service.notify import sd_notify, watchdog_interval
from pbem.service.watchdog import Watchdog


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(interval: float = 10.0) -> tuple[Watchdog, Clock, list[str]]:
    sent: list[str] = []
    clock = Clock()

    def notify(state: str) -> bool:
        sent.append(state)
        return True

    return Watchdog(interval, notify=notify, clock=clock), clock, sent


def test_pings_while_every_loop_beats_in_time() -> None:
    dog, clock, sent = make()
    dog.beat("intake", 2.0)
    dog.beat("heartbeat", 30.0)
    for _ in range(5):
        clock.now += 5
        dog.beat("intake", 2.0)
        assert dog.tick()
    assert sent == ["WATCHDOG=1"] * 5


def test_a_loop_overdue_by_more_than_the_interval_stops_the_pings(
    caplog: pytest.LogCaptureFixture,
) -> None:
    dog, clock, sent = make(interval=10.0)
    dog.beat("outbox", 5.0)
    dog.beat("intake", 2.0)
    clock.now += 14.9  # outbox: 5 s + 10 s allowed
    dog.beat("intake", 2.0)
    assert dog.tick()
    clock.now += 0.2
    dog.beat("intake", 2.0)
    assert not dog.tick()
    assert not dog.tick()
    assert sent == ["WATCHDOG=1", "STATUS=stalled: outbox", "STATUS=stalled: outbox"]
    assert caplog.text.count("loop(s) outbox made no progress") == 1  # logged once
    dog.beat("outbox", 5.0)
    assert dog.tick()
    assert sent[-2:] == ["STATUS=running", "WATCHDOG=1"]


def test_waiting_on_a_mail_server_is_not_being_stuck() -> None:
    dog, clock, sent = make(interval=10.0)
    dog.beat("intake", 1.0)
    with dog.waiting("intake"):
        clock.now += 600  # an IMAP outage: the inbox reconnects on its own
        assert dog.tick()
        assert dog.ages() == {"intake": 0.0}
    # Judged again from the end of the wait.
    clock.now += 10.5
    assert dog.tick()
    clock.now += 1
    assert not dog.tick()
    assert sent[-1] == "STATUS=stalled: intake"


def test_interval_from_the_environment() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 30
    # Meant for another process (a worker inherited the variables): not ours to ping.
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None


def test_sd_notify_sends_one_datagram(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert sd_notify("WATCHDOG=1")
        assert listener.recv(100) == b"WATCHDOG=1"
    # The listener is gone: the daemon carries on.
    assert not sd_notify("WATCHDOG=1")
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not sd_notify("READY=1")
