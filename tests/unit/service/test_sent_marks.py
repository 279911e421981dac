"""The outbox's group commit (pbem.service.marking.SentMarks): mails the server
accepted while one marking commit was under way are marked by the next, together;
each sender learns its own mail's outcome, or the commit's failure."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Collection

import pytest

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
