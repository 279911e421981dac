"""Whom a mail is answered at (issue 14): a broken or missing From, the same
Message-ID a thousand times, no-reply and bulk senders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.config import Config
from pbem.service.work import Worker
from pbem.storage.models import InboundMail, OutboundMail
from tests.unit.service.test_process_batch import (
    KEYS,
    MODERATOR,
    NOW,
    _block,
    _config,
    _sessions,
)


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[tuple[Worker, Config]]:
    config = _config(tmp_path)
    yield Worker(config, _sessions(database_url, config), "test:1", lambda: NOW), config


def _raw(headers: str, body: str = "When is the deadline?\n") -> bytes:
    return (f"To: {MODERATOR}\nSubject: orders\n{headers}\n\n{body}").encode()


def _process(worker: Worker, mails: list[bytes], batch: int = 100) -> list[InboundMail]:
    worker.file_many([(f"ref{i}", raw) for i, raw in enumerate(mails)])
    while ids := worker.pending_mail(batch):
        worker.process_many(ids)
    with worker.sessions() as s:
        rows = list(s.scalars(select(InboundMail).order_by(InboundMail.id)))
        s.expunge_all()
    return rows


def _outgoing(worker: Worker) -> list[tuple[str, str]]:
    """Answers and notices queued (not the game's reports)."""
    with worker.sessions() as s:
        queued = select(OutboundMail).where(OutboundMail.kind.in_(["answer", "notice"]))
        return [(o.kind, o.recipient) for o in s.scalars(queued.order_by(OutboundMail.id))]


def test_signed_orders_with_a_broken_from_are_answered_at_the_players_address(world) -> None:
    worker, _ = world
    block = _block("north", KEYS["north"][0], ["SEND SQN-1 A"])
    broken = _raw("From: North Player <north at example.org>\nMessage-ID: <b1@x.example>", block)
    missing = _raw(
        "Message-ID: <b2@x.example>", _block("north", KEYS["north"][0], ["SEND SQN-2 B"])
    )
    rows = _process(worker, [broken, missing])
    assert [r.status for r in rows] == ["answered", "answered"]
    assert rows[0].outcome == (
        "accepted 1, refused 0 (no usable From: answered at the signer's registered "
        "address, north@example.org)"
    )
    assert rows[1].outcome.startswith("accepted 1, refused 0 (no usable From")
    # The player's registered address, and no notice: the signature said who it was.
    assert _outgoing(worker) == [("answer", "north@example.org")] * 2


def test_without_a_signature_sender_reply_to_or_envelope_answer_and_the_moderator_hears(
    world,
) -> None:
    worker, config = world
    mails = [
        _raw("From: broken\nSender: s@x.example\nReply-To: r@x.example\nMessage-ID: <1@x>"),
        _raw("Reply-To: r@x.example\nReturn-Path: <e@x.example>\nMessage-ID: <2@x>"),
        _raw("Return-Path: <e@x.example>\nMessage-ID: <3@x>"),
        _raw("Subject: nothing at all\nMessage-ID: <4@x>"),
    ]
    rows = _process(worker, mails)
    assert [r.status for r in rows] == ["answered", "answered", "answered", "ignored"]
    assert [r.sender for r in rows[:3]] == ["s@x.example", "r@x.example", "e@x.example"]
    assert "filed for the moderator" in rows[3].outcome
    human = config.moderator.human
    assert sorted(_outgoing(worker)) == sorted(
        [("answer", "s@x.example"), ("answer", "r@x.example"), ("answer", "e@x.example")]
        + [("notice", human)] * 4
    )


def test_the_same_message_id_a_thousand_times_is_answered_once(world) -> None:
    worker, _ = world
    copies = [
        _raw(f"From: flood@x.example\nMessage-ID: <same@x.example>\nX-Copy: {n}")
        for n in range(1000)
    ]
    # Another sender's mail with that Message-ID is not a copy.
    other = _raw("From: other@x.example\nMessage-ID: <same@x.example>")
    rows = _process(worker, [*copies[:500], other, *copies[500:]])
    answered = [r for r in rows if r.status == "answered"]
    assert [(r.id, r.sender) for r in answered] == [
        (rows[0].id, "flood@x.example"),
        (rows[500].id, "other@x.example"),
    ]
    copies_filed = [r for r in rows if r.sender == "flood@x.example"][1:]
    assert len(copies_filed) == 999
    assert {r.outcome for r in copies_filed} == {
        "not answered: a copy of an earlier mail (same Message-ID)"
    }
    assert _outgoing(worker) == [("answer", "flood@x.example"), ("answer", "other@x.example")]
    # A copy arriving later, in a batch of its own, is a copy too.
    [*_, late] = _process(worker, [_raw("From: flood@x.example\nMessage-ID: <same@x.example>")])
    assert late.status == "ignored"


@pytest.mark.parametrize(
    "headers",
    [
        "From: noreply@shop.example",
        "From: no-reply-42@accounts.example",
        "From: news@shop.example\nPrecedence: bulk",
        "From: news@shop.example\nList-Unsubscribe: <mailto:u@shop.example>",
        "From: bot@x.example\nAuto-Submitted: auto-replied",
        "From: mailer-daemon@x.example",
        "Sender: noreply@x.example",  # no From, and the only fallback says no reply
    ],
)
def test_no_reply_and_bulk_mail_is_filed_not_answered(world, headers: str) -> None:
    worker, _ = world
    [row] = _process(worker, [_raw(headers + "\nMessage-ID: <n@x.example>")])
    assert row.status == "ignored" and row.outcome.startswith("not answered")
    assert [kind for kind, _ in _outgoing(worker)] in ([], ["notice"])
