"""What the daemon's loops share: the daemon's configuration, Worker, watchdog
and stop event; how a failed round is told; and how batches of work are spread
over the worker processes (pbem.service.processing)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pbem.config import Config
from pbem.service.processing import ProcessingPool
from pbem.service.watchdog import Watchdog
from pbem.service.work import Worker
from pbem.storage.db import database_unreachable

log = logging.getLogger("pbem.service")

T = TypeVar("T")


@dataclass(frozen=True)
class LoopContext:
    """What every loop of one daemon is given."""

    config: Config
    worker: Worker  # the units of work, run in threads
    watchdog: Watchdog  # told of each loop's progress
    stopping: asyncio.Event  # set when the daemon stops


class Loop:
    """One of the daemon's loops: the shared context, at hand."""

    def __init__(self, context: LoopContext) -> None:
        self.config = context.config
        self.worker = context.worker
        self.watchdog = context.watchdog
        self.stopping = context.stopping


def round_failed(loop: str, exc: Exception) -> None:
    """Log a loop's failed round (called while handling ``exc``; the loop retries).
    PostgreSQL out of reach (a partition: statements in flight fail within
    ``tcp_user_timeout``) is a warning in one line; anything else has its traceback."""
    if database_unreachable(exc):
        cause = str(getattr(exc, "orig", exc)).strip().splitlines() or [type(exc).__name__]
        log.warning("%s round: the database is out of reach, retrying: %s", loop, cause[0])
    else:
        log.exception("%s round failed; retrying", loop)


async def spread(
    pool: ProcessingPool | None,
    next_batches: Callable[[int], Awaitable[Sequence[T]]],
    run: Callable[[T], Awaitable[Any]],
    *,
    stopping: asyncio.Event,
    batch_done: Callable[[], None],
) -> None:
    """Run batches until ``next_batches(room)`` has no more: one at a time in the
    daemon, or two per worker process in flight, the next handed out as one
    finishes, so no worker waits for another. Each batch's answers or reports
    are committed as it ends: ``batch_done`` is called then."""
    in_flight = 2 * pool.workers if pool is not None else 1
    running: set[asyncio.Future[Any]] = set()
    while True:
        room = in_flight - len(running)
        if room > 0 and not stopping.is_set():
            for batch in await next_batches(room):
                running.add(asyncio.ensure_future(run(batch)))
        if not running:
            return
        done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        failure = _outcomes(done, batch_done)
        if failure is not None:
            # A failure the batch could not file is the round's. The batches still in
            # flight run on in their worker processes whatever happens here (the
            # database gone, they fail too): each is waited for, so that one that
            # commits has its answers sent and its games ticked (else not until the
            # safety sweep), and one that fails is no "exception never retrieved".
            if running:
                await asyncio.wait(running)
                _outcomes(running, batch_done)
            raise failure


def _outcomes(
    done: set[asyncio.Future[Any]], batch_done: Callable[[], None]
) -> BaseException | None:
    """``batch_done()`` for each batch of ``done`` that ended well; the first failure."""
    failure = None
    for future in done:
        exc = future.exception()
        if exc is None:
            batch_done()
        elif failure is None:
            failure = exc
    return failure
