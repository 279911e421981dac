"""The sent journal (pbem.service.sentjournal): a mail the server accepted is
written down before its database mark, and a daemon killed before the mark's
commit does not have the next one send it again (the same Message-ID twice):
the next outbox round replays the journal first. Replaying is idempotent, the
lines are dropped once the marks are committed, and a journal that cannot be
written leaves the outbox as it was without one (the mark alone)."""

from __future__ import annotations

import asyncio
import dataclasses
import fcntl
import logging
import os
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from pbem.config import Config, OutboxConfig
from pbem.record import journal as record
from pbem.record.payloads import ReportDelivered
from pbem.service.daemon import Daemon
from pbem.service.sentjournal import SentJournal
from pbem.storage.enums import OutboundStatus
from pbem.storage.models import DaemonLease, OutboundMail
from tests.unit.service.test_answers_first import _setup


class _Server:
    """Accepts every mail and remembers its Message-ID."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    async def send(self, sender: str, recipients: Sequence[str], raw: bytes) -> None:
        for line in raw.split(b"\r\n" if b"\r\n" in raw else b"\n"):
            if line.lower().startswith(b"message-id:"):
                self.ids.append(line.split(b":", 1)[1].strip().decode())
                return
        raise AssertionError("a mail without a Message-ID")

    async def close(self) -> None:
        pass


class _Killed(BaseException):
    """Stands in for kill -9: the marking commit never happens."""


def _killed_before_marking(ids: object) -> set[int]:
    raise _Killed


def _statuses(daemon: Daemon) -> dict[str, OutboundStatus]:
    with daemon.worker.sessions() as s:
        rows = s.execute(select(OutboundMail.message_id, OutboundMail.status)).all()
    return {r.message_id: OutboundStatus(r.status) for r in rows}


def _lease_ended(daemon: Daemon) -> None:
    """As a kill's lease does a lease time later (bench/killloop.py ends it so)."""
    with daemon.worker.sessions.begin() as s:
        s.execute(
            update(DaemonLease)
            .where(DaemonLease.id == daemon.worker.owner)
            .values(lease_until=datetime.now(UTC) - timedelta(days=1))
        )


def _killed_daemon(config: Config) -> tuple[Daemon, _Server]:
    """A daemon whose outbox had the server accept every due mail (START's
    reports) and was killed before marking any of them sent."""
    server = _Server()
    daemon = Daemon(config, sender=server)
    daemon.outbox.marks._mark = _killed_before_marking
    with pytest.raises(_Killed):
        asyncio.run(daemon.outbox.round())
    assert server.ids, "the server accepted mail"
    return daemon, server


def test_a_mail_accepted_before_a_kill_is_not_sent_again(database_url, tmp_path):
    config = _setup(database_url, tmp_path)
    first, accepted = _killed_daemon(config)
    path = config.sent_journal()
    assert path is not None and path.exists()
    assert set(first.outbox.journal.read().values()) == set(accepted.ids)
    assert {_statuses(first)[m] for m in accepted.ids} == {OutboundStatus.PENDING}
    _lease_ended(first)

    server = _Server()
    second = Daemon(config, sender=server)
    asyncio.run(second.outbox.round())
    assert not set(server.ids) & set(accepted.ids), "sent again after the kill"
    statuses = _statuses(second)
    assert {statuses[m] for m in accepted.ids} == {OutboundStatus.SENT}
    with second.worker.sessions() as s:
        rows = s.execute(
            select(OutboundMail.sent_at, OutboundMail.attempts, OutboundMail.claim_owner).where(
                OutboundMail.message_id.in_(accepted.ids)
            )
        ).all()
        delivered = record.entries(s, "g1", [ReportDelivered.kind])
    assert all(r.sent_at is not None and r.attempts == 1 and r.claim_owner is None for r in rows)
    # As the daemon's own mark does: each report's delivery is in the game's record.
    assert sorted(e["payload"]["message_id"] for e in delivered) == sorted(
        accepted.ids + server.ids
    )
    # The lines of committed marks are dropped: the killed daemon's by the replay,
    # those of the mails sent since by the next round's.
    assert set(second.outbox.journal.read().values()) == set(server.ids)
    asyncio.run(second.outbox.round())
    assert path.read_bytes() == b""


