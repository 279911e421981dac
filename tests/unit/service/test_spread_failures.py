"""Batches spread over worker processes when one fails (the database restarted under
them all): the others are waited for, a batch that committed still counts, and every
failure is retrieved (no "Task exception was never retrieved" from asyncio)."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace
from typing import Any

import pytest

from pbem.service.loops import spread


def test_a_failed_batch_waits_for_the_others_and_retrieves_every_failure() -> None:
    unretrieved: list[dict[str, Any]] = []
    done: list[str] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: unretrieved.append(ctx))
        gate = asyncio.Event()
        handed_out = False

        async def next_batches(room: int) -> list[str]:
            nonlocal handed_out
            if handed_out:
                return []
            handed_out = True
            return ["first", "second", "committed"]

        async def run(batch: str) -> str:
            if batch == "first":
                gate.set()  # the others end once this one failed
                raise ConnectionError("terminating connection due to administrator command")
            await gate.wait()
            if batch == "second":
                raise ConnectionError("terminating connection due to administrator command")
            for _ in range(3):  # still running when the failures are seen
                await asyncio.sleep(0)
            done.append(batch)
            return batch

        with pytest.raises(ConnectionError):
            await spread(
                SimpleNamespace(workers=2),  # type: ignore[arg-type]
                next_batches,
                run,
                stopping=asyncio.Event(),
                batch_done=lambda: done.append("batch_done"),
            )
        gc.collect()  # a task's unretrieved exception is told when the task is collected

    asyncio.run(main())
    assert sorted(done) == ["batch_done", "committed"]
    assert unretrieved == []
