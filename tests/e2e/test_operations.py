"""Operations, tried on a real `pbem serve` process: the systemd watchdog over a real
unix datagram socket, the metrics endpoint scraped over HTTP, JSON logs."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.storage.enums import OutboundKind
from pbem.storage.models import OutboundMail
from tests.e2e.helpers import (
    DaemonProcess,
    ModeratorDesk,
    compose,
    moderator_desk,
    new_player,
    signed,
    submit,
    wait_until,
)
from tests.maillab import MailLab, free_port
from tests.promtext import parse


class NotifySocket:
    """What systemd listens on: a unix datagram socket; the states the daemon sent."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.received: list[str] = []

    def next(self, timeout: float = 60.0) -> str:
        self.sock.settimeout(timeout)
        try:
            state = self.sock.recv(4096).decode()
        except TimeoutError:
            raise AssertionError(
                f"nothing on NOTIFY_SOCKET for {timeout} s; so far {self.received[-10:]}"
            ) from None
        self.received.append(state)
        return state

    def until(self, wanted: str, timeout: float = 60.0) -> list[str]:
        """Read until ``wanted`` arrives; everything read on the way, ``wanted`` last."""
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while not seen or seen[-1] != wanted:
            seen.append(self.next(max(0.1, deadline - time.monotonic())))
        return seen

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def notify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NotifySocket]:
    listener = NotifySocket(tmp_path / "notify.sock")
    # The daemon subprocess inherits these, as from systemd with WatchdogSec=1.
    monkeypatch.setenv("NOTIFY_SOCKET", str(listener.path))
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")
    try:
        yield listener
    finally:
        listener.close()


def start(desk: ModeratorDesk, tmp_path: Path, extra: str = "") -> DaemonProcess:
    daemon = DaemonProcess(desk, tmp_path)
    daemon.config_path.write_text(daemon.config_path.read_text() + extra)
    daemon.start()
    return daemon


def test_watchdog_pings_only_while_every_loop_moves(
    mail_lab: MailLab, sqlite_url: str, tmp_path: Path, notify: NotifySocket
) -> None:
    desk = moderator_desk(mail_lab, sqlite_url, tmp_path)
    daemon = start(desk, tmp_path)
    try:
        assert notify.until("READY=1")[-1] == "READY=1"
        for _ in range(3):  # every half second, as WATCHDOG_USEC=1000000 asks
            assert notify.next() == "WATCHDOG=1"
        # Wedge the daemon's loops: hold SQLite's write lock, so every transaction
        # of theirs waits (up to the 30 s busy timeout).
        lock = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
        try:
            lock.execute("BEGIN EXCLUSIVE")
            seen = [notify.next()]
            while not seen[-1].startswith("STATUS=stalled: "):
                seen.append(notify.next())
            assert seen[:-1] == ["WATCHDOG=1"] * (len(seen) - 1), seen
            # Three more checks while stalled: none of them pinged.
            stalled = [notify.next() for _ in range(3)]
            assert all(s.startswith("STATUS=stalled: ") for s in stalled), stalled
            assert "made no progress; not pinging systemd" in daemon.log()
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        # Unwedged: the pings come back.
        back = notify.until("STATUS=running")
        assert "WATCHDOG=1" not in back
        assert notify.next() == "WATCHDOG=1"
        assert daemon.stop() == 0
        assert notify.until("STOPPING=1")[-1] == "STOPPING=1"
    finally:
        daemon.kill()


def test_metrics_scraped_from_a_running_daemon_with_json_logs(
    mail_lab: MailLab, database_url: str, tmp_path: Path
) -> None:
    desk = moderator_desk(mail_lab, database_url, tmp_path)
    north, south = new_player(mail_lab, "north"), new_player(mail_lab, "south")
    desk.demo_game("m1", [north, south])
    queued_at = datetime.now(UTC) - timedelta(seconds=300)
    with desk.sessions.begin() as s:
        # A mail whose next attempt is far off: it stays in the outbox.
        s.add(
            OutboundMail(
                message_id="<held@pbem.test>",
                kind=OutboundKind.NOTICE,
                sender=desk.address,
                recipient=desk.config.moderator.human,
                raw=b"",
                created_at=queued_at,
                next_attempt_at=queued_at + timedelta(days=30),
            )
        )
    port = free_port()
    daemon = start(
        desk, tmp_path, f'format = "json"\n[metrics]\nhost = "127.0.0.1"\nport = {port}\n'
    )
    try:
        daemon.wait_ready()
        submit(
            mail_lab,
            compose(north.address, desk.address, "orders", signed(north, "m1", ["SEND SQN-1 A"])),
        )
        wait_until(
            lambda: [m.status for m in desk.mails()] == ["answered"], 60, "the orders answered"
        )
        url = f"http://127.0.0.1:{port}/metrics"

        def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
            with urllib.request.urlopen(url, timeout=30) as response:
                assert response.status == 200
                assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
                types, samples = parse(response.read().decode())
            assert all(name.startswith("pbem_") for name in types), types
            return samples

        # Everything but the held mail leaves: the answer, and whatever else was queued.
        wait_until(lambda: scrape()[("pbem_outbox_depth", ())] == 1, 60, "the outbox drained")
        samples = scrape()
        sent = [m for m in desk.outgoing() if m.status == "sent"]
        assert sent and samples[("pbem_outbound_mails", (("status", "sent"),))] == len(sent)
        assert samples[("pbem_database_up", ())] == 1
        assert samples[("pbem_inbound_mails", (("status", "answered"),))] == 1
        assert samples[("pbem_inbound_mails", (("status", "failed"),))] == 0
        assert samples[("pbem_outbound_mails", (("status", "failed"),))] == 0
        assert samples[("pbem_outbox_depth", ())] == 1
        assert samples[("pbem_outbox_oldest_pending_age_seconds", ())] >= 300
        assert samples[("pbem_games", (("status", "running"),))] == 1
        assert samples[("pbem_phases_waiting", ())] == 1  # south has not sent orders
        assert samples[("pbem_mail_fetched_total", ())] == 1
        contact = samples[("pbem_mailbox_last_contact_timestamp_seconds", ())]
        assert time.time() - 120 < contact <= time.time()
        assert samples[("pbem_heartbeat_timestamp_seconds", ())] > 0
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30)
        assert refused.value.code == 404
        refused.value.close()
        assert daemon.stop() == 0
    finally:
        daemon.kill()
    entries = [json.loads(line) for line in daemon.log().splitlines() if line.strip()]
    assert entries, "no log"
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    messages = [e["message"] for e in entries]
    assert "pbem daemon ready" in messages and "pbem daemon stopped" in messages
    assert f"metrics at http://127.0.0.1:{port}/metrics" in messages
    assert desk.moderator_password not in daemon.log()
