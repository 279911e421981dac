"""The clock's wake plan (issue 15): a deadline set outside this daemon (a game
started from the CLI, a peer's EXTEND) is planned at the daemon's next round, not
only at the safety sweep minutes later."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update

from pbem.config import DatabaseConfig
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.daemon import Daemon
from pbem.service.ticks import SAFETY_SWEEP
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import Phase
from tests.unit.service.test_answers_first import _Sender
from tests.unit.service.test_process_batch import KEYS, _config


def test_a_deadline_set_outside_the_daemon_is_planned_at_its_next_round(
    database_url: str, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    config = dataclasses.replace(
        config,
        database=DatabaseConfig(url=database_url),
        intake=dataclasses.replace(config.intake, workers=1),
    )
    engine = make_engine(database_url)
    create_all(engine)
    daemon = Daemon(config, sender=_Sender())
    asyncio.run(daemon.processing.tick_due(False))  # nothing stored: the wake is the safety sweep
    first_wake = daemon.worker.next_wake
    assert first_wake is not None

    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:  # as `pbem mod` from the command line would
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher())
        gm.acts.create_game("g1", "demo", "long-duel")
        for side, (_, public) in KEYS.items():
            gm.acts.assign("g1", side, f"{side}@example.org", public_key=public)
        gm.acts.start("g1")
    deadline = first_wake - SAFETY_SWEEP / 2  # sooner than the safety sweep
    with sessions.begin() as s:
        s.execute(
            update(Phase)
            .where(Phase.game_id == "g1")
            .values(deadline=deadline, grace_until=deadline + timedelta(hours=1), remind_at=None)
        )
    engine.dispose()

    asyncio.run(daemon.processing.tick_due(False))  # no mail named g1: nothing due to tick yet
    assert daemon.worker.next_wake == deadline
