"""The dashboard server (pbem.service.dashboard): loopback only, read-only, fresh per request."""

from __future__ import annotations

import base64
import http.client
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.config import Config, DatabaseConfig, SecretsConfig
from pbem.core.errors import ConfigError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.dashboard import DashboardServer
from pbem.storage.db import create_all, make_engine, make_sessionmaker


@pytest.fixture
def config(sqlite_url: str, tmp_path: Path) -> Config:
    key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        database=DatabaseConfig(url=sqlite_url),
        secrets=SecretsConfig(plot_key=key),
        base_dir=tmp_path,
    )
    engine = make_engine(sqlite_url)
    create_all(engine)
    engine.dispose()
    return config


def act(config: Config, fn) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(config.database.url)
    with make_sessionmaker(engine).begin() as s:
        fn(GameMaster(Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher()))
    engine.dispose()


@pytest.fixture
def server(config: Config) -> Iterator[DashboardServer]:
    with DashboardServer(config, 0) as running:
        thread = threading.Thread(target=running.serve_forever, daemon=True)
        thread.start()
        yield running
        running.shutdown()
        thread.join()


def request(server: DashboardServer, method: str, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_dashboard_is_on_loopback_and_built_afresh(config: Config, server: DashboardServer) -> None:
    assert server.server_address[0] == "127.0.0.1" and server.url.startswith("http://127.0.0.1:")
    status, page = request(server, "GET", "/")
    assert status == 200 and "No games yet" in page

    def setup(gm: GameMaster) -> None:
        gm.acts.create_game("g7", "demo", "duel")
        for side in ("north", "south"):
            gm.acts.assign("g7", side, f"{side}@example.org", public_key=generate_keypair(side)[1])
        gm.acts.start("g7")

    act(config, setup)
    status, page = request(server, "GET", "/index.html")
    assert status == 200 and 'id="game-g7"' in page and "turn 1 plot" in page
    assert "north: missing" in page and "Nobody is late." in page


def test_dashboard_answers_only_reads_of_its_page(server: DashboardServer) -> None:
    assert request(server, "GET", "/etc/passwd")[0] == 404
    assert request(server, "POST", "/")[0] == 501
    assert request(server, "DELETE", "/")[0] == 501


def test_a_port_in_use_is_a_clear_error(config: Config, server: DashboardServer) -> None:
    with pytest.raises(ConfigError, match=r"cannot serve on 127\.0\.0\.1:\d+"):
        DashboardServer(config, server.server_address[1])
