"""The mailbox's lease (issue 19): one daemon fetches at a time; a peer takes
over once the fetcher's lease lapses; a daemon that does not fetch follows the
fetcher's state (it neither ticks nor beats as working while nobody can fetch)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine

from pbem.outbox.queue import Outgoing, enqueue
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_sessionmaker
from pbem.storage.enums import OutboundKind
from tests.unit.service.test_process_batch import _config

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
MAILBOX = "imap://moderator@127.0.0.1:143/INBOX"


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def test_one_fetcher_at_a_time_and_a_lapsed_one_is_replaced(database_url: str, tmp_path: Path):
    config = _config(tmp_path)
    engine = create_engine(database_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    clock = Clock()
    first, second = (Worker(config, sessions, f"daemon-{n}", clock) for n in (1, 2))
    try:
        first.start_up()
        second.start_up()
        assert first.fetches(MAILBOX) and not second.fetches(MAILBOX)
        assert first.fetches(MAILBOX)  # kept: renewed, not taken again
        assert second.fetcher_down_since(MAILBOX) is None  # the fetcher works
        # The fetcher's IMAP server stops answering: it says when in its heartbeat,
        # and beats no more; once its row is stale, the peer counts it down from then.
        clock.now += timedelta(seconds=5)
        lost = clock.now - timedelta(seconds=2)
        first.heartbeat(mailbox_down_since=lost)
        clock.now += timedelta(seconds=16)
        second.heartbeat()
        assert second.fetcher_down_since(MAILBOX) == lost
        # The fetcher stops altogether (killed, paused): its lease runs on a while...
        clock.now += timedelta(seconds=14)
        second.heartbeat()
        assert not second.fetches(MAILBOX)
        # ...and once it lapses, the mailbox is the peer's; the woken one keeps off.
        clock.now += timedelta(seconds=config.database.lease_seconds)
        second.heartbeat()
        assert second.fetches(MAILBOX) and not first.fetches(MAILBOX)
        assert first.fetching is None and second.fetching == MAILBOX
        # A clean stop hands it over at once.
        second.shut_down()
        assert first.fetches(MAILBOX)
    finally:
        engine.dispose()


def test_a_lapsed_lease_renewed_starts_a_new_term_and_its_mail_claims_are_asked_again(
    database_url: str, tmp_path: Path
) -> None:
    """Cut off past its lease, a daemon whose peer took its claimed answers over and
    sent them beats again: its lease runs once more, so the in-memory check before
    a send (Daemon._send_batch) would trust the old claim and send twice. The
    renewal that found the lease lapsed starts a new term, and a batch claimed in
    the old one is asked of the database, which says the mails are gone."""
    config = _config(tmp_path)
    engine = create_engine(database_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    clock = Clock()
    cut, peer = (Worker(config, sessions, f"daemon-{n}", clock) for n in (1, 2))
    try:
        with sessions.begin() as s:
            for n in range(2):
                answer = Outgoing(
                    kind=OutboundKind.ANSWER,
                    cause=("answer", str(n)),
                    to=f"player{n}@example.org",
                    subject="answer",
                    text="accepted",
                )
                enqueue(s, config, answer, T0)
        cut.heartbeat()
        peer.heartbeat()
        batch = cut.due_outgoing()
        assert len(batch.mails) == 2 and batch.term == cut.lease.term == 0
        cut.heartbeat()  # renewed while it runs: the same term
        assert cut.lease.term == 0
        # Cut off: no beat for two lease lengths; the peer takes the mail and sends it.
        clock.now += 2 * cut.lease.length
        peer.heartbeat()
        taken = peer.due_outgoing()
        assert [m.id for m in taken.mails] == [m.id for m in batch.mails]
        assert peer.sent([m.id for m in taken.mails]) == {m.id for m in taken.mails}
        # The link is back and the cut daemon beats again.
        cut.heartbeat()
        assert cut.lease.runs(clock.now, cut.lease.length / 2)  # in memory: looks fine
        assert cut.lease.term == batch.term + 1  # but a new term: ask the database
        kept, _, term = cut.renew_outgoing({m.id for m in batch.mails}, batch.until)
        assert kept == set() and term == cut.lease.term
    finally:
        engine.dispose()
