"""The outbox's group commit (pbem.service.marking.SentMarks): mails the server
accepted while one marking commit was under way are marked by the next, together;
each sender learns its own mail's outcome, or the commit's failure."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Collection

import psycopg.errors
import pytest
from sqlalchemy.exc import OperationalError

from pbem.service.marking import SentMarks


class Committer:
    """Stands in for Worker.sent: each commit waits until the test lets it end."""

    def __init__(self, sent_before: Collection[int] = ()) -> None:
        self.commits: list[list[int]] = []
        self.started = threading.Semaphore(0)
        self.go = threading.Semaphore(0)
        self.sent_before = set(sent_before)
        self.fail: BaseException | None = None

    def __call__(self, ids: Collection[int]) -> set[int]:
        self.commits.append(sorted(ids))
        self.started.release()
        self.go.acquire()
        if self.fail is not None:
            raise self.fail
        return set(ids) - self.sent_before


async def _started(committer: Committer) -> None:
    await asyncio.to_thread(committer.started.acquire)


async def test_mails_accepted_during_a_commit_are_marked_together_by_the_next() -> None:
    committer = Committer(sent_before={3})
    marks = SentMarks(committer)
    first = asyncio.create_task(marks.sent(1))
    await _started(committer)  # the first commit is under way, for mail 1 alone
    rest = [asyncio.create_task(marks.sent(n)) for n in (2, 3, 4)]
    await asyncio.sleep(0)  # they queue behind it
    assert not first.done()
    committer.go.release()
    assert await first is True
    await _started(committer)
    assert committer.commits == [[1], [2, 3, 4]]
    committer.go.release()
    # Each sender hears of its own mail: 3 had been sent by a peer already.
    assert [await t for t in rest] == [True, False, True]


async def test_a_failed_commit_fails_every_mail_it_held_and_the_next_commit_starts_afresh() -> None:
    committer = Committer()
    marks = SentMarks(committer)
    committer.fail = RuntimeError("database gone")
    held = [asyncio.create_task(marks.sent(n)) for n in (1, 2)]
    await _started(committer)
    committer.go.release()
    for task in held:
        with pytest.raises(RuntimeError, match="database gone"):
            await task
    committer.fail = None
    later = asyncio.create_task(marks.sent(5))
    await _started(committer)
    committer.go.release()
    assert await later is True
    assert committer.commits == [[1, 2], [5]]


async def test_a_sender_cancelled_while_waiting_leaves_its_mail_to_the_commit() -> None:
    committer = Committer()
    marks = SentMarks(committer)
    sender = asyncio.create_task(marks.sent(7))
    await _started(committer)
    sender.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sender
    committer.go.release()
    other = asyncio.create_task(marks.sent(8))
    await _started(committer)
    committer.go.release()
    assert await other is True
    assert committer.commits == [[7], [8]]  # 7 committed all the same


def _server_gone() -> OperationalError:
    """What a PostgreSQL restart does to a commit under way (57P01 admin_shutdown)."""
    return OperationalError("COMMIT", {}, psycopg.errors.AdminShutdown())


async def test_a_commit_the_restarting_database_did_not_take_is_tried_again_until_it_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server has the mails: a commit that fails because the database is out
    of reach is tried again, the mails stay unmarked (never given back) meanwhile,
    and each sender learns the outcome of the commit that took."""
    committer = Committer()
    marks = SentMarks(committer)
    committer.fail = _server_gone()
    held = [asyncio.create_task(marks.sent(n)) for n in (1, 2)]
    await _started(committer)
    committer.go.release()  # the first try fails
    await _started(committer)  # tried again
    assert marks.unmarked() == {1, 2}
    assert not any(task.done() for task in held)
    committer.fail = None
    committer.go.release()
    assert [await task for task in held] == [True, True]
    assert committer.commits == [[1, 2], [1, 2]]
    assert marks.unmarked() == set()
    assert [r.levelname for r in caplog.records] == ["WARNING"]


async def test_a_failed_commit_no_sender_awaits_any_more_is_no_unretrieved_exception() -> None:
    """A sender cancelled meanwhile (its batch stopped) never awaits its mail's
    commit: a commit that then fails (a bug) leaves no "Future exception was
    never retrieved" behind."""
    loop = asyncio.get_running_loop()
    reported: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    committer = Committer()
    marks = SentMarks(committer)
    committer.fail = RuntimeError("a bug")
    sender = asyncio.create_task(marks.sent(3))
    await _started(committer)
    sender.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sender
    committer.go.release()
    while marks.unmarked():
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.01)
    del sender
    committer.fail = None  # its traceback holds the commit's frames, and the future
    gc.collect()
    assert reported == []


async def test_with_overlap_a_mail_accepted_during_a_commit_starts_its_own_at_once() -> None:
    """Where writers run side by side (PostgreSQL, ``overlap`` > 1), a mail does not
    wait for the commit under way (its WAL flush) before its own commit begins; past
    ``overlap`` commits, the mails waiting are marked together by the first to end."""
    committer = Committer()
    marks = SentMarks(committer, overlap=2)
    first = asyncio.create_task(marks.sent(1))
    await _started(committer)
    second = asyncio.create_task(marks.sent(2))
    # Begun while the first is still under way (a failure here, not a hang, without overlap).
    assert await asyncio.to_thread(committer.started.acquire, timeout=30)
    assert committer.commits == [[1], [2]]
    assert marks.unmarked() == {1, 2}
    rest = [asyncio.create_task(marks.sent(n)) for n in (3, 4)]
    await asyncio.sleep(0)
    assert committer.commits == [[1], [2]]  # two under way: these wait, together
    committer.go.release()
    await _started(committer)
    assert committer.commits == [[1], [2], [3, 4]]
    committer.go.release()
    committer.go.release()
    assert [await t for t in (first, second, *rest)] == [True] * 4
    assert marks.unmarked() == set()
