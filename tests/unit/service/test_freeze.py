"""A process given to serving freezes what start-up made (pbem.service.work.freeze_start_up)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from pbem.service.work import freeze_start_up


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


@pytest.fixture
def _unfrozen() -> Iterator[None]:
    # The tests run many daemons in this process (none with own_process): none froze it.
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("_unfrozen")
def test_start_up_garbage_is_collected_and_the_rest_frozen() -> None:
    garbage = weakref.ref(_Node())  # start-up's garbage: unreachable, in a cycle
    kept = _Node()  # what start-up made and keeps
    assert garbage() is not None  # a cycle outlives its last reference
    freeze_start_up()
    assert garbage() is None  # collected before the freeze
    # Frozen: out of every generation the collector walks.
    assert not any(o is kept for o in gc.get_objects())
    gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())
