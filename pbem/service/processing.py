"""Processing stored mail on every core: ``[intake] workers`` processes.

Deciding on a mail is CPU work in Python (MIME parsing, signature checks,
validation, sealing, composing the answer), so one daemon process uses one
core. With ``workers`` > 1 the daemon hands batches of stored mail to that
many worker processes, each with its own database connection, running the
same ``Worker.process_many`` as the daemon itself would. They share the
database as several daemons do: a batch is claimed before it is worked on,
and game rows are locked (see pbem.service.ticks). The clock's ticks go to them
too, a few due games a batch, each worker claiming its games by lease
(Worker.tick_some), so every core adjudicates and renders in a deadline storm.
Fetching, filing, planning the clock and the outbox stay in the daemon process.

A worker process dies with the daemon (Linux: PR_SET_PDEATHSIG), so a kill
-9 of the daemon is what it always was: uncommitted batches are rolled back
and processed again after the restart. The death signal is asked for before
the new process runs any Python (``setpriv --pdeathsig``, util-linux, wraps
the interpreter): asked for by the worker itself, it came only after a second
or more of imports, during which a daemon killed at start-up left it running.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import logging
import multiprocessing
import os
import shlex
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from pbem.config import Config
from pbem.service.clock import DatabaseClock
from pbem.service.logs import setup_logging
from pbem.service.metrics import log_stages
from pbem.service.work import Worker, freeze_start_up
from pbem.storage.db import make_engine, make_sessionmaker

log = logging.getLogger("pbem.service")

T = TypeVar("T")

# The Worker of this worker process (set by _start_worker).
_worker: Worker | None = None
# The interpreter wrapper that starts worker processes with their death signal set.
_launcher: str | None = None
# Passed by the pool to each worker process: every one has started (see ProcessingPool.start).
_started: threading.Barrier | None = None
# How long a worker process waits for the others to start before the pool gives up.
START_SECONDS = 300.0
# Worker processes run this much nicer than the daemon (see _start_worker).
WORKER_NICENESS = 5


def _death_signal_launcher() -> str | None:
    """A script that runs the interpreter with PR_SET_PDEATHSIG already set (it
    survives exec), so a worker dies with the daemon from its first instruction;
    None where setpriv is missing (the worker then asks for it itself)."""
    global _launcher
    setpriv = shutil.which("setpriv")
    if _launcher is None and setpriv is not None and sys.platform.startswith("linux"):
        folder = tempfile.mkdtemp(prefix="pbem-workers-")
        atexit.register(shutil.rmtree, folder, True)
        script = os.path.join(folder, "python")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(
                f"#!/bin/sh\nexec {shlex.quote(setpriv)} --pdeathsig KILL -- "
                f'{shlex.quote(sys.executable)} "$@"\n'
            )
        os.chmod(script, 0o700)
        _launcher = script
    return _launcher


def _die_with_parent(parent: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        # The daemon died while this process was starting, before the signal was
        # asked for: nobody would ever send it work, or stop it.
        os._exit(1)


def _start_worker(
    config: Config,
    log_level: str,
    parent: int,
    owner: str,
    clock: DatabaseClock,
    started: threading.Barrier,
) -> None:
    global _worker, _started
    _started = started
    _die_with_parent(parent)
    # The daemon's loop fetches, answers and sends while the workers grind through a
    # storm's ticks: on busy cores the loop goes first (CFS weight ~3:1 at 5).
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    # Ctrl-C reaches the whole process group; the daemon decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    setup_logging(config, log_level)
    log_stages()
    engine = make_engine(config.database.url, config.database)
    # Claims are held under the daemon's lease (pbem.service.leases): the daemon's id.
    _worker = Worker(config, make_sessionmaker(engine), owner, clock)
    _worker.warm_up()  # before the daemon says it is ready (ProcessingPool.start)
    freeze_start_up()


def _ready() -> int:
    """Returns once every worker process of the pool has started: the pool's
    ``workers`` calls run one in each (none can take a second call), so none is
    still importing when the daemon says it is ready."""
    assert _started is not None, "not a worker process"
    _started.wait(START_SECONDS)
    return os.getpid()


def _process_batch(mail_ids: Sequence[int]) -> tuple[dict[int, str], set[str], bool]:
    assert _worker is not None, "not a worker process"
    outcomes = _worker.process_many(mail_ids)
    touched, sweep = _worker.take_tick_notes()
    return outcomes, touched, sweep


def _tick_batch(game_ids: Sequence[str]) -> list[str]:
    assert _worker is not None, "not a worker process"
    return _worker.tick_some(game_ids)


class ProcessingPool:
    """``workers`` processes running ``Worker.process_many``; results and the
    games to tick come back to the daemon's own Worker."""

    def __init__(self, config: Config, workers: int, owner: str, clock: DatabaseClock) -> None:
        self.config = config
        self.workers = workers
        self.owner = owner  # the daemon's: its processes claim under its lease
        # The daemon's: the database's time, read in each transaction (its offset,
        # for estimates, measured before the processes start).
        self.clock = clock
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        # "spawn": the daemon runs threads (asyncio.to_thread); forking them is unsafe.
        context = multiprocessing.get_context("spawn")
        launcher = _death_signal_launcher()
        if launcher is not None:
            context.set_executable(launcher)
        started = context.Barrier(self.workers)
        return ProcessPoolExecutor(
            self.workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(
                self.config,
                logging.getLevelName(logging.getLogger().level),
                os.getpid(),
                self.owner,
                self.clock,
                started,
            ),
        )

    async def start(self) -> None:
        """Start every worker process now (each connects to the database), so that
        "ready" means ready and a worker that cannot start stops the daemon."""
        loop = asyncio.get_running_loop()
        # Submitted together, before any is done: the executor spawns one process each,
        # and each call waits for all (_ready), so each runs in a process of its own.
        await asyncio.gather(
            *(loop.run_in_executor(self._executor, _ready) for _ in range(self.workers))
        )

    async def process(self, mail_ids: Sequence[int], worker: Worker) -> dict[int, str]:
        """Process one batch in a worker process; the games it touched go to
        ``worker`` (the daemon's) for the next tick. The outcomes of the mails it
        decided (as Worker.process_many). Must be called from the event loop's
        thread: a worker's death signal is tied to the thread that made it.
        """
        result = await self._run(_process_batch, mail_ids)
        if result is None:
            await asyncio.to_thread(worker.release_mail, mail_ids)
            return {}
        outcomes, touched, sweep = result
        worker.note_for_tick(touched, sweep)
        return outcomes

    async def tick(self, game_ids: Sequence[str], worker: Worker) -> None:
        """Claim and tick a batch of due games in a worker process (as ``process``)."""
        if await self._run(_tick_batch, game_ids) is None:
            await asyncio.to_thread(worker.release_games, game_ids)

    async def _run(self, job: Callable[[Sequence[Any]], T], batch: Sequence[Any]) -> T | None:
        """``job(batch)`` in a worker process; None if the process died with it."""
        executor = self._executor
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(executor, job, batch)
        except BrokenProcessPool:
            # A worker process died (killed, out of memory): the pool is broken and
            # the batches it held are still claimed. The first batch to notice
            # starts a new pool; each batch gives back its own claims.
            if executor is self._executor:
                log.error("a worker process died; restarting the pool")
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._new_executor()
                await self.start()
            return None

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
