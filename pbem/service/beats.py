"""The heartbeat loop: this daemon's beats (pbem.service.presence), on time and
the moment the mailbox goes or comes back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime

from pbem.service.heartbeat import HEARTBEAT_SECONDS
from pbem.service.loops import LoopContext

log = logging.getLogger("pbem.service")

# The heartbeat loop looks at the mailbox this often (a beat when its state changes).
CHECK_SECONDS = 1.0


async def heartbeat_loop(
    context: LoopContext, mailbox_down_since: Callable[[], datetime | None]
) -> None:
    """Beat every HEARTBEAT_SECONDS, and at once when the mailbox goes or comes
    back (so an outage is measured to the second). A beat that fails (the
    database out of reach) is tried again every CHECK_SECONDS: this loop never
    ends before the daemon does."""
    worker, watchdog, stopping = context.worker, context.watchdog, context.stopping
    next_beat = 0.0
    beat_state: bool | None = None  # the mailbox answered at the last beat
    failing = False
    while not stopping.is_set():
        watchdog.beat("heartbeat", HEARTBEAT_SECONDS)
        down_since = mailbox_down_since()
        if (down_since is None) != beat_state or time.monotonic() >= next_beat:
            try:
                await asyncio.to_thread(worker.heartbeat, down_since)
            except Exception as exc:
                if not failing:
                    log.warning("heartbeat failed, retrying: %s", exc)
                failing = True
            else:
                if failing:
                    log.info("heartbeat written again")
                failing = False
                beat_state = down_since is None
                next_beat = time.monotonic() + HEARTBEAT_SECONDS
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), timeout=CHECK_SECONDS)
