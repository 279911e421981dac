"""Marking mails sent (issue 19: by a commit right after the server's 250, the
mails accepted meanwhile together, pbem.outbox.delivery.mark_all_sent): the
mails still claimed by this daemon take one statement for answers and one for
reports (each report's delivery recorded in its game's record); a mail a peer
took over and a mail sent already go one by one (mark_sent), with its warnings."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, select, update
from sqlalchemy.orm import Session

from pbem.outbox import delivery
from pbem.secrecy import sealing
from pbem.service.clock import DatabaseClock
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_sessionmaker
from pbem.storage.enums import OutboundKind, OutboundStatus
from pbem.storage.models import OutboundMail
from tests.unit.service.test_process_batch import _config

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _queue(sessions: object, key: bytes, kinds: list[OutboundKind], at: datetime) -> list[int]:
    with sessions.begin() as s:  # type: ignore[attr-defined]
        rows = [
            OutboundMail(
                message_id=f"<m{n}@pbem.example>",
                kind=kind,
                sender="moderator@pbem.example",
                recipient=f"p{n}@players.example",
                raw=sealing.seal(key, b"mail", sealing.outbound_context(f"<m{n}@pbem.example>")),
                created_at=at,
                next_attempt_at=at,
            )
            for n, kind in enumerate(kinds)
        ]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def _row(sessions: object, row_id: int) -> OutboundMail:
    with sessions() as s:  # type: ignore[operator]
        row = s.get(OutboundMail, row_id)
        assert row is not None
        return row


def test_mails_accepted_together_are_marked_sent_by_one_commit(
    database_url: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    general: list[int] = []  # the mails that went one by one (mark_sent)
    mark_sent = delivery.mark_sent

    def spy(session: Session, row_id: int, now: datetime, owner: str) -> bool:
        general.append(row_id)
        return mark_sent(session, row_id, now, owner)

    monkeypatch.setattr(delivery, "mark_sent", spy)
    engine = create_engine(database_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    commits: list[int] = []
    event.listen(engine, "commit", lambda _conn: commits.append(1))
    config = _config(tmp_path)
    worker = Worker(config, sessions, "daemon-1", lambda: T0)
    try:
        worker.start_up()
        answer, report, taken = _queue(
            sessions,
            config.secrets.key_bytes(),
            [OutboundKind.ANSWER, OutboundKind.REPORT, OutboundKind.ANSWER],
            T0,
        )
        batch = worker.due_outgoing()
        assert sorted(m.id for m in batch.mails) == [answer, report, taken]
        # A peer took one over (we stalled past our lease): still sent by us once the
        # server took it, and said so.
        with sessions.begin() as s:
            s.execute(
                update(OutboundMail).where(OutboundMail.id == taken).values(claim_owner="peer")
            )
        commits.clear()
        with caplog.at_level(logging.WARNING, logger="pbem.outbox"):
            # No game for the report: nothing to record, marked all the same.
            assert worker.sent([answer, report, taken]) == {answer, report, taken}
            assert len(commits) == 1
            assert worker.sent([answer]) == set()  # sent already: not twice
        # The mails still ours took the statements for the batch; the rest one by one.
        assert general == [taken, answer]
        warnings = [r.getMessage() for r in caplog.records]
        assert any("sent after its lease went to peer" in w for w in warnings)
        assert any("was sent twice" in w for w in warnings)
        for row_id in (answer, report, taken):
            row = _row(sessions, row_id)
            assert row.status == OutboundStatus.SENT
            assert row.sent_at == T0
            assert row.attempts == 1
            assert row.claim_owner is None and row.claim_until is None
    finally:
        engine.dispose()


def test_an_answer_is_marked_sent_at_the_databases_time(database_url: str, tmp_path: Path):
    engine = create_engine(database_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    config = _config(tmp_path)
    worker = Worker(config, sessions, "daemon-1", DatabaseClock())
    try:
        worker.start_up()
        before = datetime.now(UTC) - timedelta(seconds=5)
        (answer,) = _queue(sessions, config.secrets.key_bytes(), [OutboundKind.ANSWER], before)
        assert [m.id for m in worker.due_outgoing().mails] == [answer]
        assert worker.sent([answer]) == {answer}
        with sessions() as s:
            sent_at = s.scalar(select(OutboundMail.sent_at).where(OutboundMail.id == answer))
        assert sent_at is not None and before < sent_at < datetime.now(UTC) + timedelta(seconds=5)
    finally:
        engine.dispose()
