"""Hostile requests to the dashboard and the metrics (pbem.service.web on aiohttp):
oversized headers, too many of them, slow clients, path tricks, writes. Both apps
read the database on a well-formed request (the worklist, the metrics' counts),
so each test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pbem.config import Config, DatabaseConfig, SecretsConfig
from pbem.service.dashboard import Pages, dashboard_app
from pbem.service.metrics import Metrics, ProcessStats
from pbem.service.web import MAX_FIELD, MAX_HEADERS, Site
from pbem.storage.db import create_all, make_engine, make_sessionmaker

# Short enough for a test to see the cut; the event awaited is the server closing.
CUT_AFTER = 0.5


@pytest.fixture(params=["dashboard", "metrics"])
async def site(
    request: pytest.FixtureRequest, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Site, str]]:
    """Each app on its own Site, with the path it answers."""
    engine = make_engine(database_url)
    create_all(engine)
    config = Config(
        database=DatabaseConfig(url=database_url),
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )
    pages = Pages(config)
    if request.param == "dashboard":
        app, path = dashboard_app(pages), "/"
    else:
        app, path = Metrics(make_sessionmaker(engine), ProcessStats()).app(), "/metrics"
    running = await Site(app, request.param, connection_seconds=CUT_AFTER).start("127.0.0.1", 0)
    try:
        yield running, path
    finally:
        await running.close()
        pages.close()
        engine.dispose()


async def raw(site: Site, data: bytes) -> str:
    """What the server answers to these bytes (its status line), or "" if it closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
    try:
        writer.write(data)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 30)
        return line.decode("latin-1").strip()
    finally:
        writer.close()
        await writer.wait_closed()


async def test_a_well_formed_read_is_answered(site: tuple[Site, str]) -> None:
    running, path = site
    status = await raw(running, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == "HTTP/1.1 200 OK"


async def test_an_oversized_header_is_refused(site: tuple[Site, str]) -> None:
    running, path = site
    big = b"X-Junk: " + b"a" * (MAX_FIELD + 10) + b"\r\n"
    status = await raw(running, f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode() + big + b"\r\n")
    assert status.split()[1] == "400", status
    long_line = b"GET /" + b"a" * (MAX_FIELD + 10) + b" HTTP/1.1\r\n\r\n"
    assert (await raw(running, long_line)).split()[1] == "400"


async def test_too_many_headers_are_refused(site: tuple[Site, str]) -> None:
    running, path = site
    many = b"".join(b"X-%d: 1\r\n" % n for n in range(MAX_HEADERS + 5))
    status = await raw(running, f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode() + many + b"\r\n")
    assert status.split()[1] == "400", status


async def test_a_slow_client_is_cut_off(site: tuple[Site, str]) -> None:
    """A request that never ends (one header, then silence) holds no socket for long."""
    running, path = site
    reader, writer = await asyncio.open_connection("127.0.0.1", running.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode())
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 30) == b""  # the server closed it
    writer.close()
    await writer.wait_closed()


@pytest.mark.parametrize(
    "target",
    [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "//etc/passwd",
        "/game/..%2f..%2fetc%2fpasswd",
        "/metrics/../../etc/passwd",
        "/game/%00",
    ],
)
async def test_path_tricks_find_nothing(site: tuple[Site, str], target: str) -> None:
    running, _ = site
    status = await raw(running, f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status.split()[1] in ("404", "400"), status


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
async def test_nothing_but_reads(site: tuple[Site, str], method: str) -> None:
    running, path = site
    request = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
    assert (await raw(running, request.encode())).split()[1] == "405"


async def test_not_http_at_all(site: tuple[Site, str]) -> None:
    running, _ = site
    assert (await raw(running, b"\x16\x03\x01garbage\r\n\r\n")).split()[1] == "400"
