"""The daemon's heartbeat loop (issue 19): a database out of reach delays beats,
never ends them."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.exc import OperationalError

from pbem.config import DatabaseConfig
from pbem.service.daemon import Daemon
from pbem.storage.models import Heartbeat
from tests.unit.service.test_process_batch import _config, _sessions


async def test_the_heartbeat_loop_outlives_a_database_outage(sqlite_url: str, tmp_path: Path):
    config = _config(tmp_path)
    config = dataclasses.replace(config, database=DatabaseConfig(url=sqlite_url))
    _sessions(sqlite_url, config, datetime.now(UTC))
    daemon = Daemon(config)
    real = daemon.worker.heartbeat
    calls: list[str] = []
    beaten = asyncio.Event()
    loop = asyncio.get_running_loop()

    def heartbeat(down_since: datetime | None = None) -> list[str]:
        if len(calls) < 3:  # the database does not answer, three times over
            calls.append("failed")
            raise OperationalError("UPDATE heartbeats", {}, ConnectionError("server closed"))
        moved = real(down_since)
        calls.append("beat")
        loop.call_soon_threadsafe(beaten.set)
        return moved

    daemon.worker.heartbeat = heartbeat  # type: ignore[method-assign]
    task = asyncio.create_task(daemon.heartbeat_loop())
    try:
        await asyncio.wait_for(beaten.wait(), timeout=60)
        assert not task.done()  # still beating
    finally:
        daemon.request_stop()
        await asyncio.wait_for(task, timeout=60)
        await daemon.inbox.close()
        await daemon.sender.close()
        daemon.engine.dispose()
    assert calls[:4] == ["failed", "failed", "failed", "beat"]
    assert daemon.worker.pulse.beating()
    with daemon.worker.sessions() as s:
        assert s.get(Heartbeat, daemon.worker.pulse.row) is not None