def test_a_live_peers_journaled_mail_is_left_to_it_until_its_lease_lapses(database_url, tmp_path):
    config = _setup(database_url, tmp_path)
    first, accepted = _killed_daemon(config)
    second = Daemon(config, sender=_Server())
    # The first daemon's lease still runs: it may be alive, marking them itself.
    asyncio.run(second.outbox.round())
    assert {_statuses(second)[m] for m in accepted.ids} == {OutboundStatus.PENDING}
    assert set(second.outbox.journal.read().values()) == set(accepted.ids), "kept"
    _lease_ended(first)
    server = _Server()
    second.sender = second.outbox.sender = server
    asyncio.run(second.outbox.round())
    assert not set(server.ids) & set(accepted.ids)
    assert {_statuses(second)[m] for m in accepted.ids} == {OutboundStatus.SENT}
    assert not set(second.outbox.journal.read().values()) & set(accepted.ids)


def test_replaying_the_journal_is_idempotent(database_url, tmp_path):
    config = _setup(database_url, tmp_path)
    first, _ = _killed_daemon(config)
    _lease_ended(first)
    listed = first.outbox.journal.read()
    worker = Daemon(config, sender=_Server()).worker
    marked, done = worker.replay_sent(listed)
    assert marked == done == set(listed)
    with worker.sessions() as s:
        delivered = len(record.entries(s, "g1", [ReportDelivered.kind]))
    # Again (a second daemon replaying the same lines, or a replay cut short
    # before its lines were dropped): nothing more marked, every line done.
    assert worker.replay_sent(listed) == (set(), set(listed))
    with worker.sessions() as s:
        assert len(record.entries(s, "g1", [ReportDelivered.kind])) == delivered
    # A line of another database's mail (its Message-ID does not match): done, not marked.
    other = next(iter(listed))
    with worker.sessions.begin() as s:
        s.execute(
            update(OutboundMail)
            .where(OutboundMail.id == other)
            .values(status=OutboundStatus.PENDING, claim_owner=None)
        )
    assert worker.replay_sent({other: "<elsewhere@pbem.example>"}) == (set(), {other})


def test_an_unwritable_journal_falls_back_to_the_mark_alone(database_url, tmp_path, caplog):
    config = _setup(database_url, tmp_path)
    # A folder where the file should be: every append fails, as on a full disk.
    (tmp_path / "journal").mkdir()
    config = dataclasses.replace(
        config, outbox=dataclasses.replace(config.outbox, journal=str(tmp_path / "journal"))
    )
    server = _Server()
    daemon = Daemon(config, sender=server)
    with caplog.at_level(logging.WARNING, logger="pbem.service"):
        sent = asyncio.run(daemon.outbox.round())
    assert sent == len(server.ids) > 1
    assert {_statuses(daemon)[m] for m in server.ids} == {OutboundStatus.SENT}
    warnings = [r for r in caplog.records if "sent journal" in r.getMessage()]
    assert len(warnings) == 1, "warned once, not once a mail"


def test_the_journal_lives_beside_a_sqlite_file_else_in_the_config_folder(tmp_path):
    sqlite = Config(base_dir=tmp_path)
    assert sqlite.sent_journal() == tmp_path / "pbem.sqlite3.sent"
    shared = Config(
        database=dataclasses.replace(
            sqlite.database, url="postgresql+psycopg://pbem@127.0.0.1:5432/pbem"
        ),
        base_dir=tmp_path,
    )
    assert shared.sent_journal() == tmp_path / "outbox.sent"
    memory = Config(
        database=dataclasses.replace(sqlite.database, url="sqlite://"), base_dir=tmp_path
    )
    assert memory.sent_journal() is None
    named = Config(outbox=OutboxConfig(journal="state/sent"), base_dir=tmp_path)
    assert named.sent_journal() == tmp_path / "state" / "sent"


def test_dropping_lines_keeps_what_was_appended_meanwhile(tmp_path):
    path = tmp_path / "pbem.sqlite3.sent"
    one, other = SentJournal(path), SentJournal(path)  # two daemons on one host
    assert one.append(1, "<1@x>") and other.append(2, "<2@x>") and one.append(3, "<3@x>")
    listed = one.read()
    assert listed == {1: "<1@x>", 2: "<2@x>", 3: "<3@x>"}
    other.append(4, "<4@x>")  # after the replay read the journal
    with path.open("ab") as f:
        f.write(b"5 <5@x")  # a short write's remains: no newline
    assert one.drop(listed.keys()) == 1
    assert path.read_bytes() == b"4 <4@x>\n"
    assert one.append(6, "<6@x>")
    assert one.read() == {4: "<4@x>", 6: "<6@x>"}


def test_an_append_never_waits_for_a_rewrite(tmp_path):
    path = tmp_path / "j.sent"
    journal = SentJournal(path)
    assert journal.append(1, "<1@x>")
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a replay rewriting it
        assert not journal.append(2, "<2@x>")
    finally:
        os.close(fd)
    assert journal.append(3, "<3@x>")
    assert journal.read() == {1: "<1@x>", 3: "<3@x>"}
