from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from pbem.config import Config, SecretsConfig
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.storage.db import create_all, make_engine, make_sessionmaker

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def config(tmp_path: Path) -> Config:
    key = base64.b64encode(os.urandom(32)).decode()
    return Config(secrets=SecretsConfig(plot_key=key), base_dir=tmp_path)


@pytest.fixture
def sessions(database_url: str):  # type: ignore[no-untyped-def]
    engine = make_engine(database_url)
    create_all(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def keys() -> dict[str, tuple[bytes, str]]:
    return {side: generate_keypair(side) for side in ("north", "south")}


class Table:
    """A moderator's table: opens a transaction-bound GameMaster at a given time."""

    def __init__(self, sessions, config: Config) -> None:  # type: ignore[no-untyped-def]
        self.sessions = sessions
        self.config = config
        self.now = T0

    def gm(self, session: Session) -> GameMaster:
        return GameMaster(
            Desk(session, self.config, self.config.secrets.key_bytes(), self.now), Publisher()
        )

    def run(self, fn):  # type: ignore[no-untyped-def]
        with self.sessions.begin() as s:
            return fn(self.gm(s))


@pytest.fixture
def table(sessions, config: Config) -> Iterator[Table]:  # type: ignore[no-untyped-def]
    yield Table(sessions, config)


@pytest.fixture
def demo_game(table: Table, keys) -> str:  # type: ignore[no-untyped-def]
    def setup(gm: GameMaster) -> None:
        gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": True})
        gm.acts.assign("g1", "north", "north@example.org", public_key=keys["north"][1])
        gm.acts.assign("g1", "south", "south@example.org", public_key=keys["south"][1])
        gm.acts.start("g1")

    table.run(setup)
    return "g1"
