"""CPU time per stage of the work, counted by each process for itself.

Where a deadline storm's CPU goes (adjudication, each side's view, the text,
the HTML, the map, composing the mail, commits, sending) is measured where the
work is done, not guessed afterwards: ``with stage("maps"): ...`` adds the
CPU time of the calling thread (``time.thread_time``) to that stage. Stages
nest and count exclusively: a stage's own time leaves out that of the stages
inside it, so the totals add up to the CPU spent in all of them. A thread
given wholly to one kind of work (the daemon's event loop, which runs the SMTP
client) is counted whole with ``whole_thread``.

The service exports the totals (``pbem_stage_cpu_seconds_total``) and, with
the ``pbem.stages`` logger at DEBUG, logs each process's totals every second
while they change; bench/storm.py sums them over the daemon and its workers.
Counting costs two clock reads per stage: it is always on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_totals: dict[str, float] = {}
_lock = threading.Lock()
_local = threading.local()
# name -> (the thread's CPU clock id, its CPU time when it was given to the stage)
_threads: dict[str, tuple[int, float]] = {}


def _add(name: str, seconds: float) -> None:
    with _lock:
        _totals[name] = _totals.get(name, 0.0) + seconds


def _stack() -> list[list[float]]:
    stack: list[list[float]] | None = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Count the calling thread's CPU time inside the block as ``name``'s."""
    stack = _stack()
    frame = [time.thread_time(), 0.0]  # start, time spent in stages nested inside
    stack.append(frame)
    try:
        yield
    finally:
        stack.pop()
        spent = time.thread_time() - frame[0]
        _add(name, spent - frame[1])
        if stack:
            stack[-1][1] += spent


def inside_stage() -> bool:
    """Whether the calling thread is inside a stage now."""
    return bool(_stack())


def counted(name: str, seconds: float) -> None:
    """Count ``seconds`` of the calling thread's CPU, already spent, as ``name``'s
    (for work timed by hooks rather than a block, e.g. a commit): taken out of the
    stage it was spent in, if any."""
    _add(name, seconds)
    stack = _stack()
    if stack:
        stack[-1][1] += seconds


def whole_thread(name: str) -> None:
    """Count all CPU time of the calling thread from now on as ``name``'s (a thread
    given to one kind of work, that enters no stage: it would be counted twice)."""
    clock = time.pthread_getcpuclockid(threading.get_ident())
    with _lock:
        _threads[name] = (clock, time.clock_gettime(clock))


def totals() -> dict[str, float]:
    """CPU seconds per stage, in this process, since it started."""
    with _lock:
        out = dict(_totals)
        threads = dict(_threads)
    for name, (clock, since) in threads.items():
        try:
            out[name] = out.get(name, 0.0) + time.clock_gettime(clock) - since
        except OSError:  # the thread has ended
            continue
    return out
